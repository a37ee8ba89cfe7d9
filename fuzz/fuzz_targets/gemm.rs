//! Small GEMMs against the naive product: random shapes, strides (negative, zero:
//! a broadcast operand, padded, either order) and offsets, alpha and beta, at every
//! tier this CPU has and on the small, packed and direct paths (blocks forced tiny
//! so a small product crosses them), on one thread or several; plus `matmul` of
//! array views sliced backwards and transposed. Values are small integers, so every
//! order of summation gives the same bits and the comparison is exact. Elements of
//! C's buffer outside the view must be left alone, and with `beta == 0` C is not
//! read (its NaNs must not leak).
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use ndsimd_kernels::available_tiers;
use ndsimd_kernels::gemm::{gemm_tuned, GemmElement, MatMut, MatRef, Tuning};
use ndsimd::{Array, SliceArg};

/// A layout of `rows x cols` in a buffer: (len, offset, rs, cs).
fn layout(
    u: &mut Unstructured,
    rows: usize,
    cols: usize,
    zero_ok: bool,
) -> Result<(usize, usize, isize, isize)> {
    let pad = u.int_in_range(0..=3usize)?;
    let (mut rs, mut cs) = if u.arbitrary::<bool>()? {
        ((cols + pad) as isize, 1)
    } else {
        (1, (rows + pad) as isize)
    };
    if zero_ok && u.ratio(1, 6)? {
        rs = 0;
    }
    if zero_ok && u.ratio(1, 6)? {
        cs = 0;
    }
    if u.ratio(1, 3)? {
        rs = -rs;
    }
    if u.ratio(1, 3)? {
        cs = -cs;
    }
    if zero_ok && u.ratio(1, 8)? {
        // Rows further apart than they are long (C keeps a layout that cannot alias).
        rs *= 2;
    }
    let reach = |n: usize, s: isize| (n.max(1) as isize - 1) * s;
    let (r, c) = (reach(rows, rs), reach(cols, cs));
    let offset = (-r.min(0) - c.min(0)) as usize + u.int_in_range(0..=2usize)?;
    let len = offset + r.max(0) as usize + c.max(0) as usize + 1 + u.int_in_range(0..=2usize)?;
    Ok((len, offset, rs, cs))
}

fn small_int(u: &mut Unstructured) -> Result<f64> {
    Ok(f64::from(u.int_in_range(-4..=4i8)?))
}

fn run_typed<T: GemmElement + From<i8> + Into<f64> + std::ops::Div<Output = T>>(
    u: &mut Unstructured,
    m: usize,
    n: usize,
    k: usize,
) -> Result<()> {
    let scal = [0.0f64, 1.0, -1.0, 2.0, 0.5];
    let alpha = scal[u.int_in_range(0..=4usize)?];
    let beta = scal[u.int_in_range(0..=4usize)?];
    let (al, ao, ars, acs) = layout(u, m, k, true)?;
    let (bl, bo, brs, bcs) = layout(u, k, n, true)?;
    let (cl, co, crs, ccs) = layout(u, m, n, false)?;
    let fill = |u: &mut Unstructured, len: usize, nan: bool| -> Result<Vec<T>> {
        (0..len)
            .map(|_| {
                Ok(if nan {
                    T::from(0) / T::from(0)
                } else {
                    T::from(u.int_in_range(-4..=4i8)?)
                })
            })
            .collect()
    };
    // Operands that must not be read are NaN, so reading them would show.
    let a = fill(u, al, alpha == 0.0)?;
    let b = fill(u, bl, alpha == 0.0)?;
    let c0 = fill(u, cl, beta == 0.0)?;
    let at = |d: &[T], o: usize, rs: isize, cs: isize, i: usize, j: usize| -> f64 {
        d[(o as isize + i as isize * rs + j as isize * cs) as usize].into()
    };
    let mut want = vec![0.0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0;
            if alpha != 0.0 {
                for p in 0..k {
                    s += at(&a, ao, ars, acs, i, p) * at(&b, bo, brs, bcs, p, j);
                }
            }
            let cij = if beta == 0.0 {
                0.0
            } else {
                beta * at(&c0, co, crs, ccs, i, j)
            };
            want[i * n + j] = alpha * s + cij;
        }
    }
    let tiny = u.arbitrary::<bool>()?;
    let tunings = [
        Tuning::default(),
        Tuning {
            small_path: Some(true),
            ..Tuning::default()
        },
        Tuning {
            small_path: Some(false),
            kc: tiny.then_some(u.int_in_range(1..=5usize)?),
            mc: tiny.then_some(u.int_in_range(1..=9usize)?),
            nc: tiny.then_some(u.int_in_range(1..=9usize)?),
            parallel_min: Some(0),
            narrow: Some(u.arbitrary::<bool>()?),
            ..Tuning::default()
        },
        Tuning {
            direct_path: Some(true),
            ..Tuning::default()
        },
    ];
    let threads = u.int_in_range(1..=3usize)?;
    let (alpha_t, beta_t) = (
        T::from((alpha * 2.0) as i8) / T::from(2),
        T::from((beta * 2.0) as i8) / T::from(2),
    );
    for tier in available_tiers() {
        for tuning in &tunings {
            let mut c = c0.clone();
            let am = MatRef::new(&a, ao, m, k, ars, acs).expect("A in bounds");
            let bm = MatRef::new(&b, bo, k, n, brs, bcs).expect("B in bounds");
            let cm = MatMut::new(&mut c, co, m, n, crs, ccs).expect("C in bounds, no overlap");
            gemm_tuned(tier, tuning, alpha_t, am, bm, beta_t, cm, threads).expect("available tier");
            let mut inside = vec![false; cl];
            for i in 0..m {
                for j in 0..n {
                    let p = (co as isize + i as isize * crs + j as isize * ccs) as usize;
                    inside[p] = true;
                    let got: f64 = c[p].into();
                    assert!(
                        got == want[i * n + j],
                        "{tier:?} {tuning:?} m={m} n={n} k={k} alpha={alpha} beta={beta} C[{i},{j}] = {got}, want {}",
                        want[i * n + j]
                    );
                }
            }
            for p in 0..cl {
                if !inside[p] {
                    let (x, y): (f64, f64) = (c[p].into(), c0[p].into());
                    assert!(
                        x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
                        "{tier:?} wrote outside C at {p}"
                    );
                }
            }
        }
    }
    Ok(())
}

/// `matmul` of views cut from row-major arrays: reversed, strided, transposed.
fn run_views(u: &mut Unstructured, m: usize, n: usize, k: usize) -> Result<()> {
    let view_of =
        |u: &mut Unstructured, r: usize, c: usize| -> Result<(Array<f64>, Vec<SliceArg>, bool)> {
            let tr = u.arbitrary::<bool>()?;
            let (sr, sc) = (u.int_in_range(1..=2usize)?, u.int_in_range(1..=2usize)?);
            let (neg_r, neg_c) = (u.arbitrary::<bool>()?, u.arbitrary::<bool>()?);
            let (br, bc) = (r * sr, c * sc);
            let (br, bc) = if tr { (bc, br) } else { (br, bc) };
            let vals: Vec<f64> = (0..br * bc).map(|_| small_int(u)).collect::<Result<_>>()?;
            let base = Array::from_shape_vec(&[br, bc], vals).expect("shape");
            let arg = |s: usize, neg: bool| SliceArg::Slice {
                start: None,
                stop: None,
                step: if neg { -(s as isize) } else { s as isize },
            };
            Ok((base, vec![arg(sr, neg_r), arg(sc, neg_c)], tr))
        };
    let (ab, aargs, atr) = view_of(u, m, k)?;
    let (bb, bargs, btr) = view_of(u, k, n)?;
    let at = if atr { ab.t() } else { ab.view() };
    let bt = if btr { bb.t() } else { bb.view() };
    let (a, b) = (
        at.slice(&aargs[..]).expect("slice"),
        bt.slice(&bargs[..]).expect("slice"),
    );
    assert_eq!((a.shape(), b.shape()), (&[m, k][..], &[k, n][..]));
    let got = a.matmul(&b).expect("shapes agree");
    assert_eq!(got.shape(), &[m, n]);
    for i in 0..m {
        for j in 0..n {
            let s: f64 = (0..k)
                .map(|p| a.get(&[i, p]).unwrap() * b.get(&[p, j]).unwrap())
                .sum();
            assert_eq!(
                got.get(&[i, j]),
                Some(&s),
                "matmul[{i},{j}] m={m} n={n} k={k}"
            );
        }
    }
    Ok(())
}

fn run(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    let big = u.ratio(1, 8)?;
    let hi = if big { 40 } else { 9 };
    let (m, n, k) = (
        u.int_in_range(0..=hi)?,
        u.int_in_range(0..=hi)?,
        u.int_in_range(0..=hi)?,
    );
    match u.int_in_range(0..=2u8)? {
        0 => run_typed::<f64>(&mut u, m, n, k),
        1 => run_typed::<f32>(&mut u, m, n, k),
        _ => run_views(&mut u, m, n, k),
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
