//! OpenBLAS in this process: the library NumPy's wheel ships (`scipy-openblas`,
//! 64-bit integers, every symbol `scipy_` before and `64_` after its name), opened
//! with `dlopen`, so its products are timed interleaved with ours in one process
//! rather than in a separate Python process (a VM may run whole processes in a fast
//! or a slow phase, which a comparison across processes cannot tell from a speed
//! difference).
//!
//! Where: `NDSIMD_OPENBLAS=/path/to/libscipy_openblas64_*.so`, else the one beside
//! `python3`'s NumPy (`numpy.libs/`). Its threads: `OPENBLAS_NUM_THREADS`, read by
//! the library when it is opened (the binaries set it from their thread count when
//! it is not set).
use std::ffi::{c_char, c_int, c_void, CStr, CString};

/// `CblasRowMajor`, `CblasNoTrans`, `CblasTrans` (cblas.h; C enums, `int`).
const ROW_MAJOR: c_int = 101;
const NO_TRANS: c_int = 111;
const TRANS: c_int = 112;

type Gemm<T> = unsafe extern "C" fn(
    c_int,
    c_int,
    c_int,
    i64,
    i64,
    i64,
    T,
    *const T,
    i64,
    *const T,
    i64,
    T,
    *mut T,
    i64,
);
type Gemv<T> =
    unsafe extern "C" fn(c_int, c_int, i64, i64, T, *const T, i64, *const T, i64, T, *mut T, i64);
type Dot<T> = unsafe extern "C" fn(i64, *const T, i64, *const T, i64) -> T;

/// The entry points the benches call.
pub struct OpenBlas {
    dgemm: Gemm<f64>,
    sgemm: Gemm<f32>,
    dgemv: Gemv<f64>,
    ddot: Dot<f64>,
    /// What the library says it is (`openblas_get_config`: version, core, threads).
    pub config: String,
}

/// Element types OpenBLAS has a `gemm` for.
pub trait Blas: Copy {
    fn gemm(ob: &OpenBlas) -> Gemm<Self>;
}
impl Blas for f64 {
    fn gemm(ob: &OpenBlas) -> Gemm<f64> {
        ob.dgemm
    }
}
impl Blas for f32 {
    fn gemm(ob: &OpenBlas) -> Gemm<f32> {
        ob.sgemm
    }
}

/// The library's path: `NDSIMD_OPENBLAS`, else asked of `python3`.
fn find() -> Option<String> {
    if let Ok(p) = std::env::var("NDSIMD_OPENBLAS") {
        return Some(p);
    }
    let script = "import glob, os, numpy; \
        d = os.path.join(os.path.dirname(os.path.dirname(numpy.__file__)), 'numpy.libs'); \
        print((sorted(glob.glob(os.path.join(d, 'libscipy_openblas64_*.so'))) or [''])[0])";
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .output()
        .ok()?;
    let p = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!p.is_empty()).then_some(p)
}

impl OpenBlas {
    /// Opens the library with `threads` threads (unless `OPENBLAS_NUM_THREADS` is
    /// set); `None`, with a note on stderr, when it is not found or lacks a symbol.
    pub fn open(threads: usize) -> Option<OpenBlas> {
        let Some(path) = find() else {
            eprintln!("OpenBLAS: not found (set NDSIMD_OPENBLAS or install numpy): no column");
            return None;
        };
        if std::env::var_os("OPENBLAS_NUM_THREADS").is_none() {
            std::env::set_var("OPENBLAS_NUM_THREADS", threads.to_string());
        }
        let cpath = CString::new(path.clone()).ok()?;
        // SAFETY: dlopen with a NUL-terminated path; the library's initialisers are
        // OpenBLAS's own (it is what NumPy loads).
        let lib = unsafe { libc::dlopen(cpath.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if lib.is_null() {
            eprintln!("OpenBLAS: cannot open {path}: no column");
            return None;
        }
        let sym = |name: &str| -> Option<*mut c_void> {
            let c = CString::new(format!("scipy_{name}64_")).ok()?;
            // SAFETY: a symbol lookup in the handle just opened (never closed).
            let p = unsafe { libc::dlsym(lib, c.as_ptr()) };
            if p.is_null() {
                eprintln!("OpenBLAS: {path} has no scipy_{name}64_: no column");
            }
            (!p.is_null()).then_some(p)
        };
        // SAFETY (each transmute): the symbols are the CBLAS functions of the
        // 64-bit-integer build, whose C prototypes these types spell out.
        let ob = unsafe {
            let config: unsafe extern "C" fn() -> *const c_char =
                std::mem::transmute(sym("openblas_get_config")?);
            OpenBlas {
                dgemm: std::mem::transmute::<*mut c_void, Gemm<f64>>(sym("cblas_dgemm")?),
                sgemm: std::mem::transmute::<*mut c_void, Gemm<f32>>(sym("cblas_sgemm")?),
                dgemv: std::mem::transmute::<*mut c_void, Gemv<f64>>(sym("cblas_dgemv")?),
                ddot: std::mem::transmute::<*mut c_void, Dot<f64>>(sym("cblas_ddot")?),
                config: CStr::from_ptr(config()).to_string_lossy().into_owned(),
            }
        };
        Some(ob)
    }

    /// `c = a · b` for row-major `a` (m x k), `b` (k x n, or its transpose n x k
    /// with `bt`), `c` (m x n), contiguous.
    pub fn gemm<T: Blas + num_traits::One + num_traits::Zero>(
        &self,
        (m, k, n): (usize, usize, usize),
        a: &[T],
        b: &[T],
        bt: bool,
        c: &mut [T],
    ) {
        assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
        let (m, k, n) = (m as i64, k as i64, n as i64);
        // SAFETY: the slices hold the row-major matrices the leading dimensions
        // describe (checked above).
        unsafe {
            T::gemm(self)(
                ROW_MAJOR,
                NO_TRANS,
                if bt { TRANS } else { NO_TRANS },
                m,
                n,
                k,
                T::one(),
                a.as_ptr(),
                k.max(1),
                b.as_ptr(),
                if bt { k.max(1) } else { n.max(1) },
                T::zero(),
                c.as_mut_ptr(),
                n.max(1),
            )
        }
    }

    /// `y = a · x` for a row-major `m x n` `a`.
    pub fn dgemv(&self, (m, n): (usize, usize), a: &[f64], x: &[f64], y: &mut [f64]) {
        assert!(a.len() >= m * n && x.len() >= n && y.len() >= m);
        // SAFETY: as in `gemm`, for a matrix and two vectors of those lengths.
        unsafe {
            (self.dgemv)(
                ROW_MAJOR,
                NO_TRANS,
                m as i64,
                n as i64,
                1.0,
                a.as_ptr(),
                (n as i64).max(1),
                x.as_ptr(),
                1,
                0.0,
                y.as_mut_ptr(),
                1,
            )
        }
    }

    /// `x · y`.
    pub fn ddot(&self, x: &[f64], y: &[f64]) -> f64 {
        assert_eq!(x.len(), y.len());
        // SAFETY: two vectors of that length, unit stride.
        unsafe { (self.ddot)(x.len() as i64, x.as_ptr(), 1, y.as_ptr(), 1) }
    }
}
