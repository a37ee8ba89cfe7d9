//! Shape specs (slice, reshape, permute, transpose, insert/squeeze an axis) applied in
//! chains to a small array, each checked against a reference model of shapes,
//! strides and an offset written here: the same accept/refuse decision, the same
//! shape, the same elements (each element of the base is its own index, so a wrong
//! address shows as a wrong value), and the same strides on axes longer than one.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use ndsimd::{Array, ArrayView, SliceArg, MAX_NDIM};

/// The model: element `idx` of the view is `data[offset + Σ idx[i] * strides[i]]`.
#[derive(Clone, Debug)]
struct Model {
    data: Vec<f64>,
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: isize,
    /// Whether `strides` must match the library's (false after a reshape, whose
    /// result the model holds as a fresh row-major copy).
    exact: bool,
}

impl Model {
    fn values(&self) -> Vec<f64> {
        let n: usize = self.shape.iter().product();
        let mut out = Vec::with_capacity(n);
        let mut idx = vec![0usize; self.shape.len()];
        for _ in 0..n {
            let at: isize = self.offset
                + idx
                    .iter()
                    .zip(&self.strides)
                    .map(|(&i, &s)| i as isize * s)
                    .sum::<isize>();
            out.push(self.data[usize::try_from(at).expect("model address in range")]);
            for ax in (0..idx.len()).rev() {
                idx[ax] += 1;
                if idx[ax] < self.shape[ax] {
                    break;
                }
                idx[ax] = 0;
            }
        }
        out
    }
}

/// CPython's `PySlice_AdjustIndices`, in i128: (first, count).
fn adjust(start: Option<isize>, stop: Option<isize>, step: isize, len: usize) -> (i128, i128) {
    let (n, st) = (len as i128, step as i128);
    let clip = |v: Option<isize>, dflt: i128| match v {
        None => dflt,
        Some(v) => {
            let mut v = v as i128;
            if v < 0 {
                v += n;
                if v < 0 {
                    v = if st < 0 { -1 } else { 0 };
                }
            } else if v >= n {
                v = if st < 0 { n - 1 } else { n };
            }
            v
        }
    };
    if st > 0 {
        let (s, e) = (clip(start, 0), clip(stop, n));
        (s, if s < e { (e - s - 1) / st + 1 } else { 0 })
    } else {
        let (s, e) = (clip(start, n - 1), clip(stop, -1));
        (s, if e < s { (s - e - 1) / -st + 1 } else { 0 })
    }
}

fn model_slice(m: &Model, args: &[SliceArg]) -> Option<Model> {
    let real = args
        .iter()
        .filter(|a| !matches!(a, SliceArg::NewAxis))
        .count();
    if real > m.shape.len() {
        return None;
    }
    let mut out = Model {
        shape: vec![],
        strides: vec![],
        ..m.clone()
    };
    let mut ax = 0;
    for a in args {
        match *a {
            SliceArg::NewAxis => {
                out.shape.push(1);
                out.strides.push(0);
            }
            SliceArg::Index(i) => {
                let len = m.shape[ax] as i128;
                let j = if i < 0 { i as i128 + len } else { i as i128 };
                if j < 0 || j >= len {
                    return None;
                }
                out.offset += j as isize * m.strides[ax];
                ax += 1;
            }
            SliceArg::Slice { start, stop, step } => {
                if step == 0 {
                    return None;
                }
                let (first, count) = adjust(start, stop, step, m.shape[ax]);
                if count > 0 {
                    out.offset += first as isize * m.strides[ax];
                }
                out.shape.push(count as usize);
                out.strides.push(m.strides[ax].wrapping_mul(step));
                ax += 1;
            }
        }
    }
    out.shape.extend_from_slice(&m.shape[ax..]);
    out.strides.extend_from_slice(&m.strides[ax..]);
    (out.shape.len() <= MAX_NDIM).then_some(out)
}

fn model_reshape(m: &Model, spec: &[isize]) -> Option<Model> {
    if spec.len() > MAX_NDIM {
        return None;
    }
    let size: usize = m.shape.iter().product();
    let infer = spec.iter().filter(|&&d| d == -1).count();
    if infer > 1 || spec.iter().any(|&d| d < -1) {
        return None;
    }
    let known = spec
        .iter()
        .filter(|&&d| d >= 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(d as usize))?;
    let shape: Vec<usize> = if infer == 1 {
        if known == 0 || !size.is_multiple_of(known) {
            return None;
        }
        spec.iter()
            .map(|&d| if d == -1 { size / known } else { d as usize })
            .collect()
    } else {
        if known != size {
            return None;
        }
        spec.iter().map(|&d| d as usize).collect()
    };
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        acc *= shape[i].max(1) as isize;
    }
    Some(Model {
        data: m.values(),
        shape,
        strides,
        offset: 0,
        exact: false,
    })
}

fn axis(u: &mut Unstructured, ndim: usize) -> Result<isize> {
    let r = ndim as isize + 1;
    u.int_in_range(-r - 1..=r + 1)
}

fn bound(u: &mut Unstructured) -> Result<Option<isize>> {
    Ok(match u.int_in_range(0..=9u8)? {
        0 => None,
        1 => Some(isize::MAX),
        2 => Some(isize::MIN),
        _ => Some(u.int_in_range(-7..=7)?),
    })
}

fn slice_arg(u: &mut Unstructured) -> Result<SliceArg> {
    Ok(match u.int_in_range(0..=5u8)? {
        0 => SliceArg::Index(u.int_in_range(-6..=6)?),
        1 => SliceArg::NewAxis,
        _ => {
            let step = match u.int_in_range(0..=9u8)? {
                0 => 0,
                1 => isize::MIN,
                2 => isize::MAX,
                _ => u.int_in_range(-4..=4)?,
            };
            SliceArg::Slice {
                start: bound(u)?,
                stop: bound(u)?,
                step,
            }
        }
    })
}

fn check(v: &ArrayView<f64>, m: &Model) {
    assert_eq!(v.shape(), &m.shape[..], "shape");
    let want = m.values();
    assert_eq!(v.len(), want.len());
    assert_eq!(v.to_vec(), want, "values of shape {:?}", m.shape);
    assert_eq!(v.iter().count(), want.len());
    if m.exact && !want.is_empty() {
        for (i, (&a, &b)) in v.strides().iter().zip(&m.strides).enumerate() {
            if m.shape[i] > 1 {
                assert_eq!(
                    a,
                    b,
                    "stride of axis {i}: library {:?}, model {:?}",
                    v.strides(),
                    m.strides
                );
            }
        }
    }
    if let Some(s) = v.as_slice() {
        assert_eq!(s, &want[..]);
    }
    if v.is_standard_layout() {
        assert!(v.as_slice().is_some());
    }
    if let Some(last) = want.last() {
        let idx: Vec<usize> = m.shape.iter().map(|&d| d - 1).collect();
        assert_eq!(v.get(&idx), Some(last));
    }
    if !m.shape.is_empty() {
        assert_eq!(v.get(&m.shape), None, "an index one past every axis");
    }
}

/// Applies up to `depth` more ops, recursing so that views borrowed from views live.
fn chain(u: &mut Unstructured, v: ArrayView<f64>, m: Model, depth: usize) -> Result<()> {
    check(&v, &m);
    if depth == 0 || u.is_empty() {
        return Ok(());
    }
    let nd = m.shape.len();
    match u.int_in_range(0..=6u8)? {
        0 => {
            let n = u.int_in_range(0..=nd + 2)?;
            let args: Vec<SliceArg> = (0..n).map(|_| slice_arg(u)).collect::<Result<_>>()?;
            let want = model_slice(&m, &args);
            match (v.slice(&args[..]), want) {
                (Ok(w), Some(wm)) => chain(u, w, wm, depth - 1)?,
                (Err(_), None) => {}
                (got, want) => panic!(
                    "slice {args:?} of {:?}: {:?} vs model {want:?}",
                    m.shape,
                    got.map(|w| w.shape().to_vec())
                ),
            }
        }
        1 => {
            let n = u.int_in_range(0..=nd.min(6) + 1)?;
            let spec: Vec<isize> = (0..n)
                .map(|_| {
                    Ok(match u.int_in_range(0..=7u8)? {
                        0 => -1,
                        1 => -2,
                        _ => u.int_in_range(0..=6)?,
                    })
                })
                .collect::<Result<_>>()?;
            let want = model_reshape(&m, &spec);
            match (v.reshape(&spec), want) {
                (Ok(w), Some(wm)) => {
                    if w.is_view() {
                        // A view must read the very elements, without a copy.
                        assert_eq!(w.to_vec(), wm.data);
                    }
                    chain(u, w.view(), wm, depth - 1)?
                }
                (Err(_), None) => {}
                (got, want) => panic!(
                    "reshape {spec:?} of {:?}: {:?} vs model {want:?}",
                    m.shape,
                    got.map(|w| w.shape().to_vec())
                ),
            }
        }
        2 => {
            let mut axes: Vec<usize> = (0..nd).collect();
            for i in (1..nd).rev() {
                axes.swap(i, u.int_in_range(0..=i)?);
            }
            if u.ratio(1, 4)? && nd > 0 {
                // Not a permutation: repeat, drop or exceed an axis.
                match u.int_in_range(0..=2u8)? {
                    0 => axes[0] = axes[nd - 1],
                    1 => {
                        axes.pop();
                    }
                    _ => axes[0] = nd,
                }
            }
            let mut seen = vec![false; nd];
            let ok = axes.len() == nd
                && axes
                    .iter()
                    .all(|&a| a < nd && !std::mem::replace(&mut seen[a], true));
            let want = ok.then(|| Model {
                shape: axes.iter().map(|&a| m.shape[a]).collect(),
                strides: axes.iter().map(|&a| m.strides[a]).collect(),
                ..m.clone()
            });
            match (v.permute_axes(&axes), want) {
                (Ok(w), Some(wm)) => chain(u, w, wm, depth - 1)?,
                (Err(_), None) => {}
                (got, want) => panic!(
                    "permute {axes:?} of {:?}: {:?} vs model {want:?}",
                    m.shape,
                    got.map(|w| w.shape().to_vec())
                ),
            }
        }
        3 => {
            let mut wm = m.clone();
            wm.shape.reverse();
            wm.strides.reverse();
            chain(u, v.t(), wm, depth - 1)?
        }
        4 => {
            let a = axis(u, nd)?;
            let n1 = nd as isize + 1;
            let want = (a >= -n1 && a < n1 && nd < MAX_NDIM).then(|| {
                let at = if a < 0 { a + n1 } else { a } as usize;
                let mut wm = m.clone();
                wm.shape.insert(at, 1);
                wm.strides.insert(at, 0);
                wm
            });
            match (v.insert_axis(a), want) {
                (Ok(w), Some(wm)) => chain(u, w, wm, depth - 1)?,
                (Err(_), None) => {}
                (got, want) => panic!(
                    "insert_axis {a} of {:?}: {:?} vs model {want:?}",
                    m.shape,
                    got.map(|w| w.shape().to_vec())
                ),
            }
        }
        5 => {
            let a = axis(u, nd)?;
            let n = nd as isize;
            let at = if a < 0 { a + n } else { a };
            let want = (at >= 0 && at < n && m.shape[at as usize] == 1).then(|| {
                let mut wm = m.clone();
                wm.shape.remove(at as usize);
                wm.strides.remove(at as usize);
                wm
            });
            match (v.squeeze_axis(a), want) {
                (Ok(w), Some(wm)) => chain(u, w, wm, depth - 1)?,
                (Err(_), None) => {}
                (got, want) => panic!(
                    "squeeze_axis {a} of {:?}: {:?} vs model {want:?}",
                    m.shape,
                    got.map(|w| w.shape().to_vec())
                ),
            }
        }
        _ => {
            let keep: Vec<usize> = (0..nd).filter(|&i| m.shape[i] != 1).collect();
            let wm = Model {
                shape: keep.iter().map(|&i| m.shape[i]).collect(),
                strides: keep.iter().map(|&i| m.strides[i]).collect(),
                ..m.clone()
            };
            chain(u, v.squeeze(), wm, depth - 1)?
        }
    }
    Ok(())
}

fn run(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    let nd = u.int_in_range(0..=4usize)?;
    let shape: Vec<usize> = (0..nd)
        .map(|_| u.int_in_range(0..=5usize))
        .collect::<Result<_>>()?;
    let n: usize = shape.iter().product();
    let data: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let base = Array::from_shape_vec(&shape, data.clone()).expect("shape matches");
    let mut strides = vec![0isize; nd];
    let mut acc = 1isize;
    for i in (0..nd).rev() {
        strides[i] = acc;
        acc *= shape[i].max(1) as isize;
    }
    let m = Model {
        data,
        shape,
        strides,
        offset: 0,
        exact: true,
    };
    chain(&mut u, base.view(), m, 12)
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
