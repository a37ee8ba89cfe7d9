//! Every kernel of every available tier is bit-identical to the scalar oracle, at
//! every length residue and alignment offset, on IEEE edge inputs, and writes nothing
//! outside its output slice.
//!
//! One exception, and only one: when *both* operands of a binary operation are NaN,
//! the result must be one of the two, quieted, but not necessarily the one the oracle
//! returned. x86 returns its first source operand and aarch64 its first signalling
//! then first quiet operand, but LLVM treats `fadd`/`fmul` as commutative and swaps
//! operands freely (in the scalar oracle as in SIMD code, intrinsics included), and
//! Rust's float semantics (RFC 3514) leave the choice open. Pinning it would cost a
//! compare and blend per vector in every kernel for a distinction NumPy does not make.

mod common;

use common::{fill, kernels, Kernel, TestFloat, XorShift, MAX_LEN};
use ndsimd_kernels::{available_tiers, Tier};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Alignment offsets, in elements, of the slices inside their buffers.
const OFFSETS: usize = 8;
/// Room around each slice: the offset before it, canaries after it.
const PAD: usize = OFFSETS + 8;

/// Whether both operands are NaN and `r` is one of them, quieted (see the module doc).
fn either_nan<T: TestFloat>((x, y): (T, T), r: T) -> bool {
    x.nan() && y.nan() && (r.bits() == x.quiet_bits() || r.bits() == y.quiet_bits())
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
    let edges = T::edges();
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let (mut pick, mut count) = (0usize, 0usize);
    let mut failures = Vec::new();

    for len in 0..=MAX_LEN {
        for off in 0..OFFSETS {
            // Different offsets per operand, so inputs and output are misaligned
            // relative to each other as well as to the vector width.
            let (oa, ob, oo) = (off, (off + 3) % OFFSETS, (off + 5) % OFFSETS);
            let mut a = vec![T::canary(); len + PAD];
            let mut b = vec![T::canary(); len + PAD];
            fill(&mut a, oa..oa + len, &mut rng, &mut pick);
            fill(&mut b, ob..ob + len, &mut rng, &mut pick);
            let a = &a[oa..oa + len];
            let b = &b[ob..ob + len];

            for (k, (name, want_kernel)) in oracle.iter().enumerate() {
                count += 1;
                let s = if count % 2 == 0 {
                    edges[count / 2 % edges.len()]
                } else {
                    T::random(&mut rng)
                };
                let mut want = vec![T::canary(); len + PAD];
                want_kernel.run(a, b, s, &mut want[oo..oo + len]);

                for (tier, table) in &tiers {
                    let mut got = vec![T::canary(); len + PAD];
                    table[k].1.run(a, b, s, &mut got[oo..oo + len]);
                    let kernel = table[k].1;
                    let bad = (0..got.len()).find(|&i| {
                        got[i].bits() != want[i].bits()
                            && !(oo..oo + len)
                                .contains(&i)
                                .then(|| kernel.operands(a, b, s, i - oo))
                                .flatten()
                                .is_some_and(|ops| {
                                    either_nan(ops, got[i]) && either_nan(ops, want[i])
                                })
                    });
                    if let Some(i) = bad {
                        let inside = (oo..oo + len).contains(&i);
                        let inputs = match inside.then(|| kernel.operands(a, b, s, i - oo)) {
                            Some(Some((x, y))) => format!("{x:?} and {y:?}"),
                            Some(None) => format!("{:?}", a[i - oo]),
                            None => "none".to_string(),
                        };
                        failures.push(format!(
                            "{tier} {} {name} len {len} offset {off}: element {} {}: \
                             got {:#x}, oracle {:#x} (inputs: {inputs})",
                            T::NAME,
                            i as isize - oo as isize,
                            if inside {
                                "of the output"
                            } else {
                                "OUTSIDE the output slice"
                            },
                            got[i].bits(),
                            want[i].bits(),
                        ));
                    }
                }
            }
        }
    }
    if !failures.is_empty() {
        let shown = failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n");
        panic!("{} mismatches (first 20):\n{shown}", failures.len());
    }
}

#[test]
fn f32_bit_identical_to_oracle() {
    check_tiers::<f32>();
}

#[test]
fn f64_bit_identical_to_oracle() {
    check_tiers::<f64>();
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
    for tier in available_tiers() {
        for (name, kernel) in kernels(T::table_for(tier).unwrap()) {
            let what = |case: &str| format!("{tier} {} {name} {case}", T::NAME);
            // (a, b, out) length triples, each with exactly one slice that differs.
            let cases: &[(&[T], &[T], usize)] = match kernel {
                Kernel::Vv(_) => &[(&short, &long, 4), (&long, &short, 4), (&long, &long, 3)],
                Kernel::Vs(_) | Kernel::Map(_) => &[(&short, &long, 4), (&long, &long, 3)],
                Kernel::Sv(_) => &[(&long, &short, 4), (&long, &long, 3)],
                Kernel::AssignVv(_) => &[(&long, &short, 4), (&short, &long, 3)],
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
                    k => k.run(a, b, x, &mut out),
                });
            }
        }
    }
}

#[test]
fn mismatched_lengths_panic_f32() {
    check_mismatch::<f32>();
}

#[test]
fn mismatched_lengths_panic_f64() {
    check_mismatch::<f64>();
}
