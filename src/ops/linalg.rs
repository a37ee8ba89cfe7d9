//! Matrix products on the packed GEMM of [`ndsimd_kernels::gemm`]: `matmul` (with
//! NumPy's broadcasting of batch dimensions) and its `_into` form `C = αAB + βC`,
//! `dot`, `inner`, `outer` and `vdot`.
//!
//! Every operand is read in place through its strides (a transposed, sliced,
//! reversed or broadcast operand costs no copy: the GEMM's packing reads any
//! layout). A matrix times a vector runs the kernels' `gemv` (one pass over a matrix
//! with contiguous rows, a few rows at a time, each row in 2 KiB blocks added
//! pairwise, rows split over the pool). Results do not depend on the thread count.

use crate::array::{Array, ArrayBase, ArrayView, Data, DataMut};
use crate::dim::{broadcast_shapes, Dim, Strides};
use crate::error::{Error, Result, ShapeFmt};
use crate::Element;
use ndsimd_kernels::gemm::{BatchMut, BatchRef, MatMut, MatRef};
use ndsimd_kernels::{par, pool};
use std::borrow::Cow;

/// The shapes of one `matmul`: the broadcast batch, the matrix sizes, whether an
/// operand was a vector (its axis is dropped from the result), the result shape.
struct MatmulShape {
    batch: Dim,
    m: usize,
    n: usize,
    k: usize,
    a_vec: bool,
    b_vec: bool,
    out: Dim,
}

fn matmul_shape(op: &'static str, a: &[usize], b: &[usize]) -> Result<MatmulShape> {
    if a.is_empty() || b.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{op}: operands need at least one dimension: shapes {} and {}",
            ShapeFmt(a),
            ShapeFmt(b)
        )));
    }
    let (a_vec, b_vec) = (a.len() == 1, b.len() == 1);
    let (m, ka) = if a_vec {
        (1, a[0])
    } else {
        (a[a.len() - 2], a[a.len() - 1])
    };
    let (kb, n) = if b_vec {
        (b[0], 1)
    } else {
        (b[b.len() - 2], b[b.len() - 1])
    };
    if ka != kb {
        return Err(Error::InvalidArgument(format!(
            "{op}: shapes {} and {} are not aligned: {ka} (last dimension of the first) != {kb} ({} of the second)",
            ShapeFmt(a),
            ShapeFmt(b),
            if b_vec { "its only dimension" } else { "second to last dimension" }
        )));
    }
    let batch_a = &a[..a.len().saturating_sub(2)];
    let batch_b = &b[..b.len().saturating_sub(2)];
    let batch = broadcast_shapes(batch_a, batch_b).ok_or_else(|| Error::ShapeMismatch {
        op,
        lhs: a.to_vec(),
        rhs: b.to_vec(),
    })?;
    let mut out = batch.clone();
    if !a_vec {
        out.push(m);
    }
    if !b_vec {
        out.push(n);
    }
    Ok(MatmulShape {
        batch,
        m,
        n,
        k: ka,
        a_vec,
        b_vec,
        out,
    })
}

/// An operand's layout seen as a batch of matrices: the offset, the strides of the
/// broadcast batch axes (0 where the operand is broadcast), and the matrix strides.
struct Layout {
    offset: usize,
    batch_strides: Strides,
    rs: isize,
    cs: isize,
}

/// `shape`/`strides` of an operand (`vec`: a 1-D operand standing for a row
/// (`row`) or a column) against the broadcast `batch`.
fn layout(
    offset: usize,
    shape: &[usize],
    strides: &[isize],
    vec: bool,
    row: bool,
    batch: &[usize],
) -> Layout {
    let (rs, cs, nb) = if vec {
        // A 1-D operand: the other matrix axis has length 1 and any stride.
        if row {
            (0, strides[0], 0)
        } else {
            (strides[0], 0, 0)
        }
    } else {
        let r = shape.len();
        (strides[r - 2], strides[r - 1], r - 2)
    };
    let lead = batch.len() - nb;
    // Inline up to five batch axes: a workspace's batched product allocates nothing.
    let mut batch_strides = Strides::filled(batch.len(), 0);
    for (i, st) in batch_strides.iter_mut().enumerate() {
        if i >= lead && shape[i - lead] != 1 {
            *st = strides[i - lead];
        }
    }
    Layout {
        offset,
        batch_strides,
        rs,
        cs,
    }
}

/// Products below this many multiply-adds are spread whole over the pool when a
/// batch has several; a larger one is split by the GEMM itself (from its own
/// `gemm::path`'s `PARALLEL_MIN`, 48³). Not measured for batches (docs/design.md#structure).
const BATCH_SPLIT_MAX: usize = 72 * 72 * 72;
/// A batch of fewer multiply-adds in all stays on one thread. Not measured either.
const BATCH_SPLIT_MIN: usize = 72 * 72 * 72;

/// The offsets of product `q` (row-major over `batch`) in each of `layouts`.
fn batch_offsets<const L: usize>(
    mut q: usize,
    batch: &[usize],
    layouts: [&Layout; L],
) -> [usize; L] {
    let mut at = layouts.map(|l| l.offset as isize);
    for axis in (0..batch.len()).rev() {
        let i = (q % batch[axis]) as isize;
        q /= batch[axis];
        for (at, l) in at.iter_mut().zip(layouts) {
            *at += i * l.batch_strides[axis];
        }
    }
    at.map(|o| o as usize)
}

/// One product: `c = alpha * a @ b + beta * c` on the views given, with the
/// matrix-vector kernel when `b` is a vector (one pass over `a`).
fn product<T: Element>(
    s: &MatmulShape,
    (alpha, beta): (T, T),
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    c: MatMut<'_, T>,
    threads: usize,
    scratch: &mut [T],
) {
    if s.b_vec && !s.a_vec {
        T::gemv(alpha, a, b, beta, c, threads);
    } else {
        T::gemm_in(alpha, a, b, beta, c, threads, scratch);
    }
}

/// `out = alpha * a @ b + beta * out` with the shapes checked (`out` has `s.out`).
/// A non-empty `scratch` (a workspace's [`matmul_scratch`] for one product) takes
/// every product's packing, one product after another (each split over the pool
/// by the GEMM itself), instead of the threads' own buffers.
fn matmul_exec<T: Element>(
    s: &MatmulShape,
    alpha: T,
    a: &ArrayView<'_, T>,
    b: &ArrayView<'_, T>,
    beta: T,
    out: &mut ArrayBase<impl DataMut<Elem = T>>,
    scratch: &mut [T],
) {
    let la = layout(a.offset, a.shape(), a.strides(), s.a_vec, true, &s.batch);
    let lb = layout(b.offset, b.shape(), b.strides(), s.b_vec, false, &s.batch);
    let operands = |[oa, ob]: [usize; 2]| {
        let (ad, bd) = (a.data.storage(), b.data.storage());
        (
            MatRef::new(ad, oa, s.m, s.k, la.rs, la.cs).expect("in bounds: an array's layout"),
            MatRef::new(bd, ob, s.k, s.n, lb.rs, lb.cs).expect("in bounds: an array's layout"),
        )
    };
    let threads = pool::current_num_threads();
    let batches: usize = s.batch.iter().product();
    let own = scratch.is_empty();
    if own
        && !s.a_vec
        && !s.b_vec
        && batches > 1
        && matmul_batch(s, alpha, (a, b), (&la, &lb), beta, out)
    {
        return;
    }
    let volume = s.m.saturating_mul(s.n).saturating_mul(s.k);
    // Many small products: whole products on the pool (each one serial), when the
    // output is one contiguous row-major block so the pieces are disjoint slices.
    // A product big enough to split itself keeps the per-product split instead.
    if own
        && threads > 1
        && batches > 1
        && volume < BATCH_SPLIT_MAX
        && volume.saturating_mul(batches) >= BATCH_SPLIT_MIN
    {
        let per = s.m * s.n;
        if let Some(cd) = out.as_slice_mut() {
            let pieces = batches.min(threads * 4);
            par::for_each_piece_mut(cd, pieces, per, |start, piece| {
                for (j, q) in (start / per..(start + piece.len()) / per).enumerate() {
                    let (am, bm) = operands(batch_offsets(q, &s.batch, [&la, &lb]));
                    let rs = if s.a_vec { 0 } else { s.n as isize };
                    let cm = MatMut::new(piece, j * per, s.m, s.n, rs, 1)
                        .expect("a product's block of a row-major output");
                    product(s, (alpha, beta), am, bm, cm, 1, &mut []);
                }
            });
            return;
        }
    }
    // The result drops the vector operands' axes: their stride is never used
    // (that matrix axis has length 1).
    let (oshape, ostrides) = (out.shape(), out.strides());
    let nb = s.batch.len();
    let (rs, cs) = match (s.a_vec, s.b_vec) {
        (false, false) => (ostrides[nb], ostrides[nb + 1]),
        (false, true) => (ostrides[nb], 0),
        (true, false) => (0, ostrides[nb]),
        (true, true) => (0, 0),
    };
    let mut batch_strides = Strides::filled(nb, 0);
    for (i, st) in batch_strides.iter_mut().enumerate() {
        if oshape[i] != 1 {
            *st = ostrides[i];
        }
    }
    let lo = Layout {
        offset: out.offset,
        batch_strides,
        rs,
        cs,
    };
    let cd = out.data.storage_mut();
    for q in 0..batches {
        let [oa, ob, oc] = batch_offsets(q, &s.batch, [&la, &lb, &lo]);
        let (am, bm) = operands([oa, ob]);
        let cm = MatMut::new(cd, oc, s.m, s.n, lo.rs, lo.cs)
            .expect("in bounds and not overlapping: a writable array's layout");
        product(s, (alpha, beta), am, bm, cm, threads, scratch);
    }
}

/// A batch of matrix products (neither operand a vector) as one call of the kernels'
/// batched GEMM: the views checked once, the path chosen once, tiny products on
/// the register path one after another, a large batch spread over the pool. `false`
/// (nothing done) when `out`'s layout is one the batch view refuses (products that
/// interleave in memory): the per-product loop then runs.
fn matmul_batch<T: Element>(
    s: &MatmulShape,
    alpha: T,
    (a, b): (&ArrayView<'_, T>, &ArrayView<'_, T>),
    (la, lb): (&Layout, &Layout),
    beta: T,
    out: &mut ArrayBase<impl DataMut<Elem = T>>,
) -> bool {
    let nb = s.batch.len();
    let ostrides = out.strides();
    let (rs, cs) = (ostrides[nb], ostrides[nb + 1]);
    let mut oc = Strides::filled(nb, 0);
    for (i, st) in oc.iter_mut().enumerate() {
        if s.batch[i] != 1 {
            *st = ostrides[i];
        }
    }
    let offset = out.offset;
    let Some(cm) = BatchMut::new(
        out.data.storage_mut(),
        offset,
        &s.batch,
        &oc,
        s.m,
        s.n,
        rs,
        cs,
    ) else {
        return false;
    };
    let am = BatchRef::new(
        a.data.storage(),
        la.offset,
        &s.batch,
        &la.batch_strides,
        s.m,
        s.k,
        la.rs,
        la.cs,
    )
    .expect("in bounds: an array's layout");
    let bm = BatchRef::new(
        b.data.storage(),
        lb.offset,
        &s.batch,
        &lb.batch_strides,
        s.k,
        s.n,
        lb.rs,
        lb.cs,
    )
    .expect("in bounds: an array's layout");
    T::gemm_batch(alpha, am, bm, beta, cm, pool::current_num_threads());
    true
}

/// `out = alpha * a @ b + beta * out` for 2-D `a`, `b` and `out` whose shapes fit
/// (`false`, nothing done, when they do not: the general path then says why): no
/// batch to broadcast, so none of [`matmul_shape`]'s shapes and [`layout`]'s
/// strides to build: that work was a third of a 16³ call (docs/design.md#structure).
/// The packing goes to `scratch` when it holds [`matmul_scratch`] bytes (a
/// workspace's), else to the thread's buffers.
#[inline]
pub(crate) fn matmul_2d<T: Element>(
    alpha: T,
    a: &ArrayBase<impl Data<Elem = T>>,
    b: &ArrayBase<impl Data<Elem = T>>,
    beta: T,
    out: &mut ArrayBase<impl DataMut<Elem = T>>,
    scratch: &mut [T],
) -> bool {
    let (sa, sb, so) = (a.shape(), b.shape(), out.shape());
    if sa.len() != 2 || sb.len() != 2 || so.len() != 2 {
        return false;
    }
    let (m, k, n) = (sa[0], sa[1], sb[1]);
    if sb[0] != k || so[0] != m || so[1] != n {
        return false;
    }
    let (ta, tb) = (a.strides(), b.strides());
    // Contiguous row-major operands of at most 8 a side (the tiny kernels' reach):
    // one stride test and three slices, none of the views' layout checks.
    if let ([ra, 1], [rb, 1], [rc, 1]) = (ta, tb, out.strides()) {
        let tiny = m.max(n).max(k) <= 8;
        if tiny && (*ra, *rb, *rc) == (k as isize, n as isize, n as isize) {
            let (oa, ob, oc) = (a.offset, b.offset, out.offset);
            if let (Some(sa), Some(sb)) = (
                a.data.storage().get(oa..oa + m * k),
                b.data.storage().get(ob..ob + k * n),
            ) {
                if let Some(sc) = out.data.storage_mut().get_mut(oc..oc + m * n) {
                    if T::gemm_tiny_rows(alpha, sa, sb, beta, sc, (m, k, n)) {
                        return true;
                    }
                }
            }
        }
    }
    views_2d(alpha, a, b, beta, out, scratch, (m, k, n));
    true
}

/// [`ArrayBase::matmul_into`] packing into `scratch` when it holds
/// [`matmul_scratch`] for one product of the shapes (a workspace's), else into the
/// threads' own buffers.
pub(crate) fn matmul_into_in<T: Element>(
    a: &ArrayBase<impl Data<Elem = T>>,
    b: &ArrayBase<impl Data<Elem = T>>,
    alpha: T,
    beta: T,
    out: &mut ArrayBase<impl DataMut<Elem = T>>,
    scratch: &mut [T],
) -> Result<()> {
    if matmul_2d(alpha, a, b, beta, out, scratch) {
        return Ok(());
    }
    let s = matmul_shape("matmul", a.shape(), b.shape())?;
    if out.shape() != &s.out[..] {
        return Err(Error::WrongOutputShape {
            expected: s.out.to_vec(),
            found: out.shape().to_vec(),
        });
    }
    matmul_exec(&s, alpha, &a.view(), &b.view(), beta, out, scratch);
    Ok(())
}

/// The `(m, k, n)` of a `matmul` of operands of these shapes, each at least 1-D (a
/// vector operand's missing axis counted 1); `None` for a 0-D one.
pub(crate) fn matmul_mkn(a: &[usize], b: &[usize]) -> Option<(usize, usize, usize)> {
    let (m, k) = match a {
        [] => return None,
        [k] => (1, *k),
        [.., m, k] => (*m, *k),
    };
    let n = match b {
        [] => return None,
        [_] => 1,
        [.., n] => *n,
    };
    Some((m, k, n))
}

/// [`matmul_2d`] on views of any layout (apart from the tiny contiguous products,
/// so that their path keeps a small stack frame).
#[inline(never)]
fn views_2d<T: Element>(
    alpha: T,
    a: &ArrayBase<impl Data<Elem = T>>,
    b: &ArrayBase<impl Data<Elem = T>>,
    beta: T,
    out: &mut ArrayBase<impl DataMut<Elem = T>>,
    scratch: &mut [T],
    (m, k, n): (usize, usize, usize),
) {
    let (ta, tb) = (a.strides(), b.strides());
    let am = MatRef::new(a.data.storage(), a.offset, m, k, ta[0], ta[1])
        .expect("in bounds: an array's layout");
    let bm = MatRef::new(b.data.storage(), b.offset, k, n, tb[0], tb[1])
        .expect("in bounds: an array's layout");
    let (rs, cs) = (out.strides()[0], out.strides()[1]);
    let offset = out.offset;
    let cm = MatMut::new(out.data.storage_mut(), offset, m, n, rs, cs)
        .expect("in bounds and not overlapping: a writable array's layout");
    T::gemm_in(
        alpha,
        am,
        bm,
        beta,
        cm,
        pool::current_num_threads(),
        scratch,
    );
}

/// Bytes of scratch that let an `m x k` by `k x n` product of `T` (as
/// [`Workspace::matmul`](crate::Workspace::matmul) runs it) pack without any other
/// memory, on the pool's current number of threads, whatever the operands'
/// layouts: with the result's bytes, what
/// [`Workspace::with_capacity`](crate::Workspace::with_capacity) needs for a loop
/// of such products to allocate nothing, ever (faer's `*_scratch()` queries, in
/// one number). A multiple of 64; 0 for products that pack nothing (every side at
/// most 32, or vectors). Without a workspace, products pack into buffers each
/// thread keeps, bounded by the cache blocking (docs/design.md#workspace).
///
/// ```
/// use ndsimd::{matmul_scratch, Array, Workspace};
/// let (m, k, n) = (200, 150, 100);
/// let a = Array::<f64>::ones(&[m, k]);
/// let b = Array::<f64>::ones(&[k, n]);
/// let mut ws = Workspace::with_capacity(matmul_scratch::<f64>(m, k, n) + m * n * 8);
/// let before = ws.allocated_bytes();
/// for _ in 0..3 {
///     assert_eq!(ws.matmul(&a, &b)?.to_vec(), vec![150.0; m * n]);
///     ws.reset();
/// }
/// assert_eq!(ws.allocated_bytes(), before); // the workspace never grew
/// assert_eq!(matmul_scratch::<f64>(8, 8, 8), 0);
/// # Ok::<(), ndsimd::Error>(())
/// ```
pub fn matmul_scratch<T: Element>(m: usize, k: usize, n: usize) -> usize {
    T::gemm_scratch(m, k, n, pool::current_num_threads())
}

/// `a @ b` into a new array (`op` names the caller in errors): 2-D operands through
/// [`matmul_2d`], the rest through the general path.
fn product_new<T: Element>(
    op: &'static str,
    a: &ArrayBase<impl Data<Elem = T>>,
    b: &ArrayBase<impl Data<Elem = T>>,
) -> Result<Array<T>> {
    if let ([m, k], [kb, n]) = (a.shape(), b.shape()) {
        if k == kb {
            let mut out = Array::try_zeros(&[*m, *n])?;
            if matmul_2d(T::one(), a, b, T::zero(), &mut out, &mut []) {
                return Ok(out);
            }
        }
    }
    let s = matmul_shape(op, a.shape(), b.shape())?;
    let mut out = Array::try_zeros(&s.out)?;
    matmul_exec(
        &s,
        T::one(),
        &a.view(),
        &b.view(),
        T::zero(),
        &mut out,
        &mut [],
    );
    Ok(out)
}

/// The elements in row-major order: borrowed when the layout is standard.
fn row_major<S: Data>(a: &ArrayBase<S>) -> Cow<'_, [S::Elem]> {
    match a.as_slice() {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(a.to_vec()),
    }
}

impl<T: Element, S: Data<Elem = T>> ArrayBase<S> {
    /// The matrix product, as NumPy's `a @ b` (`np.matmul`): 2-D × 2-D is the
    /// matrix product; a 1-D operand is a row (on the left) or a column (on the
    /// right) whose axis is dropped from the result, so 1-D × 1-D gives a 0-D
    /// array; beyond 2-D, the last two axes are matrices and the leading ones a
    /// batch, broadcast as NumPy does.
    ///
    /// Each result element is accumulated in a fixed order whatever the thread
    /// count, within `k·u·Σ|a_ip·b_pj|` of the exact value (`k` the inner length,
    /// `u` = 2⁻⁵³ for `f64`, 2⁻²⁴ for `f32`), and exact when every product and
    /// partial sum is representable. A matrix times a vector (`rhs` 1-D, `self`
    /// with contiguous rows) sums each row in blocks of `B` = 2 KiB added pairwise,
    /// so its error is at most `(⌈min(k, B)/2N⌉ + 2N + ⌈log2⌈k/B⌉⌉)·u·Σ|a_ip·x_p|`
    /// (`N` the vector width in elements: 1 on the portable tier, 2–16 on SIMD
    /// tiers). The bits do not depend on the thread count; they may differ in the
    /// last place between CPU tiers (FMA, vector width), unlike `sum` and `vdot`.
    /// Errors name both shapes: inner lengths that differ, batch shapes that do
    /// not broadcast, a 0-D operand.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    /// let b = Array::from_shape_vec(&[3, 2], vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0]).unwrap();
    /// let c = a.matmul(&b).unwrap();
    /// assert_eq!(c.to_vec(), vec![4.0, 5.0, 10.0, 11.0]);
    /// // A transposed operand is read in place: (aᵀ)(aᵀ)ᵀ = aᵀa, 3 × 3.
    /// assert_eq!(a.t().matmul(&a).unwrap().shape(), &[3, 3]);
    /// assert!(a.matmul(&a).is_err());
    /// ```
    pub fn matmul<S2: Data<Elem = T>>(&self, rhs: &ArrayBase<S2>) -> Result<Array<T>> {
        product_new("matmul", self, rhs)
    }

    /// `out = alpha · (self @ rhs) + beta · out` ([`matmul`](Self::matmul)'s
    /// product; BLAS's `gemm` with NumPy's shapes). `out` may have any layout but
    /// must have exactly the product's shape ([`Error::WrongOutputShape`]). When
    /// `beta` is 0, `out` is never read: NaN or garbage in it does not leak.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// let mut c = Array::from_elem(&[2, 2], 1.0);
    /// a.matmul_into(&a, 2.0, 1.0, &mut c).unwrap();
    /// assert_eq!(c.to_vec(), vec![15.0, 21.0, 31.0, 45.0]);
    /// ```
    pub fn matmul_into<S2: Data<Elem = T>>(
        &self,
        rhs: &ArrayBase<S2>,
        alpha: T,
        beta: T,
        out: &mut ArrayBase<impl DataMut<Elem = T>>,
    ) -> Result<()> {
        matmul_into_in(self, rhs, alpha, beta, out, &mut [])
    }

    /// NumPy's `np.dot` for operands of at most two dimensions: the matrix product
    /// of 2-D arrays, matrix-vector and vector-matrix products, the inner product
    /// of two 1-D arrays (as a 0-D array; [`vdot`](Self::vdot) returns the
    /// scalar), and multiplication by a 0-D operand. Beyond 2-D, NumPy's `dot`
    /// contracts over different axes than `matmul` does; that form is not
    /// provided: the error says so (use [`matmul`](Self::matmul) for batches).
    ///
    /// ```
    /// use ndsimd::Array;
    /// let m = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// let v = Array::from_vec(vec![1.0, 1.0]);
    /// assert_eq!(m.dot(&v).unwrap().to_vec(), vec![3.0, 7.0]);
    /// assert_eq!(v.dot(&v).unwrap().shape(), &[] as &[usize]);
    /// ```
    pub fn dot<S2: Data<Elem = T>>(&self, rhs: &ArrayBase<S2>) -> Result<Array<T>> {
        if self.ndim() > 2 || rhs.ndim() > 2 {
            return Err(Error::InvalidArgument(format!(
                "dot: shapes {} and {}: operands of more than 2 dimensions are not supported (matmul broadcasts batches)",
                ShapeFmt(self.shape()),
                ShapeFmt(rhs.shape())
            )));
        }
        if self.ndim() == 0 || rhs.ndim() == 0 {
            return self.mul(rhs);
        }
        product_new("dot", self, rhs)
    }

    /// NumPy's `np.inner`: the sum product over the last axes, of shape
    /// `self.shape[..-1] + rhs.shape[..-1]` (a 0-D array for two 1-D arrays); a 0-D
    /// operand multiplies. The last axes must have one length.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// // a · aᵀ
    /// assert_eq!(a.inner(&a).unwrap().to_vec(), vec![5.0, 11.0, 11.0, 25.0]);
    /// ```
    pub fn inner<S2: Data<Elem = T>>(&self, rhs: &ArrayBase<S2>) -> Result<Array<T>> {
        if self.ndim() == 0 || rhs.ndim() == 0 {
            return self.mul(rhs);
        }
        let (ka, kb) = (self.shape()[self.ndim() - 1], rhs.shape()[rhs.ndim() - 1]);
        if ka != kb {
            return Err(Error::InvalidArgument(format!(
                "inner: shapes {} and {}: last dimensions differ ({ka} != {kb})",
                ShapeFmt(self.shape()),
                ShapeFmt(rhs.shape())
            )));
        }
        // Both as matrices (rows = the leading axes merged; a copy only when they
        // cannot merge), then A · Bᵀ.
        let lead = |x: &[usize]| x[..x.len() - 1].iter().product::<usize>() as isize;
        let a2 = self.reshape(&[lead(self.shape()), ka as isize])?;
        let b2 = rhs.reshape(&[lead(rhs.shape()), kb as isize])?;
        let c = a2.view().matmul(&b2.view().t())?;
        let mut shape: Vec<isize> = self.shape()[..self.ndim() - 1]
            .iter()
            .chain(&rhs.shape()[..rhs.ndim() - 1])
            .map(|&d| d as isize)
            .collect();
        if shape.is_empty() {
            shape = Vec::new();
        }
        c.into_shape(&shape)
    }

    /// NumPy's `np.outer`: both operands flattened, `out[i, j] = a[i] · b[j]`, of
    /// shape `(a.len(), b.len())`.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_vec(vec![1.0, 2.0]);
    /// let b = Array::from_vec(vec![1.0, 10.0, 100.0]);
    /// let o = a.outer(&b).unwrap();
    /// assert_eq!(o.shape(), &[2, 3]);
    /// assert_eq!(o.to_vec(), vec![1.0, 10.0, 100.0, 2.0, 20.0, 200.0]);
    /// ```
    pub fn outer<S2: Data<Elem = T>>(&self, rhs: &ArrayBase<S2>) -> Result<Array<T>> {
        // One rounding per element, as the product itself: the broadcast engine
        // streams `b` as a row against each `a[i]` without materialising either.
        let (a, b) = (self.ravel(), rhs.ravel());
        let a = a.view();
        a.insert_axis(1)?.mul(b.view())
    }

    /// NumPy's `np.vdot` for real arrays: both flattened (row-major), the sum of
    /// their products, as a scalar. The two must have one number of elements.
    ///
    /// Accumulated in the same blocked pairwise order as [`sum`](Self::sum), each
    /// product rounded before it is added (no fused multiply-add on any tier), so
    /// the bits are the same on every CPU tier and for every thread count (from
    /// 32Ki elements it runs on the pool, cut on whole subtrees of the order).
    /// Within `(9 + log2 L + ⌈log2(n/B)⌉)·u·Σ|a·b|` of the exact value (`u` the
    /// unit roundoff, `2⁻⁵³` for `f64` and `2⁻²⁴` for `f32`; `L`, `B` as for
    /// `sum`), exact on small integer-valued data; `+0.0` when empty. Which NaN a
    /// NaN result carries is not fixed.
    ///
    /// ```
    /// use ndsimd::Array;
    /// let a = Array::from_vec(vec![1.0, 2.0, 3.0]);
    /// assert_eq!(a.vdot(&a).unwrap(), 14.0);
    /// assert!(a.vdot(&Array::<f64>::zeros(&[2])).is_err());
    /// ```
    pub fn vdot<S2: Data<Elem = T>>(&self, rhs: &ArrayBase<S2>) -> Result<T> {
        if self.len() != rhs.len() {
            return Err(Error::InvalidArgument(format!(
                "vdot needs two arrays of one size: shapes {} and {}",
                ShapeFmt(self.shape()),
                ShapeFmt(rhs.shape())
            )));
        }
        if self.is_empty() {
            // NumPy's (BLAS's) empty dot is +0.0; the kernel's identity is -0.0.
            return Ok(T::zero());
        }
        let (x, y) = (row_major(self), row_major(rhs));
        Ok(super::reduce::dot(&x, &y))
    }
}
