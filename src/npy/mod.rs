//! Reading and writing NumPy `.npy` files.
//!
//! Supported: format versions 1.0, 2.0 and 3.0; element types `f64`, `f32`, `i64`,
//! `i32`, `u8` and `bool` (one byte per element: NumPy writes 0 or 1, and any non-zero
//! byte reads as `true`, as NumPy reads it), in every spelling of the descr that
//! `np.load` accepts for them (`'<f8'`, `'=f8'`, `'f8'`, `'<d'`, `'float64'`, `'>f8'`,
//! ...; `'<f4'`, `'f'`, ...; `'<i8'`, `'q'`, `'int64'`, ...; `'<i4'`, `'i'`, `'int32'`,
//! ...; `'|u1'`, `'B'`, `'uint8'`, ...; `'|b1'`, `'<b1'`, `'?'`, `'bool'`, ...; `'l'`,
//! `'long'`, `'p'` and `'int'` as the platform's C `long` and pointer size), either
//! byte order; C order and Fortran order
//! (`fortran_order: True` files are read into a standard-layout, C-order array holding
//! the same logical values).
//!
//! [`mmap()`] maps a file read-only and views its data in place ([`Mapped`]): no copy,
//! native byte order only.
//!
//! The header is read as `np.load` reads it (Python literal syntax), for what `.npy`
//! writers produce: dict keys in any order (a repeated key keeps its last value), either
//! quote, Python 3 integer literals (`0x10`, `1_000`; `02` is refused, as Python refuses
//! it) and the Python 2 `L` suffix. Rarer literal syntax `np.load` also takes (string
//! escapes, prefixes and concatenation, comments, line continuations) is refused.
//! `tests/data/npy_headers.tsv` lists NumPy's verdict on each spelling; ndsimd's match.
//!
//! Writing always produces what `numpy.save` produces for a C-contiguous array of the same
//! shape and dtype: format version 1.0 (2.0 only for a header too long for 1.0), the
//! little-endian descr, C order, and a header padded with spaces so that the data starts
//! at a multiple of 64 bytes. The written bytes are identical to NumPy's.
//!
//! Malformed input (bad magic, unsupported version, a header that is not the expected
//! Python dict literal, an unsupported dtype, a truncated file, a data length that does not
//! match the shape) is reported as an [`io::ErrorKind::InvalidData`] error, never a panic.
//! Bytes after the array are such an error too, where `np.load` ignores them: a file that
//! is not one whole array is corrupt or not what [`write()`] made. Nothing is allocated
//! before the header's shape is checked against the bytes there are, and [`read()`] reads
//! only regular files (see there).
//!
//! ```
//! use ndsimd::{npy, Array};
//!
//! let a = Array::<f64>::from_shape_vec(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
//! let bytes = npy::to_bytes(&a.view());
//! assert_eq!(bytes.len() % 64, 48); // 128-byte header + 6 * 8 bytes of data
//! let b: Array<f64> = npy::from_bytes(&bytes).unwrap();
//! assert_eq!(b.shape(), &[2, 3]);
//! assert_eq!(b.to_vec(), a.to_vec());
//!
//! // Asking for the wrong dtype is an error that names both dtypes.
//! let err = npy::from_bytes::<f32>(&bytes).unwrap_err();
//! assert!(err.to_string().contains("'<f8'") && err.to_string().contains("'<f4'"));
//! ```

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

mod header;
mod mmap;
mod reader;
#[cfg(test)]
mod tests;
mod writer;

use header::*;
pub use mmap::{mmap, Mapped};
pub use reader::{from_bytes, read};
pub use writer::{to_bytes, write};

use crate::{Array, ArrayBase, DType, Data};
use ndsimd_kernels::mem::Aligned;

/// The magic string that starts every `.npy` file.
const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// NumPy aligns the start of the data to this many bytes.
const ARRAY_ALIGN: usize = 64;
/// NumPy leaves room in the header for the growth axis to reach this many digits.
const GROWTH_AXIS_MAX_DIGITS: usize = 21;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for bool {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for u8 {}
}

/// Element types that can be stored in `.npy` files: `f32`, `f64`, `i32`, `i64`, `u8`
/// and `bool`.
///
/// This trait is sealed; it cannot be implemented outside this crate.
pub trait NpyElement: Copy + sealed::Sealed + ndsimd_kernels::io::MapElement + 'static {
    /// Size of one element in bytes.
    const ITEMSIZE: usize;
    /// The little-endian dtype descr, e.g. `"<f8"` (`"|b1"` for `bool`, which has no
    /// byte order).
    const DESCR_LE: &'static str;
    /// The big-endian dtype descr, e.g. `">f8"` (`"|b1"` for `bool`).
    const DESCR_BE: &'static str;
    /// NumPy's name of the dtype, e.g. `"float64"`.
    const NAME: &'static str;

    /// Decodes one element from exactly [`ITEMSIZE`](Self::ITEMSIZE) bytes.
    #[doc(hidden)]
    fn decode(bytes: &[u8], big_endian: bool) -> Self;
    /// Appends the little-endian encoding of `self`.
    #[doc(hidden)]
    fn encode_le(self, out: &mut Vec<u8>);
}

impl NpyElement for f64 {
    const ITEMSIZE: usize = 8;
    const DESCR_LE: &'static str = "<f8";
    const DESCR_BE: &'static str = ">f8";
    const NAME: &'static str = "float64";

    fn decode(bytes: &[u8], big_endian: bool) -> Self {
        let mut b = [0u8; 8];
        b.copy_from_slice(bytes);
        if big_endian {
            f64::from_be_bytes(b)
        } else {
            f64::from_le_bytes(b)
        }
    }

    fn encode_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl NpyElement for f32 {
    const ITEMSIZE: usize = 4;
    const DESCR_LE: &'static str = "<f4";
    const DESCR_BE: &'static str = ">f4";
    const NAME: &'static str = "float32";

    fn decode(bytes: &[u8], big_endian: bool) -> Self {
        let mut b = [0u8; 4];
        b.copy_from_slice(bytes);
        if big_endian {
            f32::from_be_bytes(b)
        } else {
            f32::from_le_bytes(b)
        }
    }

    fn encode_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl NpyElement for bool {
    const ITEMSIZE: usize = 1;
    const DESCR_LE: &'static str = "|b1";
    const DESCR_BE: &'static str = "|b1";
    const NAME: &'static str = "bool";

    fn decode(bytes: &[u8], _big_endian: bool) -> Self {
        // NumPy writes 0 and 1; like NumPy, read any other byte as true.
        bytes[0] != 0
    }

    fn encode_le(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
}

macro_rules! npy_number {
    ($t:ty, $n:literal, $le:literal, $be:literal, $name:literal) => {
        impl NpyElement for $t {
            const ITEMSIZE: usize = $n;
            const DESCR_LE: &'static str = $le;
            const DESCR_BE: &'static str = $be;
            const NAME: &'static str = $name;

            fn decode(bytes: &[u8], big_endian: bool) -> Self {
                let mut b = [0u8; $n];
                b.copy_from_slice(bytes);
                if big_endian {
                    <$t>::from_be_bytes(b)
                } else {
                    <$t>::from_le_bytes(b)
                }
            }

            fn encode_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    };
}
npy_number!(i64, 8, "<i8", ">i8", "int64");
npy_number!(i32, 4, "<i4", ">i4", "int32");
npy_number!(u8, 1, "|u1", "|u1", "uint8");

fn invalid(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}
