//! CPU tier detection (once), the `NDSIMD_TIER` cap, and the kernel tables.

use crate::{ceiling::Ceilings, gemm::table::Kernel};
use crate::{scalar, ByteTable, IntKernelElement, IntTable, KernelElement, Table};
use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

/// An instruction-set tier. Ordered within an architecture: a higher tier can run
/// every kernel of a lower one. Order across architectures means nothing (`Neon` sorts
/// last only because it is declared last); [`arch_tiers`] says which tiers belong here.
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
    /// Every tier of every architecture, in `Ord` order.
    pub const ALL: [Tier; 5] = [
        Tier::Scalar,
        Tier::Sse2,
        Tier::Avx2,
        Tier::Avx512,
        Tier::Neon,
    ];

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

    /// Parses a tier name as `NDSIMD_TIER` spells it (case and surrounding blanks
    /// ignored). It does not check that this machine has the tier.
    ///
    /// ```
    /// use ndsimd_kernels::Tier;
    /// assert_eq!(Tier::parse(" AVX2 "), Some(Tier::Avx2));
    /// assert_eq!(Tier::parse("sse4"), None);
    /// ```
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

/// The tiers this architecture has, ascending, `Scalar` first, whatever the CPU.
pub fn arch_tiers() -> &'static [Tier] {
    #[cfg(target_arch = "x86_64")]
    return &[Tier::Scalar, Tier::Sse2, Tier::Avx2, Tier::Avx512];
    #[cfg(target_arch = "aarch64")]
    return &[Tier::Scalar, Tier::Neon];
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    return &[Tier::Scalar];
}

/// The best tier this CPU supports (detected once).
pub fn detected_tier() -> Tier {
    static DETECTED: OnceLock<Tier> = OnceLock::new();
    *DETECTED.get_or_init(detect)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Tier {
    // Each tier requires the one below it, so a tier's kernels may use every
    // instruction of the lower tiers (an AVX-512 kernel may use FMA). A hypervisor
    // that hides a lower feature therefore also disables the higher tier.
    let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
    let avx512 = avx2
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512dq")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vl");
    if avx512 {
        Tier::Avx512
    } else if avx2 {
        Tier::Avx2
    } else {
        Tier::Sse2
    }
}

#[cfg(target_arch = "aarch64")]
fn detect() -> Tier {
    if std::arch::is_aarch64_feature_detected!("neon") {
        Tier::Neon
    } else {
        Tier::Scalar
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn detect() -> Tier {
    Tier::Scalar
}

/// Whether this architecture has `tier` and this CPU supports it.
fn supported(tier: Tier) -> bool {
    // `Tier`'s order only means something within one architecture, so check the
    // family first: otherwise `Sse2 <= Neon` would let an x86 tier through on aarch64.
    arch_tiers().contains(&tier) && tier <= detected_tier()
}

/// Everything compiled for one tier: one static per tier (`tier_kernels!`, beside
/// the tier's tables), found by [`kernels_for`].
pub(crate) struct TierKernels {
    pub(crate) f32: &'static Table<f32>,
    pub(crate) f64: &'static Table<f64>,
    pub(crate) i32: &'static IntTable<i32>,
    pub(crate) i64: &'static IntTable<i64>,
    pub(crate) u8: &'static IntTable<u8>,
    pub(crate) bytes: &'static ByteTable,
    pub(crate) gemm_f32: &'static Kernel<f32>,
    pub(crate) gemm_f64: &'static Kernel<f64>,
    pub(crate) ceilings: &'static Ceilings,
}

/// The code of `tier`, or `None` when this architecture has no such tier or this CPU
/// lacks it: the one place a tier is mapped to its code, so holding any of it
/// proves its features are present.
pub(crate) fn kernels_for(tier: Tier) -> Option<&'static TierKernels> {
    if !supported(tier) {
        return None;
    }
    match tier {
        Tier::Scalar => Some(&scalar::KERNELS),
        #[cfg(target_arch = "x86_64")]
        Tier::Sse2 => Some(&crate::x86::sse2::KERNELS),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx2 => Some(&crate::x86::avx2::KERNELS),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx512 => Some(&crate::x86::avx512::KERNELS),
        #[cfg(target_arch = "aarch64")]
        Tier::Neon => Some(&crate::aarch64::neon::KERNELS),
        // `supported` already refused tiers of other architectures.
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// The tier in use: the detected tier, capped by `NDSIMD_TIER` (read once).
///
/// The cap only ever lowers the tier. A tier of another architecture, or a tier above
/// the detected one, is ignored and the detected tier is used: a CI lane that asks for
/// `avx512` on a machine without it still runs (at the best tier there is), and
/// [`available_tiers`] shows what was really tested. A value that names no tier is
/// ignored the same way, with a warning on stderr (once) that lists the accepted
/// names; an empty value counts as unset.
pub fn active_tier() -> Tier {
    static ACTIVE: OnceLock<Tier> = OnceLock::new();
    *ACTIVE.get_or_init(|| {
        let cap = std::env::var_os("NDSIMD_TIER");
        let (tier, warning) = tier_cap(cap.as_deref(), detected_tier());
        if let Some(w) = warning {
            // Not `eprintln!`, which panics when stderr is closed.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "ndsimd: {w}");
        }
        tier
    })
}

/// The tier `NDSIMD_TIER=value` selects on a CPU detected as `detected`, and the
/// warning to print when the value names no tier.
fn tier_cap(value: Option<&std::ffi::OsStr>, detected: Tier) -> (Tier, Option<String>) {
    let Some(value) = value.filter(|v| !v.to_string_lossy().trim().is_empty()) else {
        return (detected, None);
    };
    match value.to_str().and_then(Tier::parse) {
        Some(t) if arch_tiers().contains(&t) && t <= detected => (t, None),
        Some(_) => (detected, None),
        None => {
            let names: Vec<&str> = arch_tiers().iter().map(|t| t.name()).collect();
            let warning = format!(
                "ignoring NDSIMD_TIER={value:?}: not a tier (accepted: {}); using the detected tier, {detected}",
                names.join(", ")
            );
            (detected, Some(warning))
        }
    }
}

/// Every tier of this architecture up to and including [`active_tier`], ascending,
/// `Scalar` first: the tiers a test should compare with the oracle, so that a CI lane
/// capped by `NDSIMD_TIER` tests exactly the tiers below its cap.
///
/// ```
/// let tiers = ndsimd_kernels::available_tiers();
/// assert_eq!(tiers[0], ndsimd_kernels::Tier::Scalar);
/// assert_eq!(tiers.last(), Some(&ndsimd_kernels::active_tier()));
/// ```
pub fn available_tiers() -> Vec<Tier> {
    let active = active_tier();
    arch_tiers()
        .iter()
        .copied()
        .filter(|&t| t <= active)
        .collect()
}

/// Whether this CPU runs a 512-bit operation as two 256-bit halves (AMD family
/// 19h, Zen 4: its AVX-512 has half the multiply-add and permute throughput per
/// instruction of Zen 5's or Intel's). Some paths measured on full-width cores lose
/// there (`gemm`'s direct path for short A); they ask this.
///
/// ```
/// // Only an AVX-512 x86 CPU can split its 512-bit operations.
/// if ndsimd_kernels::dispatch::splits_512() {
///     assert_eq!(ndsimd_kernels::dispatch::detected_tier(), ndsimd_kernels::dispatch::Tier::Avx512);
/// }
/// ```
pub fn splits_512() -> bool {
    static SPLITS: OnceLock<bool> = OnceLock::new();
    *SPLITS.get_or_init(|| {
        // Miri runs no CPUID (inline assembly); it detects no AVX-512 either.
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            let (vendor, family) = x86_vendor_family();
            splits_512_for(&vendor, family, detected_tier() == Tier::Avx512)
        }
        #[cfg(not(all(target_arch = "x86_64", not(miri))))]
        {
            false
        }
    })
}

/// [`splits_512`] for a CPUID vendor string, display family and AVX-512 tier:
/// AMD family 19h is Zen 3 (no AVX-512) and Zen 4 (AVX-512 in halves); Zen 5 is 1Ah.
#[cfg(any(all(target_arch = "x86_64", not(miri)), test))]
fn splits_512_for(vendor: &[u8; 12], family: u32, avx512: bool) -> bool {
    avx512 && vendor == b"AuthenticAMD" && family == 0x19
}

/// CPUID's vendor string and display family (base family plus extended family).
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn x86_vendor_family() -> ([u8; 12], u32) {
    use std::arch::x86_64::__cpuid;
    // Leaves 0 and 1 exist on every x86-64 CPU.
    let (l0, l1) = (__cpuid(0), __cpuid(1));
    let mut vendor = [0u8; 12];
    vendor[..4].copy_from_slice(&l0.ebx.to_le_bytes());
    vendor[4..8].copy_from_slice(&l0.edx.to_le_bytes());
    vendor[8..].copy_from_slice(&l0.ecx.to_le_bytes());
    let base = (l1.eax >> 8) & 0xf;
    let family = if base == 0xf {
        base + ((l1.eax >> 20) & 0xff)
    } else {
        base
    };
    (vendor, family)
}

/// Cache sizes in bytes, as detected (with documented defaults when unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheInfo {
    /// Level 1 data cache of one core; default 32 KiB.
    pub l1d: usize,
    /// Level 2 cache of one core; default 1 MiB.
    pub l2: usize,
    /// Level 3 cache (usually shared); default 32 MiB.
    pub l3: usize,
}

impl CacheInfo {
    /// What [`cache_info`] reports for a level the system does not describe: a Zen 4
    /// core's (32 KiB, 1 MiB, a 32 MiB chiplet L3), common enough that the GEMM's
    /// blocking derived from them stays reasonable (docs/design.md#blocking).
    pub const DEFAULT: CacheInfo = CacheInfo {
        l1d: 32 << 10,
        l2: 1 << 20,
        l3: 32 << 20,
    };
}

/// The data cache sizes of this machine (read once from
/// `/sys/devices/system/cpu/cpu0/cache`, each missing level falling back to
/// [`CacheInfo::DEFAULT`]).
pub fn cache_info() -> CacheInfo {
    static INFO: OnceLock<CacheInfo> = OnceLock::new();
    *INFO.get_or_init(|| read_cache_info(Path::new("/sys/devices/system/cpu/cpu0/cache")))
}

/// Reads a sysfs cache directory (`index*/{level,type,size}`). Instruction caches are
/// skipped; a level described twice keeps the larger size.
fn read_cache_info(dir: &Path) -> CacheInfo {
    let mut found = [None::<usize>; 3];
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let is_index = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("index"));
        if !is_index {
            continue;
        }
        let read = |name: &str| std::fs::read_to_string(path.join(name)).ok();
        let kind = read("type").unwrap_or_default();
        if !matches!(kind.trim(), "Data" | "Unified") {
            continue;
        }
        let level = read("level").and_then(|l| l.trim().parse::<usize>().ok());
        let size = read("size").and_then(|s| parse_cache_size(&s));
        if let (Some(level @ 1..=3), Some(size)) = (level, size) {
            let slot = &mut found[level - 1];
            *slot = Some(slot.map_or(size, |old| old.max(size)));
        }
    }
    let d = CacheInfo::DEFAULT;
    CacheInfo {
        l1d: found[0].unwrap_or(d.l1d),
        l2: found[1].unwrap_or(d.l2),
        l3: found[2].unwrap_or(d.l3),
    }
}

/// Parses a sysfs cache size: a decimal number with an optional `K`, `M` or `G`
/// (binary multiples, as the kernel writes them). `None` for anything else or zero.
fn parse_cache_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (digits, shift) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 10),
        b'M' | b'm' => (&s[..s.len() - 1], 20),
        b'G' | b'g' => (&s[..s.len() - 1], 30),
        _ => (s, 0),
    };
    let n: usize = digits.parse().ok()?;
    let bytes = n.checked_mul(1usize << shift)?;
    (bytes > 0).then_some(bytes)
}

/// The byte and word kernels of the file scan for the active tier (resolved once).
///
/// ```
/// let t = ndsimd_kernels::byte_table();
/// assert_eq!((t.count_byte)(b"one\ntwo\n", b'\n'), 2);
/// assert_eq!((t.first_nonzero_word)(&[0, 0, 9]), Some(2));
/// ```
pub fn byte_table() -> &'static ByteTable {
    static T: OnceLock<&'static ByteTable> = OnceLock::new();
    T.get_or_init(|| byte_table_for(active_tier()).unwrap_or(&scalar::BYTES))
}

/// The byte table of a given tier, or `None` when this architecture has no such tier
/// or this CPU lacks it (as [`KernelElement::table_for`]).
///
/// ```
/// use ndsimd_kernels::{byte_table_for, Tier};
/// assert!(byte_table_for(Tier::Scalar).is_some());
/// ```
pub fn byte_table_for(tier: Tier) -> Option<&'static ByteTable> {
    kernels_for(tier).map(|k| k.bytes)
}

/// One `KernelElement` impl per element type: `$table` names the scalar tier's
/// static, `$field` the type's table in [`TierKernels`].
macro_rules! kernel_element {
    ($t:ty, $table:ident, $field:ident) => {
        impl KernelElement for $t {
            #[inline]
            fn table() -> &'static Table<$t> {
                static T: OnceLock<&'static Table<$t>> = OnceLock::new();
                T.get_or_init(|| Self::table_for(active_tier()).unwrap_or(&scalar::$table))
            }
            fn table_for(tier: Tier) -> Option<&'static Table<$t>> {
                kernels_for(tier).map(|k| k.$field)
            }
        }
    };
}

kernel_element!(f32, F32, f32);
kernel_element!(f64, F64, f64);

/// One `IntKernelElement` impl per integer type, as `kernel_element!`.
macro_rules! int_kernel_element {
    ($t:ty, $table:ident, $field:ident) => {
        impl IntKernelElement for $t {
            fn int_table() -> &'static IntTable<$t> {
                static T: OnceLock<&'static IntTable<$t>> = OnceLock::new();
                T.get_or_init(|| Self::int_table_for(active_tier()).unwrap_or(&scalar::$table))
            }
            fn int_table_for(tier: Tier) -> Option<&'static IntTable<$t>> {
                kernels_for(tier).map(|k| k.$field)
            }
        }
    };
}

int_kernel_element!(i32, I32, i32);
int_kernel_element!(i64, I64, i64);
int_kernel_element!(u8, U8, u8);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sysfs_sizes() {
        assert_eq!(parse_cache_size("32K\n"), Some(32 << 10));
        assert_eq!(parse_cache_size("1024K"), Some(1 << 20));
        assert_eq!(parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_size("32M"), Some(32 << 20));
        assert_eq!(parse_cache_size("1G"), Some(1 << 30));
        assert_eq!(parse_cache_size(" 65536 "), Some(65536));
        for bad in ["", "K", "0K", "12X", "-1K", "1.5M", "99999999999999999999G"] {
            assert_eq!(parse_cache_size(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn only_zen_4_splits_its_512_bit_operations() {
        let (amd, intel) = (b"AuthenticAMD", b"GenuineIntel");
        assert!(splits_512_for(amd, 0x19, true));
        assert!(!splits_512_for(amd, 0x19, false), "Zen 3: no AVX-512");
        assert!(!splits_512_for(amd, 0x1a, true), "Zen 5: full width");
        assert!(!splits_512_for(intel, 0x6, true));
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            // Family 19h is 0xf plus an extended family of 0xa.
            let (vendor, family) = x86_vendor_family();
            assert!(family >= 6, "{family:#x}");
            assert_eq!(
                splits_512(),
                splits_512_for(&vendor, family, detected_tier() == Tier::Avx512)
            );
        }
    }

    #[test]
    fn reads_a_sysfs_tree_and_falls_back_per_level() {
        let dir = std::env::temp_dir().join(format!("ndsimd-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (i, (level, kind, size)) in [
            ("1", "Data", "48K"),
            ("1", "Instruction", "1M"),
            ("3", "Unified", "96M"),
        ]
        .iter()
        .enumerate()
        {
            let idx = dir.join(format!("index{i}"));
            std::fs::create_dir_all(&idx).unwrap();
            for (name, v) in [("level", level), ("type", kind), ("size", size)] {
                std::fs::write(idx.join(name), format!("{v}\n")).unwrap();
            }
        }
        let info = read_cache_info(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            info,
            CacheInfo {
                l1d: 48 << 10,
                l2: CacheInfo::DEFAULT.l2,
                l3: 96 << 20,
            }
        );
        assert_eq!(
            read_cache_info(Path::new("/nonexistent/ndsimd")),
            CacheInfo::DEFAULT
        );
    }

    #[test]
    fn tier_cap_lowers_ignores_and_warns_on_unknown_names() {
        use std::ffi::OsStr;
        let top = *arch_tiers().last().unwrap();
        let cap = |v: &str| tier_cap(Some(OsStr::new(v)), top);
        assert_eq!(tier_cap(None, top), (top, None));
        assert_eq!(cap(""), (top, None));
        assert_eq!(cap("  "), (top, None));
        assert_eq!(cap("scalar"), (Tier::Scalar, None));
        assert_eq!(cap(" Scalar\n"), (Tier::Scalar, None));
        // Above the CPU or another architecture's: the detected tier, quietly.
        assert_eq!(
            tier_cap(Some(OsStr::new(top.name())), Tier::Scalar),
            (Tier::Scalar, None)
        );
        let foreign = if arch_tiers().contains(&Tier::Neon) {
            "avx2"
        } else {
            "neon"
        };
        assert_eq!(cap(foreign), (top, None));
        let names: Vec<&str> = arch_tiers().iter().map(|t| t.name()).collect();
        for bad in ["bogus", "avx-512", "sse4", "0"] {
            let (t, w) = cap(bad);
            assert_eq!(t, top, "{bad}");
            let w = w.unwrap_or_else(|| panic!("no warning for {bad:?}"));
            assert_eq!(
                w,
                format!(
                    "ignoring NDSIMD_TIER=\"{bad}\": not a tier (accepted: {}); using the detected tier, {top}",
                    names.join(", ")
                )
            );
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let (t, w) = tier_cap(Some(OsStr::from_bytes(b"avx\xff")), top);
            assert_eq!(t, top);
            assert!(w.unwrap().starts_with("ignoring NDSIMD_TIER=\"avx\\xFF\""));
        }
    }
}
