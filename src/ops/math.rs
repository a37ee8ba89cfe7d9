//! The transcendental functions, NumPy's names: `exp`, `log`, `exp2`, `log2`,
//! `log10`, `expm1`, `log1p`, `tanh`, `sin` and `cos` (and `powf`, `pow` with a scalar exponent), each as an
//! allocating method, an `_into` writing a caller's array, and an `_assign` in
//! place, through views of any layout.
//!
//! The kernels (`ndsimd_kernels::math`) are within 1 ULP of the exact result on
//! every tier (measured: under 0.57; expm1, log1p and tanh under 0.66, and
//! exact near 0 where `exp(x) - 1` or `log(1 + x)` would lose every digit), but unlike the other elementwise kernels
//! they are not bit-identical across tiers: a tier with FMA fuses steps another
//! rounds twice, so a result may differ in the last bit between machines.
//! Each call costs about a nanosecond per element, far more than moving the
//! element, so the pool takes over at shorter lengths than for `add`
//! ([`MATH_PAR_MIN`]).

use super::arith::{binary_exec, unary_exec};
use super::operand::{check_out, Operand};
use crate::array::{Array, ArrayBase, Data, DataMut};
use crate::error::Result;
use crate::Element;
use ndsimd_kernels::{par, KernelElement, UnaryOp};

/// Elements per piece below which a transcendental op stays on one thread.
const MATH_PAR_MIN: usize = 1 << 12;

/// How many pieces the pool cuts `len` elements into.
pub(crate) fn pieces(len: usize) -> usize {
    if len < 2 * MATH_PAR_MIN {
        1
    } else {
        par::pieces(len, MATH_PAR_MIN)
    }
}

/// `out = f(a)` elementwise, `out` of `a`'s shape (checked by the caller).
fn map_into<T: Element>(
    op: &UnaryOp<T>,
    a: &ArrayBase<impl Data<Elem = T>>,
    out: &mut ArrayBase<impl DataMut<Elem = T>>,
) {
    if a.is_standard_layout() && out.is_standard_layout() {
        if let (Some(x), Some(o)) = (a.as_slice(), out.as_slice_mut()) {
            let map = op.map;
            let n = pieces(o.len());
            if n <= 1 {
                return map(x, o);
            }
            return par::for_each_piece_mut(o, n, 8, move |start, piece| {
                map(&x[start..start + piece.len()], piece)
            });
        }
    }
    unary_exec(op, &a.view(), out);
}

macro_rules! math_methods {
    ($( $name:ident, $into:ident, $assign:ident, $what:literal, $ex_in:literal, $ex_out:literal; )*) => {
        impl<T: Element, S: Data<Elem = T>> ArrayBase<S> {
            $(
            #[doc = concat!($what, " of every element, in a new array (NumPy's `np.", stringify!($name), "`).")]
            ///
            /// Within 1 ULP of the exact result; the last bit may differ between
            /// CPU tiers (see the module's doc in the guide, docs/design.md).
            ///
            /// ```
            /// use ndsimd::Array;
            #[doc = concat!("let a = Array::from_vec(vec![", $ex_in, "]);")]
            #[doc = concat!("assert_eq!(a.", stringify!($name), "().as_slice().unwrap(), &[", $ex_out, "]);")]
            /// ```
            pub fn $name(&self) -> Array<T> {
                let op = &<T as KernelElement>::table().$name;
                if let Some(x) = self.as_slice() {
                    let v = par::collect_map(op.map_uninit, x, pieces(x.len()), 8);
                    return Array::from_aligned(self.shape(), v);
                }
                let mut out = Array::zeros(self.shape());
                map_into(op, self, &mut out);
                out
            }

            #[doc = concat!($what, " of every element, into `out`, which must have this shape (any layout).")]
            ///
            /// Errors with [`Error::WrongOutputShape`](crate::Error::WrongOutputShape)
            /// otherwise, leaving `out` untouched.
            ///
            /// ```
            /// use ndsimd::Array;
            #[doc = concat!("let a = Array::from_vec(vec![", $ex_in, "]);")]
            /// let mut out = Array::<f64>::zeros(&[2]);
            #[doc = concat!("a.", stringify!($into), "(&mut out).unwrap();")]
            #[doc = concat!("assert_eq!(out.as_slice().unwrap(), &[", $ex_out, "]);")]
            #[doc = concat!("assert!(a.", stringify!($into), "(&mut Array::<f64>::zeros(&[3])).is_err());")]
            /// ```
            pub fn $into(&self, out: &mut ArrayBase<impl DataMut<Elem = T>>) -> Result<()> {
                check_out(self.shape(), out.shape())?;
                map_into(&<T as KernelElement>::table().$name, self, out);
                Ok(())
            }
            )*
        }

        impl<T: Element, S: DataMut<Elem = T>> ArrayBase<S> {
            $(
            #[doc = concat!($what, " of every element, in place.")]
            ///
            /// ```
            /// use ndsimd::Array;
            #[doc = concat!("let mut a = Array::from_vec(vec![", $ex_in, "]);")]
            #[doc = concat!("a.", stringify!($assign), "();")]
            #[doc = concat!("assert_eq!(a.as_slice().unwrap(), &[", $ex_out, "]);")]
            /// ```
            pub fn $assign(&mut self) {
                let op = &<T as KernelElement>::table().$name;
                if let Some(s) = self.as_slice_mut() {
                    let assign = op.assign;
                    let n = pieces(s.len());
                    if n <= 1 {
                        return assign(s);
                    }
                    return par::for_each_piece_mut(s, n, 8, move |_, piece| assign(piece));
                }
                let src = self.to_owned();
                map_into(op, &src, self);
            }
            )*
        }
    };
}

math_methods! {
    exp, exp_into, exp_assign,
        "`e^x` (+Inf past overflow, +0 or a subnormal past underflow, NaN for NaN)",
        "0.0, f64::NEG_INFINITY", "1.0, 0.0";
    log, log_into, log_assign,
        "The natural logarithm (`-Inf` for ±0, NaN below 0 and for NaN, `+Inf` for `+Inf`)",
        "1.0, 0.0", "0.0, f64::NEG_INFINITY";
    exp2, exp2_into, exp2_assign,
        "`2^x` (+Inf past overflow, +0 or a subnormal past underflow, NaN for NaN)",
        "3.0, -1.0", "8.0, 0.5";
    log2, log2_into, log2_assign,
        "The base-2 logarithm (`-Inf` for ±0, NaN below 0 and for NaN, `+Inf` for `+Inf`)",
        "1024.0, 0.0", "10.0, f64::NEG_INFINITY";
    log10, log10_into, log10_assign,
        "The base-10 logarithm (`-Inf` for ±0, NaN below 0 and for NaN, `+Inf` for `+Inf`)",
        "1000.0, 1.0", "3.0, 0.0";
    expm1, expm1_into, expm1_assign,
        "`e^x - 1`, accurate near 0 (`-1` for large negative `x`, +Inf past overflow, `-0` kept, NaN for NaN)",
        "1e-20, f64::NEG_INFINITY", "1e-20, -1.0";
    log1p, log1p_into, log1p_assign,
        "`ln(1 + x)`, accurate near 0 (`-Inf` at `-1`, NaN below it and for NaN, `-0` kept)",
        "1e-20, -1.0", "1e-20, f64::NEG_INFINITY";
    tanh, tanh_into, tanh_assign,
        "The hyperbolic tangent (`±1` past `|x|` of about 19, or 9 for `f32`; `-0` kept, NaN for NaN)",
        "0.0, f64::NEG_INFINITY", "0.0, -1.0";
}

math_methods! {
    sin, sin_into, sin_assign,
        "The sine, in radians (NaN for NaN and ±Inf, `sin(-0) = -0`; every finite input reduced exactly)",
        "0.0, std::f64::consts::FRAC_PI_2", "0.0, 1.0";
    cos, cos_into, cos_assign,
        "The cosine, in radians (NaN for NaN and ±Inf; every finite input reduced exactly)",
        "0.0, std::f64::consts::PI", "1.0, -1.0";
}

impl<T: Element, S: Data<Elem = T>> ArrayBase<S> {
    /// Every element raised to the scalar power `p`, in a new array (NumPy's
    /// `np.power(a, p)`): [`pow`](ArrayBase::pow) with a scalar, which always
    /// broadcasts, so no `Result`.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_vec(vec![2.0f64, -3.0, 9.0]);
    /// assert_eq!(a.powf(2.0).as_slice().unwrap(), &[4.0, 9.0, 81.0]);
    /// assert_eq!(a.powf(3.0).as_slice().unwrap()[1], -27.0); // odd: the sign kept
    /// assert!(a.powf(0.5).as_slice().unwrap()[1].is_nan()); // negative, non-integer
    /// ```
    pub fn powf(&self, p: T) -> Array<T> {
        let op = &<T as KernelElement>::table().pow;
        if let Some(x) = self.as_slice() {
            let mut out = Array::zeros(self.shape());
            if let Some(o) = out.as_slice_mut() {
                pow_scalar(op.vs, x, p, o);
                return out;
            }
        }
        let mut out = Array::zeros(self.shape());
        binary_exec(
            op,
            &Operand::Array(self.view()),
            &Operand::Scalar(p),
            &mut out,
        );
        out
    }

    /// Every element raised to the scalar power `p`, into `out`, which must have
    /// this shape (any layout); otherwise
    /// [`Error::WrongOutputShape`](crate::Error::WrongOutputShape), `out` untouched.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_vec(vec![4.0, 0.25]);
    /// let mut out = Array::<f64>::zeros(&[2]);
    /// a.powf_into(0.5, &mut out).unwrap();
    /// assert_eq!(out.as_slice().unwrap(), &[2.0, 0.5]);
    /// assert!(a.powf_into(0.5, &mut Array::<f64>::zeros(&[3])).is_err());
    /// ```
    pub fn powf_into(&self, p: T, out: &mut ArrayBase<impl DataMut<Elem = T>>) -> Result<()> {
        check_out(self.shape(), out.shape())?;
        let op = &<T as KernelElement>::table().pow;
        if let (Some(x), Some(o)) = (self.as_slice(), out.as_slice_mut()) {
            pow_scalar(op.vs, x, p, o);
            return Ok(());
        }
        binary_exec(op, &Operand::Array(self.view()), &Operand::Scalar(p), out);
        Ok(())
    }
}

impl<T: Element, S: DataMut<Elem = T>> ArrayBase<S> {
    /// Every element raised to the scalar power `p`, in place.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let mut a = Array::from_vec(vec![3.0, -0.0]);
    /// a.powf_assign(-1.0);
    /// assert_eq!(a.as_slice().unwrap(), &[1.0 / 3.0, f64::NEG_INFINITY]);
    /// ```
    pub fn powf_assign(&mut self, p: T) {
        let op = &<T as KernelElement>::table().pow;
        if let Some(s) = self.as_slice_mut() {
            let assign = op.assign_vs;
            let n = pieces(s.len());
            if n <= 1 {
                return assign(s, p);
            }
            return par::for_each_piece_mut(s, n, 8, move |_, piece| assign(piece, p));
        }
        let src = self.to_owned();
        binary_exec(op, &Operand::Array(src.view()), &Operand::Scalar(p), self);
    }
}

/// `out = x^p` for contiguous slices, on the pool above [`MATH_PAR_MIN`] per piece.
fn pow_scalar<T: Element>(vs: fn(&[T], T, &mut [T]), x: &[T], p: T, out: &mut [T]) {
    let n = pieces(out.len());
    if n <= 1 {
        return vs(x, p, out);
    }
    par::for_each_piece_mut(out, n, 8, move |start, piece| {
        vs(&x[start..start + piece.len()], p, piece)
    });
}
