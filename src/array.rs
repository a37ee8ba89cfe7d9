//! `ArrayBase` and its three faces: `Array` (owned), `ArrayView` and `ArrayViewMut`.

use crate::dim::{c_strides, size_of_shape, Dim, Strides};
use crate::error::{span_bytes, Error, Result, MAX_ALLOC_BYTES};
use crate::{DType, Element, Numeric};
use ndsimd_kernels::mem::{self, Aligned};

/// The most axes an array may have (NumPy's limit).
pub const MAX_NDIM: usize = 64;

mod sealed {
    pub trait Sealed {}
    impl<T: crate::DType> Sealed for super::Owned<T> {}
    impl<T> Sealed for &[T] {}
    impl<T> Sealed for &mut [T] {}
}

/// Storage an array can read: [`Owned`], `&[T]` or `&mut [T]`. Sealed.
pub trait Data: sealed::Sealed {
    /// The element type.
    type Elem: DType;
    #[doc(hidden)]
    fn storage(&self) -> &[Self::Elem];
    /// A copy of the storage for `Clone`, and where the element at `offset` is in it.
    #[doc(hidden)]
    fn clone_at(&self, offset: usize) -> (Self, usize)
    where
        Self: Clone,
    {
        (self.clone(), offset)
    }
}

/// Storage an array can write: [`Owned`] or `&mut [T]`. Sealed.
pub trait DataMut: Data {
    #[doc(hidden)]
    fn storage_mut(&mut self) -> &mut [Self::Elem];
}

/// The storage of an owned [`Array`]: a `Vec` of its elements (and a few padding
/// elements that put the first one on a cache line). When the array drops, a
/// buffer of 4 MiB or more is kept for the library's next result of about its size
/// rather than given back to the OS, so a loop of allocating ops does not fault in
/// fresh pages each pass; [`free_cached_buffers`](crate::free_cached_buffers) and
/// `NDSIMD_BUFFER_CACHE_MB` bound that.
///
/// ```
/// let a = ndsimd::Array::from_vec(vec![1.0, 2.0]);
/// let v: Vec<f64> = a.into_vec(); // the same buffer, handed back
/// assert_eq!(v, [1.0, 2.0]);
/// ```
pub struct Owned<T: DType>(pub(crate) Vec<T>);

impl<T: DType> Owned<T> {
    /// The buffer, leaving this storage empty (its drop then keeps nothing).
    pub(crate) fn take(&mut self) -> Vec<T> {
        std::mem::take(&mut self.0)
    }
}

impl<T: DType> Drop for Owned<T> {
    #[inline]
    fn drop(&mut self) {
        // Checked here so small buffers are freed without a call.
        if self.0.capacity() * std::mem::size_of::<T>() >= ndsimd_kernels::buffers::MIN_BYTES {
            ndsimd_kernels::buffers::recycle(self.take());
        }
    }
}

impl<T: DType> Clone for Owned<T> {
    fn clone(&self) -> Self {
        Owned(self.0.clone())
    }
}

impl<T: DType> std::ops::Deref for Owned<T> {
    type Target = Vec<T>;
    #[inline]
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T: DType> std::ops::DerefMut for Owned<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

impl<T: DType> Data for Owned<T> {
    type Elem = T;
    #[inline]
    fn storage(&self) -> &[T] {
        &self.0
    }
    /// The copy puts the element at `offset` (an array's first) on a cache line, as
    /// every buffer the library allocates.
    fn clone_at(&self, offset: usize) -> (Self, usize) {
        let cap = self.len() + mem::lead_room::<T>();
        // A large copy may land in a dropped array's buffer (its values all
        // replaced below).
        let mut v: Vec<T> = match ndsimd_kernels::buffers::reuse(cap) {
            Some(mut v) => {
                v.clear();
                v
            }
            None => Vec::with_capacity(cap),
        };
        let shift = if !self.is_empty() {
            mem::lead(v.as_ptr().wrapping_add(offset))
        } else {
            0
        };
        v.resize(shift, T::default());
        v.extend_from_slice(self);
        (Owned(v), offset + shift)
    }
}
impl<T: DType> DataMut for Owned<T> {
    #[inline]
    fn storage_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}
impl<T: DType> Data for &[T] {
    type Elem = T;
    #[inline]
    fn storage(&self) -> &[T] {
        self
    }
}
impl<T: DType> Data for &mut [T] {
    type Elem = T;
    #[inline]
    fn storage(&self) -> &[T] {
        self
    }
}
impl<T: DType> DataMut for &mut [T] {
    #[inline]
    fn storage_mut(&mut self) -> &mut [T] {
        self
    }
}

/// An N-dimensional array over some storage: see [`Array`], [`ArrayView`] and
/// [`ArrayViewMut`].
///
/// Row-major by default, with arbitrary strides counted in elements (negative
/// strides allowed), and a dynamic number of axes (`0..=MAX_NDIM`; up to six are
/// stored inline without a heap allocation).
///
/// Every element the array can reach lies inside its storage: all access is
/// bounds-checked slice indexing, so no layout can read out of bounds.
pub struct ArrayBase<S: Data> {
    pub(crate) data: S,
    pub(crate) offset: usize,
    pub(crate) dim: Dim,
    pub(crate) strides: Strides,
}

/// An owned array.
///
/// ```
/// use ndsimd::Array;
/// let a = Array::from_shape_vec(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
/// assert_eq!(a.shape(), &[2, 3]);
/// assert_eq!(a.get(&[1, 2]), Some(&6.0));
/// ```
pub type Array<T> = ArrayBase<Owned<T>>;

/// A read-only view borrowing an array's data.
///
/// ```
/// use ndsimd::{s, Array};
/// let a = Array::<f64>::arange(0.0, 6.0, 1.0).unwrap().into_shape(&[2, 3]).unwrap();
/// let col = a.slice(s![.., 1]).unwrap();
/// assert_eq!(col.to_vec(), vec![1.0, 4.0]);
/// ```
pub type ArrayView<'a, T> = ArrayBase<&'a [T]>;

/// A mutable view borrowing an array's data.
///
/// ```
/// use ndsimd::{s, Array};
/// let mut a = Array::<f64>::zeros(&[2, 2]);
/// a.slice_mut(s![.., 0]).unwrap().fill(7.0);
/// assert_eq!(a.to_vec(), vec![7.0, 0.0, 7.0, 0.0]);
/// ```
pub type ArrayViewMut<'a, T> = ArrayBase<&'a mut [T]>;

#[inline]
pub(crate) fn check_ndim(n: usize) -> Result<()> {
    if n > MAX_NDIM {
        return Err(too_many_dims(n));
    }
    Ok(())
}

#[cold]
fn too_many_dims(n: usize) -> Error {
    Error::InvalidArgument(format!(
        "an array may have at most {MAX_NDIM} dimensions, {n} were asked for"
    ))
}

/// Resolves a possibly negative `axis` against `ndim` axes.
pub(crate) fn normalize_axis(axis: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(Error::AxisOutOfRange { axis, ndim });
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

// ---------------------------------------------------------------- constructors

/// `n` copies of `x` in a buffer whose first element is on a cache line, with large
/// buffers asking for huge pages before the first touch (a zeroed allocation of
/// that size comes straight from the OS, untouched).
pub(crate) fn filled_vec<T: DType>(n: usize, x: T) -> Aligned<T> {
    // All-zero bits for every DType, so the allocation comes zeroed from the OS.
    let mut a = Aligned::filled(n, T::default());
    if !x.is_zero_bits() {
        a.vec.fill(x);
    }
    a
}

/// Buffers from this size up are reserved once, and freed, before the real
/// allocation: glibc serves them with `mmap` and frees them with `munmap` without
/// moving its own thresholds, so the trial costs two system calls and changes
/// nothing. Below it a refusal means the process is out of memory altogether, and
/// the standard library aborts on its own allocations then anyway.
const TRIAL_MIN_BYTES: usize = 32 << 20;

/// The number of elements of an array of `shape` of `T`, once it is known that
/// its buffer can be allocated: at most [`MAX_NDIM`] axes (else
/// [`Error::InvalidArgument`]), bytes within `isize::MAX`, and, for large buffers,
/// a reservation of that size granted by the allocator (else [`Error::Alloc`]).
///
/// The zeroed allocation `zeros` makes cannot report a refusal (the standard
/// library aborts the process instead), so a plain reservation of the same size
/// asks first. The memory may still run out between the two, or later as the
/// pages are touched when the OS overcommits; both are outside the library's reach.
pub(crate) fn check_alloc<T: DType>(shape: &[usize]) -> Result<usize> {
    check_ndim(shape.len())?;
    let size = std::mem::size_of::<T>();
    let refused = || Error::alloc(shape, T::DTYPE, size);
    if span_bytes(shape, size).is_none_or(|b| b > MAX_ALLOC_BYTES) {
        return Err(refused());
    }
    // Within `isize::MAX` bytes, so the element count fits as well.
    let n = size_of_shape(shape).ok_or_else(refused)?;
    if n * size >= TRIAL_MIN_BYTES {
        Vec::<T>::new()
            .try_reserve_exact(n + mem::lead_room::<T>())
            .map_err(|_| refused())?;
    }
    Ok(n)
}

/// [`filled_vec`] for an array of `shape`, or the error of [`check_alloc`].
pub(crate) fn try_filled<T: DType>(shape: &[usize], x: T) -> Result<Aligned<T>> {
    let n = check_alloc::<T>(shape)?;
    Ok(filled_vec(n, x))
}

/// [`try_filled`] for a result whose every element the caller then writes: a
/// large buffer may come back from the cache of dropped arrays' buffers holding
/// old values (see [`Owned`]), which saves the OS zeroing fresh pages.
pub(crate) fn try_for_overwrite<T: DType>(shape: &[usize]) -> Result<Aligned<T>> {
    let n = check_alloc::<T>(shape)?;
    Ok(Aligned::for_overwrite(n, T::default()))
}

/// The value of a constructor's `try_` form, or its error as a panic (a panic
/// unwinds and can be caught; the allocator's abort could not).
fn or_panic<T>(r: Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

impl<T: DType> Array<T> {
    /// An array of `shape` from elements in row-major order.
    ///
    /// Errors with [`Error::LengthMismatch`] when `v.len()` is not the product of
    /// `shape`. Keeps `v`'s buffer, as [`from_vec`](Self::from_vec) does.
    ///
    /// ```
    /// use ndsimd::Array;
    /// assert!(Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0]).is_err());
    /// ```
    pub fn from_shape_vec(shape: &[usize], v: Vec<T>) -> Result<Self> {
        check_ndim(shape.len())?;
        if size_of_shape(shape) != Some(v.len()) {
            return Err(Error::LengthMismatch {
                shape: shape.to_vec(),
                len: v.len(),
            });
        }
        Ok(Self::from_parts_standard(shape, v))
    }

    pub(crate) fn from_parts_standard(shape: &[usize], v: Vec<T>) -> Self {
        ArrayBase {
            data: Owned(v),
            offset: 0,
            dim: Dim::from_slice(shape),
            strides: c_strides(shape),
        }
    }

    /// A standard-layout array over the payload of `a` (which holds exactly the
    /// shape's elements).
    pub(crate) fn from_aligned(shape: &[usize], a: Aligned<T>) -> Self {
        debug_assert_eq!(Some(a.vec.len() - a.start), size_of_shape(shape));
        ArrayBase {
            data: Owned(a.vec),
            offset: a.start,
            dim: Dim::from_slice(shape),
            strides: c_strides(shape),
        }
    }

    /// A 1-D array owning `v`.
    ///
    /// `v`'s buffer is kept as it is, wherever the allocator put it; the arrays the
    /// library allocates itself (`zeros`, `from_elem`, results, `to_owned`, …)
    /// start on a 64-byte cache line, which lets the SIMD kernels run faster on
    /// data in L1 (`to_owned` makes such a copy).
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.0, 2.0]);
    /// assert_eq!(a.shape(), &[2]);
    /// ```
    pub fn from_vec(v: Vec<T>) -> Self {
        let n = v.len();
        Self::from_parts_standard(&[n], v)
    }

    /// An array of `shape` filled with `x`, or an error when it cannot be made:
    /// [`Error::Alloc`] (naming the shape and the bytes asked for) when its bytes
    /// exceed `isize::MAX` or the allocator refuses them, and
    /// [`Error::InvalidArgument`] for more than [`MAX_NDIM`] axes.
    ///
    /// ```
    /// use ndsimd::Array;
    /// assert_eq!(Array::try_from_elem(&[2], true).unwrap().to_vec(), vec![true; 2]);
    /// let err = Array::try_from_elem(&[1 << 62], 0.5f32).unwrap_err();
    /// assert!(err.to_string().contains("shape [4611686018427387904] of float32"));
    /// ```
    pub fn try_from_elem(shape: &[usize], x: T) -> Result<Self> {
        Ok(Self::from_aligned(shape, try_filled(shape, x)?))
    }

    /// An array of `shape` filled with `x`.
    ///
    /// Panics with the message of [`try_from_elem`](Self::try_from_elem)'s error
    /// when the array cannot be made (too many axes, too many bytes, or refused by
    /// the allocator).
    ///
    /// ```
    /// let a = ndsimd::Array::from_elem(&[2, 2], 1.5f32);
    /// assert_eq!(a.to_vec(), vec![1.5; 4]);
    /// ```
    pub fn from_elem(shape: &[usize], x: T) -> Self {
        or_panic(Self::try_from_elem(shape, x))
    }

    /// NumPy's `full`: the same as [`try_from_elem`](Self::try_from_elem).
    ///
    /// ```
    /// let a = ndsimd::Array::try_full(&[3], 2.0).unwrap();
    /// assert_eq!(a.to_vec(), vec![2.0, 2.0, 2.0]);
    /// ```
    pub fn try_full(shape: &[usize], x: T) -> Result<Self> {
        Self::try_from_elem(shape, x)
    }

    /// NumPy's `full`: the same as [`from_elem`](Self::from_elem).
    ///
    /// ```
    /// let a = ndsimd::Array::full(&[3], 2.0);
    /// assert_eq!(a.to_vec(), vec![2.0, 2.0, 2.0]);
    /// ```
    pub fn full(shape: &[usize], x: T) -> Self {
        Self::from_elem(shape, x)
    }
}

impl<T: DType> Array<T> {
    /// An array of zeros, or the error of [`try_from_elem`](Self::try_from_elem).
    ///
    /// ```
    /// use ndsimd::Array;
    /// assert_eq!(Array::<f64>::try_zeros(&[2, 0]).unwrap().shape(), &[2, 0]);
    /// let err = Array::<f64>::try_zeros(&[1 << 40, 1 << 40]).unwrap_err();
    /// assert!(err.to_string().starts_with("array is too big: shape [1099511627776, 1099511627776]"));
    /// ```
    pub fn try_zeros(shape: &[usize]) -> Result<Self> {
        Self::try_from_elem(shape, T::default())
    }

    /// An array of zeros (`false` for `bool`). Panics as [`from_elem`](Self::from_elem) does.
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[2, 0, 3]);
    /// assert_eq!(a.len(), 0);
    /// assert_eq!(ndsimd::Array::<i64>::zeros(&[2]).to_vec(), vec![0, 0]);
    /// ```
    pub fn zeros(shape: &[usize]) -> Self {
        or_panic(Self::try_zeros(shape))
    }
}

impl<T: Numeric> Array<T> {
    /// An array of ones, or the error of [`try_from_elem`](Self::try_from_elem).
    ///
    /// ```
    /// let a = ndsimd::Array::<f32>::try_ones(&[2]).unwrap();
    /// assert_eq!(a.to_vec(), vec![1.0, 1.0]);
    /// ```
    pub fn try_ones(shape: &[usize]) -> Result<Self> {
        Self::try_from_elem(shape, T::NUM_ONE)
    }

    /// An array of ones. Panics as [`from_elem`](Self::from_elem) does.
    ///
    /// ```
    /// let a = ndsimd::Array::<f32>::ones(&[2]);
    /// assert_eq!(a.to_vec(), vec![1.0, 1.0]);
    /// assert_eq!(ndsimd::Array::<u8>::ones(&[2]).to_vec(), vec![1, 1]);
    /// ```
    pub fn ones(shape: &[usize]) -> Self {
        or_panic(Self::try_ones(shape))
    }
}

impl<T: Element> Array<T> {
    /// NumPy's `arange`: `start, start + step, ...` while below `stop` (above it
    /// for a negative step). The length is `ceil((stop - start) / step)`, as NumPy.
    ///
    /// Errors with [`Error::InvalidArgument`] when `step` is zero, any argument is
    /// not finite, or the length exceeds `usize::MAX`, and with [`Error::Alloc`]
    /// when the array cannot be allocated.
    ///
    /// ```
    /// use ndsimd::{Array, Error};
    /// let a = Array::arange(0.0, 1.0, 0.25).unwrap();
    /// assert_eq!(a.to_vec(), vec![0.0, 0.25, 0.5, 0.75]);
    /// assert!(Array::arange(0.0, 1.0, 0.0).is_err());
    /// assert!(matches!(Array::arange(0.0, 1e19, 1.0), Err(Error::Alloc { .. })));
    /// ```
    pub fn arange(start: T, stop: T, step: T) -> Result<Self> {
        if step == T::zero() || !start.is_finite() || !stop.is_finite() || !step.is_finite() {
            return Err(Error::InvalidArgument(format!(
                "arange needs finite arguments and a non-zero step (got start {start}, stop {stop}, step {step})"
            )));
        }
        let n = ((stop - start) / step).ceil();
        let n = if n > T::zero() {
            n.to_usize().ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "arange of {n:e} elements is too long: an array has at most {} elements",
                    usize::MAX
                ))
            })?
        } else {
            0
        };
        // As NumPy's fill: element i is start + i*delta with delta the difference of
        // the first two elements (not `step`, and not by repeated addition).
        let delta = (start + step) - start;
        let mut a = try_filled(&[n], T::zero())?;
        for (i, o) in a.payload_mut().iter_mut().enumerate() {
            *o = match i {
                0 => start,
                1 => start + step,
                _ => start + T::from_usize(i).unwrap() * delta,
            };
        }
        Ok(Self::from_aligned(&[n], a))
    }

    /// NumPy's `linspace` with `endpoint=True`: `num` evenly spaced values from
    /// `start` to `stop` inclusive, or [`Error::Alloc`] when the array cannot be
    /// allocated.
    ///
    /// ```
    /// let a = ndsimd::Array::try_linspace(0.0, 1.0, 5).unwrap();
    /// assert_eq!(a.to_vec(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    /// assert!(ndsimd::Array::<f64>::try_linspace(0.0, 1.0, usize::MAX).is_err());
    /// ```
    pub fn try_linspace(start: T, stop: T, num: usize) -> Result<Self> {
        let mut a = try_filled(&[num], start)?;
        if num > 1 {
            let div = T::from_usize(num - 1).unwrap();
            let step = (stop - start) / div;
            let v = a.payload_mut();
            for (i, o) in v.iter_mut().enumerate() {
                *o = start + T::from_usize(i).unwrap() * step;
            }
            // As NumPy: the last element is exactly `stop`.
            v[num - 1] = stop;
        }
        Ok(Self::from_aligned(&[num], a))
    }

    /// NumPy's `linspace` with `endpoint=True`. Panics with the message of
    /// [`try_linspace`](Self::try_linspace)'s error.
    ///
    /// ```
    /// let a = ndsimd::Array::linspace(0.0, 1.0, 5);
    /// assert_eq!(a.to_vec(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    /// ```
    pub fn linspace(start: T, stop: T, num: usize) -> Self {
        or_panic(Self::try_linspace(start, stop, num))
    }

    /// NumPy's `eye(rows, cols, k)`: ones on the `k`-th diagonal (k > 0 above the
    /// main diagonal), zeros elsewhere; or the error of
    /// [`try_zeros`](Self::try_zeros).
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::try_eye(2, 3, 1).unwrap();
    /// assert_eq!(a.to_vec(), vec![0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    /// assert!(ndsimd::Array::<f64>::try_eye(1 << 40, 1 << 40, 0).is_err());
    /// ```
    pub fn try_eye(rows: usize, cols: usize, k: isize) -> Result<Self> {
        let mut a = Self::try_zeros(&[rows, cols])?;
        for r in 0..rows {
            let c = r as isize + k;
            if c >= 0 && (c as usize) < cols {
                a.data[a.offset + r * cols + c as usize] = T::one();
            }
        }
        Ok(a)
    }

    /// NumPy's `eye(rows, cols, k)`. Panics with the message of
    /// [`try_eye`](Self::try_eye)'s error.
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::eye(2, 3, 1);
    /// assert_eq!(a.to_vec(), vec![0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    /// ```
    pub fn eye(rows: usize, cols: usize, k: isize) -> Self {
        or_panic(Self::try_eye(rows, cols, k))
    }

    /// NumPy's `identity(n)`: the `n`×`n` identity matrix, or the error of
    /// [`try_zeros`](Self::try_zeros).
    ///
    /// ```
    /// let a = ndsimd::Array::<f32>::try_identity(2).unwrap();
    /// assert_eq!(a.to_vec(), vec![1.0, 0.0, 0.0, 1.0]);
    /// ```
    pub fn try_identity(n: usize) -> Result<Self> {
        Self::try_eye(n, n, 0)
    }

    /// NumPy's `identity(n)`. Panics with the message of
    /// [`try_identity`](Self::try_identity)'s error.
    ///
    /// ```
    /// let a = ndsimd::Array::<f32>::identity(2);
    /// assert_eq!(a.to_vec(), vec![1.0, 0.0, 0.0, 1.0]);
    /// ```
    pub fn identity(n: usize) -> Self {
        or_panic(Self::try_identity(n))
    }
}

impl<T: DType> Array<T> {
    /// The elements in row-major order, consuming the array. No copy when it is in
    /// standard layout and its buffer holds its elements and nothing after them:
    /// the buffer is returned, its elements first moved down in place over the few
    /// padding elements that put the first element on a cache line (arrays the
    /// library allocates have them; one made by `from_vec` has none).
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.0, 2.0]);
    /// assert_eq!(a.into_vec(), vec![1.0, 2.0]);
    /// ```
    pub fn into_vec(mut self) -> Vec<T> {
        if self.is_standard_layout() && self.data.len() == self.offset + self.len() {
            Aligned {
                vec: self.data.take(),
                start: self.offset,
            }
            .into_vec()
        } else {
            self.to_vec()
        }
    }
}

// ---------------------------------------------------------------- introspection

/// The panic of `get`/`get_mut` for an index with the wrong number of entries
/// (out of line: the check is on every element access).
#[cold]
#[track_caller]
fn index_len_panic(index: &[usize], shape: &[usize]) -> ! {
    panic!(
        "index {} has {} entr{} but the array of shape {} has {} ax{}",
        crate::error::ShapeFmt(index),
        index.len(),
        if index.len() == 1 { "y" } else { "ies" },
        crate::error::ShapeFmt(shape),
        shape.len(),
        if shape.len() == 1 { "is" } else { "es" }
    )
}

impl<S: Data> ArrayBase<S> {
    /// The length of each axis.
    ///
    /// ```
    /// assert_eq!(ndsimd::Array::<f64>::zeros(&[2, 3]).shape(), &[2, 3]);
    /// ```
    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.dim
    }

    /// The step between neighbours along each axis, in elements (may be negative
    /// or zero).
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[2, 3]);
    /// assert_eq!(a.strides(), &[3, 1]);
    /// assert_eq!(a.t().strides(), &[1, 3]);
    /// ```
    #[inline]
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }

    /// The number of axes.
    ///
    /// ```
    /// assert_eq!(ndsimd::Array::<f64>::zeros(&[]).ndim(), 0);
    /// ```
    #[inline]
    pub fn ndim(&self) -> usize {
        self.dim.len()
    }

    /// The number of elements (1 for a 0-D array).
    ///
    /// ```
    /// assert_eq!(ndsimd::Array::<f64>::zeros(&[2, 3]).len(), 6);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.dim.iter().product()
    }

    /// True when the array has no elements.
    ///
    /// ```
    /// assert!(ndsimd::Array::<f64>::zeros(&[3, 0]).is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when the elements lie contiguously in row-major order (axes of length
    /// 1 may have any stride; an empty array is always standard).
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[2, 3]);
    /// assert!(a.is_standard_layout());
    /// assert!(!a.t().is_standard_layout());
    /// ```
    #[inline]
    pub fn is_standard_layout(&self) -> bool {
        let (dim, strides) = (&*self.dim, &*self.strides);
        // The common 1-D case without the general loop.
        if let ([d], [s]) = (dim, strides) {
            return *d <= 1 || *s == 1;
        }
        let mut expect: isize = 1;
        let mut standard = true;
        for (&d, &s) in dim.iter().zip(strides).rev() {
            if d == 0 {
                // No elements: every layout of an empty array is standard.
                return true;
            }
            if d != 1 {
                standard &= s == expect;
                expect = expect.wrapping_mul(d as isize);
            }
        }
        standard
    }

    /// The elements as one slice in row-major order, when the layout is standard.
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::ones(&[2, 2]);
    /// assert_eq!(a.as_slice(), Some(&[1.0; 4][..]));
    /// assert_eq!(a.t().as_slice(), None);
    /// ```
    #[inline]
    pub fn as_slice(&self) -> Option<&[S::Elem]> {
        if self.is_standard_layout() {
            let n = self.len();
            if n == 0 {
                return Some(&[]);
            }
            Some(&self.data.storage()[self.offset..self.offset + n])
        } else {
            None
        }
    }

    /// Panics when `index` does not have one entry per axis.
    #[track_caller]
    #[inline]
    fn check_index_len(&self, index: &[usize]) {
        if index.len() != self.ndim() {
            index_len_panic(index, self.shape());
        }
    }

    #[inline]
    pub(crate) fn index_offset(&self, index: &[usize]) -> Option<usize> {
        if index.len() != self.ndim() {
            return None;
        }
        let mut off = self.offset as isize;
        for ((&i, &d), &s) in index.iter().zip(self.dim.iter()).zip(self.strides.iter()) {
            if i >= d {
                return None;
            }
            off += i as isize * s;
        }
        Some(off as usize)
    }

    /// The element at `index` (one entry per axis), or `None` when out of bounds.
    ///
    /// Panics, naming the index and the shape, when `index` does not have one
    /// entry per axis (a bug in the caller, not a position outside the array);
    /// [`try_get`](Self::try_get) returns that as an error instead.
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.0, 2.0]);
    /// assert_eq!(a.get(&[1]), Some(&2.0));
    /// assert_eq!(a.get(&[2]), None);
    /// let wrong = std::panic::catch_unwind(|| a.get(&[0, 0])).unwrap_err();
    /// assert_eq!(
    ///     wrong.downcast_ref::<String>().unwrap(),
    ///     "index [0, 0] has 2 entries but the array of shape [2] has 1 axis"
    /// );
    /// ```
    #[track_caller]
    pub fn get(&self, index: &[usize]) -> Option<&S::Elem> {
        self.check_index_len(index);
        let off = self.index_offset(index)?;
        self.data.storage().get(off)
    }

    /// Like [`get`](Self::get), as a `Result` whose error names the index and shape.
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[2]);
    /// let e = a.try_get(&[5]).unwrap_err();
    /// assert_eq!(e.to_string(), "index [5] is out of bounds for an array of shape [2]");
    /// ```
    pub fn try_get(&self, index: &[usize]) -> Result<S::Elem> {
        self.index_offset(index)
            .and_then(|off| self.data.storage().get(off))
            .copied()
            .ok_or_else(|| Error::IndexOutOfBounds {
                index: index.to_vec(),
                shape: self.shape().to_vec(),
            })
    }

    /// Iterates over the elements in logical row-major order, whatever the layout.
    ///
    /// ```
    /// let a = ndsimd::Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// let t: Vec<f64> = a.t().iter().copied().collect();
    /// assert_eq!(t, vec![1.0, 3.0, 2.0, 4.0]);
    /// ```
    pub fn iter(&self) -> Iter<'_, S::Elem> {
        Iter::new(self.view())
    }

    /// The elements in logical row-major order, copied into a `Vec`.
    ///
    /// ```
    /// let a = ndsimd::Array::from_vec(vec![1.0, 2.0, 3.0]);
    /// assert_eq!(a.slice(ndsimd::s![..;-1]).unwrap().to_vec(), vec![3.0, 2.0, 1.0]);
    /// ```
    pub fn to_vec(&self) -> Vec<S::Elem> {
        if let Some(s) = self.as_slice() {
            return s.to_vec();
        }
        self.iter().copied().collect()
    }

    /// A read-only view of the whole array.
    ///
    /// ```
    /// let a = ndsimd::Array::<f64>::zeros(&[2]);
    /// let v = a.view();
    /// assert_eq!(v.shape(), &[2]);
    /// ```
    #[inline]
    pub fn view(&self) -> ArrayView<'_, S::Elem> {
        ArrayBase {
            data: self.data.storage(),
            offset: self.offset,
            dim: self.dim.clone(),
            strides: self.strides.clone(),
        }
    }

    /// A standard-layout owned copy.
    ///
    /// ```
    /// let a = ndsimd::Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// let t = a.t().to_owned();
    /// assert!(t.is_standard_layout());
    /// assert_eq!(t.as_slice().unwrap(), &[1.0, 3.0, 2.0, 4.0]);
    /// ```
    pub fn to_owned(&self) -> Array<S::Elem> {
        Array::from_aligned(self.shape(), self.to_aligned())
    }

    /// The elements in row-major order in a buffer whose first element is on a
    /// cache line.
    pub(crate) fn to_aligned(&self) -> Aligned<S::Elem> {
        // Every element is written below.
        let mut a = Aligned::for_overwrite(self.len(), S::Elem::default());
        let out = a.payload_mut();
        match self.as_slice() {
            Some(s) => out.copy_from_slice(s),
            None => out.iter_mut().zip(self.iter()).for_each(|(o, &x)| *o = x),
        }
        a
    }

    /// The first element in logical order, if any.
    ///
    /// ```
    /// assert_eq!(ndsimd::Array::from_vec(vec![4.0, 5.0]).first(), Some(&4.0));
    /// ```
    pub fn first(&self) -> Option<&S::Elem> {
        if self.is_empty() {
            None
        } else {
            self.data.storage().get(self.offset)
        }
    }
}

impl<S: DataMut> ArrayBase<S> {
    /// A mutable view of the whole array.
    ///
    /// ```
    /// let mut a = ndsimd::Array::<f64>::zeros(&[2]);
    /// a.view_mut().fill(3.0);
    /// assert_eq!(a.to_vec(), vec![3.0, 3.0]);
    /// ```
    #[inline]
    pub fn view_mut(&mut self) -> ArrayViewMut<'_, S::Elem> {
        ArrayBase {
            data: self.data.storage_mut(),
            offset: self.offset,
            dim: self.dim.clone(),
            strides: self.strides.clone(),
        }
    }

    /// A mutable reference to the element at `index`, or `None` when out of bounds.
    /// Panics, naming the index and the shape, when `index` does not have one
    /// entry per axis (as [`get`](ArrayBase::get)).
    ///
    /// ```
    /// let mut a = ndsimd::Array::<f64>::zeros(&[2, 2]);
    /// *a.get_mut(&[0, 1]).unwrap() = 5.0;
    /// assert_eq!(a.to_vec(), vec![0.0, 5.0, 0.0, 0.0]);
    /// ```
    #[track_caller]
    pub fn get_mut(&mut self, index: &[usize]) -> Option<&mut S::Elem> {
        self.check_index_len(index);
        let off = self.index_offset(index)?;
        self.data.storage_mut().get_mut(off)
    }

    /// The elements as one mutable slice, when the layout is standard.
    ///
    /// ```
    /// let mut a = ndsimd::Array::<f64>::zeros(&[3]);
    /// a.as_slice_mut().unwrap()[2] = 1.0;
    /// assert_eq!(a.to_vec(), vec![0.0, 0.0, 1.0]);
    /// ```
    pub fn as_slice_mut(&mut self) -> Option<&mut [S::Elem]> {
        if self.is_standard_layout() {
            let n = self.len();
            if n == 0 {
                return Some(&mut []);
            }
            let off = self.offset;
            Some(&mut self.data.storage_mut()[off..off + n])
        } else {
            None
        }
    }

    /// Sets every element to `x`.
    ///
    /// ```
    /// let mut a = ndsimd::Array::<f32>::zeros(&[2, 2]);
    /// a.fill(1.0);
    /// assert_eq!(a.to_vec(), vec![1.0; 4]);
    /// ```
    pub fn fill(&mut self, x: S::Elem) {
        self.for_each_mut(|e| *e = x);
    }

    /// Calls `f` on every element, in logical row-major order.
    ///
    /// ```
    /// let mut a = ndsimd::Array::from_vec(vec![1.0, 2.0]);
    /// a.for_each_mut(|x| *x *= 10.0);
    /// assert_eq!(a.to_vec(), vec![10.0, 20.0]);
    /// ```
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut S::Elem)) {
        if let Some(s) = self.as_slice_mut() {
            s.iter_mut().for_each(f);
            return;
        }
        let n = self.len();
        if n == 0 {
            return;
        }
        let dim = self.dim.clone();
        let strides = self.strides.clone();
        let base = self.offset as isize;
        let data = self.data.storage_mut();
        let mut idx = Dim::filled(dim.len(), 0);
        let mut off = base;
        for _ in 0..n {
            f(&mut data[off as usize]);
            for ax in (0..dim.len()).rev() {
                idx[ax] += 1;
                off += strides[ax];
                if idx[ax] < dim[ax] {
                    break;
                }
                off -= strides[ax] * dim[ax] as isize;
                idx[ax] = 0;
            }
        }
    }
}

impl<S: Data> Clone for ArrayBase<S>
where
    S: Clone,
{
    fn clone(&self) -> Self {
        let (data, offset) = self.data.clone_at(self.offset);
        ArrayBase {
            data,
            offset,
            dim: self.dim.clone(),
            strides: self.strides.clone(),
        }
    }
}

/// Arrays are equal when their shapes are equal and their elements compare equal
/// (so NaN makes arrays unequal, as `==` on floats), whatever their layouts.
impl<S: Data, S2: Data<Elem = S::Elem>> PartialEq<ArrayBase<S2>> for ArrayBase<S> {
    fn eq(&self, other: &ArrayBase<S2>) -> bool {
        self.shape() == other.shape() && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

// ---------------------------------------------------------------- iteration

/// An iterator over references to an array's elements in logical row-major order.
pub struct Iter<'a, T> {
    inner: IterInner<'a, T>,
}

enum IterInner<'a, T> {
    Contig(std::slice::Iter<'a, T>),
    Strided {
        data: &'a [T],
        dim: Dim,
        strides: Strides,
        idx: Dim,
        off: isize,
        remaining: usize,
    },
}

impl<'a, T: DType> Iter<'a, T> {
    fn new(v: ArrayView<'a, T>) -> Self {
        if v.is_standard_layout() {
            let n = v.len();
            let s: &'a [T] = if n == 0 {
                &[]
            } else {
                &v.data[v.offset..v.offset + n]
            };
            return Iter {
                inner: IterInner::Contig(s.iter()),
            };
        }
        let n = v.len();
        Iter {
            inner: IterInner::Strided {
                data: v.data,
                idx: Dim::filled(v.dim.len(), 0),
                dim: v.dim,
                strides: v.strides,
                off: v.offset as isize,
                remaining: n,
            },
        }
    }
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = &'a T;

    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        match &mut self.inner {
            IterInner::Contig(it) => it.next(),
            IterInner::Strided {
                data,
                dim,
                strides,
                idx,
                off,
                remaining,
            } => {
                if *remaining == 0 {
                    return None;
                }
                *remaining -= 1;
                let item = &data[*off as usize];
                for ax in (0..dim.len()).rev() {
                    idx[ax] += 1;
                    *off += strides[ax];
                    if idx[ax] < dim[ax] {
                        break;
                    }
                    *off -= strides[ax] * dim[ax] as isize;
                    idx[ax] = 0;
                }
                Some(item)
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.inner {
            IterInner::Contig(it) => it.len(),
            IterInner::Strided { remaining, .. } => *remaining,
        };
        (n, Some(n))
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {}

impl<'a, S: Data> IntoIterator for &'a ArrayBase<S> {
    type Item = &'a S::Elem;
    type IntoIter = Iter<'a, S::Elem>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
