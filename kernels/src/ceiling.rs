//! Memory-traffic ceilings for the benchmarks: loops that move exactly the bytes a
//! kernel moves (one read, two reads and a write, a read and a write) with no
//! arithmetic worth the name (bitwise xor, one cycle, no latency chain the
//! compiler cannot split), compiled per tier like the kernels. A kernel within a
//! few percent of its ceiling is bound by the caches or memory, not by its code.
//!
//! Not for computing: the results are meaningless bit patterns.

use crate::Tier;
use std::sync::OnceLock;

/// The ceiling loops of one tier.
pub struct Ceilings {
    /// The tier these loops were compiled for.
    pub tier: Tier,
    /// Reads every element once (a reduction's traffic); returns a fold of the bits.
    pub read_f64: fn(a: &[f64]) -> u64,
    /// [`read_f64`](Self::read_f64) for `f32`.
    pub read_f32: fn(a: &[f32]) -> u32,
    /// Reads two inputs and writes one output (a binary op's traffic).
    pub read2_write1_f64: fn(a: &[f64], b: &[f64], out: &mut [f64]),
    /// [`read2_write1_f64`](Self::read2_write1_f64) for `f32`.
    pub read2_write1_f32: fn(a: &[f32], b: &[f32], out: &mut [f32]),
    /// Reads one input and writes one output (a unary op's traffic).
    pub read1_write1_f64: fn(a: &[f64], out: &mut [f64]),
    /// [`read1_write1_f64`](Self::read1_write1_f64) for `f32`.
    pub read1_write1_f32: fn(a: &[f32], out: &mut [f32]),
}

macro_rules! ceiling_fns {
    ($($name:ident, $t:ty, $u:ty);*) => {$(
        pub(crate) mod $name {
            #[inline(always)]
            pub fn read(a: &[$t]) -> $u {
                // One fold: LLVM splits an integer xor reduction over several vector
                // accumulators itself (four zmm, 256 bytes a trip, at the AVX-512
                // tier; checked in the disassembly). Sixteen explicit folds over
                // 16-element chunks compiled at that tier to `vpgatherdq`s (the
                // outer loop vectorised across chunks) and ran 7-10x slower than a
                // read on Zen 4, which made every f64 ratio against this ceiling
                // at that tier flattering.
                a.iter().fold(0, |s, x| s ^ x.to_bits())
            }
            #[inline(always)]
            pub fn read2_write1(a: &[$t], b: &[$t], out: &mut [$t]) {
                assert!(a.len() == out.len() && b.len() == out.len(), "kernel length mismatch");
                for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
                    *o = <$t>::from_bits(x.to_bits() ^ y.to_bits());
                }
            }
            #[inline(always)]
            pub fn read1_write1(a: &[$t], out: &mut [$t]) {
                assert!(a.len() == out.len(), "kernel length mismatch");
                for (o, x) in out.iter_mut().zip(a) {
                    *o = <$t>::from_bits(x.to_bits() ^ 1);
                }
            }
        }
    )*};
}
ceiling_fns!(f64s, f64, u64; f32s, f32, u32);

/// One safe ceiling loop of a tier: the generic loop compiled with `$feature`.
macro_rules! ceiling_fn {
    ($feature:literal, $f:ident = $m:ident :: $g:ident ($($arg:ident: $ty:ty),*) $(-> $r:ty)?) => {
        pub fn $f($($arg: $ty),*) $(-> $r)? {
            #[target_feature(enable = $feature)]
            fn inner($($arg: $ty),*) $(-> $r)? {
                super::$m::$g($($arg),*)
            }
            // SAFETY: this tier's table is handed out by `ceilings_for` only when the
            // CPU has the tier, so every feature `inner` enables is present.
            unsafe { inner($($arg),*) }
        }
    };
}

/// The ceilings of one tier, each loop compiled with `$feature`.
macro_rules! ceiling_tier {
    ($name:ident, $tier:expr, $feature:literal) => {
        pub(crate) mod $name {
            ceiling_fn!($feature, read_f64 = f64s::read(a: &[f64]) -> u64);
            ceiling_fn!($feature, read_f32 = f32s::read(a: &[f32]) -> u32);
            ceiling_fn!($feature, read2_write1_f64 = f64s::read2_write1(a: &[f64], b: &[f64], out: &mut [f64]));
            ceiling_fn!($feature, read2_write1_f32 = f32s::read2_write1(a: &[f32], b: &[f32], out: &mut [f32]));
            ceiling_fn!($feature, read1_write1_f64 = f64s::read1_write1(a: &[f64], out: &mut [f64]));
            ceiling_fn!($feature, read1_write1_f32 = f32s::read1_write1(a: &[f32], out: &mut [f32]));
            pub static TABLE: super::Ceilings = super::Ceilings {
                tier: $tier,
                read_f64,
                read_f32,
                read2_write1_f64,
                read2_write1_f32,
                read1_write1_f64,
                read1_write1_f32,
            };
        }
    };
}

/// The scalar tier's ceilings: the loops as they are.
pub(crate) mod scalar {
    use super::{f32s, f64s, Ceilings, Tier};
    pub static TABLE: Ceilings = Ceilings {
        tier: Tier::Scalar,
        read_f64: f64s::read,
        read_f32: f32s::read,
        read2_write1_f64: f64s::read2_write1,
        read2_write1_f32: f32s::read2_write1,
        read1_write1_f64: f64s::read1_write1,
        read1_write1_f32: f32s::read1_write1,
    };
}

#[cfg(target_arch = "x86_64")]
ceiling_tier!(sse2, crate::Tier::Sse2, "sse2");
#[cfg(target_arch = "x86_64")]
ceiling_tier!(avx2, crate::Tier::Avx2, "avx2,fma");
#[cfg(target_arch = "x86_64")]
ceiling_tier!(
    avx512,
    crate::Tier::Avx512,
    "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"
);
#[cfg(target_arch = "aarch64")]
ceiling_tier!(neon, crate::Tier::Neon, "neon");

/// The ceilings of a tier, or `None` when this architecture or CPU lacks it.
pub fn ceilings_for(tier: Tier) -> Option<&'static Ceilings> {
    if !crate::available_tiers().contains(&tier) && tier != Tier::Scalar {
        // Only tiers the CPU has (and the cap allows) are handed out.
        return None;
    }
    crate::dispatch::kernels_for(tier).map(|k| k.ceilings)
}

/// The ceilings of the active tier.
///
/// ```
/// let c = ndsimd_kernels::ceiling::ceilings();
/// let a = vec![1.0f64; 100];
/// let _ = (c.read_f64)(&a);
/// ```
pub fn ceilings() -> &'static Ceilings {
    static C: OnceLock<&'static Ceilings> = OnceLock::new();
    C.get_or_init(|| ceilings_for(crate::active_tier()).unwrap_or(&scalar::TABLE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tier_moves_the_same_bits() {
        let a: Vec<f64> = (0..1001).map(|i| i as f64 * 0.5).collect();
        let b: Vec<f64> = (0..1001).map(|i| -(i as f64)).collect();
        let want = scalar::TABLE.read_f64;
        for t in crate::available_tiers() {
            let c = ceilings_for(t).unwrap();
            assert_eq!(c.tier, t);
            assert_eq!((c.read_f64)(&a), want(&a));
            let (mut o1, mut o2) = (vec![0.0; 1001], vec![0.0; 1001]);
            (c.read2_write1_f64)(&a, &b, &mut o1);
            (scalar::TABLE.read2_write1_f64)(&a, &b, &mut o2);
            assert!(o1.iter().zip(&o2).all(|(x, y)| x.to_bits() == y.to_bits()));
        }
    }
}
