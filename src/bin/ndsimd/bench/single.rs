//! The one-thread rows: elementwise ops and reductions against the ceiling loops,
//! the allocating forms against `iter().map().collect()`, and the maintainers' rows.

use super::runner::Runner;
use super::*;
use ndsimd::s;

pub fn single(r: &mut Runner) {
    let c = ceilings();
    type Bin = (&'static str, fn(f64, f64) -> f64);
    let bins: [Bin; 5] = [
        ("add", |x, y| x + y),
        ("sub", |x, y| x - y),
        ("mul", |x, y| x * y),
        ("div", |x, y| x / y),
        ("maximum", |x, y| if x.is_nan() || x > y { x } else { y }),
    ];
    type Un = (&'static str, fn(f64) -> f64);
    let uns: [Un; 3] = [
        ("neg", |x| -x),
        ("abs", |x| x.abs()),
        ("sqrt", |x| x.sqrt()),
    ];
    for &n in &SIZES {
        let a = fresh(data(n, 1));
        let b = fresh(data(n, 2));
        let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
        let mut out = Array::<f64>::zeros(&[n]);
        let mut scratch = Scratch(fresh(vec![0.0f64; n]));
        for (name, f) in bins {
            let want: Vec<f64> = sa.iter().zip(sb).map(|(&x, &y)| f(x, y)).collect();
            let run_into = |out: &mut Array<f64>| match name {
                "add" => a.add_into(&b, out),
                "sub" => a.sub_into(&b, out),
                "mul" => a.mul_into(&b, out),
                "div" => a.div_into(&b, out),
                _ => a.maximum_into(&b, out),
            };
            let run = || match name {
                "add" => a.add(&b),
                "sub" => a.sub(&b),
                "mul" => a.mul(&b),
                "div" => a.div(&b),
                _ => a.maximum(&b),
            };
            let into = format!("{name}_into");
            if r.wants(&into) {
                run_into(&mut out).unwrap();
                same(out.as_slice().unwrap(), &want, &into);
                r.row(
                    &into,
                    n,
                    24 * n,
                    "ceiling",
                    &mut || run_into(black_box(&mut out)).unwrap(),
                    &mut || (c.read2_write1_f64)(sa, sb, black_box(&mut *scratch)),
                );
            }
            if r.wants(name) && name != "maximum" {
                same(run().unwrap().as_slice().unwrap(), &want, name);
                r.row(
                    name,
                    n,
                    24 * n,
                    "collect",
                    &mut || drop(black_box(run().unwrap())),
                    &mut || {
                        let v: Vec<f64> = sa.iter().zip(sb).map(|(&x, &y)| f(x, y)).collect();
                        drop(black_box(v));
                    },
                );
            }
        }
        for (name, f) in uns {
            let into = format!("{name}_into");
            if !r.wants(&into) {
                continue;
            }
            let want: Vec<f64> = sa.iter().map(|&x| f(x)).collect();
            let run_into = |out: &mut Array<f64>| match name {
                "neg" => a.neg_into(out),
                "abs" => a.abs_into(out),
                _ => a.sqrt_into(out),
            };
            run_into(&mut out).unwrap();
            same(out.as_slice().unwrap(), &want, &into);
            r.row(
                &into,
                n,
                16 * n,
                "ceiling",
                &mut || run_into(black_box(&mut out)).unwrap(),
                &mut || (c.read1_write1_f64)(sa, black_box(&mut *scratch)),
            );
        }
        if r.wants("sqrt") {
            let want: Vec<f64> = sa.iter().map(|x| x.sqrt()).collect();
            same(a.sqrt().as_slice().unwrap(), &want, "sqrt");
            r.row(
                "sqrt",
                n,
                16 * n,
                "collect",
                &mut || drop(black_box(a.sqrt())),
                &mut || drop(black_box(sa.iter().map(|x| x.sqrt()).collect::<Vec<f64>>())),
            );
        }
        // Reductions against the read ceiling.
        let (mx, mn) = (
            sa.iter().cloned().fold(f64::MIN, f64::max),
            sa.iter().cloned().fold(f64::MAX, f64::min),
        );
        let reductions: [Reduction; 4] = [
            ("sum", Box::new(|| a.sum()), f64::NAN),
            ("max", Box::new(|| a.max().unwrap()), mx),
            ("min", Box::new(|| a.min().unwrap()), mn),
            (
                "argmax",
                Box::new(|| a.argmax().unwrap() as f64),
                sa.iter().position(|&x| x == mx).unwrap() as f64,
            ),
        ];
        for (name, f, want) in reductions {
            if !r.wants(name) {
                continue;
            }
            let got = f();
            if name == "sum" {
                let exact: f64 = sa.iter().sum();
                assert!(
                    (got - exact).abs() <= n as f64 * f64::EPSILON * exact.abs(),
                    "bench sum: {got} vs {exact}"
                );
            } else {
                assert_eq!(got, want, "bench {name}");
            }
            r.row(
                name,
                n,
                8 * n,
                "ceiling",
                &mut || {
                    black_box(f());
                },
                &mut || {
                    black_box((c.read_f64)(black_box(sa)));
                },
            );
        }
    }
    // f32: element rate against f64 at 1Ki, and the 4Mi rows of the op set.
    for n in [1 << 10, 1 << 22] {
        let a32: Array<f32> = fresh(data(n, 3).iter().map(|&x| x as f32).collect());
        let b32: Array<f32> = fresh(data(n, 4).iter().map(|&x| x as f32).collect());
        let (sa, sb) = (a32.as_slice().unwrap(), b32.as_slice().unwrap());
        let mut out = Array::<f32>::zeros(&[n]);
        let mut scratch = Scratch(fresh(vec![0.0f32; n]));
        if r.wants("f32 add_into") {
            a32.add_into(&b32, &mut out).unwrap();
            let want: Vec<f32> = sa.iter().zip(sb).map(|(x, y)| x + y).collect();
            same(out.as_slice().unwrap(), &want, "f32 add_into");
            r.row(
                "f32 add_into",
                n,
                12 * n,
                "ceiling",
                &mut || a32.add_into(&b32, black_box(&mut out)).unwrap(),
                &mut || (c.read2_write1_f32)(sa, sb, black_box(&mut *scratch)),
            );
        }
        if r.wants("f32 sqrt_into") {
            a32.sqrt_into(&mut out).unwrap();
            let want: Vec<f32> = sa.iter().map(|x| x.sqrt()).collect();
            same(out.as_slice().unwrap(), &want, "f32 sqrt_into");
            r.row(
                "f32 sqrt_into",
                n,
                8 * n,
                "ceiling",
                &mut || a32.sqrt_into(black_box(&mut out)).unwrap(),
                &mut || (c.read1_write1_f32)(sa, black_box(&mut *scratch)),
            );
        }
        if r.wants("f32 sum") {
            let exact: f64 = sa.iter().map(|&x| x as f64).sum();
            assert!((a32.sum() as f64 - exact).abs() <= n as f64 * f32::EPSILON as f64 * exact);
            r.row(
                "f32 sum",
                n,
                4 * n,
                "ceiling",
                &mut || {
                    black_box(a32.sum());
                },
                &mut || {
                    black_box((c.read_f32)(black_box(sa)));
                },
            );
        }
    }
    // dot 2^20 and the 1024x1024 row broadcast.
    let n = 1 << 20;
    if r.wants("dot") {
        let (a, b) = (fresh(data(n, 7)), fresh(data(n, 8)));
        let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
        let exact: f64 = sa.iter().zip(sb).map(|(x, y)| x * y).sum();
        assert!((a.vdot(&b).unwrap() - exact).abs() <= n as f64 * f64::EPSILON * exact);
        r.row(
            "dot",
            n,
            16 * n,
            "ceiling",
            &mut || {
                black_box(a.vdot(&b).unwrap());
            },
            &mut || {
                black_box((c.read_f64)(black_box(sa)) ^ (c.read_f64)(black_box(sb)));
            },
        );
    }
    if r.wants("row broadcast") {
        let (rows, cols) = (1024, 1024);
        let m = fresh(data(rows * cols, 5))
            .into_shape(&[rows as isize, cols as isize])
            .unwrap();
        let row = fresh(data(cols, 6));
        let mut out = Array::<f64>::zeros(&[rows, cols]);
        m.add_into(&row, &mut out).unwrap();
        let (sm, sr) = (m.as_slice().unwrap(), row.as_slice().unwrap());
        let want: Vec<f64> = (0..rows * cols).map(|i| sm[i] + sr[i % cols]).collect();
        same(out.as_slice().unwrap(), &want, "row broadcast");
        let mut scratch = Scratch(fresh(vec![0.0f64; rows * cols]));
        r.row(
            "row broadcast into",
            rows * cols,
            16 * rows * cols,
            "ceiling",
            &mut || m.add_into(&row, black_box(&mut out)).unwrap(),
            &mut || (c.read1_write1_f64)(sm, black_box(&mut *scratch)),
        );
        // The allocating form, against the same op into a preallocated output.
        same(
            m.add(&row).unwrap().as_slice().unwrap(),
            &want,
            "row broadcast",
        );
        r.row(
            "row broadcast",
            rows * cols,
            16 * rows * cols,
            "into",
            &mut || {
                black_box(m.add(&row).unwrap());
            },
            &mut || m.add_into(&row, black_box(&mut out)).unwrap(),
        );
    }
    // What starting every allocated array on a cache line buys: the same calls on
    // arrays whose first element is 16 bytes past a line (where malloc, and so
    // NumPy, often puts a buffer), interleaved.
    for &n in &SIZES[..3] {
        let (a, b) = (fresh(data(n, 1)), fresh(data(n, 2)));
        let mut out = Array::<f64>::zeros(&[n]);
        let (a2, b2) = (fresh(data(n + 2, 1)), fresh(data(n + 2, 2)));
        let mut out2 = Array::<f64>::zeros(&[n + 2]);
        let (a16, b16) = (a2.slice(s![2..]).unwrap(), b2.slice(s![2..]).unwrap());
        let mut out16 = out2.slice_mut(s![2..]).unwrap();
        let line = |x: &[f64]| x.as_ptr() as usize % 64;
        assert_eq!(
            (line(a.as_slice().unwrap()), line(a16.as_slice().unwrap())),
            (0, 16),
            "bench alignment"
        );
        let exact = |x: &[f64]| x.iter().sum::<f64>();
        for (got, x) in [(a.sum(), &a.view()), (a16.sum(), &a16)] {
            let x = x.as_slice().unwrap();
            assert!(
                (got - exact(x)).abs() <= 1e-12 * exact(x),
                "bench aligned sum"
            );
        }
        if r.wants("sum aligned") {
            r.row(
                "sum aligned",
                n,
                8 * n,
                "+16 B",
                &mut || {
                    black_box(black_box(&a).sum());
                },
                &mut || {
                    black_box(black_box(&a16).sum());
                },
            );
        }
        a16.add_into(&b16, &mut out16).unwrap();
        a.add_into(&b, &mut out).unwrap();
        let sum2 = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(p, q)| p + q).collect::<Vec<_>>();
        same(
            out.as_slice().unwrap(),
            &sum2(a.as_slice().unwrap(), b.as_slice().unwrap()),
            "aligned add",
        );
        same(
            out16.as_slice().unwrap(),
            &sum2(a16.as_slice().unwrap(), b16.as_slice().unwrap()),
            "+16 B add",
        );
        if r.wants("add_into aligned") {
            r.row(
                "add_into aligned",
                n,
                24 * n,
                "+16 B",
                &mut || a.add_into(&b, black_box(&mut out)).unwrap(),
                &mut || a16.add_into(&b16, black_box(&mut out16)).unwrap(),
            );
        }
    }
    streamed(r);
}

/// Streaming stores (`ndsimd_kernels::stream`) against plain ones: `add_into` with
/// every output streamed, against the same call with streaming off, at sizes around
/// the default threshold (`stream_min`, printed with the rows). The threshold is
/// restored after each row.
pub fn streamed(r: &mut Runner) {
    use ndsimd_kernels::stream::{set_stream_min, stream_min};
    let default = stream_min();
    for n in [1 << 20, 1 << 21, 1 << 22, 1 << 23] {
        if !r.wants("add_into streamed") {
            return;
        }
        let (a, b) = (fresh(data(n, 1)), fresh(data(n, 2)));
        let mut out = Array::<f64>::zeros(&[n]);
        set_stream_min(1);
        a.add_into(&b, &mut out).unwrap();
        set_stream_min(default);
        let want: Vec<f64> = a.iter().zip(b.iter()).map(|(x, y)| x + y).collect();
        same(out.as_slice().unwrap(), &want, "streamed add_into");
        let mut out2 = Array::<f64>::zeros(&[n]);
        r.row(
            &format!("add_into streamed (default from {} KiB)", default >> 10),
            n,
            24 * n,
            "plain stores",
            &mut || {
                set_stream_min(1);
                a.add_into(&b, black_box(&mut out)).unwrap();
            },
            &mut || {
                set_stream_min(usize::MAX);
                a.add_into(&b, black_box(&mut out2)).unwrap();
            },
        );
        set_stream_min(default);
    }
}
/// A reduction row: name, the call, and the exact answer (NaN: check a bound).
type Reduction<'a> = (&'static str, Box<dyn Fn() -> f64 + 'a>, f64);
