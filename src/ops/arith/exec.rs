//! The runs behind the arithmetic methods: into a new array, into a caller's
//! array, in place, and the unary map.

use super::super::engine::{gather, scatter, Plan, BLOCK};
use super::super::operand::{
    part, prepare, result_shape, same_shape, scalar_slot, src, whole, Operand, Src,
};
use super::super::split::{pieces, split, split_stream, PAR_MIN_ELEMS};
use crate::array::{Array, ArrayBase, ArrayView, Data, DataMut};
use crate::error::{Error, Result};
use crate::{DType, Element, Numeric};
use ndsimd_kernels::{par, BinaryOp, UnaryOp};

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

/// The common case in a few loads and compares: every operand in standard layout
/// with one shape (or a scalar `b`). Returns false to take the general path, which
/// also reports any shape error.
#[inline]
pub(super) fn fast_binary<T: Numeric, S: Data<Elem = T>>(
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
                (Some(y), Some(o)) => vv_into(op, x, y, o),
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

/// `x op y` into `o`, three slices of one length, on the pool as `split_stream`
/// cuts it.
#[inline]
pub(crate) fn vv_into<T: Numeric>(op: &BinaryOp<T>, x: &[T], y: &[T], o: &mut [T]) {
    let vv = op.vv;
    split_stream(o, move |r, piece| vv(&x[r.clone()], &y[r], piece))
}

/// `a op b` in a new array: the one path of the allocating methods (`a.add(&b)`)
/// and of every operator that allocates (`&a + &b`, `&a * 2.0`, `2.0 - &a`), so
/// each spelling gives the same bits by the same route. `name` is the method a
/// shape error names.
pub(super) fn binary_alloc<T: Numeric>(
    op: &BinaryOp<T>,
    name: &'static str,
    a: &Operand<'_, T>,
    b: &Operand<'_, T>,
) -> Result<Array<T>> {
    if let Some(out) = fast_binary_alloc(op, a, b) {
        return Ok(out);
    }
    let shape = result_shape(name, a.shape(), b)?;
    // Broadcasting can ask for far more than either operand holds.
    crate::array::check_alloc::<T>(&shape)?;
    if let Some(out) = broadcast_alloc(op, a, b, &shape) {
        return Ok(out);
    }
    let mut out = Array::zeros(&shape);
    binary_exec(op, a, b, &mut out);
    Ok(out)
}

/// `acc = acc op b` in place: the one path of the `try_*_assign` methods and of
/// every operator that writes its left operand (`a += &b`, `a * 2.0` with `a`
/// owned). Errors when `b` does not broadcast to exactly `acc`'s shape: `name`
/// (the allocating method) names a shape that does not broadcast, `assign_name`
/// one that would grow `acc`.
pub(super) fn binary_assign<T: Numeric>(
    op: &BinaryOp<T>,
    name: &'static str,
    assign_name: &'static str,
    acc: &mut ArrayBase<impl DataMut<Elem = T>>,
    b: &Operand<'_, T>,
) -> Result<()> {
    let shape = result_shape(name, acc.shape(), b)?;
    if !same_shape(&shape, acc.shape()) {
        return Err(Error::ShapeMismatch {
            op: assign_name,
            lhs: acc.shape().to_vec(),
            rhs: b.shape().to_vec(),
        });
    }
    assign_exec(op, acc, b);
    Ok(())
}

/// [`fast_binary`] into a new array: both operands contiguous with one shape, or
/// one a scalar and the other contiguous.
#[inline]
fn fast_binary_alloc<T: Numeric>(
    op: &BinaryOp<T>,
    a: &Operand<'_, T>,
    b: &Operand<'_, T>,
) -> Option<Array<T>> {
    match (a, b) {
        (Operand::Array(x), _) => alloc_contiguous(op, x.shape(), x.as_slice()?, b),
        (Operand::Scalar(s), Operand::Array(y)) => {
            let ys = y.as_slice()?;
            let v = par::collect_sv(op.sv_uninit, *s, ys, pieces(ys.len()), 8);
            Some(Array::from_aligned(y.shape(), v))
        }
        _ => None,
    }
}

/// `x op b` into a new array, for a contiguous left operand `x` of `shape`, when
/// `b` is a scalar or contiguous with the same shape. Written straight into a
/// fresh allocation (no zeroing pass), on the pool as `split` would cut it.
#[inline]
pub(super) fn alloc_contiguous<T: Numeric>(
    op: &BinaryOp<T>,
    shape: &[usize],
    xs: &[T],
    b: &Operand<'_, T>,
) -> Option<Array<T>> {
    let v = match b {
        Operand::Array(y) if same_shape(shape, y.shape()) => {
            par::collect_vv(op.vv_uninit, xs, y.as_slice()?, pieces(xs.len()), 8)
        }
        Operand::Scalar(s) => par::collect_vs(op.vs_uninit, xs, *s, pieces(xs.len()), 8),
        Operand::Array(_) => return None,
    };
    Some(Array::from_aligned(shape, v))
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
pub(super) fn broadcast_alloc<T: Numeric>(
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

/// Writes `op(a, b)` into `out` (shapes already checked: `out` has the broadcast
/// shape and `a`, `b` broadcast to it).
pub(crate) fn binary_exec<T: Numeric>(
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
fn assign_exec<T: Numeric>(
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
    let mut bb = [T::default(); BLOCK];
    let mut bacc = [T::default(); BLOCK];
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
pub(crate) fn unary_exec<T: Element>(
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
    let mut ba = [T::default(); BLOCK];
    let mut bo = [T::default(); BLOCK];
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
