//! NumPy's NaN and signed-zero rules, checked against values written out by hand (not
//! against the oracle): elementwise `maximum`/`minimum` in every operand shape, and
//! `max`/`min`/`argmax`/`argmin` of slices, on every available tier, `f32` and `f64`.
//! Each case also runs inside longer slices, so SIMD bodies are tested, not only the
//! scalar tails.

mod common;

use common::{each_tier, TestFloat, Watchdog};
use ndsimd_kernels::BinaryOp;

/// Lengths each elementwise case is repeated to: tail only, one vector, body + tail.
const LENS: [usize; 5] = [1, 3, 16, 37, 67];

fn bits<T: TestFloat>(x: T) -> String {
    format!("{x:?} ({:#x})", x.bits())
}

/// Runs `op(x, y)` in all five operand shapes at every length of `LENS` and requires
/// every element to be `want`, bit for bit.
fn check_op<T: TestFloat>(op: &BinaryOp<T>, x: T, y: T, want: T) -> Vec<String> {
    let mut failures = Vec::new();
    for n in LENS {
        let (a, b) = (vec![x; n], vec![y; n]);
        let mut runs: Vec<(&str, Vec<T>)> = Vec::new();
        let mut out = vec![T::canary(); n];
        (op.vv)(&a, &b, &mut out);
        runs.push(("vv", out.clone()));
        (op.vs)(&a, y, &mut out);
        runs.push(("vs", out.clone()));
        (op.sv)(x, &b, &mut out);
        runs.push(("sv", out.clone()));
        let mut acc = a.clone();
        (op.assign_vv)(&mut acc, &b);
        runs.push(("assign_vv", acc));
        let mut acc = a.clone();
        (op.assign_vs)(&mut acc, y);
        runs.push(("assign_vs", acc));
        for (shape, got) in runs {
            if let Some(g) = got.iter().find(|g| g.bits() != want.bits()) {
                failures.push(format!(
                    "{shape} len {n}: ({}, {}) gave {}, want {}",
                    bits(x),
                    bits(y),
                    bits(*g),
                    bits(want)
                ));
            }
        }
    }
    failures
}

fn check_elementwise<T: TestFloat>() {
    let e = T::edges();
    let f = T::from_f64;
    let (pz, nz, inf, ninf) = (e[0], e[1], e[2], e[3]);
    let (qnan, negnan, snan, sub) = (e[4], e[5], e[6], e[7]);
    let (one, two) = (f(1.0), f(2.0));
    // (x, y, maximum(x, y), minimum(x, y)), each written out from the rule.
    let cases = [
        (nz, pz, pz, pz), // equal: y, both ways
        (pz, nz, nz, nz), // equal: y, both ways
        (nz, nz, nz, nz),
        (qnan, negnan, qnan, qnan), // both NaN: the first
        (negnan, qnan, negnan, negnan),
        (snan, qnan, snan, snan), // a signalling NaN comes through unquieted
        (qnan, snan, qnan, qnan),
        (one, qnan, qnan, qnan), // a NaN in either propagates
        (qnan, one, qnan, qnan),
        (one, snan, snan, snan),
        (snan, one, snan, snan),
        (negnan, ninf, negnan, negnan),
        (inf, negnan, negnan, negnan),
        (one, two, two, one),
        (two, one, two, one),
        (inf, ninf, inf, ninf),
        (ninf, inf, inf, ninf),
        (sub, pz, sub, pz),
        (nz, sub, sub, nz),
        (e[9], sub, e[9], sub),       // MIN_POSITIVE against a subnormal
        (e[10], e[11], e[10], e[11]), // MAX, MIN
        (f(-1.0), f(-1.0), f(-1.0), f(-1.0)),
    ];
    let mut failures = Vec::new();
    each_tier(|tier| {
        let t = T::table_for(tier).unwrap();
        for &(x, y, max, min) in &cases {
            for (name, op, want) in [("maximum", &t.maximum, max), ("minimum", &t.minimum, min)] {
                for msg in check_op(op, x, y, want) {
                    failures.push(format!("{tier} {} {name} {msg}", T::NAME));
                }
            }
        }
        // All the cases side by side in one slice, so a vector mixes them.
        let a: Vec<T> = (0..3 * cases.len())
            .map(|i| cases[i % cases.len()].0)
            .collect();
        let b: Vec<T> = (0..3 * cases.len())
            .map(|i| cases[i % cases.len()].1)
            .collect();
        for (name, op, pick) in [("maximum", &t.maximum, 2), ("minimum", &t.minimum, 3)] {
            let mut out = vec![T::canary(); a.len()];
            (op.vv)(&a, &b, &mut out);
            for (i, got) in out.iter().enumerate() {
                let c = cases[i % cases.len()];
                let want = if pick == 2 { c.2 } else { c.3 };
                if got.bits() != want.bits() {
                    failures.push(format!(
                        "{tier} {} {name} vv mixed element {i}: ({}, {}) gave {}, want {}",
                        T::NAME,
                        bits(c.0),
                        bits(c.1),
                        bits(*got),
                        bits(want)
                    ));
                }
            }
        }
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn maximum_minimum_rules_f32() {
    check_elementwise::<f32>();
}

#[test]
fn maximum_minimum_rules_f64() {
    check_elementwise::<f64>();
}

/// `max`/`min`/`argmax`/`argmin` (and the empty-slice results of the reductions).
/// Each slice is also padded on the right with ordinary values that change nothing
/// (the padding value is below every finite value here for max, above for min), so
/// the decisive elements land in SIMD bodies too.
fn check_slices<T: TestFloat>() {
    let e = T::edges();
    let f = T::from_f64;
    let (nan1, nan2, snan) = (e[4], e[5], e[6]);
    let (pz, nz) = (e[0], e[1]);
    // (slice, max bits, min bits, argmax, argmin)
    let cases: Vec<(Vec<T>, T, T, usize, usize)> = vec![
        (vec![f(1.0), nan1, f(2.0), nan2], nan1, nan1, 1, 1),
        (vec![nan2, nan1], nan2, nan2, 0, 0),
        (vec![f(1.0), f(2.0), snan, nan1], snan, snan, 2, 2),
        (vec![pz, nz], pz, nz, 0, 0),
        (vec![nz, pz], pz, nz, 0, 0),
        (vec![nz, nz], nz, nz, 0, 0),
        (vec![f(-1.0), nz, f(-3.0), pz], pz, f(-3.0), 1, 2),
        (
            vec![f(3.0), f(1.0), f(3.0), f(-7.0), f(-7.0)],
            f(3.0),
            f(-7.0),
            0,
            3,
        ),
        (vec![e[3], e[2], e[3], e[2]], e[2], e[3], 1, 0),
        (vec![e[7], e[9], e[8]], e[9], e[8], 1, 2),
        (vec![nan1], nan1, nan1, 0, 0),
        (vec![nz], nz, nz, 0, 0),
    ];
    let mut failures = Vec::new();
    let watchdog = Watchdog::new("slice_extremes_rules");
    each_tier(|tier| {
        let t = T::table_for(tier).unwrap();
        watchdog.case(&format!("{tier} {}", T::NAME));
        for (slice, max, min, argmax, argmin) in &cases {
            for pad in [0, 5, 16, 70] {
                // max/argmax see the slice padded with -1e30, min/argmin with 1e30:
                // below (above) every value of the cases, so the answers stay put.
                let mut lo = slice.clone();
                lo.extend(std::iter::repeat_n(f(-1e30), pad));
                let mut hi = slice.clone();
                hi.extend(std::iter::repeat_n(f(1e30), pad));
                watchdog.case(&format!("{tier} {} {slice:?} + {pad} padding", T::NAME));
                let what = |k: &str| {
                    format!(
                        "{tier} {} {k}({:?} + {pad} padding)",
                        T::NAME,
                        slice.iter().map(|x| bits(*x)).collect::<Vec<_>>()
                    )
                };
                let got = (t.max)(&lo).map(T::bits);
                if got != Some(max.bits()) {
                    failures.push(format!("{}: {got:x?}, want {}", what("max"), bits(*max)));
                }
                let got = (t.argmax)(&lo);
                if got != Some(*argmax) {
                    failures.push(format!("{}: {got:?}, want {argmax}", what("argmax")));
                }
                let got = (t.min)(&hi).map(T::bits);
                if got != Some(min.bits()) {
                    failures.push(format!("{}: {got:x?}, want {}", what("min"), bits(*min)));
                }
                let got = (t.argmin)(&hi);
                if got != Some(*argmin) {
                    failures.push(format!("{}: {got:?}, want {argmin}", what("argmin")));
                }
            }
        }
        // The same NaN rules deep inside a long slice.
        let mut v: Vec<T> = (0..300).map(|i| f((i % 17) as f64)).collect();
        v[200] = nan2;
        v[250] = nan1;
        if (t.max)(&v).map(T::bits) != Some(nan2.bits()) || (t.argmax)(&v) != Some(200) {
            failures.push(format!(
                "{tier} {} max/argmax with NaNs at 200 and 250",
                T::NAME
            ));
        }
        if (t.min)(&v).map(T::bits) != Some(nan2.bits()) || (t.argmin)(&v) != Some(200) {
            failures.push(format!(
                "{tier} {} min/argmin with NaNs at 200 and 250",
                T::NAME
            ));
        }
        let mut z = vec![nz; 300];
        z[150] = pz;
        if (t.max)(&z).map(T::bits) != Some(pz.bits()) || (t.argmax)(&z) != Some(0) {
            failures.push(format!(
                "{tier} {} max/argmax of -0s with +0 at 150",
                T::NAME
            ));
        }
        z.fill(pz);
        z[299] = nz;
        if (t.min)(&z).map(T::bits) != Some(nz.bits()) || (t.argmin)(&z) != Some(0) {
            failures.push(format!(
                "{tier} {} min/argmin of +0s with -0 at 299",
                T::NAME
            ));
        }
        // Empty slices and the identities.
        let at = |what: &str| format!("{tier} {} {what}", T::NAME);
        let checks = [
            ((t.sum)(&[]).bits() == nz.bits(), at("sum([]) = -0")),
            ((t.sum)(&[nz]).bits() == nz.bits(), at("sum([-0]) = -0")),
            (
                (t.sum)(&[nz; 100]).bits() == nz.bits(),
                at("sum([-0; 100]) = -0"),
            ),
            ((t.sum)(&[pz]).bits() == pz.bits(), at("sum([+0]) = +0")),
            (
                (t.sum)(&[nz, pz]).bits() == pz.bits(),
                at("sum([-0, +0]) = +0"),
            ),
            ((t.prod)(&[]).bits() == f(1.0).bits(), at("prod([]) = 1")),
            (
                (t.dot)(&[], &[]).bits() == nz.bits(),
                at("dot([], []) = -0"),
            ),
            (
                (t.dot)(&[pz], &[f(-1.0)]).bits() == nz.bits(),
                at("dot([0], [-1]) = -0"),
            ),
            ((t.max)(&[]).is_none(), at("max([]) = None")),
            ((t.min)(&[]).is_none(), at("min([]) = None")),
            ((t.argmax)(&[]).is_none(), at("argmax([]) = None")),
            ((t.argmin)(&[]).is_none(), at("argmin([]) = None")),
        ];
        failures.extend(checks.into_iter().filter(|(ok, _)| !ok).map(|(_, m)| m));
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn slice_extremes_rules_f32() {
    check_slices::<f32>();
}

#[test]
fn slice_extremes_rules_f64() {
    check_slices::<f64>();
}
