//! Splitting work over the pool with disjoint mutable pieces: the safe layer the
//! array crate's parallel drivers use, so they never need `unsafe` themselves.

use crate::mem::Aligned;
use crate::{
    pool, BinaryOp, MapUninit, ShiftSumUninit, SvUninit, Uninit, VsUninit, VvUninit, WritesAll,
};

/// A pointer to the start of a slice, shared with the pool's workers. Each chunk
/// index hands out a disjoint sub-slice of it.
struct SharedMut<U>(*mut U);

// Copied into the job's closure (see `for_each_piece_mut`); a derive would ask
// `U: Copy`.
impl<U> Clone for SharedMut<U> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<U> Copy for SharedMut<U> {}

// SAFETY: the pointer is only turned into disjoint `&mut [U]` pieces (one per chunk
// index, each index used once), so sending it is as sending `&mut [U]` pieces,
// which is sound for `U: Send`.
unsafe impl<U: Send> Send for SharedMut<U> {}
// SAFETY: as above; sharing the wrapper only lets each worker build the pieces of
// the chunk indices it was given, never two overlapping pieces.
unsafe impl<U: Send> Sync for SharedMut<U> {}

/// How many pieces to cut `len` elements into for the current thread's pool:
/// a few per participant (so a late helper never leaves the caller doing two
/// shares), none smaller than `min_piece`, and 1 when the pool is one thread.
/// Above one participant's worth the count is a multiple of the participants:
/// each then owns as many pieces as the others, where 3 pieces on 2 threads would
/// leave the caller 2 and its helper 1 (a helper steals only when it has no more).
///
/// ```
/// let p = ndsimd_kernels::par::pieces(1000, 10_000);
/// assert_eq!(p, 1);
/// ```
pub fn pieces(len: usize, min_piece: usize) -> usize {
    pieces_for(len, min_piece, pool::current_num_threads())
}

fn pieces_for(len: usize, min_piece: usize, threads: usize) -> usize {
    if threads <= 1 {
        return 1;
    }
    let p = (len / min_piece.max(1)).clamp(1, threads * 4);
    if p > threads {
        p / threads * threads
    } else {
        p
    }
}

/// The piece length (in elements) that cuts a pairwise sum of `len` elements in
/// blocks of `block` ([`crate::scalar::block_len`]) into whole subtrees of its tree:
/// a power of two of blocks, the pieces `i * piece..(i + 1) * piece` (the last one
/// short), at least `want` of them where there are that many blocks and at most
/// `max`. Each piece summed alone is its subtree's value, so the piece sums added
/// with [`crate::scalar::pairwise`] give the same bits as one call over the whole,
/// whatever the thread count.
///
/// ```
/// use ndsimd_kernels::par::tree_piece_len;
/// assert_eq!(tree_piece_len(1 << 20, 256, 8, 64), 1 << 17); // 8 pieces of 512 blocks
/// assert_eq!(tree_piece_len(1000, 256, 8, 64), 256); // 4 blocks: one each
/// ```
pub fn tree_piece_len(len: usize, block: usize, want: usize, max: usize) -> usize {
    let blocks = len.div_ceil(block.max(1)).max(1);
    let mut per = 1usize;
    while blocks.div_ceil(per * 2) >= want.max(1) {
        per *= 2;
    }
    while blocks.div_ceil(per) > max.max(1) {
        per *= 2;
    }
    per * block.max(1)
}

/// Where piece `i` of `len` elements cut into `pieces` starts (piece `pieces`
/// "starts" at `len`): nearly equal pieces, each starting at a multiple of `align`
/// elements. Piece `i` is `piece_start(i)..piece_start(i + 1)`; the same cut as
/// [`for_each_piece_mut`] makes, so inputs can be cut to match an output.
///
/// ```
/// use ndsimd_kernels::par::piece_start;
/// assert_eq!((0..=3).map(|i| piece_start(100, 3, 8, i)).collect::<Vec<_>>(), [0, 32, 64, 100]);
/// ```
pub fn piece_start(len: usize, pieces: usize, align: usize, i: usize) -> usize {
    let pieces = pieces.clamp(1, len.max(1));
    if i >= pieces {
        return len;
    }
    let align = align.max(1);
    ((len / pieces * i + (len % pieces) * i / pieces) / align * align).min(len)
}

/// Cuts `out` into `pieces` nearly equal pieces, each starting at a multiple of
/// `align` elements (except that the last one takes the rest), and calls
/// `f(start, piece)` for every piece on the pool, where `start` is the piece's
/// offset in `out`. Returns when all are done; a panic in `f` reaches the caller.
///
/// ```
/// let mut v = vec![0u32; 1000];
/// ndsimd_kernels::par::for_each_piece_mut(&mut v, 7, 8, |start, piece| {
///     for (i, x) in piece.iter_mut().enumerate() {
///         *x = (start + i) as u32;
///     }
/// });
/// assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32));
/// ```
pub fn for_each_piece_mut<U: Send, F>(out: &mut [U], pieces: usize, align: usize, f: F)
where
    F: Fn(usize, &mut [U]) + Send + Sync + Copy,
{
    let len = out.len();
    let pieces = pieces.clamp(1, len.max(1));
    let bound = move |i: usize| piece_start(len, pieces, align, i);
    if pieces == 1 {
        return f(0, out);
    }
    let base = SharedMut(out.as_mut_ptr());
    // Everything the job needs is copied into its closure (`move`), which the pool
    // copies to the helpers (`run_copy`): with `f` a `move` closure of values too,
    // a helper finds all of it in its own slot instead of following references
    // into the caller's stack, one freshly written line after another.
    pool::run_copy(pieces, move |i| {
        let base = base; // the whole `SharedMut` (`Sync`), not its pointer field
        let (start, end) = (bound(i), bound(i + 1));
        if start < end {
            // SAFETY: `[start, end)` lies inside `out` (bounds ascend from 0 to
            // `len`), pieces of different indices do not overlap, `pool::run` calls
            // each index exactly once, and `out` stays mutably borrowed by this
            // function until `run` returns, so this is the only reference to
            // these elements while `f` runs.
            let piece = unsafe { std::slice::from_raw_parts_mut(base.0.add(start), end - start) };
            f(start, piece);
        }
    });
}

/// `vv` of `a` and `b` into a new buffer (its payload on a cache line: see
/// [`Aligned`]), cut into `pieces` on the pool as [`for_each_piece_mut`] cuts
/// (pieces starting at multiples of `align`), with no pass to zero the allocation
/// first: the kernel writes every element.
///
/// # Panics
/// When `a` and `b` differ in length (before anything is written).
///
/// ```
/// use ndsimd_kernels::{par, KernelElement};
/// let v = par::collect_vv(f64::table().add.vv_uninit, &[1.0, 2.0], &[10.0, 20.0], 1, 8);
/// assert_eq!(v.payload(), [11.0, 22.0]);
/// ```
pub fn collect_vv<T: Copy + Send + Sync + 'static>(
    k: WritesAll<VvUninit<T>>,
    a: &[T],
    b: &[T],
    pieces: usize,
    align: usize,
) -> Aligned<T> {
    assert!(a.len() == b.len(), "kernel length mismatch");
    let k = k.get();
    collect(a.len(), pieces, align, move |r, out| {
        k(&a[r.clone()], &b[r], out)
    })
}

/// `vs` of `a` and `s` into a new buffer (see [`collect_vv`]).
///
/// ```
/// use ndsimd_kernels::{par, KernelElement};
/// assert_eq!(par::collect_vs(f64::table().mul.vs_uninit, &[1.0, 2.0], 3.0, 1, 8).payload(), [3.0, 6.0]);
/// ```
pub fn collect_vs<T: Copy + Send + Sync + 'static>(
    k: WritesAll<VsUninit<T>>,
    a: &[T],
    s: T,
    pieces: usize,
    align: usize,
) -> Aligned<T> {
    let k = k.get();
    collect(a.len(), pieces, align, move |r, out| k(&a[r], s, out))
}

/// `sv` of `s` and `b` into a new buffer (see [`collect_vv`]).
///
/// ```
/// use ndsimd_kernels::{par, KernelElement};
/// assert_eq!(par::collect_sv(f64::table().sub.sv_uninit, 1.0, &[1.0, 2.0], 1, 8).payload(), [0.0, -1.0]);
/// ```
pub fn collect_sv<T: Copy + Send + Sync + 'static>(
    k: WritesAll<SvUninit<T>>,
    s: T,
    b: &[T],
    pieces: usize,
    align: usize,
) -> Aligned<T> {
    let k = k.get();
    collect(b.len(), pieces, align, move |r, out| k(s, &b[r], out))
}

/// `map` of `a` into a new buffer (see [`collect_vv`]).
///
/// ```
/// use ndsimd_kernels::{par, KernelElement};
/// assert_eq!(par::collect_map(f64::table().neg.map_uninit, &[1.0, -2.0], 1, 8).payload(), [-1.0, 2.0]);
/// ```
pub fn collect_map<T: Copy + Send + Sync + 'static>(
    k: WritesAll<MapUninit<T>>,
    a: &[T],
    pieces: usize,
    align: usize,
) -> Aligned<T> {
    let k = k.get();
    collect(a.len(), pieces, align, move |r, out| k(&a[r], out))
}

/// [`collect_row_passes`]'s last step of a row: `(row, shift, sum, out_row)`.
pub type RowFinish<T> = dyn Fn(&[T], T, T, &mut [T]) + Sync;

/// The rows of `x` (`len` elements each, `len > 0`) into a new row-major buffer,
/// each row in one visit while it is in cache: `shift(row)` gives `s`, `first`
/// writes the whole output row from `row - s` and returns its sum `t`, and
/// `then(row, s, t, out_row)` finishes the row in place (softmax: `exp`, its sum,
/// a scale). No pass zeroes the allocation first; the rows are cut over the pool
/// into `pieces` of whole rows.
///
/// # Panics
/// When `len` is 0 or does not divide `x.len()` (before the result exists).
///
/// ```
/// use ndsimd_kernels::{par, KernelElement};
/// let t = f64::table();
/// let x = [0.0, 0.0, 1.0, 1.0]; // 2 x 2
/// let v = par::collect_row_passes(&x, 2, 1, t.exp_shift_sum, &|r| r[0], &|_, _, sum, o| {
///     (t.div.assign_vs)(o, sum)
/// });
/// assert_eq!(v.payload(), [0.5; 4]);
/// ```
#[allow(clippy::type_complexity)]
pub fn collect_row_passes<T: Copy + Send + Sync + 'static>(
    x: &[T],
    len: usize,
    pieces: usize,
    first: WritesAll<ShiftSumUninit<T>>,
    shift: &(dyn Fn(&[T]) -> T + Sync),
    then: &RowFinish<T>,
) -> Aligned<T> {
    assert!(
        len > 0 && x.len().is_multiple_of(len),
        "collect_row_passes: {} elements are not whole rows of {len}",
        x.len()
    );
    let first = first.get();
    collect(x.len(), pieces, len, move |r, out| {
        // Pieces start at multiples of `len` and `x.len()` is one: whole rows.
        assert!(
            r.start % len == 0 && r.len() % len == 0,
            "collect_row_passes: a partial row"
        );
        for (row, o) in x[r].chunks_exact(len).zip(out.chunks_exact_mut(len)) {
            let s = shift(row);
            let t = first(row, s, o);
            // SAFETY: `first` is a `WritesAll` kernel: it wrote every element of `o`,
            // and `MaybeUninit<T>` has `T`'s layout.
            let o = unsafe { &mut *(o as *mut Uninit<T> as *mut [T]) };
            then(row, s, t, o);
        }
    })
}

/// One input of a run of a binary operation: `len` elements, or one value repeated
/// (an operand broadcast along the run).
#[derive(Clone, Copy, Debug)]
pub enum RunArg<'a, T> {
    /// The run's elements.
    Slice(&'a [T]),
    /// One value for every element of the run.
    Value(T),
}

/// `rows` runs of `len` elements of `op` into a new row-major buffer (row `r` at
/// payload `r * len`, see [`Aligned`]), with no pass to zero the allocation first; the rows are cut over the
/// pool into `pieces` of whole rows. `args(rows, emit)` must call `emit(x, y)` once
/// for each row of `rows`, in order, with that row's inputs (NumPy's broadcasting
/// of a row over a matrix is `(Slice(matrix row), Slice(row))`; a column,
/// `(Slice(matrix row), Value(column element))`).
///
/// # Panics
/// When `args` emits more or fewer rows than asked, or a slice whose length is not
/// `len` (before the result exists: nothing is returned half-written).
///
/// ```
/// use ndsimd_kernels::{par::{self, RunArg}, KernelElement};
/// let m = [1.0, 2.0, 3.0, 4.0]; // 2 x 2
/// let row = [10.0, 20.0];
/// let v = par::collect_rows(&f64::table().add, 2, 2, 1, &|rows, emit| {
///     for r in rows {
///         emit(RunArg::Slice(&m[2 * r..2 * r + 2]), RunArg::Slice(&row));
///     }
/// });
/// assert_eq!(v.payload(), [11.0, 22.0, 13.0, 24.0]);
/// ```
#[allow(clippy::type_complexity)]
pub fn collect_rows<'a, T: Copy + Send + Sync + 'static>(
    op: &BinaryOp<T>,
    rows: usize,
    len: usize,
    pieces: usize,
    args: &(dyn Fn(core::ops::Range<usize>, &mut dyn FnMut(RunArg<'a, T>, RunArg<'a, T>)) + Sync),
) -> Aligned<T> {
    let n = rows
        .checked_mul(len)
        .expect("collect_rows: rows * len overflows");
    if n == 0 {
        return Aligned {
            vec: Vec::new(),
            start: 0,
        };
    }
    let (vv, vs, sv) = (op.vv_uninit.get(), op.vs_uninit.get(), op.sv_uninit.get());
    collect(n, pieces, len, move |r, out| {
        // Pieces start at multiples of `len` and `n` is one: whole rows.
        assert!(
            r.start % len == 0 && r.len() % len == 0,
            "collect_rows: a partial row"
        );
        let (first, count) = (r.start / len, r.len() / len);
        let mut done = 0;
        args(first..first + count, &mut |x, y| {
            assert!(done < count, "collect_rows: more rows emitted than asked");
            let o = &mut out[done * len..(done + 1) * len];
            match (x, y) {
                (RunArg::Slice(x), RunArg::Slice(y)) => vv(x, y, o),
                (RunArg::Slice(x), RunArg::Value(y)) => vs(x, y, o),
                (RunArg::Value(x), RunArg::Slice(y)) => sv(x, y, o),
                (RunArg::Value(x), RunArg::Value(y)) => {
                    // One value for the whole row: the kernel on one element.
                    let mut one = [core::mem::MaybeUninit::uninit()];
                    vs(&[x], y, &mut one);
                    // SAFETY: `vs` wrote the one element (a `WritesAll` kernel).
                    let v = unsafe { one[0].assume_init() };
                    o.iter_mut().for_each(|e| {
                        e.write(v);
                    });
                }
            }
            done += 1;
        });
        assert!(done == count, "collect_rows: fewer rows emitted than asked");
    })
}

/// A buffer of `n` elements (its payload starting on a cache line, see
/// [`Aligned`]), `fill(range, out)` called for pieces of `0..n` that cover it once
/// (on the pool when `pieces > 1`; pieces start at multiples of `align`). Private:
/// every caller's `fill` writes its whole `out` with [`WritesAll`] kernels (or
/// `MaybeUninit::write`) or panics, which is the promise `Aligned::from_fill` needs.
fn collect<T: Copy + Send + 'static, F>(
    n: usize,
    pieces: usize,
    align: usize,
    fill: F,
) -> Aligned<T>
where
    F: Fn(core::ops::Range<usize>, &mut Uninit<T>) + Send + Sync + Copy,
{
    // SAFETY: the pieces of `for_each_piece_mut` cover `0..n` exactly once, each
    // given to `fill`, which (see above) writes every element of its slice or
    // panics; a panic in any piece reaches this thread after the others finish and
    // unwinds out of `from_fill`.
    unsafe {
        Aligned::from_fill(n, |payload| {
            for_each_piece_mut(payload, pieces, align, move |start, piece| {
                fill(start..start + piece.len(), piece)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::ALIGN;
    use crate::KernelElement;

    fn lined<T>(a: &Aligned<T>) -> bool {
        a.payload().is_empty() || (a.payload().as_ptr() as usize).is_multiple_of(ALIGN)
    }

    #[test]
    fn collected_buffers_are_right_and_start_on_a_line() {
        let t = f64::table();
        for n in 0..70usize {
            let a: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let b: Vec<f64> = (0..n).map(|i| 0.5 * i as f64).collect();
            for pieces in [1usize, 2, 3] {
                let vv = collect_vv(t.add.vv_uninit, &a, &b, pieces, 8);
                let want: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
                assert_eq!((vv.payload(), lined(&vv)), (&want[..], true), "vv {n}");
                let vs = collect_vs(t.mul.vs_uninit, &a, 2.0, pieces, 8);
                let sv = collect_sv(t.sub.sv_uninit, 1.0, &a, pieces, 8);
                let map = collect_map(t.neg.map_uninit, &a, pieces, 8);
                for (got, f) in [
                    (&vs, (|x: f64| 2.0 * x) as fn(f64) -> f64),
                    (&sv, |x| 1.0 - x),
                    (&map, |x| -x),
                ] {
                    let want: Vec<f64> = a.iter().map(|&x| f(x)).collect();
                    assert_eq!((got.payload(), lined(got)), (&want[..], true), "n {n}");
                }
                assert_eq!(map.into_vec(), a.iter().map(|x| -x).collect::<Vec<_>>());
            }
        }
    }

    /// `collect_rows` over a 3 x 4 matrix with a row that `bad` may corrupt.
    fn rows_with(bad: &'static str) -> Aligned<f64> {
        let m = [1.0f64; 12];
        let row = [1.0f64; 5];
        collect_rows(&f64::table().add, 3, 4, 1, &|rows, emit| {
            for r in rows {
                let x = RunArg::Slice(&m[4 * r..4 * r + 4]);
                match (bad, r) {
                    ("short", 2) => {}
                    ("long", 2) => {
                        emit(x, RunArg::Slice(&row[..4]));
                        emit(x, RunArg::Slice(&row[..4]));
                    }
                    ("width", 1) => emit(x, RunArg::Slice(&row[..])),
                    _ => emit(x, RunArg::Slice(&row[..4])),
                }
            }
        })
    }

    #[test]
    fn collect_rows_refuses_a_wrong_count_of_rows_or_a_wrong_width() {
        assert_eq!(rows_with("none").payload(), &[2.0; 12]);
        for (bad, says) in [
            ("short", "fewer rows"),
            ("long", "more rows"),
            ("width", "length mismatch"),
        ] {
            let err = std::panic::catch_unwind(|| rows_with(bad)).unwrap_err();
            let msg = err
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| err.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            assert!(msg.contains(says), "{bad}: {msg}");
        }
        // A panic leaves nothing behind: the next call works.
        assert_eq!(rows_with("none").payload(), &[2.0; 12]);
    }

    #[test]
    fn piece_counts_are_whole_shares() {
        // (len, min_piece, threads) -> pieces
        for (len, min, t, want) in [
            (100, 10, 1, 1),
            (5, 10, 2, 1),
            (25, 10, 2, 2),
            (35, 10, 3, 3),
            (35, 10, 2, 2),
            (59, 10, 2, 4),
            (1000, 10, 2, 8),
            (1000, 10, 3, 12),
            (110, 10, 4, 8),
            (0, 0, 2, 1),
        ] {
            assert_eq!(
                pieces_for(len, min, t),
                want,
                "len {len} min {min} threads {t}"
            );
        }
    }

    #[test]
    fn tree_pieces_are_whole_subtrees() {
        // (len, want, max) -> piece length, block 256
        for (len, want, max, piece) in [
            (1 << 20, 8, 64, 1 << 17),
            ((1 << 20) + 1, 8, 64, 1 << 17), // 9 pieces, the last of one element
            (3 << 18, 8, 64, 1 << 16),       // 12 pieces: whole powers of two only
            (1 << 20, 2, 64, 1 << 19),
            (100, 8, 64, 256),
            (1 << 30, 8, 4, 1 << 28),
        ] {
            assert_eq!(
                tree_piece_len(len, 256, want, max),
                piece,
                "len {len} want {want}"
            );
        }
        // The piece sums added pairwise give one call's bits.
        let a: Vec<f64> = (0..300_000).map(|i| 1.0 / (1.0 + i as f64)).collect();
        let whole = crate::scalar::sum(&a);
        for want in [2usize, 3, 8, 12] {
            let piece = tree_piece_len(a.len(), 256, want, 64);
            let parts: Vec<f64> = a.chunks(piece).map(crate::scalar::sum).collect();
            let got = crate::scalar::pairwise(&parts, -0.0);
            assert_eq!(got.to_bits(), whole.to_bits(), "want {want}");
        }
    }

    #[test]
    fn pieces_cover_everything_once() {
        for len in [0usize, 1, 7, 64, 1000, 4099] {
            for pieces in [1usize, 2, 3, 8, 64] {
                for align in [1usize, 8, 64] {
                    let mut v = vec![0u8; len];
                    for_each_piece_mut(&mut v, pieces, align, |start, p| {
                        assert!(start % align == 0 || p.is_empty());
                        for x in p.iter_mut() {
                            *x += 1;
                        }
                    });
                    assert!(
                        v.iter().all(|&x| x == 1),
                        "len {len} pieces {pieces} align {align}"
                    );
                }
            }
        }
    }
}
