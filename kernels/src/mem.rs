//! Memory hints for large buffers, and buffers whose elements start on a cache line.

/// Buffers at least this large ask for transparent huge pages (NumPy uses the
/// same 4 MiB threshold).
pub const HUGEPAGE_THRESHOLD: usize = 4 << 20;

const HUGE: usize = 2 << 20;

/// Asks the OS to back the 2 MiB-aligned interior of a large, not yet touched
/// buffer with transparent huge pages, so first touch costs one fault per 2 MiB
/// instead of one per 4 KiB. A hint only: contents never change, and on other
/// systems, small buffers, or when THP is off, it does nothing.
///
/// Returns whether the hint was given.
///
/// ```
/// let mut v = vec![0.0f64; 1 << 20]; // 8 MiB
/// let _ = ndsimd_kernels::mem::advise_hugepages(&mut v);
/// assert_eq!(v[12345], 0.0);
/// ```
pub fn advise_hugepages<T>(buf: &mut [T]) -> bool {
    let bytes = std::mem::size_of_val(buf);
    if bytes < HUGEPAGE_THRESHOLD {
        return false;
    }
    let start = buf.as_mut_ptr() as usize;
    let lo = (start + HUGE - 1) & !(HUGE - 1);
    let hi = (start + bytes) & !(HUGE - 1);
    if lo >= hi {
        return false;
    }
    advise(lo, hi - lo)
}

#[cfg(target_os = "linux")]
fn advise(addr: usize, len: usize) -> bool {
    // SAFETY: [addr, addr+len) lies inside a buffer the caller holds mutably, is
    // page-aligned (2 MiB-aligned), and MADV_HUGEPAGE changes only how its pages
    // are backed, never their contents or the mapping's validity.
    unsafe { libc::madvise(addr as *mut libc::c_void, len, libc::MADV_HUGEPAGE) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn advise(_addr: usize, _len: usize) -> bool {
    false
}

/// The alignment, in bytes, of the first element of every buffer this library
/// allocates for an array: one cache line, and a whole number of SIMD vectors on
/// every tier, so no vector load of an aligned run straddles two lines.
pub const ALIGN: usize = 64;

/// Elements of slack a buffer of `T` needs so that some element of it starts on
/// an [`ALIGN`] boundary: `ALIGN / size - 1` when `T`'s size divides [`ALIGN`],
/// else 0 (no such `T` is aligned).
///
/// ```
/// use ndsimd_kernels::mem::lead_room;
/// assert_eq!((lead_room::<f64>(), lead_room::<f32>(), lead_room::<u8>()), (7, 15, 63));
/// assert_eq!(lead_room::<[u8; 3]>(), 0);
/// ```
pub const fn lead_room<T>() -> usize {
    let size = core::mem::size_of::<T>();
    if size == 0 || !ALIGN.is_multiple_of(size) {
        0
    } else {
        ALIGN / size - 1
    }
}

/// How many elements past `p` the first [`ALIGN`]-aligned element is: at most
/// [`lead_room`], 0 when `p` is aligned already or no element can be.
///
/// ```
/// use ndsimd_kernels::mem::{lead, ALIGN};
/// let v = vec![0.0f64; 16];
/// let k = lead(v.as_ptr());
/// assert!(k <= 7 && (v[k..].as_ptr() as usize) % ALIGN == 0);
/// ```
pub fn lead<T>(p: *const T) -> usize {
    lead_to(p, ALIGN)
}

/// Elements of padding a buffer of `n` elements of `T` gets so its payload can
/// start on an `align`-byte boundary: none for an empty one or a `T` whose size does
/// not divide `align`.
fn room<T>(n: usize, align: usize) -> usize {
    let size = core::mem::size_of::<T>().max(1);
    if n == 0 || !align.is_multiple_of(size) {
        0
    } else {
        align / size - 1
    }
}

/// [`lead`] to an `align`-byte boundary (a power of two): at most
/// `align / size - 1` elements, 0 when no element of `T` can be so aligned.
fn lead_to<T>(p: *const T, align: usize) -> usize {
    match p.align_offset(align) {
        k if k < align / core::mem::size_of::<T>().max(1) => k,
        _ => 0,
    }
}

/// A `Vec` whose payload, `vec[start..]`, begins on an [`ALIGN`] boundary (when
/// `T`'s size divides [`ALIGN`]); `vec[..start]` is padding, at most
/// [`lead_room`] elements of unspecified values. Arrays keep `start` as the
/// offset of their first element, so their kernels run on aligned memory.
///
/// ```
/// use ndsimd_kernels::mem::{Aligned, ALIGN};
/// let a = Aligned::filled(100, 2.5f64);
/// assert_eq!(a.payload(), &[2.5; 100][..]);
/// assert_eq!(a.payload().as_ptr() as usize % ALIGN, 0);
/// assert_eq!(a.into_vec(), vec![2.5; 100]);
/// ```
#[derive(Debug)]
pub struct Aligned<T> {
    /// The buffer: padding, then the payload.
    pub vec: Vec<T>,
    /// Where the payload starts.
    pub start: usize,
}

impl<T> Aligned<T> {
    /// The payload.
    pub fn payload(&self) -> &[T] {
        &self.vec[self.start..]
    }

    /// The payload, mutably.
    pub fn payload_mut(&mut self) -> &mut [T] {
        &mut self.vec[self.start..]
    }

    /// The payload as a `Vec` of its own: the padding removed by moving the payload
    /// down in place (no allocation).
    pub fn into_vec(mut self) -> Vec<T> {
        self.vec.drain(..self.start);
        self.vec
    }
}

impl<T: Copy> Aligned<T> {
    /// `n` copies of `x` (the padding too). For a zero `x` of a primitive type the
    /// standard library allocates zeroed memory and writes nothing, so a large
    /// buffer stays untouched until used, and is asked for huge pages (see
    /// [`advise_hugepages`]) before its first touch.
    pub fn filled(n: usize, x: T) -> Self {
        Self::filled_to(n, x, ALIGN)
    }

    /// [`filled`](Self::filled) with the payload on an `align`-byte boundary
    /// instead (a power of two; a page, 4096, for `O_DIRECT` reads), when `T`'s
    /// size divides it (else unpadded).
    ///
    /// ```
    /// use ndsimd_kernels::mem::Aligned;
    /// let page = Aligned::filled_to(10_000, 0u8, 4096);
    /// assert_eq!(page.payload().as_ptr() as usize % 4096, 0);
    /// assert_eq!(page.payload().len(), 10_000);
    /// ```
    ///
    /// # Panics
    /// When `align` is not a power of two.
    pub fn filled_to(n: usize, x: T, align: usize) -> Self {
        assert!(
            align.is_power_of_two(),
            "Aligned: {align} is not a power of two"
        );
        let room = room::<T>(n, align);
        let mut vec = vec![x; n.checked_add(room).expect("capacity overflow")];
        let start = if room == 0 {
            0
        } else {
            lead_to(vec.as_ptr(), align)
        };
        advise_hugepages(&mut vec);
        vec.truncate(start + n);
        Aligned { vec, start }
    }

    /// `n` elements for a caller that writes every one of them: a large buffer
    /// from [`crate::buffers`] when it holds one that fits, with the values of the
    /// earlier result it held (so no pass writes it first, and the OS zeroes no
    /// fresh pages), else [`filled`](Self::filled) with `x`.
    ///
    /// ```
    /// use ndsimd_kernels::mem::{Aligned, ALIGN};
    /// let mut a = Aligned::for_overwrite(1000, 0.0f64);
    /// a.payload_mut().iter_mut().for_each(|e| *e = 1.0);
    /// assert_eq!(a.payload(), &[1.0; 1000][..]);
    /// assert_eq!(a.payload().as_ptr() as usize % ALIGN, 0);
    /// ```
    pub fn for_overwrite(n: usize, x: T) -> Self
    where
        T: Send + 'static,
    {
        let room = room::<T>(n, ALIGN);
        let cap = n.checked_add(room).expect("capacity overflow");
        let Some(mut vec) = crate::buffers::reuse::<T>(cap) else {
            return Self::filled(n, x);
        };
        if vec.len() < cap {
            vec.resize(cap, x);
        }
        let start = if room == 0 { 0 } else { lead(vec.as_ptr()) };
        vec.truncate(start + n);
        Aligned { vec, start }
    }

    /// `n` elements written by `fill`, which is given the whole uninitialised
    /// payload; the padding is then set to copies of the payload's first element.
    /// A large buffer comes from [`crate::buffers`] when it holds one that fits
    /// (its old contents are overwritten); fresh large payloads are asked for huge
    /// pages before `fill` touches them. A panic
    /// in `fill` unwinds through and frees the buffer (its length still 0).
    ///
    /// # Safety
    /// `fill` writes every element of the slice it is given before returning (or
    /// panics).
    pub(crate) unsafe fn from_fill(
        n: usize,
        fill: impl FnOnce(&mut [core::mem::MaybeUninit<T>]),
    ) -> Self
    where
        T: Send + 'static,
    {
        let room = room::<T>(n, ALIGN);
        let cap = n.checked_add(room).expect("capacity overflow");
        // A large result reuses a freed buffer's pages when one fits (see
        // `buffers`): no faults, no zeroing by the OS.
        let mut vec: Vec<T> = match crate::buffers::reuse(cap) {
            Some(mut v) => {
                v.clear();
                v
            }
            None => Vec::with_capacity(cap),
        };
        let start = if room == 0 { 0 } else { lead(vec.as_ptr()) };
        let spare = &mut vec.spare_capacity_mut()[..start + n];
        let (pad, payload) = spare.split_at_mut(start);
        advise_hugepages(payload);
        fill(payload);
        if let Some(first) = payload.first() {
            // SAFETY: `fill` wrote every element of `payload` (the caller's promise).
            let first = unsafe { first.assume_init() };
            pad.iter_mut().for_each(|e| {
                e.write(first);
            });
        }
        // SAFETY: the padding was just written (there is none when the payload is
        // empty: `room` is then 0) and `fill` wrote the payload, so the first
        // `start + n` elements are initialised.
        unsafe { vec.set_len(start + n) };
        Aligned { vec, start }
    }
}

/// Asks for the cache line holding `p`: to be read once soon (`KEEP == false`,
/// `PREFETCHNTA`), or into L1 to stay (`KEEP`, `PREFETCHT0`). A hint never faults,
/// whatever the address; elsewhere than on x86_64 it does nothing. The kernels'
/// look-ahead at what is packed next uses the first (NTA beat T0 and T2 there:
/// docs/design.md#packing-and-prefetch); the tile of C and the direct path's B rows, which are read again, the second,
/// as does [`crate::generic`]'s `argmax` for the lines after its slice.
#[inline(always)]
pub(crate) fn prefetch<const KEEP: bool>(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHNTA and PREFETCHT0 read nothing architecturally and never
    // fault; SSE is x86_64's baseline.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_NTA, _MM_HINT_T0};
        if KEEP {
            _mm_prefetch::<_MM_HINT_T0>(p.cast())
        } else {
            _mm_prefetch::<_MM_HINT_NTA>(p.cast())
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_filled<T: Copy + PartialEq + core::fmt::Debug>(x: T) {
        for n in (0..140).chain([1 << 20]) {
            let a = Aligned::filled(n, x);
            assert!(a.start <= lead_room::<T>(), "n {n}");
            assert!(a.payload().iter().all(|&v| v == x) && a.payload().len() == n);
            if n > 0 {
                assert_eq!(a.payload().as_ptr() as usize % ALIGN, 0, "n {n}");
            }
            assert_eq!(a.into_vec(), vec![x; n]);
        }
    }

    #[test]
    fn filled_buffers_hold_their_values_from_a_line() {
        check_filled(0.0f64);
        check_filled(-1.5f64);
        check_filled(3.0f32);
        check_filled(0u8);
        check_filled(true);
        check_filled(7i64);
        // A type whose size does not divide the line gets no padding.
        let odd = Aligned::filled(10, [1u8; 3]);
        assert_eq!((odd.start, odd.payload().len()), (0, 10));
    }

    #[test]
    fn from_fill_pads_with_the_first_element_and_unwinds_cleanly() {
        for n in [0usize, 1, 9, 100] {
            // SAFETY: the closure writes every element it is given.
            let a = unsafe {
                Aligned::from_fill(n, |p| {
                    for (i, e) in p.iter_mut().enumerate() {
                        e.write(i as f64 + 1.0);
                    }
                })
            };
            let want: Vec<f64> = (1..=n).map(|i| i as f64).collect();
            assert_eq!(a.payload(), &want[..]);
            assert!(a.vec[..a.start].iter().all(|&v| v == 1.0));
        }
        let r = std::panic::catch_unwind(|| {
            // SAFETY: the closure panics before returning.
            unsafe { Aligned::<f64>::from_fill(50, |_| panic!("no")) }
        });
        assert!(r.is_err());
    }

    #[test]
    fn small_buffers_are_left_alone_and_contents_survive() {
        let mut small = vec![1u8; 4096];
        assert!(!advise_hugepages(&mut small));
        let mut big = vec![0u64; 3 << 20];
        big[7] = 7;
        let _ = advise_hugepages(&mut big);
        assert_eq!(big[7], 7);
        assert!(big
            .iter()
            .enumerate()
            .all(|(i, &x)| x == if i == 7 { 7 } else { 0 }));
    }
}
