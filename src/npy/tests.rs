//! Unit tests of the private parts: header parsing, layouts, encoding.

use super::reader::*;
use super::writer::*;
use super::*;
use crate::Element;
use std::path::PathBuf;

fn format_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fixtures/format")
}

fn arange<T: Element>(n: usize) -> Vec<T> {
    (0..n).map(|i| T::from_usize(i).unwrap()).collect()
}

fn size(shape: &[usize]) -> usize {
    shape.iter().product()
}

const SHAPES: &[&[usize]] = &[
    &[],
    &[5],
    &[0],
    &[2, 3],
    &[3, 0],
    &[2, 3, 4],
    &[2, 1, 3, 2],
    &[1, 0, 2, 3],
];

fn round_trip<T: NpyElement + Element>() {
    for &shape in SHAPES {
        let mut v: Vec<T> = arange(size(shape));
        if let Some(x) = v.first_mut() {
            *x = T::nan();
        }
        if let Some(x) = v.last_mut() {
            *x = -T::zero();
        }
        let a = Array::from_shape_vec(shape, v.clone()).unwrap();
        let bytes = to_bytes(&a.view());
        assert_eq!(
            bytes.len() % ARRAY_ALIGN,
            (v.len() * T::ITEMSIZE) % ARRAY_ALIGN
        );
        let b: Array<T> = from_bytes(&bytes).unwrap();
        assert_eq!(b.shape(), shape);
        let bits = |xs: &[T]| {
            xs.iter()
                .map(|x| format!("{:?}", x.to_f64().unwrap().to_bits()))
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&b.to_vec()), bits(&v), "shape {shape:?}");
    }
}

#[test]
fn round_trip_f64() {
    round_trip::<f64>();
}

#[test]
fn round_trip_f32() {
    round_trip::<f32>();
}

#[test]
fn file_round_trip() {
    let dir = std::env::temp_dir().join(format!("ndsimd-npy-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.npy");
    let a = Array::<f32>::from_shape_vec(&[2, 2], vec![1.0, -2.0, 3.5, f32::INFINITY]).unwrap();
    write(&path, &a.view()).unwrap();
    let b = read::<f32>(&path).unwrap();
    assert_eq!(b.shape(), &[2, 2]);
    assert_eq!(b.to_vec(), a.to_vec());
    let err = read::<f32>(dir.join("missing.npy")).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::NotFound);
    assert!(err.to_string().contains("missing.npy"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The bool pattern of the `c_b1_*.npy` files: element `i` is `i % 3 == 0`.
fn bool_pattern(n: usize) -> Vec<bool> {
    (0..n).map(|i| i % 3 == 0).collect()
}

#[test]
fn round_trip_bool() {
    for &shape in SHAPES {
        let n = size(shape);
        let v: Vec<bool> = (0..n).map(|i| (i * 7 + 3) % 5 < 2).collect();
        let a = Array::from_shape_vec(shape, v.clone()).unwrap();
        let bytes = to_bytes(&a.view());
        assert_eq!(
            bytes.len() % ARRAY_ALIGN,
            n % ARRAY_ALIGN,
            "shape {shape:?}"
        );
        // One byte per element, 0 or 1.
        let data = &bytes[bytes.len() - n..];
        assert_eq!(data, v.iter().map(|&b| u8::from(b)).collect::<Vec<_>>());
        let b: Array<bool> = from_bytes(&bytes).unwrap();
        assert_eq!(b.shape(), shape);
        assert_eq!(b.to_vec(), v, "shape {shape:?}");
        // A transposed view writes its logical C-order elements.
        let t = a.t();
        let c: Array<bool> = from_bytes(&to_bytes(&t)).unwrap();
        assert_eq!(c.shape(), t.shape());
        assert_eq!(c.to_vec(), t.to_vec(), "shape {shape:?}");
    }
    // Through a file, too.
    let dir = std::env::temp_dir().join(format!("ndsimd-npy-bool-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("b.npy");
    let a = Array::from_shape_vec(&[2, 3], vec![true, false, false, true, true, false]).unwrap();
    write(&path, &a.view()).unwrap();
    let b = read::<bool>(&path).unwrap();
    assert_eq!((b.shape(), b.to_vec()), (a.shape(), a.to_vec()));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Bool files written by NumPy: read them, and write them back byte for byte.
#[test]
fn numpy_bool_files() {
    for (i, &shape) in SHAPES.iter().enumerate() {
        let bytes = std::fs::read(format_dir().join(format!("c_b1_{i}.npy"))).unwrap();
        let a = from_bytes::<bool>(&bytes).unwrap();
        assert_eq!(a.shape(), shape);
        assert_eq!(a.to_vec(), bool_pattern(size(shape)), "shape {shape:?}");
        assert_eq!(to_bytes(&a.view()), bytes, "shape {shape:?}");
        let b = Array::from_shape_vec(shape, bool_pattern(size(shape))).unwrap();
        assert_eq!(to_bytes(&b.view()), bytes, "shape {shape:?}");
    }
    let a = read::<bool>(format_dir().join("b1.npy")).unwrap();
    assert_eq!((a.shape(), a.to_vec()), (&[2][..], vec![true, false]));
    // Fortran order: read into C order.
    let f = read::<bool>(format_dir().join("fortran_b1.npy")).unwrap();
    assert_eq!(f.shape(), &[3, 4, 2]);
    assert_eq!(f.to_vec(), bool_pattern(24));
    assert!(f.is_standard_layout());
    // Format version 3.0.
    let v3 = read::<bool>(format_dir().join("v3_b1.npy")).unwrap();
    assert_eq!((v3.shape(), v3.to_vec()), (&[5][..], bool_pattern(5)));
    // Bytes other than 0 and 1 (a uint8 array viewed as bool) read as true, as in NumPy.
    let odd = read::<bool>(format_dir().join("b1_bytes.npy")).unwrap();
    assert_eq!(odd.to_vec(), vec![false, true, true, true, false]);
    // A truncated bool file is an error.
    let bytes = std::fs::read(format_dir().join("c_b1_3.npy")).unwrap();
    expect_invalid::<bool>(
        &bytes[..bytes.len() - 1],
        "needs 6 data bytes but the file has 5",
    );
}

/// `to_bytes` reproduces `numpy.save` byte for byte.
#[test]
fn identical_to_numpy_save() {
    for (i, &shape) in SHAPES.iter().enumerate() {
        let f8 = std::fs::read(format_dir().join(format!("c_f8_{i}.npy"))).unwrap();
        let f4 = std::fs::read(format_dir().join(format!("c_f4_{i}.npy"))).unwrap();
        let a = Array::<f64>::from_shape_vec(shape, arange(size(shape))).unwrap();
        assert_eq!(to_bytes(&a.view()), f8, "shape {shape:?}");
        let a = Array::<f32>::from_shape_vec(shape, arange(size(shape))).unwrap();
        assert_eq!(to_bytes(&a.view()), f4, "shape {shape:?}");
        assert_eq!(
            from_bytes::<f64>(&f8).unwrap().to_vec(),
            arange::<f64>(size(shape))
        );
        assert_eq!(from_bytes::<f32>(&f4).unwrap().shape(), shape);
    }
}

/// Writing a non-standard layout writes its logical C-order elements.
#[test]
fn write_any_layout() {
    let a = Array::<f64>::from_shape_vec(&[2, 3], arange(6)).unwrap();
    let t = a.t();
    let b: Array<f64> = from_bytes(&to_bytes(&t)).unwrap();
    assert_eq!(b.shape(), &[3, 2]);
    assert_eq!(b.to_vec(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
}

fn check_file<T: NpyElement + Element>(name: &str, shape: &[usize]) {
    let a = read::<T>(format_dir().join(name)).unwrap();
    assert_eq!(a.shape(), shape, "{name}");
    assert_eq!(a.to_vec(), arange::<T>(size(shape)), "{name}");
    assert!(a.is_standard_layout(), "{name}");
}

#[test]
fn numpy_fortran_big_endian_and_versions() {
    check_file::<f64>("fortran_f8.npy", &[2, 3, 4]);
    check_file::<f32>("fortran_f4.npy", &[3, 5]);
    check_file::<f64>("fortran_be_f8.npy", &[4, 3, 2]);
    check_file::<f64>("be_f8.npy", &[3, 4]);
    check_file::<f32>("be_f4.npy", &[2, 3]);
    check_file::<f64>("be_f8_r0.npy", &[]);
    check_file::<f64>("v2_f8.npy", &[2, 3]);
    check_file::<f32>("v3_f4.npy", &[4]);
    check_file::<f64>("v3_be_f8.npy", &[2, 2, 2]);
}

#[test]
fn fortran_to_c_order() {
    // F-order data of shape [2, 3]: columns first.
    let f = [0, 3, 1, 4, 2, 5];
    assert_eq!(fortran_to_c(&[2, 3], &f), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(fortran_to_c(&[1, 1, 1], &[7]), vec![7]);
}

fn expect_invalid<T: NpyElement + DType>(bytes: &[u8], needle: &str) {
    let err = match from_bytes::<T>(bytes) {
        Ok(a) => panic!(
            "expected an error containing {needle:?}, got shape {:?}",
            a.shape()
        ),
        Err(e) => e,
    };
    assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
    assert!(
        err.to_string().contains(needle),
        "{err:?} does not contain {needle:?}"
    );
}

/// Builds a version-1.0 file around `header` and `data`.
fn with_header(header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn dtype_mismatch_names_both() {
    let f4 = std::fs::read(format_dir().join("c_f4_3.npy")).unwrap();
    let err = from_bytes::<f64>(&f4).unwrap_err();
    let msg = err.to_string();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert!(msg.contains("'<f4'") && msg.contains("float32"), "{msg}");
    assert!(msg.contains("'<f8'") && msg.contains("float64"), "{msg}");
    let be = std::fs::read(format_dir().join("be_f8.npy")).unwrap();
    expect_invalid::<f32>(&be, "'>f8' (float64)");
    let i8 = std::fs::read(format_dir().join("i8.npy")).unwrap();
    expect_invalid::<f64>(&i8, "the file holds '<i8' (int64) but '<f8' (float64)");
    expect_invalid::<bool>(&i8, "the file holds '<i8' (int64) but '|b1' (bool)");
    assert_eq!(from_bytes::<i64>(&i8).unwrap().ndim(), 2);
    let f2 = with_header(
        "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }",
        &[0, 0],
    );
    expect_invalid::<f64>(&f2, "unsupported dtype '<f2'");
    let b1 = std::fs::read(format_dir().join("b1.npy")).unwrap();
    expect_invalid::<f32>(&b1, "the file holds '|b1' (bool) but '<f4' (float32)");
    expect_invalid::<bool>(&f4, "the file holds '<f4' (float32) but '|b1' (bool)");
}

#[test]
fn every_truncation_is_an_error() {
    for name in ["c_f8_3.npy", "v3_f4.npy", "fortran_be_f8.npy", "c_f4_0.npy"] {
        let bytes = std::fs::read(format_dir().join(name)).unwrap();
        for n in 0..bytes.len() {
            let r = if name.contains("f4") {
                from_bytes::<f32>(&bytes[..n]).map(|_| ())
            } else {
                from_bytes::<f64>(&bytes[..n]).map(|_| ())
            };
            let err = r.expect_err("a truncated file must not parse");
            assert_eq!(
                err.kind(),
                io::ErrorKind::InvalidData,
                "{name}[..{n}]: {err}"
            );
        }
    }
    let bytes = std::fs::read(format_dir().join("c_f8_3.npy")).unwrap();
    expect_invalid::<f64>(&bytes[..bytes.len() - 1], "truncated .npy file");
    expect_invalid::<f64>(&bytes[..100], "truncated .npy file");
    expect_invalid::<f64>(&bytes[..9], "truncated .npy file");
    expect_invalid::<f64>(&bytes[..7], "truncated .npy file");
}

#[test]
fn malformed_files_are_errors() {
    let good = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n";
    let data = [0u8; 16];
    assert_eq!(
        from_bytes::<f64>(&with_header(good, &data))
            .unwrap()
            .shape(),
        &[2]
    );

    // Magic and version.
    expect_invalid::<f64>(b"", "magic");
    expect_invalid::<f64>(b"\x93NUMPZ\x01\x00", "magic");
    expect_invalid::<f64>(b"PK\x03\x04 a zip file, not npy", "magic");
    let mut v4 = with_header(good, &data);
    v4[6] = 4;
    expect_invalid::<f64>(&v4, "unsupported .npy format version 4.0");
    let mut v11 = with_header(good, &data);
    v11[7] = 1;
    expect_invalid::<f64>(&v11, "version 1.1");
    // Header length pointing past the end of the file.
    let mut long = with_header(good, &data);
    long[8] = 0xff;
    long[9] = 0xff;
    expect_invalid::<f64>(&long, "truncated .npy file");

    // Data length must match the shape exactly.
    expect_invalid::<f64>(
        &with_header(good, &data[..15]),
        "needs 16 data bytes but the file has 15",
    );
    expect_invalid::<f64>(
        &with_header(good, &[0u8; 24]),
        "needs 16 data bytes but the file has 24",
    );

    // Header syntax and content.
    let bad_headers = [
        ("", "expected '{'"),
        ("not a dict", "expected '{'"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), ", "expected a value"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)} x", "unexpected text"),
        ("{'descr': '<f8' 'fortran_order': False, 'shape': (2,)}", "expected ','"),
        ("{'descr': '<f8', 'fortran_order': False}", "missing key"),
        ("{'descr': '<f8', 'shape': (2,)}", "missing key"),
        ("{'fortran_order': False, 'shape': (2,)}", "missing key"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}", "unexpected key 'x'"),
        // A repeated key keeps its last value, as in Python: here 1, not a dtype.
        ("{'descr': '<f8', 'descr': 1, 'fortran_order': False, 'shape': (2,)}", "unsupported 'descr' Int(1)"),
        ("{'descr': '<f8', 'fortran_order': 0, 'shape': (2,)}", "'fortran_order' must be True or False"),
        ("{'descr': '<f8', 'fortran_order': false, 'shape': (2,)}", "unexpected name 'false'"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': [2]}", "'shape' must be a tuple"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (2)}", "'shape' must be a tuple"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (-2,)}", "non-negative"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (2.0,)}", "expected ','"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (None,)}", "non-negative"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': ((2,),)}", "non-negative"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (2,,)}", "unexpected character ','"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,)}", "too large"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296)}", "too large"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4294967296, 4294967296)}", "too large"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,)}", "too large"),
        ("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,)}", "unsupported 'descr'"),
        ("{'descr': '<f8, 'fortran_order': False, 'shape': (2,)}", "expected ',' or '}'"),
        ("{'descr': '<f8\\n', 'fortran_order': False, 'shape': (2,)}", "escape"),
        ("{'descr': '<c16', 'fortran_order': False, 'shape': (2,)}", "unsupported dtype '<c16'"),
        ("{'descr': '<f8 ', 'fortran_order': False, 'shape': (2,)}", "unsupported dtype '<f8 '"),
        ("{1: '<f8', 'fortran_order': False, 'shape': (2,)}", "not a string"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)}\u{e9}", "unexpected text"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': @}", "unexpected character '@'"),
    ];
    for (header, needle) in bad_headers {
        expect_invalid::<f64>(&with_header(header, &data), needle);
    }
    // More axes than an array may have.
    let many = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({}), }}",
        "1, ".repeat(65)
    );
    expect_invalid::<f64>(&with_header(&many, &data[..8]), "cannot build an array");
    // Deep nesting is rejected, not a stack overflow.
    let deep = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': {}2{}}}",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    expect_invalid::<f64>(&with_header(&deep, &data), "nested too deeply");
    // Version 3.0 headers must be UTF-8.
    let mut v3 = MAGIC.to_vec();
    let h = b"{'descr': '<f8', 'fortran_order': False, 'shape': (2,)}\xff\n";
    v3.extend_from_slice(&[3, 0]);
    v3.extend_from_slice(&(h.len() as u32).to_le_bytes());
    v3.extend_from_slice(h);
    v3.extend_from_slice(&data);
    expect_invalid::<f64>(&v3, "not valid UTF-8");

    // Accepted variants: other quotes, no trailing comma, no padding, Python 2 longs.
    let ok = [
        "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (2,)}",
        "{'shape': (2L,), 'fortran_order': True, 'descr': '<f8'}",
        "  {'descr':'<f8','fortran_order':False,'shape':(2,),}  \n",
    ];
    for header in ok {
        let a = from_bytes::<f64>(&with_header(header, &data)).unwrap();
        assert_eq!(a.shape(), &[2], "{header}");
    }
    // A size-0 shape with no data, and a rank-0 shape with one element.
    let empty = "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 0, 2), }";
    assert_eq!(
        from_bytes::<f32>(&with_header(empty, &[])).unwrap().shape(),
        &[3, 0, 2]
    );
    let scalar = "{'descr': '>f4', 'fortran_order': False, 'shape': (), }";
    let a = from_bytes::<f32>(&with_header(scalar, &1.5f32.to_be_bytes())).unwrap();
    assert_eq!((a.shape(), a.to_vec()), (&[][..], vec![1.5]));
}

#[test]
fn header_parser() {
    let h = parse_header("{'descr': '<f8', 'fortran_order': True, 'shape': (3, 4), }").unwrap();
    assert_eq!(
        h,
        Header {
            descr: "<f8".into(),
            fortran_order: true,
            shape: vec![3, 4]
        }
    );
    assert_eq!(
        parse_header("{'descr': '<f8', 'fortran_order': False, 'shape': ()}")
            .unwrap()
            .shape,
        Vec::<usize>::new()
    );
    assert_eq!(
        parse_header("{'descr': '<f8', 'fortran_order': False, 'shape': (7,)}")
            .unwrap()
            .shape,
        vec![7]
    );
}
