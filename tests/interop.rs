//! Views over borrowed slices, and (feature `ndarray`) zero-copy conversions with
//! ndarray: every conversion must hand over the same memory, so the tests compare
//! the first element's pointer on both sides, on every layout.

use ndsimd::{ArrayView, ArrayViewMut};

#[test]
fn from_slice_borrows_and_checks() {
    let data: Vec<f64> = (0..12).map(|x| x as f64).collect();
    let v = ArrayView::from_slice(&data, &[3, 4]).unwrap();
    assert!(std::ptr::eq(v.first().unwrap(), &data[0]));
    assert_eq!(v.get(&[2, 1]), Some(&9.0));
    assert_eq!(
        ArrayView::from_slice(&data, &[5]).unwrap_err().to_string(),
        "shape [5] needs 5 elements but 12 were given"
    );
    // Strided: a column, backwards; a broadcast row (stride 0).
    let col = ArrayView::from_slice_strided(&data, &[3], &[-4], 9).unwrap();
    assert_eq!(col.to_vec(), vec![9.0, 5.0, 1.0]);
    let rep = ArrayView::from_slice_strided(&data, &[2, 3], &[0, 1], 10).unwrap_err();
    assert_eq!(
        rep.to_string(),
        "shape [2, 3] with strides [0, 1] from offset 10 reaches elements 10..=12, outside a slice of length 12"
    );
    let below = ArrayView::from_slice_strided(&data, &[3], &[-4], 7).unwrap_err();
    assert!(
        below.to_string().contains("reaches elements -1..=7"),
        "{below}"
    );
    let wrong = ArrayView::from_slice_strided(&data, &[3], &[1, 1], 0).unwrap_err();
    assert_eq!(
        wrong.to_string(),
        "strides [1, 1] do not match shape [3]: 2 strides for 1 axes"
    );
    // Empty shapes reach nothing, so any strides and offset do.
    assert!(ArrayView::from_slice_strided(&data, &[0, 3], &[100, -100], 50).is_ok());
    let mut buf = [0.0f32; 4];
    ArrayViewMut::from_slice_mut(&mut buf, &[2, 2])
        .unwrap()
        .fill(1.0);
    assert_eq!(buf, [1.0; 4]);
}

#[cfg(feature = "ndarray")]
mod nd {
    use super::*;
    use ndsimd::{s, Array};

    fn layouts(a: &Array<f64>) -> Vec<ArrayView<'_, f64>> {
        vec![
            a.view(),
            a.t(),
            a.slice(s![..;-1, ..]).unwrap(),
            a.slice(s![1..;2, ..;-3]).unwrap(),
            a.slice(s![.., 0..0]).unwrap(),
            a.slice(s![1, ..]).unwrap(),
            a.broadcast_to(&[2, 4, 6]).unwrap(),
        ]
    }

    #[test]
    fn ndsimd_views_convert_without_copy() {
        let a = Array::from_shape_vec(&[4, 6], (0..24).map(|x| x as f64).collect()).unwrap();
        for v in layouts(&a) {
            let expect = v.to_vec();
            let first = v.first().map(|x| x as *const f64);
            let n: ndarray::ArrayViewD<'_, f64> = v.into();
            if let Some(p) = first {
                assert_eq!(n.as_ptr(), p);
            }
            assert_eq!(n.iter().copied().collect::<Vec<_>>(), expect);
        }
        let mut m = a.clone();
        let mut w = m.slice_mut(s![..;-1, 1..;2]).unwrap();
        let p = w.first().unwrap() as *const f64;
        let mut n: ndarray::ArrayViewMutD<'_, f64> = w.view_mut().into();
        assert_eq!(n.as_ptr(), p);
        n[[0, 0]] = -1.0;
        assert_eq!(m.get(&[3, 1]), Some(&-1.0));
    }

    #[test]
    fn ndarray_views_convert_without_copy() {
        let n = ndarray::Array3::<f64>::from_shape_fn((2, 3, 4), |(i, j, k)| {
            (12 * i + 4 * j + k) as f64
        });
        let f = n.t().to_owned(); // Fortran order in memory
        let mut rev = n.clone();
        rev.invert_axis(ndarray::Axis(1));
        for nv in [
            n.view(),
            n.t(),
            f.view(),
            rev.view(),
            n.slice(ndarray::s![.., ..;-1, ..]),
        ] {
            let v = ArrayView::try_from(nv.view()).unwrap();
            assert_eq!(v.shape(), nv.shape());
            assert_eq!(v.first().unwrap() as *const f64, nv.as_ptr());
            assert_eq!(v.to_vec(), nv.iter().copied().collect::<Vec<_>>());
        }
        let strided = n.slice(ndarray::s![.., .., ..;2]);
        let e = ArrayView::try_from(strided).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "an ndarray view of shape [2, 3, 2] with strides [12, 4, 2] is not contiguous"
            ),
            "{e}"
        );
        let mut m = n.clone();
        let p = m.as_ptr();
        let mut w = ArrayViewMut::try_from(m.view_mut()).unwrap();
        assert_eq!(w.first().unwrap() as *const f64, p);
        w.fill(7.0);
        assert!(m.iter().all(|&x| x == 7.0));
    }

    #[test]
    fn owned_conversions_keep_the_buffer() {
        let n = ndarray::Array2::<f64>::from_shape_fn((3, 2), |(i, j)| (2 * i + j) as f64);
        let mut r = n.clone();
        r.invert_axis(ndarray::Axis(0));
        let p = r.as_ptr();
        let a = Array::from(r);
        assert_eq!(a.first().unwrap() as *const f64, p);
        assert_eq!(a.to_vec(), vec![4.0, 5.0, 2.0, 3.0, 0.0, 1.0]);
        // From a Vec-backed array without alignment padding: the same buffer.
        let b = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        let p = b.first().unwrap() as *const f64;
        let back = ndarray::ArrayD::from(b);
        assert_eq!(back.as_ptr(), p);
        assert_eq!(back.shape(), &[2, 2]);
    }
}
