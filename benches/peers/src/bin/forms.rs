//! ndsimd's GEMM forms against each other on one product, in one process,
//! interleaved: the default choice, and the driver's forms forced through the
//! hidden `Tuning` (the blocked form with one band per worker or the default eight,
//! the blocked form with MC 96, the narrow form, the direct path). Row-major `f64`
//! operands on the library's own allocation; every form's result is checked equal
//! to the default's, bit for bit, first. Rounds alternate the order; the ratio is
//! the paired median of (the first form's time / this form's) over 11 rounds, each
//! round one sample of the peers' timing rule per form.
//!
//!     cd benches/peers
//!     cargo run --release --bin forms -- M K N THREADS [FORM,FORM,...]
//!
//! FORM is one of `default`, `blocked`, `blocked-1band`, `blocked-mc96`,
//! `narrow`, `direct` (default list: all of them), or `api`: the default through
//! the array API (`matmul_into`, on the pool's threads: set `NDSIMD_NUM_THREADS`
//! to THREADS), what its shape checks and dispatch add; one of them with block
//! sizes (or the bands per thread) forced, as `blocked:mc=2048:kc=128:bands=2`; or
//! one of these with `-nopf` or `-pf` after it, with the kernels' prefetch of the
//! next panel forced off or on, or `-packb` or `-inb`, with the narrow form's B
//! panels always packed or always read in place when their columns run along k,
//! `-alignb` or `-rawb`, with the direct path's copy of B to line-aligned rows forced
//! on or off, or `-par`, split over the threads whatever the product's size.
//! `FORMS_B_OFFSET=N` starts B N elements into its buffer (off the cache line, as a
//! `Vec`'s or a slice's may be). `(M x K) . (K x N)`; with `FORMS_BT=1`
//! B is stored as its transpose (`N x K`, row-major: the product `a . b^T`); with
//! `FORMS_F32=1` the operands are `f32`.
use ndsimd::kernels::active_tier;
use ndsimd::{Array, Element};
use ndsimd_kernels::gemm::{gemm_tuned, GemmElement, MatMut, MatRef, Tuning};

#[path = "../timing.rs"]
mod timing;
use timing::{median, secs};

/// The suffixes that force one switch of a form (see the header).
#[allow(clippy::type_complexity)]
const SWITCHES: [(&str, fn(&mut Tuning)); 7] = [
    ("-par", |t| t.parallel_min = Some(0)),
    ("-alignb", |t| t.direct_align_b = Some(true)),
    ("-rawb", |t| t.direct_align_b = Some(false)),
    ("-inb", |t| t.b_in_place = Some(true)),
    ("-packb", |t| t.b_in_place = Some(false)),
    ("-nopf", |t| t.prefetch = Some(false)),
    ("-pf", |t| t.prefetch = Some(true)),
];

/// The form's tuning; `None` for `api`, which calls `matmul_into` instead.
fn tuning(form: &str) -> Option<Tuning> {
    (form != "api").then(|| tuning_inner(form))
}

fn tuning_inner(form: &str) -> Tuning {
    let blocked = Tuning {
        direct_path: Some(false),
        narrow: Some(false),
        ..Tuning::default()
    };
    match form {
        "default" => Tuning::default(),
        "blocked" => blocked,
        "blocked-1band" => Tuning {
            bands_per_thread: Some(1),
            ..blocked
        },
        "blocked-mc96" => Tuning {
            mc: Some(96),
            ..blocked
        },
        "narrow" => Tuning {
            direct_path: Some(false),
            narrow: Some(true),
            ..Tuning::default()
        },
        "direct" => Tuning {
            direct_path: Some(true),
            ..Tuning::default()
        },
        _ if SWITCHES.iter().any(|(s, _)| form.ends_with(s)) => {
            let (suffix, set) = SWITCHES.iter().find(|(s, _)| form.ends_with(s)).unwrap();
            let mut t = tuning_inner(form.trim_end_matches(suffix));
            set(&mut t);
            t
        }
        _ => {
            // `BASE:mc=N:kc=N:nc=N`: a named form with block sizes forced.
            let mut parts = form.split(':');
            let mut t = tuning_inner(parts.next().unwrap_or(""));
            for kv in parts {
                let (key, v) = kv.split_once('=').expect("block size as key=value");
                let v = Some(v.parse().expect("a block size"));
                match key {
                    "mc" => t.mc = v,
                    "kc" => t.kc = v,
                    "nc" => t.nc = v,
                    "bands" => t.bands_per_thread = v,
                    _ => panic!("unknown block size {key:?} in {form:?}"),
                }
            }
            assert!(form.contains(':'), "unknown form {form:?}");
            t
        }
    }
}

fn filled<T: Element>(shape: &[usize], seed: usize) -> Array<T> {
    let mut a = Array::<T>::from_elem(shape, T::zero());
    for (i, x) in a.as_slice_mut().unwrap().iter_mut().enumerate() {
        *x = T::from_f64(((i * 7 + seed) % 7) as f64 - 3.0).unwrap();
    }
    a
}

fn main() {
    if std::env::var("FORMS_F32").is_ok_and(|v| v == "1") {
        forms::<f32>();
    } else {
        forms::<f64>();
    }
}

fn forms<T: Element + GemmElement>() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize| -> usize {
        args.get(i)
            .and_then(|s| s.parse().ok())
            .expect("usage: forms M K N THREADS [FORM,FORM,...]")
    };
    let (m, k, n, threads) = (num(0), num(1), num(2), num(3));
    let forms: Vec<String> = args.get(4).map_or(
        [
            "default",
            "blocked",
            "blocked-1band",
            "blocked-mc96",
            "narrow",
            "direct",
        ]
        .map(String::from)
        .to_vec(),
        |s| s.split(',').map(String::from).collect(),
    );
    let bt = std::env::var("FORMS_BT").is_ok_and(|v| v == "1");
    // `FORMS_B_OFFSET=N`: B starts N elements into its buffer (off the cache line).
    let off: usize = std::env::var("FORMS_B_OFFSET").map_or(0, |v| v.parse().expect("an offset"));
    let (a, b) = (filled::<T>(&[m, k], 1), filled::<T>(&[k * n + off], 2));
    let mut c = Array::<T>::zeros(&[m, n]);
    // B's storage as the array API sees it: with `FORMS_BT`, an `n x k` array whose
    // transpose is B.
    let api_shape = if bt { [n, k] } else { [k, n] };
    let b_api = Array::from_shape_vec(&api_shape, b.as_slice().unwrap()[off..].to_vec()).unwrap();
    // `None`: through the array API (`matmul_into`), as a user calls it.
    let run = |t: Option<&Tuning>, c: &mut Array<T>| {
        let Some(t) = t else {
            let bv = if bt { b_api.t() } else { b_api.view() };
            return a.matmul_into(&bv, T::one(), T::zero(), c).unwrap();
        };
        let av = MatRef::new(a.as_slice().unwrap(), 0, m, k, k as isize, 1).unwrap();
        let (rs, cs) = if bt { (1, k as isize) } else { (n as isize, 1) };
        let bv = MatRef::new(b.as_slice().unwrap(), off, k, n, rs, cs).unwrap();
        let cv = MatMut::new(c.as_slice_mut().unwrap(), 0, m, n, n as isize, 1).unwrap();
        gemm_tuned(active_tier(), t, T::one(), av, bv, T::zero(), cv, threads).unwrap();
    };
    run(Some(&Tuning::default()), &mut c);
    let want = c.to_vec();
    for f in &forms {
        run(tuning(f).as_ref(), &mut c);
        assert!(
            c.to_vec()
                .iter()
                .zip(&want)
                .all(|(x, y)| x.to_f64().unwrap().to_bits() == y.to_f64().unwrap().to_bits()),
            "form {f} differs from the default"
        );
    }
    let flops = 2.0 * (m * k * n) as f64;
    let mut t = vec![Vec::new(); forms.len()];
    for round in 0..11 {
        for i in 0..forms.len() {
            let i = if round % 2 == 0 {
                i
            } else {
                forms.len() - 1 - i
            };
            let tu = tuning(&forms[i]);
            t[i].push(secs(&mut || run(tu.as_ref(), &mut c)));
        }
    }
    let layout = if bt { ", B stored transposed" } else { "" };
    println!("({m} x {k}) . ({k} x {n}){layout}, {threads} thread(s); paired median of the first form's time / this one's (min-max)");
    for (i, f) in forms.iter().enumerate() {
        let mut r: Vec<f64> = t[0].iter().zip(&t[i]).map(|(x, y)| x / y).collect();
        let (lo, hi) = (
            r.iter().cloned().fold(f64::INFINITY, f64::min),
            r.iter().cloned().fold(0.0, f64::max),
        );
        let mut s = t[i].clone();
        println!(
            "{f:<14} {:7.1} GFLOP/s  {:.2} ({lo:.2}-{hi:.2})",
            flops / median(&mut s) / 1e9,
            median(&mut r)
        );
    }
}
