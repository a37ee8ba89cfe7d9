//! Portable oracles: the reference every SIMD kernel is tested against, and the
//! documentation of what each kernel computes.

macro_rules! binary_oracle {
    ($name:ident, $op:tt) => {
        /// Scalar oracle for one binary operation, in each operand shape.
        pub mod $name {
            use core::ops::*;
            /// `out[i] = a[i] op b[i]`
            #[inline(always)]
            pub fn vv<T: Copy + $crate::scalar::Arith>(a: &[T], b: &[T], out: &mut [T]) {
                assert!(a.len() == out.len() && b.len() == out.len(), "kernel length mismatch");
                for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                    *o = x $op y;
                }
            }
            /// `out[i] = a[i] op s`
            #[inline(always)]
            pub fn vs<T: Copy + $crate::scalar::Arith>(a: &[T], s: T, out: &mut [T]) {
                assert!(a.len() == out.len(), "kernel length mismatch");
                for (o, &x) in out.iter_mut().zip(a) {
                    *o = x $op s;
                }
            }
            /// `out[i] = s op b[i]`
            #[inline(always)]
            pub fn sv<T: Copy + $crate::scalar::Arith>(s: T, b: &[T], out: &mut [T]) {
                assert!(b.len() == out.len(), "kernel length mismatch");
                for (o, &y) in out.iter_mut().zip(b) {
                    *o = s $op y;
                }
            }
            /// `acc[i] = acc[i] op b[i]`
            #[inline(always)]
            pub fn assign_vv<T: Copy + $crate::scalar::Arith>(acc: &mut [T], b: &[T]) {
                assert!(b.len() == acc.len(), "kernel length mismatch");
                for (o, &y) in acc.iter_mut().zip(b) {
                    *o = *o $op y;
                }
            }
            /// `acc[i] = acc[i] op s`
            #[inline(always)]
            pub fn assign_vs<T: Copy + $crate::scalar::Arith>(acc: &mut [T], s: T) {
                for o in acc.iter_mut() {
                    *o = *o $op s;
                }
            }
            #[allow(unused_imports)]
            use Add as _;
        }
    };
}

/// The arithmetic the oracles need; implemented for `f32` and `f64`.
pub trait Arith:
    Copy
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
    + core::ops::Neg<Output = Self>
{
    /// Absolute value by clearing the sign bit (so `abs(-NaN)` is `+NaN`, as NumPy).
    fn abs_bits(self) -> Self;
}

impl Arith for f32 {
    #[inline(always)]
    fn abs_bits(self) -> Self {
        f32::from_bits(self.to_bits() & 0x7fff_ffff)
    }
}

impl Arith for f64 {
    #[inline(always)]
    fn abs_bits(self) -> Self {
        f64::from_bits(self.to_bits() & 0x7fff_ffff_ffff_ffff)
    }
}

binary_oracle!(add, +);
binary_oracle!(sub, -);
binary_oracle!(mul, *);
binary_oracle!(div, /);

/// Negation (flips the sign bit, NaN included).
pub mod neg {
    /// `out[i] = -a[i]`
    #[inline(always)]
    pub fn map<T: super::Arith>(a: &[T], out: &mut [T]) {
        assert!(a.len() == out.len(), "kernel length mismatch");
        for (o, &x) in out.iter_mut().zip(a) {
            *o = -x;
        }
    }
    /// `acc[i] = -acc[i]`
    #[inline(always)]
    pub fn assign<T: super::Arith>(acc: &mut [T]) {
        for o in acc.iter_mut() {
            *o = -*o;
        }
    }
}

/// Absolute value (clears the sign bit, NaN included).
pub mod abs {
    /// `out[i] = |a[i]|`
    #[inline(always)]
    pub fn map<T: super::Arith>(a: &[T], out: &mut [T]) {
        assert!(a.len() == out.len(), "kernel length mismatch");
        for (o, &x) in out.iter_mut().zip(a) {
            *o = x.abs_bits();
        }
    }
    /// `acc[i] = |acc[i]|`
    #[inline(always)]
    pub fn assign<T: super::Arith>(acc: &mut [T]) {
        for o in acc.iter_mut() {
            *o = o.abs_bits();
        }
    }
}

// The scalar tier's tables point straight at the oracles: on every architecture this
// tier is the reference the others are compared with.
tier_tables!(crate::Tier::Scalar);
