//! A bump arena (on `bumpalo`) that hands out 64-byte-aligned slices which are
//! always initialized, without a fill pass on memory it has handed out before.
//!
//! `bumpalo` gives raw memory. Handing it out as `&mut [T]` needs it initialized,
//! and zeroing every slice would cost a full write pass per operation, the very
//! cost an arena is for avoiding. So the arena tracks the initialized region of
//! its current chunk: each request is a multiple of 64 bytes at 64-byte alignment,
//! so within one chunk the slices tile `[lo, hi)` downward without gaps; a request
//! inside that region is returned as it is (it holds whatever the previous user
//! wrote: any bit pattern is a valid [`AnyBits`] value), and only the part below it
//! is filled once. `reset` keeps `bumpalo`'s current chunk (and the region, clamped
//! to that chunk), so a loop that resets each pass fills nothing after its first.

use bumpalo::Bump;
use std::alloc::Layout;
use std::cell::Cell;
use std::mem::MaybeUninit;

/// Bytes of alignment (and granularity) of every slice the arena hands out.
pub const ARENA_ALIGN: usize = 64;

mod sealed {
    pub trait Sealed {}
}

/// Element types for which every bit pattern is a valid value, so memory that held
/// any earlier slice (of any of these types) may be handed out again unwritten.
/// Sealed: `bool` (only 0 and 1 are valid) is not one of them.
///
/// # Safety
///
/// Implemented only here, for plain integer and float types.
pub unsafe trait AnyBits: Copy + Default + sealed::Sealed {}

macro_rules! any_bits {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        // SAFETY: a plain integer or float: every bit pattern of its size is a value.
        unsafe impl AnyBits for $t {}
    )*};
}
any_bits!(f32, f64, u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

mod plain {
    pub trait Sealed {}
}

/// Element types whose values have no padding bytes (every byte of a written
/// value is initialized), of a size dividing 64: what
/// [`alloc_filled`](Arena::alloc_filled) takes. The [`AnyBits`] types and `bool`.
pub trait Plain: Copy + plain::Sealed {}

macro_rules! plain {
    ($($t:ty),*) => {$(
        impl plain::Sealed for $t {}
        impl Plain for $t {}
    )*};
}
plain!(f32, f64, u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, bool);

/// The arena. Slices borrow it; [`reset`](Arena::reset) takes `&mut self`, so the
/// borrow checker ends every slice before memory is reused.
///
/// ```
/// let mut a = ndsimd_kernels::arena::Arena::new();
/// let x: &mut [f64] = a.alloc(100).unwrap();
/// x.fill(1.5);
/// assert_eq!(x.as_ptr() as usize % 64, 0);
/// a.reset();
/// let y: &mut [f64] = a.alloc(100).unwrap();
/// assert_eq!(y.len(), 100);
/// ```
pub struct Arena {
    bump: Bump,
    /// `bump`'s bytes just after the last reset: while they are unchanged, no
    /// chunk was added since, and a reset has nothing to replace or clamp.
    kept: usize,
    /// The initialized address range `[lo, hi)` of the current chunk (empty: 0, 0).
    init: Cell<(usize, usize)>,
}

impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Arena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Arena")
            .field("allocated_bytes", &self.bump.allocated_bytes())
            .finish()
    }
}

impl Arena {
    /// An empty arena (its first request allocates a chunk).
    ///
    /// ```
    /// assert_eq!(ndsimd_kernels::arena::Arena::new().allocated_bytes(), 0);
    /// ```
    pub fn new() -> Self {
        Arena {
            bump: Bump::new(),
            kept: usize::MAX,
            init: Cell::new((0, 0)),
        }
    }

    /// An arena whose first chunk holds at least `bytes`.
    ///
    /// ```
    /// let a = ndsimd_kernels::arena::Arena::with_capacity(1 << 20);
    /// assert!(a.allocated_bytes() >= 1 << 20);
    /// ```
    pub fn with_capacity(bytes: usize) -> Self {
        Arena {
            bump: Bump::with_capacity(bytes),
            kept: usize::MAX,
            init: Cell::new((0, 0)),
        }
    }

    /// The bytes of the chunks the arena holds (used or not).
    ///
    /// ```
    /// let a = ndsimd_kernels::arena::Arena::new();
    /// let _ = a.alloc::<f32>(1000).unwrap();
    /// assert!(a.allocated_bytes() >= 4000);
    /// ```
    pub fn allocated_bytes(&self) -> usize {
        self.bump.allocated_bytes()
    }

    /// Forgets every slice handed out, keeping the current chunk and what it
    /// knows of its initialized region; after a pass that needed several chunks,
    /// one chunk as large as all of them replaces them.
    ///
    /// ```
    /// let mut a = ndsimd_kernels::arena::Arena::new();
    /// let p = a.alloc::<f64>(8).unwrap().as_ptr() as usize;
    /// a.reset();
    /// assert_eq!(a.alloc::<f64>(8).unwrap().as_ptr() as usize, p);
    /// ```
    #[inline]
    pub fn reset(&mut self) {
        // The common case in a loop: the pass fit in the chunk the last reset kept.
        if self.bump.allocated_bytes() == self.kept {
            self.bump.reset();
            return;
        }
        self.reset_chunks();
        self.kept = self.bump.allocated_bytes();
    }

    /// [`reset`](Self::reset) after a pass that added chunks (or the first).
    fn reset_chunks(&mut self) {
        // A pass that outgrew its chunk left several; `bumpalo` would keep the last
        // alone, which the next pass outgrows again. One chunk holding them all
        // instead: from the next pass on, a loop of the same work fits.
        if self.bump.iter_allocated_chunks().nth(1).is_some() {
            self.bump = Bump::with_capacity(self.bump.allocated_bytes());
            self.init.set((0, 0));
            return;
        }
        // The current chunk is the first one listed; only it survives the reset,
        // so the region is clamped to its allocated part (chunks freed now may
        // come back from the allocator later, uninitialized).
        let (lo, hi) = self.init.get();
        let kept = self
            .bump
            .iter_allocated_chunks()
            .next()
            .map(|c| (c.as_ptr() as usize, c.as_ptr() as usize + c.len()));
        let clamped = match kept {
            Some((clo, chi)) if lo.max(clo) < hi.min(chi) => (lo.max(clo), hi.min(chi)),
            _ => (0, 0),
        };
        self.init.set(clamped);
        self.bump.reset();
    }

    /// `n` elements, 64-byte aligned, holding unspecified values (zeros on memory
    /// never handed out, whatever an earlier slice left otherwise): for kernels
    /// that write every element. `None` when the allocator refuses.
    ///
    /// ```
    /// let a = ndsimd_kernels::arena::Arena::new();
    /// let x = a.alloc::<f64>(3).unwrap();
    /// assert_eq!(x, &[0.0; 3]);
    /// ```
    #[allow(clippy::mut_from_ref)] // a bump arena: each call hands out fresh memory
    #[inline]
    pub fn alloc<T: AnyBits>(&self, n: usize) -> Option<&mut [T]> {
        let raw = self.raw::<T>(n)?;
        if raw.is_empty() {
            return Some(&mut []);
        }
        let fresh = self.claim(raw);
        // Huge pages for a large slot's new memory, asked before its first touch
        // (as arrays' buffers are): on 4 KiB pages a 4Mi `f64` add into the arena
        // ran 10% behind the same add into an array.
        crate::mem::advise_hugepages(&mut raw[..fresh]);
        for x in &mut raw[..fresh] {
            x.write(T::default());
        }
        // SAFETY: every byte of `raw` is initialized: its first `fresh` elements
        // were just written, and the rest lies in the region an earlier call
        // initialized within the current chunk (slices tile it without gaps: see
        // the module docs), which nothing has freed since (`reset` clamps the
        // region to the chunk it keeps). Any bytes there are a valid `T`
        // (`AnyBits`).
        let all = unsafe { assume_init(raw) };
        Some(&mut all[..n])
    }

    /// `n` copies of `x`, 64-byte aligned (every element written, the slot's
    /// padding too, so the memory can come back unwritten to [`alloc`](Self::alloc)
    /// after a reset). `None` when the allocator refuses.
    ///
    /// ```
    /// let a = ndsimd_kernels::arena::Arena::new();
    /// assert_eq!(a.alloc_filled(2, true).unwrap(), &[true, true]);
    /// ```
    #[allow(clippy::mut_from_ref)]
    pub fn alloc_filled<T: Plain>(&self, n: usize, x: T) -> Option<&mut [T]> {
        let raw = self.raw::<T>(n)?;
        if raw.is_empty() {
            return Some(&mut []);
        }
        crate::mem::advise_hugepages(raw);
        for e in raw.iter_mut() {
            e.write(x);
        }
        self.claim(raw);
        // SAFETY: every element was written just above.
        let all = unsafe { assume_init(raw) };
        Some(&mut all[..n])
    }

    /// Records `raw` (a whole slot) as initialized once the caller has written
    /// its first `fresh` elements, the number returned: the part below the region
    /// already known, or all of it in a new chunk.
    #[inline]
    fn claim<T>(&self, raw: &[MaybeUninit<T>]) -> usize {
        let p = raw.as_ptr() as usize;
        let q = p + std::mem::size_of_val(raw);
        let (lo, hi) = self.init.get();
        let fresh_end = if lo < hi && p < hi && q >= lo && q <= hi {
            // Touches or overlaps the region from below: only [p, lo) is new.
            self.init.set((p.min(lo), hi));
            lo.max(p)
        } else {
            // Elsewhere (a new chunk): all new.
            self.init.set((p, q));
            q
        };
        (fresh_end - p) / std::mem::size_of::<T>()
    }

    /// A whole slot for `n` elements: 64-byte aligned and a whole number of
    /// 64-byte lines (so slots tile a chunk without gaps), as many elements as fit
    /// in it, from the bump allocator.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    fn raw<T>(&self, n: usize) -> Option<&mut [MaybeUninit<T>]> {
        let size = std::mem::size_of::<T>();
        if n == 0 {
            return Some(&mut []);
        }
        // Sizes that divide a line (every `Plain` type's): a slot is whole elements.
        if size == 0 || !ARENA_ALIGN.is_multiple_of(size) {
            return None;
        }
        let bytes = n.checked_mul(size)?.checked_next_multiple_of(ARENA_ALIGN)?;
        let layout = Layout::from_size_align(bytes, ARENA_ALIGN).ok()?;
        let ptr = self.bump.try_alloc_layout(layout).ok()?;
        // SAFETY: `ptr` is a fresh allocation of `bytes` bytes (a multiple of
        // `size`), aligned to 64 (a multiple of `T`'s alignment, which divides its
        // size), owned by the arena until `reset` (which takes `&mut self`, so no
        // slice outlives it); `MaybeUninit` asks nothing of the contents.
        Some(unsafe {
            std::slice::from_raw_parts_mut(ptr.as_ptr().cast::<MaybeUninit<T>>(), bytes / size)
        })
    }
}

/// # Safety
///
/// Every element of `s` must be initialized.
unsafe fn assume_init<T>(s: &mut [MaybeUninit<T>]) -> &mut [T] {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout, and the caller guarantees every
    // element is initialized.
    unsafe { &mut *(s as *mut [MaybeUninit<T>] as *mut [T]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recycled_memory_is_not_refilled_and_fresh_memory_is_zeroed() {
        let mut a = Arena::with_capacity(1 << 16);
        let x = a.alloc::<f64>(100).unwrap();
        assert!(x.iter().all(|&v| v == 0.0));
        x.fill(f64::NAN);
        let p = x.as_ptr() as usize;
        a.reset();
        // The same memory again, unwritten: the NaNs are still there.
        let y = a.alloc::<f64>(100).unwrap();
        assert_eq!(y.as_ptr() as usize, p);
        assert!(y.iter().all(|v| v.is_nan()));
        // Past the old region: the new part is zeroed, the old part kept.
        a.reset();
        let z = a.alloc::<f64>(300).unwrap();
        let nan = z.iter().filter(|v| v.is_nan()).count();
        assert_eq!(nan, 100, "only the recycled 100 keep their NaN");
        assert!(z.iter().filter(|v| !v.is_nan()).all(|&v| v == 0.0));
    }

    #[test]
    fn filled_slots_come_back_unwritten_with_their_values() {
        let mut a = Arena::new();
        let p = a.alloc_filled(5, f64::NAN).unwrap().as_ptr() as usize;
        a.alloc_filled(3, true).unwrap();
        a.reset();
        let x = a.alloc::<f64>(5).unwrap();
        assert_eq!(x.as_ptr() as usize, p);
        assert!(x.iter().all(|v| v.is_nan()));
        // The bools' slot (a whole line) reads as some f64s: initialized bytes.
        let y = a.alloc::<f64>(8).unwrap();
        assert_eq!(y.len(), 8);
    }

    #[test]
    fn slices_are_aligned_and_disjoint() {
        let a = Arena::new();
        let x = a.alloc::<f32>(3).unwrap();
        let y = a.alloc::<u8>(5).unwrap();
        let z = a.alloc_filled(7, false).unwrap();
        for p in [
            x.as_ptr() as usize,
            y.as_ptr() as usize,
            z.as_ptr() as usize,
        ] {
            assert_eq!(p % ARENA_ALIGN, 0);
        }
        x.fill(1.0);
        y.fill(2);
        z.fill(true);
        assert_eq!((x[2], y[4], z[6]), (1.0, 2, true));
        assert!(a.alloc::<f64>(0).unwrap().is_empty());
    }

    #[test]
    fn a_pass_that_fits_reuses_its_chunk_and_one_that_outgrew_it_is_regrown_once() {
        let mut a = Arena::new();
        // One pass of `sizes`: the slices' addresses and the arena's bytes after it.
        let pass = |a: &mut Arena, sizes: &[usize]| {
            let ptrs: Vec<usize> = sizes
                .iter()
                .map(|&n| a.alloc::<f64>(n).unwrap().as_ptr() as usize)
                .collect();
            let bytes = a.allocated_bytes();
            a.reset();
            (ptrs, bytes)
        };
        // The first pass may take more than one chunk; the second fits in one.
        let small = [1000, 24];
        pass(&mut a, &small);
        let (p1, b1) = pass(&mut a, &small);
        let (p2, b2) = pass(&mut a, &small);
        assert_eq!(
            (p2, b2),
            (p1, b1),
            "a pass that fits: the same memory again"
        );
        // Outgrowing the chunk adds one; the reset after it keeps one holding both.
        let big = [1000, 24, 1 << 20];
        let (_, grown) = pass(&mut a, &big);
        assert!(grown > b1);
        let (p3, b3) = pass(&mut a, &big);
        let (p4, b4) = pass(&mut a, &big);
        assert_eq!((p4, b4), (p3, b3), "from then on the big pass fits");
        assert_eq!(a.bump.iter_allocated_chunks().count(), 1);
    }

    #[test]
    fn growing_into_new_chunks_keeps_every_slice_initialized() {
        let mut a = Arena::new();
        for round in 0..3 {
            let mut sizes = Vec::new();
            for i in 1..40usize {
                let s = a.alloc::<f64>(i * 97).unwrap();
                // Reading every element is what must be sound.
                assert!(s
                    .iter()
                    .all(|v| v.is_nan() || *v == 0.0 || *v == round as f64));
                s.fill(round as f64 + 1.0);
                sizes.push(s.len());
            }
            assert_eq!(sizes.len(), 39);
            a.reset();
        }
    }
}
