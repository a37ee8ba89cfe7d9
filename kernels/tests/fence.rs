//! Fence tests: every kernel of every available tier (elementwise, `fma`, the
//! comparisons, the reductions, the byte and word scans), at every length, on slices
//! that end exactly at a PROT_NONE guard page and on slices that start right after
//! one, so reading or writing one element too far either way faults (the test process
//! dies with SIGSEGV) instead of passing silently.
#![cfg(unix)]

mod common;

use common::{
    byte_table, cmps, fill, finite, kernels, reductions, TestFloat, Watchdog, XorShift, MAX_LEN,
};
use ndsimd_kernels::available_tiers;
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

/// Types for which every bit pattern is a valid value, so a slice of them may be
/// made over memory holding anything.
///
/// # Safety
/// Implement only for such types.
unsafe trait AnyBits: Copy {}
// SAFETY: every bit pattern is a valid f32, f64, u8 or u64.
unsafe impl AnyBits for f32 {}
unsafe impl AnyBits for f64 {}
unsafe impl AnyBits for u8 {}
unsafe impl AnyBits for u64 {}

/// Where a slice lies in its fenced buffer.
#[derive(Clone, Copy, Debug)]
enum At {
    /// Ending exactly where the upper guard page starts.
    Tail,
    /// Starting exactly where the lower guard page ends.
    Head,
}

const PLACES: [At; 2] = [At::Tail, At::Head];

/// One inaccessible page, `pages` read-write pages, one inaccessible page.
struct Fenced {
    base: *mut u8,
    page: usize,
    pages: usize,
}

impl Fenced {
    fn new(bytes: usize) -> Fenced {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let pages = bytes.div_ceil(page).max(1);
        let total = (pages + 2) * page;
        // SAFETY: an anonymous private mapping at an address the kernel chooses
        // touches no existing memory.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mmap failed");
        let base = base.cast::<u8>();
        // SAFETY: the first and the last page lie inside the mapping just created and
        // are page-aligned because mmap returns page-aligned memory.
        unsafe {
            let rc = libc::mprotect(base.cast(), page, libc::PROT_NONE);
            assert_eq!(rc, 0, "mprotect failed");
            let rc = libc::mprotect(base.add((pages + 1) * page).cast(), page, libc::PROT_NONE);
            assert_eq!(rc, 0, "mprotect failed");
        }
        Fenced { base, page, pages }
    }

    /// Start of the `n * size` bytes at `at`, checked to fit.
    fn start(&self, at: At, bytes: usize) -> *mut u8 {
        assert!(bytes <= self.pages * self.page);
        // SAFETY: both offsets stay inside the read-write pages (just checked).
        unsafe {
            let data = self.base.add(self.page);
            match at {
                At::Head => data,
                At::Tail => data.add(self.pages * self.page - bytes),
            }
        }
    }

    /// `n` elements at `at`.
    fn slice<T: AnyBits>(&mut self, at: At, n: usize) -> &mut [T] {
        let bytes = n * std::mem::size_of::<T>();
        let start = self.start(at, bytes);
        // SAFETY: `[start, start + bytes)` is inside the read-write pages, aligned for
        // `T` (page boundaries are, and `bytes` is a multiple of `size_of::<T>()`),
        // holds a valid `T` in any bit pattern (`AnyBits`), and is borrowed mutably
        // from `self`, so nothing else aliases it.
        unsafe { std::slice::from_raw_parts_mut(start.cast::<T>(), n) }
    }

    /// `n` booleans at `at`, all `false`.
    fn bools(&mut self, at: At, n: usize) -> &mut [bool] {
        let start = self.start(at, n);
        // SAFETY: as in `slice`; the bytes are zeroed first, which is `false`, so the
        // slice holds valid `bool`s whatever was stored there before.
        unsafe {
            std::ptr::write_bytes(start, 0, n);
            std::slice::from_raw_parts_mut(start.cast::<bool>(), n)
        }
    }
}

impl Drop for Fenced {
    fn drop(&mut self) {
        // SAFETY: exactly the mapping created in `new`, no longer borrowed.
        unsafe { libc::munmap(self.base.cast(), (self.pages + 2) * self.page) };
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
    for tier in available_tiers() {
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
    }
}

fn fence_bytes(watchdog: &Watchdog) {
    let mut gh = Fenced::new(MAX_BYTES);
    let mut gw = Fenced::new(MAX_BYTES * 8);
    let mut rng = XorShift(0x6a09_e667_f3bc_c908);
    for tier in available_tiers() {
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
    }
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
}
