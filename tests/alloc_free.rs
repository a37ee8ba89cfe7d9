//! Views and `_into` chains allocate nothing after a warm-up pass: a counting
//! global allocator (this binary's own) counts every allocation in the process.
//!
//! Its own process without the test harness (`harness = false` in Cargo.toml): the
//! harness's threads would allocate while a check counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

use ndsimd::{s, Array, NewAxis, Workspace};

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

/// Runs `f` once to warm up, then `reps` times; records a failure unless the
/// `reps` calls made no allocation on any thread.
fn check(name: &str, reps: usize, mut f: impl FnMut(), failures: &mut Vec<String>) {
    f();
    let before = ALLOCS.load(SeqCst);
    for _ in 0..reps {
        f();
    }
    let n = ALLOCS.load(SeqCst) - before;
    println!("{name}: {n} allocations in {reps} calls");
    if n != 0 {
        failures.push(format!("{name}: {n} allocations in {reps} calls"));
    }
}

fn views(failures: &mut Vec<String>) {
    let a = Array::from_shape_vec(&[64, 64], (0..64 * 64).map(|i| i as f64).collect()).unwrap();
    let cube = Array::<f64>::arange(0.0, 120.0, 1.0)
        .unwrap()
        .into_shape(&[2, 3, 4, 5])
        .unwrap();
    // Past the inline rank: shapes and strides on recycled heap buffers.
    let high = Array::<f64>::zeros(&[2, 1, 2, 1, 2, 1, 2, 3]);
    let row = Array::from_vec((0..64).map(|i| i as f64).collect::<Vec<_>>());
    let mut i = 0usize;
    check(
        "row view + sum",
        1000,
        || {
            i = (i + 1) % 64;
            black_box(a.slice(s![i, ..]).unwrap().sum());
        },
        failures,
    );
    check(
        "slice with steps, negative steps and a new axis",
        1000,
        || {
            black_box(cube.slice(s![..;-1, 1.., NewAxis, ..;2, 3]).unwrap());
        },
        failures,
    );
    check(
        "reshape of a contiguous array (a view)",
        1000,
        || {
            let r = cube.reshape(&[6, -1]).unwrap();
            assert!(r.is_view());
            black_box(r);
        },
        failures,
    );
    check(
        "t, permute_axes, squeeze, insert_axis",
        1000,
        || {
            black_box(cube.t());
            black_box(cube.permute_axes(&[3, 1, 0, 2]).unwrap());
            black_box(cube.insert_axis(1).unwrap().squeeze());
        },
        failures,
    );
    check(
        "broadcast_to and index_axis",
        1000,
        || {
            black_box(row.broadcast_to(&[3, 64, 64]).unwrap());
            black_box(cube.index_axis(2, -1).unwrap());
        },
        failures,
    );
    check(
        "rows, lanes and axis_iter",
        100,
        || {
            black_box(a.rows().unwrap().map(|r| r.sum()).sum::<f64>());
            black_box(cube.lanes(1).unwrap().count());
            black_box(cube.axis_iter(2).unwrap().map(|v| v.len()).sum::<usize>());
        },
        failures,
    );
    check(
        "views of an 8-d array (past the inline rank)",
        1000,
        || {
            let v = high.slice(s![1, .., ..;-1]).unwrap();
            black_box(v.t().permute_axes(&[6, 5, 4, 3, 2, 1, 0]).unwrap());
            black_box(high.reshape(&[4, 2, 2, 1, 1, 1, 1, 3]).unwrap());
            black_box(high.squeeze().insert_axis(0).unwrap());
            black_box(high.index_axis(7, 0).unwrap());
            black_box(high.lanes(0).unwrap().count());
        },
        failures,
    );
}

/// Ten operations (a slice, elementwise arithmetic, unary math, a matmul, axis
/// reductions, a broadcast, a comparison), through `_into` forms and then in a
/// workspace reset each pass.
fn chains(failures: &mut Vec<String>) {
    let x = Array::from_shape_vec(
        &[64, 65],
        (0..64 * 65).map(|i| (i % 17) as f64 - 3.0).collect(),
    )
    .unwrap();
    let y = Array::from_shape_vec(
        &[64, 64],
        (0..64 * 64).map(|i| (i % 5) as f64 * 0.5).collect(),
    )
    .unwrap();
    let w = Array::from_shape_vec(
        &[64, 64],
        (0..64 * 64).map(|i| (i % 7) as f64 - 2.0).collect(),
    )
    .unwrap();
    let z = || Array::<f64>::zeros(&[64, 64]);
    let (mut t1, mut t2, mut t3, mut t4, mut t5, mut t6) = (z(), z(), z(), z(), z(), z());
    let mut r1 = Array::<f64>::zeros(&[64]);
    let mut r2 = Array::<f64>::zeros(&[64, 1]);
    let mut idx = Array::<i64>::zeros(&[64]);
    let mut flags = Array::<bool>::from_elem(&[64, 64], false);
    let mut total = 0.0;
    check(
        "a 10-op chain through _into forms",
        1000,
        || {
            let v = x.slice(s![.., 1..]).unwrap();
            v.mul_into(&y, &mut t1).unwrap();
            t1.add_into(&v, &mut t2).unwrap();
            t2.abs_into(&mut t3).unwrap();
            t3.sqrt_assign();
            t3.matmul_into(&w, 1.0, 0.0, &mut t4).unwrap();
            t4.t().sum_axis_into(0, false, &mut r1).unwrap();
            t4.max_axis_into(1, true, &mut r2).unwrap();
            t4.argmin_axis_into(0, false, &mut idx).unwrap();
            t4.sub_into(&r2, &mut t5).unwrap();
            t5.neg_into(&mut t6).unwrap();
            t6.greater_into(1.0, &mut flags).unwrap();
            total += r1.sum();
        },
        failures,
    );
    let mut ws = Workspace::new();
    let mut wtotal = 0.0;
    let mut wflags = 0usize;
    check(
        "the same chain in a workspace",
        1000,
        || {
            {
                let v = x.slice(s![.., 1..]).unwrap();
                let t2 = ws.add(&ws.mul(&v, &y).unwrap(), &v).unwrap();
                let t3 = ws.sqrt(&ws.abs(&t2).unwrap()).unwrap();
                let t4 = ws.matmul(&t3, &w).unwrap();
                let r1 = ws.sum_axis(&t4.t(), 0, false).unwrap();
                let r2 = ws.max_axis(&t4, 1, true).unwrap();
                let t6 = ws.neg(&ws.sub(&t4, &r2).unwrap()).unwrap();
                let f = ws.greater(&t6, 1.0).unwrap();
                wtotal += r1.sum();
                wflags += f.iter().filter(|&&b| b).count();
            }
            ws.reset();
        },
        failures,
    );
    black_box((total, wtotal, wflags));
}

/// `ws.matmul` in a workspace of exactly `matmul_scratch` bytes plus the result's,
/// 1000 times from the first call on, on a thread whose own packing buffers start
/// empty: no allocation at all (the packing lives in the workspace, on every path
/// that packs: the direct path's copy of B, the narrow and the blocked forms), and
/// every result the bits of the allocating `matmul`. With `batch > 0`, A is a
/// stack of `batch` matrices and B is broadcast over it.
fn workspace_matmul<T: ndsimd::Element>(
    batch: usize,
    (m, k, n): (usize, usize, usize),
    b_offset: usize,
    failures: &mut Vec<String>,
) {
    let shape_a: Vec<usize> = [batch]
        .into_iter()
        .filter(|&q| q > 0)
        .chain([m, k])
        .collect();
    let stack = batch.max(1);
    let a = Array::from_shape_vec(
        &shape_a,
        (0..stack * m * k)
            .map(|i| T::from((i % 13) as f32 - 6.0).unwrap())
            .collect(),
    )
    .unwrap();
    // B as a column slice of a wider array: its rows start `b_offset` in, at a
    // stride of `n + b_offset`.
    let wide = n + b_offset;
    let raw = Array::from_shape_vec(
        &[k, wide],
        (0..k * wide)
            .map(|i| T::from((i % 7) as f32 * 0.25 - 0.5).unwrap())
            .collect(),
    )
    .unwrap();
    let b = raw.slice(s![.., b_offset..]).unwrap();
    let want = a.matmul(&b).unwrap();
    let scratch = ndsimd::matmul_scratch::<T>(m, k, n);
    let result = (stack * m * n * size_of::<T>()).next_multiple_of(64);
    let name = format!(
        "ws.matmul {batch}x {m}x{k}x{n} {} (scratch {scratch} bytes)",
        std::any::type_name::<T>()
    );
    let (allocs, same) = std::thread::scope(|s| {
        s.spawn(|| {
            let mut ws = Workspace::with_capacity(scratch + result);
            let mut same = true;
            let before = ALLOCS.load(SeqCst);
            for _ in 0..1000 {
                {
                    let c = ws.matmul(&a, &b).unwrap();
                    same &= c
                        .iter()
                        .zip(want.iter())
                        .all(|(x, y)| x.integer_decode() == y.integer_decode());
                }
                ws.reset();
            }
            (ALLOCS.load(SeqCst) - before, same)
        })
        .join()
        .unwrap()
    });
    println!("{name}: {allocs} allocations in 1000 calls, same bits: {same}");
    if allocs != 0 || !same {
        failures.push(format!("{name}: {allocs} allocations, same bits: {same}"));
    }
}

fn main() {
    // Every pool helper started first (a new thread allocates as it starts, on
    // itself, some time after the spawn): each of two chunks waits until both
    // have begun, so the helper must take one.
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
    views(&mut failures);
    chains(&mut failures);
    // The direct path copying B to aligned rows (one thread: below the parallel
    // size; rows of 10 off the line), the narrow form, the blocked form, f32.
    workspace_matmul::<f64>(0, (100, 100, 10), 1, &mut failures);
    workspace_matmul::<f64>(0, (96, 300, 200), 0, &mut failures);
    workspace_matmul::<f64>(0, (700, 500, 600), 0, &mut failures);
    workspace_matmul::<f32>(0, (640, 700, 300), 3, &mut failures);
    // Batches: products that pack (one scratch reused product after product), and
    // many tiny ones on the batched register path (no scratch).
    workspace_matmul::<f64>(4, (100, 100, 10), 1, &mut failures);
    workspace_matmul::<f64>(3, (96, 300, 200), 0, &mut failures);
    workspace_matmul::<f32>(2, (300, 200, 160), 3, &mut failures);
    workspace_matmul::<f64>(1000, (8, 8, 8), 0, &mut failures);
    workspace_matmul::<f64>(1000, (16, 16, 16), 0, &mut failures);
    assert!(
        failures.is_empty(),
        "allocated after warm-up:\n{}",
        failures.join("\n")
    );
}
