//! An allocation-free hot loop: one dense layer with a softmax,
//! `softmax(relu(x @ w + b))`, run many times three ways — allocating a new array
//! per step, writing into buffers made once (the `_into` forms), and in a
//! [`Workspace`] reset each pass. A counting global allocator (this program's own)
//! shows that the last two allocate nothing once warmed up, and the three give the
//! same bits.
//!
//! Run: `cargo run --release --example no_alloc_loop`. It prints the allocations
//! counted and the time per pass of each form on this machine; it fails (an
//! `assert!`) if a warmed-up pass allocates or the forms disagree.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use ndsimd::{Array, Workspace};

/// Counts every allocation (`alloc`, `alloc_zeroed`, `realloc`) in the process.
struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments unchanged;
// the counter has no effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        // SAFETY: forwarded as received.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
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

const BATCH: usize = 64;
const IN: usize = 64;
const OUT: usize = 32;
const WARMUP: usize = 100;
const PASSES: usize = 5000;

/// Runs `pass` `WARMUP` times, then `PASSES` times counting allocations and time;
/// returns (allocations, ns per pass).
fn measure(mut pass: impl FnMut()) -> (u64, f64) {
    for _ in 0..WARMUP {
        pass();
    }
    let before = ALLOCS.load(Relaxed);
    let t = Instant::now();
    for _ in 0..PASSES {
        pass();
    }
    let ns = t.elapsed().as_nanos() as f64 / PASSES as f64;
    (ALLOCS.load(Relaxed) - before, ns)
}

fn main() -> Result<(), ndsimd::Error> {
    let x = Array::from_shape_vec(
        &[BATCH, IN],
        (0..BATCH * IN)
            .map(|i| ((i % 23) as f32 - 11.0) * 0.05)
            .collect(),
    )?;
    let w = Array::from_shape_vec(
        &[IN, OUT],
        (0..IN * OUT)
            .map(|i| ((i % 17) as f32 - 8.0) * 0.02)
            .collect(),
    )?;
    let b = Array::from_shape_vec(&[OUT], (0..OUT).map(|i| i as f32 * 0.01).collect())?;

    // 1. Allocating: every step returns a new array.
    let allocating = || -> ndsimd::Result<(Array<f32>, Array<i64>)> {
        let h = x.matmul(&w)?.add(&b)?.maximum(0.0)?;
        let e = h.sub(&h.max_axis(1, true)?)?.exp();
        let p = e.div(&e.sum_axis(1, true)?)?;
        let label = p.argmax_axis(1, false)?;
        Ok((p, label))
    };
    let (p_ref, label_ref) = allocating()?;
    let (alloc_count, alloc_ns) = measure(|| {
        black_box(allocating().unwrap());
    });

    // 2. `_into` forms: the buffers are made once, before the loop.
    let z = |shape: &[usize]| Array::<f32>::zeros(shape);
    let (mut h, mut h2, mut e, mut p) = (
        z(&[BATCH, OUT]),
        z(&[BATCH, OUT]),
        z(&[BATCH, OUT]),
        z(&[BATCH, OUT]),
    );
    let (mut m, mut s) = (z(&[BATCH, 1]), z(&[BATCH, 1]));
    let mut label = Array::<i64>::zeros(&[BATCH]);
    let mut into_pass = || -> ndsimd::Result<()> {
        x.matmul_into(&w, 1.0, 0.0, &mut h)?; // h = x @ w
        h.add_into(&b, &mut h2)?; // h2 = h + b
        h2.maximum_into(0.0, &mut h)?; // h = relu(h2)
        h.max_axis_into(1, true, &mut m)?;
        h.sub_into(&m, &mut h2)?;
        h2.exp_into(&mut e)?;
        e.sum_axis_into(1, true, &mut s)?;
        e.div_into(&s, &mut p)?;
        p.argmax_axis_into(1, false, &mut label)
    };
    into_pass()?;
    let (into_count, into_ns) = measure(|| into_pass().unwrap());
    assert_eq!(
        p.to_vec(),
        p_ref.to_vec(),
        "_into forms differ from the allocating form"
    );
    assert_eq!(label, label_ref);

    // 3. A workspace: the chain reads as the expression; `reset` reuses the memory.
    let mut ws = Workspace::new();
    let mut ws_pass = |check: bool| -> ndsimd::Result<()> {
        {
            let h = ws.maximum(&ws.add(&ws.matmul(&x, &w)?, &b)?, 0.0)?;
            let e = ws.exp(&ws.sub(&h, &ws.max_axis(&h, 1, true)?)?)?;
            let p = ws.div(&e, &ws.sum_axis(&e, 1, true)?)?;
            if check {
                assert_eq!(p.to_vec(), p_ref.to_vec(), "the workspace differs");
            }
            black_box(&p);
        }
        ws.reset();
        Ok(())
    };
    ws_pass(true)?;
    let (ws_count, ws_ns) = measure(|| ws_pass(false).unwrap());

    println!(
        "softmax(relu(x @ w + b)), x {BATCH}x{IN}, w {IN}x{OUT} (f32), {PASSES} passes after {WARMUP} warm-up passes:"
    );
    println!("  allocating : {alloc_count:>6} allocations, {alloc_ns:>8.0} ns/pass");
    println!("  _into forms: {into_count:>6} allocations, {into_ns:>8.0} ns/pass");
    println!(
        "  workspace  : {ws_count:>6} allocations, {ws_ns:>8.0} ns/pass ({} bytes held)",
        ws.allocated_bytes()
    );
    println!(
        "  row 0 of p sums to {:.6}; labels of rows 0..8: {:?}",
        p_ref.index_axis(0, 0)?.sum(),
        &label_ref.as_slice().unwrap()[..8]
    );
    // The allocating form allocates each pass: the counter does count.
    assert!(
        alloc_count >= PASSES as u64,
        "the counter missed the allocating form"
    );
    assert_eq!(into_count, 0, "the _into loop allocated after warm-up");
    assert_eq!(ws_count, 0, "the workspace loop allocated after warm-up");
    println!("no_alloc_loop: all checks passed");
    Ok(())
}
