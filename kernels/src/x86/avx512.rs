//! AVX-512 tier (512-bit vectors: 16 f32 or 8 f64 lanes), F + DQ + BW + VL.
//!
//! Its elementwise kernels, comparisons and `fma` are the oracles compiled with the
//! AVX-512 features. The float reductions, whose oracles LLVM vectorises poorly or
//! not at all (`sum`, `prod`, `dot`, `max`, `min`, `argmax`, `argmin`), are
//! [`crate::generic`]'s algorithms over the 512-bit vectors below, as at the AVX2
//! tier over 256-bit ones. The comparisons give `k` mask registers here instead of
//! vectors of all-ones lanes, which is what [`crate::generic::FloatVec::M`] is for.
//!
//! `count_byte` and `nth_byte` are the AVX2 tier's own functions (detection admits
//! this tier only with AVX2 present): over 64-byte vectors (compare into a mask, then
//! VPMOVM2B or a masked subtract) `count_byte` ran at 0.57-0.6x their speed over 1
//! MiB in L2 and 0.8x from memory (64 MiB), on the Intel AVX-512 VM of 2026-12-01
//! (`ndsimd bench --quick --filter count_byte` under `NDSIMD_TIER=avx2` and
//! `avx512`, twice each). On the Intel VM of stop 22 (family 6 model 167), against
//! the same run's 512-bit read ceiling over 1 MiB (`ndsimd bench --filter
//! count_byte_in`, two runs): AVX2 0.68-0.71, a masked add per vector (which LLVM
//! turns into VPMOVM2B and a subtract) 0.38-0.42, a mask popcount per vector
//! 0.30-0.37, and an xor, a minimum with 1 and an add (no masks) 0.37-0.41: every
//! 512-bit byte operation ran at about 62 GB/s on one core there, where the AVX2
//! loop runs at 110. `first_nonzero_word` is this tier's own (below): it only loads,
//! ors and tests, and over 64-byte vectors it reached 0.93-0.97 of that ceiling at
//! 1 MiB, against 0.77-0.79 for AVX2's (64 MiB: 1.44 against 1.31 on one thread,
//! 1.69-1.79 against 1.50 on two).
//!
//! Since the reductions keep the canonical lane order of [`crate::scalar`] (lane `j`
//! in accumulator `j / N`), their results are bit-identical to the other tiers'.

use crate::generic::VecOf;
use core::arch::x86_64::*;

autovec_binary!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"; add, sub, mul, div, maximum, minimum);
autovec_unary!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"; neg, abs, sqrt);
autovec_cmp!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"; eq, ne, lt, le, gt, ge);
autovec_fma!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma");
handwritten_floats!("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma", Avx512, dot_fused: FmaVec);
pub use super::avx2::{count_byte, nth_byte};

/// `scalar::first_nonzero_word` over 64-byte vectors: or four, test the block, and
/// look inside only the block that is not zero.
pub fn first_nonzero_word(words: &[u64]) -> Option<usize> {
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
tier_tables!(crate::Tier::Avx512);
byte_table!(crate::Tier::Avx512);

/// The marker naming this ISA in [`VecOf`].
pub struct Avx512;

impl VecOf<Avx512> for f64 {
    type V = F64x8;
}
impl VecOf<Avx512> for f32 {
    type V = F32x16;
}

/// Eight `f64` lanes.
#[derive(Clone, Copy)]
pub struct F64x8(__m512d);
/// Sixteen `f32` lanes.
#[derive(Clone, Copy)]
pub struct F32x16(__m512);

x86_float!(
    F64x8,
    f64,
    __m512d,
    8,
    _mm512_loadu_pd,
    _mm512_storeu_pd,
    _mm512_set1_pd,
    _mm512_add_pd,
    _mm512_mul_pd,
    _mm512_max_pd,
    _mm512_min_pd,
    kmask __mmask8 = _mm512_cmp_pd_mask,
    _mm512_or_pd,
    _mm512_and_pd,
    signs = _mm512_movepi64_mask(_mm512_castpd_si512),
    fma = _mm512_fmadd_pd
);
x86_float!(
    F32x16,
    f32,
    __m512,
    16,
    _mm512_loadu_ps,
    _mm512_storeu_ps,
    _mm512_set1_ps,
    _mm512_add_ps,
    _mm512_mul_ps,
    _mm512_max_ps,
    _mm512_min_ps,
    kmask __mmask16 = _mm512_cmp_ps_mask,
    _mm512_or_ps,
    _mm512_and_ps,
    signs = _mm512_movepi32_mask(_mm512_castps_si512),
    fma = _mm512_fmadd_ps
);
