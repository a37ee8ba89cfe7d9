//! Arrays too large to allocate: every constructor's `try_` form (and every
//! `Result`-returning operation whose output a shape decides) reports
//! `Error::Alloc` naming the shape and the bytes; the panicking forms panic with
//! that message, catchably, instead of aborting the process.
//!
//! Two kinds of case. "Too big" shapes span more than `isize::MAX` bytes: refused
//! by arithmetic alone, the same on every machine. "Refused" ones (8 TiB) fit the
//! bound but no machine here has the memory: the allocator refuses them unless the
//! kernel overcommits without limit (`vm.overcommit_memory = 1`), where those
//! checks are skipped. Cases that aborted the process before run in a child
//! process, so an abort fails the test instead of ending the test binary.

use ndsimd::{Array, Error};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::Command;

const CHILD: &str = "NDSIMD_ALLOC_LIMITS_CHILD";

/// Runs `body` in a child process (this test binary re-run for the test `name`
/// alone), so that an abort fails the test rather than ending every test.
fn isolated(name: &str, body: impl FnOnce()) {
    if std::env::var_os(CHILD).is_some() {
        body();
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} in a child process: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// True where the kernel grants any allocation (`vm.overcommit_memory = 1`), so
/// that an 8 TiB request succeeds until its pages are touched.
fn overcommits_always() -> bool {
    let mode = std::fs::read_to_string("/proc/sys/vm/overcommit_memory").unwrap_or_default();
    let always = mode.trim() == "1";
    if always {
        eprintln!("vm.overcommit_memory = 1: the allocator grants 8 TiB; refusals not checked");
    }
    always
}

/// The panic message of `f`, which must panic.
fn panic_message<R>(f: impl FnOnce() -> R) -> String {
    let payload = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => panic!("expected a panic"),
        Err(p) => p,
    };
    if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else {
        panic!("a panic without a message")
    }
}

const TIB8: u128 = 1 << 43;
const REFUSED_8TIB: &str = "unable to allocate 8796093022208 bytes (8.00 TiB) for an array of \
                            shape [1099511627776] and data type float64";
const TOO_BIG_2_61: &str = "array is too big: shape [2305843009213693952] of float64 spans \
                            18446744073709551616 bytes (16.00 EiB), more than the \
                            9223372036854775743 bytes one allocation may hold";

fn expect_alloc<T>(r: Result<T, Error>, shape: &[usize], bytes: Option<u128>, msg: &str) {
    let Err(err) = r else {
        panic!("expected Error::Alloc for shape {shape:?}, got Ok")
    };
    assert_eq!(err.to_string(), msg);
    match err {
        Error::Alloc {
            shape: s, bytes: b, ..
        } => assert_eq!((s.as_slice(), b), (shape, bytes)),
        other => panic!("expected Error::Alloc, got {other:?}"),
    }
}

/// The cases that were no error: `zeros` of 2^61 f64 and `arange` to 1e19
/// panicked with "capacity overflow"; `linspace` of `usize::MAX` too.
#[test]
fn too_big_is_an_error_with_the_size() {
    let shape = [1usize << 61];
    expect_alloc(
        Array::<f64>::try_zeros(&shape),
        &shape,
        Some(1 << 64),
        TOO_BIG_2_61,
    );
    expect_alloc(
        Array::<f64>::arange(0.0, 1e19, 1.0),
        &[10_000_000_000_000_000_000],
        Some(80_000_000_000_000_000_000),
        "array is too big: shape [10000000000000000000] of float64 spans \
         80000000000000000000 bytes (69.39 EiB), more than the 9223372036854775743 bytes \
         one allocation may hold",
    );
    expect_alloc(
        Array::<f64>::try_linspace(0.0, 1.0, usize::MAX),
        &[usize::MAX],
        Some(8 * u128::from(u64::MAX)),
        "array is too big: shape [18446744073709551615] of float64 spans \
         147573952589676412920 bytes (128.00 EiB), more than the 9223372036854775743 bytes \
         one allocation may hold",
    );
    // One byte per bool: 2^63 bytes is one past the bound.
    expect_alloc(
        Array::<bool>::try_from_elem(&[1 << 63], true),
        &[1 << 63],
        Some(1 << 63),
        "array is too big: shape [9223372036854775808] of bool spans 9223372036854775808 \
         bytes (8.00 EiB), more than the 9223372036854775743 bytes one allocation may hold",
    );
    // A product past usize (and past u128).
    let huge = [1usize << 40, 1 << 40];
    assert!(matches!(
        Array::<f32>::try_ones(&huge),
        Err(Error::Alloc { bytes: Some(b), .. }) if b == 1 << 82
    ));
    let past_u128 = [usize::MAX; 3];
    expect_alloc(
        Array::<f64>::try_full(&past_u128, 1.0),
        &past_u128,
        None,
        "array is too big: shape [18446744073709551615, 18446744073709551615, \
         18446744073709551615] of float64 spans more than 2^128 bytes, more than the \
         9223372036854775743 bytes one allocation may hold",
    );
    // As NumPy, an empty shape whose other dimensions span too much is too big.
    assert!(matches!(
        Array::<f64>::try_zeros(&[1 << 60, 0]),
        Err(Error::Alloc { bytes: Some(b), .. }) if b == 1 << 63
    ));
    assert_eq!(
        Array::<f64>::try_zeros(&[1 << 59, 0]).unwrap().shape(),
        &[1 << 59, 0]
    );
    assert!(Array::<f64>::try_eye(1 << 31, 1 << 31, 0).is_err());
    assert!(Array::<f64>::try_identity(1 << 31).is_err());
    // Not a size: a length past usize, and too many axes.
    let err = Array::<f64>::arange(0.0, 1e300, 1.0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "arange of 1e300 elements is too long: an array has at most 18446744073709551615 \
         elements"
    );
    assert!(matches!(
        Array::<f64>::try_zeros(&[1; 65]),
        Err(Error::InvalidArgument(m)) if m.contains("at most 64 dimensions")
    ));
}

/// The panicking forms panic with the `try_` form's message, and the panic is
/// caught.
#[test]
fn panicking_forms_panic_with_the_message() {
    let shape = [1usize << 61];
    assert_eq!(panic_message(|| Array::<f64>::zeros(&shape)), TOO_BIG_2_61);
    assert_eq!(panic_message(|| Array::<f64>::ones(&shape)), TOO_BIG_2_61);
    assert_eq!(
        panic_message(|| Array::<f64>::from_elem(&shape, 2.0)),
        TOO_BIG_2_61
    );
    assert_eq!(
        panic_message(|| Array::<f64>::full(&shape, 2.0)),
        TOO_BIG_2_61
    );
    let msg = Array::<f64>::try_linspace(0.0, 1.0, usize::MAX)
        .unwrap_err()
        .to_string();
    assert_eq!(
        panic_message(|| Array::<f64>::linspace(0.0, 1.0, usize::MAX)),
        msg
    );
    let msg = Array::<f32>::try_eye(1 << 40, 1 << 40, 3)
        .unwrap_err()
        .to_string();
    assert!(msg.starts_with("array is too big: shape [1099511627776, 1099511627776] of float32"));
    assert_eq!(
        panic_message(|| Array::<f32>::eye(1 << 40, 1 << 40, 3)),
        msg
    );
    assert_eq!(panic_message(|| Array::<f32>::identity(1 << 40)), msg);
    assert_eq!(
        panic_message(|| Array::<f64>::zeros(&[1; 65])),
        "an array may have at most 64 dimensions, 65 were asked for"
    );
}

/// The abort: `zeros` of 2^40 f64 (8 TiB) killed the process with SIGABRT.
#[test]
fn refused_is_an_error_not_an_abort() {
    if overcommits_always() {
        return;
    }
    isolated("refused_is_an_error_not_an_abort", || {
        let shape = [1usize << 40];
        expect_alloc(
            Array::<f64>::try_zeros(&shape),
            &shape,
            Some(TIB8),
            REFUSED_8TIB,
        );
        expect_alloc(
            Array::<f64>::try_ones(&shape),
            &shape,
            Some(TIB8),
            REFUSED_8TIB,
        );
        assert_eq!(panic_message(|| Array::<f64>::zeros(&shape)), REFUSED_8TIB);
        assert_eq!(
            panic_message(|| Array::<f64>::from_elem(&shape, 1.0)),
            REFUSED_8TIB
        );
        assert!(matches!(
            Array::<f64>::arange(0.0, (1u64 << 40) as f64, 1.0),
            Err(Error::Alloc {
                bytes: Some(TIB8),
                ..
            })
        ));
        // Sizes a machine has are still granted.
        assert_eq!(Array::<f64>::try_zeros(&[5 << 20]).unwrap().len(), 5 << 20);
    });
}

/// Results whose size the operands' shapes decide, far beyond what the operands
/// hold: broadcasting, an empty contraction axis, an empty reduced axis.
#[test]
fn operations_report_their_output_size() {
    // Deterministic: an (m, 0) @ (0, n) product of 2^64 elements from empty inputs.
    let a = Array::<f64>::zeros(&[1 << 32, 0]);
    let b = Array::<f64>::zeros(&[0, 1 << 32]);
    let err = a.matmul(&b).unwrap_err();
    assert_eq!(
        err.to_string(),
        "array is too big: shape [4294967296, 4294967296] of float64 spans \
         147573952589676412928 bytes (128.00 EiB), more than the 9223372036854775743 bytes \
         one allocation may hold"
    );
    assert!(a.dot(&b).is_err());
    if overcommits_always() {
        return;
    }
    isolated("operations_report_their_output_size", || {
        let refused = |shape: &[usize], dtype: &str| {
            let bytes = shape.iter().product::<usize>() * if dtype == "bool" { 1 } else { 8 };
            format!(
                "unable to allocate {bytes} bytes ({}) for an array of shape {shape:?} and \
                 data type {dtype}",
                if dtype == "bool" {
                    "1.00 TiB"
                } else {
                    "8.00 TiB"
                }
            )
        };
        let col = Array::<f64>::zeros(&[1 << 20, 1]);
        let row = Array::<f64>::zeros(&[1, 1 << 20]);
        let out = [1usize << 20, 1 << 20];
        let msg = refused(&out, "float64");
        assert_eq!(col.add(&row).unwrap_err().to_string(), msg);
        assert_eq!(col.mul(&row).unwrap_err().to_string(), msg);
        assert_eq!(col.mul_add(&row, 1.0).unwrap_err().to_string(), msg);
        assert_eq!(
            col.less(&row).unwrap_err().to_string(),
            refused(&out, "bool")
        );
        // The operator form panics with the same message.
        assert_eq!(panic_message(|| &col + &row), msg);
        let v = Array::<f64>::zeros(&[1 << 20]);
        assert_eq!(v.outer(&v).unwrap_err().to_string(), msg);
        // Sum over an empty axis: the identity everywhere, 2^40 of them.
        let e = Array::<f64>::zeros(&[1 << 40, 0]);
        assert_eq!(e.sum_axis(1, false).unwrap_err().to_string(), REFUSED_8TIB);
    });
}
