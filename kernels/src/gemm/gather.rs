//! Packing eight strided runs at once: rows `x < 8` of a block whose elements are
//! contiguous along k (`src + x * along + p`) into `dst[p * w + x]`, by loading a
//! few steps of each row as one vector and transposing the square in registers.
//!
//! This is what a row-major A becomes as the kernel's B panel (a product into a
//! row-major C runs as `C^T = B^T A^T`; eight rows of A make one panel of an 8-wide
//! kernel), and what B stored transposed becomes as the kernel's A panels (24 rows
//! of B^T, three calls). The scalar gather in `pack.rs` moves one element per load
//! and store; these move a vector per load and per store.
//!
//! Used at the AVX2 and AVX-512 tiers (compiled for AVX2: 256-bit transposes);
//! docs/design.md#packing-and-prefetch.

/// Gathers rows `0..8` of a block (element `x` at step `p` at `src + x * along + p`,
/// `p < kc`) into `dst[p * w + x]`.
///
/// # Safety
/// `src + x * along + p` is valid for reads for `x < 8`, `p < kc`; `dst + p * w + x`
/// is valid for writes for the same; the CPU has the function's features.
pub type Gather8Fn<T> = unsafe fn(dst: *mut T, w: usize, src: *const T, along: isize, kc: usize);

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use core::arch::x86_64::*;

    /// How far ahead of the steps being read, in bytes, each row asks for: two
    /// cache lines (one hint per row per line read).
    const AHEAD_BYTES: usize = 128;

    /// Steps `range` of [`super::Gather8Fn`] one element at a time (what is left
    /// after the vector steps).
    ///
    /// # Safety
    /// As [`super::Gather8Fn`], for steps `range` (all below `kc`).
    #[inline(always)]
    unsafe fn steps<T: Copy>(
        dst: *mut T,
        w: usize,
        src: *const T,
        along: isize,
        range: core::ops::Range<usize>,
    ) {
        for p in range {
            for x in 0..8 {
                // SAFETY: step `p` of row `x < 8`, and `dst`'s element, as the
                // caller allows.
                unsafe { *dst.add(p * w + x) = *src.offset(x as isize * along).add(p) };
            }
        }
    }

    /// [`super::Gather8Fn`] for `f64`: four steps of four rows at a time, a 4 x 4
    /// transpose in `ymm` registers (two per eight rows).
    ///
    /// # Safety
    /// As [`super::Gather8Fn`], with AVX2 present.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn f64x8(dst: *mut f64, w: usize, src: *const f64, along: isize, kc: usize) {
        let row = |x: usize| src.wrapping_offset(x as isize * along);
        let mut p = 0;
        while p + 4 <= kc {
            for h in 0..2 {
                let r = |x: usize| row(4 * h + x).wrapping_add(p);
                if p % 8 == 0 {
                    for x in 0..4 {
                        crate::mem::prefetch::<true>(r(x).wrapping_byte_add(AHEAD_BYTES).cast());
                    }
                }
                // SAFETY: steps `p .. p + 4 <= kc` of rows `4h .. 4h + 4 < 8` are
                // readable, and the four rows `p .. p + 4` of `dst` at columns
                // `4h .. 4h + 4` writable (the caller's contract); AVX2 is present.
                unsafe {
                    let (r0, r1, r2, r3) = (
                        _mm256_loadu_pd(r(0)),
                        _mm256_loadu_pd(r(1)),
                        _mm256_loadu_pd(r(2)),
                        _mm256_loadu_pd(r(3)),
                    );
                    // t0 = (r0[0], r1[0], r0[2], r1[2]), t1 the odd steps; t2, t3 of
                    // rows 2 and 3; then the 128-bit halves pair up into steps.
                    let t0 = _mm256_unpacklo_pd(r0, r1);
                    let t1 = _mm256_unpackhi_pd(r0, r1);
                    let t2 = _mm256_unpacklo_pd(r2, r3);
                    let t3 = _mm256_unpackhi_pd(r2, r3);
                    let d = |q: usize| dst.add((p + q) * w + 4 * h);
                    _mm256_storeu_pd(d(0), _mm256_permute2f128_pd::<0x20>(t0, t2));
                    _mm256_storeu_pd(d(1), _mm256_permute2f128_pd::<0x20>(t1, t3));
                    _mm256_storeu_pd(d(2), _mm256_permute2f128_pd::<0x31>(t0, t2));
                    _mm256_storeu_pd(d(3), _mm256_permute2f128_pd::<0x31>(t1, t3));
                }
            }
            p += 4;
        }
        // SAFETY: the steps left, `p .. kc`, as the caller allows.
        unsafe { steps(dst, w, src, along, p..kc) };
    }

    /// [`super::Gather8Fn`] for `f32`: eight steps of eight rows at a time, an 8 x 8
    /// transpose in `ymm` registers.
    ///
    /// # Safety
    /// As [`super::Gather8Fn`], with AVX2 present.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn f32x8(dst: *mut f32, w: usize, src: *const f32, along: isize, kc: usize) {
        let row = |x: usize| src.wrapping_offset(x as isize * along);
        let mut p = 0;
        while p + 8 <= kc {
            let r = |x: usize| row(x).wrapping_add(p);
            if p % 16 == 0 {
                for x in 0..8 {
                    crate::mem::prefetch::<true>(r(x).wrapping_byte_add(AHEAD_BYTES).cast());
                }
            }
            // SAFETY: steps `p .. p + 8 <= kc` of rows `0 .. 8` are readable, and the
            // eight rows `p .. p + 8` of `dst` at columns `0 .. 8` writable (the
            // caller's contract); AVX2 is present.
            unsafe {
                let v: [__m256; 8] = core::array::from_fn(|x| _mm256_loadu_ps(r(x)));
                // Pairs of rows interleaved, then quads, then the 128-bit halves.
                let t0 = _mm256_unpacklo_ps(v[0], v[1]);
                let t1 = _mm256_unpackhi_ps(v[0], v[1]);
                let t2 = _mm256_unpacklo_ps(v[2], v[3]);
                let t3 = _mm256_unpackhi_ps(v[2], v[3]);
                let t4 = _mm256_unpacklo_ps(v[4], v[5]);
                let t5 = _mm256_unpackhi_ps(v[4], v[5]);
                let t6 = _mm256_unpacklo_ps(v[6], v[7]);
                let t7 = _mm256_unpackhi_ps(v[6], v[7]);
                let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
                let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
                let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
                let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
                let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
                let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
                let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
                let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
                let d = |q: usize| dst.add((p + q) * w);
                _mm256_storeu_ps(d(0), _mm256_permute2f128_ps::<0x20>(u0, u4));
                _mm256_storeu_ps(d(1), _mm256_permute2f128_ps::<0x20>(u1, u5));
                _mm256_storeu_ps(d(2), _mm256_permute2f128_ps::<0x20>(u2, u6));
                _mm256_storeu_ps(d(3), _mm256_permute2f128_ps::<0x20>(u3, u7));
                _mm256_storeu_ps(d(4), _mm256_permute2f128_ps::<0x31>(u0, u4));
                _mm256_storeu_ps(d(5), _mm256_permute2f128_ps::<0x31>(u1, u5));
                _mm256_storeu_ps(d(6), _mm256_permute2f128_ps::<0x31>(u2, u6));
                _mm256_storeu_ps(d(7), _mm256_permute2f128_ps::<0x31>(u3, u7));
            }
            p += 8;
        }
        // SAFETY: the steps left, `p .. kc`, as the caller allows.
        unsafe { steps(dst, w, src, along, p..kc) };
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Each x86 gather against the element-by-element definition, bit for bit (NaN
    /// payloads, signed zeros and subnormals among the data), for every step count
    /// from 0 past two vector groups with every remainder, positive and negative
    /// row strides, and panel widths one to six times eight.
    fn matches<T: Copy + core::fmt::Debug>(
        g: Gather8Fn<T>,
        bits: impl Fn(u64) -> T,
        eq: impl Fn(T, T) -> bool,
    ) {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for kc in 0..=41 {
            for along in [kc as isize, kc as isize + 3, 97, -(kc as isize) - 5] {
                for w in [8, 16, 24, 48] {
                    let span = 8 * along.unsigned_abs() + kc + 8;
                    let src: Vec<T> = (0..span).map(|_| bits(next())).collect();
                    // Rows counted from the middle when `along` is negative.
                    let base = if along < 0 {
                        7 * along.unsigned_abs()
                    } else {
                        0
                    };
                    let at =
                        |x: usize, p: usize| src[(base as isize + x as isize * along) as usize + p];
                    let mut got = vec![bits(next()); kc * w];
                    // Every group of eight columns gets the same eight rows.
                    for x0 in (0..w).step_by(8) {
                        // SAFETY: rows `0 .. 8` from `base`, `kc` steps each, lie in
                        // `src` (its length covers them for either sign of `along`);
                        // columns `x0 .. x0 + 8` of `kc` rows `w` long lie in `got`;
                        // AVX2 is present (checked by the caller).
                        unsafe {
                            g(
                                got.as_mut_ptr().add(x0),
                                w,
                                src.as_ptr().add(base),
                                along,
                                kc,
                            )
                        };
                    }
                    for p in 0..kc {
                        for x in 0..w {
                            let want = at(x % 8, p);
                            assert!(
                                eq(got[p * w + x], want),
                                "kc {kc} along {along} w {w}: ({p}, {x}) {:?} != {:?}",
                                got[p * w + x],
                                want
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn x86_gathers_match_the_definition() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        // Raw bits, so NaN payloads and signed zeros count; a third of the values
        // small integers to keep the failure messages readable.
        matches::<f64>(
            x86::f64x8,
            |r| {
                if r % 3 == 0 {
                    (r % 97) as f64
                } else {
                    f64::from_bits(r)
                }
            },
            |a, b| a.to_bits() == b.to_bits(),
        );
        matches::<f32>(
            x86::f32x8,
            |r| {
                if r % 3 == 0 {
                    (r % 97) as f32
                } else {
                    f32::from_bits(r as u32)
                }
            },
            |a, b| a.to_bits() == b.to_bits(),
        );
    }
}
