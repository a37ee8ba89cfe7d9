//! Fused multiply-add, `a * b + c` rounded once, with NumPy broadcasting.

use super::engine::{gather, scatter, Plan, BLOCK};
use super::operand::{check_out, prepare, scalar_slot, IntoOperand, Operand, Src};
use super::split::split_stream;
use crate::array::{Array, ArrayBase, Data, DataMut};
use crate::dim::{broadcast_shapes, size_of_shape, Dim};
use crate::error::{Error, Result, ShapeFmt};
use crate::Element;

fn fma_shape<T: Element>(a: &[usize], b: &Operand<'_, T>, c: &Operand<'_, T>) -> Result<Dim> {
    let s = broadcast_shapes(a, b.shape())
        .and_then(|ab| broadcast_shapes(&ab, c.shape()))
        .filter(|s| size_of_shape(s).is_some());
    s.ok_or_else(|| {
        Error::InvalidArgument(format!(
            "operands could not be broadcast together in mul_add: shapes {}, {} and {}",
            ShapeFmt(a),
            ShapeFmt(b.shape()),
            ShapeFmt(c.shape())
        ))
    })
}

/// Reads `n` elements of an input along a run into a slice: contiguous inputs are
/// borrowed; constants and strided inputs fill `buf`.
#[inline]
fn run_slice<'a, T: Copy>(
    data: &'a [T],
    off: isize,
    stride: isize,
    n: usize,
    buf: &'a mut [T],
) -> &'a [T] {
    match stride {
        1 => &data[off as usize..off as usize + n],
        0 => {
            buf[..n].fill(data[off as usize]);
            &buf[..n]
        }
        _ => {
            gather(data, off as usize, stride, &mut buf[..n]);
            &buf[..n]
        }
    }
}

/// An operand as a run source when it is a scalar or an array of exactly `shape`,
/// contiguous ([`operand::whole`](super::operand::whole) with the shape checked).
fn whole<'a, T: Element>(o: &'a Operand<'_, T>, shape: &[usize]) -> Option<Src<'a, T>> {
    match o {
        Operand::Array(v) if v.shape() != shape => None,
        _ => super::operand::whole(o),
    }
}

/// Elements `r` of a run source: a slice of it, or its constant repeated into
/// `buf` (`r.len() <= BLOCK`).
fn chunk<'a, T: Copy>(x: &Src<'a, T>, r: std::ops::Range<usize>, buf: &'a [T]) -> &'a [T] {
    match *x {
        Src::Slice(s) => &s[r],
        Src::Value(_) => &buf[..r.len()],
    }
}

fn fma_exec<T: Element>(
    a: &Operand<'_, T>,
    b: &Operand<'_, T>,
    c: &Operand<'_, T>,
    out: &mut ArrayBase<impl DataMut<Elem = T>>,
) {
    let kernel = T::table().fma;
    let shape = out.dim.clone();
    // The common case: the output contiguous, each input a scalar or contiguous with
    // its shape, on the pool as the other elementwise operations are. The kernel
    // takes three slices, so with a scalar the piece goes in blocks, the scalar
    // repeated once into a block buffer.
    let whole = (whole(a, &shape), whole(b, &shape), whole(c, &shape));
    if let ((Some(x), Some(y), Some(z)), Some(o)) = (whole, out.as_slice_mut()) {
        if let (Src::Slice(x), Src::Slice(y), Src::Slice(z)) = (x, y, z) {
            return split_stream(o, move |r, piece| {
                kernel(&x[r.clone()], &y[r.clone()], &z[r], piece)
            });
        }
        let fill = |s: &Src<'_, T>| match *s {
            Src::Value(v) => [v; BLOCK],
            Src::Slice(_) => [T::zero(); BLOCK],
        };
        let (fx, fy, fz) = (fill(&x), fill(&y), fill(&z));
        let (fx, fy, fz) = (&fx, &fy, &fz);
        return split_stream(o, move |r, piece| {
            let mut done = 0;
            while done < piece.len() {
                let n = BLOCK.min(piece.len() - done);
                let at = r.start + done..r.start + done + n;
                kernel(
                    chunk(&x, at.clone(), fx),
                    chunk(&y, at.clone(), fy),
                    chunk(&z, at, fz),
                    &mut piece[done..done + n],
                );
                done += n;
            }
        });
    }
    let (sa, sb, sc) = (scalar_slot(a), scalar_slot(b), scalar_slot(c));
    let (pa, pb, pc) = (
        prepare(a, &sa, &shape),
        prepare(b, &sb, &shape),
        prepare(c, &sc, &shape),
    );
    let out_off = out.offset;
    let out_strides = out.strides.clone();
    let Some(plan) = Plan::new(
        &shape,
        [out_off, pa.offset, pb.offset, pc.offset],
        [&out_strides, &pa.strides, &pb.strides, &pc.strides],
    ) else {
        return;
    };
    let (len, [so, sta, stb, stc]) = plan.run();
    let od = out.data.storage_mut();
    let (mut ba, mut bb, mut bc, mut bo) = (
        [T::zero(); BLOCK],
        [T::zero(); BLOCK],
        [T::zero(); BLOCK],
        [T::zero(); BLOCK],
    );
    let whole = so == 1 && sta == 1 && stb == 1 && stc == 1;
    plan.for_each_run(|[oo, oa, ob, oc]| {
        let mut done = 0;
        while done < len {
            let n = if whole { len } else { BLOCK.min(len - done) };
            let d = done as isize;
            let xa = run_slice(pa.data, oa as isize + d * sta, sta, n, &mut ba);
            let xb = run_slice(pb.data, ob as isize + d * stb, stb, n, &mut bb);
            let xc = run_slice(pc.data, oc as isize + d * stc, stc, n, &mut bc);
            if so == 1 {
                kernel(xa, xb, xc, &mut od[oo + done..oo + done + n]);
            } else {
                kernel(xa, xb, xc, &mut bo[..n]);
                scatter(od, (oo as isize + d * so) as usize, so, &bo[..n]);
            }
            done += n;
        }
    });
}

impl<T: Element, S: Data<Elem = T>> ArrayBase<S> {
    /// `self * b + c` elementwise with one rounding (IEEE fused multiply-add), all
    /// three broadcast together as NumPy does; `b` and `c` may be scalars.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let x = Array::from_vec(vec![1.0, 2.0, 3.0]);
    /// let r = x.mul_add(2.0, &x).unwrap();
    /// assert_eq!(r.to_vec(), vec![3.0, 6.0, 9.0]);
    /// // One rounding: (1 + 2^-30)^2 - 1 keeps the 2^-60 term that a separate
    /// // multiply would round away.
    /// let e = 1.0 + 2f64.powi(-30);
    /// let a = Array::from_vec(vec![e]);
    /// assert_eq!(a.mul_add(e, -1.0).unwrap().to_vec(), vec![e.mul_add(e, -1.0)]);
    /// ```
    pub fn mul_add<'b, 'c>(
        &self,
        b: impl IntoOperand<'b, T>,
        c: impl IntoOperand<'c, T>,
    ) -> Result<Array<T>> {
        let (b, c) = (b.into_operand(), c.into_operand());
        let shape = fma_shape(self.shape(), &b, &c)?;
        let mut out = Array::try_zeros(&shape)?;
        fma_exec(&Operand::Array(self.view()), &b, &c, &mut out);
        Ok(out)
    }

    /// `self * b + c` with one rounding, into a caller's array of the broadcast
    /// shape.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let x = Array::from_vec(vec![1.0, 2.0]);
    /// let mut out = Array::<f64>::zeros(&[2]);
    /// x.mul_add_into(&x, 1.0, &mut out).unwrap();
    /// assert_eq!(out.to_vec(), vec![2.0, 5.0]);
    /// ```
    pub fn mul_add_into<'b, 'c>(
        &self,
        b: impl IntoOperand<'b, T>,
        c: impl IntoOperand<'c, T>,
        out: &mut ArrayBase<impl DataMut<Elem = T>>,
    ) -> Result<()> {
        let (b, c) = (b.into_operand(), c.into_operand());
        let shape = fma_shape(self.shape(), &b, &c)?;
        check_out(&shape, out.shape())?;
        fma_exec(&Operand::Array(self.view()), &b, &c, out);
        Ok(())
    }
}
