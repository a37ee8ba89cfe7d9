//! The array API's contracts: constructors, introspection, views sharing data,
//! and bad input answered by an `Error` (never a panic, never a wrong shape).

mod common;

use common::Rng;
use ndsimd::{s, Array, Error, NewAxis, SliceArg};

#[test]
fn constructors() {
    let a = Array::<f64>::arange(1.0, 2.0, 0.3).unwrap();
    assert_eq!(a.to_vec(), vec![1.0, 1.3, 1.6, 1.9000000000000001]);
    assert_eq!(
        Array::<f64>::arange(5.0, 1.0, -2.0).unwrap().to_vec(),
        vec![5.0, 3.0]
    );
    assert_eq!(Array::<f64>::arange(0.0, -1.0, 1.0).unwrap().len(), 0);
    assert!(matches!(
        Array::<f64>::arange(0.0, f64::INFINITY, 1.0),
        Err(Error::InvalidArgument(_))
    ));
    assert!(Array::<f64>::arange(0.0, f64::NAN, 1.0).is_err());
    assert_eq!(Array::<f64>::linspace(1.0, 2.0, 0).len(), 0);
    assert_eq!(Array::<f64>::linspace(1.0, 2.0, 1).to_vec(), vec![1.0]);
    assert_eq!(
        Array::<f32>::linspace(0.0, 1.0, 3).to_vec(),
        vec![0.0, 0.5, 1.0]
    );
    // Bit-for-bit NumPy 2.4: np.arange(0, 1, 0.1), np.linspace(0, 1, 7).
    let np_arange = [
        0.0,
        0.1,
        0.2,
        0.30000000000000004,
        0.4,
        0.5,
        0.6000000000000001,
        0.7000000000000001,
        0.8,
        0.9,
    ];
    assert_eq!(
        Array::<f64>::arange(0.0, 1.0, 0.1).unwrap().to_vec(),
        np_arange
    );
    let np_linspace = [
        0.0,
        0.16666666666666666,
        0.3333333333333333,
        0.5,
        0.6666666666666666,
        0.8333333333333333,
        1.0,
    ];
    assert_eq!(Array::<f64>::linspace(0.0, 1.0, 7).to_vec(), np_linspace);
    assert_eq!(
        Array::<f64>::eye(3, 2, -1).to_vec(),
        vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(Array::<f64>::identity(3).get(&[2, 2]), Some(&1.0));
    assert_eq!(Array::<f64>::full(&[], 4.0).to_vec(), vec![4.0]);
    let z = Array::<f64>::zeros(&[0, 3]);
    assert_eq!((z.len(), z.ndim(), z.is_standard_layout()), (0, 2, true));
    let e = Array::from_shape_vec(&[2, 3], vec![0.0; 5]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape [2, 3] needs 6 elements but 5 were given"
    );
    let deep = vec![1usize; 65];
    assert!(Array::<f64>::from_shape_vec(&deep, vec![0.0]).is_err());
    let eight = Array::<f64>::ones(&[1, 2, 1, 2, 1, 2, 1, 2]);
    assert_eq!((eight.ndim(), eight.len()), (8, 16));
    assert_eq!((&eight + &eight).iter().sum::<f64>(), 32.0);
}

#[test]
fn views_share_data_and_get_is_checked() {
    let mut a = Array::<f64>::arange(0.0, 24.0, 1.0)
        .unwrap()
        .into_shape(&[2, 3, 4])
        .unwrap();
    {
        let mut v = a.slice_mut(s![1, ..;-1, 1..;2]).unwrap();
        assert_eq!(v.shape(), &[3, 2]);
        assert_eq!(v.strides(), &[-4, 2]);
        *v.get_mut(&[0, 0]).unwrap() = -1.0;
        assert!(v.get_mut(&[3, 0]).is_none());
    }
    assert_eq!(a.get(&[1, 2, 1]), Some(&-1.0));
    // An index with the wrong number of entries is a caller's bug: a panic naming
    // both, at the caller's line; `try_get` reports it as an error.
    let wrong = std::panic::catch_unwind(|| a.get(&[1, 2])).unwrap_err();
    assert_eq!(
        wrong.downcast_ref::<String>().map(String::as_str),
        Some("index [1, 2] has 2 entries but the array of shape [2, 3, 4] has 3 axes")
    );
    assert!(a.try_get(&[1, 2]).is_err());
    assert_eq!(
        a.try_get(&[2, 0, 0]).unwrap_err().to_string(),
        "index [2, 0, 0] is out of bounds for an array of shape [2, 3, 4]"
    );
    let t = a.t();
    assert_eq!(t.shape(), &[4, 3, 2]);
    assert_eq!(t.get(&[1, 2, 1]), Some(&-1.0));
    let p = a.permute_axes(&[1, 2, 0]).unwrap();
    assert_eq!(p.get(&[2, 1, 1]), Some(&-1.0));
    let n = a.slice(s![NewAxis, .., -1, NewAxis, 0]).unwrap();
    assert_eq!(n.shape(), &[1, 2, 1]);
    assert_eq!(n.to_vec(), vec![8.0, 20.0]);
    let sq = n.squeeze();
    assert_eq!(sq.shape(), &[2]);
    assert_eq!(n.insert_axis(-1).unwrap().shape(), &[1, 2, 1, 1]);
    let r = a.ravel();
    assert!(r.is_view());
    let f = a.t().flatten();
    assert_eq!(f.get(&[1]), Some(&12.0));
}

#[test]
fn each_error_kind_names_what_went_wrong() {
    let a = Array::<f64>::zeros(&[2, 3]);
    let e = a.reshape(&[4, -1]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot reshape an array of shape [2, 3] (6 elements) into shape [4, -1]"
    );
    assert!(a.reshape(&[-1, -1]).is_err());
    assert!(a.reshape(&[7]).is_err());
    let e = a.squeeze_axis(2).unwrap_err();
    assert_eq!(e, Error::AxisOutOfRange { axis: 2, ndim: 2 });
    assert_eq!(
        e.to_string(),
        "axis 2 is out of range for an array with 2 dimensions"
    );
    assert!(a.insert_axis(-4).is_err());
    assert!(a.insert_axis(-3).is_ok());
    let e = a.slice(s![.., 3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "index 3 is out of range for axis 1 of length 3 (shape [2, 3])"
    );
    let e = a.slice(s![0, 0, 0]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "3 indices given for an array of shape [2, 3] (2 dimensions)"
    );
    assert!(a.slice(s![..;0]).is_err());
    assert!(a.permute_axes(&[1]).is_err());
    assert!(a.permute_axes(&[1, 2]).is_err());
    let huge = Array::<f64>::zeros(&[1, 0]).into_shape(&[0, 1]).unwrap();
    let wide = huge.insert_axis(0).unwrap();
    assert_eq!(wide.shape(), &[1, 0, 1]);
    // A broadcast whose size overflows is an error, not an allocation panic.
    let big = Array::<f64>::zeros(&[0, 1]);
    let b1 = big.slice(s![.., ..]).unwrap();
    assert_eq!(b1.add(&b1).unwrap().shape(), &[0, 1]);
}

/// A broadcast view of more than `usize::MAX` elements is refused: it made a view
/// whose `len()` wrapped (2^80 elements counted as 0), so `sum` gave 0, `to_owned`
/// an empty array and `iter` nothing, silently.
#[test]
fn broadcast_to_a_shape_past_usize_is_an_error() {
    let one = Array::<f64>::from_vec(vec![2.0]);
    for shape in [
        vec![1usize << 40, 1 << 40],
        vec![usize::MAX, 2],
        vec![usize::MAX, usize::MAX, 0],
    ] {
        let e = one.broadcast_to(&shape).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
        assert_eq!(
            e.to_string(),
            format!("broadcast_to: shape {shape:?} has more than usize::MAX elements")
        );
    }
    // Up to usize::MAX elements a broadcast is a view like any other.
    let v = one.broadcast_to(&[usize::MAX, 1]).unwrap();
    assert_eq!(v.len(), usize::MAX);
    assert_eq!(v.slice(s![..3, ..]).unwrap().sum(), 6.0);
    let v = one.broadcast_to(&[1 << 31, 1 << 31]).unwrap();
    assert_eq!(v.len(), 1 << 62);
    assert_eq!(one.broadcast_to(&[1 << 40, 0]).unwrap().len(), 0);
}

/// Random slicing, reshaping and arithmetic through the `Result` API: every call
/// returns, never panics, and every `Ok` has a shape consistent with its data.
#[test]
fn random_bad_input_never_panics() {
    let mut rng = Rng(12345);
    for _ in 0..3000 {
        let rank = rng.int(0, 4) as usize;
        let shape: Vec<usize> = (0..rank).map(|_| rng.int(0, 4) as usize).collect();
        let size: usize = shape.iter().product();
        let a = Array::from_shape_vec(&shape, (0..size).map(|i| i as f64).collect()).unwrap();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let nargs = rng.int(0, 5) as usize;
            let mut r2 = Rng(rng.0 ^ 0xabcdef);
            let args: Vec<SliceArg> = (0..nargs)
                .map(|_| match r2.int(0, 3) {
                    0 => SliceArg::Index(r2.int(-6, 6)),
                    1 => SliceArg::NewAxis,
                    _ => SliceArg::Slice {
                        start: if r2.int(0, 1) == 0 {
                            None
                        } else {
                            Some(r2.int(-8, 8))
                        },
                        stop: if r2.int(0, 1) == 0 {
                            None
                        } else {
                            Some(r2.int(-8, 8))
                        },
                        step: r2.int(-3, 3),
                    },
                })
                .collect();
            if let Ok(v) = a.slice(&args[..]) {
                assert_eq!(v.to_vec().len(), v.len());
                let target: Vec<isize> = (0..r2.int(0, 3)).map(|_| r2.int(-2, 5)).collect();
                if let Ok(r) = v.reshape(&target) {
                    assert_eq!(r.to_vec(), v.to_vec());
                }
                let _ = v.permute_axes(&[1, 0]);
                let _ = v.squeeze_axis(r2.int(-5, 5));
                let _ = v.insert_axis(r2.int(-6, 6));
                let sum = v.add(&a);
                if let Ok(s) = sum {
                    assert_eq!(s.len(), s.to_vec().len());
                }
                let mut out = Array::<f64>::zeros(&shape);
                let _ = v.mul_into(&a, &mut out);
            }
        }));
        assert!(
            result.is_ok(),
            "a Result-API call panicked for shape {shape:?}"
        );
    }
}

/// Where an owned array's first element lies, in bytes past a 64-byte boundary.
fn misalign<T: ndsimd::DType>(a: &Array<T>) -> usize {
    a.as_slice().unwrap().as_ptr() as usize % 64
}

#[test]
fn owned_arrays_the_library_allocates_start_on_a_cache_line() {
    // Lengths around the padding (up to 7 f64, 15 f32) and past the huge-page size.
    for n in [1usize, 2, 7, 8, 9, 15, 16, 17, 100, 1000, 1 << 20] {
        let x = Array::<f64>::arange(0.0, n as f64, 1.0).unwrap();
        let want: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let y = Array::from_vec(want.clone()); // the caller's buffer, kept as is
        let row = Array::<f64>::ones(&[4]);
        let m = x.reshape(&[-1, 1]).unwrap().into_owned();
        let made: Vec<(&str, Array<f64>, Vec<f64>)> = vec![
            ("arange", x.clone(), want.clone()),
            ("zeros", Array::zeros(&[n]), vec![0.0; n]),
            ("full", Array::full(&[n], 2.5), vec![2.5; n]),
            (
                "linspace",
                Array::linspace(0.0, (n - 1) as f64, n),
                want.clone(),
            ),
            ("clone", y.clone(), want.clone()),
            (
                "to_owned",
                y.slice(s![..;-1]).unwrap().to_owned(),
                want.iter().rev().copied().collect(),
            ),
            ("flatten", m.t().flatten(), want.clone()),
            ("add", &x + &y, want.iter().map(|v| 2.0 * v).collect()),
            // An owned left operand: its padded buffer is reused in place.
            (
                "owned add",
                x.clone() + &y,
                want.iter().map(|v| 2.0 * v).collect(),
            ),
            (
                "owned sqrt",
                x.clone().sqrt(),
                want.iter().map(|v| v.sqrt()).collect(),
            ),
            ("scalar", &x * 2.0, want.iter().map(|v| 2.0 * v).collect()),
            (
                "scalar left",
                1.0 - &x,
                want.iter().map(|v| 1.0 - v).collect(),
            ),
            ("neg", -&x, want.iter().map(|v| -v).collect()),
            (
                "broadcast",
                (&m + &row).into_shape(&[-1]).unwrap(),
                want.iter().flat_map(|&v| [v + 1.0; 4]).collect(),
            ),
            ("sum_axis", m.sum_axis(1, false).unwrap(), want.clone()),
        ];
        for (what, a, values) in made {
            assert_eq!(misalign(&a), 0, "{what}, n = {n}");
            assert_eq!(a.to_vec(), values, "{what}, n = {n}");
            // Back to a Vec: the padding goes, the elements stay.
            assert_eq!(a.into_vec(), values, "{what} into_vec, n = {n}");
        }
        let f = Array::<f32>::ones(&[n]);
        assert_eq!(misalign(&f), 0, "f32 ones, n = {n}");
        // Read back from .npy bytes, of the array and of a transposed view.
        let back = ndsimd::npy::from_bytes::<f64>(&ndsimd::npy::to_bytes(&y.view())).unwrap();
        assert_eq!(
            (misalign(&back), back.to_vec()),
            (0, want.clone()),
            "npy, n = {n}"
        );
        let mt = m.t();
        let back = ndsimd::npy::from_bytes::<f64>(&ndsimd::npy::to_bytes(&mt)).unwrap();
        assert_eq!(
            (misalign(&back), back.shape()),
            (0, mt.shape()),
            "npy of a view, n = {n}"
        );
        assert_eq!(back.to_vec(), want, "npy of a view, n = {n}");
        // A clone of an array whose first element is not its buffer's first (a
        // reversed view made owned by the clone of its base) is aligned too.
        let mut r = Array::<f64>::zeros(&[n]);
        r.as_slice_mut().unwrap()[n - 1] = 7.0;
        let c = r.clone();
        assert_eq!((misalign(&c), c.get(&[n - 1])), (0, Some(&7.0)));
        // Whatever state the heap is in (small blocks of other sizes held between
        // clones move where the allocator's next block starts).
        let mut held = Vec::new();
        for k in 0..8 {
            held.push(vec![0u8; 16 * k + 1]);
            let c = y.clone();
            assert_eq!(
                (misalign(&c), c.to_vec()),
                (0, want.clone()),
                "clone {k}, n = {n}"
            );
        }
    }
    // Empty: nothing to pad.
    assert_eq!(Array::<f64>::zeros(&[0]).into_vec(), Vec::<f64>::new());
}
