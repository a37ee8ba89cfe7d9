//! Fence tests: every kernel of every available tier (elementwise, `fma`, the
//! comparisons, the reductions, the byte and word scans), at every length, on slices
//! that end exactly at a PROT_NONE guard page and on slices that start right after
//! one, so reading or writing one element too far either way faults (the test process
//! dies with SIGSEGV) instead of passing silently.
#![cfg(unix)]

mod common;

use common::fenced::{AnyBits, At, Fenced, PLACES};
use common::{
    byte_table, cmps, each_tier, fill, finite, kernels, reductions, TestFloat, Watchdog, XorShift,
    MAX_LEN,
};

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};

/// Longest byte slice (and word slice) the byte kernels get.
const MAX_BYTES: usize = 200;

/// The case running now, for the fault handler: a fault kills the process before the
/// test harness can print anything, so the handler names the kernel that overran.
static CASE: [AtomicU8; 96] = [const { AtomicU8::new(0) }; 96];
static CASE_LEN: AtomicUsize = AtomicUsize::new(0);

fn set_case(case: &str) {
    let bytes = &case.as_bytes()[..case.len().min(CASE.len())];
    for (slot, &b) in CASE.iter().zip(bytes) {
        slot.store(b, Relaxed);
    }
    CASE_LEN.store(bytes.len(), Relaxed);
}

extern "C" fn report_fault(sig: libc::c_int) {
    let mut line = [0u8; 128];
    let head = b"fence: guard page hit by ";
    line[..head.len()].copy_from_slice(head);
    let mut n = head.len();
    for slot in &CASE[..CASE_LEN.load(Relaxed)] {
        line[n] = slot.load(Relaxed);
        n += 1;
    }
    line[n] = b'\n';
    // SAFETY: write(2) and signal(2) are async-signal-safe; `line` outlives the call.
    // Restoring the default action and returning re-runs the faulting access, which
    // then kills the process with the same signal, as without this handler.
    unsafe {
        libc::write(2, line.as_ptr().cast(), n + 1);
        libc::signal(sig, libc::SIG_DFL);
    }
}

/// The (input, output) placements tried for each case: both at the tail, both at the
/// head, and one of each.
fn placements() -> [(At, At); 4] {
    [
        (At::Tail, At::Tail),
        (At::Head, At::Head),
        (At::Tail, At::Head),
        (At::Head, At::Tail),
    ]
}

/// Inputs with edge values (the "edges" fill) or finite values only, so that kernels
/// which stop at a NaN (`max`, `argmax`, ...) still scan the whole slice.
fn fill_input<T: TestFloat>(
    buf: &mut [T],
    finite_only: bool,
    rng: &mut XorShift,
    pick: &mut usize,
) {
    if finite_only {
        for x in buf.iter_mut() {
            *x = finite(rng, -10, 10);
        }
    } else {
        let len = buf.len();
        fill(buf, 0..len, rng, pick);
    }
}

fn fence<T: TestFloat + AnyBits>(watchdog: &Watchdog) {
    let bytes = MAX_LEN * std::mem::size_of::<T>();
    let (mut ga, mut gb, mut gc, mut gout, mut gbool) = (
        Fenced::new(bytes),
        Fenced::new(bytes),
        Fenced::new(bytes),
        Fenced::new(bytes),
        Fenced::new(MAX_LEN),
    );
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    let mut pick = 0;
    each_tier(|tier| {
        let table = T::table_for(tier).unwrap();
        let elementwise = kernels(table);
        let comparisons = cmps(table);
        let reduce = reductions(table);
        for len in 0..=MAX_LEN {
            for (pin, pout) in placements() {
                let place = format!("len {len} in {pin:?} out {pout:?}");
                watchdog.case(&format!("{tier} {} {place}", T::NAME));
                let finite_only = len % 2 == 1;
                fill_input::<T>(ga.slice(pin, len), finite_only, &mut rng, &mut pick);
                fill_input::<T>(gb.slice(pin, len), finite_only, &mut rng, &mut pick);
                fill_input::<T>(gc.slice(pin, len), finite_only, &mut rng, &mut pick);
                let s = T::random(&mut rng);
                for (name, kernel) in &elementwise {
                    set_case(&format!("{tier} {} {name} {place}", T::NAME));
                    kernel.run(
                        ga.slice(pin, len),
                        gb.slice(pin, len),
                        s,
                        gout.slice(pout, len),
                    );
                }
                set_case(&format!("{tier} {} fma {place}", T::NAME));
                (table.fma)(
                    ga.slice(pin, len),
                    gb.slice(pin, len),
                    gc.slice(pin, len),
                    gout.slice(pout, len),
                );
                for (name, cmp, _) in &comparisons {
                    set_case(&format!("{tier} {} {name} {place}", T::NAME));
                    cmp.run(
                        ga.slice(pin, len),
                        gb.slice(pin, len),
                        s,
                        gbool.bools(pout, len),
                    );
                }
                // Reductions have no output slice: run them once per input placement.
                if matches!(pout, At::Head) != matches!(pin, At::Head) {
                    continue;
                }
                for (name, r) in &reduce {
                    set_case(&format!("{tier} {} {name} len {len} in {pin:?}", T::NAME));
                    std::hint::black_box(r.run(ga.slice(pin, len), gb.slice(pin, len)));
                    // `dot` reading two slices at different placements.
                    if *name == "dot" {
                        let other = if matches!(pin, At::Head) {
                            At::Tail
                        } else {
                            At::Head
                        };
                        set_case(&format!(
                            "{tier} {} dot len {len} a {pin:?} b {other:?}",
                            T::NAME
                        ));
                        std::hint::black_box(r.run(ga.slice(pin, len), gb.slice(other, len)));
                    }
                }
            }
        }
    });
}

fn fence_bytes(watchdog: &Watchdog) {
    let mut gh = Fenced::new(MAX_BYTES);
    let mut gw = Fenced::new(MAX_BYTES * 8);
    let mut rng = XorShift(0x6a09_e667_f3bc_c908);
    each_tier(|tier| {
        let table = byte_table(tier).expect("available tier has a byte table");
        for len in 0..=MAX_BYTES {
            for at in PLACES {
                watchdog.case(&format!("{tier} bytes len {len} {at:?}"));
                let hay = gh.slice::<u8>(at, len);
                for b in hay.iter_mut() {
                    *b = rng.next() as u8;
                }
                let needle = if len > 0 { hay[len / 2] } else { 0 };
                set_case(&format!("{tier} count_byte len {len} {at:?}"));
                std::hint::black_box((table.count_byte)(gh.slice(at, len), needle));
                // The middle needle, and past the last (a scan to the end).
                set_case(&format!("{tier} nth_byte len {len} {at:?}"));
                for n in [0, len / 3, len] {
                    let _ = std::hint::black_box((table.nth_byte)(gh.slice(at, len), needle, n));
                }
                // Zero words scan to the end; a word at the far end only there.
                for last in [0u64, 1 << 63] {
                    let words = gw.slice::<u64>(at, len);
                    words.fill(0);
                    if let Some(w) = words.last_mut() {
                        *w = last;
                    }
                    set_case(&format!("{tier} first_nonzero_word len {len} {at:?}"));
                    std::hint::black_box((table.first_nonzero_word)(gw.slice(at, len)));
                }
            }
        }
    });
}

/// `stream::stream_copy` (on the active tier: the CI lanes run this file under each
/// `NDSIMD_TIER`) from and to slices against either guard page, every length up to
/// `MAX_BYTES` bytes and as many `f64`s: the aligned streaming body and the plain
/// head and tail must stay inside both.
fn fence_stream(watchdog: &Watchdog) {
    use ndsimd_kernels::stream::{stream_copy, stream_fence};
    let (mut gs, mut gd) = (Fenced::new(MAX_BYTES * 8), Fenced::new(MAX_BYTES * 8));
    let mut rng = XorShift(0xbb67_ae85_84ca_a73b);
    for len in 0..=MAX_BYTES {
        for (from, to) in placements() {
            watchdog.case(&format!("stream_copy len {len} {from:?} {to:?}"));
            set_case(&format!("stream_copy u8 len {len} {from:?} {to:?}"));
            for b in gs.slice::<u8>(from, len).iter_mut() {
                *b = rng.next() as u8;
            }
            stream_copy(gs.slice::<u8>(from, len), gd.slice::<u8>(to, len));
            stream_fence();
            assert_eq!(gs.slice::<u8>(from, len), gd.slice::<u8>(to, len));
            set_case(&format!("stream_copy f64 len {len} {from:?} {to:?}"));
            for x in gs.slice::<f64>(from, len).iter_mut() {
                *x = f64::from_bits(rng.next());
            }
            stream_copy(gs.slice::<f64>(from, len), gd.slice::<f64>(to, len));
            stream_fence();
            let same = gs
                .slice::<f64>(from, len)
                .iter()
                .zip(gd.slice::<f64>(to, len).iter())
                .all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same, "stream_copy f64 len {len} {from:?} {to:?}");
        }
    }
}

/// `argmax` and `argmin` of every tier on slices of 4 KiB and more (which ask for
/// the cache lines after them before their last position pass) that end at the
/// guard page, and on ones after the leading guard: hints into the guard page must
/// not fault, and the answers are the scalar tier's. The extreme first, last, and
/// in the middle; lengths across the 8192-element chunks of `generic::argmax`.
fn fence_arg_long<T: TestFloat + AnyBits>(watchdog: &Watchdog) {
    let per_4k = 4096 / std::mem::size_of::<T>();
    let lens = [per_4k, per_4k + 1, 8192 + 77, 3 * 8192 + 5];
    let max_len = lens.iter().copied().max().unwrap_or(0);
    let mut g = Fenced::new(max_len * std::mem::size_of::<T>());
    let mut rng = XorShift(0x3c6e_f372_fe94_f82b);
    let oracle = T::table_for(ndsimd_kernels::Tier::Scalar).unwrap();
    each_tier(|tier| {
        let table = T::table_for(tier).unwrap();
        for &len in &lens {
            for at in PLACES {
                for (where_, spot) in [("first", 0), ("middle", len / 2 + 3), ("last", len - 1)] {
                    let case = format!("{tier} {} argmax len {len} {at:?} max {where_}", T::NAME);
                    watchdog.case(&case);
                    set_case(&case);
                    let x = g.slice::<T>(at, len);
                    for v in x.iter_mut() {
                        *v = finite(&mut rng, -10, 10);
                    }
                    x[spot] = T::from_f64(1e6);
                    x[(spot + len / 3) % len] = T::from_f64(-1e6);
                    let x = &*x;
                    assert_eq!((table.argmax)(x), (oracle.argmax)(x), "{case}");
                    assert_eq!((table.argmin)(x), (oracle.argmin)(x), "{case}");
                }
            }
        }
    });
}

/// One test for everything: the fault handler reports a single current case.
#[test]
fn kernels_stay_inside_their_slices() {
    for sig in [libc::SIGSEGV, libc::SIGBUS] {
        // SAFETY: `report_fault` only calls async-signal-safe functions and reads
        // atomics. Replacing std's handler loses only its stack-overflow message.
        unsafe {
            libc::signal(
                sig,
                report_fault as extern "C" fn(libc::c_int) as libc::sighandler_t,
            )
        };
    }
    let watchdog = Watchdog::new("kernels_stay_inside_their_slices");
    fence::<f32>(&watchdog);
    fence::<f64>(&watchdog);
    fence_bytes(&watchdog);
    fence_stream(&watchdog);
    fence_arg_long::<f32>(&watchdog);
    fence_arg_long::<f64>(&watchdog);
}
