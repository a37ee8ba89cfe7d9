//! The pool's hot path allocates nothing (issue 4: "no heap allocation per job"):
//! once the pool has started and each worker's scratch has grown, parallel jobs and
//! the operations that split over the pool into a caller's buffer make no heap
//! allocation on any thread. A counting global allocator (this binary's own, so no
//! other test shares it) counts every allocation in the process.
//!
//! Its own process without the test harness (`harness = false` in Cargo.toml): the
//! harness's threads would allocate while a test runs.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

use ndsimd::Array;

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments unchanged;
// the counter has no effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, SeqCst);
        // SAFETY: forwarded as received (see the impl).
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, SeqCst);
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, SeqCst);
        // SAFETY: forwarded as received.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` once to warm up (pool start, scratch growth), then `reps` times, and
/// returns how many allocations the `reps` calls made, on any thread.
fn allocations(reps: usize, mut f: impl FnMut()) -> u64 {
    f();
    let before = ALLOCS.load(SeqCst);
    for _ in 0..reps {
        f();
    }
    ALLOCS.load(SeqCst) - before
}

fn check(name: &str, reps: usize, f: impl FnMut(), failures: &mut Vec<String>) {
    let n = allocations(reps, f);
    println!("{name}: {n} allocations in {reps} calls");
    if n != 0 {
        failures.push(format!("{name}: {n} allocations in {reps} calls"));
    }
}

fn main() {
    // Two workers whatever the machine, so every op below really splits.
    ndsimd::set_num_threads(2);
    let big = 1 << 18; // above every elementwise split threshold
    let a = Array::from_vec((0..big).map(|i| (i % 17) as f64 - 8.0).collect::<Vec<_>>());
    let b = Array::from_vec((0..big).map(|i| (i % 13) as f64 * 0.5).collect::<Vec<_>>());
    let mut out = Array::<f64>::zeros(&[big]);
    let mut flags = Array::<bool>::from_elem(&[big], false);
    let mut acc = a.clone();
    let m = Array::from_shape_vec(
        &[512, 512],
        (0..512 * 512).map(|i| (i % 7) as f64).collect(),
    )
    .unwrap();
    let row = Array::from_vec((0..512).map(|i| i as f64).collect::<Vec<_>>());
    let mut mout = Array::<f64>::zeros(&[512, 512]);
    let mut c = Array::<f64>::zeros(&[512, 512]);
    // Tall enough that two threads' A blocks outgrow a quarter of a 32 MiB L3: the
    // blocked form (B packed a block at a time, each worker's A into its slot).
    let tall = Array::from_shape_vec(
        &[2048, 400],
        (0..2048 * 400).map(|i| (i % 5) as f64).collect(),
    )
    .unwrap();
    let wide = Array::from_shape_vec(
        &[400, 256],
        (0..400 * 256).map(|i| (i % 3) as f64).collect(),
    )
    .unwrap();
    let mut tall_c = Array::<f64>::zeros(&[2048, 256]);
    let x = Array::from_vec((0..512).map(|i| (i % 3) as f64).collect::<Vec<_>>());
    let mut y = Array::<f64>::zeros(&[512]);
    let text: Vec<u8> = (0..4 << 20)
        .map(|i| if i % 61 == 0 { b'\n' } else { b'x' })
        .collect();

    // Warm up: every helper must have started (a new thread allocates as it starts,
    // on itself, some time after the spawn). Each of the two chunks waits until
    // both have begun, so the helper must take one.
    let started = std::sync::atomic::AtomicUsize::new(0);
    ndsimd_kernels::pool::run(2, &|_| {
        started.fetch_add(1, SeqCst);
        let t = std::time::Instant::now();
        while started.load(SeqCst) < 2 {
            assert!(
                t.elapsed().as_secs() < 30,
                "the pool's helper never took a chunk"
            );
            std::hint::spin_loop();
        }
    });

    let mut failures = Vec::new();
    check(
        "pool::run, an empty job",
        1000,
        || {
            ndsimd_kernels::pool::run(2, &|i| {
                black_box(i);
            })
        },
        &mut failures,
    );
    check(
        "add_into",
        200,
        || a.add_into(&b, &mut out).unwrap(),
        &mut failures,
    );
    // The streaming path (forced: these outputs are below the default threshold).
    let default = ndsimd_kernels::stream::stream_min();
    ndsimd_kernels::stream::set_stream_min(1);
    check(
        "add_into, streamed",
        200,
        || a.add_into(&b, &mut out).unwrap(),
        &mut failures,
    );
    ndsimd_kernels::stream::set_stream_min(default);
    check(
        "mul_add_into (scalar operand)",
        200,
        || a.mul_add_into(2.5, &b, &mut out).unwrap(),
        &mut failures,
    );
    check(
        "try_add_assign",
        200,
        || acc.try_add_assign(&b).unwrap(),
        &mut failures,
    );
    check(
        "sqrt_into",
        200,
        || b.sqrt_into(&mut out).unwrap(),
        &mut failures,
    );
    check(
        "less_into",
        200,
        || a.less_into(&b, &mut flags).unwrap(),
        &mut failures,
    );
    check(
        "sum",
        200,
        || {
            black_box(a.sum());
        },
        &mut failures,
    );
    check(
        "max",
        200,
        || {
            black_box(a.max().unwrap());
        },
        &mut failures,
    );
    check(
        "vdot",
        200,
        || {
            black_box(a.vdot(&b).unwrap());
        },
        &mut failures,
    );
    check(
        "matrix + row into",
        100,
        || m.add_into(&row, &mut mout).unwrap(),
        &mut failures,
    );
    let col = Array::from_shape_vec(&[512, 1], (0..512).map(|i| i as f64).collect()).unwrap();
    check(
        "matrix + column into",
        100,
        || m.add_into(&col, &mut mout).unwrap(),
        &mut failures,
    );
    check(
        "matrix + its transpose into",
        20,
        || m.add_into(&m.t(), &mut mout).unwrap(),
        &mut failures,
    );
    let mut flags2 = Array::<bool>::from_elem(&[512, 512], false);
    check(
        "greater_into, a strided view and a row",
        20,
        || m.t().greater_into(&row, &mut flags2).unwrap(),
        &mut failures,
    );
    check(
        "matmul_into 512",
        5,
        || m.matmul_into(&m, 1.0, 0.0, &mut c).unwrap(),
        &mut failures,
    );
    check(
        "matmul_into 2048 x 400 x 256",
        5,
        || tall.matmul_into(&wide, 1.0, 0.0, &mut tall_c).unwrap(),
        &mut failures,
    );
    check(
        "matvec into",
        100,
        || m.matmul_into(&x, 1.0, 0.0, &mut y).unwrap(),
        &mut failures,
    );
    check(
        "scan::count_byte_in",
        50,
        || {
            black_box(ndsimd::scan::count_byte_in(&text, b'\n'));
        },
        &mut failures,
    );
    if cfg!(feature = "rayon") {
        // rayon's scopes box their jobs: the count is not ours to promise there.
        println!("feature rayon: allocations reported, not asserted");
        return;
    }
    assert!(
        failures.is_empty(),
        "allocated on the hot path:\n{}",
        failures.join("\n")
    );
}
