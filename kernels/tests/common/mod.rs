//! Shared by the integration tests: element-type helpers, IEEE edge inputs, a tiny
//! xorshift generator, the tier runner [`each_tier`], and every kernel of a table
//! behind one calling convention.

#![allow(dead_code)] // each test file uses a different part of this module

#[cfg(unix)]
pub mod fenced;

use ndsimd_kernels::scalar::Arith;
use ndsimd_kernels::{BinaryOp, ByteTable, KernelElement, Table, Tier, Uninit};
use std::fmt::Debug;

/// The widest vector in f32 lanes (AVX-512): lengths up to `3 * W + 3` cover every
/// tail residue of every tier, plus a few full vectors.
pub const W: usize = 16;
/// Longest slice the tests hand a kernel.
pub const MAX_LEN: usize = 3 * W + 3;

/// xorshift64: deterministic, so a failure reproduces, and no `rand` dependency.
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A value in `0..n` (`n > 0`; the modulo bias is irrelevant to the tests).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Runs `f` at every tier this machine has, up to the `NDSIMD_TIER` cap (see
/// [`ndsimd_kernels::available_tiers`]), lowest first; a panic inside `f` is re-raised
/// with the tier named, so a failure says which tier's kernels to look at.
pub fn each_tier(mut f: impl FnMut(Tier)) {
    for tier in ndsimd_kernels::available_tiers() {
        if let Err(msg) = catch(|| f(tier)) {
            panic!("at tier {tier}: {msg}");
        }
    }
}

/// What the tests need of `f32` and `f64` beyond what the kernels need.
pub trait TestFloat: KernelElement + Arith + Debug + PartialOrd {
    const NAME: &'static str;
    /// Machine epsilon (the gap between 1 and the next value), as an `f64`.
    const EPS: f64;
    /// The lanes of the canonical reduction order: 256 bytes' worth of elements.
    const LANES: usize = 256 / std::mem::size_of::<Self>();
    fn bits(self) -> u64;
    fn from_bits64(bits: u64) -> Self;
    /// Exact (every `f32` and `f64` is an `f64`).
    fn to_f64(self) -> f64;
    /// Rounds to nearest (exact for the small integers the tests convert).
    fn from_f64(x: f64) -> Self;
    /// ±0, ±Inf, NaNs (payload, sign bit set, signalling), subnormals, MIN_POSITIVE,
    /// MAX, MIN, ±1.
    fn edges() -> Vec<Self>;
    /// Half arbitrary bit patterns (every exponent, random NaN payloads), half
    /// ordinary values whose sums and quotients round.
    fn random(rng: &mut XorShift) -> Self;
    /// A value no kernel produces from the test inputs, written around each output
    /// slice to catch writes outside it.
    fn canary() -> Self;
    /// The bits of this NaN once quieted, as any arithmetic instruction returns it.
    fn quiet_bits(self) -> u64;
    fn nan(self) -> bool;
}

impl TestFloat for f32 {
    const NAME: &'static str = "f32";
    const EPS: f64 = f32::EPSILON as f64;
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_bits64(bits: u64) -> f32 {
        f32::from_bits(bits as u32)
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
    fn edges() -> Vec<f32> {
        let b = f32::from_bits;
        vec![
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            b(0x7fc1_2345), // quiet NaN with a payload
            b(0xffc0_0bad), // quiet NaN, sign bit set
            b(0x7f80_0001), // signalling NaN
            b(0x0000_0001), // smallest subnormal
            b(0x807f_ffff), // largest subnormal, negative
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            1.0,
            -1.0,
        ]
    }
    fn random(rng: &mut XorShift) -> f32 {
        let r = rng.next();
        if r & 1 == 0 {
            f32::from_bits((r >> 32) as u32)
        } else {
            ((r >> 32) as i32) as f32 / (1u32 << (r >> 8 & 31)) as f32
        }
    }
    fn canary() -> f32 {
        f32::from_bits(0x7fbe_ef01)
    }
    fn quiet_bits(self) -> u64 {
        (self.to_bits() | 0x0040_0000) as u64
    }
    fn nan(self) -> bool {
        self.is_nan()
    }
}

impl TestFloat for f64 {
    const NAME: &'static str = "f64";
    const EPS: f64 = f64::EPSILON;
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn from_bits64(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn edges() -> Vec<f64> {
        let b = f64::from_bits;
        vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            b(0x7ff8_0000_0012_3456), // quiet NaN with a payload
            b(0xfff8_0000_0000_0bad), // quiet NaN, sign bit set
            b(0x7ff0_0000_0000_0001), // signalling NaN
            b(0x0000_0000_0000_0001), // smallest subnormal
            b(0x800f_ffff_ffff_ffff), // largest subnormal, negative
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            1.0,
            -1.0,
        ]
    }
    fn random(rng: &mut XorShift) -> f64 {
        let r = rng.next();
        if r & 1 == 0 {
            f64::from_bits(rng.next())
        } else {
            (r as i64 >> 1) as f64 / (1u64 << (r >> 8 & 63)) as f64
        }
    }
    fn canary() -> f64 {
        f64::from_bits(0x7ff7_beef_beef_0001)
    }
    fn quiet_bits(self) -> u64 {
        self.to_bits() | 0x0008_0000_0000_0000
    }
    fn nan(self) -> bool {
        self.is_nan()
    }
}

/// One kernel of a table, whatever its operand shape.
#[derive(Clone, Copy)]
pub enum Kernel<T: 'static> {
    Vv(fn(&[T], &[T], &mut [T])),
    Vs(fn(&[T], T, &mut [T])),
    Sv(fn(T, &[T], &mut [T])),
    /// The `*_uninit` forms, run on an initialised output (see [`as_uninit`]).
    VvUninit(fn(&[T], &[T], &mut Uninit<T>)),
    VsUninit(fn(&[T], T, &mut Uninit<T>)),
    SvUninit(fn(T, &[T], &mut Uninit<T>)),
    MapUninit(fn(&[T], &mut Uninit<T>)),
    AssignVv(fn(&mut [T], &[T])),
    /// `assign_vv4`, run with `b` as each of its four rows (the dedicated test in
    /// `bit_identity.rs` gives it four different rows).
    AssignVv4(fn(&mut [T], [&[T]; 4])),
    AssignVs(fn(&mut [T], T)),
    Map(fn(&[T], &mut [T])),
    Assign(fn(&mut [T])),
}

impl<T: Copy> Kernel<T> {
    /// The two operands element `i` of a binary kernel combines under [`Kernel::run`]'s
    /// convention; `None` for unary kernels.
    pub fn operands(self, a: &[T], b: &[T], s: T, i: usize) -> Option<(T, T)> {
        match self {
            // `assign_vv4` with four equal rows: `op(op(op(op(a, b), b), b), b)`, which
            // for `maximum`/`minimum` is `op(a, b)`, and a NaN result is one of them.
            Kernel::Vv(_) | Kernel::VvUninit(_) | Kernel::AssignVv(_) | Kernel::AssignVv4(_) => {
                Some((a[i], b[i]))
            }
            Kernel::Vs(_) | Kernel::VsUninit(_) | Kernel::AssignVs(_) => Some((a[i], s)),
            Kernel::Sv(_) | Kernel::SvUninit(_) => Some((s, b[i])),
            Kernel::Map(_) | Kernel::MapUninit(_) | Kernel::Assign(_) => None,
        }
    }

    /// Runs the kernel as `out = op(a, b, s)`. In-place kernels take `out` as their
    /// accumulator after `a` is copied into it, so every shape reads `a` and writes `out`.
    pub fn run(self, a: &[T], b: &[T], s: T, out: &mut [T]) {
        match self {
            Kernel::Vv(f) => f(a, b, out),
            Kernel::Vs(f) => f(a, s, out),
            Kernel::Sv(f) => f(s, b, out),
            Kernel::VvUninit(f) => f(a, b, as_uninit(out)),
            Kernel::VsUninit(f) => f(a, s, as_uninit(out)),
            Kernel::SvUninit(f) => f(s, b, as_uninit(out)),
            Kernel::MapUninit(f) => f(a, as_uninit(out)),
            Kernel::AssignVv(f) => {
                out.copy_from_slice(a);
                f(out, b)
            }
            Kernel::AssignVv4(f) => {
                out.copy_from_slice(a);
                f(out, [b, b, b, b])
            }
            Kernel::AssignVs(f) => {
                out.copy_from_slice(a);
                f(out, s)
            }
            Kernel::Map(f) => f(a, out),
            Kernel::Assign(f) => {
                out.copy_from_slice(a);
                f(out)
            }
        }
    }
}

/// An initialised output seen as the uninitialised memory a `*_uninit` kernel
/// writes: the test then reads what it wrote, and what it did not write (outside its
/// slice) keeps its canaries.
pub fn as_uninit<T>(out: &mut [T]) -> &mut Uninit<T> {
    // SAFETY: `MaybeUninit<T>` has `T`'s size and alignment, and the kernels write
    // only initialised `T` values through it, so `out` stays initialised for the
    // caller.
    unsafe { &mut *(out as *mut [T] as *mut Uninit<T>) }
}

/// The binary operations of a table with their names, in a fixed order.
pub fn binary_ops<T>(t: &Table<T>) -> [(&'static str, &BinaryOp<T>); 6] {
    [
        ("add", &t.add),
        ("sub", &t.sub),
        ("mul", &t.mul),
        ("div", &t.div),
        ("maximum", &t.maximum),
        ("minimum", &t.minimum),
    ]
}

/// Every kernel of a table with its name, in a fixed order (so index `k` of two
/// tables is the same operation).
pub fn kernels<T>(t: &Table<T>) -> Vec<(String, Kernel<T>)> {
    let mut v = Vec::new();
    for (name, op) in binary_ops(t) {
        v.push((format!("{name}.vv"), Kernel::Vv(op.vv)));
        v.push((format!("{name}.vs"), Kernel::Vs(op.vs)));
        v.push((format!("{name}.sv"), Kernel::Sv(op.sv)));
        v.push((
            format!("{name}.vv_uninit"),
            Kernel::VvUninit(op.vv_uninit.get()),
        ));
        v.push((
            format!("{name}.vs_uninit"),
            Kernel::VsUninit(op.vs_uninit.get()),
        ));
        v.push((
            format!("{name}.sv_uninit"),
            Kernel::SvUninit(op.sv_uninit.get()),
        ));
        v.push((format!("{name}.assign_vv"), Kernel::AssignVv(op.assign_vv)));
        v.push((
            format!("{name}.assign_vv4"),
            Kernel::AssignVv4(op.assign_vv4),
        ));
        v.push((format!("{name}.assign_vs"), Kernel::AssignVs(op.assign_vs)));
    }
    for (name, op) in [("neg", &t.neg), ("abs", &t.abs), ("sqrt", &t.sqrt)] {
        v.push((format!("{name}.map"), Kernel::Map(op.map)));
        v.push((
            format!("{name}.map_uninit"),
            Kernel::MapUninit(op.map_uninit.get()),
        ));
        v.push((format!("{name}.assign"), Kernel::Assign(op.assign)));
    }
    v
}

/// Fills `buf` with random values, a quarter of them edge values, and then puts an
/// edge value (chosen by `pick`) at the start, the middle and the end of `buf[range]`.
pub fn fill<T: TestFloat>(
    buf: &mut [T],
    range: std::ops::Range<usize>,
    rng: &mut XorShift,
    pick: &mut usize,
) {
    let edges = T::edges();
    for x in buf.iter_mut() {
        let r = rng.next();
        *x = if r.is_multiple_of(4) {
            edges[(r >> 8) as usize % edges.len()]
        } else {
            T::random(rng)
        };
    }
    if range.is_empty() {
        return;
    }
    let len = range.len();
    for at in [0, len / 2, len - 1] {
        buf[range.start + at] = edges[*pick % edges.len()];
        *pick += 1;
    }
}

/// Whether a kernel is arithmetic, so that when *both* operands are NaN it may return
/// either of them (see `bit_identity.rs`). `maximum`/`minimum` select an input and
/// `neg`/`abs`/`sqrt` have one operand: they must match the oracle bit for bit.
pub fn nan_choice_free(name: &str) -> bool {
    ["add.", "sub.", "mul.", "div."]
        .iter()
        .any(|p| name.starts_with(p))
}

/// NumPy's `maximum`, written from the contract rather than taken from the oracle.
pub fn maximum_ref<T: TestFloat>(x: T, y: T) -> T {
    if x.nan() || x > y {
        x
    } else {
        y
    }
}

/// NumPy's `minimum`, written from the contract.
pub fn minimum_ref<T: TestFloat>(x: T, y: T) -> T {
    if x.nan() || x < y {
        x
    } else {
        y
    }
}

/// The contract's value for kernel `name` at operands `(x, y)`, where the contract
/// pins it without an oracle: `maximum`, `minimum`, `neg`, `abs`.
pub fn elementwise_ref<T: TestFloat>(name: &str, ops: Option<(T, T)>, x: T) -> Option<T> {
    let op = name.split('.').next().unwrap_or("");
    match (op, ops) {
        ("maximum", Some((x, y))) => Some(maximum_ref(x, y)),
        ("minimum", Some((x, y))) => Some(minimum_ref(x, y)),
        ("neg", None) => Some(T::from_bits64(x.bits() ^ sign_bit::<T>())),
        ("abs", None) => Some(T::from_bits64(x.bits() & !sign_bit::<T>())),
        _ => None,
    }
}

pub fn sign_bit<T: TestFloat>() -> u64 {
    1 << (8 * std::mem::size_of::<T>() - 1)
}

/// A comparison kernel, in either operand shape.
#[derive(Clone, Copy)]
pub enum Cmp<T: 'static> {
    Vv(fn(&[T], &[T], &mut [bool])),
    Vs(fn(&[T], T, &mut [bool])),
}

impl<T: Copy> Cmp<T> {
    pub fn run(self, a: &[T], b: &[T], s: T, out: &mut [bool]) {
        match self {
            Cmp::Vv(f) => f(a, b, out),
            Cmp::Vs(f) => f(a, s, out),
        }
    }
    pub fn operands(self, a: &[T], b: &[T], s: T, i: usize) -> (T, T) {
        match self {
            Cmp::Vv(_) => (a[i], b[i]),
            Cmp::Vs(_) => (a[i], s),
        }
    }
}

/// Every comparison kernel of a table with its name and the IEEE comparison it
/// must compute (written here, not taken from the oracle).
#[allow(clippy::type_complexity)]
pub fn cmps<T: TestFloat>(t: &Table<T>) -> Vec<(String, Cmp<T>, fn(T, T) -> bool)> {
    let ops: [(&str, &ndsimd_kernels::CmpOp<T>, fn(T, T) -> bool); 6] = [
        ("eq", &t.eq, |x, y| x == y),
        ("ne", &t.ne, |x, y| x != y),
        ("lt", &t.lt, |x, y| x < y),
        ("le", &t.le, |x, y| x <= y),
        ("gt", &t.gt, |x, y| x > y),
        ("ge", &t.ge, |x, y| x >= y),
    ];
    let mut v = Vec::new();
    for (name, op, f) in ops {
        v.push((format!("{name}.vv"), Cmp::Vv(op.vv), f));
        v.push((format!("{name}.vs"), Cmp::Vs(op.vs), f));
    }
    v
}

/// A reduction kernel, whatever its result type.
#[derive(Clone, Copy)]
pub enum Reduction<T: 'static> {
    /// `sum`, `prod`
    Value(fn(&[T]) -> T),
    /// `max`, `min`
    Extreme(fn(&[T]) -> Option<T>),
    /// `argmax`, `argmin`
    Index(fn(&[T]) -> Option<usize>),
    /// `dot`
    Dot(fn(&[T], &[T]) -> T),
}

/// A reduction's result as bits, so results compare exactly (NaN payloads included).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Reduced {
    Value(u64),
    Extreme(Option<u64>),
    Index(Option<usize>),
}

impl Reduced {
    /// The floating-point result, if this is one.
    pub fn value<T: TestFloat>(self) -> Option<T> {
        match self {
            Reduced::Value(b) | Reduced::Extreme(Some(b)) => Some(T::from_bits64(b)),
            _ => None,
        }
    }
}

impl<T: TestFloat> Reduction<T> {
    /// Runs the reduction; only `dot` reads `b`.
    pub fn run(self, a: &[T], b: &[T]) -> Reduced {
        match self {
            Reduction::Value(f) => Reduced::Value(f(a).bits()),
            Reduction::Extreme(f) => Reduced::Extreme(f(a).map(T::bits)),
            Reduction::Index(f) => Reduced::Index(f(a)),
            Reduction::Dot(f) => Reduced::Value(f(a, b).bits()),
        }
    }
}

/// Every reduction of a table, in a fixed order.
pub fn reductions<T: TestFloat>(t: &Table<T>) -> Vec<(&'static str, Reduction<T>)> {
    vec![
        ("sum", Reduction::Value(t.sum)),
        ("prod", Reduction::Value(t.prod)),
        ("max", Reduction::Extreme(t.max)),
        ("min", Reduction::Extreme(t.min)),
        ("argmax", Reduction::Index(t.argmax)),
        ("argmin", Reduction::Index(t.argmin)),
        ("dot", Reduction::Dot(t.dot)),
    ]
}

/// The oracles a tier's reductions must match: the scalar table's (every tier's `dot`
/// rounds each product, so one oracle serves all).
pub fn oracle_reductions<T: TestFloat>(_tier: Tier) -> Vec<(&'static str, Reduction<T>)> {
    reductions(T::table_for(Tier::Scalar).expect("scalar tier always exists"))
}

/// The byte-kernel table of a tier, if this machine has that tier.
pub fn byte_table(tier: Tier) -> Option<&'static ByteTable> {
    ndsimd_kernels::byte_table_for(tier)
}

/// A finite value `±m·2^e` with a random 24- or 53-bit mantissa `m` in [1, 2) and `e`
/// in `[lo, hi]`, or (one time in 16) a zero of either sign.
pub fn finite<T: TestFloat>(rng: &mut XorShift, lo: i32, hi: i32) -> T {
    let r = rng.next();
    if r.is_multiple_of(16) {
        return T::from_f64(if r & 16 == 0 { 0.0 } else { -0.0 });
    }
    let e = lo + ((r >> 8) % (hi - lo + 1) as u64) as i32;
    let m = 1.0 + (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
    let x = T::from_f64(m * 2f64.powi(e));
    if r & 32 == 0 {
        x
    } else {
        -x
    }
}

/// Shewchuk's exact summation (as Python's `math.fsum`): the correctly rounded sum of
/// `xs`, which must be finite and not overflow.
pub fn fsum(xs: impl IntoIterator<Item = f64>) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    for mut x in xs {
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        partials.push(x);
    }
    // `partials` is non-overlapping and ascending: add from the top, then correct the
    // rounding of the last step using the next partial (half-way cases).
    let mut n = partials.len();
    if n == 0 {
        return 0.0;
    }
    n -= 1;
    let mut hi = partials[n];
    let mut lo = 0.0;
    while n > 0 {
        n -= 1;
        let x = hi;
        let y = partials[n];
        hi = x + y;
        let yr = hi - x;
        lo = y - yr;
        if lo != 0.0 {
            break;
        }
    }
    if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
        let y = lo * 2.0;
        let x = hi + y;
        let yr = x - hi;
        if y == yr {
            hi = x;
        }
    }
    hi
}

/// The runtime's default NaN (what `inf - inf` gives on this CPU), as `T` bits.
pub fn default_nan_bits<T: TestFloat>() -> u64 {
    let inf = || std::hint::black_box(T::from_f64(f64::INFINITY));
    (inf() - inf()).bits()
}

/// Aborts the test process, naming the test and its current case, if the test is
/// still running `secs` after it started: a kernel that loops forever (an early-exit
/// scan that never finds what it was promised) fails the run instead of hanging it.
pub struct Watchdog {
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
    case: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Watchdog {
    /// Generous: the slowest test takes a few seconds natively and under qemu.
    /// `NDSIMD_TEST_WATCHDOG_SECS` overrides it.
    pub const SECS: u64 = 300;

    pub fn new(test: &'static str) -> Watchdog {
        use std::sync::atomic::Ordering;
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let case = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let (d, c) = (done.clone(), case.clone());
        let start = std::time::Instant::now();
        let secs = std::env::var("NDSIMD_TEST_WATCHDOG_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(Self::SECS);
        std::thread::spawn(move || {
            while !d.load(Ordering::Relaxed) {
                if start.elapsed().as_secs() >= secs {
                    let case = c.lock().map(|c| c.clone()).unwrap_or_default();
                    // Straight to fd 2: the harness captures `eprintln!` (in spawned
                    // threads too) and would lose it when the process aborts.
                    let msg = format!(
                        "watchdog: {test} still running after {secs} s (a kernel that never \
                         returns?); current case: {case}\n"
                    );
                    let _ = std::io::Write::write_all(&mut std::io::stderr(), msg.as_bytes());
                    std::process::abort();
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        });
        Watchdog { done, case }
    }

    /// Records the case about to run, for the message.
    pub fn case(&self, case: &str) {
        if let Ok(mut c) = self.case.lock() {
            c.clear();
            c.push_str(case);
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Runs `f`, turning a panic into `Err(message)` so that a test can name the case
/// that panicked and go on.
pub fn catch<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|e| {
        e.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| e.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(non-string panic)".to_string())
    })
}

/// Panics with the count and the first 20 of `failures`, if there are any: the
/// tests collect every failing case before they report, so one run shows them all.
pub fn report(failures: Vec<String>) {
    if !failures.is_empty() {
        let shown = failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n");
        panic!("{} failures (first 20):\n{shown}", failures.len());
    }
}
