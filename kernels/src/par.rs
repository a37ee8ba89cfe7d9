//! Splitting work over the pool with disjoint mutable pieces: the safe layer the
//! array crate's parallel drivers use, so they never need `unsafe` themselves.

use crate::pool;

/// A pointer to the start of a slice, shared with the pool's workers. Each chunk
/// index hands out a disjoint sub-slice of it.
struct SharedMut<U>(*mut U);

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
///
/// ```
/// let p = ndsimd_kernels::par::pieces(1000, 10_000);
/// assert_eq!(p, 1);
/// ```
pub fn pieces(len: usize, min_piece: usize) -> usize {
    let threads = pool::current_num_threads();
    if threads <= 1 {
        return 1;
    }
    (len / min_piece.max(1)).clamp(1, threads * 4)
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
/// ndsimd_kernels::par::for_each_piece_mut(&mut v, 7, 8, &|start, piece| {
///     for (i, x) in piece.iter_mut().enumerate() {
///         *x = (start + i) as u32;
///     }
/// });
/// assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32));
/// ```
pub fn for_each_piece_mut<U: Send>(
    out: &mut [U],
    pieces: usize,
    align: usize,
    f: &(dyn Fn(usize, &mut [U]) + Sync),
) {
    let len = out.len();
    let pieces = pieces.clamp(1, len.max(1));
    let bound = move |i: usize| piece_start(len, pieces, align, i);
    if pieces == 1 {
        return f(0, out);
    }
    let base = SharedMut(out.as_mut_ptr());
    let base = &base;
    pool::run(pieces, &|i| {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_everything_once() {
        for len in [0usize, 1, 7, 64, 1000, 4099] {
            for pieces in [1usize, 2, 3, 8, 64] {
                for align in [1usize, 8, 64] {
                    let mut v = vec![0u8; len];
                    for_each_piece_mut(&mut v, pieces, align, &|start, p| {
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
