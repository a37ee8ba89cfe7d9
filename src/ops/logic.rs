//! Boolean logic (`&`, `|`, `^`, `!` on `bool` arrays, with NumPy broadcasting),
//! `any`, `all` and `count_nonzero` (any element type), and `astype`.
//!
//! The logic runs as scalar loops over the engine's runs, which LLVM vectorises;
//! no kernel table is needed for one-byte boolean operations.

use super::arith::zip_exec;
use super::closures::or_panic;
use super::operand::{result_shape, IntoOperand, Operand, Src};
use crate::array::{Array, ArrayBase, Data};
use crate::error::Result;
use crate::DType;
use std::ops;

/// `out[i] = f(a[i], b[i])` over one run of the engine.
#[inline]
fn run<T: Copy, U: Copy>(f: impl Fn(T, T) -> U, a: Src<'_, T>, b: Src<'_, T>, out: &mut [U]) {
    match (a, b) {
        (Src::Slice(a), Src::Slice(b)) => {
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = f(x, y);
            }
        }
        (Src::Slice(a), Src::Value(y)) => {
            for (o, &x) in out.iter_mut().zip(a) {
                *o = f(x, y);
            }
        }
        (Src::Value(x), Src::Slice(b)) => {
            for (o, &y) in out.iter_mut().zip(b) {
                *o = f(x, y);
            }
        }
        (Src::Value(x), Src::Value(y)) => {
            let v = f(x, y);
            for o in out.iter_mut() {
                *o = v;
            }
        }
    }
}

/// `f` elementwise over `a` and `rhs` broadcast together, in a new array; the
/// shape error names `op`.
pub(crate) fn zip_with<T: DType>(
    op: &'static str,
    a: &ArrayBase<impl Data<Elem = T>>,
    rhs: &Operand<'_, T>,
    f: fn(T, T) -> T,
) -> Result<Array<T>> {
    let shape = result_shape(op, a.shape(), rhs)?;
    let mut out = Array::try_from_elem(&shape, T::default())?;
    zip_exec(
        move |x, y, o| run(f, x, y, o),
        &Operand::Array(a.view()),
        rhs,
        &mut out,
    );
    Ok(out)
}

macro_rules! logic_methods {
    ($( $name:ident, $Trait:ident, $method:ident, $sym:literal, |$x:ident, $y:ident| $rule:expr; )*) => {
        impl<S: Data<Elem = bool>> ArrayBase<S> {
            $(
            #[doc = concat!("`self ", $sym, " rhs` elementwise with NumPy broadcasting (NumPy's `np.", stringify!($name), "`); also the operator `&a ", $sym, " &b`.")]
            ///
            /// Errors with [`Error::ShapeMismatch`](crate::Error::ShapeMismatch) when
            /// the shapes do not broadcast.
            ///
            /// ```
            /// use ndsimd::Array;
            /// let a = Array::from_vec(vec![true, true, false, false]);
            /// let b = Array::from_vec(vec![true, false, true, false]);
            #[doc = concat!("let r = a.", stringify!($name), "(&b).unwrap();")]
            #[doc = concat!("assert_eq!(r, &a ", $sym, " &b);")]
            #[doc = concat!("assert!(a.", stringify!($name), "(&Array::from_vec(vec![true; 3])).is_err());")]
            /// ```
            pub fn $name<'b>(&self, rhs: impl IntoOperand<'b, bool>) -> Result<Array<bool>> {
                zip_with(stringify!($name), self, &rhs.into_operand(), |$x, $y| $rule)
            }
            )*
        }

        $(
        #[doc = concat!("`self.", stringify!($name), "(rhs)`; panics with its error message.")]
        impl<S1: Data<Elem = bool>, S2: Data<Elem = bool>> ops::$Trait<&ArrayBase<S2>> for &ArrayBase<S1> {
            type Output = Array<bool>;
            #[track_caller]
            fn $method(self, rhs: &ArrayBase<S2>) -> Array<bool> {
                or_panic(self.$name(rhs))
            }
        }

        /// As `&self op &rhs`.
        impl<S1: Data<Elem = bool>, S2: Data<Elem = bool>> ops::$Trait<ArrayBase<S2>> for ArrayBase<S1> {
            type Output = Array<bool>;
            #[track_caller]
            fn $method(self, rhs: ArrayBase<S2>) -> Array<bool> {
                or_panic(self.$name(&rhs))
            }
        }

        /// As `&self op &rhs`.
        impl<S1: Data<Elem = bool>, S2: Data<Elem = bool>> ops::$Trait<&ArrayBase<S2>> for ArrayBase<S1> {
            type Output = Array<bool>;
            #[track_caller]
            fn $method(self, rhs: &ArrayBase<S2>) -> Array<bool> {
                or_panic(self.$name(rhs))
            }
        }

        /// As `&self op rhs` with a scalar.
        impl<S: Data<Elem = bool>> ops::$Trait<bool> for &ArrayBase<S> {
            type Output = Array<bool>;
            #[track_caller]
            fn $method(self, rhs: bool) -> Array<bool> {
                or_panic(self.$name(rhs))
            }
        }
        )*
    };
}

logic_methods! {
    logical_and, BitAnd, bitand, "&", |x, y| x & y;
    logical_or, BitOr, bitor, "|", |x, y| x | y;
    logical_xor, BitXor, bitxor, "^", |x, y| x ^ y;
}

impl<S: Data<Elem = bool>> ArrayBase<S> {
    /// The elementwise negation, in a new array (NumPy's `np.logical_not`; also `!&a`).
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![true, false]);
    /// assert_eq!(a.logical_not().to_vec(), vec![false, true]);
    /// assert_eq!(!&a, a.logical_not());
    /// ```
    pub fn logical_not(&self) -> Array<bool> {
        self.mapv(|x| !x)
    }
}

/// `self.logical_not()`.
impl<S: Data<Elem = bool>> ops::Not for &ArrayBase<S> {
    type Output = Array<bool>;
    fn not(self) -> Array<bool> {
        self.logical_not()
    }
}

/// `self.logical_not()`.
impl<S: Data<Elem = bool>> ops::Not for ArrayBase<S> {
    type Output = Array<bool>;
    fn not(self) -> Array<bool> {
        self.logical_not()
    }
}

impl<S: Data> ArrayBase<S> {
    /// The number of elements that are not zero (`false`, `0`, `0.0` and `-0.0` are
    /// zero; NaN is not), as NumPy's `count_nonzero`.
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![0.0, -0.0, f64::NAN, 2.0]);
    /// assert_eq!(a.count_nonzero(), 2);
    /// assert_eq!(ndsimd::Array::from_vec(vec![true, false, true]).count_nonzero(), 2);
    /// ```
    pub fn count_nonzero(&self) -> usize {
        let zero = S::Elem::default();
        match self.as_slice() {
            Some(xs) => xs.iter().filter(|&&x| x != zero).count(),
            None => self.iter().filter(|&&x| x != zero).count(),
        }
    }

    /// Whether any element is not zero (NumPy's `any`); `false` when empty.
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![false, true]);
    /// assert!(a.any());
    /// assert!(!ndsimd::Array::from_vec(vec![0i32, 0]).any());
    /// ```
    pub fn any(&self) -> bool {
        let zero = S::Elem::default();
        self.iter().any(|&x| x != zero)
    }

    /// Whether every element is not zero (NumPy's `all`); `true` when empty.
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![true, true]);
    /// assert!(a.all());
    /// assert!(!ndsimd::Array::from_vec(vec![1u8, 0]).all());
    /// ```
    pub fn all(&self) -> bool {
        let zero = S::Elem::default();
        self.iter().all(|&x| x != zero)
    }

    /// The elements converted to `U`, in a new array, by NumPy's casting rules
    /// (`a.astype(U)` with the default `casting='unsafe'`):
    ///
    /// - integer to integer: two's complement wrapping (`300i32` as `u8` is `44`);
    /// - float to integer: truncation toward zero (`-2.7` gives `-2`). Where NumPy's
    ///   result is undefined (NaN, ±inf, a value outside the target's range; it
    ///   warns), this returns Rust's saturating cast: NaN gives `0`, values beyond
    ///   the range give the type's `MIN` or `MAX` (so a negative float as `u8` is `0`);
    /// - integer to float, `f64` to `f32`: rounded to nearest;
    /// - to `bool`: not zero (NaN is `true`); from `bool`: `0` or `1`.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_vec(vec![-2.7, 2.7, f64::NAN]);
    /// assert_eq!(a.astype::<i32>().to_vec(), vec![-2, 2, 0]);
    /// assert_eq!(Array::from_vec(vec![300i32, -1]).astype::<u8>().to_vec(), vec![44, 255]);
    /// assert_eq!(Array::from_vec(vec![0u8, 5]).astype::<bool>().to_vec(), vec![false, true]);
    /// ```
    pub fn astype<U: DType>(&self) -> Array<U> {
        self.mapv(|x| U::from_cast(x.to_cast()))
    }
}
