//! Integer oracles (`i32`, `i64`, `u8`): NumPy's wrapping `add`, `sub`, `mul`, the
//! comparisons, and `sum` accumulated in 64 bits.
//!
//! Integer arithmetic is associative, so unlike the float reductions there is no
//! canonical order to keep: any grouping gives the same bits, and the tiers are
//! these loops compiled with their target features (LLVM vectorises all of them).
//!
//! ```
//! use ndsimd_kernels::scalar::int;
//! let mut out = [0i32; 2];
//! int::add::vv(&[i32::MAX, 1], &[1, 2], &mut out);
//! assert_eq!(out, [i32::MIN, 3]); // wraps, as NumPy
//! assert_eq!(int::sum(&[i32::MAX, i32::MAX]), 2 * i32::MAX as i64); // no wrap in 64 bits
//! ```

use core::fmt::Debug;

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for u8 {}
}

/// The arithmetic the integer oracles need; implemented for `i32`, `i64` and `u8`.
pub trait IntArith: Copy + Debug + Ord + Send + Sync + 'static + sealed::Sealed {
    /// `0`
    const ZERO: Self;
    /// Two's complement `self + b` (NumPy's overflow rule).
    fn wadd(self, b: Self) -> Self;
    /// Two's complement `self - b`.
    fn wsub(self, b: Self) -> Self;
    /// Two's complement `self * b`.
    fn wmul(self, b: Self) -> Self;
    /// The value as an `i64` (exact for every implementing type).
    fn widen(self) -> i64;
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        impl IntArith for $t {
            const ZERO: $t = 0;
            #[inline(always)]
            fn wadd(self, b: $t) -> $t {
                self.wrapping_add(b)
            }
            #[inline(always)]
            fn wsub(self, b: $t) -> $t {
                self.wrapping_sub(b)
            }
            #[inline(always)]
            fn wmul(self, b: $t) -> $t {
                self.wrapping_mul(b)
            }
            #[inline(always)]
            fn widen(self) -> i64 {
                self as i64
            }
        }
    )*};
}
int_arith!(i32, i64, u8);

binary_oracle!(@ int::IntArith;
    /// `x + y`, wrapping
    add, |x, y| x.wadd(y)
);
binary_oracle!(@ int::IntArith;
    /// `x - y`, wrapping
    sub, |x, y| x.wsub(y)
);
binary_oracle!(@ int::IntArith;
    /// `x * y`, wrapping
    mul, |x, y| x.wmul(y)
);

cmp_oracle!(@ int::IntArith;
    /// `==`
    eq, ==
);
cmp_oracle!(@ int::IntArith;
    /// `!=`
    ne, !=
);
cmp_oracle!(@ int::IntArith;
    /// `<`
    lt, <
);
cmp_oracle!(@ int::IntArith;
    /// `<=`
    le, <=
);
cmp_oracle!(@ int::IntArith;
    /// `>`
    gt, >
);
cmp_oracle!(@ int::IntArith;
    /// `>=`
    ge, >=
);

/// The sum of `a` in 64 bits, wrapping on `i64` overflow (NumPy's `sum` of an
/// integer array: `int64` accumulation on Linux).
#[inline(always)]
pub fn sum<T: IntArith>(a: &[T]) -> i64 {
    a.iter().fold(0i64, |s, &x| s.wrapping_add(x.widen()))
}
