//! `par_rows`, `par_lanes` and `par_axis_iter` (feature `rayon`) hand out the
//! same views, in the same order, as their serial counterparts, on every layout.
#![cfg(feature = "rayon")]

use ndsimd::{s, Array};
use rayon::prelude::*;

#[test]
fn parallel_views_match_the_serial_ones_on_every_axis_and_layout() {
    let a = Array::<i64>::from_shape_vec(&[3, 4, 5], (0..60).collect()).unwrap();
    let strided = a.slice(s![..;-1, 1.., ..;2]).unwrap();
    let t = a.t();
    for v in [a.view(), strided, t] {
        for axis in -3..3isize {
            let serial: Vec<Vec<i64>> = v.lanes(axis).unwrap().map(|l| l.to_vec()).collect();
            let par: Vec<Vec<i64>> = v.par_lanes(axis).unwrap().map(|l| l.to_vec()).collect();
            assert_eq!(par, serial, "lanes({axis}) of {:?}", v.shape());
            let serial: Vec<Vec<i64>> = v.axis_iter(axis).unwrap().map(|l| l.to_vec()).collect();
            let par: Vec<Vec<i64>> = v.par_axis_iter(axis).unwrap().map(|l| l.to_vec()).collect();
            assert_eq!(par, serial, "axis_iter({axis}) of {:?}", v.shape());
        }
        let rows: Vec<i64> = v.par_rows().unwrap().map(|r| r.sum()).collect();
        assert_eq!(rows, v.sum_axis(-1, false).unwrap().to_vec());
        assert_eq!(v.par_rows().unwrap().len(), v.len() / v.shape()[2]);
    }
    // Empty arrays and bad axes.
    let e = Array::<f64>::zeros(&[0, 3]);
    assert_eq!(e.par_rows().unwrap().count(), 0);
    assert_eq!(
        e.par_lanes(0).unwrap().map(|l| l.len()).collect::<Vec<_>>(),
        vec![0; 3]
    );
    assert!(e.par_axis_iter(2).is_err());
    assert!(Array::from_elem(&[], 1.0).par_rows().is_err());
}

#[test]
fn many_rows_run_on_rayon_workers() {
    let a = Array::<f64>::arange(0.0, 4096.0 * 64.0, 1.0)
        .unwrap()
        .into_shape(&[4096, 64])
        .unwrap();
    let sums: Vec<f64> = a.par_rows().unwrap().map(|r| r.sum()).collect();
    assert_eq!(sums, a.sum_axis(1, false).unwrap().to_vec());
    let threads: std::collections::HashSet<_> = a
        .par_rows()
        .unwrap()
        .with_max_len(1)
        .map(|_| rayon::current_thread_index())
        .collect();
    assert!(threads.iter().all(|t| t.is_some()), "{threads:?}");
}
