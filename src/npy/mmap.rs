//! Read-only `.npy` views over a memory-mapped file: the header is parsed and
//! checked as [`read`] checks it, and the data is seen in place.

use super::*;
use crate::array::ArrayView;
use crate::dim::{c_strides, Dim, Strides};
use ndsimd_kernels::io::{Mapping, Refusal, TypedMapping};

/// A `.npy` file mapped read-only into memory, whose [`view`](Self::view) sees
/// the data in place: made by [`mmap`].
///
/// The view borrows the mapping, so it cannot outlive it; dropping the `Mapped`
/// unmaps the file. The bytes are the file's page cache: a file changed or
/// truncated by another process while it is mapped changes what the view holds,
/// or ends the process with `SIGBUS` on the next read of a page past the new end
/// (see [`ndsimd_kernels::io::Mapping`]). Map only files nobody writes meanwhile;
/// [`read`] copies, and turns both into errors.
///
/// ```
/// use ndsimd::{npy, Array};
/// let path = std::env::temp_dir().join(format!("ndsimd-doc-mapped-{}.npy", std::process::id()));
/// npy::write(&path, &Array::<i64>::from_shape_vec(&[2, 2], vec![1, 2, 3, 4]).unwrap())?;
/// let mapped = npy::mmap::<i64>(&path)?;
/// assert_eq!((mapped.shape(), mapped.is_fortran_order()), (&[2, 2][..], false));
/// assert_eq!(mapped.view().sum_axis(0, false)?.to_vec(), vec![4, 6]);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Mapped<T: NpyElement> {
    items: TypedMapping<T>,
    shape: Vec<usize>,
    strides: Vec<isize>,
    fortran_order: bool,
}

/// Maps the `.npy` file at `path` read-only and returns it as a [`Mapped`], whose
/// [`view`](Mapped::view) reads the data in place: nothing is copied and no
/// element is read here (a `bool` file excepted, whose bytes are checked to be 0
/// or 1 once), so mapping a file of any size costs about the same, and reads
/// through the view cost no system call.
///
/// Every dtype and header [`read`] accepts, C and Fortran order (a Fortran-order
/// file gives a view with Fortran strides over the same bytes), all three format
/// versions. Errors, each [`io::ErrorKind::InvalidData`] and naming the path,
/// besides those of [`read`] (a dtype that is not `T`'s, a malformed header, a data
/// length that is not the shape's, not a regular file):
///
/// - data in the byte order this machine does not use (`'>f8'` on x86-64): a view
///   would read the bytes wrongly; [`read`] converts them;
/// - data that starts at a byte offset not a multiple of the element's alignment
///   (NumPy writes offsets that are multiples of 64; other writers may not);
/// - a `bool` file with a byte that is neither 0 nor 1 (NumPy reads it as
///   `True`; a Rust `bool` cannot hold it), named with its index.
///
/// ```
/// use ndsimd::{npy, Array};
/// let path = std::env::temp_dir().join(format!("ndsimd-doc-mmap-{}.npy", std::process::id()));
/// let a = Array::<f32>::from_shape_vec(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
/// npy::write(&path, &a.t())?; // a transposed view: written in C order, shape [3, 2]
/// let mapped = npy::mmap::<f32>(&path)?;
/// let v = mapped.view();
/// assert_eq!(v.to_vec(), a.t().to_vec());
/// // The view points into the mapped file: no copy.
/// let file = mapped.file_bytes().as_ptr_range();
/// assert!(file.contains(&(v.first().unwrap() as *const f32 as *const u8)));
/// assert!(npy::mmap::<f64>(&path).unwrap_err().to_string().contains("dtype mismatch"));
/// std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn mmap<T: NpyElement + DType>(path: impl AsRef<Path>) -> io::Result<Mapped<T>> {
    let path = path.as_ref();
    let with_path = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let (file, _) = reader::open_regular(path).map_err(with_path)?;
    map_file::<T>(&file).map_err(with_path)
}

/// [`mmap`] on an open regular file.
fn map_file<T: NpyElement + DType>(file: &File) -> io::Result<Mapped<T>> {
    let map = Mapping::new(file)?;
    let (header, data) = split_header(&map)?;
    let layout = reader::Layout::of::<T>(&header)?;
    if data.len() != layout.nbytes {
        return Err(reader::length_error(
            &header,
            layout.nbytes,
            data.len() as u64,
        ));
    }
    if T::ITEMSIZE > 1 && layout.big_endian != cfg!(target_endian = "big") {
        let (file_order, this) = if layout.big_endian {
            ("big-endian", "little-endian")
        } else {
            ("little-endian", "big-endian")
        };
        return Err(invalid(format!(
            "cannot map '{}' data in place: it is {file_order} and this machine is {this}; \
             read it with npy::read, which converts it (or save it with NumPy as '{}')",
            header.descr,
            if layout.big_endian {
                T::DESCR_LE
            } else {
                T::DESCR_BE
            },
        )));
    }
    let start = map.len() - data.len();
    let n = layout.nbytes / T::ITEMSIZE;
    let items = TypedMapping::<T>::new(map, start, n).map_err(|r| match r {
        Refusal::Misaligned { align } => invalid(format!(
            "cannot map '{}' data in place: it starts at byte {start} of the file, not a \
             multiple of {align} ({}'s alignment); read it with npy::read, which copies it \
             (NumPy's own files start the data at a multiple of 64)",
            header.descr,
            T::NAME
        )),
        Refusal::Invalid { index, byte } => invalid(format!(
            "cannot map '{}' data in place: element {index} (flat, in file order) is the \
             byte {byte}, not 0 or 1; read it with npy::read, which reads any non-zero byte \
             as true",
            header.descr
        )),
        Refusal::Bounds => invalid(format!(
            "bad .npy file: {n} elements from byte {start} do not fit the file"
        )),
    })?;
    let strides = if header.fortran_order {
        fortran_strides(&header.shape)
    } else {
        c_strides(&header.shape).to_vec()
    };
    Ok(Mapped {
        items,
        shape: header.shape,
        strides,
        fortran_order: header.fortran_order,
    })
}

/// Strides in elements of a Fortran-order (first axis fastest) array of `shape`.
fn fortran_strides(shape: &[usize]) -> Vec<isize> {
    let mut acc = 1isize;
    shape
        .iter()
        .map(|&d| {
            let s = acc;
            // Cannot overflow: the shape's bytes were checked to fit `isize`.
            acc = acc.wrapping_mul(d.max(1) as isize);
            s
        })
        .collect()
}

impl<T: NpyElement> std::fmt::Debug for Mapped<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mapped")
            .field("dtype", &T::NAME)
            .field("shape", &self.shape)
            .field("fortran_order", &self.fortran_order)
            .field("file_bytes", &self.items.mapping().len())
            .finish()
    }
}

impl<T: NpyElement + DType> Mapped<T> {
    /// A read-only view of the array, borrowing the mapping: its elements are the
    /// file's bytes, not a copy (Fortran strides for a Fortran-order file).
    ///
    /// ```
    /// use ndsimd::{npy, Array};
    /// let path = std::env::temp_dir().join(format!("ndsimd-doc-mview-{}.npy", std::process::id()));
    /// npy::write(&path, &Array::from_vec(vec![true, false, true]))?;
    /// let mapped = npy::mmap::<bool>(&path)?;
    /// assert_eq!(mapped.view().count_nonzero(), 2);
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn view(&self) -> ArrayView<'_, T> {
        ArrayBase {
            data: self.items.as_slice(),
            offset: 0,
            dim: Dim::from_slice(&self.shape),
            strides: Strides::from_slice(&self.strides),
        }
    }

    /// The array's shape, as the header gives it.
    ///
    /// ```
    /// use ndsimd::{npy, Array};
    /// let path = std::env::temp_dir().join(format!("ndsimd-doc-mshape-{}.npy", std::process::id()));
    /// npy::write(&path, &Array::<u8>::zeros(&[4, 0, 2]))?;
    /// assert_eq!(npy::mmap::<u8>(&path)?.shape(), &[4, 0, 2]);
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Whether the file holds the data in Fortran order (`fortran_order: True`):
    /// then the [`view`](Self::view) has Fortran strides.
    ///
    /// ```
    /// use ndsimd::{npy, Array};
    /// let path = std::env::temp_dir().join(format!("ndsimd-doc-mfort-{}.npy", std::process::id()));
    /// npy::write(&path, &Array::<i32>::zeros(&[2, 3]))?;
    /// assert!(!npy::mmap::<i32>(&path)?.is_fortran_order()); // `write` writes C order
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn is_fortran_order(&self) -> bool {
        self.fortran_order
    }

    /// The whole mapped file, header included, as bytes.
    ///
    /// ```
    /// use ndsimd::{npy, Array};
    /// let path = std::env::temp_dir().join(format!("ndsimd-doc-mbytes-{}.npy", std::process::id()));
    /// npy::write(&path, &Array::<f64>::zeros(&[3]))?;
    /// let mapped = npy::mmap::<f64>(&path)?;
    /// assert_eq!(mapped.file_bytes(), &std::fs::read(&path)?[..]);
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn file_bytes(&self) -> &[u8] {
        self.items.mapping()
    }
}
