//! `.npy` parsing: any bytes give an array or an error, never a panic or an abort;
//! `read` (the file path, chunked) agrees with `from_bytes`; a parsed array
//! re-encodes to bytes that parse to the same shape and bits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndsimd::npy::{self, NpyElement};
use ndsimd::DType;
use std::path::PathBuf;
use std::sync::OnceLock;

/// One scratch file per fuzzing process, for the `read` half.
fn scratch() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        // A memory-backed directory where there is one: a file is written per input.
        let shm = std::path::Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        dir.join(format!("ndsimd-fuzz-npy-{}.npy", std::process::id()))
    })
}

fn check<T: NpyElement + DType>(data: &[u8]) {
    let parsed = npy::from_bytes::<T>(data);
    let read = npy::read::<T>(scratch());
    let parsed = match (parsed, read) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.shape(), b.shape());
            assert_eq!(npy::to_bytes(&a.view()), npy::to_bytes(&b.view()));
            a
        }
        (Err(a), Err(b)) => {
            // `read` prefixes the path; the cause is the same.
            assert_eq!(a.kind(), b.kind(), "from_bytes: {a}; read: {b}");
            assert!(
                b.to_string().ends_with(&a.to_string()),
                "from_bytes: {a}; read: {b}"
            );
            return;
        }
        (a, b) => panic!(
            "from_bytes and read disagree: {:?} vs {:?}",
            a.err(),
            b.err()
        ),
    };
    assert!(parsed.is_standard_layout());
    assert_eq!(parsed.len(), parsed.shape().iter().product::<usize>());
    let bytes = npy::to_bytes(&parsed.view());
    let again = npy::from_bytes::<T>(&bytes).expect("a written array parses");
    assert_eq!(again.shape(), parsed.shape());
    assert_eq!(
        npy::to_bytes(&again.view()),
        bytes,
        "re-encoding changed the bytes"
    );
}

fuzz_target!(|data: &[u8]| {
    std::fs::write(scratch(), data).expect("write the scratch file");
    check::<f64>(data);
    check::<f32>(data);
    check::<bool>(data);
});
