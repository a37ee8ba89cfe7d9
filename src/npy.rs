//! Reading and writing NumPy `.npy` files.
//!
//! Supported: format versions 1.0, 2.0 and 3.0; element types `f64`, `f32` and `bool`
//! (one byte per element: NumPy writes 0 or 1, and any non-zero byte reads as `true`, as
//! NumPy reads it), in every spelling of the descr that `np.load` accepts for them
//! (`'<f8'`, `'=f8'`, `'f8'`, `'<d'`, `'float64'`, `'>f8'`, ...; `'<f4'`, `'f'`, ...;
//! `'|b1'`, `'<b1'`, `'?'`, `'bool'`, ...), either byte order; C order and Fortran order
//! (`fortran_order: True` files are read into a standard-layout, C-order array holding
//! the same logical values).
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
//! is not one whole array is corrupt or not what [`write`] made. Nothing is allocated
//! before the header's shape is checked against the bytes there are, and [`read`] reads
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

use crate::{Array, ArrayView, DType};
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
}

/// Element types that can be stored in `.npy` files: `f32`, `f64` and `bool`.
///
/// This trait is sealed; it cannot be implemented outside this crate.
pub trait NpyElement: Copy + sealed::Sealed + 'static {
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

/// Reads a `.npy` file into a standard-layout (C-order) array.
///
/// Only a regular file is read: a directory ([`io::ErrorKind::IsADirectory`]) and
/// a device, FIFO or socket ([`io::ErrorKind::InvalidInput`]) are refused before
/// they are opened, so `/dev/zero` is not read until memory runs out and a FIFO
/// without a writer cannot block the call. The header is read first and its shape
/// checked against the file's length; only then is the array allocated (an
/// [`io::ErrorKind::OutOfMemory`] error naming the shape and bytes when it cannot
/// be) and the data read into it in bounded chunks, never more than the header
/// promises.
///
/// Errors carry the path. Besides the above: those of opening and reading the
/// file, and [`io::ErrorKind::InvalidData`] for anything [`from_bytes`] rejects,
/// including a data length that is not the shape's (a truncated file, or bytes
/// after the array, which `np.load` ignores) and a file that changes length while
/// it is read.
///
/// ```
/// use ndsimd::{npy, Array};
/// let path = std::env::temp_dir().join(format!("ndsimd-doc-read-{}.npy", std::process::id()));
/// npy::write(&path, &Array::<f32>::ones(&[2, 2]).view()).unwrap();
/// assert_eq!(npy::read::<f32>(&path).unwrap().to_vec(), vec![1.0; 4]);
/// std::fs::remove_file(&path).unwrap();
/// # #[cfg(target_os = "linux")]
/// assert!(npy::read::<f64>("/dev/zero").unwrap_err().to_string().contains("not a regular file"));
/// ```
pub fn read<T: NpyElement + DType>(path: impl AsRef<Path>) -> io::Result<Array<T>> {
    let path = path.as_ref();
    let with_path = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let (mut file, len) = open_regular(path).map_err(with_path)?;
    read_file(&mut file, len).map_err(with_path)
}

/// Opens a regular file for reading and returns it with its length. Anything else
/// is refused before it is opened, as the file scan does: opening a FIFO blocks
/// until a writer comes, and a device such as `/dev/zero` never ends.
fn open_regular(path: &Path) -> io::Result<(File, u64)> {
    check_regular(&std::fs::metadata(path)?)?;
    let mut options = OpenOptions::new();
    options.read(true);
    // A FIFO put in the file's place after the check would block a plain open;
    // regular files ignore the flag.
    #[cfg(target_os = "linux")]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path)?;
    let meta = file.metadata()?;
    check_regular(&meta)?;
    Ok((file, meta.len()))
}

fn check_regular(meta: &std::fs::Metadata) -> io::Result<()> {
    let t = meta.file_type();
    if t.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    if !t.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a device, FIFO or socket cannot be read as .npy)",
        ));
    }
    Ok(())
}

/// The body is read and decoded this many bytes at a time (a multiple of every
/// item size).
const READ_CHUNK: usize = 64 << 10;

/// [`read`] on an open regular file of `len` bytes.
fn read_file<T: NpyElement + DType>(file: &mut File, len: u64) -> io::Result<Array<T>> {
    // The magic string, the version and the header length: at most 12 bytes.
    let mut head = Vec::new();
    read_more(file, &mut head, len.min(12) as usize)?;
    let (start, header_len, _) = prefix(&head, len)?;
    read_more(file, &mut head, start + header_len)?;
    let (header, _) = split_header(&head)?;
    let layout = Layout::of::<T>(&header)?;
    // Fits: `start + header_len <= len` was checked by `prefix`.
    let have = len - (start + header_len) as u64;
    if have != layout.nbytes as u64 {
        return Err(length_error(&header, layout.nbytes, have));
    }
    let mut values = layout.alloc::<T>(&header)?;
    let mut buf = vec![0u8; READ_CHUNK.min(layout.nbytes)];
    for out in values.payload_mut().chunks_mut(READ_CHUNK / T::ITEMSIZE) {
        let bytes = &mut buf[..out.len() * T::ITEMSIZE];
        file.read_exact(bytes).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => invalid(format!(
                "truncated .npy file: it had {len} bytes but ended early while read"
            )),
            _ => e,
        })?;
        decode_into(out, bytes, layout.big_endian);
    }
    if file.read(&mut [0u8; 1])? != 0 {
        return Err(invalid(format!(
            "bad .npy file: it had {len} bytes but grew while read"
        )));
    }
    Ok(finish(&header, values))
}

/// Appends bytes from `file` to `buf` until it holds `upto` (the file's length
/// bounds `upto`, so a file that ends sooner changed while it was read).
fn read_more(file: &mut File, buf: &mut Vec<u8>, upto: usize) -> io::Result<()> {
    let from = buf.len();
    buf.resize(upto.max(from), 0);
    file.read_exact(&mut buf[from..])
        .map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => {
                invalid("truncated .npy file: it ended early while its header was read")
            }
            _ => e,
        })
}

/// Parses the bytes of a `.npy` file into a standard-layout (C-order) array.
///
/// A file whose dtype is not `T`'s (for example a `'<f4'` file read as `f64`) is an
/// [`io::ErrorKind::InvalidData`] error naming both dtypes; so are a bad magic string, an
/// unsupported format version, a malformed header, and a data length that does not match
/// the shape. The array is allocated only once the bytes are known to hold it; one
/// that cannot be allocated is an [`io::ErrorKind::OutOfMemory`] error naming its shape
/// and bytes.
///
/// ```
/// let file = ndsimd::npy::to_bytes(&ndsimd::Array::<f64>::ones(&[3]).view());
/// let err = ndsimd::npy::from_bytes::<f64>(&file[..file.len() - 1]).unwrap_err();
/// assert!(err.to_string().contains("needs 24 data bytes but the file has 23"));
/// ```
pub fn from_bytes<T: NpyElement + DType>(bytes: &[u8]) -> io::Result<Array<T>> {
    let (header, data) = split_header(bytes)?;
    let layout = Layout::of::<T>(&header)?;
    if data.len() != layout.nbytes {
        return Err(length_error(&header, layout.nbytes, data.len() as u64));
    }
    let mut values = layout.alloc::<T>(&header)?;
    decode_into(values.payload_mut(), data, layout.big_endian);
    Ok(finish(&header, values))
}

/// Writes `array` to a `.npy` file (format version 1.0, little-endian, C order).
///
/// Any layout is accepted; the logical C-order elements are written.
pub fn write<T: NpyElement + DType>(
    path: impl AsRef<Path>,
    array: &ArrayView<'_, T>,
) -> io::Result<()> {
    let path = path.as_ref();
    std::fs::write(path, to_bytes(array))
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// Encodes `array` as the bytes of a `.npy` file (format version 1.0, little-endian,
/// C order, data aligned to 64 bytes), exactly as `numpy.save` would.
///
/// Any layout is accepted; the logical C-order elements are written.
pub fn to_bytes<T: NpyElement + DType>(array: &ArrayView<'_, T>) -> Vec<u8> {
    encode(array.shape(), array.len(), array.iter().copied())
}

fn invalid(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

/// Encodes `len` elements in C order for an array of `shape`.
fn encode<T: NpyElement>(shape: &[usize], len: usize, elems: impl Iterator<Item = T>) -> Vec<u8> {
    let mut header = String::new();
    let _ = write!(
        header,
        "{{'descr': '{}', 'fortran_order': False, 'shape': (",
        T::DESCR_LE
    );
    for (i, d) in shape.iter().enumerate() {
        if i > 0 {
            header.push_str(", ");
        }
        let _ = write!(header, "{d}");
    }
    if shape.len() == 1 {
        header.push(',');
    }
    header.push_str("), }");
    if let Some(first) = shape.first() {
        // Room for the growth axis (axis 0 in C order) to grow in place, as NumPy leaves.
        let digits = first.to_string().len();
        header.extend(std::iter::repeat_n(
            ' ',
            GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits),
        ));
    }
    // Version 1.0 stores the header length in 2 bytes, version 2.0 in 4.
    let hlen = header.len() + 1; // + the final '\n'
    let padlen_v1 = ARRAY_ALIGN - (10 + hlen) % ARRAY_ALIGN;
    let (version, prefix_len) = if hlen + padlen_v1 <= usize::from(u16::MAX) {
        (1u8, 10)
    } else {
        (2u8, 12)
    };
    let padlen = ARRAY_ALIGN - (prefix_len + hlen) % ARRAY_ALIGN;
    let total_hlen = hlen + padlen;
    let mut out = Vec::with_capacity(prefix_len + total_hlen + len * T::ITEMSIZE);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        // Cannot truncate: checked above.
        out.extend_from_slice(&(total_hlen as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(total_hlen as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    out.extend(std::iter::repeat_n(b' ', padlen));
    out.push(b'\n');
    debug_assert_eq!(out.len() % ARRAY_ALIGN, 0);
    for x in elems {
        x.encode_le(&mut out);
    }
    out
}

/// The parsed header of a `.npy` file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<usize>,
}

/// Parses the fixed prefix at the start of `bytes` of a file of `len` bytes: where
/// the header starts, its length, and whether it is UTF-8 (else Latin-1). Errors
/// unless the file holds the whole header.
fn prefix(bytes: &[u8], len: u64) -> io::Result<(usize, usize, bool)> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(invalid(
            "not a .npy file: it does not start with the magic string \\x93NUMPY",
        ));
    }
    let Some(&[major, minor]) = bytes.get(6..8) else {
        return Err(invalid(
            "truncated .npy file: no format version after the magic string",
        ));
    };
    let (len_bytes, utf8) = match (major, minor) {
        (1, 0) => (2, false),
        (2, 0) => (4, false),
        (3, 0) => (4, true),
        _ => {
            return Err(invalid(format!(
                "unsupported .npy format version {major}.{minor} (supported: 1.0, 2.0, 3.0)"
            )))
        }
    };
    let Some(len_field) = bytes.get(8..8 + len_bytes) else {
        return Err(invalid("truncated .npy file: no header length"));
    };
    let header_len = len_field
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    let start = 8 + len_bytes;
    let follow = len - start as u64;
    if header_len as u64 > follow {
        return Err(invalid(format!(
            "truncated .npy file: the header is {header_len} bytes long but only {follow} bytes \
             follow the header length"
        )));
    }
    Ok((start, header_len, utf8))
}

/// Splits `bytes` into the parsed header and the data bytes.
fn split_header(bytes: &[u8]) -> io::Result<(Header, &[u8])> {
    let (start, header_len, utf8) = prefix(bytes, bytes.len() as u64)?;
    let header_bytes = &bytes[start..start + header_len];
    let header_text: std::borrow::Cow<'_, str> = if utf8 {
        std::str::from_utf8(header_bytes)
            .map_err(|e| invalid(format!("bad .npy header: not valid UTF-8 ({e})")))?
            .into()
    } else {
        // Latin-1: every byte is one char.
        header_bytes
            .iter()
            .map(|&b| char::from(b))
            .collect::<String>()
            .into()
    };
    let header = parse_header(&header_text)?;
    Ok((header, &bytes[start + header_len..]))
}

/// How a header's data is laid out for elements of `T`.
struct Layout {
    big_endian: bool,
    /// The number of data bytes.
    nbytes: usize,
}

impl Layout {
    /// The layout of `header`'s data read as `T`, or an error for a dtype that is not
    /// `T`'s, a shape too large, or more axes than an array may have.
    fn of<T: NpyElement>(header: &Header) -> io::Result<Layout> {
        let big_endian = match canonical_descr(&header.descr) {
            Some(c) if c == T::DESCR_LE => false,
            Some(c) if c == T::DESCR_BE => true,
            Some(c) => {
                return Err(invalid(format!(
                    "dtype mismatch: the file holds '{}' ({}) but '{}' ({}) was requested",
                    header.descr,
                    descr_name(c),
                    T::DESCR_LE,
                    T::NAME
                )))
            }
            None => {
                return Err(invalid(format!(
                    "unsupported dtype '{}' (supported: float64, float32 and bool, in any \
                     spelling NumPy reads them: '<f8', '>f8', 'f8', 'd', 'float64', '<f4', \
                     'f', '|b1', '?', 'bool', ...); '{}' ({}) was requested",
                    header.descr,
                    T::DESCR_LE,
                    T::NAME
                )))
            }
        };
        let shape = &header.shape;
        crate::array::check_ndim(shape.len())
            .map_err(|e| invalid(format!("cannot build an array of shape {shape:?}: {e}")))?;
        // As NumPy, the product of the non-zero dimensions must fit in `isize` bytes
        // even for an empty array, so that strides cannot overflow.
        let nonzero_bytes = shape
            .iter()
            .filter(|&&d| d != 0)
            .try_fold(T::ITEMSIZE, |acc, &d| acc.checked_mul(d))
            .filter(|&b| isize::try_from(b).is_ok());
        let Some(nonzero_bytes) = nonzero_bytes else {
            return Err(invalid(format!(
                "bad .npy header: the shape {shape:?} is too large"
            )));
        };
        let nbytes = if shape.contains(&0) { 0 } else { nonzero_bytes };
        Ok(Layout { big_endian, nbytes })
    }

    /// The buffer for the elements, once the file is known to hold them: an
    /// [`io::ErrorKind::OutOfMemory`] error naming the shape and bytes when it
    /// cannot be allocated.
    fn alloc<T: NpyElement + DType>(&self, header: &Header) -> io::Result<Aligned<T>> {
        crate::array::try_filled(&header.shape, T::default())
            .map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, e.to_string()))
    }
}

/// The error for data of `have` bytes where the header's shape needs `nbytes`.
fn length_error(header: &Header, nbytes: usize, have: u64) -> io::Error {
    let what = if have < nbytes as u64 {
        "truncated .npy file"
    } else {
        "bad .npy file"
    };
    invalid(format!(
        "{what}: shape {:?} of '{}' needs {nbytes} data bytes but the file has {have}",
        header.shape, header.descr
    ))
}

/// Decodes `data` (whole items) into `out`, one element per item.
fn decode_into<T: NpyElement>(out: &mut [T], data: &[u8], big_endian: bool) {
    debug_assert_eq!(out.len() * T::ITEMSIZE, data.len());
    for (v, c) in out.iter_mut().zip(data.chunks_exact(T::ITEMSIZE)) {
        *v = T::decode(c, big_endian);
    }
}

/// The array of `header`'s shape over its decoded elements, reordered into C
/// order when the file holds them in Fortran order.
fn finish<T: NpyElement + DType>(header: &Header, mut values: Aligned<T>) -> Array<T> {
    let shape = &header.shape;
    if header.fortran_order && shape.len() > 1 && !values.payload().is_empty() {
        let c_order = fortran_to_c(shape, values.payload());
        values.payload_mut().copy_from_slice(&c_order);
    }
    Array::from_aligned(shape, values)
}

/// The descr NumPy reads `descr` as, if it is one of ours ('<f8', '>f8', '<f4',
/// '>f4', '|b1'): every spelling `np.load` accepts for them (NumPy 2.4, whose
/// `np.dtype` reads a missing, `=` or `|` byte order as the machine's).
fn canonical_descr(descr: &str) -> Option<&'static str> {
    let native = |le, be| if cfg!(target_endian = "big") { be } else { le };
    Some(match descr {
        "<f8" | "<d" => "<f8",
        ">f8" | ">d" => ">f8",
        "=f8" | "|f8" | "f8" | "=d" | "|d" | "d" | "float64" | "float" | "double" => {
            native("<f8", ">f8")
        }
        "<f4" | "<f" => "<f4",
        ">f4" | ">f" => ">f4",
        "=f4" | "|f4" | "f4" | "=f" | "|f" | "f" | "float32" | "single" => native("<f4", ">f4"),
        "|b1" | "<b1" | ">b1" | "=b1" | "b1" | "?" | "|?" | "<?" | ">?" | "=?" | "bool"
        | "bool_" => "|b1",
        _ => return None,
    })
}

/// NumPy's name of a canonical descr.
fn descr_name(canonical: &str) -> &'static str {
    match canonical {
        "<f8" | ">f8" => "float64",
        "<f4" | ">f4" => "float32",
        _ => "bool",
    }
}

/// Reorders elements stored in Fortran order (first axis fastest) into C order.
fn fortran_to_c<T: Copy>(shape: &[usize], f: &[T]) -> Vec<T> {
    let ndim = shape.len();
    // Fortran strides, in elements.
    let mut fstrides = vec![0usize; ndim];
    let mut acc = 1;
    for (s, &d) in fstrides.iter_mut().zip(shape) {
        *s = acc;
        acc *= d;
    }
    let mut out = Vec::with_capacity(f.len());
    let mut index = vec![0usize; ndim];
    let mut offset = 0usize;
    for _ in 0..f.len() {
        out.push(f[offset]);
        // Increment the C-order multi-index (last axis fastest).
        for ax in (0..ndim).rev() {
            index[ax] += 1;
            offset += fstrides[ax];
            if index[ax] < shape[ax] {
                break;
            }
            offset -= fstrides[ax] * shape[ax];
            index[ax] = 0;
        }
    }
    out
}

/// A value of the Python literal subset used in `.npy` headers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PyValue {
    Str(String),
    Bool(bool),
    Int(u64),
    Tuple(Vec<PyValue>),
    /// Anything else that parses (lists, dicts, None, negative ints): rejected by the caller.
    Other(&'static str),
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

fn header_err(msg: impl std::fmt::Display) -> io::Error {
    invalid(format!("bad .npy header: {msg}"))
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while let Some(&c) = self.s.get(self.pos) {
            // Python's whitespace, form feed included.
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }

    fn expect(&mut self, c: u8) -> io::Result<()> {
        match self.peek() {
            Some(x) if x == c => {
                self.pos += 1;
                Ok(())
            }
            Some(x) => Err(header_err(format!(
                "expected '{}' at byte {} but found '{}'",
                char::from(c),
                self.pos,
                char::from(x).escape_default()
            ))),
            None => Err(header_err(format!(
                "expected '{}' but the header ended",
                char::from(c)
            ))),
        }
    }

    fn value(&mut self, depth: usize) -> io::Result<PyValue> {
        if depth > 32 {
            return Err(header_err("nested too deeply"));
        }
        match self.peek() {
            None => Err(header_err("expected a value but the header ended")),
            Some(q @ (b'\'' | b'"')) => {
                self.pos += 1;
                let start = self.pos;
                while let Some(&c) = self.s.get(self.pos) {
                    if c == q {
                        let text = std::str::from_utf8(&self.s[start..self.pos])
                            .map_err(|_| header_err("a string is not valid text"))?;
                        self.pos += 1;
                        return Ok(PyValue::Str(text.to_owned()));
                    }
                    if c == b'\\' || c == b'\n' {
                        return Err(header_err(
                            "escape sequences and line breaks in strings are not supported",
                        ));
                    }
                    self.pos += 1;
                }
                Err(header_err("unterminated string"))
            }
            Some(open @ (b'(' | b'[' | b'{')) => {
                self.pos += 1;
                let close = match open {
                    b'(' => b')',
                    b'[' => b']',
                    _ => b'}',
                };
                let mut items = Vec::new();
                let mut trailing_comma = false;
                loop {
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        break;
                    }
                    let item = self.value(depth + 1)?;
                    if open == b'{' {
                        self.expect(b':')?;
                        self.value(depth + 1)?;
                    }
                    items.push(item);
                    match self.peek() {
                        Some(b',') => {
                            self.pos += 1;
                            trailing_comma = true;
                        }
                        Some(c) if c == close => {
                            trailing_comma = false;
                        }
                        _ => {
                            return Err(header_err(format!(
                                "expected ',' or '{}' at byte {}",
                                char::from(close),
                                self.pos
                            )))
                        }
                    }
                }
                Ok(match open {
                    // `(3)` is the int 3 in Python, not a tuple.
                    b'(' if items.len() == 1 && !trailing_comma => {
                        items.pop().unwrap_or(PyValue::Other(""))
                    }
                    b'(' => PyValue::Tuple(items),
                    b'[' => PyValue::Other("a list"),
                    _ => PyValue::Other("a dict"),
                })
            }
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' => {
                let neg = c == b'-';
                if c == b'-' || c == b'+' {
                    self.pos += 1;
                    self.skip_ws();
                }
                let n = self.int()?;
                Ok(if neg && n != 0 {
                    PyValue::Other("a negative integer")
                } else {
                    PyValue::Int(n)
                })
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let start = self.pos;
                while self
                    .s
                    .get(self.pos)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    self.pos += 1;
                }
                match &self.s[start..self.pos] {
                    b"True" => Ok(PyValue::Bool(true)),
                    b"False" => Ok(PyValue::Bool(false)),
                    b"None" => Ok(PyValue::Other("None")),
                    other => Err(header_err(format!(
                        "unexpected name '{}'",
                        String::from_utf8_lossy(other)
                    ))),
                }
            }
            Some(c) => Err(header_err(format!(
                "unexpected character '{}' at byte {}",
                char::from(c).escape_default(),
                self.pos
            ))),
        }
    }

    /// An integer literal as Python 3 writes one (what `np.load`'s `literal_eval`
    /// reads): decimal without leading zeros (`0` and `00` are zero, `02` is an
    /// error), `0x`/`0o`/`0b` with their digits, single `_` between digits; then
    /// the Python 2 long suffix `L` NumPy drops from old files (its filter takes it
    /// as a separate token, so `2 L` too, but not `2l`).
    fn int(&mut self) -> io::Result<u64> {
        let start = self.pos;
        let rest = &self.s[start..];
        let radix = match rest {
            [b'0', b'x' | b'X', ..] => 16,
            [b'0', b'o' | b'O', ..] => 8,
            [b'0', b'b' | b'B', ..] => 2,
            _ => 10,
        };
        let mut i = if radix == 10 { 0 } else { 2 };
        let mut digits = String::new();
        // Python allows one `_` after the radix prefix, and between digits.
        let mut after_underscore = radix != 10 && rest.get(i) == Some(&b'_');
        if after_underscore {
            i += 1;
        }
        while let Some(&c) = rest.get(i) {
            if char::from(c).is_digit(radix) {
                digits.push(char::from(c));
                after_underscore = false;
            } else if c == b'_' && !after_underscore && !digits.is_empty() {
                after_underscore = true;
            } else {
                break;
            }
            i += 1;
        }
        let bad = |what: &str| {
            header_err(format!(
                "invalid integer literal '{}' at byte {start} ({what})",
                String::from_utf8_lossy(&rest[..(i + 1).min(rest.len())])
            ))
        };
        if digits.is_empty() {
            return Err(bad("no digits"));
        }
        if after_underscore {
            return Err(bad("a trailing '_'"));
        }
        if radix == 10
            && digits.len() > 1
            && digits.starts_with('0')
            && digits.contains(|c| c != '0')
        {
            return Err(bad("leading zeros, which Python does not allow"));
        }
        if rest
            .get(i)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
        {
            // Only the `L` suffix may follow, and it is checked below.
            if rest.get(i) != Some(&b'L') {
                return Err(bad("not a Python integer"));
            }
        }
        self.pos += i;
        // Python 2 long suffix, as written by old NumPy versions.
        let save = self.pos;
        self.skip_ws();
        let is_ident = |c: Option<&u8>| c.is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_');
        if self.s.get(self.pos) == Some(&b'L') && !is_ident(self.s.get(self.pos + 1)) {
            self.pos += 1;
        } else {
            self.pos = save;
        }
        u64::from_str_radix(&digits, radix)
            .map_err(|_| header_err(format!("integer {digits} is too large")))
    }

    /// Parses the top-level dict: `{'key': value, ...}` followed only by whitespace.
    fn dict(&mut self) -> io::Result<Vec<(String, PyValue)>> {
        self.expect(b'{')?;
        let mut entries = Vec::new();
        loop {
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let key = match self.value(1)? {
                PyValue::Str(k) => k,
                other => return Err(header_err(format!("dict key {other:?} is not a string"))),
            };
            self.expect(b':')?;
            let value = self.value(1)?;
            entries.push((key, value));
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                _ => {
                    return Err(header_err(format!(
                        "expected ',' or '}}' at byte {}",
                        self.pos
                    )))
                }
            }
        }
        if self.peek().is_some() {
            return Err(header_err(format!(
                "unexpected text after the dict at byte {}",
                self.pos
            )));
        }
        Ok(entries)
    }
}

/// Parses the header dict: exactly the keys `descr`, `fortran_order` and `shape`.
fn parse_header(text: &str) -> io::Result<Header> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
    };
    let entries = p.dict()?;
    // As a Python dict literal: a repeated key keeps its last value.
    let (mut descr, mut fortran_order, mut shape) = (None, None, None);
    for (key, value) in entries {
        match key.as_str() {
            "descr" => descr = Some(value),
            "fortran_order" => fortran_order = Some(value),
            "shape" => shape = Some(value),
            other => return Err(header_err(format!("unexpected key '{other}'"))),
        }
    }
    let (Some(descr), Some(fortran_order), Some(shape)) = (descr, fortran_order, shape) else {
        return Err(header_err(
            "missing key: 'descr', 'fortran_order' and 'shape' are required",
        ));
    };
    let descr = match descr {
        PyValue::Str(s) => s,
        v => {
            return Err(header_err(format!(
                "unsupported 'descr' {v:?} (supported: a string naming float64, float32 or bool)"
            )))
        }
    };
    let fortran_order = match fortran_order {
        PyValue::Bool(b) => b,
        v => {
            return Err(header_err(format!(
                "'fortran_order' must be True or False, not {v:?}"
            )))
        }
    };
    let PyValue::Tuple(items) = shape else {
        return Err(header_err(format!(
            "'shape' must be a tuple, not {shape:?}"
        )));
    };
    let mut dims = Vec::with_capacity(items.len());
    for item in items {
        match item {
            PyValue::Int(n) => dims.push(
                usize::try_from(n)
                    .map_err(|_| header_err(format!("dimension {n} in 'shape' is too large")))?,
            ),
            other => {
                return Err(header_err(format!(
                    "'shape' must be a tuple of non-negative integers, found {other:?}"
                )))
            }
        }
    }
    Ok(Header {
        descr,
        fortran_order,
        shape: dims,
    })
}

#[cfg(test)]
mod tests {
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
        let a =
            Array::from_shape_vec(&[2, 3], vec![true, false, false, true, true, false]).unwrap();
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
        expect_invalid::<f64>(&i8, "unsupported dtype '<i8'");
        expect_invalid::<bool>(&i8, "unsupported dtype '<i8'");
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
}
