//! The operands of the elementwise operations: what a method takes on its right
//! ([`IntoOperand`]), how the engine reads it along a run ([`Src`]), and the shape
//! checks every form shares.

use super::engine::gather;
use crate::array::{ArrayBase, ArrayView, Data};
use crate::dim::{broadcast_shapes, broadcast_strides};
use crate::error::{Error, Result};
use crate::DType;

/// A right-hand operand: a scalar or an array view.
pub enum Operand<'a, T: DType> {
    /// A scalar broadcasts to every shape (a 0-D operand).
    Scalar(T),
    /// An array, broadcast by NumPy's rules.
    Array(ArrayView<'a, T>),
}

/// What an arithmetic method takes on its right: `&Array`, `&ArrayView`,
/// `ArrayView`, or a scalar of the element type.
///
/// ```
/// use ndsimd::Array;
/// let a = Array::from_vec(vec![1.0, 2.0]);
/// assert_eq!(a.mul(2.0).unwrap().to_vec(), vec![2.0, 4.0]);
/// assert_eq!(a.mul(&a).unwrap().to_vec(), vec![1.0, 4.0]);
/// assert_eq!(a.mul(a.view()).unwrap().to_vec(), vec![1.0, 4.0]);
/// ```
pub trait IntoOperand<'a, T: DType> {
    /// The operand form.
    fn into_operand(self) -> Operand<'a, T>;

    /// The shape and elements of an array operand in standard layout, read
    /// without building its view (a fast path's test); `None` otherwise.
    ///
    /// ```
    /// use ndsimd::{Array, IntoOperand};
    /// let a = Array::from_vec(vec![1.0, 2.0]);
    /// assert_eq!((&a).contiguous(), Some((&[2][..], &[1.0, 2.0][..])));
    /// assert_eq!(IntoOperand::<f64>::contiguous(&2.0), None);
    /// ```
    fn contiguous(&self) -> Option<(&[usize], &[T])> {
        None
    }
}

impl<'a, S: Data> IntoOperand<'a, S::Elem> for &'a ArrayBase<S> {
    fn into_operand(self) -> Operand<'a, S::Elem> {
        Operand::Array(self.view())
    }

    #[inline]
    fn contiguous(&self) -> Option<(&[usize], &[S::Elem])> {
        Some((self.shape(), self.as_slice()?))
    }
}

impl<'a, T: DType> IntoOperand<'a, T> for Operand<'a, T> {
    fn into_operand(self) -> Operand<'a, T> {
        self
    }
}

impl<'a, T: DType> IntoOperand<'a, T> for ArrayView<'a, T> {
    fn into_operand(self) -> Operand<'a, T> {
        Operand::Array(self)
    }
}

impl<'a> IntoOperand<'a, f64> for f64 {
    fn into_operand(self) -> Operand<'a, f64> {
        Operand::Scalar(self)
    }
}

impl<'a> IntoOperand<'a, bool> for bool {
    fn into_operand(self) -> Operand<'a, bool> {
        Operand::Scalar(self)
    }
}

macro_rules! scalar_operand {
    ($($t:ty),*) => {$(
        impl<'a> IntoOperand<'a, $t> for $t {
            fn into_operand(self) -> Operand<'a, $t> {
                Operand::Scalar(self)
            }
        }
    )*};
}
scalar_operand!(f32, i32, i64, u8);

impl<T: DType> Operand<'_, T> {
    pub(crate) fn shape(&self) -> &[usize] {
        match self {
            Operand::Scalar(_) => &[],
            Operand::Array(a) => a.shape(),
        }
    }
}

/// An operand prepared for the engine: storage, offset and strides over the
/// output's shape. A scalar is a one-element storage with all strides zero.
pub(crate) struct Prepared<'a, T: DType> {
    pub(crate) data: &'a [T],
    pub(crate) offset: usize,
    pub(crate) strides: crate::dim::Strides,
}

/// The one-element storage [`prepare`] reads a scalar operand from (unused for an
/// array).
pub(crate) fn scalar_slot<T: DType>(o: &Operand<'_, T>) -> [T; 1] {
    match o {
        Operand::Scalar(x) => [*x],
        Operand::Array(_) => [T::default()],
    }
}

pub(crate) fn prepare<'a, T: DType>(
    op: &'a Operand<'a, T>,
    scalar: &'a [T; 1],
    shape: &[usize],
) -> Prepared<'a, T> {
    match op {
        Operand::Scalar(_) => Prepared {
            data: scalar,
            offset: 0,
            strides: crate::dim::Strides::filled(shape.len(), 0),
        },
        Operand::Array(a) => Prepared {
            data: a.data,
            offset: a.offset,
            strides: broadcast_strides(a.shape(), a.strides(), shape),
        },
    }
}

/// One input along a run: a slice or a constant (the kernels crate's type, so the
/// allocating forms hand runs to `par::collect_rows` as they are).
pub(crate) use ndsimd_kernels::par::RunArg as Src;

/// Reads `n` elements of an input along a run, from `off` with `stride`; strided
/// inputs are gathered into `buf`.
#[inline]
pub(crate) fn src<'a, T: Copy>(
    data: &'a [T],
    off: isize,
    stride: isize,
    n: usize,
    buf: &'a mut [T],
) -> Src<'a, T> {
    match stride {
        0 => Src::Value(data[off as usize]),
        1 => Src::Slice(&data[off as usize..off as usize + n]),
        _ => {
            gather(data, off as usize, stride, &mut buf[..n]);
            Src::Slice(&buf[..n])
        }
    }
}

/// The elements `r` of a run input (a constant stays itself).
pub(crate) fn part<T: Copy>(x: Src<'_, T>, r: std::ops::Range<usize>) -> Src<'_, T> {
    match x {
        Src::Slice(s) => Src::Slice(&s[r]),
        v => v,
    }
}

/// An operand as a run source: a scalar, or an array's elements when contiguous.
pub(crate) fn whole<'a, T: DType>(o: &'a Operand<'_, T>) -> Option<Src<'a, T>> {
    match o {
        Operand::Scalar(x) => Some(Src::Value(*x)),
        Operand::Array(v) => v.as_slice().map(Src::Slice),
    }
}
/// Shape equality without a `memcmp` call (shapes are a handful of entries).
#[inline(always)]
pub(crate) fn same_shape(a: &[usize], b: &[usize]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}
/// NumPy's broadcast of an array of shape `a` with `b`, or the error naming both.
pub(crate) fn result_shape<T: DType>(
    name: &'static str,
    a: &[usize],
    b: &Operand<'_, T>,
) -> Result<crate::dim::Dim> {
    // One shape, or a scalar `b`: `a` itself, an existing array's shape (the
    // broadcast and its checks cost a 1Ki add a fifth of its time).
    if matches!(b, Operand::Scalar(_)) || same_shape(a, b.shape()) {
        return Ok(crate::dim::Dim::from_slice(a));
    }
    let shape = broadcast_shapes(a, b.shape()).ok_or_else(|| Error::ShapeMismatch {
        op: name,
        lhs: a.to_vec(),
        rhs: b.shape().to_vec(),
    })?;
    if crate::dim::size_of_shape(&shape).is_none() {
        return Err(Error::InvalidArgument(format!(
            "the result of {name} of shapes {} and {} would have more than usize::MAX elements",
            crate::error::ShapeFmt(a),
            crate::error::ShapeFmt(b.shape())
        )));
    }
    Ok(shape)
}

pub(crate) fn check_out(expected: &[usize], found: &[usize]) -> Result<()> {
    if !same_shape(expected, found) {
        return Err(Error::WrongOutputShape {
            expected: expected.to_vec(),
            found: found.to_vec(),
        });
    }
    Ok(())
}
