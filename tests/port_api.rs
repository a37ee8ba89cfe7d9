//! Contracts of the NumPy-port surface that fixtures cannot show: which results are
//! views (no copy), visiting order of the mutable iterator on every layout, and the
//! exact error messages.

use ndsimd::{concatenate, s, stack, where_, Array, SliceArg};

fn grid(shape: &[usize]) -> Array<f64> {
    let n: usize = shape.iter().product();
    Array::from_shape_vec(shape, (0..n).map(|x| x as f64).collect()).unwrap()
}

#[test]
fn iter_mut_visits_logical_order_on_every_layout() {
    let layouts: Vec<Vec<SliceArg>> = vec![
        s![.., ..].to_vec(),
        s![..;-1, ..].to_vec(),
        s![1.., ..;-2, ..].to_vec(),
        s![..;2, 1, ..;-1].to_vec(),
        s![.., 0..0, ..].to_vec(),
    ];
    for spec in layouts {
        let mut a = grid(&[4, 5, 3]);
        let expect: Vec<f64> = a.slice(&spec).unwrap().iter().copied().collect();
        let mut seen = Vec::new();
        for x in a.slice_mut(&spec).unwrap().iter_mut() {
            seen.push(*x);
            *x = -1.0;
        }
        assert_eq!(seen, expect, "{spec:?}");
        assert!(a.slice(&spec).unwrap().iter().all(|&x| x == -1.0));
        // Only the view's elements were written.
        let written = a.iter().filter(|&&x| x == -1.0).count();
        assert_eq!(written, expect.len(), "{spec:?}");
    }
    // A transposed (permuted) mutable view too.
    let mut a = grid(&[2, 3]);
    let mut t = a.view_mut().permuted_axes(&[1, 0]).unwrap();
    let order: Vec<f64> = t.iter_mut().map(|x| *x).collect();
    assert_eq!(order, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
}

#[test]
fn views_share_memory() {
    let a = grid(&[3, 4]);
    let p = a.as_slice().unwrap().as_ptr_range();
    let inside = |x: &f64| p.contains(&(x as *const f64));
    assert!(inside(a.flip(0).unwrap().first().unwrap()));
    assert_eq!(a.flip(0).unwrap().strides(), &[-4, 1]);
    assert!(inside(a.swap_axes(0, 1).unwrap().first().unwrap()));
    let b = a.broadcast_to(&[2, 3, 4]).unwrap();
    assert_eq!(b.strides(), &[0, 4, 1]);
    assert!(std::ptr::eq(b.first().unwrap(), a.first().unwrap()));
    for part in a.split(2, 1).unwrap() {
        assert!(inside(part.first().unwrap()));
    }
    for lane in a.lanes(0).unwrap() {
        assert!(inside(lane.first().unwrap()));
    }
}

#[test]
fn error_messages_name_shapes_and_axes() {
    let a = grid(&[2, 3]);
    let msg = |r: Result<Array<f64>, ndsimd::Error>| r.unwrap_err().to_string();
    assert_eq!(
        msg(a.take(&[-4], 1)),
        "index -4 is out of bounds for axis 1 with size 3"
    );
    assert_eq!(
        msg(concatenate(&[a.view(), grid(&[2, 2]).view()], 0)),
        "all the input arrays must have the same shape except along axis 0: array 0 has shape [2, 3] and array 1 has shape [2, 2]"
    );
    assert_eq!(
        msg(stack(&[a.view(), a.t()], 0)),
        "all input arrays must have the same shape: array 0 has shape [2, 3] and array 1 has shape [3, 2]"
    );
    assert_eq!(
        msg(where_(&Array::from_elem(&[4], true), &a, 0.0)),
        "operands could not be broadcast together in where_: shapes [4], [2, 3] and []"
    );
    assert!(a
        .broadcast_to(&[3])
        .unwrap_err()
        .to_string()
        .contains("shapes [2, 3] and [3]"));
    assert_eq!(
        msg(a.mask_select(&Array::from_elem(&[3, 2], true))),
        "boolean mask of shape [3, 2] does not match the array's shape [2, 3]"
    );
    assert_eq!(
        a.split(4, -1).unwrap_err().to_string(),
        "array split does not result in an equal division: axis 1 of length 3 into 4 sections"
    );
    assert!(matches!(
        a.cumsum_axis(2),
        Err(ndsimd::Error::AxisOutOfRange { axis: 2, ndim: 2 })
    ));
}

#[test]
fn where_scalar_and_mixed_operands_broadcast() {
    let a = grid(&[2, 3]);
    let c = Array::from_shape_vec(&[3], vec![true, false, true]).unwrap();
    let r = where_(&c, 9.0, a.t().t()).unwrap();
    assert_eq!(r.to_vec(), vec![9.0, 1.0, 9.0, 9.0, 4.0, 9.0]);
    let r = where_(&c, 1.0, 0.0).unwrap();
    assert_eq!(r.to_vec(), vec![1.0, 0.0, 1.0]);
}

#[test]
fn argsort_is_stable_on_ties_nan_and_signed_zeros() {
    let a = Array::from_vec(vec![0.0, f64::NAN, -0.0, 1.0, 0.0, -f64::NAN, -1.0]);
    assert_eq!(a.argsort().into_vec(), vec![6, 0, 2, 4, 3, 1, 5]);
    let s = a.sort().to_vec();
    assert_eq!(s[1].to_bits(), 0.0f64.to_bits());
    assert_eq!(s[2].to_bits(), (-0.0f64).to_bits());
}

#[test]
fn var_is_accurate_far_from_zero() {
    // A one-pass E[x²] - E[x]² loses every digit here; the two-pass form is exact.
    let a = Array::from_vec(vec![1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0, 1e9 + 4.0]);
    assert_eq!(a.var(0), 1.25);
    assert_eq!(a.var_axis(0, 1, false).unwrap().to_vec(), vec![5.0 / 3.0]);
}

/// NumPy's stable order by comparisons: NaN last, `-0.0 == 0.0`, ties in input order.
fn reference_argsort(v: &[f64]) -> Vec<i64> {
    let mut i: Vec<usize> = (0..v.len()).collect();
    i.sort_by(|&a, &b| match (v[a].is_nan(), v[b].is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        _ => v[a].partial_cmp(&v[b]).unwrap(),
    });
    i.into_iter().map(|k| k as i64).collect()
}

#[test]
fn long_lanes_argsort_as_the_comparison_order() {
    // Long lanes take the radix path: the same order as the comparison sort,
    // on every special value, in f64 and f32, flat and along both axes.
    let special = [
        f64::NAN,
        -f64::NAN,
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        5e-324,
        -5e-324,
        f64::MAX,
        f64::MIN,
        1.0,
        -1.0,
    ];
    let mut s: u64 = 0x9E3779B97F4A7C15;
    for n in [256, 257, 1000, 100_000] {
        let v: Vec<f64> = (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                match s % 4 {
                    0 => special[(s >> 8) as usize % special.len()],
                    1 => ((s >> 8) % 16) as f64 - 8.0,
                    _ => f64::from_bits(s >> 2) * if s & 2 == 0 { 1.0 } else { -1.0 },
                }
            })
            .collect();
        let a = Array::from_vec(v.clone());
        assert_eq!(a.argsort().into_vec(), reference_argsort(&v), "f64 n={n}");
        let v32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
        let a32 = Array::from_vec(v32.clone());
        let as64: Vec<f64> = v32.iter().map(|&x| x as f64).collect();
        assert_eq!(
            a32.argsort().into_vec(),
            reference_argsort(&as64),
            "f32 n={n}"
        );
        if n % 2 == 0 {
            let m = ndsimd::ArrayView::from_slice(&v, &[2, n / 2]).unwrap();
            let by0 = m.argsort_axis(0).unwrap();
            for c in 0..n / 2 {
                let col: Vec<f64> = (0..2).map(|r| v[r * n / 2 + c]).collect();
                let want = reference_argsort(&col);
                assert_eq!(
                    [*by0.get(&[0, c]).unwrap(), *by0.get(&[1, c]).unwrap()],
                    [want[0], want[1]]
                );
            }
            let t = m.t();
            let by_row = t.argsort_axis(0).unwrap();
            for r in 0..2 {
                let row: Vec<f64> = v[r * n / 2..(r + 1) * n / 2].to_vec();
                let want = reference_argsort(&row);
                let got: Vec<i64> = (0..n / 2).map(|k| *by_row.get(&[k, r]).unwrap()).collect();
                assert_eq!(got, want, "axis 0 of the transpose, n={n}");
            }
        }
    }
}

#[test]
fn radix_argsort_skips_constant_digits_exactly() {
    // Keys that differ in one byte only (one radix pass, both first and last), in
    // the two top bytes (the sign and exponent: two passes), or not at all (no
    // pass: the input order), with NaNs of both signs and zeros of both signs.
    let one_byte: Vec<f64> = (0..3000u64)
        .map(|i| f64::from_bits(0x4000_0000_0000_0000 | ((i * 7919 % 256) << 16)))
        .collect();
    let top: Vec<f64> = (0..3000)
        .map(|i| match i % 11 {
            0 => f64::NAN,
            1 => -f64::NAN,
            2 => 0.0,
            3 => -0.0,
            k => {
                f64::from_bits(((k as u64 * 7 + i as u64) % 200) << 55)
                    * if k % 2 == 0 { 1.0 } else { -1.0 }
            }
        })
        .collect();
    let flat = vec![2.5; 3000];
    let zeros: Vec<f64> = (0..3000)
        .map(|i| if i % 3 == 0 { -0.0 } else { 0.0 })
        .collect();
    for (name, v) in [
        ("one byte", one_byte),
        ("top", top),
        ("flat", flat),
        ("zeros", zeros),
    ] {
        let got = Array::from_vec(v.clone()).argsort().into_vec();
        assert_eq!(got, reference_argsort(&v), "{name}");
    }
}
