//! Batched matrix products on the pool: whole small products spread over the
//! threads give the same bits as one thread, and as each product computed alone.

mod common;

use common::Rng;
use ndsimd::{s, Array};
use ndsimd_kernels::pool::with_threads;

fn random(shape: &[usize], rng: &mut Rng) -> Array<f64> {
    let n = shape.iter().product();
    let v = (0..n)
        .map(|_| (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
        .collect();
    Array::from_shape_vec(shape, v).unwrap()
}

fn bits(a: &Array<f64>) -> Vec<u64> {
    a.iter().map(|x| x.to_bits()).collect()
}

/// Panics at the first element whose bits differ (without printing both arrays).
fn same(want: &[u64], got: &[u64], what: &str) {
    assert_eq!(want.len(), got.len(), "{what}: length");
    if let Some(i) = (0..want.len()).find(|&i| want[i] != got[i]) {
        let (w, g) = (f64::from_bits(want[i]), f64::from_bits(got[i]));
        panic!("{what}: element {i} is {g:e}, want {w:e}");
    }
}

#[test]
fn batched_matmul_matches_one_thread_and_each_product() {
    let mut rng = Rng(0xba7c4);
    for (sa, sb) in [
        // Each batch holds more than 72³ multiply-adds in all (the split's floor).
        (vec![600usize, 12, 9], vec![600usize, 9, 11]),
        (vec![12, 1, 8, 9], vec![100, 9, 7]),
        (vec![8000, 9, 9], vec![9]),
        (vec![9], vec![6000, 9, 8]),
        (vec![8000, 3, 4], vec![4, 5]),
        // Below the floor: one thread.
        (vec![30, 12, 9], vec![30, 9, 11]),
    ] {
        let (a, b) = (random(&sa, &mut rng), random(&sb, &mut rng));
        let one = with_threads(1, || a.matmul(&b).unwrap());
        for threads in [2, 3] {
            let many = with_threads(threads, || a.matmul(&b).unwrap());
            same(
                &bits(&one),
                &bits(&many),
                &format!("{sa:?} @ {sb:?} on {threads} threads"),
            );
        }
        // Into a preallocated output, over NaN (β = 0 never reads it).
        let mut c = Array::from_elem(one.shape(), f64::NAN);
        a.matmul_into(&b, 1.0, 0.0, &mut c).unwrap();
        same(&bits(&one), &bits(&c), &format!("{sa:?} @ {sb:?} into"));
        // Into a strided output (the serial path), the same bits.
        let mut wide = Array::from_elem(
            &one.shape()
                .iter()
                .enumerate()
                .map(|(i, &d)| if i + 1 == one.ndim() { 2 * d } else { d })
                .collect::<Vec<_>>(),
            f64::NAN,
        );
        let last = one.ndim() - 1;
        {
            let mut view = wide.slice_mut(s_last(one.ndim())).unwrap();
            a.matmul_into(&b, 1.0, 0.0, &mut view).unwrap();
        }
        let got: Vec<u64> = wide
            .slice(s_last(one.ndim()))
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect();
        same(
            &bits(&one),
            &got,
            &format!("{sa:?} @ {sb:?} into a strided view (axis {last})"),
        );
    }
    // Each product of a plain 3-D batch equals the 2-D product alone.
    let (a, b) = (
        random(&[64, 10, 12], &mut rng),
        random(&[64, 12, 6], &mut rng),
    );
    let c = a.matmul(&b).unwrap();
    for q in [0, 17, 63] {
        let aq = a.slice(s![q, .., ..]).unwrap();
        let bq = b.slice(s![q, .., ..]).unwrap();
        let cq = c.slice(s![q, .., ..]).unwrap();
        let alone = aq.matmul(&bq).unwrap();
        let got: Vec<u64> = cq.iter().map(|x| x.to_bits()).collect();
        same(&bits(&alone), &got, &format!("product {q} alone"));
    }
}

/// Every other element along the last axis, all of the others.
fn s_last(ndim: usize) -> Vec<ndsimd::SliceArg> {
    (0..ndim)
        .map(|i| ndsimd::SliceArg::Slice {
            start: None,
            stop: None,
            step: if i + 1 == ndim { 2 } else { 1 },
        })
        .collect()
}

/// Each 2-D product of at most 8 a side on contiguous operands (the array layer's
/// fast entry), offsets into a larger buffer included, gives the bits of the same
/// product on strided views of the same values (the views' path); NaN in C does
/// not leak with beta 0; a side of 9 and alpha 0 take the general path.
#[test]
fn tiny_contiguous_matmul_same_bits_as_strided() {
    let mut rng = Rng(0x7171);
    // Every other column of a twice-as-wide array: the same values, strided.
    let spread = |x: &Array<f64>| {
        let (r, c) = (x.shape()[0], x.shape()[1]);
        let mut w = Array::from_elem(&[r, 2 * c], f64::NAN);
        for i in 0..r {
            for j in 0..c {
                *w.get_mut(&[i, 2 * j]).unwrap() = *x.get(&[i, j]).unwrap();
            }
        }
        w
    };
    for m in 1..=9 {
        for n in 1..=9 {
            for k in 1..=9 {
                for (alpha, beta) in [(1.0, 0.0), (-1.5, 0.0), (0.5, 1.0), (1.0, -2.0), (0.0, 3.0)]
                {
                    // A sits after one row of another array (offset k, contiguous).
                    let a_big = random(&[m + 1, k], &mut rng);
                    let a = a_big.slice(s![1.., ..]).unwrap();
                    let b = random(&[k, n], &mut rng);
                    let c0 = if beta == 0.0 {
                        Array::from_elem(&[m, n], f64::NAN)
                    } else {
                        random(&[m, n], &mut rng)
                    };
                    let mut c = c0.clone();
                    a.matmul_into(&b, alpha, beta, &mut c).unwrap();
                    let (wa, wb, mut wc) = (spread(&a.to_owned()), spread(&b), spread(&c0));
                    {
                        let (sa, sb) = (wa.slice(s_last(2)).unwrap(), wb.slice(s_last(2)).unwrap());
                        let mut sc = wc.slice_mut(s_last(2)).unwrap();
                        sa.matmul_into(&sb, alpha, beta, &mut sc).unwrap();
                    }
                    let want: Vec<u64> = wc
                        .slice(s_last(2))
                        .unwrap()
                        .iter()
                        .map(|x| x.to_bits())
                        .collect();
                    same(
                        &want,
                        &bits(&c),
                        &format!("{m}x{k} @ {k}x{n} alpha {alpha} beta {beta}"),
                    );
                }
            }
        }
    }
}
