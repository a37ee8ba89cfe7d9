//! The error type of every fallible operation.

use std::fmt;

/// What went wrong, naming the shapes or the axis involved.
///
/// ```
/// use ndsimd::Array;
/// let a = Array::<f64>::zeros(&[2, 3]);
/// let b = Array::<f64>::zeros(&[4]);
/// let err = a.add(&b).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "operands could not be broadcast together in add: shapes [2, 3] and [4]"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// Two operands whose shapes do not broadcast together.
    ShapeMismatch {
        /// The operation (`"add"`, `"mul"`, ...).
        op: &'static str,
        /// The left operand's shape.
        lhs: Vec<usize>,
        /// The right operand's shape.
        rhs: Vec<usize>,
    },
    /// A reshape to a shape with a different number of elements, or an invalid
    /// target (more than one `-1`, a negative size other than `-1`).
    IncompatibleReshape {
        /// The source shape.
        from: Vec<usize>,
        /// The requested shape, as given.
        to: Vec<isize>,
    },
    /// Data of the wrong length for a shape (`from_shape_vec`).
    LengthMismatch {
        /// The requested shape.
        shape: Vec<usize>,
        /// The number of elements given.
        len: usize,
    },
    /// An axis argument outside `-ndim..ndim` (or `-(ndim+1)..=ndim` when inserting).
    AxisOutOfRange {
        /// The axis as given.
        axis: isize,
        /// The number of axes.
        ndim: usize,
    },
    /// A checked index with the wrong number of entries or an entry out of bounds.
    IndexOutOfBounds {
        /// The index as given.
        index: Vec<usize>,
        /// The array's shape.
        shape: Vec<usize>,
    },
    /// A slice argument that indexes past an axis, or more indexing arguments than
    /// axes.
    SliceOutOfRange {
        /// The axis the argument applies to.
        axis: usize,
        /// The offending integer index (as written, before wrapping negatives).
        index: isize,
        /// The array's shape.
        shape: Vec<usize>,
    },
    /// More slicing arguments than the array has axes.
    TooManyIndices {
        /// The number of indexing arguments.
        count: usize,
        /// The array's shape.
        shape: Vec<usize>,
    },
    /// An output array whose shape is not the result's shape.
    WrongOutputShape {
        /// The shape the result has.
        expected: Vec<usize>,
        /// The shape the output array has.
        found: Vec<usize>,
    },
    /// An array that cannot be allocated: its bytes exceed `isize::MAX` (the most
    /// one allocation may hold), or the allocator refused them.
    ///
    /// ```
    /// use ndsimd::{Array, Error};
    /// let err = Array::<f64>::try_zeros(&[1 << 61]).unwrap_err();
    /// assert!(matches!(err, Error::Alloc { bytes: Some(b), .. } if b == 1 << 64));
    /// assert!(err.to_string().starts_with(
    ///     "array is too big: shape [2305843009213693952] of float64 spans 18446744073709551616 bytes"
    /// ));
    /// ```
    Alloc {
        /// The shape asked for.
        shape: Vec<usize>,
        /// NumPy's name of the element type (`"float64"`).
        dtype: &'static str,
        /// The bytes the shape spans: the element size times the product of its
        /// non-zero dimensions (NumPy's measure, so an empty shape whose other
        /// dimensions are huge is too big as well); `None` past `u128::MAX`.
        bytes: Option<u128>,
    },
    /// Any other invalid argument (a zero step, a non-permutation, too many axes).
    InvalidArgument(String),
}

/// The most bytes one array may span: `isize::MAX` (the bound of every Rust
/// allocation), less the room that puts the first element on a cache line.
pub(crate) const MAX_ALLOC_BYTES: u128 = isize::MAX as u128 - 64;

impl Error {
    /// [`Error::Alloc`] for an array of `shape` with elements of `itemsize` bytes.
    pub(crate) fn alloc(shape: &[usize], dtype: &'static str, itemsize: usize) -> Error {
        Error::Alloc {
            shape: shape.to_vec(),
            dtype,
            bytes: span_bytes(shape, itemsize),
        }
    }
}

/// `itemsize` times the product of the non-zero dimensions of `shape`, if it fits
/// `u128`.
pub(crate) fn span_bytes(shape: &[usize], itemsize: usize) -> Option<u128> {
    shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(itemsize as u128, |acc, &d| acc.checked_mul(d as u128))
}

/// `bytes` in the largest binary unit that keeps it at least 1 ("8.00 TiB").
fn human_bytes(bytes: u128) -> String {
    const UNITS: [&str; 9] = [
        "bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB",
    ];
    let mut k = 0;
    while k + 1 < UNITS.len() && bytes >> (10 * (k + 1)) != 0 {
        k += 1;
    }
    if k == 0 {
        return format!("{bytes} bytes");
    }
    format!(
        "{:.2} {}",
        bytes as f64 / (1u128 << (10 * k)) as f64,
        UNITS[k]
    )
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) struct ShapeFmt<'a, T>(pub &'a [T]);

impl<T: fmt::Display> fmt::Display for ShapeFmt<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Error::*;
        match self {
            ShapeMismatch { op, lhs, rhs } => write!(
                f,
                "operands could not be broadcast together in {op}: shapes {} and {}",
                ShapeFmt(lhs),
                ShapeFmt(rhs)
            ),
            IncompatibleReshape { from, to } => write!(
                f,
                "cannot reshape an array of shape {} ({} elements) into shape {}",
                ShapeFmt(from),
                from.iter().product::<usize>(),
                ShapeFmt(to)
            ),
            LengthMismatch { shape, len } => write!(
                f,
                "shape {} needs {} elements but {len} were given",
                ShapeFmt(shape),
                shape.iter().product::<usize>()
            ),
            AxisOutOfRange { axis, ndim } => write!(
                f,
                "axis {axis} is out of range for an array with {ndim} dimension{}",
                if *ndim == 1 { "" } else { "s" }
            ),
            IndexOutOfBounds { index, shape } => write!(
                f,
                "index {} is out of bounds for an array of shape {}",
                ShapeFmt(index),
                ShapeFmt(shape)
            ),
            SliceOutOfRange { axis, index, shape } => write!(
                f,
                "index {index} is out of range for axis {axis} of length {} (shape {})",
                shape.get(*axis).copied().unwrap_or(0),
                ShapeFmt(shape)
            ),
            TooManyIndices { count, shape } => write!(
                f,
                "{count} indices given for an array of shape {} ({} dimensions)",
                ShapeFmt(shape),
                shape.len()
            ),
            WrongOutputShape { expected, found } => write!(
                f,
                "output array has shape {} but the result has shape {}",
                ShapeFmt(found),
                ShapeFmt(expected)
            ),
            Alloc {
                shape,
                dtype,
                bytes: Some(b),
            } if *b <= MAX_ALLOC_BYTES => write!(
                f,
                "unable to allocate {b} bytes ({}) for an array of shape {} and data type {dtype}",
                human_bytes(*b),
                ShapeFmt(shape)
            ),
            Alloc {
                shape,
                dtype,
                bytes,
            } => {
                write!(
                    f,
                    "array is too big: shape {} of {dtype} spans ",
                    ShapeFmt(shape)
                )?;
                match bytes {
                    Some(b) => write!(f, "{b} bytes ({})", human_bytes(*b))?,
                    None => f.write_str("more than 2^128 bytes")?,
                }
                write!(
                    f,
                    ", more than the {MAX_ALLOC_BYTES} bytes one allocation may hold"
                )
            }
            InvalidArgument(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for Error {}
