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
    assert_eq!(
        a.broadcast_to(&[3]).unwrap_err().to_string(),
        "cannot broadcast an array of shape [2, 3] to shape [3]"
    );
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

/// Where the panic of `f` is reported (file name and line), via a panic hook.
fn panic_location(f: impl FnOnce() + std::panic::UnwindSafe) -> (String, u32) {
    use std::sync::{Arc, Mutex};
    let seen = Arc::new(Mutex::new(None));
    let s2 = Arc::clone(&seen);
    let old = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if let Some(l) = info.location() {
            *s2.lock().unwrap() = Some((l.file().to_string(), l.line()));
        }
    }));
    let r = std::panic::catch_unwind(f);
    std::panic::set_hook(old);
    assert!(r.is_err(), "no panic");
    let got = seen.lock().unwrap().take().expect("a location");
    got
}

#[test]
fn operator_and_index_panics_report_the_callers_line() {
    // `line!()` in the expansion is the invocation's line, where `$e` is too.
    macro_rules! at {
        ($e:expr) => {
            (
                Box::new(|| {
                    let _ = $e;
                }) as Box<dyn FnOnce() + std::panic::UnwindSafe>,
                line!(),
            )
        };
    }
    let (a, b) = (grid(&[2, 3]), grid(&[4]));
    let cases = vec![
        at!(&a + &b),
        at!(a.clone() * &b),
        at!(a.view() - b.clone()),
        at!(std::ops::AddAssign::add_assign(&mut a.clone(), &b)),
        at!(a.get(&[1])),
        at!(a.clone().get_mut(&[1, 1, 1]).is_some()),
    ];
    for (f, line) in cases {
        let (file, l) = panic_location(f);
        assert!(file.ends_with("port_api.rs"), "{file}:{l}");
        assert_eq!(l, line, "{file}");
    }
}
