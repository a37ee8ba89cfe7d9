//! [`Simd`](super::kernel::Simd) for an x86 vector type from its intrinsics: one
//! definition for the SSE2, AVX2 and AVX-512 tiers.

/// `$v` wraps `$raw`, `$n` lanes of `$t`; `mul_add` is `$fma` (fused) when given,
/// else a multiply then an add.
macro_rules! x86_simd {
    ($v:ident, $t:ty, $raw:ty, $n:literal, $zero:ident, $set1:ident, $load:ident, $store:ident,
     $add:ident, $mul:ident $(, fma = $fma:ident)?) => {
        #[derive(Clone, Copy)]
        pub(crate) struct $v($raw);

        impl $crate::gemm::kernel::Simd for $v {
            type T = $t;
            const N: usize = $n;
            #[inline(always)]
            unsafe fn zero() -> Self {
                // SAFETY: the caller runs where this ISA's features are present.
                $v(unsafe { $zero() })
            }
            #[inline(always)]
            unsafe fn splat(x: $t) -> Self {
                // SAFETY: as in `zero`.
                $v(unsafe { $set1(x) })
            }
            #[inline(always)]
            unsafe fn load(p: *const $t) -> Self {
                // SAFETY: as in `zero`; `p` is valid for `N` reads (unaligned is fine).
                $v(unsafe { $load(p) })
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $t) {
                // SAFETY: as in `zero`; `p` is valid for `N` writes.
                unsafe { $store(p, self.0) }
            }
            #[inline(always)]
            unsafe fn add(a: Self, b: Self) -> Self {
                // SAFETY: as in `zero`.
                $v(unsafe { $add(a.0, b.0) })
            }
            #[inline(always)]
            unsafe fn mul(a: Self, b: Self) -> Self {
                // SAFETY: as in `zero`.
                $v(unsafe { $mul(a.0, b.0) })
            }
            #[inline(always)]
            unsafe fn mul_add(a: Self, b: Self, c: Self) -> Self {
                x86_simd!(@mul_add a, b, c, $v, $add, $mul $(, $fma)?)
            }
        }
    };
    (@mul_add $a:ident, $b:ident, $c:ident, $v:ident, $add:ident, $mul:ident, $fma:ident) => {
        // SAFETY: as in `zero` (the tier has FMA).
        $v(unsafe { $fma($a.0, $b.0, $c.0) })
    };
    (@mul_add $a:ident, $b:ident, $c:ident, $v:ident, $add:ident, $mul:ident) => {
        // SAFETY: as in `zero`.
        $v(unsafe { $add($mul($a.0, $b.0), $c.0) })
    };
}
