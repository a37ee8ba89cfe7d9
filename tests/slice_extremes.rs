//! Slicing at the extremes of every field (start, stop, inclusive end, step,
//! index: 0, ±1, ±len, `isize::MIN`/`MAX`, `usize::MAX`, `i64`/`i32`/`u32`
//! extremes) against NumPy's answers in `tests/data/slice_extremes.txt`, written
//! by `tests/data/gen_slice_extremes.py` (which documents its lines), and against
//! a transcription of CPython's slice algorithm on a wider grid.

use std::collections::{HashMap, HashSet};

use ndsimd::{s, Array, NewAxis, SliceArg};

const DATA: &str = include_str!("data/slice_extremes.txt");

/// The grid's bounds and steps, in the order of `gen_slice_extremes.py`.
const BOUNDS: [Option<isize>; 14] = [
    None,
    Some(0),
    Some(1),
    Some(-1),
    Some(2),
    Some(-2),
    Some(3),
    Some(-3),
    Some(5),
    Some(-5),
    Some(isize::MIN),
    Some(isize::MIN + 1),
    Some(isize::MAX),
    Some(isize::MAX - 1),
];

/// CPython's `PySlice_Unpack` (a step below `-isize::MAX` becomes `-isize::MAX`,
/// absent bounds become the extremes in the step's direction) followed by
/// `PySlice_AdjustIndices`, transcribed from `Objects/sliceobject.c`; NumPy slices
/// with them. Returns (count, first). Overflow-free in `isize` under CPython's own
/// preconditions, which the clamp and `len <= isize::MAX` establish.
fn cpython_slice(
    len: isize,
    start: Option<isize>,
    stop: Option<isize>,
    step: isize,
) -> (usize, isize) {
    assert!(step != 0 && len >= 0);
    let step = step.max(-isize::MAX);
    let mut start = start.unwrap_or(if step < 0 { isize::MAX } else { 0 });
    let mut stop = stop.unwrap_or(if step < 0 { isize::MIN } else { isize::MAX });
    if start < 0 {
        start += len;
        if start < 0 {
            start = if step < 0 { -1 } else { 0 };
        }
    } else if start >= len {
        start = if step < 0 { len - 1 } else { len };
    }
    if stop < 0 {
        stop += len;
        if stop < 0 {
            stop = if step < 0 { -1 } else { 0 };
        }
    } else if stop >= len {
        stop = if step < 0 { len - 1 } else { len };
    }
    let count = if step < 0 {
        if stop < start {
            (start - stop - 1) / (-step) + 1
        } else {
            0
        }
    } else if start < stop {
        (stop - start - 1) / step + 1
    } else {
        0
    };
    (count as usize, start)
}

fn range(len: usize) -> Array<f64> {
    Array::from_vec((0..len).map(|i| i as f64).collect())
}

/// The elements `first, first + step, ...` of `range(len)`.
fn walk(count: usize, first: isize, step: isize) -> Vec<f64> {
    (0..count as isize)
        .map(|k| (first + k * step) as f64)
        .collect()
}

fn fields(line: &str) -> Vec<&str> {
    line.split(" | ").map(str::trim).collect()
}

#[test]
fn grid_matches_numpy_and_the_cpython_model() {
    let mut rows = 0;
    for line in DATA.lines().filter(|l| l.starts_with("grid |")) {
        let f = fields(line);
        let len: usize = f[1].parse().unwrap();
        let step: isize = f[2].parse().unwrap();
        let tokens: Vec<&str> = f[3].split(' ').collect();
        assert_eq!(tokens.len(), BOUNDS.len() * BOUNDS.len(), "{line}");
        let a = range(len);
        let mut t = tokens.iter();
        for start in BOUNDS {
            for stop in BOUNDS {
                let (count, first) = match t.next().unwrap().split_once(':') {
                    None => (0, 0),
                    Some((c, f)) => (c.parse().unwrap(), f.parse().unwrap()),
                };
                let what = format!("range({len})[{start:?}:{stop:?}:{step}]");
                // The model is NumPy's algorithm: it must agree with NumPy itself.
                let (mc, mf) = cpython_slice(len as isize, start, stop, step);
                assert_eq!(mc, count, "model count, {what}");
                if count > 0 {
                    assert_eq!(mf, first, "model first, {what}");
                }
                let v = a
                    .slice([SliceArg::Slice { start, stop, step }])
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(v.shape(), &[count], "{what}");
                assert_eq!(v.to_vec(), walk(count, first, step), "{what}");
                rows += 1;
            }
        }
    }
    assert_eq!(rows, 4 * 12 * BOUNDS.len() * BOUNDS.len());
}

#[test]
fn indices_match_numpy() {
    let mut rows = 0;
    for line in DATA.lines().filter(|l| l.starts_with("index |")) {
        let f = fields(line);
        let len: usize = f[1].parse().unwrap();
        let i: isize = f[2].parse().unwrap();
        let a = range(len);
        let got = a.slice([SliceArg::Index(i)]);
        match f[3] {
            "err" => {
                let e = got.expect_err(line).to_string();
                assert!(
                    e.contains(&format!(
                        "index {i} is out of range for axis 0 of length {len}"
                    )),
                    "{line}: {e}"
                );
            }
            v => {
                let got = got.unwrap_or_else(|e| panic!("{line}: {e}"));
                assert_eq!(got.shape(), &[] as &[usize], "{line}");
                assert_eq!(got.to_vec(), vec![v.parse::<f64>().unwrap()], "{line}");
            }
        }
        rows += 1;
    }
    assert_eq!(rows, 4 * 13);
}

/// A wider grid than NumPy's table: lengths 0-7, every bound and step near 0, ±len
/// and the extremes, against the CPython model.
#[test]
fn wide_grid_matches_the_cpython_model() {
    for len in 0..8usize {
        let n = len as isize;
        let mut bounds: Vec<Option<isize>> = vec![None];
        for v in [
            0,
            1,
            -1,
            n - 1,
            n,
            n + 1,
            -n + 1,
            -n,
            -n - 1,
            isize::MIN,
            isize::MIN + 1,
            isize::MAX,
            isize::MAX - 1,
        ] {
            if !bounds.contains(&Some(v)) {
                bounds.push(Some(v));
            }
        }
        let mut steps = vec![isize::MIN, isize::MIN + 1, isize::MAX, isize::MAX - 1];
        steps.extend((1..=n + 1).flat_map(|k| [k, -k]));
        let a = range(len);
        for &step in &steps {
            for &start in &bounds {
                for &stop in &bounds {
                    let (count, first) = cpython_slice(n, start, stop, step);
                    let v = a.slice([SliceArg::Slice { start, stop, step }]).unwrap();
                    let what = format!("range({len})[{start:?}:{stop:?}:{step}]");
                    assert_eq!(v.shape(), &[count], "{what}");
                    assert_eq!(v.to_vec(), walk(count, first, step), "{what}");
                }
            }
        }
    }
}

/// The `s![]` forms, each paired with the NumPy expression (the data file's key)
/// it must equal; several forms may share a key.
// `0..=-1` is not empty here: a negative bound counts from the end, as in NumPy.
#[allow(clippy::reversed_empty_ranges)]
fn macro_cases() -> Vec<(String, Vec<SliceArg>)> {
    let (max, min, u64max) = (isize::MAX, isize::MIN, u64::MAX);
    let big = |k: &str| k.to_string();
    vec![
        (format!("[:, ::{max}]"), s![.., ..;isize::MAX].to_vec()),
        (
            format!("[::{max}]"),
            vec![SliceArg::Slice {
                start: None,
                stop: None,
                step: isize::MAX,
            }],
        ),
        (format!("[::{min}]"), s![..;isize::MIN].to_vec()),
        (format!("[::{}]", min + 1), s![..;isize::MIN + 1].to_vec()),
        (format!("[::{}]", max - 1), s![..;isize::MAX - 1].to_vec()),
        (format!("[{u64max}]"), s![usize::MAX].to_vec()),
        (format!("[:{u64max}]"), s![..usize::MAX].to_vec()),
        (format!("[:{}]", max as u64 + 1), s![..=isize::MAX].to_vec()),
        (
            format!("[:{}]", u64max as u128 + 1),
            s![..=usize::MAX].to_vec(),
        ),
        (format!("[{u64max}:]"), s![usize::MAX..].to_vec()),
        (format!("[{max}]"), s![isize::MAX].to_vec()),
        (format!("[{max}]"), s![i64::MAX].to_vec()),
        (format!("[{min}]"), s![isize::MIN].to_vec()),
        (format!("[{min}]"), s![i64::MIN].to_vec()),
        (big("[2]"), s![2].to_vec()),
        (big("[2]"), s![2usize].to_vec()),
        (big("[2]"), s![2u32].to_vec()),
        (big("[2]"), s![2i64].to_vec()),
        (big("[3]"), s![3].to_vec()),
        (big("[3]"), s![3usize].to_vec()),
        (big("[-3]"), s![-3].to_vec()),
        (big("[-3]"), s![-3i32].to_vec()),
        (big("[-4]"), s![-4].to_vec()),
        (format!("[{min}:{max}]"), s![i64::MIN..i64::MAX].to_vec()),
        (
            format!("[{min}:{max}]"),
            s![isize::MIN..isize::MAX].to_vec(),
        ),
        (format!("[{min}:]"), s![i64::MIN..].to_vec()),
        (format!("[:{min}]"), s![..i64::MIN].to_vec()),
        (format!("[{}:]", u32::MAX), s![u32::MAX..].to_vec()),
        (format!("[:{}]", u32::MAX), s![..u32::MAX].to_vec()),
        (format!("[{}:]", i32::MIN), s![i32::MIN..].to_vec()),
        (format!("[:{}]", i32::MIN + 1), s![..=i32::MIN].to_vec()),
        (format!("[0:{max}]"), s![0..=-1].to_vec()),
        (format!("[0:{max}]"), s![0..isize::MAX].to_vec()),
        (format!("[:{max}:-1]"), s![..=-1;-1].to_vec()),
        (format!("[-1:{max}:-1]"), s![-1;-1].to_vec()),
        (big("[1:2:-1]"), s![1;-1].to_vec()),
        (big("[1:2]"), s![1;1].to_vec()),
        (big("[1:2]"), s![1..=1].to_vec()),
        (big("[-1:]"), s![-1;1].to_vec()),
        (big("[-1:]"), s![-1..=-1].to_vec()),
        (big("[-1:]"), s![-1..].to_vec()),
        (format!("[{max}:{max}]"), s![isize::MAX;1].to_vec()),
        (format!("[{max}:{max}]"), s![usize::MAX;1].to_vec()),
        (format!("[{min}:{}]", min + 1), s![isize::MIN;1].to_vec()),
        (
            format!("[{min}:{}]", min + 1),
            s![isize::MIN..=isize::MIN].to_vec(),
        ),
        (
            format!("[{min}:{}:-1]", min + 1),
            s![isize::MIN;-1].to_vec(),
        ),
        (big("[:-1]"), s![..=-2].to_vec()),
        (big("[:-1]"), s![..-1].to_vec()),
        (big("[-2:]"), s![-2..=-1].to_vec()),
        (
            format!("[::-1, ::{min}]"),
            s![..;-1, ..;isize::MIN].to_vec(),
        ),
        (
            format!("[{min}:{max}:{max}]"),
            s![isize::MIN..isize::MAX;isize::MAX].to_vec(),
        ),
        (
            format!("[{max}:{min}:{min}]"),
            vec![SliceArg::Slice {
                start: Some(isize::MAX),
                stop: Some(isize::MIN),
                step: isize::MIN,
            }],
        ),
        (format!("[1::{}]", max - 1), s![1..;isize::MAX - 1].to_vec()),
        (
            format!("[:, {u64max}::-1]"),
            s![.., usize::MAX..;-1].to_vec(),
        ),
        (
            format!("[:, :{u64max}:-1]"),
            s![.., ..usize::MAX;-1].to_vec(),
        ),
        (format!("[:, {min}::-1]"), s![.., i64::MIN..;-1].to_vec()),
        (format!("[:, :{min}:-1]"), s![.., ..i64::MIN;-1].to_vec()),
        (
            format!("[None, ::{max}, -1]"),
            s![NewAxis, ..;isize::MAX, -1].to_vec(),
        ),
        (
            format!("[-1, {max}::{min}]"),
            s![-1, isize::MAX..;isize::MIN].to_vec(),
        ),
        (big("[:, 1:3:0]"), s![.., 1..3;0].to_vec()),
    ]
}

#[test]
fn macro_forms_match_numpy_on_3x4() {
    let expected: HashMap<&str, (&str, &str)> = DATA
        .lines()
        .filter(|l| l.starts_with("case |"))
        .map(|l| {
            let f = fields(l);
            (f[1], (f[2], f.get(3).copied().unwrap_or("")))
        })
        .collect();
    let a = Array::from_vec((0..12).map(f64::from).collect())
        .into_shape(&[3, 4])
        .unwrap();
    let mut seen = HashSet::new();
    for (key, args) in macro_cases() {
        let &(shape, values) = expected
            .get(key.as_str())
            .unwrap_or_else(|| panic!("a{key} is not in the data file"));
        seen.insert(key.clone());
        let got = a.slice(&args);
        let mut owned = a.to_owned();
        let got_mut = owned.slice_mut(&args).map(|mut v| v.fill(-1.0));
        if shape == "err" {
            let e = got.expect_err(&key).to_string();
            assert!(
                e.contains("out of range") || e.contains("step cannot be zero"),
                "a{key}: {e}"
            );
            assert!(got_mut.is_err(), "a{key}");
            continue;
        }
        let v = got.unwrap_or_else(|e| panic!("a{key}: {e}"));
        let shape: Vec<usize> = shape
            .split_whitespace()
            .map(|d| d.parse().unwrap())
            .collect();
        let values: Vec<f64> = values
            .split_whitespace()
            .map(|d| d.parse().unwrap())
            .collect();
        assert_eq!(v.shape(), shape.as_slice(), "a{key} {args:?}");
        assert_eq!(v.to_vec(), values, "a{key} {args:?}");
        // Everything downstream of the view works on it (a wrapped shape made
        // these panic).
        assert_eq!(v.to_owned().to_vec(), values, "a{key}");
        assert_eq!(v.sum(), values.iter().sum::<f64>(), "a{key}");
        if v.ndim() > 0 {
            let s = v.sum_axis(0, false).unwrap();
            assert_eq!(s.shape(), &shape[1..], "a{key}");
        }
        let _ = format!("{v} {v:?}");
        // The mutable view writes exactly the elements the view reads.
        got_mut.unwrap_or_else(|e| panic!("a{key}: {e}"));
        let written: Vec<f64> = (0..12)
            .filter(|&i| owned.to_vec()[i] == -1.0)
            .map(|i| i as f64)
            .collect();
        let mut want = values.clone();
        want.sort_by(f64::total_cmp);
        assert_eq!(written, want, "a{key}");
    }
    let keys: HashSet<String> = expected.keys().map(|k| k.to_string()).collect();
    assert_eq!(seen, keys, "every NumPy case has an s![] form");
}

/// The reproduction: a step of `isize::MAX` on axis 0 gave the shape
/// `[usize::MAX, 4]`, and summing or printing it panicked.
#[test]
fn huge_step_on_axis_0_then_reduce_and_print() {
    let a = Array::from_vec((0..12).map(f64::from).collect())
        .into_shape(&[3, 4])
        .unwrap();
    let v = a
        .slice([SliceArg::Slice {
            start: None,
            stop: None,
            step: isize::MAX,
        }])
        .unwrap();
    assert_eq!(v.shape(), &[1, 4]);
    assert_eq!(
        v.sum_axis(0, false).unwrap().to_vec(),
        vec![0.0, 1.0, 2.0, 3.0]
    );
    assert_eq!(v.sum(), 6.0);
    assert_eq!(v.to_owned().to_vec(), vec![0.0, 1.0, 2.0, 3.0]);
    assert_eq!(format!("{v}"), "[[0. 1. 2. 3.]]");
    let r = a.slice(s![..;isize::MIN]).unwrap();
    assert_eq!(format!("{r}"), "[[ 8.  9. 10. 11.]]");
}

/// The longest axis an array can have is about `isize::MAX` (one-byte elements, an
/// empty array: NumPy's size rule counts the non-zero axes); slicing must not wrap.
#[test]
fn empty_array_with_a_huge_axis() {
    // Longer axes are refused at construction, as NumPy refuses them.
    assert!(Array::<f64>::try_zeros(&[usize::MAX, 0]).is_err());
    assert!(Array::<bool>::try_from_elem(&[isize::MAX as usize, 0], false).is_err());
    let n = isize::MAX as usize - 64;
    let a = Array::<bool>::from_elem(&[n, 0], false);
    assert_eq!(a.slice(s![..]).unwrap().shape(), &[n, 0]);
    assert_eq!(a.slice(s![..;-1]).unwrap().shape(), &[n, 0]);
    assert_eq!(a.slice(s![..;isize::MAX]).unwrap().shape(), &[1, 0]);
    assert_eq!(a.slice(s![..;isize::MIN]).unwrap().shape(), &[1, 0]);
    assert_eq!(a.slice(s![-1..]).unwrap().shape(), &[1, 0]);
    assert_eq!(a.slice(s![1..]).unwrap().shape(), &[n - 1, 0]);
    assert_eq!(a.slice(s![isize::MAX..]).unwrap().shape(), &[0, 0]);
    assert_eq!(a.slice(s![-3..;isize::MAX]).unwrap().shape(), &[1, 0]);
    assert_eq!(a.slice(s![..;-(isize::MAX)]).unwrap().shape(), &[1, 0]);
    assert_eq!(a.slice(s![..usize::MAX]).unwrap().shape(), &[n, 0]);
    assert_eq!(a.slice(s![-1]).unwrap().shape(), &[0]);
    assert!(a.slice(s![.., 0]).is_err());
}
