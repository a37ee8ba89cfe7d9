//! What the library detected and is using: tiers, threads, caches.

use ndsimd_kernels::{active_tier, cache_info, detected_tier, CacheInfo, Tier};
use std::fmt;

/// A report of the CPU tier detected and in use, the worker threads, and the
/// cache sizes that blocking decisions use.
///
/// ```
/// let i = ndsimd::info();
/// assert!(i.active_tier <= i.detected_tier);
/// println!("{i}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// The best tier this CPU supports.
    pub detected_tier: Tier,
    /// The tier in use (the detected one, capped by `NDSIMD_TIER`).
    pub active_tier: Tier,
    /// The number of threads parallel operations may use.
    pub threads: usize,
    /// Data cache sizes in bytes.
    pub cache: CacheInfo,
    /// The crate version.
    pub version: &'static str,
}

/// Reports the detected and active tier, threads and cache sizes.
///
/// ```
/// assert!(ndsimd::info().threads >= 1);
/// ```
pub fn info() -> Info {
    let threads = ndsimd_kernels::pool::num_threads();
    Info {
        detected_tier: detected_tier(),
        active_tier: active_tier(),
        threads,
        cache: cache_info(),
        version: env!("CARGO_PKG_VERSION"),
    }
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kib = |b: usize| b / 1024;
        writeln!(f, "ndsimd {}", self.version)?;
        writeln!(
            f,
            "tier:     {} (detected {})",
            self.active_tier, self.detected_tier
        )?;
        writeln!(f, "threads:  {}", self.threads)?;
        write!(
            f,
            "caches:   L1d {} KiB, L2 {} KiB, L3 {} KiB",
            kib(self.cache.l1d),
            kib(self.cache.l2),
            kib(self.cache.l3)
        )
    }
}
