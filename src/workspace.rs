//! [`Workspace`]: an arena for the results of a computation run many times, so a
//! loop of operations makes no heap allocation, no zeroing pass and touches no
//! cold pages after its first pass.

use crate::array::{check_ndim, ArrayBase, ArrayViewMut, Data};
use crate::dim::{c_strides, size_of_shape, Dim};
use crate::error::{Error, Result};
use crate::ops::operand::{result_shape, same_shape};
use crate::ops::{IntoOperand, Operand};
use crate::{DType, Element};
use ndsimd_kernels::arena::Arena;

/// An arena (on `bumpalo`) whose operations return views borrowing it.
///
/// Each result is an [`ArrayViewMut<'ws, T>`](ArrayViewMut) in standard layout,
/// its first element on a 64-byte line. Results can feed later operations (as
/// owned arrays and views can), so a chain reads as the expression it computes.
/// [`reset`](Self::reset) takes `&mut self`: every result must be gone before the
/// memory is reused, which the borrow checker enforces. After the first pass of a
/// loop that resets each time, the arena has all the memory it needs and hands the
/// same memory out again, unwritten where the kernel writes every element (sites
/// that accumulate, as the axis sums, clear their slot first).
///
/// ```
/// use ndsimd::{Array, Workspace};
/// let x = Array::from_vec(vec![1.0, 2.0, 3.0]);
/// let y = Array::from_vec(vec![3.0, 1.0, 0.0]);
/// let mut ws = Workspace::new();
/// for _ in 0..3 {
///     let z = ws.sqrt(&ws.add(&ws.mul(&x, &y)?, &x)?)?; // sqrt(x*y + x)
///     assert_eq!(z.to_vec(), vec![2.0, 2.0, 3.0_f64.sqrt()]);
///     ws.reset();
/// }
/// # Ok::<(), ndsimd::Error>(())
/// ```
///
/// A result cannot outlive a reset:
///
/// ```compile_fail
/// use ndsimd::{Array, Workspace};
/// let x = Array::from_vec(vec![1.0, 2.0]);
/// let mut ws = Workspace::new();
/// let z = ws.add(&x, &x).unwrap();
/// ws.reset(); // error: `ws` is borrowed by `z`
/// println!("{:?}", z);
/// ```
///
/// nor be used after one, even through a binding made before it:
///
/// ```compile_fail
/// use ndsimd::{Array, Workspace};
/// let x = Array::from_vec(vec![1.0, 2.0]);
/// let mut ws = Workspace::new();
/// let held;
/// {
///     held = ws.zeros::<f64>(&[2]).unwrap();
/// }
/// ws.reset();
/// let _ = held.sum(); // error: `held` borrows `ws`, which `reset` borrowed mutably
/// ```
#[derive(Debug, Default)]
pub struct Workspace {
    arena: Arena,
}

macro_rules! ws_binary {
    ($( $name:ident, $into:ident $(, $kind:ident $field:ident)?; )*) => {
        impl Workspace {
            $(
            #[doc = concat!("[`", stringify!($name), "`](ArrayBase::", stringify!($name), ") in the workspace: `a` and `b` broadcast together (NumPy's rules), the result in a slot of the workspace, bit-identical to the allocating form.")]
            ///
            /// ```
            /// use ndsimd::{Array, Workspace};
            /// let ws = Workspace::new();
            /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 4.0, 9.0, 16.0])?;
            /// let b = Array::from_vec(vec![2.0, 1.0]);
            #[doc = concat!("let r = ws.", stringify!($name), "(&a, &b)?;")]
            #[doc = concat!("assert_eq!(r.to_vec(), a.", stringify!($name), "(&b)?.to_vec());")]
            #[doc = concat!("assert!(ws.", stringify!($name), "(&a, &Array::<f64>::zeros(&[3])).is_err());")]
            /// # Ok::<(), ndsimd::Error>(())
            /// ```
            pub fn $name<'ws, 'b, T: Element>(
                &'ws self,
                a: &ArrayBase<impl Data<Elem = T>>,
                b: impl IntoOperand<'b, T>,
            ) -> Result<ArrayViewMut<'ws, T>> {
                $(
                // Contiguous operands of one shape go to the kernel on slices, and
                // the result's view is built once, from `a`'s: the operand's view,
                // and each view built and moved, cost a 1Ki add a tenth of its time.
                if let (Some(x), Some((shape, y))) = (a.as_slice(), b.contiguous()) {
                    if same_shape(shape, a.shape()) {
                        let out = view_like(a, self.slot_of::<T>(x.len(), a.shape())?);
                        crate::ops::arith::vv_into(ws_op!($kind, T, $field), x, y, out.data);
                        return Ok(out);
                    }
                }
                )?
                let b = b.into_operand();
                let mut out = self.slot::<T>(&result_shape(stringify!($name), a.shape(), &b)?)?;
                a.$into(b, &mut out)?;
                Ok(out)
            }
            )*
        }
    };
}

/// The kernel table entry of a binary operation: `num` ones every [`Numeric`]
/// type has, `float` ones from the float table.
macro_rules! ws_op {
    (num, $T:ty, $f:ident) => {
        <$T as crate::Numeric>::num_ops().$f
    };
    (float, $T:ty, $f:ident) => {
        &<$T as ndsimd_kernels::KernelElement>::table().$f
    };
}

ws_binary! {
    add, add_into, num add;
    sub, sub_into, num sub;
    mul, mul_into, num mul;
    div, div_into, float div;
    maximum, maximum_into, float maximum;
    minimum, minimum_into, float minimum;
}

/// The unary operations with a workspace form: each is a line `name, name_into;`
/// (a transcendental function of `src/ops/math.rs` joins once it has an `_into`).
macro_rules! ws_unary {
    ($( $name:ident, $into:ident; )*) => {
        impl Workspace {
            $(
            #[doc = concat!("[`", stringify!($name), "`](ArrayBase::", stringify!($name), ") of every element, in a slot of the workspace (bit-identical to the allocating form).")]
            ///
            /// ```
            /// use ndsimd::{Array, Workspace};
            /// let ws = Workspace::new();
            /// let a = Array::from_vec(vec![0.25, 9.0]);
            #[doc = concat!("let r = ws.", stringify!($name), "(&a)?;")]
            #[doc = concat!("assert_eq!(r.to_vec(), a.", stringify!($name), "().to_vec());")]
            /// # Ok::<(), ndsimd::Error>(())
            /// ```
            pub fn $name<'ws, T: Element>(
                &'ws self,
                a: &ArrayBase<impl Data<Elem = T>>,
            ) -> Result<ArrayViewMut<'ws, T>> {
                let mut out = self.slot::<T>(a.shape())?;
                a.$into(&mut out)?;
                Ok(out)
            }
            )*
        }
    };
}

ws_unary! {
    neg, neg_into;
    abs, abs_into;
    sqrt, sqrt_into;
    exp, exp_into;
    log, log_into;
    exp2, exp2_into;
    log2, log2_into;
    log10, log10_into;
    expm1, expm1_into;
    log1p, log1p_into;
    tanh, tanh_into;
}

ws_unary! {
    sin, sin_into;
    cos, cos_into;
}

ws_binary! {
    pow, pow_into;
}

macro_rules! ws_compare {
    ($( $name:ident, $into:ident; )*) => {
        impl Workspace {
            $(
            #[doc = concat!("[`", stringify!($name), "`](ArrayBase::", stringify!($name), ") with broadcasting, the `bool` result in a slot of the workspace.")]
            ///
            /// ```
            /// use ndsimd::{Array, Workspace};
            /// let ws = Workspace::new();
            /// let a = Array::from_vec(vec![1.0, 2.0, 3.0]);
            #[doc = concat!("let r = ws.", stringify!($name), "(&a, 2.0)?;")]
            #[doc = concat!("assert_eq!(r.to_vec(), a.", stringify!($name), "(2.0)?.to_vec());")]
            /// # Ok::<(), ndsimd::Error>(())
            /// ```
            pub fn $name<'ws, 'b, T: Element>(
                &'ws self,
                a: &ArrayBase<impl Data<Elem = T>>,
                b: impl IntoOperand<'b, T>,
            ) -> Result<ArrayViewMut<'ws, bool>> {
                let b = b.into_operand();
                let shape = result_shape(stringify!($name), a.shape(), &b)?;
                let mut out = self.filled_slot(&shape, false)?;
                a.$into(b, &mut out)?;
                Ok(out)
            }
            )*
        }
    };
}

ws_compare! {
    equal, equal_into;
    not_equal, not_equal_into;
    less, less_into;
    less_equal, less_equal_into;
    greater, greater_into;
    greater_equal, greater_equal_into;
}

macro_rules! ws_axis {
    ($( $name:ident, $into:ident; )*) => {
        impl Workspace {
            $(
            #[doc = concat!("[`", stringify!($name), "`](ArrayBase::", stringify!($name), ") (with NumPy's `keepdims`) in a slot of the workspace, bit-identical to the allocating form (the slot is cleared first: recycled memory never leaks in).")]
            ///
            /// ```
            /// use ndsimd::{Array, Workspace};
            /// let ws = Workspace::new();
            /// let a = Array::from_shape_vec(&[2, 3], vec![1.0, 5.0, 3.0, 4.0, 2.0, 6.0])?;
            #[doc = concat!("let r = ws.", stringify!($name), "(&a, 0, false)?;")]
            #[doc = concat!("assert_eq!(r.to_vec(), a.", stringify!($name), "(0, false)?.to_vec());")]
            #[doc = concat!("assert_eq!(ws.", stringify!($name), "(&a, -1, true)?.shape(), &[2, 1]);")]
            /// # Ok::<(), ndsimd::Error>(())
            /// ```
            pub fn $name<'ws, T: Element>(
                &'ws self,
                a: &ArrayBase<impl Data<Elem = T>>,
                axis: isize,
                keepdims: bool,
            ) -> Result<ArrayViewMut<'ws, T>> {
                let k = crate::array::normalize_axis(axis, a.ndim())?;
                let mut shape = Dim::from_slice(a.shape());
                if keepdims {
                    shape[k] = 1;
                } else {
                    shape.remove(k);
                }
                let mut out = self.slot::<T>(&shape)?;
                a.$into(axis, keepdims, &mut out)?;
                Ok(out)
            }
            )*
        }
    };
}

ws_axis! {
    sum_axis, sum_axis_into;
    prod_axis, prod_axis_into;
    mean_axis, mean_axis_into;
    max_axis, max_axis_into;
    min_axis, min_axis_into;
}

impl Workspace {
    /// An empty workspace; its first results allocate its first chunk.
    ///
    /// ```
    /// assert_eq!(ndsimd::Workspace::new().allocated_bytes(), 0);
    /// ```
    pub fn new() -> Self {
        Workspace {
            arena: Arena::new(),
        }
    }

    /// A workspace holding at least `bytes` from the start: sized once (see
    /// [`allocated_bytes`](Self::allocated_bytes) after a first pass), a loop
    /// never grows it.
    ///
    /// ```
    /// let ws = ndsimd::Workspace::with_capacity(1 << 20);
    /// assert!(ws.allocated_bytes() >= 1 << 20);
    /// ```
    pub fn with_capacity(bytes: usize) -> Self {
        Workspace {
            arena: Arena::with_capacity(bytes),
        }
    }

    /// Ends every result and makes the memory available again. After a pass that
    /// outgrew the workspace, one chunk as large as all it holds replaces them, so
    /// the next pass of the same work allocates nothing.
    ///
    /// ```
    /// let mut ws = ndsimd::Workspace::new();
    /// let p = ws.zeros::<f64>(&[4])?.as_slice().unwrap().as_ptr();
    /// ws.reset();
    /// assert_eq!(ws.zeros::<f64>(&[4])?.as_slice().unwrap().as_ptr(), p);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn reset(&mut self) {
        self.arena.reset();
    }

    /// The bytes the workspace holds (results and free room together).
    ///
    /// ```
    /// let ws = ndsimd::Workspace::new();
    /// let _ = ws.zeros::<f32>(&[1000])?;
    /// assert!(ws.allocated_bytes() >= 4000);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn allocated_bytes(&self) -> usize {
        self.arena.allocated_bytes()
    }

    /// A slot of `shape` whose elements are unspecified (recycled memory keeps what
    /// was there): only for results whose kernel writes every element.
    fn slot<T: Element>(&self, shape: &[usize]) -> Result<ArrayViewMut<'_, T>> {
        Ok(view_of(shape, self.slot_data::<T>(shape)?))
    }

    /// The memory of a slot for `n` elements (those of an existing array of
    /// `shape`, which names it in the error), unwritten.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    fn slot_of<T: Element>(&self, n: usize, shape: &[usize]) -> Result<&mut [T]> {
        self.arena
            .alloc::<T>(n)
            .ok_or_else(|| Error::alloc(shape, T::DTYPE, std::mem::size_of::<T>()))
    }

    /// The memory of a slot of `shape`, unwritten.
    #[allow(clippy::mut_from_ref)] // the arena hands out fresh memory each call
    #[inline]
    fn slot_data<T: Element>(&self, shape: &[usize]) -> Result<&mut [T]> {
        // An `Option` (two registers) until here: a `Result` is returned through
        // memory, and reading it back stalled a 1Ki add by a tenth of its time.
        if let Some(data) = slot_len::<T>(shape).and_then(|n| self.arena.alloc::<T>(n)) {
            return Ok(data);
        }
        check_ndim(shape.len())?;
        Err(Error::alloc(shape, T::DTYPE, std::mem::size_of::<T>()))
    }

    /// A slot of `shape` with every element `x`.
    fn filled_slot<T: DType>(&self, shape: &[usize], x: T) -> Result<ArrayViewMut<'_, T>> {
        check_ndim(shape.len())?;
        let data = slot_len::<T>(shape)
            .and_then(|n| self.arena.alloc_filled(n, x))
            .ok_or_else(|| Error::alloc(shape, T::DTYPE, std::mem::size_of::<T>()))?;
        Ok(view_of(shape, data))
    }

    /// An array of `shape` whose elements are unspecified (NumPy's `empty`):
    /// zeros on memory the workspace never handed out, else whatever an earlier
    /// result left there. For a buffer the caller writes in full; no fill pass.
    ///
    /// ```
    /// let mut ws = ndsimd::Workspace::new();
    /// ws.full(&[4], 7.0f64)?;
    /// ws.reset();
    /// let e = ws.empty::<f64>(&[4])?;
    /// assert_eq!(e.to_vec(), vec![7.0; 4]); // the earlier result's values
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn empty<T: Element>(&self, shape: &[usize]) -> Result<ArrayViewMut<'_, T>> {
        self.slot(shape)
    }

    /// An array of zeros in the workspace (NumPy's `zeros`).
    ///
    /// ```
    /// let ws = ndsimd::Workspace::new();
    /// let z = ws.zeros::<f64>(&[2, 3])?;
    /// assert_eq!(z.shape(), &[2, 3]);
    /// assert_eq!(z.to_vec(), vec![0.0; 6]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn zeros<T: Element>(&self, shape: &[usize]) -> Result<ArrayViewMut<'_, T>> {
        self.full(shape, T::zero())
    }

    /// An array of `shape` filled with `x` in the workspace (NumPy's `full`).
    ///
    /// ```
    /// let ws = ndsimd::Workspace::new();
    /// assert_eq!(ws.full(&[2], true)?.to_vec(), vec![true, true]);
    /// assert!(ws.full(&[1 << 62], 0.5f64).is_err());
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn full<T: DType>(&self, shape: &[usize], x: T) -> Result<ArrayViewMut<'_, T>> {
        self.filled_slot(shape, x)
    }

    /// A standard-layout copy of `a` in the workspace (any layout in).
    ///
    /// ```
    /// use ndsimd::{Array, Workspace};
    /// let ws = Workspace::new();
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let t = ws.copy(&a.t())?;
    /// assert_eq!(t.as_slice().unwrap(), &[1.0, 3.0, 2.0, 4.0]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn copy<'ws, T: Element>(
        &'ws self,
        a: &ArrayBase<impl Data<Elem = T>>,
    ) -> Result<ArrayViewMut<'ws, T>> {
        let mut out = self.slot::<T>(a.shape())?;
        a.copy_into(&mut out)?;
        Ok(out)
    }

    /// The matrix product `a @ b` ([`matmul`](ArrayBase::matmul)'s shapes and
    /// numbers, the same bits) in the workspace; the result is written, never read
    /// (`beta = 0`). The operands are packed in the workspace too
    /// ([`matmul_scratch`](crate::matmul_scratch) bytes of one product after the
    /// result; a batch reuses them product after product), so it touches no buffer
    /// of its threads. Products too small to pack take no scratch, and a batch of
    /// them runs as the allocating form does.
    ///
    /// ```
    /// use ndsimd::{Array, Workspace};
    /// let ws = Workspace::new();
    /// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(ws.matmul(&a, &a)?.to_vec(), a.matmul(&a)?.to_vec());
    /// assert!(ws.matmul(&a, &Array::<f64>::zeros(&[3, 1])).is_err());
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn matmul<'ws, T: Element>(
        &'ws self,
        a: &ArrayBase<impl Data<Elem = T>>,
        b: &ArrayBase<impl Data<Elem = T>>,
    ) -> Result<ArrayViewMut<'ws, T>> {
        let shape = matmul_out_shape("matmul", a.shape(), b.shape())?;
        let mut out = self.slot::<T>(&shape)?;
        let len = crate::ops::linalg::matmul_mkn(a.shape(), b.shape())
            .map_or(0, |(m, k, n)| crate::matmul_scratch::<T>(m, k, n))
            / std::mem::size_of::<T>();
        let scratch = self
            .arena
            .alloc::<T>(len)
            .ok_or_else(|| Error::alloc(&[len], T::DTYPE, std::mem::size_of::<T>()))?;
        crate::ops::linalg::matmul_into_in(a, b, T::one(), T::zero(), &mut out, scratch)?;
        Ok(out)
    }

    /// NumPy's `dot` ([`dot`](ArrayBase::dot): at most two dimensions) in the
    /// workspace.
    ///
    /// ```
    /// use ndsimd::{Array, Workspace};
    /// let ws = Workspace::new();
    /// let m = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let v = Array::from_vec(vec![1.0, 1.0]);
    /// assert_eq!(ws.dot(&m, &v)?.to_vec(), vec![3.0, 7.0]);
    /// assert_eq!(ws.dot(&v, &v)?.shape(), &[] as &[usize]);
    /// # Ok::<(), ndsimd::Error>(())
    /// ```
    pub fn dot<'ws, T: Element>(
        &'ws self,
        a: &ArrayBase<impl Data<Elem = T>>,
        b: &ArrayBase<impl Data<Elem = T>>,
    ) -> Result<ArrayViewMut<'ws, T>> {
        let shape = if a.ndim() == 0 || b.ndim() == 0 {
            result_shape("dot", a.shape(), &Operand::Array(b.view()))?
        } else if a.ndim() > 2 || b.ndim() > 2 {
            // `dot_into` refuses these before looking at `out`: its error, word
            // for word.
            let mut scratch = self.slot::<T>(&[])?;
            a.dot_into(b, &mut scratch)?;
            return Ok(scratch);
        } else {
            matmul_out_shape("dot", a.shape(), b.shape())?
        };
        let mut out = self.slot::<T>(&shape)?;
        a.dot_into(b, &mut out)?;
        Ok(out)
    }
}

/// The element count of a slot of `shape`: `None` past `MAX_NDIM` axes or
/// `isize::MAX` bytes.
#[inline]
fn slot_len<T: DType>(shape: &[usize]) -> Option<usize> {
    if shape.len() > crate::MAX_NDIM {
        return None;
    }
    size_of_shape(shape).filter(|n| {
        n.checked_mul(std::mem::size_of::<T>())
            .is_some_and(|b| b <= isize::MAX as usize)
    })
}

/// A view of `data` shaped as `a` (which it is as long as): `a`'s shape and
/// strides copied when they are row-major (a copy of an existing view's lists is
/// cheaper than building new ones), else built.
fn view_like<'ws, T: DType, S: Data>(a: &ArrayBase<S>, data: &'ws mut [T]) -> ArrayViewMut<'ws, T> {
    if is_c_strides(a.shape(), a.strides()) {
        return ArrayBase {
            data,
            offset: 0,
            dim: a.dim.clone(),
            strides: a.strides.clone(),
        };
    }
    view_of(a.shape(), data)
}

/// Whether `strides` are the row-major strides of `shape` (`c_strides`'s), compared
/// in place: building the list to compare cost a 1Ki add 5%.
#[inline]
fn is_c_strides(shape: &[usize], strides: &[isize]) -> bool {
    let mut acc: isize = 1;
    shape.len() == strides.len()
        && shape.iter().zip(strides).rev().all(|(&d, &s)| {
            let ok = s == acc;
            acc = acc.wrapping_mul(d.max(1) as isize);
            ok
        })
}

fn view_of<'ws, T: DType>(shape: &[usize], data: &'ws mut [T]) -> ArrayViewMut<'ws, T> {
    ArrayBase {
        data,
        offset: 0,
        dim: Dim::from_slice(shape),
        strides: c_strides(shape),
    }
}

/// NumPy's `matmul` result shape (1-D operands promoted and their axis dropped,
/// batch axes broadcast), or the error naming both shapes.
fn matmul_out_shape(op: &'static str, a: &[usize], b: &[usize]) -> Result<Dim> {
    let err = || Error::ShapeMismatch {
        op,
        lhs: a.to_vec(),
        rhs: b.to_vec(),
    };
    if a.is_empty() || b.is_empty() {
        return Err(err());
    }
    let (m, ka) = if a.len() == 1 {
        (None, a[0])
    } else {
        (Some(a[a.len() - 2]), a[a.len() - 1])
    };
    let (kb, n) = if b.len() == 1 {
        (b[0], None)
    } else {
        (b[b.len() - 2], Some(b[b.len() - 1]))
    };
    if ka != kb {
        return Err(err());
    }
    let ba = &a[..a.len().saturating_sub(2)];
    let bb = &b[..b.len().saturating_sub(2)];
    let mut shape = crate::dim::broadcast_shapes(ba, bb).ok_or_else(err)?;
    if let Some(m) = m {
        shape.push(m);
    }
    if let Some(n) = n {
        shape.push(n);
    }
    Ok(shape)
}
