//! The operators `+ - * / %`, unary `-` and `+= -= *= /=`, with an owned array, a
//! borrowed one, a view by value or a scalar on either side. Each forwards to a
//! method's path and panics with the message that method's `Err` carries (as the
//! ndarray crate's operators do), so every spelling gives the method's bits:
//!
//! - `&a + &b`, `&a + b`, `view + ..`, `&a + 2.0`: `a.add(..)`, a new array.
//! - `a + &b`, `a + b`, `a + 2.0` with `a` owned: `a.try_add_assign(..)`, in `a`'s
//!   buffer, when the result has `a`'s shape; else `a.add(..)` (the result is
//!   larger than `a`: a new array; an owned `b` is not reused either).
//! - `2.0 + &a`, `2.0 - a`: the allocating path with the scalar on the left (there
//!   is no method for that order), a new array.
//! - `a += &b`, `a += b`, `a += 2.0`: `a.try_add_assign(..)`.
//! - `-&a`, `-view`: `a.neg()`; `-a` with `a` owned: `a.neg_assign()`.

use super::exec::{binary_alloc, binary_assign};
use super::op;
use crate::array::{Array, ArrayBase, ArrayView, ArrayViewMut, Data, DataMut};
use crate::dim::broadcast_shapes;
use crate::error::Result;
use crate::ops::operand::Operand;
use crate::{Element, IntElement, Numeric};
use std::ops;

/// The value, or a panic with the error's message (at the operator's caller).
#[track_caller]
fn or_panic<R>(r: Result<R>) -> R {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

macro_rules! binary_operators {
    ($kind:ident $Bound:ident $scalars:tt; $( $Trait:ident $method:ident $Assign:ident $assign_method:ident => $name:ident $try_assign:ident; )*) => {$(
        #[doc = concat!("`self.", stringify!($name), "(rhs)`; panics with its error message.")]
        impl<'b, S1: Data, S2: Data<Elem = S1::Elem>> ops::$Trait<&'b ArrayBase<S2>> for &ArrayBase<S1>
        where
            S1::Elem: $Bound,
        {
            type Output = Array<S1::Elem>;
            #[track_caller]
            fn $method(self, rhs: &'b ArrayBase<S2>) -> Array<S1::Elem> {
                or_panic(ArrayBase::$name(self, rhs))
            }
        }

        /// As `&a op &rhs`.
        impl<S1: Data, S2: Data<Elem = S1::Elem>> ops::$Trait<ArrayBase<S2>> for &ArrayBase<S1>
        where
            S1::Elem: $Bound,
        {
            type Output = Array<S1::Elem>;
            #[track_caller]
            fn $method(self, rhs: ArrayBase<S2>) -> Array<S1::Elem> {
                or_panic(ArrayBase::$name(self, &rhs))
            }
        }

        #[doc = concat!("`self.", stringify!($name), "(rhs)`; never fails (a scalar broadcasts to every shape).")]
        impl<T: $Bound, S: Data<Elem = T>> ops::$Trait<T> for &ArrayBase<S> {
            type Output = Array<T>;
            #[track_caller]
            fn $method(self, rhs: T) -> Array<T> {
                let (a, b) = (Operand::Array(self.view()), Operand::Scalar(rhs));
                or_panic(binary_alloc(op!($kind, T, $name), stringify!($name), &a, &b))
            }
        }

        #[doc = concat!("In `self`'s buffer (`", stringify!($try_assign), "`) when the result has its shape, else `self.", stringify!($name), "(rhs)`.")]
        /// Panics with the method's error message when the shapes do not broadcast.
        impl<'b, T: $Bound, S2: Data<Elem = T>> ops::$Trait<&'b ArrayBase<S2>> for Array<T> {
            type Output = Array<T>;
            #[track_caller]
            fn $method(mut self, rhs: &'b ArrayBase<S2>) -> Array<T> {
                if broadcast_shapes(self.shape(), rhs.shape()).as_deref() == Some(self.shape()) {
                    or_panic(self.$try_assign(rhs));
                    self
                } else {
                    or_panic(ArrayBase::$name(&self, rhs))
                }
            }
        }

        /// As `self op &rhs` (`rhs`'s buffer is not reused).
        impl<T: $Bound, S2: Data<Elem = T>> ops::$Trait<ArrayBase<S2>> for Array<T> {
            type Output = Array<T>;
            #[track_caller]
            fn $method(self, rhs: ArrayBase<S2>) -> Array<T> {
                ops::$Trait::$method(self, &rhs)
            }
        }

        #[doc = concat!("In `self`'s buffer (`", stringify!($try_assign), "`).")]
        impl<T: $Bound> ops::$Trait<T> for Array<T> {
            type Output = Array<T>;
            #[track_caller]
            fn $method(mut self, rhs: T) -> Array<T> {
                let op = op!($kind, T, $name);
                let b = Operand::Scalar(rhs);
                or_panic(binary_assign(op, stringify!($name), stringify!($try_assign), &mut self, &b));
                self
            }
        }

        binary_operators!(@view $Bound ArrayView $Trait $method);
        binary_operators!(@view $Bound ArrayViewMut $Trait $method);

        #[doc = concat!("`self.", stringify!($try_assign), "(rhs)`; panics with its error message.")]
        impl<'b, S: DataMut, S2: Data<Elem = S::Elem>> ops::$Assign<&'b ArrayBase<S2>> for ArrayBase<S>
        where
            S::Elem: $Bound,
        {
            #[track_caller]
            fn $assign_method(&mut self, rhs: &'b ArrayBase<S2>) {
                or_panic(self.$try_assign(rhs))
            }
        }

        /// As `self op= &rhs`.
        impl<S: DataMut, S2: Data<Elem = S::Elem>> ops::$Assign<ArrayBase<S2>> for ArrayBase<S>
        where
            S::Elem: $Bound,
        {
            #[track_caller]
            fn $assign_method(&mut self, rhs: ArrayBase<S2>) {
                or_panic(self.$try_assign(&rhs))
            }
        }

        #[doc = concat!("`self.", stringify!($try_assign), "(rhs)`.")]
        impl<T: $Bound, S: DataMut<Elem = T>> ops::$Assign<T> for ArrayBase<S> {
            #[track_caller]
            fn $assign_method(&mut self, rhs: T) {
                let op = op!($kind, T, $name);
                let b = Operand::Scalar(rhs);
                or_panic(binary_assign(op, stringify!($name), stringify!($try_assign), self, &b))
            }
        }

        binary_operators!(@scalars $kind $scalars $Trait $method $name);
    )*};

    // A view by value on the left: as the borrowed view.
    (@view $Bound:ident $View:ident $Trait:ident $method:ident) => {
        /// As `&self op rhs`.
        impl<'a, 'b, T: $Bound, S2: Data<Elem = T>> ops::$Trait<&'b ArrayBase<S2>> for $View<'a, T> {
            type Output = Array<T>;
            #[track_caller]
            fn $method(self, rhs: &'b ArrayBase<S2>) -> Array<T> {
                ops::$Trait::$method(&self, rhs)
            }
        }

        /// As `&self op &rhs`.
        impl<'a, T: $Bound, S2: Data<Elem = T>> ops::$Trait<ArrayBase<S2>> for $View<'a, T> {
            type Output = Array<T>;
            #[track_caller]
            fn $method(self, rhs: ArrayBase<S2>) -> Array<T> {
                ops::$Trait::$method(&self, &rhs)
            }
        }

        /// As `&self op rhs`.
        impl<'a, T: $Bound> ops::$Trait<T> for $View<'a, T> {
            type Output = Array<T>;
            #[track_caller]
            fn $method(self, rhs: T) -> Array<T> {
                ops::$Trait::$method(&self, rhs)
            }
        }
    };

    // A scalar on the left: the allocating path with the operands in that order.
    (@scalars $kind:ident [$($t:ident)*] $Trait:ident $method:ident $name:ident) => {
        $(binary_operators!(@scalar $kind $t $Trait $method $name);)*
    };
    (@scalar $kind:ident $t:ident $Trait:ident $method:ident $name:ident) => {
        /// A new array; never fails (a scalar broadcasts to every shape).
        impl<'a, S: Data<Elem = $t>> ops::$Trait<&'a ArrayBase<S>> for $t {
            type Output = Array<$t>;
            #[track_caller]
            fn $method(self, rhs: &'a ArrayBase<S>) -> Array<$t> {
                let (a, b) = (Operand::Scalar(self), Operand::Array(rhs.view()));
                or_panic(binary_alloc(op!($kind, $t, $name), stringify!($name), &a, &b))
            }
        }

        /// As `self op &rhs` (`rhs`'s buffer is not reused).
        impl<S: Data<Elem = $t>> ops::$Trait<ArrayBase<S>> for $t {
            type Output = Array<$t>;
            #[track_caller]
            fn $method(self, rhs: ArrayBase<S>) -> Array<$t> {
                ops::$Trait::$method(self, &rhs)
            }
        }
    };
}

binary_operators! { num Numeric [f32 f64 i32 i64 u8];
    Add add AddAssign add_assign => add try_add_assign;
    Sub sub SubAssign sub_assign => sub try_sub_assign;
    Mul mul MulAssign mul_assign => mul try_mul_assign;
}

binary_operators! { float Element [f32 f64];
    Div div DivAssign div_assign => div try_div_assign;
}

/// `self.neg()`, a new array.
impl<S: Data> ops::Neg for &ArrayBase<S>
where
    S::Elem: Element,
{
    type Output = Array<S::Elem>;
    #[track_caller]
    fn neg(self) -> Array<S::Elem> {
        ArrayBase::neg(self)
    }
}

/// In `self`'s buffer (`neg_assign`).
impl<T: Element> ops::Neg for Array<T> {
    type Output = Array<T>;
    #[track_caller]
    fn neg(mut self) -> Array<T> {
        self.neg_assign();
        self
    }
}

/// `self.neg()`, a new array.
impl<T: Element> ops::Neg for ArrayView<'_, T> {
    type Output = Array<T>;
    #[track_caller]
    fn neg(self) -> Array<T> {
        ArrayBase::neg(&self)
    }
}

/// `self.neg()`, a new array.
impl<T: Element> ops::Neg for ArrayViewMut<'_, T> {
    type Output = Array<T>;
    #[track_caller]
    fn neg(self) -> Array<T> {
        ArrayBase::neg(&self)
    }
}

/// `%` on integer arrays: `self.rem(rhs)`, NumPy's `%` (the remainder takes the
/// divisor's sign; a zero divisor gives 0). Every form allocates the result; panics
/// with the method's error message when the shapes do not broadcast.
///
/// ```
/// use ndsimd::Array;
/// let a = Array::from_vec(vec![7i64, -7, 7, -7]);
/// let b = Array::from_vec(vec![2i64, 2, -2, 0]);
/// assert_eq!((&a % &b).to_vec(), vec![1, 1, -1, 0]);
/// assert_eq!((&a % 3).to_vec(), vec![1, 2, 1, 2]);
/// assert_eq!((10 % &b).to_vec(), vec![0, 0, 0, 0]);
/// assert_eq!((a.view() % b).to_vec(), vec![1, 1, -1, 0]);
/// ```
impl<'b, S1: Data, S2: Data<Elem = S1::Elem>> ops::Rem<&'b ArrayBase<S2>> for &ArrayBase<S1>
where
    S1::Elem: IntElement,
{
    type Output = Array<S1::Elem>;
    #[track_caller]
    fn rem(self, rhs: &'b ArrayBase<S2>) -> Array<S1::Elem> {
        or_panic(ArrayBase::rem(self, rhs))
    }
}

/// As `&self % &rhs`.
impl<S1: Data, S2: Data<Elem = S1::Elem>> ops::Rem<ArrayBase<S2>> for &ArrayBase<S1>
where
    S1::Elem: IntElement,
{
    type Output = Array<S1::Elem>;
    #[track_caller]
    fn rem(self, rhs: ArrayBase<S2>) -> Array<S1::Elem> {
        or_panic(ArrayBase::rem(self, &rhs))
    }
}

/// `self.rem(rhs)` with a scalar divisor; never fails.
impl<T: IntElement, S: Data<Elem = T>> ops::Rem<T> for &ArrayBase<S> {
    type Output = Array<T>;
    #[track_caller]
    fn rem(self, rhs: T) -> Array<T> {
        or_panic(ArrayBase::rem(self, &Array::from_elem(&[], rhs)))
    }
}

/// As `&self % &rhs` (an owned array or a view by value).
impl<'b, T: IntElement, S: Data<Elem = T>, S2: Data<Elem = T>> ops::Rem<&'b ArrayBase<S2>>
    for ArrayBase<S>
{
    type Output = Array<T>;
    #[track_caller]
    fn rem(self, rhs: &'b ArrayBase<S2>) -> Array<T> {
        ops::Rem::rem(&self, rhs)
    }
}

/// As `&self % &rhs`.
impl<T: IntElement, S: Data<Elem = T>, S2: Data<Elem = T>> ops::Rem<ArrayBase<S2>>
    for ArrayBase<S>
{
    type Output = Array<T>;
    #[track_caller]
    fn rem(self, rhs: ArrayBase<S2>) -> Array<T> {
        ops::Rem::rem(&self, &rhs)
    }
}

/// As `&self % rhs`.
impl<T: IntElement, S: Data<Elem = T>> ops::Rem<T> for ArrayBase<S> {
    type Output = Array<T>;
    #[track_caller]
    fn rem(self, rhs: T) -> Array<T> {
        ops::Rem::rem(&self, rhs)
    }
}

macro_rules! scalar_rem {
    ($($t:ty)*) => {$(
        /// The scalar divided by each element (`x % a`), a new array; never fails.
        impl<S: Data<Elem = $t>> ops::Rem<&ArrayBase<S>> for $t {
            type Output = Array<$t>;
            #[track_caller]
            fn rem(self, rhs: &ArrayBase<S>) -> Array<$t> {
                or_panic(ArrayBase::rem(&Array::from_elem(&[], self), rhs))
            }
        }

        /// As `self % &rhs`.
        impl<S: Data<Elem = $t>> ops::Rem<ArrayBase<S>> for $t {
            type Output = Array<$t>;
            #[track_caller]
            fn rem(self, rhs: ArrayBase<S>) -> Array<$t> {
                ops::Rem::rem(self, &rhs)
            }
        }
    )*};
}
scalar_rem!(i32 i64 u8);
