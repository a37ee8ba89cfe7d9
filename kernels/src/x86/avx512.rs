//! AVX-512 tier (512-bit vectors: 16 f32 or 8 f64 lanes), F + DQ + BW + VL.
//!
//! Its elementwise kernels, comparisons and `fma` are the oracles compiled with the
//! AVX-512 features, except division and square root, which are the AVX2 tier's
//! (below). The float reductions, whose oracles LLVM vectorises poorly or
//! not at all (`sum`, `prod`, `dot`, `max`, `min`, `argmax`, `argmin`), are
//! [`crate::generic`]'s algorithms over [`crate::vector::avx512`]'s 512-bit vectors,
//! as at the AVX2 tier over 256-bit ones; on Zen 4, `sum` and `dot` past L2 are
//! AVX2's (`streams_past_l2`).
//!
//! `nth_byte` is the AVX2 tier's own function (detection admits this tier only with
//! AVX2 present). `count_byte` is this tier's own for hays up to L2's size and
//! AVX2's beyond (from memory the 512-bit loop trails). Its 64-byte step is a
//! compare into a mask and a subtract of -1 under that mask, a form LLVM keeps only
//! when it cannot see the -1 (`ByteVector::tally`). `first_nonzero_word` is this
//! tier's own (below): it only loads, ors and tests. Measured:
//! docs/design.md#kernels-and-dispatch.
//!
//! Since the reductions keep the canonical lane order of [`crate::scalar`] (lane `j`
//! in accumulator `j / N`), their results are bit-identical to the other tiers'.

use crate::vector::avx512::{Avx512, Bytes};
use core::arch::x86_64::*;

autovec_binary!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"; maximum, minimum);

/// `add`, `sub` and `mul` over 512-bit vectors, for `by_length!`.
mod wide {
    autovec_binary!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"; add, sub, mul);
}

/// Whether `streams` runs of `n` elements of `T` (what one call reads and writes)
/// take more than L1.
#[inline]
fn past_l1<T>(n: usize, streams: usize) -> bool {
    streams
        .saturating_mul(n)
        .saturating_mul(core::mem::size_of::<T>())
        > crate::cache_info().l1d
}

/// Binary kernels that take `wide`'s 512-bit loops while a call's operands fit in
/// L1 and the AVX2 tier's 256-bit loops past it, where the 512-bit loop is slower
/// (docs/design.md#kernels-and-dispatch).
macro_rules! by_length {
    ($($op:ident),+) => {$(
        #[doc = concat!("`", stringify!($op), "` kernels of this tier: 512-bit in L1, AVX2's past it.")]
        pub mod $op {
            use super::past_l1;
            use super::wide::$op as wide;
            use crate::scalar::Arith;
            use crate::x86::avx2::$op as narrow;
            use core::mem::MaybeUninit;
            by_length!(@pick vv(a: &[T], b: &[T], out: &mut [T]), out.len(), 3);
            by_length!(@pick vs(a: &[T], s: T, out: &mut [T]), out.len(), 2);
            by_length!(@pick sv(s: T, b: &[T], out: &mut [T]), out.len(), 2);
            by_length!(@pick vv_uninit(a: &[T], b: &[T], out: &mut [MaybeUninit<T>]), out.len(), 3);
            by_length!(@pick vs_uninit(a: &[T], s: T, out: &mut [MaybeUninit<T>]), out.len(), 2);
            by_length!(@pick sv_uninit(s: T, b: &[T], out: &mut [MaybeUninit<T>]), out.len(), 2);
            by_length!(@pick assign_vv(acc: &mut [T], b: &[T]), acc.len(), 3);
            by_length!(@pick assign_vv4(acc: &mut [T], b: [&[T]; 4]), acc.len(), 6);
            by_length!(@pick assign_vs(acc: &mut [T], s: T), acc.len(), 2);
        }
    )+};
    (@pick $name:ident($($arg:ident: $ty:ty),*), $len:expr, $streams:expr) => {
        #[doc = concat!("`", stringify!($name), "`: `wide`'s in L1, else `narrow`'s.")]
        pub fn $name<T: Arith>($($arg: $ty),*) {
            if past_l1::<T>($len, $streams) {
                narrow::$name($($arg),*)
            } else {
                wide::$name($($arg),*)
            }
        }
    };
}
by_length!(add, sub, mul);
autovec_unary!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"; neg, abs);
// Division and square root over 256-bit vectors, the AVX2 tier's: the divide unit
// takes a 512-bit instruction for more than two 256-bit ones
// (docs/design.md#kernels-and-dispatch). The same bits (both correctly rounded).
pub use super::avx2::{div, sqrt};
autovec_cmp!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"; eq, ne, lt, le, gt, ge);
autovec_fma!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma");
handwritten_floats!(
    "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma",
    Avx512,
    dot,
    streamed: super::avx2, when: streams_past_l2
);

/// Whether `sum` and `dot` of operands of `bytes` take the AVX2 tier's kernels (the
/// same bits): past L2 on a CPU that splits 512-bit operations. On Zen 4 the 512-bit
/// reductions read L3 and memory 15-60% slower than AVX2's (equal up to L2); plain
/// 512-bit loops in C stream as fast as 256-bit ones, so it is the order in which
/// LLVM schedules our block's loads (docs/design.md#kernels-and-dispatch).
#[inline]
fn streams_past_l2(bytes: usize) -> bool {
    bytes > crate::cache_info().l2 && crate::dispatch::splits_512()
}
pub use super::avx2::nth_byte;

/// `scalar::count_byte` over 64-byte vectors (`generic::count_byte` over [`Bytes`]):
/// a compare into a mask and a subtract of -1 under it, two instructions per 64
/// bytes where AVX2 takes two per 32; a hay longer than L2, which comes from
/// memory, gets AVX2's loop (see the module doc).
pub fn count_byte(hay: &[u8], needle: u8) -> usize {
    if hay.len() > crate::cache_info().l2 {
        return super::avx2::count_byte(hay, needle);
    }
    #[target_feature(enable = "avx512f,avx512bw,avx2")]
    fn with_feature(hay: &[u8], needle: u8) -> usize {
        // SAFETY: the features `Bytes` needs are enabled here.
        unsafe { crate::generic::count_byte::<Bytes>(hay, needle) }
    }
    // SAFETY: reachable only through this tier's table, handed out when the CPU has
    // AVX-512 F and BW (and AVX2), the features `with_feature` enables.
    unsafe { with_feature(hay, needle) }
}

/// `scalar::first_nonzero_word` over 64-byte vectors: or four, test the block, and
/// look inside only the block that is not zero.
pub fn first_nonzero_word(words: &[u64]) -> Option<usize> {
    /// # Safety
    /// The CPU has AVX-512 F and BW (the features enabled here). Any length of
    /// `words` is fine.
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn with_feature(words: &[u64]) -> Option<usize> {
        const B: usize = 4;
        let (n, p) = (words.len(), words.as_ptr());
        // Words up to the first vector boundary one at a time.
        let head = p.align_offset(64).min(n);
        if let Some(j) = crate::scalar::first_nonzero_word(&words[..head]) {
            return Some(j);
        }
        let mut i = head;
        while i + 8 * B <= n {
            // SAFETY: `i + 8 * B <= n`: the four 8-word loads are inside `words`.
            let x = unsafe {
                let l = |k: usize| _mm512_loadu_si512(p.add(i + 8 * k).cast());
                _mm512_or_si512(_mm512_or_si512(l(0), l(1)), _mm512_or_si512(l(2), l(3)))
            };
            if _mm512_test_epi64_mask(x, x) != 0 {
                break;
            }
            i += 8 * B;
        }
        crate::scalar::first_nonzero_word(&words[i..]).map(|j| i + j)
    }
    // SAFETY: as for `count_byte`.
    unsafe { with_feature(words) }
}
math_kernels!(
    "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma",
    crate::vector::avx512::Avx512
);
tier_tables!(crate::Tier::Avx512);
int_kernels!(
    "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma",
    crate::Tier::Avx512
);
byte_table!(crate::Tier::Avx512);
tier_kernels!(avx512);
