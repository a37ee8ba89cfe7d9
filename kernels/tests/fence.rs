//! Fence tests: every kernel of every available tier, at every length, on slices that
//! end exactly at a PROT_NONE guard page, so reading or writing one element too far
//! faults (the test process dies with SIGSEGV) instead of passing silently.
#![cfg(unix)]

mod common;

use common::{fill, kernels, TestFloat, XorShift, MAX_LEN};
use ndsimd_kernels::available_tiers;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};

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

/// `pages` read-write pages followed by one inaccessible page.
struct Guarded {
    base: *mut u8,
    page: usize,
    pages: usize,
}

impl Guarded {
    fn new(bytes: usize) -> Guarded {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let pages = bytes.div_ceil(page).max(1);
        let total = (pages + 1) * page;
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
        // SAFETY: the last page lies inside the mapping just created, and is
        // page-aligned because mmap returns page-aligned memory.
        let rc = unsafe { libc::mprotect(base.add(pages * page).cast(), page, libc::PROT_NONE) };
        assert_eq!(rc, 0, "mprotect failed");
        Guarded { base, page, pages }
    }

    /// The `n` elements that end exactly where the guard page starts.
    fn tail<T>(&mut self, n: usize) -> &mut [T] {
        let bytes = n * std::mem::size_of::<T>();
        assert!(bytes <= self.pages * self.page);
        // The page size is a multiple of any float's alignment, so the end is aligned.
        // SAFETY: `[end - bytes, end)` is inside the read-write part of the mapping,
        // aligned for `T` (`end` is page-aligned and `bytes` a multiple of
        // `size_of::<T>()`), zero-filled or written since (valid floats), and
        // borrowed mutably from `self`, so nothing else aliases it.
        unsafe {
            let end = self.base.add(self.pages * self.page);
            std::slice::from_raw_parts_mut(end.sub(bytes).cast::<T>(), n)
        }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: exactly the mapping created in `new`, no longer borrowed.
        unsafe { libc::munmap(self.base.cast(), (self.pages + 1) * self.page) };
    }
}

fn fence<T: TestFloat>() {
    let bytes = MAX_LEN * std::mem::size_of::<T>();
    let (mut ga, mut gb, mut gout) = (
        Guarded::new(bytes),
        Guarded::new(bytes),
        Guarded::new(bytes),
    );
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    let mut pick = 0;
    for tier in available_tiers() {
        for (name, kernel) in kernels(T::table_for(tier).unwrap()) {
            for len in 0..=MAX_LEN {
                set_case(&format!("{tier} {} {name} len {len}", T::NAME));
                let a = ga.tail::<T>(len);
                fill(a, 0..len, &mut rng, &mut pick);
                let b = gb.tail::<T>(len);
                fill(b, 0..len, &mut rng, &mut pick);
                let s = T::random(&mut rng);
                kernel.run(ga.tail(len), gb.tail(len), s, gout.tail(len));
            }
        }
    }
}

/// One test for both types: the fault handler reports a single current case.
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
    fence::<f32>();
    fence::<f64>();
}
