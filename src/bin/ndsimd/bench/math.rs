//! The transcendental rows: `exp`, `log`, `sin` and `cos` into a preallocated output, one
//! thread, against the same values by a plain loop of Rust's `f64::exp` (the C
//! library's scalar routine), in the same run. `--compare` sets them against
//! NumPy's (SVML's AVX-512 routines where NumPy has them). `softmax 1024x1024`
//! (axis 1, `f64`) against a per-row loop of max, `f64::exp`, sum and divide, and
//! under `--compare` against NumPy's
//! `e = np.exp(x - x.max(1, keepdims=True)); e / e.sum(1, keepdims=True)`.
//! `expm1`, `log1p` and `tanh` into a preallocated output (`f64` at both sizes,
//! `f32` at 4Mi) against Rust's `exp_m1`, `ln_1p` and `tanh` loops, and under
//! `--compare` NumPy's `np.expm1`, `np.log1p`, `np.tanh`. `exp_into vs libmvec`,
//! `log_into vs libmvec`: against glibc's vector routines in the same process
//! (x86-64 Linux, where `libmvec.so.1` and the CPU features are present).

use super::runner::Runner;
use super::*;

/// Element counts of the `f64` rows (in L1/L2 and in L2/L3) and of the `f32` row.
const F64_SIZES: [usize; 2] = [1 << 14, 1 << 18];
const F32_SIZE: usize = 1 << 22;

/// Within `ulps` units in the last place of `want` (the tiers need not agree
/// bit for bit with the C library: each is within 1 ULP of the exact value).
fn close(got: &[f64], want: &[f64], eps: f64, what: &str) {
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 2.0 * eps * w.abs() || g == w,
            "bench {what}: wrong result at {i}: {g:?} vs {w:?}"
        );
    }
}

pub fn math(r: &mut Runner) {
    let ops: [Un<f64>; 5] = [
        ("exp_into", f64::exp),
        ("log_into", f64::ln),
        ("log10_into", f64::log10),
        ("sin_into", f64::sin),
        ("cos_into", f64::cos),
    ];
    unary_rows(r, &F64_SIZES, &ops, |name, a, out| match name {
        "exp_into" => a.exp_into(out),
        "sin_into" => a.sin_into(out),
        "cos_into" => a.cos_into(out),
        "log10_into" => a.log10_into(out),
        _ => a.log_into(out),
    });
    libmvec_rows(r);
    let ops: [Un<f32>; 4] = [
        ("f32 exp_into", f32::exp),
        ("f32 log_into", f32::ln),
        ("f32 sin_into", f32::sin),
        ("f32 cos_into", f32::cos),
    ];
    unary_rows(r, &[F32_SIZE], &ops, |name, a, out| match name {
        "f32 exp_into" => a.exp_into(out),
        "f32 sin_into" => a.sin_into(out),
        "f32 cos_into" => a.cos_into(out),
        _ => a.log_into(out),
    });
    pow(r);
    softmax(r);
    near_zero_family(r);
}

/// A row's name and its anchor: the C library's scalar routine.
type Un<T> = (&'static str, fn(T) -> T);

/// The rows of unary maps into a preallocated output, one thread, at each of
/// `sizes` elements: `call(name, a, out)` for each `(name, f)` of `ops` against a
/// plain loop of `f` (the results checked against the loop's first, within 2 ε).
fn unary_rows<T, E>(
    r: &mut Runner,
    sizes: &[usize],
    ops: &[Un<T>],
    call: impl Fn(&str, &Array<T>, &mut Array<T>) -> Result<(), E>,
) where
    T: ndsimd::DType + num_traits::Float,
    E: std::fmt::Debug,
{
    let wide = |x: T| x.to_f64().unwrap();
    for &n in sizes {
        let a: Array<T> = fresh(
            data(n, 1)
                .into_iter()
                .map(|x| T::from(x).unwrap())
                .collect(),
        );
        let sa = a.as_slice().unwrap();
        let mut out = Array::<T>::zeros(&[n]);
        let mut scratch = Scratch(fresh(vec![T::zero(); n]));
        for &(name, f) in ops {
            if !r.wants(name) {
                continue;
            }
            call(name, &a, &mut out).unwrap();
            let got: Vec<f64> = out.iter().map(|&x| wide(x)).collect();
            let want: Vec<f64> = sa.iter().map(|&x| wide(f(x))).collect();
            close(&got, &want, wide(T::epsilon()), name);
            r.row(
                name,
                n,
                2 * size_of::<T>() * n,
                "std loop",
                &mut || call(name, &a, black_box(&mut out)).unwrap(),
                &mut || {
                    for (o, &x) in scratch.iter_mut().zip(sa) {
                        *o = f(x);
                    }
                    black_box(&mut *scratch);
                },
            );
        }
    }
}

/// `pow_into` (array to array) and `powf_into` (scalar exponent 2.5) of `f64` at
/// the f64 sizes, against a loop of `f64::powf`.
fn pow(r: &mut Runner) {
    for &n in &F64_SIZES {
        let a = fresh(data(n, 1));
        let b = fresh(data(n, 2));
        let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
        let mut out = Array::<f64>::zeros(&[n]);
        let mut scratch = Scratch(fresh(vec![0.0f64; n]));
        for name in ["pow_into", "powf_into"] {
            if !r.wants(name) {
                continue;
            }
            let scalar = name == "powf_into";
            let run = |out: &mut Array<f64>| {
                if scalar {
                    a.powf_into(2.5, out)
                } else {
                    a.pow_into(&b, out)
                }
            };
            run(&mut out).unwrap();
            let want: Vec<f64> = sa
                .iter()
                .zip(sb)
                .map(|(&x, &y)| x.powf(if scalar { 2.5 } else { y }))
                .collect();
            close(out.as_slice().unwrap(), &want, f64::EPSILON, name);
            r.row(
                name,
                n,
                if scalar { 16 * n } else { 24 * n },
                "std loop",
                &mut || run(black_box(&mut out)).unwrap(),
                &mut || {
                    for ((o, &x), &y) in scratch.iter_mut().zip(sa).zip(sb) {
                        *o = x.powf(if scalar { 2.5 } else { y });
                    }
                    black_box(&mut *scratch);
                },
            );
        }
    }
}

/// The side of the `softmax` row's square matrix.
const SOFTMAX_SIDE: usize = 1024;

fn softmax(r: &mut Runner) {
    let name = "softmax 1024x1024";
    if !r.wants(name) {
        return;
    }
    let (side, n) = (SOFTMAX_SIDE, SOFTMAX_SIDE * SOFTMAX_SIDE);
    let a = fresh_shaped(&[side, side], data(n, 1));
    let sa = a.as_slice().unwrap();
    let mut scratch = Scratch(fresh(vec![0.0f64; n]));
    let naive = |out: &mut [f64]| {
        for (row, o) in sa.chunks_exact(side).zip(out.chunks_exact_mut(side)) {
            let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let mut s = 0.0;
            for (o, &x) in o.iter_mut().zip(row) {
                *o = (x - m).exp();
                s += *o;
            }
            for o in o.iter_mut() {
                *o /= s;
            }
        }
    };
    naive(&mut scratch);
    let got = a.softmax(1).unwrap();
    // The loop sums in order (error up to side·ε), ours pairwise.
    close(
        got.as_slice().unwrap(),
        &scratch,
        side as f64 * f64::EPSILON,
        name,
    );
    r.row(
        name,
        n,
        16 * n,
        "std loop",
        &mut || drop(black_box(a.softmax(1).unwrap())),
        &mut || {
            naive(&mut scratch);
            black_box(&mut *scratch);
        },
    );
}

/// The rows of `expm1`, `log1p` and `tanh` (see the module doc).
fn near_zero_family(r: &mut Runner) {
    let ops: [Un<f64>; 3] = [
        ("expm1_into", f64::exp_m1),
        ("log1p_into", f64::ln_1p),
        ("tanh_into", f64::tanh),
    ];
    unary_rows(r, &F64_SIZES, &ops, |name, a, out| match name {
        "expm1_into" => a.expm1_into(out),
        "log1p_into" => a.log1p_into(out),
        _ => a.tanh_into(out),
    });
    let ops: [Un<f32>; 3] = [
        ("f32 expm1_into", f32::exp_m1),
        ("f32 log1p_into", f32::ln_1p),
        ("f32 tanh_into", f32::tanh),
    ];
    unary_rows(r, &[F32_SIZE], &ops, |name, a, out| match name {
        "f32 expm1_into" => a.expm1_into(out),
        "f32 log1p_into" => a.log1p_into(out),
        _ => a.tanh_into(out),
    });
}

/// Ours against glibc's vector library (`libmvec.so.1`, loaded at run time) in the
/// same process, interleaved: `exp_into`/`log_into` against `_ZGVeN8v_exp` and
/// `_ZGVeN8v_log` (AVX-512) and `_ZGVdN4v_exp` (AVX2), where the CPU has them.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn libmvec_rows(r: &mut Runner) {
    let Some(m) = ndsimd_kernels::libmvec::get() else {
        return;
    };
    type Peer = (
        &'static str,
        &'static str,
        Option<ndsimd_kernels::libmvec::Map8>,
    );
    let wide: [Peer; 2] = [
        ("exp_into vs libmvec", "libmvec avx512", m.exp8),
        ("log_into vs libmvec", "libmvec avx512", m.log8),
    ];
    for &n in &F64_SIZES {
        let a = fresh(data(n, 1));
        let sa = a.as_slice().unwrap();
        let mut out = Array::<f64>::zeros(&[n]);
        let mut theirs = Scratch(fresh(vec![0.0f64; n]));
        let run = |name: &str, out: &mut Array<f64>| {
            if name.starts_with("exp") {
                a.exp_into(out)
            } else {
                a.log_into(out)
            }
        };
        for (name, anchor, f) in wide {
            let Some(f) = f else { continue };
            if !r.wants(name) {
                continue;
            }
            run(name, &mut out).unwrap();
            f.map(sa, &mut theirs);
            // libmvec is within 4 ULP, ours 1: both near the same values.
            close(out.as_slice().unwrap(), &theirs, 4.0 * f64::EPSILON, name);
            r.row(
                name,
                n,
                16 * n,
                anchor,
                &mut || run(name, black_box(&mut out)).unwrap(),
                &mut || f.map(sa, black_box(&mut *theirs)),
            );
        }
        let name = "exp_into vs libmvec avx2";
        if let (Some(f), true) = (m.exp4, r.wants(name)) {
            a.exp_into(&mut out).unwrap();
            f.map(sa, &mut theirs);
            close(out.as_slice().unwrap(), &theirs, 4.0 * f64::EPSILON, name);
            r.row(
                name,
                n,
                16 * n,
                "libmvec avx2",
                &mut || a.exp_into(black_box(&mut out)).unwrap(),
                &mut || f.map(sa, black_box(&mut *theirs)),
            );
        }
    }
}

/// No libmvec peer off x86-64 Linux.
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn libmvec_rows(_: &mut Runner) {}
