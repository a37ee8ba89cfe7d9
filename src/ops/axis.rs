//! Reductions along one axis: `sum_axis`, `prod_axis`, `mean_axis`, `max_axis`,
//! `min_axis`, `argmax_axis`, `argmin_axis`, with NumPy's `keepdims` and negative axes.
//!
//! # Algorithm
//!
//! The axis being reduced has length `n` and stride `sk`; the other axes (length-1
//! axes dropped, neighbours that step uniformly merged) describe the output positions
//! in row-major order. The last of them is the *run* (length `L`, stride `sr`). One of
//! three paths is taken, on any layout, without copying the input:
//!
//! * **Lanes** (`sk == 1`, e.g. the last axis of a standard array): each output element
//!   reduces one contiguous lane of `n` elements with the kernel's slice reduction
//!   (`sum`, `prod`, `max`, `min`, `argmax`, `argmin` of the [`Table`]), so it gets the
//!   kernel's canonical lane order and its NaN and signed-zero rules as they are.
//! * **Slabs** (`sk != 1` and `L >= MIN_RUN`, e.g. a leading axis of a standard array):
//!   the output is cut into bands of at most [`BAND`] elements along the run; each band
//!   is an accumulator that the `n` slabs of the input (the band's elements at axis
//!   index `0, 1, .., n-1`) are folded into in axis order with the elementwise kernels'
//!   `assign_vv` (`add`, `mul`, `maximum`, `minimum`). A slab is a slice of the input
//!   when `sr == 1` and is gathered into a stack buffer otherwise. argmax/argmin keep a
//!   running value band and index band, updated where `x > acc` (`x < acc`) strictly
//!   (so the first occurrence wins) or where `x` is NaN and `acc` is not. A run shorter
//!   than `MIN_RUN` whose stride is no larger than the axis's (e.g. a leading axis of
//!   an `N×4` array) takes this path too, folded inline with the kernels' exact
//!   definitions instead of a kernel call per few elements; the results are the same.
//! * **Gathered lanes** (`sk != 1`, a short run with a larger stride than the axis's):
//!   each lane is gathered into a buffer of `n` elements and reduced as in the lanes
//!   path.
//!
//! Every unit of work (a chunk of output positions for the lane paths, one band of one
//! output row for the slab path) writes only its own disjoint piece of the output, and
//! every output element is reduced in an order fixed by the path alone, never by where
//! a unit begins. So when the input has at least `PAR_MIN_INPUT` (32Ki) elements per
//! piece, the output is cut into disjoint pieces run on the pool
//! ([`ndsimd_kernels::par`]): runs of lanes, or, on the slab path, bands of at least
//! `SLAB_MIN_OUT` (512) columns
//! (a leading axis with fewer output rows than workers is split into column bands,
//! each band folding all `n` slabs in axis order). The results are bit-identical
//! for any number of threads.
//!
//! # Results, against NumPy and the whole-array reductions
//!
//! * `sum`: starts from `+0` (so a sum of `-0`s is `+0`, as NumPy). Along a lane (a
//!   contiguous axis) it is the whole-array kernel's blocked pairwise order, with
//!   its bound (see [`sum`](crate::ArrayBase::sum)); along slabs it is sequential in
//!   axis order (`((0 + x0) + x1) + ..`), as NumPy's along a non-contiguous axis,
//!   exact on integer data that fits the mantissa and within `n·u·Σ|x|` otherwise
//!   (`u` = 2⁻⁵³ for `f64`, 2⁻²⁴ for `f32`). NumPy's pairwise blocks differ from
//!   ours, so the last bits may differ.
//! * `prod`: `1 · x0 · x1 · ..` in the same orders. `mean` is `sum / n` (NaN for an
//!   empty axis, as NumPy).
//! * `max`/`min`: the first NaN along the axis (its bits) if there is one, else the
//!   largest (smallest) value, with `+0` counted above `-0` — the contract of the
//!   whole-array [`max`](ArrayBase::max)/[`min`](ArrayBase::min), on every path. (NumPy's
//!   sign of a zero result depends on the order it visits equal zeros; the values agree
//!   with NumPy as `==`.)
//! * `argmax`/`argmin`: the index along the axis of the first NaN if there is one, else
//!   of the first largest (smallest) element; `-0` and `+0` are equal, so the first of
//!   them wins (as NumPy).
//! * An empty axis: `sum` gives `0`, `prod` `1`, `mean` NaN; `max`, `min`, `argmax` and
//!   `argmin` return an error naming the axis and the shape (NumPy raises). An empty
//!   output with a non-empty axis is simply an empty result.
//! * A 0-D array has no axis: every axis is [`Error::AxisOutOfRange`]. (NumPy's `sum`,
//!   `prod`, `max`, `min`, `argmax` and `argmin` accept `axis=0` and `axis=-1` on a 0-d
//!   array as a legacy special case; its `mean` raises. ndsimd raises for all.)

use super::operand::check_out;
use crate::array::{normalize_axis, try_filled, Array, ArrayBase, ArrayView, Data, DataMut};
use crate::dim::{Dim, Strides};
use crate::error::{Error, Result, ShapeFmt};
use crate::{DType, Element, Reduce};
use ndsimd_kernels::{par, BinaryOp, Table};
use std::ops::Range;

/// Elements per accumulator band on the slab path (16 KiB of `f64`: the band, and the
/// slab being folded in, stay in L1 while the `n` slabs stream past).
const BAND: usize = 2048;

/// The shortest run that the slab path takes; shorter runs reduce gathered lanes.
const MIN_RUN: usize = 16;

/// Output positions per unit of work on the lane paths.
const LANE_CHUNK: usize = 1024;

/// The four value reductions that fold with an elementwise kernel.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fold {
    Sum,
    Prod,
    Max,
    Min,
}

impl Fold {
    fn name(self) -> &'static str {
        match self {
            Fold::Sum => "sum",
            Fold::Prod => "prod",
            Fold::Max => "max",
            Fold::Min => "min",
        }
    }

    fn lane<T: Element>(self, t: &Table<T>, lane: &[T]) -> T {
        match self {
            // The kernel's empty sum is -0; NumPy's sum starts from +0, and
            // `x + 0` differs from `x` only for `x = -0`.
            Fold::Sum => (t.sum)(lane) + T::zero(),
            Fold::Prod => (t.prod)(lane),
            // Lanes are never empty here (an empty axis is handled before).
            Fold::Max => (t.max)(lane).unwrap_or_else(T::nan),
            Fold::Min => (t.min)(lane).unwrap_or_else(T::nan),
        }
    }

    fn kernel<T: Element>(self, t: &Table<T>) -> &BinaryOp<T> {
        match self {
            Fold::Sum => &t.add,
            Fold::Prod => &t.mul,
            Fold::Max => &t.maximum,
            Fold::Min => &t.minimum,
        }
    }
}

/// Where the elements of an axis reduction lie (see the module documentation).
struct Geometry {
    /// The length and stride of the reduced axis.
    n: usize,
    sk: isize,
    /// The storage offset of the first element.
    offset: isize,
    /// The other axes, length-1 axes dropped and uniform neighbours merged, in
    /// row-major order; never empty (a lone `(1, 0)` when there are none). The last
    /// one is the run.
    dims: Dim,
    strides: Strides,
}

impl Geometry {
    fn new<T: DType>(a: &ArrayView<'_, T>, axis: usize) -> Self {
        // Inline (no heap below the inline rank): an `_into` reduction in a hot
        // loop must not allocate.
        let (mut dims, mut strides) = (Dim::filled(0, 0), Strides::filled(0, 0));
        for (ax, (&d, &s)) in a.shape().iter().zip(a.strides()).enumerate() {
            if ax == axis || d == 1 {
                continue;
            }
            match (dims.last_mut(), strides.last_mut()) {
                (Some(pd), Some(ps)) if *ps == s * d as isize => {
                    *pd *= d;
                    *ps = s;
                }
                _ => {
                    dims.push(d);
                    strides.push(s);
                }
            }
        }
        if dims.is_empty() {
            dims.push(1);
            strides.push(0);
        }
        Geometry {
            n: a.shape()[axis],
            sk: a.strides()[axis],
            offset: a.offset as isize,
            dims,
            strides,
        }
    }

    fn out_len(&self) -> usize {
        self.dims.iter().product()
    }

    fn run(&self) -> (usize, isize) {
        (*self.dims.last().unwrap(), *self.strides.last().unwrap())
    }

    /// The input offset of output position `pos` (row-major over `dims`).
    fn offset_of(&self, mut pos: usize) -> isize {
        let mut off = self.offset;
        for (&d, &s) in self.dims.iter().zip(self.strides.iter()).rev() {
            off += (pos % d) as isize * s;
            pos /= d;
        }
        off
    }

    /// Calls `f(k, offset)` for the output positions `start + k`, `k` in `0..count`,
    /// walking the offsets with an odometer.
    fn for_each_offset(&self, start: usize, count: usize, mut f: impl FnMut(usize, isize)) {
        let nd = self.dims.len();
        let mut idx = Dim::filled(nd, 0);
        let mut p = start;
        for ax in (0..nd).rev() {
            idx[ax] = p % self.dims[ax];
            p /= self.dims[ax];
        }
        let mut off = self.offset_of(start);
        for k in 0..count {
            f(k, off);
            for ax in (0..nd).rev() {
                idx[ax] += 1;
                off += self.strides[ax];
                if idx[ax] < self.dims[ax] {
                    break;
                }
                off -= self.strides[ax] * self.dims[ax] as isize;
                idx[ax] = 0;
            }
        }
    }

    fn path(&self) -> Path {
        let (run, sr) = self.run();
        if self.sk == 1 || self.n == 1 {
            Path::Lanes
        } else if run >= MIN_RUN || sr.unsigned_abs() <= self.sk.unsigned_abs() {
            Path::Slabs
        } else {
            Path::GatheredLanes
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Path {
    Lanes,
    Slabs,
    GatheredLanes,
}

/// `len` elements from `off` with `stride`: a slice of `data` when contiguous, else
/// gathered into `buf`.
#[inline]
fn strided<'a, T: Copy>(
    data: &'a [T],
    off: isize,
    stride: isize,
    len: usize,
    buf: &'a mut [T],
) -> &'a [T] {
    if stride == 1 || len <= 1 {
        let o = off as usize;
        return &data[o..o + len];
    }
    let buf = &mut buf[..len];
    let mut o = off;
    for b in buf.iter_mut() {
        *b = data[o as usize];
        o += stride;
    }
    buf
}

/// Lane paths, one unit of work: the output positions `start..start + out.len()`,
/// each the reduction `lane` of its `n` elements (gathered when `sk != 1`).
fn lanes_chunk<T: Element, O>(
    g: &Geometry,
    data: &[T],
    start: usize,
    out: &mut [O],
    lane: &impl Fn(&[T]) -> O,
) {
    let mut buf = if g.sk == 1 || g.n == 1 {
        Vec::new()
    } else {
        vec![T::zero(); g.n]
    };
    g.for_each_offset(start, out.len(), |k, off| {
        out[k] = lane(strided(data, off, g.sk, g.n, &mut buf));
    });
}

/// Slab path, one unit of work: the band of output elements `cols` of the output row
/// whose first element is at input offset `row_off`, folded over the `n` slabs.
fn fold_band<T: Element>(
    fold: Fold,
    t: &Table<T>,
    g: &Geometry,
    data: &[T],
    row_off: isize,
    cols: Range<usize>,
    acc: &mut [T],
) {
    let (_, sr) = g.run();
    let len = cols.len();
    let off0 = row_off + cols.start as isize * sr;
    let mut buf = [T::zero(); BAND];
    let kernel = fold.kernel(t);
    let assign = kernel.assign_vv;
    let first = match fold {
        Fold::Sum => {
            acc.fill(T::zero());
            0
        }
        Fold::Prod => {
            acc.fill(T::one());
            0
        }
        Fold::Max | Fold::Min => {
            acc.copy_from_slice(strided(data, off0, sr, len, &mut buf));
            1
        }
    };
    if len >= MIN_RUN && sr == 1 {
        // Contiguous runs: four slabs a pass (the same operations in the same order
        // as one slab at a time, with a quarter of the loads and stores of `acc`).
        let slab = |j: usize| {
            let o = (off0 + j as isize * g.sk) as usize;
            &data[o..o + len]
        };
        let mut j = first;
        while j + 4 <= g.n {
            (kernel.assign_vv4)(acc, [slab(j), slab(j + 1), slab(j + 2), slab(j + 3)]);
            j += 4;
        }
        for j in j..g.n {
            assign(acc, slab(j));
        }
    } else if len >= MIN_RUN {
        for j in first..g.n {
            let x = strided(data, off0 + j as isize * g.sk, sr, len, &mut buf);
            assign(acc, x);
        }
    } else {
        // Short runs: a kernel call per few elements would cost more than the
        // arithmetic, so fold inline with the kernels' exact definitions.
        let op = |a: T, x: T| match fold {
            Fold::Sum => a + x,
            Fold::Prod => a * x,
            Fold::Max => {
                if a.is_nan() || a > x {
                    a
                } else {
                    x
                }
            }
            Fold::Min => {
                if a.is_nan() || a < x {
                    a
                } else {
                    x
                }
            }
        };
        // Slab by slab (independent chains per element, memory in order).
        let mut o = off0 + first as isize * g.sk;
        for _ in first..g.n {
            let mut oc = o;
            for a in acc.iter_mut() {
                *a = op(*a, data[oc as usize]);
                oc += sr;
            }
            o += g.sk;
        }
    }
    // The elementwise maximum(acc, x) gives `x` on equal values, so `+0` then `-0`
    // leaves `-0` (minimum: `-0` then `+0` leaves `+0`). Restore the whole-array rule
    // (+0 above -0) where the result is a zero of the losing sign: rare, and one more
    // pass over the band only when it happens.
    let (lose_neg, keep) = match fold {
        Fold::Max => (true, T::zero()),
        Fold::Min => (false, -T::zero()),
        _ => return,
    };
    let losing = |v: T| v == T::zero() && v.is_sign_negative() == lose_neg;
    if !acc.iter().any(|&v| losing(v)) {
        return;
    }
    for j in 0..g.n {
        let x = strided(data, off0 + j as isize * g.sk, sr, len, &mut buf);
        for (a, &v) in acc.iter_mut().zip(x) {
            if losing(*a) && v == T::zero() && v.is_sign_negative() != lose_neg {
                *a = keep;
            }
        }
    }
}

/// Slab path for argmax/argmin, one unit of work (as [`fold_band`]).
fn arg_band<T: Element>(
    max: bool,
    g: &Geometry,
    data: &[T],
    row_off: isize,
    cols: Range<usize>,
    idx: &mut [i64],
) {
    let (_, sr) = g.run();
    let len = cols.len();
    let off0 = row_off + cols.start as isize * sr;
    let mut buf = [T::zero(); BAND];
    let mut best = [T::zero(); BAND];
    let best = &mut best[..len];
    best.copy_from_slice(strided(data, off0, sr, len, &mut buf));
    idx.fill(0);
    for j in 1..g.n {
        let x = strided(data, off0 + j as isize * g.sk, sr, len, &mut buf);
        for ((b, i), &v) in best.iter_mut().zip(idx.iter_mut()).zip(x) {
            let better = if max { v > *b } else { v < *b };
            // Branch-free selects, so that the loop vectorises.
            let take = better | (v.is_nan() & !b.is_nan());
            *b = if take { v } else { *b };
            *i = if take { j as i64 } else { *i };
        }
    }
}

/// Input elements per piece of work below which an axis reduction stays on the
/// calling thread (as the whole-array reductions' threshold).
const PAR_MIN_INPUT: usize = 1 << 15;

/// Output pieces start at multiples of this many elements, so neighbouring workers
/// do not write into the same cache line.
const PAR_ALIGN: usize = 16;

/// The fewest output elements per piece on the slab path: narrower bands make
/// each of the `n` slabs a short strided read and a kernel call for few elements.
const SLAB_MIN_OUT: usize = 512;

/// Cuts `out` (whose every element reduces `n` input elements) into pieces on the
/// pool when the input is large enough, and calls `f(start, piece)` for each, where
/// `start` is the piece's first output position; else once over the whole of it.
/// Every output element is computed the same way whatever piece it falls in, so
/// results do not depend on the number of threads. No piece is given fewer than
/// `min_out` output elements.
fn split_out<O: Send>(
    out: &mut [O],
    n: usize,
    min_out: usize,
    f: &(dyn Fn(usize, &mut [O]) + Sync),
) {
    let pieces =
        par::pieces(out.len().saturating_mul(n), PAR_MIN_INPUT).min(out.len() / min_out.max(1));
    par::for_each_piece_mut(out, pieces, PAR_ALIGN, f);
}

/// The slab driver: the output positions are cut into pieces across the pool (see
/// [`split_out`]); within a piece, every (output row, band of at most [`BAND`]
/// columns) unit it covers in order. When there are fewer output rows than workers
/// (e.g. a leading axis), the pieces are bands of columns of one row, each folding
/// all `n` slabs in axis order. `band` gets the row's input offset, the band's
/// columns, and the band's slice of the output.
fn drive_slabs<O: Send>(
    g: &Geometry,
    out: &mut [O],
    band: impl Fn(isize, Range<usize>, &mut [O]) + Sync,
) {
    let (run, _) = g.run();
    let outer = Geometry {
        n: g.n,
        sk: g.sk,
        offset: g.offset,
        dims: Dim::from_slice(&g.dims[..g.dims.len() - 1]),
        strides: Strides::from_slice(&g.strides[..g.strides.len() - 1]),
    };
    split_out(out, g.n, SLAB_MIN_OUT, &|start, mut piece| {
        // Position `start` is column `c0` of output row `p`.
        let (mut p, mut c0) = (start / run, start % run);
        while !piece.is_empty() {
            let row_off = outer.offset_of(p);
            let take = (run - c0).min(piece.len());
            let (row, rest) = piece.split_at_mut(take);
            for (b, chunk) in row.chunks_mut(BAND).enumerate() {
                let c = c0 + b * BAND;
                band(row_off, c..c + chunk.len(), chunk);
            }
            piece = rest;
            p += 1;
            c0 = 0;
        }
    });
}

/// The lane driver: the output positions cut into pieces across the pool (see
/// [`split_out`]), each reduced in chunks of [`LANE_CHUNK`] positions.
fn drive_lanes<T: Element, O: Send>(
    g: &Geometry,
    data: &[T],
    out: &mut [O],
    lane: impl Fn(&[T]) -> O + Sync,
) {
    split_out(out, g.n, PAR_ALIGN, &|start, piece| {
        for (c, chunk) in piece.chunks_mut(LANE_CHUNK).enumerate() {
            lanes_chunk(g, data, start + c * LANE_CHUNK, chunk, &lane);
        }
    });
}

/// The output shape: `shape` without `axis`, or with it set to 1 under `keepdims`.
fn out_shape(shape: &[usize], axis: usize, keepdims: bool) -> Dim {
    let mut s = Dim::from_slice(shape);
    if keepdims {
        s[axis] = 1;
    } else {
        s.remove(axis);
    }
    s
}

fn empty_axis_error(op: &str, axis: isize, shape: &[usize]) -> Error {
    Error::InvalidArgument(format!(
        "{op} along axis {axis} of an array of shape {} has no value: the axis is empty",
        ShapeFmt(shape)
    ))
}

pub(crate) fn fold_axis<T: Element>(
    a: ArrayView<'_, T>,
    axis: isize,
    keepdims: bool,
    fold: Fold,
) -> Result<Array<T>> {
    let k = normalize_axis(axis, a.ndim())?;
    let shape = out_shape(a.shape(), k, keepdims);
    let identity = fold_identity(fold, &a, axis, k)?;
    // An empty axis can ask for far more than the input holds.
    let mut out = try_filled(&shape, identity)?;
    fold_run(&a, k, fold, out.payload_mut());
    Ok(Array::from_aligned(&shape, out))
}

/// [`fold_axis`] into a caller's `out` of the result's shape (any layout): the
/// same driver on `out`'s slice when it is contiguous, else through a copy.
pub(super) fn fold_axis_into<T: Element>(
    a: ArrayView<'_, T>,
    axis: isize,
    keepdims: bool,
    fold: Fold,
    out: &mut ArrayBase<impl DataMut<Elem = T>>,
) -> Result<()> {
    let k = normalize_axis(axis, a.ndim())?;
    let shape = out_shape(a.shape(), k, keepdims);
    check_out(&shape, out.shape())?;
    let identity = fold_identity(fold, &a, axis, k)?;
    match out.as_slice_mut() {
        Some(s) => {
            // The slab path accumulates into its band: the identity first, as the
            // allocating form's buffer starts.
            s.fill(identity);
            fold_run(&a, k, fold, s);
        }
        None => {
            let mut tmp = try_filled(&shape, identity)?;
            fold_run(&a, k, fold, tmp.payload_mut());
            let mut it = tmp.payload().iter();
            out.for_each_mut(|o| *o = *it.next().unwrap());
        }
    }
    Ok(())
}

/// The value an output element starts from, or the error of an empty axis for
/// `max`/`min` (which have no identity).
fn fold_identity<T: Element>(fold: Fold, a: &ArrayView<'_, T>, axis: isize, k: usize) -> Result<T> {
    Ok(match fold {
        Fold::Sum => T::zero(),
        Fold::Prod => T::one(),
        Fold::Max | Fold::Min if a.shape()[k] == 0 => {
            return Err(empty_axis_error(fold.name(), axis, a.shape()))
        }
        Fold::Max | Fold::Min => T::zero(),
    })
}

/// The reduction of axis `k` of `a` into `out` (row-major over the other axes,
/// filled with the identity).
fn fold_run<T: Element>(a: &ArrayView<'_, T>, k: usize, fold: Fold, out: &mut [T]) {
    let n = a.shape()[k];
    let total = out.len();
    if n == 0 || total == 0 {
        // An empty result, or (an empty axis) the identity everywhere.
        return;
    }
    let g = Geometry::new(a, k);
    debug_assert_eq!(g.out_len(), total);
    let t = T::table();
    let data = a.data;
    match g.path() {
        Path::Lanes | Path::GatheredLanes => drive_lanes(&g, data, out, |l| fold.lane(t, l)),
        Path::Slabs => drive_slabs(&g, out, |row_off, cols, piece| {
            fold_band(fold, t, &g, data, row_off, cols, piece)
        }),
    }
}

pub(crate) fn arg_axis<T: Element>(
    a: ArrayView<'_, T>,
    axis: isize,
    keepdims: bool,
    max: bool,
) -> Result<Array<i64>> {
    let k = normalize_axis(axis, a.ndim())?;
    let shape = out_shape(a.shape(), k, keepdims);
    if a.shape()[k] == 0 {
        return Err(arg_empty(max, axis, a.shape()));
    }
    let mut out = Array::try_from_elem(&shape, 0i64)?;
    arg_run(
        &a,
        k,
        max,
        out.as_slice_mut().expect("a new array is contiguous"),
    );
    Ok(out)
}

fn arg_empty(max: bool, axis: isize, shape: &[usize]) -> Error {
    let op = if max { "argmax" } else { "argmin" };
    empty_axis_error(op, axis, shape)
}

/// [`arg_axis`] into a caller's `i64` array of the result's shape (any layout).
pub(super) fn arg_axis_into<T: Element>(
    a: ArrayView<'_, T>,
    axis: isize,
    keepdims: bool,
    max: bool,
    out: &mut ArrayBase<impl DataMut<Elem = i64>>,
) -> Result<()> {
    let k = normalize_axis(axis, a.ndim())?;
    let shape = out_shape(a.shape(), k, keepdims);
    check_out(&shape, out.shape())?;
    if a.shape()[k] == 0 {
        return Err(arg_empty(max, axis, a.shape()));
    }
    if let Some(o) = out.as_slice_mut() {
        arg_run(&a, k, max, o);
    } else {
        let mut tmp = vec![0i64; out.len()];
        arg_run(&a, k, max, &mut tmp);
        for (o, v) in out.iter_mut().zip(tmp) {
            *o = v;
        }
    }
    Ok(())
}

/// The indices of axis `k`'s extremes into `out` (row-major over the other axes).
fn arg_run<T: Element>(a: &ArrayView<'_, T>, k: usize, max: bool, out: &mut [i64]) {
    if out.is_empty() {
        return;
    }
    let g = Geometry::new(a, k);
    debug_assert_eq!(g.out_len(), out.len());
    let t = T::table();
    let data = a.data;
    match g.path() {
        Path::Lanes | Path::GatheredLanes => drive_lanes(&g, data, out, |l| {
            if max { (t.argmax)(l) } else { (t.argmin)(l) }.unwrap_or(0) as i64
        }),
        Path::Slabs => drive_slabs(&g, out, |row_off, cols, piece| {
            arg_band(max, &g, data, row_off, cols, piece)
        }),
    }
}

/// [`mean_axis`](ArrayBase::mean_axis) of a float array: the sums divided by the
/// axis length.
pub(crate) fn mean_axis<T: Element>(
    a: ArrayView<'_, T>,
    axis: isize,
    keepdims: bool,
) -> Result<Array<T>> {
    let mut s = fold_axis(a.view(), axis, keepdims, Fold::Sum)?;
    let k = normalize_axis(axis, a.ndim())?;
    let n = T::from_usize(a.shape()[k]).unwrap();
    if let Some(out) = s.as_slice_mut() {
        (T::table().div.assign_vs)(out, n);
    }
    Ok(s)
}

/// A reduction along `axis` for the element types without axis kernels (the
/// integers and `bool`): `f` (a whole-array reduction) of each lane, in row-major
/// order of the other axes. `empty` names an op that has no value on an empty axis
/// (an error, as for the floats).
pub(crate) fn lane_axis<T: Reduce, U: DType>(
    a: ArrayView<'_, T>,
    axis: isize,
    keepdims: bool,
    empty: Option<&str>,
    f: impl Fn(&ArrayView<'_, T>) -> Result<U>,
) -> Result<Array<U>> {
    let k = normalize_axis(axis, a.ndim())?;
    let shape = out_shape(a.shape(), k, keepdims);
    if let (Some(op), 0) = (empty, a.shape()[k]) {
        return Err(empty_axis_error(op, axis, a.shape()));
    }
    let lanes = a.lanes(axis)?;
    let mut out = Vec::new();
    out.try_reserve_exact(lanes.len()).map_err(|_| {
        Error::InvalidArgument(format!(
            "cannot allocate a result of shape {}",
            ShapeFmt(&shape)
        ))
    })?;
    for lane in lanes {
        out.push(f(&lane)?);
    }
    Array::from_shape_vec(&shape, out)
}

impl<T: Reduce, S: Data<Elem = T>> ArrayBase<S> {
    /// The sums along `axis` (negative counts from the end), NumPy's
    /// `sum(a, axis, keepdims=keepdims)`: the axis is removed, or kept with length 1
    /// under `keepdims`. An empty axis sums to `0`.
    ///
    /// Along a contiguous axis each sum is the whole-array kernel's (see
    /// [`sum`](Self::sum): blocked pairwise, the same bits on every tier and thread
    /// count); along any other axis the rows are added in axis order (as NumPy's
    /// along such an axis), within `n·u·Σ|x|` (`u` = 2⁻⁵³ for `f64`, 2⁻²⁴ for
    /// `f32`). Exact on integer-valued data that fits the mantissa.
    /// The integers and `bool` sum each lane in `i64` ([`Reduce::Acc`], wrapping as
    /// NumPy's `int64`; a `bool` sum counts the `true`s).
    /// Errors with [`Error::AxisOutOfRange`] (a 0-D array has no axis).
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    /// assert_eq!(a.sum_axis(0, false)?.to_vec(), vec![5.0, 7.0, 9.0]);
    /// assert_eq!(a.sum_axis(-1, true)?.shape(), &[2, 1]);
    /// assert_eq!(a.sum_axis(-1, true)?.to_vec(), vec![6.0, 15.0]);
    /// assert!(a.sum_axis(2, false).is_err());
    /// let b = Array::from_shape_vec(&[2, 2], vec![i32::MAX, 1, i32::MAX, 2])?;
    /// assert_eq!(b.sum_axis(0, false)?.to_vec(), vec![2 * i32::MAX as i64, 3]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn sum_axis(&self, axis: isize, keepdims: bool) -> Result<Array<T::Acc>> {
        T::fold_axis_of(self.view(), axis, keepdims, false)
    }

    /// The products along `axis`, as [`sum_axis`](Self::sum_axis); an empty axis
    /// gives `1`.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(a.prod_axis(0, false)?.to_vec(), vec![3.0, 8.0]);
    /// assert_eq!(a.prod_axis(1, false)?.to_vec(), vec![2.0, 12.0]);
    /// assert_eq!(Array::<f64>::zeros(&[0, 2]).prod_axis(0, false)?.to_vec(), vec![1.0, 1.0]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn prod_axis(&self, axis: isize, keepdims: bool) -> Result<Array<T::Acc>> {
        T::fold_axis_of(self.view(), axis, keepdims, true)
    }

    /// The means along `axis`: [`sum_axis`](Self::sum_axis) divided by the axis
    /// length; NaN for an empty axis (NumPy's answer).
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 6.0])?;
    /// assert_eq!(a.mean_axis(0, false)?.to_vec(), vec![2.0, 4.0]);
    /// assert!(Array::<f64>::zeros(&[0, 2]).mean_axis(0, false)?.to_vec()[0].is_nan());
    /// // Integers give f64, as NumPy.
    /// let b = Array::from_shape_vec(&[2, 2], vec![1u8, 2, 4, 255])?;
    /// assert_eq!(b.mean_axis(0, false)?.to_vec(), vec![2.5, 128.5]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn mean_axis(&self, axis: isize, keepdims: bool) -> Result<Array<T::Mean>> {
        T::mean_axis_of(self.view(), axis, keepdims)
    }

    /// The largest elements along `axis`: the first NaN along the axis if there is
    /// one (NaN propagates), and `+0` over `-0` — the rules of [`max`](Self::max).
    /// An empty axis is an error naming the axis and the shape.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 3], vec![1.0, 8.0, f64::NAN, 4.0, 5.0, 6.0])?;
    /// let m = a.max_axis(0, false)?.to_vec();
    /// assert_eq!(&m[..2], &[4.0, 8.0]);
    /// assert!(m[2].is_nan());
    /// let e = Array::<f64>::zeros(&[0, 3]).max_axis(0, false).unwrap_err();
    /// assert_eq!(
    ///     e.to_string(),
    ///     "max along axis 0 of an array of shape [0, 3] has no value: the axis is empty"
    /// );
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn max_axis(&self, axis: isize, keepdims: bool) -> Result<Array<T>> {
        T::extreme_axis_of(self.view(), axis, keepdims, true)
    }

    /// The smallest elements along `axis`: the first NaN if there is one, and `-0`
    /// under `+0` — the rules of [`min`](Self::min). An empty axis is an error.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![0.0f64, 3.0, -0.0, 1.0])?;
    /// let m = a.min_axis(0, false)?.to_vec();
    /// assert_eq!(m, vec![0.0, 1.0]);
    /// assert!(m[0].is_sign_negative());
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn min_axis(&self, axis: isize, keepdims: bool) -> Result<Array<T>> {
        T::extreme_axis_of(self.view(), axis, keepdims, false)
    }

    /// The index along `axis` of the first largest element, or of the first NaN
    /// (NumPy's `argmax(a, axis, keepdims=keepdims)`). An empty axis is an error.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[3, 2], vec![1.0, 5.0, 7.0, f64::NAN, 7.0, 9.0])?;
    /// assert_eq!(a.argmax_axis(0, false)?.to_vec(), vec![1i64, 1]);
    /// assert_eq!(a.argmax_axis(-1, true)?.shape(), &[3, 1]);
    /// let b = Array::from_shape_vec(&[2, 3], vec![3i64, 9, 9, -1, -5, 0])?;
    /// assert_eq!(b.argmax_axis(1, false)?.to_vec(), vec![1, 2]);
    /// assert_eq!(b.max_axis(1, false)?.to_vec(), vec![9, 0]);
    /// assert_eq!(b.min_axis(0, false)?.to_vec(), vec![-1, -5, 0]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn argmax_axis(&self, axis: isize, keepdims: bool) -> Result<Array<i64>> {
        T::arg_axis_of(self.view(), axis, keepdims, true)
    }

    /// The index along `axis` of the first smallest element, or of the first NaN.
    /// An empty axis is an error.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 3], vec![4.0, -1.0, -1.0, 0.0, -0.0, 2.0])?;
    /// assert_eq!(a.argmin_axis(1, false)?.to_vec(), vec![1i64, 0]);
    /// assert_eq!(a.argmin_axis(0, false)?.to_vec(), vec![1i64, 0, 0]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn argmin_axis(&self, axis: isize, keepdims: bool) -> Result<Array<i64>> {
        T::arg_axis_of(self.view(), axis, keepdims, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        let a = Array::<f64>::zeros(&[4, 5, 40]);
        let v = a.view();
        assert_eq!(Geometry::new(&v, 2).path(), Path::Lanes);
        assert_eq!(Geometry::new(&v, 1).path(), Path::Slabs);
        assert_eq!(Geometry::new(&v, 0).path(), Path::Slabs);
        let g = Geometry::new(&v, 0);
        assert_eq!((&g.dims[..], &g.strides[..]), (&[200][..], &[1][..]));
        let t = v.t();
        assert_eq!(Geometry::new(&t, 0).path(), Path::Lanes);
        assert_eq!(Geometry::new(&t, 2).path(), Path::Slabs); // run 5, stride 40 < 200
        let b = Array::<f64>::zeros(&[8, 40]);
        let c = b.slice(crate::s![.., ..;10]).unwrap(); // shape [8, 4], strides [40, 10]
        assert_eq!(Geometry::new(&c, 1).path(), Path::GatheredLanes);
        assert_eq!(Geometry::new(&c, 0).path(), Path::Slabs);
    }
}
