//! Cutting an elementwise operation's output over the pool: [`split`], and
//! [`split_stream`] for outputs written with streaming stores.

use ndsimd_kernels::par;

/// Elements per piece below which an elementwise op stays on one thread: a 16Ki
/// `add_into` in two 8Ki pieces runs ~1.3-1.5× one thread (docs/design.md#the-pool).
pub(crate) const PAR_MIN_ELEMS: usize = 1 << 13;

/// Outputs at least this long that do not start on a cache line have their head
/// written by a call of its own (see [`split`]); a shorter one costs more in the
/// extra call than its split loads.
const ALIGN_HEAD_MIN: usize = 256;

/// Runs `f(range, out_piece)` over `out` cut into pieces on the pool when it is
/// large enough to pay for the split, else once over the whole of it. Pieces start
/// at multiples of 8 elements (whole cache lines for `f64` when `out` is aligned).
///
/// An output that does not start on a cache line (a caller's `Vec`, a view past
/// the start) of at least [`ALIGN_HEAD_MIN`] elements first gets the elements
/// before the first line boundary in a call of their own, so the rest, and every
/// piece of it, starts on a line: with inputs at the same offset (the usual case,
/// one allocator for all) every load and store of the kernel's loop is aligned.
/// Elementwise results do not depend on where a call starts.
#[inline]
pub(crate) fn split<U: Send, F>(out: &mut [U], f: F)
where
    F: Fn(std::ops::Range<usize>, &mut [U]) + Send + Sync + Copy,
{
    let n = out.len();
    let head = if n >= ALIGN_HEAD_MIN {
        ndsimd_kernels::mem::lead(out.as_ptr()).min(n)
    } else {
        0
    };
    let (first, rest) = out.split_at_mut(head);
    if head > 0 {
        f(0..head, first);
    }
    let pieces = pieces(rest.len());
    if pieces <= 1 {
        return f(head..n, rest);
    }
    // `move` (and `f` by value): a helper finds `f`'s values in its own slot
    // (see `par::for_each_piece_mut`); the callers on hot paths pass `move`
    // closures of values.
    par::for_each_piece_mut(rest, pieces, 8, move |start, piece| {
        f(head + start..head + start + piece.len(), piece)
    });
}

/// Elements per kernel call when an output is streamed: the kernel writes them
/// into a stack buffer (in L1), and
/// [`stream_copy`](ndsimd_kernels::stream::stream_copy) streams that to the output.
const STREAM_BLOCK: usize = 1024;

/// [`split`] for an output that no input shares memory with: one of at least
/// [`stream_min`] bytes is written with streaming stores (see
/// [`ndsimd_kernels::stream`]): each piece runs `f` on blocks of [`STREAM_BLOCK`]
/// elements into a stack buffer and streams each block out, then fences. The
/// values are `f`'s, bit for bit; only how they reach memory changes.
///
/// [`stream_copy`]: ndsimd_kernels::stream::stream_copy
/// [`stream_min`]: ndsimd_kernels::stream::stream_min
pub(crate) fn split_stream<T: crate::DType, F>(out: &mut [T], f: F)
where
    F: Fn(std::ops::Range<usize>, &mut [T]) + Send + Sync + Copy,
{
    use ndsimd_kernels::stream::{stream_copy, stream_fence, stream_min};
    if std::mem::size_of_val(out) < stream_min() {
        return split(out, f);
    }
    split(out, move |r: std::ops::Range<usize>, piece: &mut [T]| {
        let mut stage = [T::default(); STREAM_BLOCK];
        for (k, block) in piece.chunks_mut(STREAM_BLOCK).enumerate() {
            let at = r.start + k * STREAM_BLOCK;
            let staged = &mut stage[..block.len()];
            f(at..at + block.len(), staged);
            stream_copy(staged, block);
        }
        stream_fence();
    });
}
/// How many pieces [`split`] cuts `len` elements into. Below two pieces whatever the
/// pool's size it skips the pool lookup, which costs a fair part of a 1Ki kernel.
#[inline]
pub(crate) fn pieces(len: usize) -> usize {
    if len < 2 * PAR_MIN_ELEMS {
        1
    } else {
        par::pieces(len, PAR_MIN_ELEMS)
    }
}
