//! x86_64 tiers. SSE2 is the x86_64 baseline; AVX2 comes with FMA; AVX-512 means
//! F, DQ, BW and VL together (the set every AVX-512 CPU since Skylake-SP has).
//!
//! Each tier's tables are handed out by [`crate::KernelElement::table_for`] and
//! [`crate::byte_table_for`] only when [`crate::detected_tier`] reaches that tier.

#[macro_use]
mod float_vec {
    /// `FloatVec` (and, given an `fma` intrinsic, `FmaVec`) for one x86 float vector
    /// type, from its intrinsics: one definition for the SSE2 and AVX2 tiers. `$unord`
    /// and `$eq` are the quiet comparisons (false with a NaN, except unordered).
    macro_rules! x86_float {
        ($v:ident, $t:ty, $raw:ty, $n:literal,
         $load:ident, $store:ident, $set1:ident, $add:ident, $mul:ident, $max:ident, $min:ident, $unord:ident,
         $eq:ident,
         $or:ident, $and:ident, $movemask:ident $(, fma = $fmadd:ident)?) => {
            impl crate::generic::FloatVec for $v {
                type T = $t;
                type M = $raw;
                const N: usize = $n;
                #[inline(always)]
                unsafe fn load(p: *const $t) -> Self {
                    $v($load(p))
                }
                #[inline(always)]
                unsafe fn store(self, p: *mut $t) {
                    $store(p, self.0)
                }
                #[inline(always)]
                unsafe fn splat(x: $t) -> Self {
                    $v($set1(x))
                }
                #[inline(always)]
                unsafe fn add(a: Self, b: Self) -> Self {
                    $v($add(a.0, b.0))
                }
                #[inline(always)]
                unsafe fn mul(a: Self, b: Self) -> Self {
                    $v($mul(a.0, b.0))
                }
                #[inline(always)]
                unsafe fn max(a: Self, b: Self) -> Self {
                    $v($max(a.0, b.0))
                }
                #[inline(always)]
                unsafe fn min(a: Self, b: Self) -> Self {
                    $v($min(a.0, b.0))
                }
                #[inline(always)]
                unsafe fn unord(a: Self, b: Self) -> $raw {
                    $unord(a.0, b.0)
                }
                #[inline(always)]
                unsafe fn eq(a: Self, b: Self) -> $raw {
                    $eq(a.0, b.0)
                }
                #[inline(always)]
                unsafe fn or(a: $raw, b: $raw) -> $raw {
                    $or(a, b)
                }
                #[inline(always)]
                unsafe fn any(m: $raw) -> bool {
                    $movemask(m) != 0
                }
                #[inline(always)]
                unsafe fn and_bits(a: Self, b: Self) -> Self {
                    $v($and(a.0, b.0))
                }
                #[inline(always)]
                unsafe fn or_bits(a: Self, b: Self) -> Self {
                    $v($or(a.0, b.0))
                }
                #[inline(always)]
                unsafe fn signs(a: Self) -> u32 {
                    $movemask(a.0) as u32
                }
            }
            $(
                impl crate::generic::FmaVec for $v {
                    #[inline(always)]
                    unsafe fn mul_add(a: Self, b: Self, c: Self) -> Self {
                        $v($fmadd(a.0, b.0, c.0))
                    }
                }
            )?
        };
    }
}

pub mod avx2;
pub mod avx512;
pub mod sse2;
