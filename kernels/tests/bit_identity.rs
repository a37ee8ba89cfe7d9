//! Every elementwise kernel of every available tier (arithmetic, `sqrt`,
//! `maximum`/`minimum`, `fma`, the comparisons) is bit-identical to the scalar oracle,
//! at every length residue and alignment offset, on IEEE edge inputs, and writes
//! nothing outside its output slice. Where the contract pins the value without an
//! oracle (`maximum`, `minimum`, `neg`, `abs`, the comparisons) the oracle is checked
//! against that too.
//!
//! One exception, and only for `add`/`sub`/`mul`/`div`: when *both* operands are NaN,
//! the result must be one of the two, quieted, but not necessarily the one the oracle
//! returned. x86 returns its first source operand and aarch64 its first signalling
//! then first quiet operand, but LLVM treats `fadd`/`fmul` as commutative and swaps
//! operands freely (in the scalar oracle as in SIMD code, intrinsics included), and
//! Rust's float semantics (RFC 3514) leave the choice open. Pinning it would cost a
//! compare and blend per vector in every kernel for a distinction NumPy does not make.
//! `fma` has the same freedom when two or more of its operands are NaN.
//! `maximum`/`minimum` select an input, so they have no such freedom: NaN payloads
//! and signalling bits must come through exactly.

mod common;

use common::{
    binary_ops, cmps, each_tier, elementwise_ref, fill, kernels, nan_choice_free, report, Kernel,
    TestFloat, XorShift, MAX_LEN,
};
use ndsimd_kernels::{available_tiers, Tier};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Alignment offsets, in elements, of the slices inside their buffers.
const OFFSETS: usize = 8;
/// Room around each slice: the offset before it, canaries after it.
const PAD: usize = OFFSETS + 8;

/// The alignment offsets of (a, b, c, out) tried at each length: every offset for
/// each operand, mutually misaligned (so no single pointer's alignment decides) and
/// all equal (so a kernel that aligns one pointer aligns them all).
fn offset_sets() -> Vec<[usize; 4]> {
    let mut v = Vec::new();
    for off in 0..OFFSETS {
        v.push([
            off,
            (off + 3) % OFFSETS,
            (off + 6) % OFFSETS,
            (off + 5) % OFFSETS,
        ]);
        v.push([off; 4]);
    }
    v
}

/// Whether both operands are NaN and `r` is one of them, quieted (see the module doc).
fn either_nan<T: TestFloat>((x, y): (T, T), r: T) -> bool {
    x.nan() && y.nan() && (r.bits() == x.quiet_bits() || r.bits() == y.quiet_bits())
}

/// A scalar operand for case number `count`: an edge value every other time.
fn scalar_operand<T: TestFloat>(count: usize, rng: &mut XorShift) -> T {
    let edges = T::edges();
    if count.is_multiple_of(2) {
        edges[count / 2 % edges.len()]
    } else {
        T::random(rng)
    }
}

/// Compares `got` (a whole padded buffer) with `want` element by element; `slice` is
/// where the kernel's output lies. Returns a description of the first difference.
#[allow(clippy::too_many_arguments)]
fn compare<T: TestFloat>(
    name: &str,
    kernel: Kernel<T>,
    (a, b, s): (&[T], &[T], T),
    slice: std::ops::Range<usize>,
    got: &[T],
    want: &[T],
) -> Option<String> {
    let free = nan_choice_free(name);
    let bad = (0..got.len()).find(|&i| {
        got[i].bits() != want[i].bits()
            && !(free
                && slice.contains(&i)
                && kernel
                    .operands(a, b, s, i - slice.start)
                    .is_some_and(|ops| either_nan(ops, got[i]) && either_nan(ops, want[i])))
    })?;
    let inside = slice.contains(&bad);
    let inputs = match inside.then(|| kernel.operands(a, b, s, bad - slice.start)) {
        Some(Some((x, y))) => format!("{x:?} ({:#x}) and {y:?} ({:#x})", x.bits(), y.bits()),
        Some(None) => format!(
            "{:?} ({:#x})",
            a[bad - slice.start],
            a[bad - slice.start].bits()
        ),
        None => "none".to_string(),
    };
    Some(format!(
        "element {} {}: got {:#x}, expected {:#x} (inputs: {inputs})",
        bad as isize - slice.start as isize,
        if inside {
            "of the output"
        } else {
            "OUTSIDE the output slice"
        },
        got[bad].bits(),
        want[bad].bits(),
    ))
}

/// Lengths on both sides of where a tier's kernel switches loops by length: the
/// AVX-512 tier's `add`, `sub` and `mul` leave their 512-bit loops once the 2, 3 or 6
/// runs a call reads and writes pass L1 (`x86/avx512.rs`, `by_length`).
fn switch_lens<T>() -> Vec<usize> {
    let l1 = ndsimd_kernels::cache_info().l1d;
    let mut lens = Vec::new();
    for streams in [2, 3, 6] {
        let edge = l1 / (streams * std::mem::size_of::<T>());
        lens.extend([edge, edge + 1, edge + 13]);
    }
    lens
}

fn check_tiers<T: TestFloat>() {
    let oracle = kernels(T::table_for(Tier::Scalar).expect("scalar tier always exists"));
    let tiers: Vec<_> = available_tiers()
        .into_iter()
        .map(|t| {
            (
                t,
                kernels(T::table_for(t).expect("available tier has a table")),
            )
        })
        .collect();
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let (mut pick, mut count) = (0usize, 0usize);
    let mut failures = Vec::new();

    for len in (0..=MAX_LEN).chain(switch_lens::<T>()) {
        for [oa, ob, _, oo] in offset_sets() {
            let mut a = vec![T::canary(); len + PAD];
            let mut b = vec![T::canary(); len + PAD];
            fill(&mut a, oa..oa + len, &mut rng, &mut pick);
            fill(&mut b, ob..ob + len, &mut rng, &mut pick);
            let a = &a[oa..oa + len];
            let b = &b[ob..ob + len];

            for (k, (name, want_kernel)) in oracle.iter().enumerate() {
                count += 1;
                let s = scalar_operand(count, &mut rng);
                let case = |tier: Tier| {
                    format!(
                        "{tier} {} {name} len {len} offsets a {oa} b {ob} out {oo}",
                        T::NAME
                    )
                };
                let mut want = vec![T::canary(); len + PAD];
                want_kernel.run(a, b, s, &mut want[oo..oo + len]);

                // The oracle itself, where the contract pins the result.
                let mut expect = want.clone();
                for i in 0..len {
                    let ops = want_kernel.operands(a, b, s, i);
                    if let Some(r) = elementwise_ref(name, ops, a[i]) {
                        expect[oo + i] = r;
                    }
                }
                let io = (a, b, s);
                if let Some(msg) = compare(name, *want_kernel, io, oo..oo + len, &want, &expect) {
                    failures.push(format!("oracle vs contract: {}: {msg}", case(Tier::Scalar)));
                }

                for (tier, table) in &tiers {
                    let kernel = table[k].1;
                    let mut got = vec![T::canary(); len + PAD];
                    kernel.run(a, b, s, &mut got[oo..oo + len]);
                    if let Some(msg) = compare(name, kernel, io, oo..oo + len, &got, &want) {
                        failures.push(format!("{}: {msg}", case(*tier)));
                    }
                }
            }
        }
    }
    report(failures);
}

#[test]
fn f32_bit_identical_to_oracle() {
    check_tiers::<f32>();
}

#[test]
fn f64_bit_identical_to_oracle() {
    check_tiers::<f64>();
}

/// Every ordered pair of edge values through every binary kernel (and every edge
/// value through every unary one), each edge value also as the scalar operand.
fn check_edge_pairs<T: TestFloat>() {
    let edges = T::edges();
    let n = edges.len();
    let a: Vec<T> = (0..n * n).map(|i| edges[i / n]).collect();
    let b: Vec<T> = (0..n * n).map(|i| edges[i % n]).collect();
    let oracle = kernels(T::table_for(Tier::Scalar).unwrap());
    let mut failures = Vec::new();
    for &s in &edges {
        for (k, (name, want_kernel)) in oracle.iter().enumerate() {
            let mut want = vec![T::canary(); a.len()];
            want_kernel.run(&a, &b, s, &mut want);
            let mut expect = want.clone();
            for i in 0..a.len() {
                if let Some(r) = elementwise_ref(name, want_kernel.operands(&a, &b, s, i), a[i]) {
                    expect[i] = r;
                }
            }
            let io = (&a[..], &b[..], s);
            if let Some(msg) = compare(name, *want_kernel, io, 0..a.len(), &want, &expect) {
                failures.push(format!(
                    "oracle vs contract {} {name} s {s:?}: {msg}",
                    T::NAME
                ));
            }
            each_tier(|tier| {
                let kernel = kernels(T::table_for(tier).unwrap())[k].1;
                let mut got = vec![T::canary(); a.len()];
                kernel.run(&a, &b, s, &mut got);
                if let Some(msg) = compare(name, kernel, io, 0..a.len(), &got, &want) {
                    failures.push(format!("{tier} {} {name} s {s:?}: {msg}", T::NAME));
                }
            });
        }
    }
    report(failures);
}

#[test]
fn edge_pairs_f32() {
    check_edge_pairs::<f32>();
}

#[test]
fn edge_pairs_f64() {
    check_edge_pairs::<f64>();
}

/// `fma` at every length and offset on edge-laden inputs, plus every triple of edge
/// values: bit-identical to the oracle, nothing written outside the output. When two
/// or three operands are NaN the result may be any of them, quieted, as for `add`
/// and `mul` (the module doc): the oracle's `mul_add` is the C library's software
/// `fma` on the scalar tier, which picks a different NaN than `vfmadd` does, and
/// LLVM may swap the multiplicands of either.
fn check_fma<T: TestFloat>() {
    let scalar = T::table_for(Tier::Scalar).unwrap();
    let mut rng = XorShift(0x51af_d7ed_558c_cd1f);
    let mut pick = 0usize;
    let mut failures = Vec::new();
    let mut run = |a: &[T], b: &[T], c: &[T], oo: usize, what: &str| {
        let len = a.len();
        let mut want = vec![T::canary(); len + PAD];
        (scalar.fma)(a, b, c, &mut want[oo..oo + len]);
        each_tier(|tier| {
            let mut got = vec![T::canary(); len + PAD];
            (T::table_for(tier).unwrap().fma)(a, b, c, &mut got[oo..oo + len]);
            // Two or more NaN operands: any of them, quieted (see the module doc).
            let free = |i: usize| {
                i.checked_sub(oo).filter(|&j| j < len).is_some_and(|j| {
                    let nans: Vec<T> = [a[j], b[j], c[j]].into_iter().filter(|x| x.nan()).collect();
                    let one_of = |r: T| nans.iter().any(|x| x.quiet_bits() == r.bits());
                    nans.len() >= 2 && one_of(got[i]) && one_of(want[i])
                })
            };
            let bad = (0..got.len()).find(|&i| got[i].bits() != want[i].bits() && !free(i));
            if let Some(i) = bad {
                let inputs = match i.checked_sub(oo).filter(|&j| j < len) {
                    Some(j) => format!(
                        "{:?}*{:?}+{:?} ({:#x}, {:#x}, {:#x})",
                        a[j],
                        b[j],
                        c[j],
                        a[j].bits(),
                        b[j].bits(),
                        c[j].bits()
                    ),
                    None => "OUTSIDE the output slice".to_string(),
                };
                failures.push(format!(
                    "{tier} {} fma {what}: element {}: got {:#x}, oracle {:#x} ({inputs})",
                    T::NAME,
                    i as isize - oo as isize,
                    got[i].bits(),
                    want[i].bits()
                ));
            }
        });
    };
    for len in 0..=MAX_LEN {
        for [oa, ob, oc, oo] in offset_sets() {
            let mut bufs = [oa, ob, oc].map(|o| {
                let mut v = vec![T::canary(); len + PAD];
                fill(&mut v, o..o + len, &mut rng, &mut pick);
                v
            });
            // Finite inputs now and then, so that single rounding is what is tested.
            if len % 3 == 1 {
                for v in bufs.iter_mut() {
                    for x in v.iter_mut() {
                        *x = common::finite(&mut rng, -30, 30);
                    }
                }
            }
            let [a, b, c] = &bufs;
            let what = format!("len {len} offsets a {oa} b {ob} c {oc} out {oo}");
            run(
                &a[oa..oa + len],
                &b[ob..ob + len],
                &c[oc..oc + len],
                oo,
                &what,
            );
        }
    }
    let edges = T::edges();
    let n = edges.len();
    let a: Vec<T> = (0..n * n * n).map(|i| edges[i / (n * n)]).collect();
    let b: Vec<T> = (0..n * n * n).map(|i| edges[i / n % n]).collect();
    let c: Vec<T> = (0..n * n * n).map(|i| edges[i % n]).collect();
    run(&a, &b, &c, 3, "edge triples");
    // Independently of the oracle: one rounding. x*y = 1 - eps², which an unfused
    // multiply rounds to 1 (and then + -1 gives 0).
    let (x, y, z) = (
        T::from_f64(1.0 + T::EPS),
        T::from_f64(1.0 - T::EPS),
        T::from_f64(-1.0),
    );
    each_tier(|tier| {
        let mut out = [T::canary()];
        (T::table_for(tier).unwrap().fma)(&[x], &[y], &[z], &mut out);
        let want = -(T::EPS * T::EPS);
        if out[0].to_f64() != want {
            failures.push(format!(
                "{tier} {} fma(1+eps, 1-eps, -1) = {:?}, not -eps² (not fused?)",
                T::NAME,
                out[0]
            ));
        }
    });
    report(failures);
}

#[test]
fn fma_bit_identical_f32() {
    check_fma::<f32>();
}

#[test]
fn fma_bit_identical_f64() {
    check_fma::<f64>();
}

/// Comparisons: every length and offset, edge-laden inputs, every pair of edge values;
/// equal to the IEEE comparison (so to the oracle), every output element written and
/// nothing outside. `bool` has no spare value for a canary, so each case runs twice,
/// into an all-`false` and an all-`true` buffer, and the two must agree inside the
/// output slice and be untouched outside it.
fn check_cmps<T: TestFloat>() {
    let oracle = cmps(T::table_for(Tier::Scalar).unwrap());
    let tiers: Vec<_> = available_tiers()
        .into_iter()
        .map(|t| (t, cmps(T::table_for(t).unwrap())))
        .collect();
    let mut rng = XorShift(0x7c15_9e37_79b9_7f4a);
    let (mut pick, mut count) = (0usize, 0usize);
    let mut failures = Vec::new();
    let edges = T::edges();
    let n = edges.len();
    let mut cases: Vec<(Vec<T>, Vec<T>, usize, String)> = Vec::new();
    for len in 0..=MAX_LEN {
        for [oa, ob, _, oo] in offset_sets() {
            let mut a = vec![T::canary(); len + PAD];
            let mut b = vec![T::canary(); len + PAD];
            fill(&mut a, oa..oa + len, &mut rng, &mut pick);
            fill(&mut b, ob..ob + len, &mut rng, &mut pick);
            // Equal operands now and then, or `eq`/`le`/`ge` are mostly false.
            for i in 0..len {
                if rng.next().is_multiple_of(4) {
                    b[ob + i] = a[oa + i];
                }
            }
            let what = format!("len {len} offsets a {oa} b {ob} out {oo}");
            cases.push((a[oa..oa + len].to_vec(), b[ob..ob + len].to_vec(), oo, what));
        }
    }
    let a: Vec<T> = (0..n * n).map(|i| edges[i / n]).collect();
    let b: Vec<T> = (0..n * n).map(|i| edges[i % n]).collect();
    cases.push((a, b, 1, "edge pairs".to_string()));

    for (a, b, oo, what) in &cases {
        let (len, oo) = (a.len(), *oo);
        for (k, (name, _, ieee)) in oracle.iter().enumerate() {
            count += 1;
            let s = scalar_operand(count, &mut rng);
            let scalars: Vec<T> = if what == "edge pairs" {
                edges.clone()
            } else {
                vec![s]
            };
            for s in scalars {
                let kernel = oracle[k].1;
                let want: Vec<bool> = (0..len)
                    .map(|i| {
                        let (x, y) = kernel.operands(a, b, s, i);
                        ieee(x, y)
                    })
                    .collect();
                let mut runs = vec![(Tier::Scalar, kernel)];
                runs.extend(tiers.iter().map(|(t, table)| (*t, table[k].1)));
                for (tier, kernel) in runs {
                    for fill_value in [false, true] {
                        let mut got = vec![fill_value; len + PAD];
                        kernel.run(a, b, s, &mut got[oo..oo + len]);
                        let bad = (0..got.len()).find(|&i| match i.checked_sub(oo) {
                            Some(j) if j < len => got[i] != want[j],
                            _ => got[i] != fill_value,
                        });
                        if let Some(i) = bad {
                            let detail = match i.checked_sub(oo).filter(|&j| j < len) {
                                Some(j) => {
                                    let (x, y) = kernel.operands(a, b, s, j);
                                    format!(
                                        "element {j}: got {}, IEEE says {} for {x:?} ({:#x}) \
                                         and {y:?} ({:#x})",
                                        got[i],
                                        want[j],
                                        x.bits(),
                                        y.bits()
                                    )
                                }
                                None => format!(
                                    "element {} OUTSIDE the output slice overwritten",
                                    i as isize - oo as isize
                                ),
                            };
                            failures.push(format!(
                                "{tier} {} {name} {what} s {s:?}: {detail}",
                                T::NAME
                            ));
                        }
                    }
                }
            }
        }
    }
    report(failures);
}

#[test]
fn comparisons_f32() {
    check_cmps::<f32>();
}

#[test]
fn comparisons_f64() {
    check_cmps::<f64>();
}

/// Calls `f` and requires it to panic with the kernels' length message.
fn expect_mismatch_panic(what: &str, f: impl FnOnce()) {
    let err = catch_unwind(AssertUnwindSafe(f)).err();
    let msg = err.as_ref().and_then(|e| {
        e.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| e.downcast_ref::<String>().cloned())
    });
    assert!(
        msg.as_deref()
            .is_some_and(|m| m.contains("length mismatch")),
        "{what}: expected a length-mismatch panic, got {msg:?}"
    );
}

fn check_mismatch<T: TestFloat>() {
    let x = T::edges()[12]; // 1.0
    let (short, long) = (vec![x; 3], vec![x; 4]);
    each_tier(|tier| {
        for (name, kernel) in kernels(T::table_for(tier).unwrap()) {
            let what = |case: &str| format!("{tier} {} {name} {case}", T::NAME);
            // (a, b, out) length triples, each with exactly one slice that differs.
            let cases: &[(&[T], &[T], usize)] = match kernel {
                Kernel::Vv(_) | Kernel::VvUninit(_) => {
                    &[(&short, &long, 4), (&long, &short, 4), (&long, &long, 3)]
                }
                Kernel::Vs(_) | Kernel::Map(_) | Kernel::VsUninit(_) | Kernel::MapUninit(_) => {
                    &[(&short, &long, 4), (&long, &long, 3)]
                }
                Kernel::Sv(_) | Kernel::SvUninit(_) => &[(&long, &short, 4), (&long, &long, 3)],
                Kernel::AssignVv(_) | Kernel::AssignVv4(_) => {
                    &[(&long, &short, 4), (&short, &long, 3)]
                }
                // One slice only: no length can disagree.
                Kernel::AssignVs(_) | Kernel::Assign(_) => &[],
            };
            for &(a, b, n) in cases {
                let case = format!("a {} b {} out {n}", a.len(), b.len());
                let mut out = vec![x; n];
                expect_mismatch_panic(&what(&case), || match kernel {
                    // `run` copies `a` into the accumulator, which would panic in
                    // `copy_from_slice` rather than in the kernel: call it directly.
                    Kernel::AssignVv(f) => f(&mut out, b),
                    Kernel::AssignVv4(f) => f(&mut out, [b, b, b, b]),
                    k => k.run(a, b, x, &mut out),
                });
            }
        }
    });
}

/// The first element where `got` and `want` differ in bits; inside `out` and when
/// `free` (an arithmetic op, see the module doc) two NaNs count as equal.
fn first_difference<T: TestFloat>(
    got: &[T],
    want: &[T],
    out: std::ops::Range<usize>,
    free: bool,
) -> Option<usize> {
    (0..got.len()).find(|&i| {
        got[i].bits() != want[i].bits()
            && !(free && out.contains(&i) && got[i].nan() && want[i].nan())
    })
}

/// `assign_vv4` with four different rows (the table test above gives it one row
/// four times): on every tier, at every length and alignment, the same bits as four
/// `assign_vv` calls of that tier (themselves checked against the oracle above), except
/// that where an arithmetic step meets two NaNs any NaN will do (see the module doc);
/// nothing written outside `acc`; and a panic when any one row is shorter or longer.
fn check_assign_vv4<T: TestFloat>() {
    let mut rng = XorShift(0x51ab_4c0f_fee1_900d);
    let mut pick = 0usize;
    let mut failures = Vec::new();
    each_tier(|tier| {
        let t = T::table_for(tier).expect("available tier has a table");
        for (name, op) in binary_ops(t) {
            let free = nan_choice_free(&format!("{name}."));
            for len in 0..=MAX_LEN {
                for [oa, o0, o1, o2] in offset_sets() {
                    let offs = [oa, o0, o1, o2, (o0 + 1) % OFFSETS];
                    let mut bufs: Vec<Vec<T>> = offs
                        .iter()
                        .map(|&o| {
                            let mut v = vec![T::canary(); len + PAD];
                            fill(&mut v, o..o + len, &mut rng, &mut pick);
                            v
                        })
                        .collect();
                    let acc0 = bufs.remove(0);
                    let rows: Vec<&[T]> = bufs
                        .iter()
                        .zip(&offs[1..])
                        .map(|(v, &o)| &v[o..o + len])
                        .collect();
                    let mut want = acc0.clone();
                    for r in &rows {
                        (op.assign_vv)(&mut want[oa..oa + len], r);
                    }
                    let mut got = acc0.clone();
                    (op.assign_vv4)(&mut got[oa..oa + len], [rows[0], rows[1], rows[2], rows[3]]);
                    let bad = first_difference(&got, &want, oa..oa + len, free);
                    if let Some(i) = bad {
                        failures.push(format!(
                            "{tier} {} {name}.assign_vv4 len {len} offsets {offs:?}: element {} got {:#x}, four assign_vv gave {:#x}",
                            T::NAME,
                            i as isize - oa as isize,
                            got[i].bits(),
                            want[i].bits()
                        ));
                    }
                }
            }
            let x = T::edges()[12]; // 1.0
            let (short, long) = (vec![x; 3], vec![x; 4]);
            for odd in 0..4 {
                for (acc_len, other) in [(4, &short), (3, &long)] {
                    let mut rows: [&[T]; 4] = [&long; 4];
                    if acc_len == 3 {
                        rows = [&short; 4];
                    }
                    rows[odd] = other;
                    let mut acc = vec![x; acc_len];
                    let what = format!(
                        "{tier} {} {name}.assign_vv4 acc {acc_len} row {odd} of {}",
                        T::NAME,
                        other.len()
                    );
                    expect_mismatch_panic(&what, || (op.assign_vv4)(&mut acc, rows));
                }
            }
        }
    });
    report(failures);
}

#[test]
fn assign_vv4_f32() {
    check_assign_vv4::<f32>();
}

#[test]
fn assign_vv4_f64() {
    check_assign_vv4::<f64>();
}

/// Each `*_uninit` kernel against its initialised form of the same tier: the same
/// bits (any NaN where an arithmetic op meets two), every element written (the
/// output starts as canaries) and nothing outside it, at every length and offset.
/// (The table test above compares every tier with the oracle, but the oracle is the
/// same loop on every tier, so a skipped element would be skipped everywhere.)
fn check_uninit_forms<T: TestFloat>() {
    let mut rng = XorShift(0x0dd5_eed5_1234_5678);
    let (mut pick, mut failures) = (0usize, Vec::new());
    each_tier(|tier| {
        let all = kernels(T::table_for(tier).expect("available tier has a table"));
        for (name, k) in all.iter().filter(|(n, _)| n.ends_with("_uninit")) {
            let base = name.trim_end_matches("_uninit");
            let (_, init) = all
                .iter()
                .find(|(n, _)| n == base)
                .expect("the initialised form");
            let free = nan_choice_free(name);
            for len in 0..=MAX_LEN {
                for [oa, ob, _, oo] in offset_sets() {
                    let mut a = vec![T::canary(); len + PAD];
                    let mut b = vec![T::canary(); len + PAD];
                    fill(&mut a, oa..oa + len, &mut rng, &mut pick);
                    fill(&mut b, ob..ob + len, &mut rng, &mut pick);
                    let (a, b) = (&a[oa..oa + len], &b[ob..ob + len]);
                    let s = scalar_operand(pick, &mut rng);
                    let mut want = vec![T::canary(); len + PAD];
                    init.run(a, b, s, &mut want[oo..oo + len]);
                    let mut got = vec![T::canary(); len + PAD];
                    k.run(a, b, s, &mut got[oo..oo + len]);
                    let bad = first_difference(&got, &want, oo..oo + len, free);
                    if let Some(i) = bad {
                        failures.push(format!(
                            "{tier} {} {name} len {len} offsets a {oa} b {ob} out {oo}: element {} got {:#x}, {base} gave {:#x}",
                            T::NAME,
                            i as isize - oo as isize,
                            got[i].bits(),
                            want[i].bits()
                        ));
                    }
                }
            }
        }
    });
    report(failures);
}

#[test]
fn uninit_forms_f32() {
    check_uninit_forms::<f32>();
}

#[test]
fn uninit_forms_f64() {
    check_uninit_forms::<f64>();
}

/// The in-place `maximum`/`minimum` forms go through a 64-element stack block (see
/// `scalar::maximum`): lengths across one and two blocks, on every tier, against the
/// contract element by element (`MAX_LEN` above stays inside one block).
fn check_staged_select<T: TestFloat>() {
    let mut rng = XorShift(0x7a11_b10c_5e1e_c7ed);
    let (mut pick, mut failures) = (0usize, Vec::new());
    each_tier(|tier| {
        let all = kernels(T::table_for(tier).expect("available tier has a table"));
        let staged = all.iter().filter(|(n, _)| {
            (n.starts_with("maximum.assign") || n.starts_with("minimum.assign"))
                && !n.ends_with("vv4")
        });
        for (name, k) in staged {
            for len in [63usize, 64, 65, 127, 128, 129, 200] {
                let mut a = vec![T::canary(); len];
                let mut b = vec![T::canary(); len];
                fill(&mut a, 0..len, &mut rng, &mut pick);
                fill(&mut b, 0..len, &mut rng, &mut pick);
                let s = scalar_operand(pick, &mut rng);
                let mut got = vec![T::canary(); len];
                k.run(&a, &b, s, &mut got);
                for i in 0..len {
                    let want = elementwise_ref(name, k.operands(&a, &b, s, i), a[i]);
                    if want.is_some_and(|w| w.bits() != got[i].bits()) {
                        failures.push(format!(
                            "{tier} {} {name} len {len}: element {i} got {:#x}, want {:#x}",
                            T::NAME,
                            got[i].bits(),
                            want.unwrap().bits()
                        ));
                    }
                }
            }
        }
    });
    report(failures);
}

#[test]
fn staged_select_f32() {
    check_staged_select::<f32>();
}

#[test]
fn staged_select_f64() {
    check_staged_select::<f64>();
}

/// The other kernels that take several slices: `fma`, the comparisons, `dot`.
fn check_mismatch_others<T: TestFloat>() {
    let x = T::edges()[12]; // 1.0
    let (short, long) = (vec![x; 3], vec![x; 4]);
    each_tier(|tier| {
        let t = T::table_for(tier).unwrap();
        let what = |case: &str| format!("{tier} {} {case}", T::NAME);
        for (a, b, c, n) in [
            (&short, &long, &long, 4),
            (&long, &short, &long, 4),
            (&long, &long, &short, 4),
            (&long, &long, &long, 3),
        ] {
            let case = format!("fma a {} b {} c {} out {n}", a.len(), b.len(), c.len());
            let mut out = vec![x; n];
            expect_mismatch_panic(&what(&case), || (t.fma)(a, b, c, &mut out));
        }
        for (name, cmp, _) in common::cmps(t) {
            let cases: &[(&[T], &[T], usize)] = match cmp {
                common::Cmp::Vv(_) => &[(&short, &long, 4), (&long, &short, 4), (&long, &long, 3)],
                common::Cmp::Vs(_) => &[(&short, &long, 4), (&long, &long, 3)],
            };
            for &(a, b, n) in cases {
                let case = format!("{name} a {} b {} out {n}", a.len(), b.len());
                let mut out = vec![false; n];
                expect_mismatch_panic(&what(&case), || cmp.run(a, b, x, &mut out));
            }
        }
        for (a, b) in [(&short, &long), (&long, &short)] {
            let case = format!("dot a {} b {}", a.len(), b.len());
            expect_mismatch_panic(&what(&case), || {
                (t.dot)(a, b);
            });
        }
    });
}

#[test]
fn mismatched_lengths_panic_others() {
    check_mismatch_others::<f32>();
    check_mismatch_others::<f64>();
}

#[test]
fn mismatched_lengths_panic_f32() {
    check_mismatch::<f32>();
}

#[test]
fn mismatched_lengths_panic_f64() {
    check_mismatch::<f64>();
}
