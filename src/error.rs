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
    /// Any other invalid argument (a zero step, a non-permutation, too many axes).
    InvalidArgument(String),
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
            InvalidArgument(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for Error {}
