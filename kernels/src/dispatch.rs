//! CPU tier detection (once), the `NDSIMD_TIER` cap, and the kernel tables.

use crate::{scalar, BinaryOp, KernelElement, Table, UnaryOp};
use std::fmt;
use std::sync::OnceLock;

/// An instruction-set tier. Ordered within an architecture: a higher tier can run
/// every kernel of a lower one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// Portable Rust, no explicit SIMD.
    Scalar,
    /// x86_64 SSE2 (the x86_64 baseline).
    Sse2,
    /// x86_64 AVX2 with FMA.
    Avx2,
    /// x86_64 AVX-512 F, DQ, BW and VL.
    Avx512,
    /// aarch64 Advanced SIMD.
    Neon,
}

impl Tier {
    /// The name used by `NDSIMD_TIER` and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Scalar => "scalar",
            Tier::Sse2 => "sse2",
            Tier::Avx2 => "avx2",
            Tier::Avx512 => "avx512",
            Tier::Neon => "neon",
        }
    }

    /// Parses a tier name as `NDSIMD_TIER` spells it.
    pub fn parse(s: &str) -> Option<Tier> {
        match s.trim().to_ascii_lowercase().as_str() {
            "scalar" => Some(Tier::Scalar),
            "sse2" => Some(Tier::Sse2),
            "avx2" => Some(Tier::Avx2),
            "avx512" => Some(Tier::Avx512),
            "neon" => Some(Tier::Neon),
            _ => None,
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The best tier this CPU supports (detected once).
pub fn detected_tier() -> Tier {
    static DETECTED: OnceLock<Tier> = OnceLock::new();
    *DETECTED.get_or_init(detect)
}

fn detect() -> Tier {
    Tier::Scalar
}

/// The tier in use: the detected tier, capped by `NDSIMD_TIER` (read once).
pub fn active_tier() -> Tier {
    static ACTIVE: OnceLock<Tier> = OnceLock::new();
    *ACTIVE.get_or_init(|| {
        let detected = detected_tier();
        match std::env::var("NDSIMD_TIER") {
            Ok(v) => match Tier::parse(&v) {
                Some(t) if t <= detected => t,
                _ => detected,
            },
            Err(_) => detected,
        }
    })
}

/// Cache sizes in bytes, as detected (with documented defaults when unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheInfo {
    pub l1d: usize,
    pub l2: usize,
    pub l3: usize,
}

/// The data cache sizes of this machine (detected once).
pub fn cache_info() -> CacheInfo {
    CacheInfo {
        l1d: 32 << 10,
        l2: 1 << 20,
        l3: 32 << 20,
    }
}

macro_rules! binary {
    ($m:ident) => {
        BinaryOp {
            vv: scalar::$m::vv,
            vs: scalar::$m::vs,
            sv: scalar::$m::sv,
            assign_vv: scalar::$m::assign_vv,
            assign_vs: scalar::$m::assign_vs,
        }
    };
}

macro_rules! scalar_table {
    ($t:ty) => {
        Table::<$t> {
            tier: Tier::Scalar,
            add: binary!(add),
            sub: binary!(sub),
            mul: binary!(mul),
            div: binary!(div),
            neg: UnaryOp {
                map: scalar::neg::map,
                assign: scalar::neg::assign,
            },
            abs: UnaryOp {
                map: scalar::abs::map,
                assign: scalar::abs::assign,
            },
        }
    };
}

static SCALAR_F64: Table<f64> = scalar_table!(f64);
static SCALAR_F32: Table<f32> = scalar_table!(f32);

impl KernelElement for f64 {
    fn table() -> &'static Table<f64> {
        static T: OnceLock<&'static Table<f64>> = OnceLock::new();
        T.get_or_init(|| Self::table_for(active_tier()).unwrap_or(&SCALAR_F64))
    }
    fn table_for(tier: Tier) -> Option<&'static Table<f64>> {
        match tier {
            Tier::Scalar => Some(&SCALAR_F64),
            _ => None,
        }
    }
}

impl KernelElement for f32 {
    fn table() -> &'static Table<f32> {
        static T: OnceLock<&'static Table<f32>> = OnceLock::new();
        T.get_or_init(|| Self::table_for(active_tier()).unwrap_or(&SCALAR_F32))
    }
    fn table_for(tier: Tier) -> Option<&'static Table<f32>> {
        match tier {
            Tier::Scalar => Some(&SCALAR_F32),
            _ => None,
        }
    }
}
