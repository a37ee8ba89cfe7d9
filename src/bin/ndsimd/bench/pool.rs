//! The pool's rows: large ops on every thread against the ceiling loops split
//! over the pool the same way, and the speed-ups over one thread.

use super::runner::Runner;
use super::*;

/// The pool's table: large ops on every thread against the same ceiling loops
/// split over the same pool (the machine's `threads`-core bandwidth).
pub fn parallel(r: &mut Runner, threads: usize) {
    let c = ceilings();
    let anchor = format!("ceiling×{threads}");
    // How many cores' worth the threads get right now: the micro-kernel's
    // multiply-adds alone (registers only) on every thread at once, against the same
    // total on one thread. About `threads` on separate cores; near 1 when the host
    // runs the virtual CPUs on one core's two hardware threads, as cloud VMs' hosts
    // do at times (then no two-thread figure of the same run can pass ~1).
    if r.wants("fma all threads") {
        use ndsimd_kernels::gemm::fma_peak;
        let tier = ndsimd_kernels::active_tier();
        let rounds = 1 << 18;
        let (per_round, _) = fma_peak::<f64>(tier, 1, 1.0).unwrap();
        r.row(
            "fma all threads",
            threads,
            (per_round * rounds as u64) as usize * threads,
            "1 thread",
            &mut || {
                ndsimd_kernels::pool::run(threads, &|_| {
                    black_box(fma_peak::<f64>(tier, rounds, black_box(1.0)));
                })
            },
            &mut || {
                black_box(fma_peak::<f64>(tier, rounds * threads, black_box(1.0)));
            },
        );
    }
    // exp on the pool (the unary math ops split above `MATH_PAR_MIN` per piece),
    // against the same call on one thread; `--compare` sets it against NumPy's.
    for n in [1 << 18, 1 << 22] {
        if !r.wants("par exp_into") {
            break;
        }
        let a = fresh(data(n, 1));
        let mut out = Array::<f64>::zeros(&[n]);
        let mut one = Array::<f64>::zeros(&[n]);
        a.exp_into(&mut out).unwrap();
        ndsimd::with_threads(1, || a.exp_into(&mut one)).unwrap();
        same(
            out.as_slice().unwrap(),
            one.as_slice().unwrap(),
            "par exp_into",
        );
        r.row(
            "par exp_into",
            n,
            16 * n,
            "1 thread",
            &mut || a.exp_into(black_box(&mut out)).unwrap(),
            &mut || ndsimd::with_threads(1, || a.exp_into(black_box(&mut one))).unwrap(),
        );
    }
    for n in [1 << 14, 1 << 18, 1 << 22] {
        let a = fresh(data(n, 1));
        let b = fresh(data(n, 2));
        let (sa, sb) = (a.as_slice().unwrap(), b.as_slice().unwrap());
        let mut out = Array::<f64>::zeros(&[n]);
        let mut scratch = Scratch(fresh(vec![0.0f64; n]));
        if r.wants("par add_into") {
            a.add_into(&b, &mut out).unwrap();
            let want: Vec<f64> = sa.iter().zip(sb).map(|(x, y)| x + y).collect();
            same(out.as_slice().unwrap(), &want, "par add_into");
            let pieces = ndsimd_kernels::par::pieces(n, 1 << 14);
            r.row(
                "par add_into",
                n,
                24 * n,
                &anchor,
                &mut || a.add_into(&b, black_box(&mut out)).unwrap(),
                &mut || {
                    ndsimd_kernels::par::for_each_piece_mut(
                        black_box(&mut *scratch),
                        pieces,
                        8,
                        |start, piece| {
                            let e = start + piece.len();
                            (c.read2_write1_f64)(&sa[start..e], &sb[start..e], piece)
                        },
                    )
                },
            );
        }
        if r.wants("par sum") {
            let exact: f64 = sa.iter().sum();
            assert!(
                (a.sum() - exact).abs() <= n as f64 * f64::EPSILON * exact,
                "bench par sum"
            );
            let pieces = ndsimd_kernels::par::pieces(n, 1 << 14).min(64);
            let mut parts = [0u64; 64];
            r.row(
                "par sum",
                n,
                8 * n,
                &anchor,
                &mut || {
                    black_box(a.sum());
                },
                &mut || {
                    ndsimd_kernels::par::for_each_piece_mut(
                        &mut parts[..pieces],
                        pieces,
                        1,
                        |i, slot| {
                            let p0 = ndsimd_kernels::par::piece_start(n, pieces, 64, i);
                            let p1 = ndsimd_kernels::par::piece_start(n, pieces, 64, i + 1);
                            slot[0] = (c.read_f64)(&sa[p0..p1]);
                        },
                    );
                    black_box(parts.iter().fold(0, |x, y| x ^ y));
                },
            );
        }
        // The speed-up itself: the same call on one thread, interleaved.
        if r.wants("par sum vs 1T") {
            r.row(
                "par sum vs 1T",
                n,
                8 * n,
                "1 thread",
                &mut || {
                    black_box(a.sum());
                },
                &mut || {
                    black_box(ndsimd::with_threads(1, || a.sum()));
                },
            );
        }
        // What a two-way split costs beyond its work: the sum kernel over 16Ki cut in
        // two pieces on the pool, against one piece alone on this thread. 1.0 would
        // be a free hand-off with no slowdown from running side by side; the
        // speed-up over one thread is at most twice this.
        if n == 1 << 14 && threads == 2 && r.wants("pool split sum") {
            let k = <f64 as ndsimd_kernels::KernelElement>::table().sum;
            let half = n / 2;
            let split = || {
                let mut parts = [0.0f64; 2];
                // By value, as the drivers pass theirs (`pool::run_copy`).
                ndsimd_kernels::par::for_each_piece_mut(&mut parts, 2, 1, move |i, slot| {
                    slot[0] = k(&sa[i * half..(i + 1) * half]);
                });
                parts[0] + parts[1]
            };
            let exact: f64 = sa.iter().sum();
            assert!(
                (split() - exact).abs() <= n as f64 * f64::EPSILON * exact,
                "bench pool split sum"
            );
            r.row(
                "pool split sum",
                n,
                8 * n,
                "half inline",
                &mut || {
                    black_box(split());
                },
                &mut || {
                    black_box(k(black_box(&sa[..half])));
                },
            );
        }
        if r.wants("par add_assign vs 1T") {
            // In place, `acc += b`: the same pieces on the pool as `add_into`. `acc`
            // grows by `b` each call; it is checked against a plain loop first.
            let mut acc = fresh(data(n, 3));
            let mut acc1 = fresh(data(n, 3));
            let want: Vec<f64> = acc
                .as_slice()
                .unwrap()
                .iter()
                .zip(sb)
                .map(|(x, y)| x + y)
                .collect();
            acc.try_add_assign(&b).unwrap();
            same(acc.as_slice().unwrap(), &want, "par add_assign");
            r.row(
                "par add_assign vs 1T",
                n,
                24 * n,
                "1 thread",
                &mut || black_box(&mut acc).try_add_assign(&b).unwrap(),
                &mut || {
                    ndsimd::with_threads(1, || black_box(&mut acc1).try_add_assign(&b).unwrap())
                },
            );
        }
        if r.wants("par add_into vs 1T") {
            let mut out1 = Array::<f64>::zeros(&[n]);
            r.row(
                "par add_into vs 1T",
                n,
                24 * n,
                "1 thread",
                &mut || a.add_into(&b, black_box(&mut out)).unwrap(),
                &mut || ndsimd::with_threads(1, || a.add_into(&b, black_box(&mut out1)).unwrap()),
            );
        }
    }
    axes(r, threads);
    super::single::streamed(r);
}

/// Axis reductions and a row broadcast of 1024 x 1024 f64 on the pool, against
/// the read ceiling split over the pool the same way (the rows NumPy is compared
/// with in benches/pool_numpy.py).
fn axes(r: &mut Runner, threads: usize) {
    let c = ceilings();
    let anchor = format!("ceiling×{threads}");
    let (rows, cols) = (1024usize, 1024usize);
    let n = rows * cols;
    let m = fresh(data(n, 5))
        .into_shape(&[rows as isize, cols as isize])
        .unwrap();
    let sm = m.as_slice().unwrap();
    let exact = |axis: usize, j: usize| -> f64 {
        match axis {
            0 => (0..rows).map(|i| sm[i * cols + j]).sum(),
            _ => sm[j * cols..(j + 1) * cols].iter().sum(),
        }
    };
    for (name, axis) in [("par sum_axis0", 0isize), ("par sum_axis1", 1)] {
        if !r.wants(name) {
            continue;
        }
        let got = m.sum_axis(axis, false).unwrap();
        for (j, &g) in got.as_slice().unwrap().iter().enumerate() {
            let e = exact(axis as usize, j);
            assert!((g - e).abs() <= 1024.0 * f64::EPSILON * e.abs(), "{name}");
        }
        r.row(
            name,
            n,
            8 * n,
            &anchor,
            &mut || {
                black_box(m.sum_axis(axis, false).unwrap());
            },
            &mut || pool_read(&[sm], threads),
        );
    }
    if r.wants("par max_axis1") {
        let got = m.max_axis(1, false).unwrap();
        for (i, &g) in got.as_slice().unwrap().iter().enumerate() {
            let row = &sm[i * cols..(i + 1) * cols];
            assert_eq!(g, row.iter().cloned().fold(f64::MIN, f64::max), "max_axis1");
        }
        r.row(
            "par max_axis1",
            n,
            8 * n,
            &anchor,
            &mut || {
                black_box(m.max_axis(1, false).unwrap());
            },
            &mut || pool_read(&[sm], threads),
        );
    }
    if r.wants("par row broadcast into") {
        let row = fresh(data(cols, 6));
        let sr = row.as_slice().unwrap();
        let mut out = Array::<f64>::zeros(&[rows, cols]);
        m.add_into(&row, &mut out).unwrap();
        let want: Vec<f64> = (0..n).map(|i| sm[i] + sr[i % cols]).collect();
        same(out.as_slice().unwrap(), &want, "par row broadcast into");
        let mut scratch = Scratch(fresh(vec![0.0f64; n]));
        let pieces = ndsimd_kernels::par::pieces(n, 1 << 14);
        r.row(
            "par row broadcast into",
            n,
            16 * n,
            &anchor,
            &mut || m.add_into(&row, black_box(&mut out)).unwrap(),
            &mut || {
                ndsimd_kernels::par::for_each_piece_mut(
                    black_box(&mut *scratch),
                    pieces,
                    8,
                    |start, piece| (c.read1_write1_f64)(&sm[start..start + piece.len()], piece),
                )
            },
        );
    }
}
