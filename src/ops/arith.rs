//! Elementwise arithmetic with NumPy broadcasting: add, sub, mul, div, neg, abs.
//!
//! Each operation comes as an allocating method returning `Result`, an `_into`
//! method writing a caller's array, a `try_*_assign` in-place method, and the
//! operators (`&a + &b`, `&a * 2.0`, `a += &b`) which panic with the message the
//! `Result` forms return.

use super::engine::{gather, scatter, Plan, BLOCK};
use crate::array::{Array, ArrayBase, ArrayView, Data, DataMut};
use crate::dim::{broadcast_shapes, broadcast_strides};
use crate::error::{Error, Result};
use crate::{DType, Element};
use ndsimd_kernels::{par, BinaryOp, KernelElement, Table, UnaryOp};

/// A right-hand operand: a scalar or an array view.
pub enum Operand<'a, T: DType> {
    /// A scalar broadcasts to every shape (a 0-D operand).
    Scalar(T),
    /// An array, broadcast by NumPy's rules.
    Array(ArrayView<'a, T>),
}

/// What an arithmetic method takes on its right: `&Array`, `&ArrayView`,
/// `ArrayView`, or a scalar `f32`/`f64`.
///
/// ```
/// use ndsimd::Array;
/// let a = Array::from_vec(vec![1.0, 2.0]);
/// assert_eq!(a.mul(2.0).unwrap().to_vec(), vec![2.0, 4.0]);
/// assert_eq!(a.mul(&a).unwrap().to_vec(), vec![1.0, 4.0]);
/// assert_eq!(a.mul(a.view()).unwrap().to_vec(), vec![1.0, 4.0]);
/// ```
pub trait IntoOperand<'a, T: DType> {
    /// The operand form.
    fn into_operand(self) -> Operand<'a, T>;
}

impl<'a, S: Data> IntoOperand<'a, S::Elem> for &'a ArrayBase<S> {
    fn into_operand(self) -> Operand<'a, S::Elem> {
        Operand::Array(self.view())
    }
}

impl<'a, T: DType> IntoOperand<'a, T> for ArrayView<'a, T> {
    fn into_operand(self) -> Operand<'a, T> {
        Operand::Array(self)
    }
}

impl<'a> IntoOperand<'a, f64> for f64 {
    fn into_operand(self) -> Operand<'a, f64> {
        Operand::Scalar(self)
    }
}

impl<'a> IntoOperand<'a, bool> for bool {
    fn into_operand(self) -> Operand<'a, bool> {
        Operand::Scalar(self)
    }
}

impl<'a> IntoOperand<'a, f32> for f32 {
    fn into_operand(self) -> Operand<'a, f32> {
        Operand::Scalar(self)
    }
}

impl<T: DType> Operand<'_, T> {
    pub(crate) fn shape(&self) -> &[usize] {
        match self {
            Operand::Scalar(_) => &[],
            Operand::Array(a) => a.shape(),
        }
    }
}

/// An operand prepared for the engine: storage, offset and strides over the
/// output's shape. A scalar is a one-element storage with all strides zero.
pub(crate) struct Prepared<'a, T: DType> {
    pub(crate) data: &'a [T],
    pub(crate) offset: usize,
    pub(crate) strides: crate::dim::Strides,
}

/// The one-element storage [`prepare`] reads a scalar operand from (unused for an
/// array).
pub(crate) fn scalar_slot<T: DType>(o: &Operand<'_, T>) -> [T; 1] {
    match o {
        Operand::Scalar(x) => [*x],
        Operand::Array(_) => [T::default()],
    }
}

pub(crate) fn prepare<'a, T: DType>(
    op: &'a Operand<'a, T>,
    scalar: &'a [T; 1],
    shape: &[usize],
) -> Prepared<'a, T> {
    match op {
        Operand::Scalar(_) => Prepared {
            data: scalar,
            offset: 0,
            strides: crate::dim::Strides::filled(shape.len(), 0),
        },
        Operand::Array(a) => Prepared {
            data: a.data,
            offset: a.offset,
            strides: broadcast_strides(a.shape(), a.strides(), shape),
        },
    }
}

/// One input along a run: a slice or a constant (the kernels crate's type, so the
/// allocating forms hand runs to `par::collect_rows` as they are).
pub(crate) use ndsimd_kernels::par::RunArg as Src;

#[inline]
fn call_binary<T: Copy>(op: &BinaryOp<T>, a: Src<'_, T>, b: Src<'_, T>, out: &mut [T]) {
    match (a, b) {
        (Src::Slice(a), Src::Slice(b)) => (op.vv)(a, b, out),
        (Src::Slice(a), Src::Value(s)) => (op.vs)(a, s, out),
        (Src::Value(s), Src::Slice(b)) => (op.sv)(s, b, out),
        (Src::Value(x), Src::Value(y)) => {
            let mut r = [x];
            (op.assign_vs)(&mut r, y);
            out.fill(r[0]);
        }
    }
}

/// Reads `n` elements of an input along a run, from `off` with `stride`; strided
/// inputs are gathered into `buf`.
#[inline]
pub(crate) fn src<'a, T: Copy>(
    data: &'a [T],
    off: isize,
    stride: isize,
    n: usize,
    buf: &'a mut [T],
) -> Src<'a, T> {
    match stride {
        0 => Src::Value(data[off as usize]),
        1 => Src::Slice(&data[off as usize..off as usize + n]),
        _ => {
            gather(data, off as usize, stride, &mut buf[..n]);
            Src::Slice(&buf[..n])
        }
    }
}

/// The elements `r` of a run input (a constant stays itself).
fn part<T: Copy>(x: Src<'_, T>, r: std::ops::Range<usize>) -> Src<'_, T> {
    match x {
        Src::Slice(s) => Src::Slice(&s[r]),
        v => v,
    }
}

/// An operand as a run source: a scalar, or an array's elements when contiguous.
pub(crate) fn whole<'a, T: DType>(o: &'a Operand<'_, T>) -> Option<Src<'a, T>> {
    match o {
        Operand::Scalar(x) => Some(Src::Value(*x)),
        Operand::Array(v) => v.as_slice().map(Src::Slice),
    }
}

/// Elements per piece below which an elementwise op stays on one thread. Measured
/// with 2 threads (`ndsimd bench --filter 'vs 1T'`, three alternations): a 16Ki
/// `add_into` cut into two 8Ki pieces ran 1.31–1.50× its one-thread time, where with
/// 16Ki pieces (so no split) it ran 0.96–1.03×; 4Ki pieces gave 1.02–1.67×.
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
/// into a stack buffer (in L1), and [`stream_copy`] streams that to the output.
const STREAM_BLOCK: usize = 1024;

/// [`split`] for an output that no input shares memory with: one of at least
/// [`stream_min`] bytes is written with streaming stores (see
/// [`ndsimd_kernels::stream`]): each piece runs `f` on blocks of [`STREAM_BLOCK`]
/// elements into a stack buffer and streams each block out, then fences. The
/// values are `f`'s, bit for bit; only how they reach memory changes.
///
/// [`stream_copy`]: ndsimd_kernels::stream::stream_copy
/// [`stream_min`]: ndsimd_kernels::stream::stream_min
pub(crate) fn split_stream<T: Element, F>(out: &mut [T], f: F)
where
    F: Fn(std::ops::Range<usize>, &mut [T]) + Send + Sync + Copy,
{
    use ndsimd_kernels::stream::{stream_copy, stream_fence, stream_min};
    if std::mem::size_of_val(out) < stream_min() {
        return split(out, f);
    }
    split(out, move |r: std::ops::Range<usize>, piece: &mut [T]| {
        let mut stage = [T::zero(); STREAM_BLOCK];
        for (k, block) in piece.chunks_mut(STREAM_BLOCK).enumerate() {
            let at = r.start + k * STREAM_BLOCK;
            let staged = &mut stage[..block.len()];
            f(at..at + block.len(), staged);
            stream_copy(staged, block);
        }
        stream_fence();
    });
}

/// Shape equality without a `memcmp` call (shapes are a handful of entries).
#[inline(always)]
pub(crate) fn same_shape(a: &[usize], b: &[usize]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The common case in a few loads and compares: every operand in standard layout
/// with one shape (or a scalar `b`). Returns false to take the general path, which
/// also reports any shape error.
#[inline]
fn fast_binary<T: Element, S: Data<Elem = T>>(
    op: &BinaryOp<T>,
    a: &ArrayBase<S>,
    b: &Operand<'_, T>,
    out: &mut ArrayBase<impl DataMut<Elem = T>>,
) -> bool {
    if !same_shape(out.shape(), a.shape()) {
        return false;
    }
    let Some(x) = a.as_slice() else { return false };
    match b {
        Operand::Array(v) if same_shape(v.shape(), a.shape()) => {
            match (v.as_slice(), out.as_slice_mut()) {
                (Some(y), Some(o)) => {
                    let vv = op.vv;
                    split_stream(o, move |r, piece| vv(&x[r.clone()], &y[r], piece))
                }
                _ => return false,
            }
        }
        Operand::Scalar(s) => match out.as_slice_mut() {
            Some(o) => {
                let (vs, s) = (op.vs, *s);
                split_stream(o, move |r, piece| vs(&x[r], s, piece))
            }
            None => return false,
        },
        _ => return false,
    }
    true
}

/// [`fast_binary`] into a new array.
#[inline]
fn fast_binary_alloc<T: Element, S: Data<Elem = T>>(
    op: &BinaryOp<T>,
    a: &ArrayBase<S>,
    b: &Operand<'_, T>,
) -> Option<Array<T>> {
    let contiguous = match b {
        Operand::Array(v) => same_shape(v.shape(), a.shape()) && v.is_standard_layout(),
        Operand::Scalar(_) => true,
    };
    if !(contiguous && a.is_standard_layout()) {
        return None;
    }
    let x = a.as_slice()?;
    // Written straight into a fresh allocation (no zeroing pass), on the pool as
    // `split` would cut it.
    let v = match b {
        Operand::Array(v) => par::collect_vv(op.vv_uninit, x, v.as_slice()?, pieces(x.len()), 8),
        Operand::Scalar(s) => par::collect_vs(op.vs_uninit, x, *s, pieces(x.len()), 8),
    };
    Some(Array::from_aligned(a.shape(), v))
}

/// Runs shorter than this are not worth a kernel call each when writing a new
/// broadcast result: those take the zeroed buffer and the engine's blocks.
const ALLOC_MIN_RUN: usize = 64;

/// The allocating form of a broadcast binary operation (the result of `shape`, new
/// and so in standard layout): each run of the plan written straight into a fresh
/// allocation by the kernels' `*_uninit` forms (no zeroing pass), runs cut over the
/// pool as the `_into` form cuts them. `None` (the caller then zeroes and runs the
/// engine) when an input is strided along the run, the runs are short, or the
/// result is empty.
fn broadcast_alloc<T: Element>(
    op: &BinaryOp<T>,
    a: &Operand<'_, T>,
    b: &Operand<'_, T>,
    shape: &[usize],
) -> Option<Array<T>> {
    let (sa, sb) = (scalar_slot(a), scalar_slot(b));
    let pa = prepare(a, &sa, shape);
    let pb = prepare(b, &sb, shape);
    let out_strides = crate::dim::c_strides(shape);
    let plan = Plan::new(
        shape,
        [0, pa.offset, pb.offset],
        [&out_strides, &pa.strides, &pb.strides],
    )?;
    let (len, [so, sta, stb]) = plan.run();
    let direct = |st: isize| st == 0 || st == 1;
    if so != 1 || !direct(sta) || !direct(stb) || len < ALLOC_MIN_RUN {
        return None;
    }
    let runs = plan.runs();
    let arg = |data, off: usize, stride| src(data, off as isize, stride, len, &mut []);
    let (plan, pa, pb) = (&plan, &pa, &pb);
    let v = par::collect_rows(op, runs, len, pieces(runs * len), &|rows, emit| {
        plan.for_each_run_in(rows.start, rows.end, |[_, oa, ob]| {
            emit(arg(pa.data, oa, sta), arg(pb.data, ob, stb))
        })
    });
    Some(Array::from_aligned(shape, v))
}

/// How many pieces [`split`] cuts `len` elements into. Below two pieces whatever the
/// pool's size it skips the pool lookup, which costs a fair part of a 1Ki kernel.
#[inline]
fn pieces(len: usize) -> usize {
    if len < 2 * PAR_MIN_ELEMS {
        1
    } else {
        par::pieces(len, PAR_MIN_ELEMS)
    }
}

/// Writes `op(a, b)` into `out` (shapes already checked: `out` has the broadcast
/// shape and `a`, `b` broadcast to it).
fn binary_exec<T: Element>(
    op: &BinaryOp<T>,
    a: &Operand<'_, T>,
    b: &Operand<'_, T>,
    out: &mut ArrayBase<impl DataMut<Elem = T>>,
) {
    zip_exec(move |x, y, o| call_binary(op, x, y, o), a, b, out)
}

/// The engine of every two-input elementwise operation: `call` receives each run
/// of the two inputs (as slices or constants) and the matching output slice.
pub(crate) fn zip_exec<T: DType, U: DType>(
    call: impl Fn(Src<'_, T>, Src<'_, T>, &mut [U]) + Send + Sync + Copy,
    a: &Operand<'_, T>,
    b: &Operand<'_, T>,
    out: &mut ArrayBase<impl DataMut<Elem = U>>,
) {
    // Fast path: everything contiguous with the output's shape (or scalar).
    let shape = out.dim.clone();
    let direct = |o: &Operand<'_, T>| match o {
        Operand::Scalar(_) => true,
        Operand::Array(v) => v.shape() == &shape[..] && v.is_standard_layout(),
    };
    if out.is_standard_layout() && direct(a) && direct(b) {
        let n = out.len();
        if let (Some(sa), Some(sb), Some(o)) = (whole(a), whole(b), out.as_slice_mut()) {
            debug_assert_eq!(o.len(), n);
            split(o, move |r, piece| {
                call(part(sa, r.clone()), part(sb, r), piece)
            });
            return;
        }
    }

    let (sa, sb) = (scalar_slot(a), scalar_slot(b));
    let pa = prepare(a, &sa, &shape);
    let pb = prepare(b, &sb, &shape);
    let out_off = out.offset;
    let out_strides = out.strides.clone();
    let Some(plan) = Plan::new(
        &shape,
        [out_off, pa.offset, pb.offset],
        [&out_strides, &pa.strides, &pb.strides],
    ) else {
        return;
    };
    let (len, [so, sta, stb]) = plan.run();
    let out_standard = out.is_standard_layout();
    let od = out.data.storage_mut();
    let mut ba = [T::default(); BLOCK];
    let mut bb = [T::default(); BLOCK];
    let mut bo = [U::default(); BLOCK];
    let direct_run = so == 1 && (sta == 0 || sta == 1) && (stb == 0 || stb == 1);
    // A standard-layout output holds run k at `out_off + k * len`: cut it into
    // pieces of whole runs for the pool (a row broadcast over a big matrix).
    let runs = plan.runs();
    let total = runs * len;
    if direct_run && runs >= 2 && out_standard && par::pieces(total, PAR_MIN_ELEMS) > 1 {
        let pieces = par::pieces(total, PAR_MIN_ELEMS);
        let o = &mut od[out_off..out_off + total];
        let (plan, pa, pb, call) = (&plan, &pa, &pb, &call);
        par::for_each_piece_mut(o, pieces, len, |start, piece| {
            let (r0, r1) = (start / len, (start + piece.len()) / len);
            plan.for_each_run_in(r0, r1, |[oo, oa, ob]| {
                let at = oo - out_off - start;
                let ia = src(pa.data, oa as isize, sta, len, &mut []);
                let ib = src(pb.data, ob as isize, stb, len, &mut []);
                call(ia, ib, &mut piece[at..at + len]);
            });
        });
        return;
    }
    plan.for_each_run(|[oo, oa, ob]| {
        if direct_run {
            let ia = src(pa.data, oa as isize, sta, len, &mut []);
            let ib = src(pb.data, ob as isize, stb, len, &mut []);
            call(ia, ib, &mut od[oo..oo + len]);
            return;
        }
        let mut done = 0;
        while done < len {
            let n = BLOCK.min(len - done);
            let d = done as isize;
            let ia = src(pa.data, oa as isize + d * sta, sta, n, &mut ba);
            let ib = src(pb.data, ob as isize + d * stb, stb, n, &mut bb);
            if so == 1 {
                call(ia, ib, &mut od[oo + done..oo + done + n]);
            } else {
                call(ia, ib, &mut bo[..n]);
                scatter(od, (oo as isize + d * so) as usize, so, &bo[..n]);
            }
            done += n;
        }
    });
}

/// `acc = acc op b` (shapes checked: `b` broadcasts to `acc`).
fn assign_exec<T: Element>(
    op: &BinaryOp<T>,
    acc: &mut ArrayBase<impl DataMut<Elem = T>>,
    b: &Operand<'_, T>,
) {
    let shape = acc.dim.clone();
    // The common case: `acc` contiguous and `b` a scalar or contiguous of its shape,
    // on the pool as the `_into` forms are.
    if let Some(target) = acc.as_slice_mut() {
        match b {
            Operand::Scalar(s) => {
                let (assign_vs, s) = (op.assign_vs, *s);
                return split(target, move |_, piece| assign_vs(piece, s));
            }
            Operand::Array(v) if same_shape(v.shape(), &shape) => {
                if let Some(y) = v.as_slice() {
                    let assign_vv = op.assign_vv;
                    return split(target, move |r, piece| assign_vv(piece, &y[r]));
                }
            }
            Operand::Array(_) => {}
        }
    }
    let sb = scalar_slot(b);
    let pb = prepare(b, &sb, &shape);
    let acc_off = acc.offset;
    let acc_strides = acc.strides.clone();
    let Some(plan) = Plan::new(&shape, [acc_off, pb.offset], [&acc_strides, &pb.strides]) else {
        return;
    };
    let (len, [sacc, stb]) = plan.run();
    let ad = acc.data.storage_mut();
    let mut bb = [T::zero(); BLOCK];
    let mut bacc = [T::zero(); BLOCK];
    plan.for_each_run(|[oacc, ob]| {
        let mut done = 0;
        while done < len {
            let n = if sacc == 1 && (stb == 0 || stb == 1) {
                len
            } else {
                BLOCK.min(len - done)
            };
            let d = done as isize;
            let ib = src(pb.data, ob as isize + d * stb, stb, n, &mut bb);
            let start = (oacc as isize + d * sacc) as usize;
            let target: &mut [T] = if sacc == 1 {
                &mut ad[start..start + n]
            } else {
                gather(ad, start, sacc, &mut bacc[..n]);
                &mut bacc[..n]
            };
            match ib {
                Src::Slice(v) => (op.assign_vv)(target, v),
                Src::Value(s) => (op.assign_vs)(target, s),
            }
            if sacc != 1 {
                scatter(ad, start, sacc, &bacc[..n]);
            }
            done += n;
        }
    });
}

/// `out = f(a)` (shapes checked equal).
fn unary_exec<T: Element>(
    op: &UnaryOp<T>,
    a: &ArrayView<'_, T>,
    out: &mut ArrayBase<impl DataMut<Elem = T>>,
) {
    if a.is_standard_layout() && out.is_standard_layout() {
        if let (Some(x), Some(o)) = (a.as_slice(), out.as_slice_mut()) {
            let map = op.map;
            split_stream(o, move |r, piece| map(&x[r], piece));
            return;
        }
    }
    let shape = out.dim.clone();
    let out_off = out.offset;
    let out_strides = out.strides.clone();
    let Some(plan) = Plan::new(&shape, [out_off, a.offset], [&out_strides, a.strides()]) else {
        return;
    };
    let (len, [so, sa]) = plan.run();
    let od = out.data.storage_mut();
    let mut ba = [T::zero(); BLOCK];
    let mut bo = [T::zero(); BLOCK];
    plan.for_each_run(|[oo, oa]| {
        let mut done = 0;
        while done < len {
            let n = if so == 1 && sa == 1 {
                len
            } else {
                BLOCK.min(len - done)
            };
            let d = done as isize;
            let ia = match src(a.data, oa as isize + d * sa, sa, n, &mut ba) {
                Src::Slice(v) => v,
                // A stride-0 input along the output's run cannot happen for a
                // same-shape unary op; treat it as a gather anyway.
                Src::Value(_) => {
                    gather(a.data, (oa as isize + d * sa) as usize, sa, &mut ba[..n]);
                    &ba[..n]
                }
            };
            if so == 1 {
                let start = oo + done;
                (op.map)(ia, &mut od[start..start + n]);
            } else {
                (op.map)(ia, &mut bo[..n]);
                scatter(od, (oo as isize + d * so) as usize, so, &bo[..n]);
            }
            done += n;
        }
    });
}

pub(crate) fn result_shape<T: DType>(
    name: &'static str,
    a: &[usize],
    b: &Operand<'_, T>,
) -> Result<crate::dim::Dim> {
    let shape = broadcast_shapes(a, b.shape()).ok_or_else(|| Error::ShapeMismatch {
        op: name,
        lhs: a.to_vec(),
        rhs: b.shape().to_vec(),
    })?;
    if crate::dim::size_of_shape(&shape).is_none() {
        return Err(Error::InvalidArgument(format!(
            "the result of {name} of shapes {} and {} would have more than usize::MAX elements",
            crate::error::ShapeFmt(a),
            crate::error::ShapeFmt(b.shape())
        )));
    }
    Ok(shape)
}

pub(crate) fn check_out(expected: &[usize], found: &[usize]) -> Result<()> {
    if !same_shape(expected, found) {
        return Err(Error::WrongOutputShape {
            expected: expected.to_vec(),
            found: found.to_vec(),
        });
    }
    Ok(())
}

fn table<T: Element>() -> &'static Table<T> {
    <T as KernelElement>::table()
}

macro_rules! binary_methods {
    ($( $name:ident, $into:ident, $assign:ident, $field:ident, $sym:literal, $numpy:literal; )*) => {
        impl<T: Element, S: Data<Elem = T>> ArrayBase<S> {
            $(
            #[doc = concat!($sym, " elementwise with NumPy broadcasting, in a new array (NumPy's `np.", $numpy, "`).")]
            ///
            /// `rhs` is an array, a view or a scalar. Errors with
            /// [`Error::ShapeMismatch`] when the shapes do not broadcast.
            ///
            /// ```
            /// use ndsimd::Array;
            /// let m = Array::from_shape_vec(&[2, 2], vec![8.0, 6.0, 4.0, 2.0]).unwrap();
            /// let row = Array::from_vec(vec![2.0, 1.0]);
            #[doc = concat!("let r = m.", stringify!($name), "(&row).unwrap();")]
            /// assert_eq!(r.shape(), &[2, 2]);
            #[doc = concat!("assert!(m.", stringify!($name), "(&Array::<f64>::zeros(&[3])).is_err());")]
            /// ```
            pub fn $name<'b>(&self, rhs: impl IntoOperand<'b, T>) -> Result<Array<T>> {
                let rhs = rhs.into_operand();
                if let Some(out) = fast_binary_alloc(&table::<T>().$field, self, &rhs) {
                    return Ok(out);
                }
                let shape = result_shape(stringify!($name), self.shape(), &rhs)?;
                // Broadcasting can ask for far more than either operand holds.
                crate::array::check_alloc::<T>(&shape)?;
                let lhs = Operand::Array(self.view());
                if let Some(out) = broadcast_alloc(&table::<T>().$field, &lhs, &rhs, &shape) {
                    return Ok(out);
                }
                let mut out = Array::zeros(&shape);
                binary_exec(&table::<T>().$field, &lhs, &rhs, &mut out);
                Ok(out)
            }

            #[doc = concat!($sym, " elementwise with NumPy broadcasting, into a caller's array `out` (NumPy's `np.", $numpy, "(a, b, out=out)`).")]
            ///
            /// `out` may have any layout (a strided view works) but must have
            /// exactly the broadcast shape; otherwise [`Error::WrongOutputShape`].
            ///
            /// ```
            /// use ndsimd::Array;
            /// let a = Array::from_vec(vec![1.0, 2.0, 3.0]);
            /// let mut out = Array::<f64>::zeros(&[3]);
            #[doc = concat!("a.", stringify!($into), "(&a, &mut out).unwrap();")]
            /// let mut wrong = Array::<f64>::zeros(&[4]);
            #[doc = concat!("assert!(a.", stringify!($into), "(&a, &mut wrong).is_err());")]
            /// ```
            pub fn $into<'b>(
                &self,
                rhs: impl IntoOperand<'b, T>,
                out: &mut ArrayBase<impl DataMut<Elem = T>>,
            ) -> Result<()> {
                let rhs = rhs.into_operand();
                if fast_binary(&table::<T>().$field, self, &rhs, out) {
                    return Ok(());
                }
                let shape = result_shape(stringify!($name), self.shape(), &rhs)?;
                check_out(&shape, out.shape())?;
                binary_exec(&table::<T>().$field, &Operand::Array(self.view()), &rhs, out);
                Ok(())
            }
            )*
        }

        impl<T: Element, S: DataMut<Elem = T>> ArrayBase<S> {
            $(
            #[doc = concat!("In place, `self` becomes ", $sym, ", `rhs` broadcast to `self`'s shape.")]
            ///
            /// Errors when `rhs` does not broadcast to exactly this shape (the
            /// result may not grow the array, as NumPy's in-place operators).
            ///
            /// ```
            /// use ndsimd::Array;
            /// let mut a = Array::<f64>::ones(&[2, 2]);
            #[doc = concat!("a.", stringify!($assign), "(&Array::from_vec(vec![1.0, 2.0])).unwrap();")]
            #[doc = concat!("assert!(a.", stringify!($assign), "(&Array::<f64>::ones(&[3, 2, 2])).is_err());")]
            /// ```
            pub fn $assign<'b>(&mut self, rhs: impl IntoOperand<'b, T>) -> Result<()> {
                let rhs = rhs.into_operand();
                let shape = result_shape(stringify!($name), self.shape(), &rhs)?;
                if shape.as_ref() != self.shape() {
                    return Err(Error::ShapeMismatch {
                        op: stringify!($assign),
                        lhs: self.shape().to_vec(),
                        rhs: rhs.shape().to_vec(),
                    });
                }
                assign_exec(&table::<T>().$field, self, &rhs);
                Ok(())
            }
            )*
        }
    };
}

binary_methods! {
    add, add_into, try_add_assign, add, "`self + rhs`", "add";
    sub, sub_into, try_sub_assign, sub, "`self - rhs`", "subtract";
    mul, mul_into, try_mul_assign, mul, "`self * rhs`", "multiply";
    div, div_into, try_div_assign, div, "`self / rhs`", "divide";
    maximum, maximum_into, try_maximum_assign, maximum,
        "NumPy's `maximum(self, rhs)` (a NaN in either propagates; of equal values, `-0` and `+0` included, the result is `rhs`'s)", "maximum";
    minimum, minimum_into, try_minimum_assign, minimum,
        "NumPy's `minimum(self, rhs)` (a NaN in either propagates; of equal values the result is `rhs`'s)", "minimum";
}

macro_rules! unary_methods {
    ($( $name:ident, $into:ident, $assign:ident, $what:literal; )*) => {
        impl<T: Element, S: Data<Elem = T>> ArrayBase<S> {
            $(
            #[doc = concat!($what, " of every element, in a new array.")]
            ///
            /// ```
            /// let a = ndsimd::Array::from_vec(vec![-1.0, 2.0, -0.0]);
            #[doc = concat!("let r = a.", stringify!($name), "();")]
            /// assert_eq!(r.shape(), &[3]);
            /// ```
            pub fn $name(&self) -> Array<T> {
                let op = &table::<T>().$name;
                if let Some(x) = self.as_slice() {
                    let v = par::collect_map(op.map_uninit, x, pieces(x.len()), 8);
                    return Array::from_aligned(self.shape(), v);
                }
                let mut out = Array::zeros(self.shape());
                unary_exec(op, &self.view(), &mut out);
                out
            }

            #[doc = concat!($what, " of every element, into `out` (which must have this shape).")]
            ///
            /// ```
            /// let a = ndsimd::Array::from_vec(vec![-1.0, 2.0]);
            /// let mut out = ndsimd::Array::<f64>::zeros(&[2]);
            #[doc = concat!("a.", stringify!($into), "(&mut out).unwrap();")]
            /// ```
            pub fn $into(&self, out: &mut ArrayBase<impl DataMut<Elem = T>>) -> Result<()> {
                check_out(self.shape(), out.shape())?;
                unary_exec(&table::<T>().$name, &self.view(), out);
                Ok(())
            }
            )*
        }

        impl<T: Element, S: DataMut<Elem = T>> ArrayBase<S> {
            $(
            #[doc = concat!($what, " of every element, in place.")]
            ///
            /// ```
            /// let mut a = ndsimd::Array::from_vec(vec![-1.0, 2.0]);
            #[doc = concat!("a.", stringify!($assign), "();")]
            /// ```
            pub fn $assign(&mut self) {
                let op = &table::<T>().$name;
                if let Some(s) = self.as_slice_mut() {
                    let assign = op.assign;
                    return split(s, move |_, piece| assign(piece));
                }
                let src = self.to_owned();
                unary_exec(op, &src.view(), self);
            }
            )*
        }
    };
}

unary_methods! {
    neg, neg_into, neg_assign, "Negation (flips the sign bit, so `-0.0` and NaN too)";
    abs, abs_into, abs_assign, "Absolute value (clears the sign bit, so `abs(-NaN)` is `NaN`)";
    sqrt, sqrt_into, sqrt_assign, "Square root (correctly rounded; NaN for negative inputs)";
}

// ---------------------------------------------------------------- operators

macro_rules! impl_operators {
    ($( $Trait:ident $method:ident $Assign:ident $assign_method:ident => $name:ident $try_assign:ident; )*) => {$(
        /// Panics with the [`Error`] message when the shapes do not broadcast.
        impl<'a, 'b, S1: Data, S2: Data<Elem = S1::Elem>> std::ops::$Trait<&'b ArrayBase<S2>> for &'a ArrayBase<S1>
        where
            S1::Elem: Element,
        {
            type Output = Array<S1::Elem>;
            fn $method(self, rhs: &'b ArrayBase<S2>) -> Array<S1::Elem> {
                ArrayBase::$name(self, rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }

        /// Reuses `self`'s buffer when the result has its shape. Panics with the
        /// [`Error`] message when the shapes do not broadcast.
        impl<'b, T: Element, S2: Data<Elem = T>> std::ops::$Trait<&'b ArrayBase<S2>> for Array<T> {
            type Output = Array<T>;
            fn $method(mut self, rhs: &'b ArrayBase<S2>) -> Array<T> {
                if broadcast_shapes(self.shape(), rhs.shape()).as_deref() == Some(self.shape()) {
                    self.$try_assign(rhs).unwrap_or_else(|e| panic!("{e}"));
                    self
                } else {
                    ArrayBase::$name(&self, rhs).unwrap_or_else(|e| panic!("{e}"))
                }
            }
        }

        /// Panics with the [`Error`] message when `rhs` does not broadcast to
        /// `self`'s shape.
        impl<'b, S: DataMut, S2: Data<Elem = S::Elem>> std::ops::$Assign<&'b ArrayBase<S2>> for ArrayBase<S>
        where
            S::Elem: Element,
        {
            fn $assign_method(&mut self, rhs: &'b ArrayBase<S2>) {
                self.$try_assign(rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }

        impl<'a, T: Element, S: Data<Elem = T>> std::ops::$Trait<T> for &'a ArrayBase<S> {
            type Output = Array<T>;
            fn $method(self, rhs: T) -> Array<T> {
                let mut out = Array::<T>::zeros(self.shape());
                binary_exec(
                    &table::<T>().$name,
                    &Operand::Array(self.view()),
                    &Operand::Scalar(rhs),
                    &mut out,
                );
                out
            }
        }

        impl<T: Element> std::ops::$Trait<T> for Array<T> {
            type Output = Array<T>;
            fn $method(mut self, rhs: T) -> Array<T> {
                assign_exec(&table::<T>().$name, &mut self, &Operand::Scalar(rhs));
                self
            }
        }

        impl<T: Element, S: DataMut<Elem = T>> std::ops::$Assign<T> for ArrayBase<S> {
            fn $assign_method(&mut self, rhs: T) {
                assign_exec(&table::<T>().$name, self, &Operand::Scalar(rhs));
            }
        }

        impl_operators!(@scalar $Trait $method $name f32);
        impl_operators!(@scalar $Trait $method $name f64);
    )*};
    (@scalar $Trait:ident $method:ident $name:ident $t:ty) => {
        impl<'a, S: Data<Elem = $t>> std::ops::$Trait<&'a ArrayBase<S>> for $t {
            type Output = Array<$t>;
            fn $method(self, rhs: &'a ArrayBase<S>) -> Array<$t> {
                let op = &table::<$t>().$name;
                if let Some(y) = rhs.as_slice() {
                    let v = par::collect_sv(op.sv_uninit, self, y, pieces(y.len()), 8);
                    return Array::from_aligned(rhs.shape(), v);
                }
                let mut out = Array::<$t>::zeros(rhs.shape());
                binary_exec(
                    &table::<$t>().$name,
                    &Operand::Scalar(self),
                    &Operand::Array(rhs.view()),
                    &mut out,
                );
                out
            }
        }
    };
}

impl_operators! {
    Add add AddAssign add_assign => add try_add_assign;
    Sub sub SubAssign sub_assign => sub try_sub_assign;
    Mul mul MulAssign mul_assign => mul try_mul_assign;
    Div div DivAssign div_assign => div try_div_assign;
}

impl<S: Data> std::ops::Neg for &ArrayBase<S>
where
    S::Elem: Element,
{
    type Output = Array<S::Elem>;
    fn neg(self) -> Array<S::Elem> {
        ArrayBase::neg(self)
    }
}

impl<T: Element> std::ops::Neg for Array<T> {
    type Output = Array<T>;
    fn neg(mut self) -> Array<T> {
        self.neg_assign();
        self
    }
}
