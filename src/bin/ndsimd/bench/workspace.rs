//! The workspace rows: `add` in a `Workspace` against `add_into`, the chain
//! `sqrt(x*y + x)` in a workspace against the allocating form, and that chain
//! evaluated block by block (through L1-sized pieces) against three full passes.
//! With `--compare`, NumPy's `x + y` and `np.sqrt(x*y + x)` as well.

use super::runner::Runner;
use super::*;
use ndsimd::{s, Workspace};

/// Elements per block of the blocked chain: 4 KiB per operand, so the four blocks
/// (x, y, the temporary, out) sit in L1. Of 256, 512, 1024 and 2048 (Zen 5, two
/// threads, 4Mi, two runs), 512 was the fastest in both.
pub const BLOCK: usize = 512;

/// The sizes of the `ne chain` rows: from 32Ki, where the operands outgrow L2.
pub const BLOCKED_MIN: usize = 1 << 15;

/// `sqrt(x*y + x)` of `x` and `y` into `out`, [`BLOCK`] elements at a time through
/// `t` (at least a block long), numexpr's method with our kernels: each block's
/// temporary stays in L1 between the three kernels, so memory is read once and
/// written once. The kernels are called on slices: through the array API (views
/// built, shapes and overlap checked) a block's three calls cost 20% at 256Ki.
fn chain_blocks(x: &[f64], y: &[f64], out: &mut [f64], t: &mut [f64]) {
    let k = <f64 as ndsimd_kernels::KernelElement>::table();
    for ((xb, yb), ob) in x
        .chunks(BLOCK)
        .zip(y.chunks(BLOCK))
        .zip(out.chunks_mut(BLOCK))
    {
        let tb = &mut t[..ob.len()];
        (k.mul.vv)(xb, yb, tb);
        (k.add.assign_vv)(tb, xb);
        (k.sqrt.map)(tb, ob);
    }
}

/// [`chain_blocks`] with its temporary block in the workspace.
pub fn blocked_chain(ws: &mut Workspace, x: &Array<f64>, y: &Array<f64>, out: &mut Array<f64>) {
    {
        let mut t = ws.empty::<f64>(&[BLOCK]).unwrap();
        let (xs, ys) = (x.as_slice().unwrap(), y.as_slice().unwrap());
        chain_blocks(
            xs,
            ys,
            out.as_slice_mut().unwrap(),
            t.as_slice_mut().unwrap(),
        );
    }
    ws.reset();
}

/// [`chain_blocks`] on every thread of the pool, as numexpr runs its blocks on its
/// threads: `out` cut into one piece per pool thread on whole blocks, each piece
/// run by one worker with its temporary on its stack (a `Workspace` is not `Sync`).
pub fn blocked_chain_par(x: &[f64], y: &[f64], out: &mut [f64]) {
    let threads = ndsimd::num_threads();
    ndsimd_kernels::par::for_each_piece_mut(out, threads, BLOCK, move |start, piece| {
        let mut t = [0.0f64; BLOCK];
        let r = start..start + piece.len();
        chain_blocks(&x[r.clone()], &y[r], piece, &mut t);
    });
}

/// The same chain as three full `_into` passes.
pub fn three_passes(x: &Array<f64>, y: &Array<f64>, t: &mut Array<f64>, out: &mut Array<f64>) {
    x.mul_into(y, t).unwrap();
    t.try_add_assign(x).unwrap();
    t.sqrt_into(out).unwrap();
}

pub fn workspace(r: &mut Runner) {
    for &n in &SIZES {
        let x = fresh(data(n, 1));
        let y = fresh(data(n, 2));
        let mut out = Array::<f64>::zeros(&[n]);
        let mut t = Array::<f64>::zeros(&[n]);
        let mut out2 = Array::<f64>::zeros(&[n]);
        let mut ws = Workspace::new();
        let want_add = x.add(&y).unwrap();
        let want_chain = x.mul(&y).unwrap().add(&x).unwrap().sqrt();
        if r.wants("ws add") {
            same(
                &ws.add(&x, &y).unwrap().to_vec(),
                &want_add.to_vec(),
                "ws add",
            );
            ws.reset();
            r.row(
                "ws add",
                n,
                24 * n,
                "add_into",
                &mut || {
                    black_box(ws.add(black_box(&x), &y).unwrap());
                    ws.reset();
                },
                &mut || x.add_into(&y, black_box(&mut out)).unwrap(),
            );
        }
        if r.wants("ws chain") {
            let got = ws
                .sqrt(&ws.add(&ws.mul(&x, &y).unwrap(), &x).unwrap())
                .unwrap();
            same(&got.to_vec(), &want_chain.to_vec(), "ws chain");
            ws.reset();
            r.row(
                "ws chain",
                n,
                24 * n,
                "allocating",
                &mut || {
                    black_box(
                        ws.sqrt(&ws.add(&ws.mul(black_box(&x), &y).unwrap(), &x).unwrap())
                            .unwrap(),
                    );
                    ws.reset();
                },
                &mut || {
                    drop(black_box(
                        x.mul(black_box(&y)).unwrap().add(&x).unwrap().sqrt(),
                    ))
                },
            );
        }
        if r.wants("blocked chain") {
            blocked_chain(&mut ws, &x, &y, &mut out);
            same(
                out.as_slice().unwrap(),
                want_chain.as_slice().unwrap(),
                "blocked chain",
            );
            three_passes(&x, &y, &mut t, &mut out);
            same(
                out.as_slice().unwrap(),
                want_chain.as_slice().unwrap(),
                "three passes",
            );
            r.row(
                "blocked chain",
                n,
                24 * n,
                "3 passes",
                &mut || blocked_chain(&mut ws, black_box(&x), &y, black_box(&mut out)),
                &mut || three_passes(black_box(&x), &y, &mut t, black_box(&mut out2)),
            );
        }
    }
}

/// A row view taken in a loop: `a.slice(s![i, ..])` and its `sum`, over the 256
/// rows of a 256×64 `f64` array in turn, against the `sum` of a 64-element array
/// alone (the difference is what making the view costs).
pub fn row_view(r: &mut Runner) {
    if !r.wants("row view sum") {
        return;
    }
    const ROWS: usize = 256;
    const COLS: usize = 64;
    let a = fresh(data(ROWS * COLS, 1))
        .into_shape(&[ROWS as isize, COLS as isize])
        .unwrap();
    let row = Array::from_vec(a.as_slice().unwrap()[..COLS].to_vec());
    for i in [0, 1, ROWS - 1] {
        let want: f64 = Array::from_vec(a.as_slice().unwrap()[i * COLS..][..COLS].to_vec()).sum();
        same(
            &[a.slice(s![i, ..]).unwrap().sum()],
            &[want],
            "row view sum",
        );
    }
    let mut i = 0;
    r.row(
        "row view sum",
        COLS,
        8 * COLS,
        "sum alone",
        &mut || {
            i = (i + 1) % ROWS;
            black_box(black_box(&a).slice(s![black_box(i), ..]).unwrap().sum());
        },
        &mut || {
            black_box(black_box(&row).sum());
        },
    );
}

/// Against numexpr (with `--compare`, on as many threads as ours): the blocked chain
/// on every pool thread against the same on one. Run under the pool's
/// thread count (`run_tables`), not inside the one-thread tables.
pub fn ne_chain(r: &mut Runner) {
    if !r.wants("ne chain") {
        return;
    }
    for &n in SIZES.iter().filter(|&&n| n >= BLOCKED_MIN) {
        let x = fresh(data(n, 1));
        let y = fresh(data(n, 2));
        let mut out = Array::<f64>::zeros(&[n]);
        let mut out2 = Array::<f64>::zeros(&[n]);
        let want_chain = x.mul(&y).unwrap().add(&x).unwrap().sqrt();
        let (xs, ys) = (x.as_slice().unwrap(), y.as_slice().unwrap());
        blocked_chain_par(xs, ys, out.as_slice_mut().unwrap());
        same(
            out.as_slice().unwrap(),
            want_chain.as_slice().unwrap(),
            "blocked chain on the pool",
        );
        r.row(
            "ne chain",
            n,
            24 * n,
            "1 thread",
            &mut || blocked_chain_par(black_box(xs), ys, black_box(out.as_slice_mut().unwrap())),
            &mut || {
                ndsimd::with_threads(1, || {
                    blocked_chain_par(black_box(xs), ys, black_box(out2.as_slice_mut().unwrap()))
                })
            },
        );
    }
}
