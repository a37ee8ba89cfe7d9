//! glibc's vector math library (`libmvec.so.1`), loaded at run time: the peer the
//! bench times our `exp`/`log` against in the same process (`_ZGVeN8v_exp`,
//! `_ZGVeN8v_log` on AVX-512, `_ZGVdN4v_exp` on AVX2). Not linked: a machine
//! without the library (or the CPU features) gets `None`, nothing fails to build.
//!
//! ```
//! if let Some(m) = ndsimd_kernels::libmvec::get() {
//!     if let Some(exp) = m.exp8 {
//!         let mut out = [0.0; 3];
//!         exp.map(&[0.0, 1.0, -1.0], &mut out);
//!         assert_eq!(out[0], 1.0);
//!     }
//! }
//! ```

// The vector types go in zmm/ymm registers under the x86-64 vector ABI when the
// caller has the features (every call here is from such a function).
#![allow(improper_ctypes_definitions)]

use core::arch::x86_64::{__m256d, __m512d};
use std::sync::OnceLock;

/// One libmvec routine over 8 lanes (AVX-512; present only when the CPU has it).
#[derive(Clone, Copy)]
pub struct Map8(Fn8);
/// The glibc vector ABI's 8-lane `f64` routine.
type Fn8 = unsafe extern "C" fn(__m512d) -> __m512d;
/// One libmvec routine over 4 lanes (AVX2).
#[derive(Clone, Copy)]
pub struct Map4(Fn4);
/// The glibc vector ABI's 4-lane `f64` routine.
type Fn4 = unsafe extern "C" fn(__m256d) -> __m256d;

/// The routines found, each `None` where the library lacks it or the CPU lacks its
/// features.
pub struct Libmvec {
    /// `_ZGVeN8v_exp` (AVX-512)
    pub exp8: Option<Map8>,
    /// `_ZGVeN8v_log` (AVX-512)
    pub log8: Option<Map8>,
    /// `_ZGVdN4v_exp` (AVX2)
    pub exp4: Option<Map4>,
}

/// The library's routines, loaded once; `None` when `libmvec.so.1` is missing.
pub fn get() -> Option<&'static Libmvec> {
    static LIB: OnceLock<Option<Libmvec>> = OnceLock::new();
    LIB.get_or_init(load).as_ref()
}

fn load() -> Option<Libmvec> {
    // SAFETY: `dlopen`/`dlsym` with NUL-terminated names; the library is never
    // closed, so the symbols stay valid for the process. Each symbol is the glibc
    // vector ABI's function of that name: one vector in, one out.
    unsafe {
        let h = libc::dlopen(c"libmvec.so.1".as_ptr(), libc::RTLD_NOW);
        if h.is_null() {
            return None;
        }
        let sym = |name: &core::ffi::CStr| {
            let p = libc::dlsym(h, name.as_ptr());
            (!p.is_null()).then_some(p)
        };
        let avx512 = std::is_x86_feature_detected!("avx512f");
        let avx2 = std::is_x86_feature_detected!("avx2");
        let f8 = |name| {
            sym(name)
                .filter(|_| avx512)
                .map(|p| Map8(core::mem::transmute::<*mut libc::c_void, Fn8>(p)))
        };
        Some(Libmvec {
            exp8: f8(c"_ZGVeN8v_exp"),
            log8: f8(c"_ZGVeN8v_log"),
            exp4: sym(c"_ZGVdN4v_exp")
                .filter(|_| avx2)
                .map(|p| Map4(core::mem::transmute::<*mut libc::c_void, Fn4>(p))),
        })
    }
}

/// `out[i] = f(a[i])` by 8 lanes, the tail padded with 1.0.
///
/// # Safety
/// The CPU has AVX-512F; `f` takes and returns one `__m512d` by value.
#[target_feature(enable = "avx512f")]
unsafe fn run8(f: Fn8, a: &[f64], out: &mut [f64]) {
    use core::arch::x86_64::{_mm512_loadu_pd, _mm512_storeu_pd};
    let (ca, co) = (a.chunks_exact(8), out.chunks_exact_mut(8));
    let (ta, n) = (ca.remainder(), a.len() - a.len() % 8);
    // SAFETY: each chunk holds 8 elements; the caller's contract for the features
    // and the routine's signature.
    unsafe {
        for (x, o) in ca.zip(co) {
            _mm512_storeu_pd(o.as_mut_ptr(), f(_mm512_loadu_pd(x.as_ptr())));
        }
        if !ta.is_empty() {
            let mut buf = [1.0; 8];
            buf[..ta.len()].copy_from_slice(ta);
            _mm512_storeu_pd(buf.as_mut_ptr(), f(_mm512_loadu_pd(buf.as_ptr())));
            out[n..].copy_from_slice(&buf[..ta.len()]);
        }
    }
}

/// [`run8`] by 4 lanes.
///
/// # Safety
/// The CPU has AVX2; `f` takes and returns one `__m256d` by value.
#[target_feature(enable = "avx2")]
unsafe fn run4(f: Fn4, a: &[f64], out: &mut [f64]) {
    use core::arch::x86_64::{_mm256_loadu_pd, _mm256_storeu_pd};
    let (ca, co) = (a.chunks_exact(4), out.chunks_exact_mut(4));
    let (ta, n) = (ca.remainder(), a.len() - a.len() % 4);
    // SAFETY: as in `run8`, with 4-element chunks and AVX2.
    unsafe {
        for (x, o) in ca.zip(co) {
            _mm256_storeu_pd(o.as_mut_ptr(), f(_mm256_loadu_pd(x.as_ptr())));
        }
        if !ta.is_empty() {
            let mut buf = [1.0; 4];
            buf[..ta.len()].copy_from_slice(ta);
            _mm256_storeu_pd(buf.as_mut_ptr(), f(_mm256_loadu_pd(buf.as_ptr())));
            out[n..].copy_from_slice(&buf[..ta.len()]);
        }
    }
}

impl Map8 {
    /// `out[i] = f(a[i])`.
    ///
    /// # Panics
    /// When the lengths differ.
    pub fn map(self, a: &[f64], out: &mut [f64]) {
        assert!(
            a.len() == out.len(),
            "libmvec map: lengths {} and {}",
            a.len(),
            out.len()
        );
        // SAFETY: a `Map8` exists only where the CPU has AVX-512F (see `load`).
        unsafe { run8(self.0, a, out) }
    }
}

impl Map4 {
    /// `out[i] = f(a[i])`.
    ///
    /// # Panics
    /// When the lengths differ.
    pub fn map(self, a: &[f64], out: &mut [f64]) {
        assert!(
            a.len() == out.len(),
            "libmvec map: lengths {} and {}",
            a.len(),
            out.len()
        );
        // SAFETY: a `Map4` exists only where the CPU has AVX2 (see `load`).
        unsafe { run4(self.0, a, out) }
    }
}
