//! x86_64 tiers. SSE2 is the x86_64 baseline; AVX2 comes with FMA; AVX-512 means
//! F, DQ, BW and VL together (the set every AVX-512 CPU since Skylake-SP has).
//!
//! Each tier's tables are handed out by [`crate::KernelElement::table_for`] and
//! [`crate::byte_table_for`] only when [`crate::detected_tier`] reaches that tier.

#[macro_use]
mod float_vec {
    /// `FloatVec` (and, given an `fma` intrinsic, `FmaVec`) for one x86 float vector
    /// type, from its intrinsics: one definition for the SSE2, AVX2 and AVX-512 tiers.
    ///
    /// SSE2 and AVX2 comparisons give vectors of all-ones lanes: `$unord` and `$eq`
    /// are the quiet comparisons (false with a NaN, except unordered), `$movemask`
    /// takes the lanes' top bits. AVX-512 comparisons give a `k` mask (`kmask $m =
    /// $cmp`, the predicate a const parameter) and `signs = $signs($cast)` takes the
    /// top bits of the lanes as integers (VPMOVQ2M, VPMOVD2M).
    macro_rules! x86_float {
        ($v:ident, $t:ty, $raw:ty, $n:literal,
         $load:ident, $store:ident, $set1:ident, $add:ident, $mul:ident, $max:ident, $min:ident, $unord:ident,
         $eq:ident,
         $or:ident, $and:ident, $movemask:ident $(, fma = $fmadd:ident)?) => {
            x86_float!(@impl $v, $t, $raw, $n, $load, $store, $set1, $add, $mul, $max, $min,
                $and, $or,
                mask $raw,
                unord |a, b| $unord(a.0, b.0),
                eq |a, b| $eq(a.0, b.0),
                or |a, b| $or(a, b),
                any |m| $movemask(m) != 0,
                signs |a| $movemask(a.0) as u32
                $(, fma = $fmadd)?);
        };
        ($v:ident, $t:ty, $raw:ty, $n:literal,
         $load:ident, $store:ident, $set1:ident, $add:ident, $mul:ident, $max:ident, $min:ident,
         kmask $m:ty = $cmp:ident, $or:ident, $and:ident, signs = $signs:ident($cast:ident),
         fma = $fmadd:ident) => {
            x86_float!(@impl $v, $t, $raw, $n, $load, $store, $set1, $add, $mul, $max, $min,
                $and, $or,
                mask $m,
                unord |a, b| $cmp::<_CMP_UNORD_Q>(a.0, b.0),
                eq |a, b| $cmp::<_CMP_EQ_OQ>(a.0, b.0),
                or |a, b| a | b,
                any |m| m != 0,
                signs |a| $signs($cast(a.0)) as u32,
                fma = $fmadd);
        };
        (@impl $v:ident, $t:ty, $raw:ty, $n:literal,
         $load:ident, $store:ident, $set1:ident, $add:ident, $mul:ident, $max:ident, $min:ident,
         $and:ident, $or:ident,
         mask $m:ty,
         unord |$ua:ident, $ub:ident| $unord:expr,
         eq |$ea:ident, $eb:ident| $eq:expr,
         or |$oa:ident, $ob:ident| $mor:expr,
         any |$am:ident| $any:expr,
         signs |$sa:ident| $signs:expr
         $(, fma = $fmadd:ident)?) => {
            impl crate::generic::FloatVec for $v {
                type T = $t;
                type M = $m;
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
                    // MAXPD and its wider forms return the second operand when either
                    // is NaN.
                    $v($max(a.0, b.0))
                }
                #[inline(always)]
                unsafe fn min(a: Self, b: Self) -> Self {
                    $v($min(a.0, b.0))
                }
                #[inline(always)]
                unsafe fn unord($ua: Self, $ub: Self) -> $m {
                    $unord
                }
                #[inline(always)]
                unsafe fn eq($ea: Self, $eb: Self) -> $m {
                    $eq
                }
                #[inline(always)]
                unsafe fn or($oa: $m, $ob: $m) -> $m {
                    $mor
                }
                #[inline(always)]
                unsafe fn any($am: $m) -> bool {
                    $any
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
                unsafe fn signs($sa: Self) -> u32 {
                    $signs
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
