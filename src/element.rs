//! The element types: `f32`, `f64`, `i32`, `i64`, `u8` and `bool`, and the traits
//! that say what each can do ([`DType`], [`Numeric`], [`Element`], [`IntElement`],
//! [`Reduce`]).

use crate::array::{Array, ArrayBase, ArrayView, Data};
use crate::error::Result;
use ndsimd_kernels::gemm::{BatchMut, BatchRef, MatMut, MatRef};
use ndsimd_kernels::scalar::int::IntArith;
use ndsimd_kernels::{BinaryOp, CmpOp, IntKernelElement, KernelElement};
use num_traits::{Float, FromPrimitive};
use std::fmt::{Debug, Display, LowerExp};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for bool {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for u8 {}
}

/// Any type an array can hold: `f32`, `f64`, `i32`, `i64`, `u8` and `bool`.
/// Sealed. Layout operations (views, slicing, reshape, iteration, printing, `.npy`,
/// [`astype`](crate::ArrayBase::astype)) work for every `DType`; `+ - *` and the
/// comparisons need [`Numeric`], the float operations [`Element`], integer
/// division [`IntElement`].
///
/// ```
/// use ndsimd::{Array, DType};
/// fn first<T: DType>(a: &Array<T>) -> Option<T> {
///     a.first().copied()
/// }
/// assert_eq!(first(&Array::from_vec(vec![true, false])), Some(true));
/// ```
pub trait DType:
    Copy
    + Default
    + PartialEq
    + Debug
    + Send
    + Sync
    + 'static
    + sealed::Sealed
    // No padding bytes: a workspace slot filled with it is initialized throughout.
    + ndsimd_kernels::arena::Plain
{
    /// NumPy's name for the type (`"float64"`, `"bool"`).
    const DTYPE: &'static str;
    #[doc(hidden)]
    /// NumPy-style strings for `vals`, all padded to one width.
    fn format_all(vals: &[Self]) -> Vec<String>;
    #[doc(hidden)]
    /// True for the all-zero-bits value (`+0.0`, `false`; not `-0.0`).
    fn is_zero_bits(self) -> bool;
    #[doc(hidden)]
    /// How a 0-D array prints with `Display` (NumPy's `str`).
    fn format_scalar(self) -> String;
    #[doc(hidden)]
    /// The value for [`astype`](crate::ArrayBase::astype).
    fn to_cast(self) -> CastValue;
    #[doc(hidden)]
    /// The value of `v` as this type, by NumPy's casting rules (see `astype`).
    fn from_cast(v: CastValue) -> Self;
}

/// A value on its way from one element type to another in
/// [`astype`](crate::ArrayBase::astype): every element type's values fit one of these
/// exactly.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CastValue {
    /// A float (`f32` widens exactly).
    F(f64),
    /// An integer (`i32` and `u8` widen exactly).
    I(i64),
    /// A boolean.
    B(bool),
}

impl DType for bool {
    const DTYPE: &'static str = "bool";
    fn format_all(vals: &[bool]) -> Vec<String> {
        // NumPy pads True to False's width: `array([ True, False])`.
        vals.iter()
            .map(|&v| format!("{:>5}", if v { "True" } else { "False" }))
            .collect()
    }
    fn is_zero_bits(self) -> bool {
        !self
    }
    fn format_scalar(self) -> String {
        if self { "True" } else { "False" }.to_string()
    }
    fn to_cast(self) -> CastValue {
        CastValue::B(self)
    }
    fn from_cast(v: CastValue) -> bool {
        match v {
            // NaN is true, as in NumPy (`bool(nan)`).
            CastValue::F(x) => x != 0.0,
            CastValue::I(i) => i != 0,
            CastValue::B(b) => b,
        }
    }
}

/// A float element type. Sealed: implemented for `f32` and `f64`, each with its own
/// kernel table.
///
/// ```
/// fn total<T: ndsimd::Element>(xs: &[T]) -> T {
///     xs.iter().fold(T::zero(), |a, &b| a + b)
/// }
/// assert_eq!(total(&[1.0f32, 2.0]), 3.0);
/// ```
pub trait Element:
    Numeric
    + Reduce<Acc = Self, Mean = Self>
    + Float
    + FromPrimitive
    + KernelElement
    // Any bit pattern is a value: a workspace may hand out recycled memory unwritten.
    + ndsimd_kernels::arena::AnyBits
    + Debug
    + Display
    + LowerExp
    + Default
    + Send
    + Sync
    + 'static
    + sealed::Sealed
{
    #[doc(hidden)]
    /// [`ndsimd_kernels::gemm::gemm`] for this type (a method here, not a
    /// supertrait: the kernels' element trait shares method names with `Float`).
    fn gemm(
        alpha: Self,
        a: MatRef<'_, Self>,
        b: MatRef<'_, Self>,
        beta: Self,
        c: MatMut<'_, Self>,
        threads: usize,
    );
    #[doc(hidden)]
    /// [`ndsimd_kernels::gemm::gemm_in`] for this type.
    #[allow(clippy::too_many_arguments)]
    fn gemm_in(
        alpha: Self,
        a: MatRef<'_, Self>,
        b: MatRef<'_, Self>,
        beta: Self,
        c: MatMut<'_, Self>,
        threads: usize,
        scratch: &mut [Self],
    );
    #[doc(hidden)]
    /// [`ndsimd_kernels::gemm::gemm_tiny_rows`] for this type.
    fn gemm_tiny_rows(
        alpha: Self,
        a: &[Self],
        b: &[Self],
        beta: Self,
        c: &mut [Self],
        mkn: (usize, usize, usize),
    ) -> bool;
    #[doc(hidden)]
    /// [`ndsimd_kernels::gemm::gemm_scratch`] for this type.
    fn gemm_scratch(m: usize, k: usize, n: usize, threads: usize) -> usize;
    #[doc(hidden)]
    /// [`ndsimd_kernels::gemm::gemv`] for this type.
    fn gemv(
        alpha: Self,
        a: MatRef<'_, Self>,
        x: MatRef<'_, Self>,
        beta: Self,
        y: MatMut<'_, Self>,
        threads: usize,
    );
    #[doc(hidden)]
    /// [`ndsimd_kernels::gemm::gemm_batch`] for this type.
    fn gemm_batch(
        alpha: Self,
        a: BatchRef<'_, Self>,
        b: BatchRef<'_, Self>,
        beta: Self,
        c: BatchMut<'_, Self>,
        threads: usize,
    );
}

macro_rules! float_dtype {
    ($t:ty, $name:literal) => {
        impl DType for $t {
            const DTYPE: &'static str = $name;
            fn format_all(vals: &[$t]) -> Vec<String> {
                crate::fmt::format_floats(vals)
            }
            fn is_zero_bits(self) -> bool {
                self.to_bits() == 0
            }
            fn format_scalar(self) -> String {
                // NumPy's str of a 0-D float array is Python's float str ("5.0").
                format!("{self:?}")
            }
            fn to_cast(self) -> CastValue {
                CastValue::F(self as f64)
            }
            fn from_cast(v: CastValue) -> $t {
                match v {
                    CastValue::F(x) => x as $t,
                    // One rounding, to nearest (NumPy's and C's).
                    CastValue::I(i) => i as $t,
                    CastValue::B(b) => u8::from(b) as $t,
                }
            }
        }
        impl Numeric for $t {
            const NUM_ONE: $t = 1.0;
            #[inline]
            fn num_ops() -> NumOps<$t> {
                let t = <$t as KernelElement>::table();
                NumOps {
                    add: &t.add,
                    sub: &t.sub,
                    mul: &t.mul,
                    eq: &t.eq,
                    ne: &t.ne,
                    lt: &t.lt,
                    le: &t.le,
                    gt: &t.gt,
                    ge: &t.ge,
                }
            }
        }
        impl Element for $t {
            fn gemm(
                alpha: $t,
                a: MatRef<'_, $t>,
                b: MatRef<'_, $t>,
                beta: $t,
                c: MatMut<'_, $t>,
                threads: usize,
            ) {
                ndsimd_kernels::gemm::gemm(alpha, a, b, beta, c, threads)
            }
            fn gemm_in(
                alpha: $t,
                a: MatRef<'_, $t>,
                b: MatRef<'_, $t>,
                beta: $t,
                c: MatMut<'_, $t>,
                threads: usize,
                scratch: &mut [$t],
            ) {
                ndsimd_kernels::gemm::gemm_in(alpha, a, b, beta, c, threads, scratch)
            }
            #[inline(always)]
            fn gemm_tiny_rows(
                alpha: $t,
                a: &[$t],
                b: &[$t],
                beta: $t,
                c: &mut [$t],
                mkn: (usize, usize, usize),
            ) -> bool {
                ndsimd_kernels::gemm::gemm_tiny_rows(alpha, a, b, beta, c, mkn)
            }
            fn gemm_scratch(m: usize, k: usize, n: usize, threads: usize) -> usize {
                ndsimd_kernels::gemm::gemm_scratch::<$t>(m, k, n, threads)
            }
            fn gemv(
                alpha: $t,
                a: MatRef<'_, $t>,
                x: MatRef<'_, $t>,
                beta: $t,
                y: MatMut<'_, $t>,
                threads: usize,
            ) {
                ndsimd_kernels::gemm::gemv(alpha, a, x, beta, y, threads)
            }
            fn gemm_batch(
                alpha: $t,
                a: BatchRef<'_, $t>,
                b: BatchRef<'_, $t>,
                beta: $t,
                c: BatchMut<'_, $t>,
                threads: usize,
            ) {
                ndsimd_kernels::gemm::gemm_batch(alpha, a, b, beta, c, threads)
            }
        }
    };
}
float_dtype!(f32, "float32");
float_dtype!(f64, "float64");

/// The element types with arithmetic: `f32`, `f64`, `i32`, `i64` and `u8`. Sealed.
///
/// `+`, `-`, `*` (methods `add`, `sub`, `mul`, their `_into` and `try_*_assign`
/// forms, and the operators) and the comparisons (`equal`, `less`, ...) work for
/// every `Numeric` type with NumPy's broadcasting. Integer arithmetic wraps on
/// overflow, as NumPy's does (NumPy does not even warn for arrays).
///
/// ```
/// use ndsimd::Array;
/// let a = Array::from_vec(vec![i32::MAX, 2, -3]);
/// assert_eq!((&a + 1).to_vec(), vec![i32::MIN, 3, -2]);
/// assert_eq!(a.less(0).unwrap().to_vec(), vec![false, false, true]);
/// ```
pub trait Numeric:
    DType
    + PartialOrd
    + Reduce
    // Any bit pattern is a value: results may be written into recycled memory.
    + ndsimd_kernels::arena::AnyBits
{
    #[doc(hidden)]
    /// `1` of this type.
    const NUM_ONE: Self;
    #[doc(hidden)]
    /// The elementwise kernels of the active tier.
    fn num_ops() -> NumOps<Self>;
}

/// The elementwise kernels every [`Numeric`] type has, at the active tier.
#[doc(hidden)]
pub struct NumOps<T: 'static> {
    pub add: &'static BinaryOp<T>,
    pub sub: &'static BinaryOp<T>,
    pub mul: &'static BinaryOp<T>,
    pub eq: &'static CmpOp<T>,
    pub ne: &'static CmpOp<T>,
    pub lt: &'static CmpOp<T>,
    pub le: &'static CmpOp<T>,
    pub gt: &'static CmpOp<T>,
    pub ge: &'static CmpOp<T>,
}

/// An integer element type: `i32`, `i64` or `u8`. Sealed.
///
/// Beyond [`Numeric`]: [`floor_div`](crate::ArrayBase::floor_div) and
/// [`rem`](crate::ArrayBase::rem) with NumPy's sign rules, and the reductions
/// of [`Reduce`] accumulating in 64 bits.
///
/// ```
/// fn widest<T: ndsimd::IntElement>(xs: &[T]) -> Option<T> {
///     xs.iter().copied().max()
/// }
/// assert_eq!(widest(&[3u8, 200, 7]), Some(200));
/// ```
pub trait IntElement:
    Numeric
    + Reduce<Acc = i64, Mean = f64>
    + Ord
    + Eq
    + std::hash::Hash
    + Display
    + IntKernelElement
    + IntArith
{
    /// The smallest value.
    const MIN: Self;
    /// The largest value.
    const MAX: Self;
    #[doc(hidden)]
    /// NumPy's `x // y`: see [`floor_div`](crate::ArrayBase::floor_div).
    fn floor_div_one(self, y: Self) -> Self;
    #[doc(hidden)]
    /// NumPy's `x % y`: see [`rem`](crate::ArrayBase::rem).
    fn rem_one(self, y: Self) -> Self;
}

macro_rules! int_dtype {
    ($t:ty, $name:literal, signed = $signed:literal) => {
        impl DType for $t {
            const DTYPE: &'static str = $name;
            fn format_all(vals: &[$t]) -> Vec<String> {
                // NumPy right-aligns integers to the widest: `[  1 -20   3]`.
                let words: Vec<String> = vals.iter().map(|v| v.to_string()).collect();
                let w = words.iter().map(|s| s.len()).max().unwrap_or(0);
                words.into_iter().map(|s| format!("{s:>w$}")).collect()
            }
            fn is_zero_bits(self) -> bool {
                self == 0
            }
            fn format_scalar(self) -> String {
                self.to_string()
            }
            fn to_cast(self) -> CastValue {
                CastValue::I(self as i64)
            }
            fn from_cast(v: CastValue) -> $t {
                match v {
                    // Truncation toward zero; Rust's `as` saturates out-of-range values
                    // and maps NaN to 0, where NumPy's result is undefined.
                    CastValue::F(x) => x as $t,
                    // Two's complement wrapping, as NumPy (C) casts.
                    CastValue::I(i) => i as $t,
                    CastValue::B(b) => <$t>::from(b),
                }
            }
        }
        impl Numeric for $t {
            const NUM_ONE: $t = 1;
            #[inline]
            fn num_ops() -> NumOps<$t> {
                let t = <$t as IntKernelElement>::int_table();
                NumOps {
                    add: &t.add,
                    sub: &t.sub,
                    mul: &t.mul,
                    eq: &t.eq,
                    ne: &t.ne,
                    lt: &t.lt,
                    le: &t.le,
                    gt: &t.gt,
                    ge: &t.ge,
                }
            }
        }
        impl IntElement for $t {
            const MIN: $t = <$t>::MIN;
            const MAX: $t = <$t>::MAX;
            #[inline]
            #[allow(unused_comparisons)]
            fn floor_div_one(self, y: $t) -> $t {
                if y == 0 {
                    return 0;
                }
                if $signed && y == (0 as $t).wrapping_sub(1) {
                    // `MIN // -1` overflows: NumPy's result is `MIN` (it wraps).
                    return (0 as $t).wrapping_sub(self);
                }
                let q = self / y;
                if self % y != 0 && ((self < 0) != (y < 0)) {
                    q - 1
                } else {
                    q
                }
            }
            #[inline]
            #[allow(unused_comparisons)]
            fn rem_one(self, y: $t) -> $t {
                if y == 0 || ($signed && y == (0 as $t).wrapping_sub(1)) {
                    return 0;
                }
                let r = self % y;
                if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                }
            }
        }
    };
}
int_dtype!(i32, "int32", signed = true);
int_dtype!(i64, "int64", signed = true);
int_dtype!(u8, "uint8", signed = false);

/// The element types with whole-array reductions: every [`DType`]. Sealed.
///
/// `sum` and `prod` return [`Acc`](Reduce::Acc): the element type for floats, and
/// `i64` for the integers and `bool` (NumPy accumulates integers in 64 bits on Linux;
/// the sum of a `bool` array counts the `true`s). `max`, `min`, `argmax` and `argmin`
/// return the element type and an index.
///
/// ```
/// use ndsimd::Array;
/// let a = Array::from_vec(vec![i32::MAX, i32::MAX]);
/// assert_eq!(a.sum(), 2 * i32::MAX as i64);  // no overflow in 64 bits
/// assert_eq!(Array::from_vec(vec![true, false, true]).sum(), 2);
/// assert_eq!(Array::from_vec(vec![3u8, 9, 9]).argmax().unwrap(), 1);
/// ```
pub trait Reduce: DType {
    /// What `sum` and `prod` return.
    type Acc: DType;
    /// What `mean` and `mean_axis` return: the element type for floats, `f64` for
    /// the integers and `bool` (NumPy's `float64`).
    type Mean: DType;
    #[doc(hidden)]
    fn mean_of<S: Data<Elem = Self>>(a: &ArrayBase<S>) -> Self::Mean;
    #[doc(hidden)]
    /// `sum_axis` (`prod` false) or `prod_axis`.
    fn fold_axis_of(
        a: ArrayView<'_, Self>,
        axis: isize,
        keepdims: bool,
        prod: bool,
    ) -> Result<Array<Self::Acc>>;
    #[doc(hidden)]
    fn mean_axis_of(
        a: ArrayView<'_, Self>,
        axis: isize,
        keepdims: bool,
    ) -> Result<Array<Self::Mean>>;
    #[doc(hidden)]
    /// `max_axis` (`max` true) or `min_axis`.
    fn extreme_axis_of(
        a: ArrayView<'_, Self>,
        axis: isize,
        keepdims: bool,
        max: bool,
    ) -> Result<Array<Self>>;
    #[doc(hidden)]
    /// `argmax_axis` (`max` true) or `argmin_axis`.
    fn arg_axis_of(
        a: ArrayView<'_, Self>,
        axis: isize,
        keepdims: bool,
        max: bool,
    ) -> Result<Array<i64>>;
    #[doc(hidden)]
    fn sum_of<S: Data<Elem = Self>>(a: &ArrayBase<S>) -> Self::Acc;
    #[doc(hidden)]
    fn prod_of<S: Data<Elem = Self>>(a: &ArrayBase<S>) -> Self::Acc;
    #[doc(hidden)]
    fn max_of<S: Data<Elem = Self>>(a: &ArrayBase<S>) -> Result<Self>;
    #[doc(hidden)]
    fn min_of<S: Data<Elem = Self>>(a: &ArrayBase<S>) -> Result<Self>;
    #[doc(hidden)]
    fn argmax_of<S: Data<Elem = Self>>(a: &ArrayBase<S>) -> Result<usize>;
    #[doc(hidden)]
    fn argmin_of<S: Data<Elem = Self>>(a: &ArrayBase<S>) -> Result<usize>;
}
