//! `npy::mmap`: views over memory-mapped `.npy` files NumPy wrote, in every dtype,
//! order and format version, checked against `npy::read` (itself checked against
//! NumPy in tests/dtypes.rs and tests/numpy_fixtures.rs) and for pointing into the
//! mapping at each element's exact byte offset; and the files it must refuse.

mod common;

use common::TempDir;
use ndsimd::npy::{self, NpyElement};
use ndsimd::{Array, DType};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

fn data(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(sub)
}

/// The C-order multi-index of flat position `k` in `shape`.
fn unravel(mut k: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for (i, &d) in shape.iter().enumerate().rev() {
        idx[i] = k % d;
        k /= d;
    }
    idx
}

/// How `mmap::<T>` of `path` went, where `read::<T>` succeeds: `Ok(true)` when the
/// view equals the read array and each element lies at its byte offset in the file
/// (C or Fortran order), `Ok(false)` when `read` refuses the file too, and the
/// mapping's error when only it refuses.
fn check<T: NpyElement + DType>(path: &Path) -> Result<bool, String> {
    let name = path.display();
    let read = npy::read::<T>(path);
    let mapped = npy::mmap::<T>(path);
    let (want, mapped) = match (read, mapped) {
        (Err(_), Err(_)) => return Ok(false),
        (Err(e), Ok(_)) => panic!("{name}: read refuses ({e}) but mmap maps it"),
        (Ok(_), Err(e)) => return Err(e.to_string()),
        (Ok(w), Ok(m)) => (w, m),
    };
    let v = mapped.view();
    assert_eq!(v.shape(), want.shape(), "{name}");
    // Compared as debug strings: NaN equals NaN there, and the values are bit copies.
    assert_eq!(
        format!("{:?}", v.to_vec()),
        format!("{:?}", want.to_vec()),
        "{name}"
    );
    let file = mapped.file_bytes();
    let size = std::mem::size_of::<T>();
    let start = file.len() - want.len() * size;
    let shape = want.shape();
    for (k, x) in v.iter().enumerate() {
        let idx = unravel(k, shape);
        // The element's position in the file's order.
        let mut pos = 0;
        if mapped.is_fortran_order() {
            for (i, d) in idx.iter().zip(shape).rev() {
                pos = pos * d + i;
            }
        } else {
            pos = k;
        }
        let at = x as *const T as usize;
        assert_eq!(
            at,
            file.as_ptr() as usize + start + pos * size,
            "{name}: element {idx:?}"
        );
    }
    Ok(true)
}

/// Runs `check` as each dtype: how many maps succeeded, and the refusals.
fn check_each(path: &Path, ok: &mut usize, refused: &mut Vec<(String, String)>) {
    let results = [
        check::<f64>(path),
        check::<f32>(path),
        check::<i64>(path),
        check::<i32>(path),
        check::<u8>(path),
        check::<bool>(path),
    ];
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    for r in results {
        match r {
            Ok(true) => *ok += 1,
            Ok(false) => {}
            Err(e) => refused.push((name.clone(), e)),
        }
    }
}

#[test]
fn every_file_numpy_wrote_maps_as_it_reads_or_is_refused_for_a_reason() {
    let (mut ok, mut refused) = (0, Vec::new());
    let mut files = Vec::new();
    for sub in ["dtypes", "fixtures/format"] {
        for e in std::fs::read_dir(data(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "npy") {
                files.push(p);
            }
        }
    }
    files.sort();
    for p in &files {
        check_each(p, &mut ok, &mut refused);
    }
    assert!(ok > 400, "{ok} of {} files mapped", files.len());
    // Every dtype, order and byte order of gen_dtypes.py's files: the native
    // (little-endian) ones and the single-byte ones map; the rest are refused as
    // big-endian.
    for dt in ["f64", "f32", "i64", "i32", "u8", "bool"] {
        for order in ["C", "F"] {
            for end in ["le", "be"] {
                let name = format!("file_{dt}_{order}_{end}.npy");
                let why = refused.iter().find(|(n, _)| *n == name).map(|(_, e)| e);
                if end == "be" && !matches!(dt, "u8" | "bool") {
                    let e = why.unwrap_or_else(|| panic!("{name} mapped"));
                    assert!(
                        e.contains("it is big-endian and this machine is little-endian; read it with npy::read"),
                        "{name}: {e}"
                    );
                } else {
                    assert!(why.is_none(), "{name}: {why:?}");
                }
            }
        }
    }
    for (name, e) in &refused {
        let endian = e.contains("big-endian and this machine is little-endian");
        let bad_bool = name == "b1_bytes.npy"
            && e.contains("element 2 (flat, in file order) is the byte 2, not 0 or 1");
        assert!(endian || bad_bool, "{name}: {e}");
    }
    assert!(refused.iter().any(|(n, _)| n == "b1_bytes.npy"));
    // Versions 2.0 and 3.0, Fortran-order bools.
    for name in [
        "v2_f8.npy",
        "v3_f4.npy",
        "v3_b1.npy",
        "fortran_b1.npy",
        "fortran_f8.npy",
    ] {
        let mut n = 0;
        check_each(&data("fixtures/format").join(name), &mut n, &mut Vec::new());
        assert_eq!(n, 1, "{name}");
    }
    assert!(npy::mmap::<f64>(data("fixtures/format/fortran_f8.npy"))
        .unwrap()
        .is_fortran_order());
}

/// A version-1.0 file: the prefix, `header` as written, then `data`.
fn npy_file(header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn expect_err<T>(r: io::Result<T>, needle: &str) {
    let Err(e) = r else {
        panic!("expected an error containing {needle:?}")
    };
    assert!(e.to_string().contains(needle), "{e} lacks {needle:?}");
}

#[test]
fn hostile_files_are_errors() {
    let dir = TempDir::new("mmap", "hostile");
    let h = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }";
    // A header promising 2^40 elements in a 200-byte file: an error, not a view
    // past the end of the mapping.
    let lying = "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }";
    let p = dir.file("lying.npy", &npy_file(lying, &[0u8; 121]));
    expect_err(
        npy::mmap::<f64>(&p),
        "needs 8796093022208 data bytes but the file has 121",
    );
    let p = dir.file("short.npy", &npy_file(h, &[0u8; 24]));
    expect_err(
        npy::mmap::<f64>(&p),
        "truncated .npy file: shape [4] of '<f8' needs 32",
    );
    let p = dir.file("long.npy", &npy_file(h, &[0u8; 40]));
    expect_err(
        npy::mmap::<f64>(&p),
        "bad .npy file: shape [4] of '<f8' needs 32",
    );
    let mut cut = npy_file(h, &[0u8; 32]);
    cut.truncate(30);
    let p = dir.file("cut.npy", &cut);
    expect_err(
        npy::mmap::<f64>(&p),
        "the header is 57 bytes long but only 20 bytes follow",
    );
    for n in [0, 5, 9] {
        let p = dir.file("tiny.npy", &cut[..n]);
        expect_err(npy::mmap::<f64>(&p), ".npy file");
    }
    let p = dir.file("magic.npy", b"\x93NUMPX\x01\x00\x00\x00");
    expect_err(npy::mmap::<f64>(&p), "does not start with the magic string");
    let p = dir.file(
        "dict.npy",
        &npy_file("{'descr': '<f8', 'shape': [4]}", &[0u8; 32]),
    );
    expect_err(npy::mmap::<f64>(&p), "bad .npy header");
    let p = dir.file("dtype.npy", &npy_file(h, &[0u8; 32]));
    expect_err(
        npy::mmap::<i64>(&p),
        "dtype mismatch: the file holds '<f8' (float64)",
    );
    expect_err(npy::mmap::<f64>(dir.0.as_path()), "is a directory");
    expect_err(npy::mmap::<u8>("/dev/zero"), "not a regular file");
    expect_err(npy::mmap::<u8>(dir.0.join("missing.npy")), "missing.npy");

    // Data at an odd offset: 10 + 57 + 1 bytes of header (one more space).
    let odd = format!("{h} ");
    let mut bytes = npy_file(&odd, &[]);
    assert_eq!(bytes.len(), 68);
    for x in [1.5f64, -2.0, 3.25, 0.0] {
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    let p = dir.file("odd.npy", &bytes);
    expect_err(
        npy::mmap::<f64>(&p),
        "it starts at byte 68 of the file, not a multiple of 8 (float64's alignment); read it with npy::read",
    );
    assert_eq!(
        npy::read::<f64>(&p).unwrap().to_vec(),
        vec![1.5, -2.0, 3.25, 0.0]
    );
    // One-byte elements have no alignment to miss.
    let u8s = "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }  ";
    let p = dir.file("odd_u8.npy", &npy_file(u8s, &[9, 8, 7]));
    assert_eq!(npy::mmap::<u8>(&p).unwrap().view().to_vec(), vec![9, 8, 7]);
    // A bool byte past 1 anywhere is named.
    let b = "{'descr': '|b1', 'fortran_order': True, 'shape': (2, 2), }";
    let p = dir.file("bools.npy", &npy_file(b, &[1, 0, 1, 255]));
    expect_err(
        npy::mmap::<bool>(&p),
        "element 3 (flat, in file order) is the byte 255",
    );
    assert_eq!(
        npy::read::<bool>(&p).unwrap().to_vec(),
        vec![true, true, false, true]
    );
}

#[test]
fn empty_arrays_and_written_arrays_map() {
    let dir = TempDir::new("mmap", "empty");
    for shape in [&[0usize][..], &[3, 0], &[]] {
        let a = Array::<i32>::zeros(shape);
        let p = dir.0.join("e.npy");
        npy::write(&p, &a).unwrap();
        let m = npy::mmap::<i32>(&p).unwrap();
        assert_eq!(m.view(), a.view(), "{shape:?}");
    }
    let a = Array::<f64>::arange(0.0, 12.0, 1.0)
        .unwrap()
        .into_shape(&[3, 4])
        .unwrap();
    let p = dir.0.join("t.npy");
    npy::write(&p, &a.t()).unwrap();
    let m = npy::mmap::<f64>(&p).unwrap();
    assert_eq!(m.view(), a.t());
    assert!(m.view().is_standard_layout());
}

/// A 1 GiB sparse file maps without reading it: the view has all its elements,
/// and one read from the middle finds the zero the hole holds.
#[test]
fn a_sparse_gibibyte_maps() {
    let dir = TempDir::new("mmap", "sparse");
    let n = (1usize << 30) / 8;
    let h = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({n},), }}");
    let mut head = npy_file(&h, &[]);
    head.resize(128, b' ');
    head[8..10].copy_from_slice(&(118u16).to_le_bytes());
    head[127] = b'\n';
    let p = dir.0.join("big.npy");
    let mut f = std::fs::File::create(&p).unwrap();
    f.write_all(&head).unwrap();
    f.set_len(128 + (1 << 30)).unwrap();
    drop(f);
    let m = npy::mmap::<f64>(&p).unwrap();
    let v = m.view();
    assert_eq!(v.shape(), &[n]);
    assert_eq!(v.get(&[n / 2]), Some(&0.0));
}
