//! Reading: a regular file or a byte slice, checked against its header before anything
//! is allocated.

use super::*;

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
pub(super) fn open_regular(path: &Path) -> io::Result<(File, u64)> {
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

pub(super) fn check_regular(meta: &std::fs::Metadata) -> io::Result<()> {
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
pub(super) const READ_CHUNK: usize = 64 << 10;

/// [`read`] on an open regular file of `len` bytes.
pub(super) fn read_file<T: NpyElement + DType>(file: &mut File, len: u64) -> io::Result<Array<T>> {
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
pub(super) fn read_more(file: &mut File, buf: &mut Vec<u8>, upto: usize) -> io::Result<()> {
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

/// How a header's data is laid out for elements of `T`.
pub(super) struct Layout {
    pub(super) big_endian: bool,
    /// The number of data bytes.
    pub(super) nbytes: usize,
}

impl Layout {
    /// The layout of `header`'s data read as `T`, or an error for a dtype that is not
    /// `T`'s, a shape too large, or more axes than an array may have.
    pub(super) fn of<T: NpyElement>(header: &Header) -> io::Result<Layout> {
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
                    "unsupported dtype '{}' (supported: float64, float32, int64, int32, uint8 \
                     and bool, in any spelling NumPy reads them: '<f8', '>f8', 'f8', 'd', \
                     'float64', '<f4', 'f', '<i8', 'int64', '<i4', 'i', '|u1', 'B', '|b1', \
                     '?', 'bool', ...); '{}' ({}) was requested",
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
pub(super) fn length_error(header: &Header, nbytes: usize, have: u64) -> io::Error {
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
pub(super) fn decode_into<T: NpyElement>(out: &mut [T], data: &[u8], big_endian: bool) {
    debug_assert_eq!(out.len() * T::ITEMSIZE, data.len());
    for (v, c) in out.iter_mut().zip(data.chunks_exact(T::ITEMSIZE)) {
        *v = T::decode(c, big_endian);
    }
}

/// The array of `header`'s shape over its decoded elements, reordered into C
/// order when the file holds them in Fortran order.
pub(super) fn finish<T: NpyElement + DType>(header: &Header, mut values: Aligned<T>) -> Array<T> {
    let shape = &header.shape;
    if header.fortran_order && shape.len() > 1 && !values.payload().is_empty() {
        let c_order = fortran_to_c(shape, values.payload());
        values.payload_mut().copy_from_slice(&c_order);
    }
    Array::from_aligned(shape, values)
}

/// Reorders elements stored in Fortran order (first axis fastest) into C order.
pub(super) fn fortran_to_c<T: Copy>(shape: &[usize], f: &[T]) -> Vec<T> {
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
