//! exp, log, exp2, log2, log10, expm1, log1p and tanh at every tier this host
//! runs: accuracy against correctly rounded references (`data/math_*.txt`, from `data/gen_math_ref.py` with mpmath), the
//! IEEE edges as NumPy has them, every length and alignment, and guard pages.
//!
//! The tiers need not agree bit for bit (the vector kernels fuse multiply-adds where
//! the ISA has FMA); each must stay within the bound of the exact result.

mod common;

use common::{each_tier, TestFloat, XorShift, MAX_LEN, W};
use ndsimd_kernels::math::{
    cos_f32, cos_f64, exp2_f32, exp2_f64, exp_f32, exp_f64, log10_f32, log10_f64, log2_f32,
    log2_f64, log_f32, log_f64, pow_f32, pow_f64, sin_f32, sin_f64,
};
use ndsimd_kernels::math::{expm1_f32, expm1_f64, log1p_f32, log1p_f64, tanh_f32, tanh_f64};
use ndsimd_kernels::{Table, UnaryOp};

/// The bound every tier must meet, in ULPs of the exact result.
const MAX_ULP: f64 = 1.0;

/// What the tests need of an element type here.
trait MathFloat: TestFloat {
    /// The oracle of `name`.
    fn oracle(name: &str, x: Self) -> Self;
    /// The spacing of the values around `x` (finite): the ULP the error is counted in.
    fn ulp(x: Self) -> f64;
}

impl MathFloat for f64 {
    fn oracle(name: &str, x: f64) -> f64 {
        match name {
            "exp" => exp_f64(x),
            "log" => log_f64(x),
            "exp2" => exp2_f64(x),
            "log2" => log2_f64(x),
            "log10" => log10_f64(x),
            "expm1" => expm1_f64(x),
            "log1p" => log1p_f64(x),
            "tanh" => tanh_f64(x),
            "sin" => sin_f64(x),
            "cos" => cos_f64(x),
            _ => unreachable!(),
        }
    }
    fn ulp(x: f64) -> f64 {
        // 2^(e - 1023) * 2^-52, exact down to the subnormals' 2^-1074.
        let e = (x.abs().to_bits() >> 52).max(1);
        f64::from_bits(e << 52) * f64::from_bits((1023 - 52) << 52)
    }
}

impl MathFloat for f32 {
    fn oracle(name: &str, x: f32) -> f32 {
        match name {
            "exp" => exp_f32(x),
            "log" => log_f32(x),
            "exp2" => exp2_f32(x),
            "log2" => log2_f32(x),
            "log10" => log10_f32(x),
            "expm1" => expm1_f32(x),
            "log1p" => log1p_f32(x),
            "tanh" => tanh_f32(x),
            "sin" => sin_f32(x),
            "cos" => cos_f32(x),
            _ => unreachable!(),
        }
    }
    fn ulp(x: f32) -> f64 {
        let e = ((x.abs().to_bits() >> 23) as i64).max(1);
        2f64.powi((e - 127 - 23) as i32)
    }
}

fn op<'a, T>(t: &'a Table<T>, name: &str) -> &'a UnaryOp<T> {
    match name {
        "exp" => &t.exp,
        "log" => &t.log,
        "exp2" => &t.exp2,
        "log2" => &t.log2,
        "log10" => &t.log10,
        "expm1" => &t.expm1,
        "log1p" => &t.log1p,
        "tanh" => &t.tanh,
        "sin" => &t.sin,
        "cos" => &t.cos,
        _ => unreachable!(),
    }
}

/// (input, correctly rounded result, exact minus rounded in ULPs) of one file.
fn reference<T: MathFloat>(name: &str) -> Vec<(T, T, f64)> {
    let path = format!(
        "{}/tests/data/math_{name}_{}.txt",
        env!("CARGO_MANIFEST_DIR"),
        T::NAME
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let rows: Vec<(T, T, f64)> = text
        .lines()
        .map(|l| {
            let mut f = l.split(' ');
            let mut hex = || T::from_bits64(u64::from_str_radix(f.next().unwrap(), 16).unwrap());
            let (x, y) = (hex(), hex());
            (x, y, f.next().unwrap().parse().unwrap())
        })
        .collect();
    assert!(rows.len() >= 20_000, "{path}: {} points", rows.len());
    rows
}

/// The error of `got` in ULPs of the exact result (`want` rounded, `off` the exact
/// minus `want` in ULPs); infinite when a special value is wrong.
fn ulp_error<T: MathFloat>(got: T, want: T, off: f64) -> f64 {
    if want.nan() || got.nan() {
        return if want.nan() && got.nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let (g, w) = (got.to_f64(), want.to_f64());
    if w.is_infinite() || g.is_infinite() {
        // An infinite reference means the exact value rounds past MAX.
        return if g == w { 0.0 } else { f64::INFINITY };
    }
    if w == 0.0 && off == 0.0 && g != 0.0 {
        // Exactly zero (log 1): anything else is wrong.
        return f64::INFINITY;
    }
    ((g - w) / T::ulp(want) - off).abs()
}

fn accuracy<T: MathFloat>(name: &str) {
    let rows = reference::<T>(name);
    let xs: Vec<T> = rows.iter().map(|r| r.0).collect();
    each_tier(|tier| {
        let mut out = vec![T::ZERO; xs.len()];
        (op(T::table_for(tier).unwrap(), name).map)(&xs, &mut out);
        let mut worst = (0.0f64, 0usize);
        for (i, (&got, &(_, want, off))) in out.iter().zip(&rows).enumerate() {
            let e = ulp_error(got, want, off);
            if e > worst.0 {
                worst = (e, i);
            }
        }
        let (e, i) = worst;
        println!(
            "{name} {} {tier}: max {e:.3} ULP over {} points (at x = {:?}: {:?}, exact {:?} {:+.3})",
            T::NAME,
            rows.len(),
            rows[i].0,
            out[i],
            rows[i].1,
            rows[i].2
        );
        assert!(
            e <= MAX_ULP,
            "{name} {} {tier}: {e} ULP at x = {:?} ({:#x}): got {:?}, want {:?}",
            T::NAME,
            rows[i].0,
            rows[i].0.bits(),
            out[i],
            rows[i].1
        );
        // The oracle too (the scalar tier's table is the oracle; this also
        // covers it when NDSIMD_TIER caps nothing).
        let oracle_worst = rows
            .iter()
            .map(|&(x, want, off)| ulp_error(T::oracle(name, x), want, off))
            .fold(0.0, f64::max);
        assert!(oracle_worst <= MAX_ULP, "{name} oracle: {oracle_worst} ULP");
    });
}

#[test]
fn exp_f64_within_one_ulp_at_every_tier() {
    accuracy::<f64>("exp");
}

#[test]
fn exp_f32_within_one_ulp_at_every_tier() {
    accuracy::<f32>("exp");
}

#[test]
fn log_f64_within_one_ulp_at_every_tier() {
    accuracy::<f64>("log");
}

#[test]
fn log_f32_within_one_ulp_at_every_tier() {
    accuracy::<f32>("log");
}

#[test]
fn exp2_f64_within_one_ulp_at_every_tier() {
    accuracy::<f64>("exp2");
}

#[test]
fn exp2_f32_within_one_ulp_at_every_tier() {
    accuracy::<f32>("exp2");
}

#[test]
fn log2_f64_within_one_ulp_at_every_tier() {
    accuracy::<f64>("log2");
}

#[test]
fn log2_f32_within_one_ulp_at_every_tier() {
    accuracy::<f32>("log2");
}

#[test]
fn log10_f64_within_one_ulp_at_every_tier() {
    accuracy::<f64>("log10");
}

#[test]
fn log10_f32_within_one_ulp_at_every_tier() {
    accuracy::<f32>("log10");
}

#[test]
fn expm1_f64_within_one_ulp_at_every_tier() {
    accuracy::<f64>("expm1");
}

#[test]
fn expm1_f32_within_one_ulp_at_every_tier() {
    accuracy::<f32>("expm1");
}

#[test]
fn log1p_f64_within_one_ulp_at_every_tier() {
    accuracy::<f64>("log1p");
}

#[test]
fn log1p_f32_within_one_ulp_at_every_tier() {
    accuracy::<f32>("log1p");
}

#[test]
fn tanh_f64_within_one_ulp_at_every_tier() {
    accuracy::<f64>("tanh");
}

#[test]
fn tanh_f32_within_one_ulp_at_every_tier() {
    accuracy::<f32>("tanh");
}

/// Every function of this file.
const NAMES: [&str; 10] = [
    "exp", "log", "exp2", "log2", "log10", "expm1", "log1p", "tanh", "sin", "cos",
];

/// NumPy's results at the edges, exactly (NaN: any NaN).
fn edges<T: MathFloat>() {
    let inf = T::from_f64(f64::INFINITY);
    let nan = T::from_f64(f64::NAN);
    let max = T::from_bits64(T::from_f64(f64::INFINITY).bits() - 1);
    let tiny = T::from_bits64(1);
    // (function, input, result)
    let mut cases: Vec<(&str, T, T)> = vec![
        ("exp", T::ZERO, T::ONE),
        ("exp", -T::ZERO, T::ONE),
        ("exp", inf, inf),
        ("exp", -inf, T::ZERO),
        ("exp", nan, nan),
        ("exp", -nan, nan),
        ("exp", max, inf),
        ("exp", -max, T::ZERO),
        ("exp", tiny, T::ONE),
        ("exp", -tiny, T::ONE),
        ("log", T::ZERO, -inf),
        ("log", -T::ZERO, -inf),
        ("log", T::ONE, T::ZERO),
        ("log", inf, inf),
        ("log", -inf, nan),
        ("log", -T::ONE, nan),
        ("log", -tiny, nan),
        ("log", nan, nan),
        ("log", -nan, nan),
        ("exp2", T::ZERO, T::ONE),
        ("exp2", inf, inf),
        ("exp2", -inf, T::ZERO),
        ("exp2", nan, nan),
        ("exp2", max, inf),
        ("exp2", -max, T::ZERO),
        ("exp2", T::from_f64(3.0), T::from_f64(8.0)),
        ("exp2", T::from_f64(-2.0), T::from_f64(0.25)),
        (
            "exp2",
            T::from_f64(if T::NAME == "f64" { -1074.0 } else { -149.0 }),
            tiny,
        ),
        (
            "exp2",
            T::from_f64(if T::NAME == "f64" { -1076.0 } else { -151.0 }),
            T::ZERO,
        ),
        (
            "exp2",
            T::from_f64(if T::NAME == "f64" { 1024.0 } else { 128.0 }),
            inf,
        ),
    ];
    for name in ["log2", "log10"] {
        cases.extend([
            (name, T::ZERO, -inf),
            (name, -T::ZERO, -inf),
            (name, T::ONE, T::ZERO),
            (name, inf, inf),
            (name, -inf, nan),
            (name, -T::ONE, nan),
            (name, nan, nan),
        ]);
    }
    // Exact powers: log2 of 2^k and log10 of 10^k are the integer k.
    for k in [-3i32, 1, 5, 20] {
        cases.push(("log2", T::from_f64(2f64.powi(k)), T::from_f64(k as f64)));
    }
    cases.push((
        "log2",
        tiny,
        T::from_f64(if T::NAME == "f64" { -1074.0 } else { -149.0 }),
    ));
    for k in [1i32, 2, 3, 7] {
        cases.push(("log10", T::from_f64(10f64.powi(k)), T::from_f64(k as f64)));
    }
    // Just below the overflow threshold: finite; just above: +Inf. The last
    // subnormal and past it: 2^-1074 (or 2^-149), then +0.
    let (below, above, sub, zero) = if T::NAME == "f64" {
        (
            709.782712893384,
            709.7827128933841,
            -745.1332191019411,
            -745.1332191019412,
        )
    } else {
        (88.72283, 88.72284, -103.27892, -103.972084)
    };
    let big = T::from_f64(if T::NAME == "f64" {
        f64::MAX
    } else {
        f32::MAX as f64
    });
    assert!(T::oracle("exp", T::from_f64(below)) <= big);
    cases.push(("exp", T::from_f64(above), inf));
    cases.push(("exp", T::from_f64(sub), tiny));
    cases.push(("exp", T::from_f64(zero), T::ZERO));
    // expm1, log1p, tanh: NumPy's edges; tiny inputs come back exactly (their
    // square is below half an ULP of them), `-0` keeps its sign.
    let f64_ = T::NAME == "f64";
    let small = T::from_f64(if f64_ { 2f64.powi(-55) } else { 2f64.powi(-26) });
    for name in ["expm1", "log1p", "tanh"] {
        cases.extend([
            (name, T::ZERO, T::ZERO),
            (name, -T::ZERO, -T::ZERO),
            (name, nan, nan),
            (name, -nan, nan),
            (name, tiny, tiny),
            (name, -tiny, -tiny),
            (name, small, small),
            (name, -small, -small),
        ]);
    }
    let one = T::ONE;
    cases.extend([
        ("expm1", inf, inf),
        ("expm1", -inf, -one),
        ("expm1", max, inf),
        ("expm1", -max, -one),
        ("expm1", T::from_f64(above), inf),
        ("expm1", T::from_f64(if f64_ { -38.0 } else { -18.0 }), -one),
        ("log1p", -one, -inf),
        ("log1p", T::from_f64(-2.0), nan),
        ("log1p", -inf, nan),
        ("log1p", -max, nan),
        ("log1p", inf, inf),
        ("tanh", inf, one),
        ("tanh", -inf, -one),
        ("tanh", max, one),
        ("tanh", -max, -one),
        ("tanh", T::from_f64(if f64_ { 19.1 } else { 9.1 }), one),
        ("tanh", T::from_f64(if f64_ { -19.1 } else { -9.1 }), -one),
    ]);
    each_tier(|tier| {
        let t = T::table_for(tier).unwrap();
        // Each case at every lane position of a vector and in the tail.
        for &(name, x, want) in &cases {
            for len in [1, 3, W, W + 5] {
                for at in 0..len {
                    let mut xs = vec![T::from_f64(0.75); len];
                    xs[at] = x;
                    let mut out = vec![T::canary(); len];
                    (op(t, name).map)(&xs, &mut out);
                    let got = out[at];
                    let ok = if want.nan() {
                        got.nan()
                    } else {
                        got.bits() == want.bits()
                    };
                    assert!(
                        ok,
                        "{name}({x:?}) = {got:?}, want {want:?} (len {len} lane {at})"
                    );
                }
            }
        }
        for name in ["exp", "expm1"] {
            let f = T::oracle(name, T::from_f64(below));
            let mut out = [T::ZERO; 1];
            (op(t, name).map)(&[T::from_f64(below)], &mut out);
            assert!(out[0].bits() == f.bits() || (out[0].to_f64() - f.to_f64()).abs() <= T::ulp(f));
            assert!(out[0] <= big, "{name} just below the threshold overflowed");
        }
    });
}

#[test]
fn edges_are_numpys_at_every_tier() {
    edges::<f64>();
    edges::<f32>();
}

/// Random inputs of one function: the domain's values with edges mixed in.
fn input<T: MathFloat>(name: &str, rng: &mut XorShift) -> T {
    let r = rng.next();
    let e = T::edges();
    match r % 8 {
        0 => e[(r >> 8) as usize % e.len()],
        1 => T::random(rng),
        _ => {
            let u = (r >> 11) as f64 / (1u64 << 53) as f64;
            T::from_f64(match name {
                // Both paths of the functions accurate near 0, mixed in a vector.
                "expm1" | "log1p" | "tanh" if r & 1 == 0 => 0.2 * u - 0.1,
                "log1p" => 3.0 * u - 1.0,
                "tanh" => 50.0 * u - 25.0,
                _ if name.starts_with("exp") => 200.0 * u - 100.0,
                _ => 100.0 * u,
            })
        }
    }
}

/// Every length up to three vectors and a tail, at every start alignment, through
/// `map`, `map_uninit` and `assign`: each element within the bound of the oracle's.
fn lengths<T: MathFloat>() {
    let mut rng = XorShift(0x1234_5678_9abc_def1);
    each_tier(|tier| {
        let t = T::table_for(tier).unwrap();
        for name in NAMES {
            let k = op(t, name);
            for len in 0..=MAX_LEN {
                for skew in 0..W.min(8) {
                    let buf: Vec<T> = (0..len + skew).map(|_| input(name, &mut rng)).collect();
                    let xs = &buf[skew..];
                    let mut out = vec![T::canary(); len + skew + 1];
                    (k.map)(xs, &mut out[skew..skew + len]);
                    let mut un = vec![std::mem::MaybeUninit::new(T::canary()); len];
                    (k.map_uninit.get())(xs, &mut un);
                    let mut acc = xs.to_vec();
                    (k.assign)(&mut acc);
                    assert_eq!(out[len + skew].bits(), T::canary().bits(), "wrote past");
                    for i in 0..len {
                        // The same tier on the element alone (a tail of one): its
                        // result must not depend on the neighbours or the position.
                        let mut alone = [T::canary()];
                        (k.map)(&xs[i..i + 1], &mut alone);
                        assert_eq!(
                            out[skew + i].bits(),
                            alone[0].bits(),
                            "{name} len {len} skew {skew} [{i}]: {:?} alone gives {:?}, in the slice {:?}",
                            xs[i],
                            alone[0],
                            out[skew + i]
                        );
                        let want = T::oracle(name, xs[i]);
                        // SAFETY: `map_uninit` writes every element.
                        let u = unsafe { un[i].assume_init() };
                        for (how, got) in
                            [("map", out[skew + i]), ("uninit", u), ("assign", acc[i])]
                        {
                            let ok = if want.nan() {
                                got.nan()
                            } else if want.to_f64().is_infinite() || want.to_f64() == 0.0 {
                                got.bits() == want.bits()
                            } else {
                                (got.to_f64() - want.to_f64()).abs() <= T::ulp(want)
                            };
                            assert!(
                                ok,
                                "{name} {how} len {len} skew {skew} [{i}]: {:?} -> {got:?}, oracle {want:?}",
                                xs[i]
                            );
                        }
                    }
                }
            }
        }
    });
}

#[test]
fn every_length_and_alignment_at_every_tier() {
    lengths::<f64>();
    lengths::<f32>();
}

/// Each element's result whatever the output's place against the input (the
/// kernels take the vectors in descending order where `out` starts a little past
/// the input modulo 4 KiB): `map` over several blocks of 16 vectors and a tail,
/// edge inputs among them, with the output 0 to 4 KiB past the input, against
/// the one-element call of each element (the same vector path, padded).
fn placement<T: MathFloat>() {
    let size = std::mem::size_of::<T>();
    let n = 3 * 16 * W + 5;
    let page = 4096 / size;
    let base = n.div_ceil(page) * page;
    let mut buf = vec![T::ZERO; base + 2 * page + n];
    let mut rng = XorShift(0x0ff5_e7ba_c4a1_1a5e);
    each_tier(|tier| {
        let t = T::table_for(tier).unwrap();
        for name in NAMES {
            let k = op(t, name);
            let xs: Vec<T> = (0..n).map(|_| input(name, &mut rng)).collect();
            let want: Vec<T> = xs
                .iter()
                .map(|&x| {
                    let mut o = [T::ZERO];
                    (k.map)(&[x], &mut o);
                    o[0]
                })
                .collect();
            for gap in [0, 8, 48, 64, 128, 192, 256, 448, 504, 512, 2048, 4032, 4088] {
                let (x, rest) = buf.split_at_mut(base);
                x[..n].copy_from_slice(&xs);
                let at = gap / size;
                let out = &mut rest[at..at + n];
                (k.map)(&x[..n], out);
                for (i, (g, w)) in out.iter().zip(&want).enumerate() {
                    assert_eq!(
                        g.bits(),
                        w.bits(),
                        "{tier:?} {name} output {gap} B past the input mod 4 KiB, [{i}]"
                    );
                }
            }
        }
    });
}

#[test]
fn results_do_not_depend_on_the_output_place() {
    placement::<f64>();
    placement::<f32>();
}

/// Slices that end at or start right after a PROT_NONE page: a read or write one
/// element too far kills the test.
#[cfg(unix)]
fn fenced<T: MathFloat + common::fenced::AnyBits>() {
    use common::fenced::{Fenced, PLACES};
    let bytes = MAX_LEN * std::mem::size_of::<T>();
    let (mut ga, mut gout) = (Fenced::new(bytes), Fenced::new(bytes));
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    each_tier(|tier| {
        let t = T::table_for(tier).unwrap();
        for name in NAMES {
            let k = op(t, name);
            for len in 0..=MAX_LEN {
                for pin in PLACES {
                    for pout in PLACES {
                        for x in ga.slice::<T>(pin, len).iter_mut() {
                            *x = input(name, &mut rng);
                        }
                        let a: Vec<T> = ga.slice::<T>(pin, len).to_vec();
                        (k.map)(&a, gout.slice(pout, len));
                        (k.map)(ga.slice(pin, len), gout.slice(pout, len));
                        (k.assign)(gout.slice(pout, len));
                        (k.assign)(ga.slice(pin, len));
                    }
                }
            }
        }
    });
}

#[cfg(unix)]
#[test]
fn guard_pages_at_every_tier() {
    fenced::<f64>();
    fenced::<f32>();
}

/// Nanoseconds per element of each tier's kernels (run with `--ignored --nocapture`).
#[test]
#[ignore]
fn speed() {
    fn run<T: MathFloat>(n: usize) {
        let xs: Vec<T> = (0..n)
            .map(|i| T::from_f64(1.0 + (i * 7919 % 1000) as f64 / 64.0))
            .collect();
        let mut out = vec![T::ZERO; n];
        each_tier(|tier| {
            let t = T::table_for(tier).unwrap();
            // SPEED_ONLY=expm1,tanh: only those functions.
            let only = std::env::var("SPEED_ONLY").unwrap_or_default();
            for name in NAMES {
                if !only.is_empty() && !only.split(',').any(|o| o == name) {
                    continue;
                }
                let k = op(t, name);
                let mut best = f64::MAX;
                for _ in 0..20 {
                    let s = std::time::Instant::now();
                    (k.map)(&xs, &mut out);
                    best = best.min(s.elapsed().as_secs_f64());
                }
                println!(
                    "{name} {} {tier} n {n}: {:.3} ns/elem",
                    T::NAME,
                    best * 1e9 / n as f64
                );
            }
        });
    }
    if std::env::var("SPEED_F32_ONLY").is_err() {
        run::<f64>(1 << 14);
        run::<f64>(1 << 18);
    }
    run::<f32>(1 << 22);
    run::<f32>(1 << 14);
}

#[test]
fn sin_f64_within_one_ulp_at_every_tier() {
    accuracy::<f64>("sin");
}

#[test]
fn sin_f32_within_one_ulp_at_every_tier() {
    accuracy::<f32>("sin");
}

#[test]
fn cos_f64_within_one_ulp_at_every_tier() {
    accuracy::<f64>("cos");
}

#[test]
fn cos_f32_within_one_ulp_at_every_tier() {
    accuracy::<f32>("cos");
}

/// sin and cos at NumPy's edges, every lane position: NaN for NaN and ±Inf,
/// `sin(±0) = ±0`, `sin x = x` for tiny and subnormal `x`, exact values at 0,
/// and inputs past the vector path's bound (reduced by the scalar path).
fn trig_edges<T: MathFloat>() {
    let inf = T::from_f64(f64::INFINITY);
    let nan = T::from_f64(f64::NAN);
    let tiny = T::from_bits64(1);
    let small = T::from_f64(1e-5);
    let normal = T::from_f64(if T::NAME == "f64" {
        f64::MIN_POSITIVE
    } else {
        f32::MIN_POSITIVE as f64
    });
    let mut cases: Vec<(&str, T, T)> = vec![];
    for name in ["sin", "cos"] {
        cases.extend([
            (name, inf, nan),
            (name, -inf, nan),
            (name, nan, nan),
            (name, -nan, nan),
        ]);
    }
    cases.extend([
        ("sin", T::ZERO, T::ZERO),
        ("sin", -T::ZERO, -T::ZERO),
        ("sin", tiny, tiny),
        ("sin", -tiny, -tiny),
        ("sin", normal, normal),
        ("sin", -normal, -normal),
        ("cos", T::ZERO, T::ONE),
        ("cos", -T::ZERO, T::ONE),
        ("cos", tiny, T::ONE),
    ]);
    if T::NAME == "f64" {
        // sin x = x - x^3/6 rounds to x below 2^-26; 1e-5 does not.
        cases.push(("sin", small, T::from_f64(9.999999999833334e-6)));
        // Past the bound: exact reductions (values from mpmath).
        cases.push(("sin", T::from_f64(1e22), T::from_f64(-0.8522008497671888)));
        cases.push(("cos", T::from_f64(1e22), T::from_f64(0.523214785395139)));
        cases.push((
            "sin",
            T::from_f64(f64::MAX),
            T::from_f64(0.004961954789184062),
        ));
    } else {
        cases.push(("sin", small, T::from_f64(9.999999747378752e-6)));
        cases.push(("sin", T::from_f64(1e10), T::from_f64(-0.48750603199005127)));
    }
    each_tier(|tier| {
        let t = T::table_for(tier).unwrap();
        for &(name, x, want) in &cases {
            for len in [1, 3, W, W + 5] {
                for at in 0..len {
                    let mut xs = vec![T::from_f64(0.75); len];
                    xs[at] = x;
                    let mut out = vec![T::canary(); len];
                    (op(t, name).map)(&xs, &mut out);
                    let got = out[at];
                    let ok = if want.nan() {
                        got.nan()
                    } else {
                        got.bits() == want.bits()
                    };
                    assert!(
                        ok,
                        "{tier}: {name}({x:?}) = {got:?}, want {want:?} (len {len} lane {at})"
                    );
                    // The other lanes keep their own value.
                    let other = T::oracle(name, T::from_f64(0.75));
                    for (i, o) in out.iter().enumerate() {
                        if i != at {
                            let d = (o.to_f64() - other.to_f64()).abs();
                            assert!(
                                d <= T::ulp(other),
                                "{tier}: {name} lane {i} disturbed: {o:?}"
                            );
                        }
                    }
                }
            }
        }
    });
}

#[test]
fn trig_edges_are_numpys_at_every_tier() {
    trig_edges::<f64>();
    trig_edges::<f32>();
}

/// `pow` of each type as a function of two elements.
fn pow_oracle<T: MathFloat>(x: T, y: T) -> T {
    if T::NAME == "f64" {
        T::from_f64(pow_f64(x.to_f64(), y.to_f64()))
    } else {
        T::from_f64(pow_f32(x.to_f64() as f32, y.to_f64() as f32) as f64)
    }
}

/// (x, y, correctly rounded x^y, exact minus rounded in ULPs) of `math_pow_*.txt`.
fn pow_reference<T: MathFloat>() -> Vec<(T, T, T, f64)> {
    let path = format!(
        "{}/tests/data/math_pow_{}.txt",
        env!("CARGO_MANIFEST_DIR"),
        T::NAME
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let rows: Vec<(T, T, T, f64)> = text
        .lines()
        .map(|l| {
            let mut f = l.split(' ');
            let mut hex = || T::from_bits64(u64::from_str_radix(f.next().unwrap(), 16).unwrap());
            let (x, y, r) = (hex(), hex(), hex());
            (x, y, r, f.next().unwrap().parse().unwrap())
        })
        .collect();
    assert!(rows.len() >= 20_000, "{path}: {} points", rows.len());
    rows
}

/// The bound of `pow` at every tier, in ULPs of the exact result.
const POW_MAX_ULP: f64 = 1.0;

/// Every tier's `pow` (array-array, array-scalar, scalar-array, in place) against
/// the reference; zeros, infinities and NaN results (C99's edges) bit for bit
/// (any NaN for NaN).
fn pow_accuracy<T: MathFloat>() {
    let rows = pow_reference::<T>();
    let xs: Vec<T> = rows.iter().map(|r| r.0).collect();
    let ys: Vec<T> = rows.iter().map(|r| r.1).collect();
    let check = |got: T, (x, y, want, off): (T, T, T, f64), what: &str| -> f64 {
        let w = want.to_f64();
        if !want.nan() && (w == 0.0 || w.is_infinite()) {
            assert_eq!(
                got.bits(),
                want.bits(),
                "{what}: pow({x:?}, {y:?}) = {got:?}, want {want:?}"
            );
            return 0.0;
        }
        ulp_error(got, want, off)
    };
    each_tier(|tier| {
        let t = T::table_for(tier).unwrap();
        let mut out = vec![T::ZERO; xs.len()];
        (t.pow.vv)(&xs, &ys, &mut out);
        let mut worst = (0.0f64, 0usize);
        for (i, (&got, &row)) in out.iter().zip(&rows).enumerate() {
            let e = check(got, row, &format!("{tier} vv"));
            if e > worst.0 {
                worst = (e, i);
            }
        }
        let (e, i) = worst;
        let r = rows[i];
        println!(
            "pow {} {tier}: max {e:.3} ULP over {} points (at pow({:?}, {:?}): {:?}, exact {:?} {:+.3})",
            T::NAME,
            rows.len(),
            r.0,
            r.1,
            out[i],
            r.2,
            r.3
        );
        assert!(
            e <= POW_MAX_ULP,
            "pow {} {tier}: {e} ULP at pow({:?}, {:?}): got {:?}, want {:?}",
            T::NAME,
            r.0,
            r.1,
            out[i],
            r.2
        );
        // The other operand shapes give the same bits as `vv`.
        let mut acc = xs.clone();
        (t.pow.assign_vv)(&mut acc, &ys);
        assert!(acc
            .iter()
            .zip(&out)
            .all(|(a, b)| a.bits() == b.bits() || (a.nan() && b.nan())));
        for &s in &[T::from_f64(2.0), T::from_f64(-3.0), T::from_f64(0.5)] {
            let mut vs = vec![T::ZERO; xs.len()];
            (t.pow.vs)(&xs, s, &mut vs);
            let mut sv = vec![T::ZERO; xs.len()];
            (t.pow.sv)(s, &xs, &mut sv);
            for (i, &x) in xs.iter().enumerate() {
                let mut one = [T::ZERO];
                (t.pow.vv)(&[x], &[s], &mut one);
                assert!(vs[i].bits() == one[0].bits() || (vs[i].nan() && one[0].nan()));
                (t.pow.vv)(&[s], &[x], &mut one);
                assert!(sv[i].bits() == one[0].bits() || (sv[i].nan() && one[0].nan()));
            }
        }
        let oracle_worst = rows
            .iter()
            .map(|&row| check(pow_oracle(row.0, row.1), row, "oracle"))
            .fold(0.0, f64::max);
        assert!(
            oracle_worst <= POW_MAX_ULP,
            "pow oracle: {oracle_worst} ULP"
        );
    });
}

#[test]
fn pow_f64_within_one_ulp_at_every_tier() {
    pow_accuracy::<f64>();
}

#[test]
fn pow_f32_within_one_ulp_at_every_tier() {
    pow_accuracy::<f32>();
}

/// C99's and NumPy's edges of `pow`, each pair at every lane position of a vector
/// and in the tail, the other lanes ordinary and left as they are alone.
fn pow_edges<T: MathFloat>() {
    let f = T::from_f64;
    let (inf, nan, z) = (f(f64::INFINITY), f(f64::NAN), T::ZERO);
    let cases: Vec<(T, T, T)> = vec![
        (nan, z, T::ONE),
        (nan, -z, T::ONE),
        (inf, z, T::ONE),
        (T::ONE, nan, T::ONE),
        (T::ONE, inf, T::ONE),
        (f(-1.0), inf, T::ONE),
        (f(-1.0), -inf, T::ONE),
        (f(0.5), -inf, inf),
        (f(2.0), -inf, z),
        (f(0.5), inf, z),
        (f(2.0), inf, inf),
        (f(-2.0), f(0.5), nan),
        (f(-8.0), f(1.0 / 3.0), nan),
        (f(-2.0), f(3.0), f(-8.0)),
        (f(-2.0), f(2.0), f(4.0)),
        (f(-2.0), f(-1.0), f(-0.5)),
        (z, f(-3.0), inf),
        (-z, f(-3.0), -inf),
        (-z, f(-2.0), inf),
        (-z, f(-0.5), inf),
        (z, f(3.0), z),
        (-z, f(3.0), -z),
        (-z, f(2.0), z),
        (-z, f(0.5), z),
        (-inf, f(3.0), -inf),
        (-inf, f(2.0), inf),
        (-inf, f(-3.0), -z),
        (-inf, f(-2.0), z),
        (inf, f(-1.0), z),
        (f(2.0), nan, nan),
        (nan, f(2.0), nan),
        (f(10.0), f(400.0), inf),
        (f(-10.0), f(401.0), -inf),
        (f(10.0), f(-400.0), z),
        (f(-10.0), f(-401.0), -z),
        (f(2.0), f(10.0), f(1024.0)),
        (f(2.0), f(-2.0), f(0.25)),
        (f(9.0), f(0.5), f(3.0)),
    ];
    each_tier(|tier| {
        let t = T::table_for(tier).unwrap();
        let other = {
            let mut o = [T::ZERO];
            (t.pow.vv)(&[f(0.75)], &[f(1.5)], &mut o);
            o[0]
        };
        for &(x, y, want) in &cases {
            for len in [1, 3, W, W + 5] {
                for at in 0..len {
                    let (mut xs, mut ys) = (vec![f(0.75); len], vec![f(1.5); len]);
                    xs[at] = x;
                    ys[at] = y;
                    let mut out = vec![T::canary(); len];
                    (t.pow.vv)(&xs, &ys, &mut out);
                    let got = out[at];
                    let ok = if want.nan() {
                        got.nan()
                    } else {
                        got.bits() == want.bits()
                    };
                    assert!(
                        ok,
                        "{tier}: pow({x:?}, {y:?}) = {got:?}, want {want:?} (len {len} lane {at})"
                    );
                    for (i, o) in out.iter().enumerate() {
                        assert!(
                            i == at || o.bits() == other.bits(),
                            "{tier}: pow lane {i} disturbed by pow({x:?}, {y:?}): {o:?}"
                        );
                    }
                }
            }
        }
    });
}

#[test]
fn pow_edges_are_c99s_at_every_tier() {
    pow_edges::<f64>();
    pow_edges::<f32>();
}

/// softmax's row pass `exp_shift_sum`: every length and alignment, each output
/// the bits of this tier's `exp` of `x - s` (no element left unwritten, none past
/// the end), and the returned sum within `n` ε of the sequential sum of them.
fn shift_sum<T: MathFloat>() {
    let mut rng = XorShift(0x5eed_0f5a_f7a1_0001);
    each_tier(|tier| {
        let t = T::table_for(tier).unwrap();
        let k = t.exp_shift_sum.get();
        // Past the kernel's blocks of 16 vectors too (the sum reads each block back).
        for len in (0..=MAX_LEN).chain([2 * 16 * W + 5, 3 * 16 * W + 11]) {
            for skew in 0..W.min(8) {
                // Finite rows (softmax shifts by a finite maximum).
                let buf: Vec<T> = (0..len + skew)
                    .map(|_| {
                        T::from_f64((rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 200.0 - 100.0)
                    })
                    .collect();
                let xs = &buf[skew..];
                let s = xs
                    .iter()
                    .copied()
                    .fold(T::ZERO, |m, v| if v > m { v } else { m });
                let mut out = vec![std::mem::MaybeUninit::new(T::canary()); len + 1];
                let sum = k(xs, s, &mut out[..len]);
                // SAFETY: every element was initialised with the canary.
                let out: Vec<T> = out.iter().map(|v| unsafe { v.assume_init() }).collect();
                assert_eq!(out[len].bits(), T::canary().bits(), "wrote past");
                let shifted: Vec<T> = xs.iter().map(|&v| v - s).collect();
                let mut want = vec![T::ZERO; len];
                (t.exp.map)(&shifted, &mut want);
                let mut seq = 0.0f64;
                for i in 0..len {
                    assert_eq!(out[i].bits(), want[i].bits(), "{tier:?} len {len} [{i}]");
                    seq += want[i].to_f64();
                }
                let bound = (len as f64 + 1.0) * T::EPS * seq;
                assert!(
                    (sum.to_f64() - seq).abs() <= bound,
                    "{tier:?} len {len}: sum {sum:?}, sequential {seq}"
                );
            }
        }
    });
}

#[test]
fn exp_shift_sum_is_exp_of_the_shifted_row_and_its_sum_at_every_tier() {
    shift_sum::<f64>();
    shift_sum::<f32>();
}

/// glibc's libmvec (the bench's peer) against the same references: its max
/// error printed for docs/perf.md, bounded by its documented 4 ULP (a wrong
/// routine or a broken call would be far off).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn libmvec_peer_error_against_the_references() {
    let Some(m) = ndsimd_kernels::libmvec::get() else {
        println!("libmvec.so.1 not found: no peer figures");
        return;
    };
    type Peer = Box<dyn Fn(&[f64], &mut [f64])>;
    let peers: [(&str, &str, Option<Peer>); 3] = [
        (
            "exp",
            "_ZGVeN8v_exp",
            m.exp8
                .map(|f| Box::new(move |a: &[f64], o: &mut [f64]| f.map(a, o)) as Peer),
        ),
        (
            "log",
            "_ZGVeN8v_log",
            m.log8
                .map(|f| Box::new(move |a: &[f64], o: &mut [f64]| f.map(a, o)) as Peer),
        ),
        (
            "exp",
            "_ZGVdN4v_exp",
            m.exp4
                .map(|f| Box::new(move |a: &[f64], o: &mut [f64]| f.map(a, o)) as Peer),
        ),
    ];
    for (name, sym, f) in peers {
        let Some(f) = f else {
            println!("{sym}: not on this CPU");
            continue;
        };
        let rows = reference::<f64>(name);
        let xs: Vec<f64> = rows.iter().map(|r| r.0).collect();
        let mut out = vec![0.0; xs.len()];
        f(&xs, &mut out);
        let (mut worst, mut at) = (0.0f64, 0);
        for (i, (&got, &(_, want, off))) in out.iter().zip(&rows).enumerate() {
            let e = ulp_error(got, want, off);
            if e > worst {
                (worst, at) = (e, i);
            }
        }
        println!(
            "{sym}: max {worst:.3} ULP over {} points (at x = {:?}: {:?}, exact {:?})",
            rows.len(),
            xs[at],
            out[at],
            rows[at].1
        );
        assert!(worst <= 4.0, "{sym}: {worst} ULP at x = {:?}", xs[at]);
    }
}
