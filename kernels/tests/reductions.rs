//! The reductions (`sum`, `prod`, `dot`, `max`, `min`, `argmax`, `argmin`) of every
//! available tier against the scalar oracle, at every length around the canonical
//! lane count `L` (`0..=3L+3`, and some long ones), every alignment offset, on IEEE
//! edge inputs; and against the contract directly: `max`/`min`/`argmax`/`argmin` as
//! written in `lib.rs`, `sum` within its documented error bound of an exact sum, and
//! `sum`/`prod`/`dot` exact on small integers.
//!
//! `sum` and `prod` return the first input NaN quieted when their result is a NaN, on
//! every tier. `dot` is arithmetic on two inputs, so when the oracle's result is NaN a
//! tier may return a different NaN, as long as it is one of the input NaNs quieted or
//! the CPU's default NaN (see `bit_identity.rs`); every other result must match bit
//! for bit.

mod common;

use common::{
    catch, default_nan_bits, each_tier, fill, finite, fsum, oracle_reductions, reductions, report,
    Reduced, Reduction, TestFloat, Watchdog, XorShift,
};
use ndsimd_kernels::{available_tiers, Tier};

const OFFSETS: usize = 8;
const PAD: usize = OFFSETS + 8;

/// `0..=3L+3`, then a few long lengths (one of them odd and prime, one past three of
/// `argmax`'s chunks of 8192), and block counts of the pairwise sum around its
/// straight-line groups of 8 blocks and runs of 8 groups (none, one, several, with
/// groups and 1 to 7 blocks after them), whole or with a short last block.
fn lengths<T: TestFloat>() -> Vec<usize> {
    let b = 2048 / std::mem::size_of::<T>();
    let blocks = [
        5, 7, 8, 9, 14, 16, 19, 23, 24, 31, 33, 63, 64, 65, 71, 72, 73, 127, 128, 130, 213,
    ];
    // Past L2: where a tier may hand `sum` and `dot` to another tier's loop (the
    // AVX-512 tier on Zen 4, `streams_past_l2`).
    let past_l2 = (ndsimd_kernels::cache_info().l2 / 2048 + 3) * b - 5;
    (0..=3 * T::LANES + 3)
        .chain([1000, 4099, 3 * 8192 + 77, past_l2])
        .chain(blocks.iter().flat_map(|&k| [k * b, k * b - 5]))
        .collect()
}

/// Lengths around `argmax`'s chunks of 8192 elements: one chunk, a last chunk that
/// takes a tail shorter than a block (of up to 128 elements), and several chunks.
const CHUNKED: [usize; 9] = [
    8191,
    8192,
    8192 + 31,
    8192 + 64,
    8192 + 127,
    8192 + 128,
    8192 + 129,
    2 * 8192 + 1,
    3 * 8192 + 77,
];

/// The contract's `max` (`greater`) or `min`: the first NaN's exact bits, else the
/// extreme with `+0 > -0`; `None` if empty.
fn extreme_ref<T: TestFloat>(a: &[T], greater: bool) -> Option<T> {
    if let Some(&nan) = a.iter().find(|x| x.nan()) {
        return Some(nan);
    }
    let key = |x: T| {
        // Order -0 below +0 by nudging only the comparison, never the value returned.
        let zero_sign = if x == T::from_f64(0.0) {
            if x.bits() == 0 {
                1.0
            } else {
                -1.0
            }
        } else {
            0.0
        };
        (x.to_f64(), zero_sign)
    };
    a.iter().copied().reduce(|m, x| {
        let (km, kx) = (key(m), key(x));
        let better = if greater {
            kx.partial_cmp(&km) == Some(std::cmp::Ordering::Greater)
        } else {
            kx.partial_cmp(&km) == Some(std::cmp::Ordering::Less)
        };
        if better {
            x
        } else {
            m
        }
    })
}

/// The contract's `argmax`/`argmin`: the first NaN, else the first index IEEE-equal
/// to the extreme (so `-0` and `+0` tie).
fn arg_ref<T: TestFloat>(a: &[T], greater: bool) -> Option<usize> {
    if let Some(i) = a.iter().position(|x| x.nan()) {
        return Some(i);
    }
    let m = extreme_ref(a, greater)?;
    a.iter().position(|&x| x == m)
}

/// The canonical lane order as `scalar`'s module documentation states it, written
/// here independently: `L` lanes start at `identity`, element `i` is combined into
/// lane `i % L` in index order, then `while width > 1 { width /= 2; acc[j] =
/// fold(acc[j], acc[j + width]) }` and the result is `acc[0]`.
fn canonical<T: TestFloat>(
    n: usize,
    identity: T,
    step: impl Fn(T, usize) -> T,
    fold: impl Fn(T, T) -> T,
) -> T {
    let l = T::LANES;
    let mut acc = vec![identity; l];
    for i in 0..n {
        acc[i % l] = step(acc[i % l], i);
    }
    let mut width = l;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            acc[j] = fold(acc[j], acc[j + width]);
        }
    }
    acc[0]
}

/// The blocked pairwise order as `scalar`'s module documentation states it, written
/// here independently: blocks of 2 KiB each reduced by `canonical`, then
/// `tree(blocks) = tree(first h) + tree(rest)`, `h` the largest power of two below
/// the block count.
fn blocked<T: TestFloat>(n: usize, block: &dyn Fn(std::ops::Range<usize>) -> T) -> T {
    let b = 2048 / std::mem::size_of::<T>();
    let nb = n.div_ceil(b).max(1);
    fn tree<T: TestFloat>(
        blocks: std::ops::Range<usize>,
        b: usize,
        n: usize,
        block: &dyn Fn(std::ops::Range<usize>) -> T,
    ) -> T {
        let k = blocks.len();
        if k == 1 {
            let at = blocks.start * b;
            return block(at..(at + b).min(n));
        }
        let h = 1 << (k - 1).ilog2();
        let mid = blocks.start + h;
        tree(blocks.start..mid, b, n, block) + tree(mid..blocks.end, b, n, block)
    }
    tree(0..nb, b, n, block)
}

/// The NaN rule of `sum` and `prod`: a NaN result is the first input NaN, quieted.
fn nan_rule<T: TestFloat>(r: T, a: &[T]) -> T {
    match a.iter().find(|x| x.nan()) {
        Some(x) if r.nan() => T::from_bits64(x.quiet_bits()),
        _ => r,
    }
}

/// What the contract alone says a reduction returns.
fn contract_ref<T: TestFloat>(name: &str, a: &[T], b: &[T]) -> Reduced {
    let neg_zero = T::from_f64(-0.0);
    let add = |s: T, x: T| s + x;
    match name {
        "max" => Reduced::Extreme(extreme_ref(a, true).map(T::bits)),
        "min" => Reduced::Extreme(extreme_ref(a, false).map(T::bits)),
        "argmax" => Reduced::Index(arg_ref(a, true)),
        "argmin" => Reduced::Index(arg_ref(a, false)),
        "sum" => {
            let block = |r: std::ops::Range<usize>| {
                let x = &a[r];
                canonical(x.len(), neg_zero, |s, i| s + x[i], add)
            };
            Reduced::Value(nan_rule(blocked(a.len(), &block), a).bits())
        }
        "prod" => {
            let one = T::from_f64(1.0);
            let p = canonical(a.len(), one, |s, i| s * a[i], |s, x| s * x);
            Reduced::Value(nan_rule(p, a).bits())
        }
        "dot" => {
            let block = |r: std::ops::Range<usize>| {
                let (x, y) = (&a[r.clone()], &b[r]);
                canonical(x.len(), neg_zero, |s, i| s + x[i] * y[i], add)
            };
            Reduced::Value(blocked(a.len(), &block).bits())
        }
        _ => unreachable!("no reduction {name}"),
    }
}

/// Whether `got` may stand for the oracle's `want`: equal bits, or (for the arithmetic
/// reductions, when the oracle's result is NaN) a NaN that one of the inputs or the
/// default NaN accounts for.
fn acceptable<T: TestFloat>(name: &str, got: Reduced, want: Reduced, a: &[T], b: &[T]) -> bool {
    if got == want {
        return true;
    }
    if name != "dot" {
        return false;
    }
    let (Some(g), Some(w)) = (got.value::<T>(), want.value::<T>()) else {
        return false;
    };
    let inputs = b;
    g.nan()
        && w.nan()
        && (g.bits() == default_nan_bits::<T>()
            || a.iter()
                .chain(inputs)
                .any(|x| x.nan() && x.quiet_bits() == g.bits()))
}

fn show<T: TestFloat>(r: Reduced) -> String {
    match r {
        Reduced::Value(b) => format!("{:?} ({b:#x})", T::from_bits64(b)),
        Reduced::Extreme(Some(b)) => format!("Some({:?} ({b:#x}))", T::from_bits64(b)),
        other => format!("{other:?}"),
    }
}

/// Short description of an input for a failure message.
fn describe<T: TestFloat>(a: &[T]) -> String {
    if a.len() <= 8 {
        format!(
            "{:?}",
            a.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>()
        )
    } else {
        let nans: Vec<usize> = a
            .iter()
            .enumerate()
            .filter(|(_, x)| x.nan())
            .map(|(i, _)| i)
            .take(4)
            .collect();
        format!(
            "[{:?}, {:?}, .. {:?}] (NaNs at {nans:?})",
            a[0],
            a[1],
            a[a.len() - 1]
        )
    }
}

/// Reductions with their names.
type Named<T> = Vec<(&'static str, Reduction<T>)>;

/// Runs every reduction of every tier on `(a, b)` and checks each against its oracle
/// and, where the contract pins the result, against the contract.
struct Checker<T: 'static> {
    /// Each tier with its reductions and the oracles they must match.
    tiers: Vec<(Tier, Named<T>, Named<T>)>,
    failures: Vec<String>,
    watchdog: Watchdog,
}

impl<T: TestFloat> Checker<T> {
    fn new(test: &'static str) -> Self {
        let tiers = available_tiers()
            .into_iter()
            .map(|t| {
                (
                    t,
                    reductions(T::table_for(t).expect("available tier has a table")),
                    oracle_reductions::<T>(t),
                )
            })
            .collect();
        Checker {
            tiers,
            failures: Vec::new(),
            watchdog: Watchdog::new(test),
        }
    }

    fn check(&mut self, a: &[T], b: &[T], what: &str) {
        let scalar = reductions(T::table_for(Tier::Scalar).unwrap());
        for (name, oracle) in &scalar {
            let want = contract_ref(name, a, b);
            let got = oracle.run(a, b);
            if !acceptable(name, got, want, a, b) {
                self.failures.push(format!(
                    "oracle vs contract {} {name} {what}: oracle {}, contract {} on {}",
                    T::NAME,
                    show::<T>(got),
                    show::<T>(want),
                    describe(a)
                ));
            }
        }
        for (tier, kernels, oracles) in &self.tiers {
            for ((name, kernel), (_, oracle)) in kernels.iter().zip(oracles) {
                let case = format!("{tier} {} {name} {what}", T::NAME);
                self.watchdog.case(&case);
                let want = oracle.run(a, b);
                let got = match catch(|| kernel.run(a, b)) {
                    Ok(got) => got,
                    Err(msg) => {
                        self.failures.push(format!("{case}: panicked: {msg}"));
                        continue;
                    }
                };
                if !acceptable(name, got, want, a, b) {
                    self.failures.push(format!(
                        "{tier} {} {name} {what}: got {}, oracle {} on {}",
                        T::NAME,
                        show::<T>(got),
                        show::<T>(want),
                        describe(a)
                    ));
                }
            }
        }
    }
}

/// The kinds of input each length and offset is tried with.
const MODES: [&str; 6] = [
    "edges",    // random bits, a quarter edge values, edges at start, middle, end
    "finite",   // mixed signs and magnitudes: rounding differs with the order
    "one-nan",  // finite, with one NaN or infinity at a moving position
    "overflow", // huge values: partial sums overflow to ±Inf
    "zeros",    // only ±0 in random order
    "ties",     // small integers, ±0 included: repeated extremes
];

fn make<T: TestFloat>(mode: &str, buf: &mut [T], rng: &mut XorShift, pick: &mut usize) {
    let edges = T::edges();
    let len = buf.len();
    match mode {
        "edges" => fill(buf, 0..len, rng, pick),
        "finite" | "one-nan" => {
            for x in buf.iter_mut() {
                *x = finite(rng, -20, 20);
            }
            if mode == "one-nan" && len > 0 {
                let specials = [edges[2], edges[3], edges[4], edges[5], edges[6]];
                let at = [0, len / 2, len - 1][*pick % 3];
                buf[at] = specials[*pick / 3 % specials.len()];
                *pick += 1;
            }
        }
        "overflow" => {
            let top = if std::mem::size_of::<T>() == 4 {
                127
            } else {
                1023
            };
            for x in buf.iter_mut() {
                *x = finite(rng, top - 2, top);
            }
        }
        "zeros" => {
            for x in buf.iter_mut() {
                *x = T::from_f64(if rng.next() & 1 == 0 { 0.0 } else { -0.0 });
            }
        }
        _ => {
            for x in buf.iter_mut() {
                let v = (rng.next() % 5) as f64 - 2.0;
                *x = T::from_f64(if v == 0.0 && rng.next() & 1 == 0 {
                    -0.0
                } else {
                    v
                });
            }
        }
    }
}

fn check_oracle<T: TestFloat>() {
    let mut checker = Checker::<T>::new("reductions_match_oracle");
    let mut rng = XorShift(0x0123_4567_89ab_cdef);
    let mut pick = 0usize;
    for len in lengths::<T>() {
        // Every offset for `a`, `b` misaligned against it; the long lengths
        // only at a few offsets, in the "finite" and "edges" modes.
        let long = len > 3 * T::LANES + 3;
        for off in (0..OFFSETS).step_by(if long { 3 } else { 1 }) {
            let (oa, ob) = (off, (off + 3) % OFFSETS);
            for (m, mode) in MODES.iter().enumerate() {
                if long && m > 2 {
                    continue;
                }
                let mut a = vec![T::canary(); len + PAD];
                let mut b = vec![T::canary(); len + PAD];
                make(mode, &mut a[oa..oa + len], &mut rng, &mut pick);
                make(
                    MODES[(m + off) % MODES.len()],
                    &mut b[ob..ob + len],
                    &mut rng,
                    &mut pick,
                );
                let what = format!("len {len} offsets a {oa} b {ob} mode {mode}");
                checker.check(&a[oa..oa + len], &b[ob..ob + len], &what);
            }
        }
    }
    report(checker.failures);
}

#[test]
fn f32_reductions_match_oracle() {
    check_oracle::<f32>();
}

#[test]
fn f64_reductions_match_oracle() {
    check_oracle::<f64>();
}

/// `max`/`min`/`argmax`/`argmin` on hand-made NaN and signed-zero patterns: a NaN at
/// every position of every short length (and at start, middle, end of longer ones),
/// several NaNs of different payloads (the first must win), all NaN, only zeros of
/// both signs in several orders, infinities, repeated extremes.
fn check_extremes<T: TestFloat>() {
    let mut checker = Checker::<T>::new("extremes_follow_the_contract");
    let mut rng = XorShift(0xfeed_face_cafe_beef);
    let e = T::edges();
    let (pz, nz, inf, ninf) = (e[0], e[1], e[2], e[3]);
    let nans = [e[4], e[5], e[6], T::canary()]; // payload, negative, signalling, signalling
    let l = T::LANES;
    let mut lens: Vec<usize> = (1..=common::MAX_LEN).collect();
    lens.extend([l - 1, l, l + 1, 2 * l + 3, 3 * l + 3, 1000]);
    lens.extend(CHUNKED);
    for &len in &lens {
        let base = |rng: &mut XorShift| -> Vec<T> {
            let mut p = 0;
            let mut v = vec![pz; len];
            make("ties", &mut v, rng, &mut p);
            v
        };
        let positions: Vec<usize> = if len <= common::MAX_LEN {
            (0..len).collect()
        } else {
            // And both sides of every chunk edge.
            let edges = (1..len / 8192 + 1).flat_map(|c| [8192 * c - 1, 8192 * c]);
            [0, 1, len / 2, len - 2, len - 1]
                .into_iter()
                .chain(edges.filter(|&p| p < len))
                .collect()
        };
        for &p in &positions {
            let nan = nans[p % nans.len()];
            let mut a = base(&mut rng);
            a[p] = nan;
            checker.check(&a, &a, &format!("len {len} one NaN at {p}"));
            // A second, different NaN later: the first must still win.
            if p + 1 < len {
                let q = p + 1 + (rng.next() as usize % (len - p - 1));
                a[q] = nans[(p + 1) % nans.len()];
                checker.check(&a, &a, &format!("len {len} NaNs at {p} and {q}"));
                // Every element after the first NaN a NaN of another payload (never
                // the first one's, so returning any later NaN shows).
                for (i, x) in a.iter_mut().enumerate().skip(p + 1) {
                    *x = nans[(p + 1 + i % (nans.len() - 1)) % nans.len()];
                }
                checker.check(&a, &a, &format!("len {len} NaN at {p} then NaNs"));
            }
            // The extreme (an infinity) at p, ties after it.
            let mut a = base(&mut rng);
            a[p] = if p % 2 == 0 { inf } else { ninf };
            checker.check(&a, &a, &format!("len {len} infinity at {p}"));
            // Zeros only, the lone zero of the other sign at p.
            let (lone, rest) = if p % 2 == 0 { (pz, nz) } else { (nz, pz) };
            let mut a = vec![rest; len];
            a[p] = lone;
            checker.check(&a, &a, &format!("len {len} zeros, {lone:?} at {p}"));
            // Negative values and a lone zero of either sign (the extreme for max).
            let mut a: Vec<T> = (0..len)
                .map(|i| T::from_f64(-1.0 - (i % 3) as f64))
                .collect();
            a[p] = lone;
            checker.check(&a, &a, &format!("len {len} negatives, {lone:?} at {p}"));
        }
        for nan in nans {
            checker.check(
                &vec![nan; len],
                &vec![nan; len],
                &format!("len {len} all NaN"),
            );
        }
        for (x, what) in [(inf, "inf"), (ninf, "-inf"), (e[7], "subnormal")] {
            checker.check(
                &vec![x; len],
                &vec![x; len],
                &format!("len {len} all {what}"),
            );
        }
        for order in 0..4 {
            let a: Vec<T> = (0..len)
                .map(|i| match order {
                    0 => [nz, pz][i % 2],
                    1 => [pz, nz][i % 2],
                    2 => [nz, pz][(i >= len / 2) as usize],
                    _ => [pz, nz][(i >= len / 2) as usize],
                })
                .collect();
            checker.check(&a, &a, &format!("len {len} zeros order {order}"));
        }
    }
    checker.check(&[], &[], "empty");
    report(checker.failures);
}

#[test]
fn f32_extremes_follow_the_contract() {
    check_extremes::<f32>();
}

#[test]
fn f64_extremes_follow_the_contract() {
    check_extremes::<f64>();
}

/// The documented bound, against an exact sum and independently of the oracle:
/// `|sum - exact| <= (8 + log2 L + ceil(log2 blocks)) * u * sum(|x|)`, `u` the unit
/// roundoff (half of `EPS`), blocks of 2 KiB.
fn check_error_bound<T: TestFloat>() {
    let mut rng = XorShift(0xdead_beef_0bad_f00d);
    let l = T::LANES as f64;
    let block = 2048 / std::mem::size_of::<T>();
    let mut failures = Vec::new();
    let mut lens = lengths::<T>();
    lens.extend([65_536, 100_003]);
    for &n in &lens {
        for kind in ["mixed", "positive", "cancelling"] {
            let a: Vec<T> = (0..n)
                .map(|i| match kind {
                    "mixed" => finite(&mut rng, -30, 30),
                    "positive" => T::from_f64(finite::<T>(&mut rng, -1, 0).to_f64().abs()),
                    _ => {
                        // Pairs x, -x (exact sum 0) among small values.
                        let x: T = finite(&mut rng, 10, 20);
                        if i % 2 == 0 {
                            x
                        } else {
                            finite(&mut rng, -10, -5)
                        }
                    }
                })
                .collect();
            let abs_sum = fsum(a.iter().map(|x| x.to_f64().abs()));
            let blocks = n.div_ceil(block).max(1);
            let depth = 8.0 + l.log2() + blocks.next_power_of_two().ilog2() as f64;
            // γ_depth = depth·u / (1 - depth·u): the rounding errors compound.
            let du = depth * T::EPS / 2.0;
            let bound = du / (1.0 - du) * abs_sum;
            each_tier(|tier| {
                let s = (T::table_for(tier).unwrap().sum)(&a);
                // The error, correctly rounded from the exact value.
                let err = fsum(a.iter().map(|x| x.to_f64()).chain([-s.to_f64()])).abs();
                if err.is_nan() || err > bound {
                    failures.push(format!(
                        "{tier} {} sum n {n} {kind}: error {err:e} over bound {bound:e} \
                         (sum {s:?}, sum|x| {abs_sum:e})",
                        T::NAME
                    ));
                }
            });
        }
    }
    report(failures);
}

#[test]
fn sum_within_documented_bound_f32() {
    check_error_bound::<f32>();
}

#[test]
fn sum_within_documented_bound_f64() {
    check_error_bound::<f64>();
}

/// Integer-valued data whose every partial result is representable: `sum`, `dot` and
/// `prod` must be exact, whatever the order of operations.
fn check_exact_integers<T: TestFloat>() {
    let mut rng = XorShift(0x1357_9bdf_2468_ace0);
    let wide = std::mem::size_of::<T>() == 8;
    let mut failures = Vec::new();
    let mut lens = lengths::<T>();
    lens.push((1 << 20) - 1);
    let int = |rng: &mut XorShift, bits: u32| -> i64 {
        let m = 1i64 << bits;
        (rng.next() % (2 * m as u64 - 1)) as i64 - (m - 1)
    };
    for &n in &lens {
        // |partial sums| stay below 2^24 (f32) or 2^53 (f64).
        let (sum_bits, dot_bits) = match (wide, n) {
            (true, _) => (20, if n < 5000 { 16 } else { 10 }),
            (false, n) if n < 5000 => (11, 5),
            (false, _) => (3, 1),
        };
        let a: Vec<i64> = (0..n).map(|_| int(&mut rng, sum_bits)).collect();
        let x: Vec<T> = a.iter().map(|&v| T::from_f64(v as f64)).collect();
        let want: i128 = a.iter().map(|&v| v as i128).sum();
        let da: Vec<i64> = (0..n).map(|_| int(&mut rng, dot_bits)).collect();
        let db: Vec<i64> = (0..n).map(|_| int(&mut rng, dot_bits)).collect();
        let (dx, dy): (Vec<T>, Vec<T>) = da
            .iter()
            .zip(&db)
            .map(|(&p, &q)| (T::from_f64(p as f64), T::from_f64(q as f64)))
            .unzip();
        let want_dot: i128 = da
            .iter()
            .zip(&db)
            .map(|(&p, &q)| p as i128 * q as i128)
            .sum();
        // Factors ±1, ±2, ±1/2, ±3 and ±3/2, with few enough 2s, halves and 3s that
        // every partial product is exact and in range.
        let (mut twos, mut halves, mut threes, mut negative) = (0i32, 0i32, 0u32, false);
        let max_threes = if wide { 33 } else { 15 };
        let pf: Vec<T> = (0..n)
            .map(|_| {
                let r = rng.next();
                let mut v = match r % 8 {
                    4 if twos < 60 => {
                        twos += 1;
                        2.0
                    }
                    5 if halves < 60 => {
                        halves += 1;
                        0.5
                    }
                    6 if threes < max_threes => {
                        threes += 1;
                        3.0
                    }
                    7 if threes < max_threes && halves < 60 => {
                        threes += 1;
                        halves += 1;
                        1.5
                    }
                    _ => 1.0,
                };
                if r & 8 != 0 {
                    v = -v;
                    negative = !negative;
                }
                T::from_f64(v)
            })
            .collect();
        let want_prod =
            3f64.powi(threes as i32) * 2f64.powi(twos - halves) * if negative { -1.0 } else { 1.0 };
        each_tier(|tier| {
            let t = T::table_for(tier).unwrap();
            let s = (t.sum)(&x).to_f64();
            if s != want as f64 || s.fract() != 0.0 {
                failures.push(format!("{tier} {} sum n {n}: {s} != {want}", T::NAME));
            }
            let d = (t.dot)(&dx, &dy).to_f64();
            if d != want_dot as f64 {
                failures.push(format!("{tier} {} dot n {n}: {d} != {want_dot}", T::NAME));
            }
            let p = (t.prod)(&pf).to_f64();
            if p != want_prod {
                failures.push(format!("{tier} {} prod n {n}: {p} != {want_prod}", T::NAME));
            }
        });
    }
    report(failures);
}

#[test]
fn exact_on_integers_f32() {
    check_exact_integers::<f32>();
}

#[test]
fn exact_on_integers_f64() {
    check_exact_integers::<f64>();
}

/// The leaves of `Pairwise` in their tree, against the same leaves pushed as the sums
/// of aligned groups of `2^g` (each group's perfect tree written out, as the kernels
/// do) and the last fewer than `2^g` leaves' own pairwise sum passed to
/// `finish_with_tail`; and both against the recursive tree of `blocked`. Leaves of
/// mixed magnitudes, so that any other grouping changes the bits.
#[test]
fn pairwise_groups_match_leaf_by_leaf() {
    use ndsimd_kernels::scalar::{pairwise, Pairwise};
    /// The perfect tree over `leaves` (a power of two of them), written recursively.
    fn perfect(leaves: &[f64]) -> f64 {
        match leaves.len() {
            1 => leaves[0],
            k => perfect(&leaves[..k / 2]) + perfect(&leaves[k / 2..]),
        }
    }
    let mut rng = XorShift(0x5eed_1234_abcd_0042);
    let mut failures = Vec::new();
    let counts = (0..300).chain([511, 512, 513, 1000, 4095, 4096, 4097, 12_345]);
    for m in counts {
        let leaves: Vec<f64> = (0..m).map(|_| finite(&mut rng, -40, 40)).collect();
        let want = pairwise(&leaves, -0.0);
        // The independent statement of the tree: one leaf per "block" of one element.
        let tree = if m == 0 {
            -0.0
        } else {
            blocked::<f64>(m * 256, &|r| leaves[r.start / 256])
        };
        if tree.to_bits() != want.to_bits() {
            failures.push(format!("{m} leaves: Pairwise {want:e}, tree {tree:e}"));
        }
        for g in 1..=4 {
            let size = 1 << g;
            let mut p = Pairwise::new(-0.0);
            let groups = leaves.chunks_exact(size);
            let tail = groups.remainder();
            for group in groups {
                p.push(perfect(group));
            }
            let got = if tail.is_empty() {
                p.finish()
            } else {
                p.finish_with_tail(pairwise(tail, -0.0))
            };
            if got.to_bits() != want.to_bits() {
                failures.push(format!(
                    "{m} leaves in groups of {size}: {got:e}, leaf by leaf {want:e}"
                ));
            }
        }
    }
    report(failures);
}
