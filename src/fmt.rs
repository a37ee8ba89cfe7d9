//! `Display` (NumPy's `str`) and `Debug` (NumPy's `repr`) for arrays.
//!
//! Follows NumPy's defaults: up to 8 fractional digits, the shortest digits that
//! round-trip, decimal points aligned, scientific notation when the magnitudes
//! ask for it, lines wrapped at 75 characters, and `...` summaries (3 items at
//! each edge) for arrays of more than 1000 elements.

use crate::array::{ArrayBase, ArrayView, Data};
use crate::{DType, Element};
use std::fmt;

const PRECISION: usize = 8;
const THRESHOLD: usize = 1000;
const EDGE: usize = 3;
const LINEWIDTH: usize = 75;

struct Formatter {
    exp: bool,
    int_w: usize,
    frac_w: usize,
    exp_w: usize,
    width: usize,
}

/// Splits a finite value into (integer part with sign, fractional digits,
/// exponent) in NumPy's style.
fn parts<T: Element>(x: T, exp: bool) -> (String, String, Option<i32>) {
    let trim = |s: String| -> (String, String) {
        match s.split_once('.') {
            Some((i, f)) => (i.to_string(), f.trim_end_matches('0').to_string()),
            None => (s, String::new()),
        }
    };
    if exp {
        let s = format!("{x:e}");
        let (m, e) = s.split_once('e').unwrap();
        let frac = m.split_once('.').map(|(_, f)| f.len()).unwrap_or(0);
        let m = if frac > PRECISION {
            let s = format!("{x:.PRECISION$e}");
            s.split_once('e').unwrap().0.to_string()
        } else {
            m.to_string()
        };
        let (i, f) = trim(m);
        // Rounding at PRECISION digits may carry into the exponent ("9.99..e9").
        let e: i32 = if i.trim_start_matches('-') == "10" {
            e.parse::<i32>().unwrap() + 1
        } else {
            e.parse().unwrap()
        };
        let i = if i.trim_start_matches('-') == "10" {
            i.replace("10", "1")
        } else {
            i
        };
        (i, f, Some(e))
    } else {
        let s = format!("{x}");
        let frac = s.split_once('.').map(|(_, f)| f.len()).unwrap_or(0);
        let s = if frac > PRECISION {
            format!("{x:.PRECISION$}")
        } else {
            s
        };
        let (i, f) = trim(s);
        (i, f, None)
    }
}

impl Formatter {
    fn new<T: Element>(vals: &[T]) -> Self {
        let finite: Vec<T> = vals.iter().copied().filter(|v| v.is_finite()).collect();
        let abs_nz: Vec<f64> = finite
            .iter()
            .map(|v| v.abs().to_f64().unwrap())
            .filter(|&v| v != 0.0)
            .collect();
        let exp = if abs_nz.is_empty() {
            false
        } else {
            let max = abs_nz.iter().cloned().fold(0.0, f64::max);
            let min = abs_nz.iter().cloned().fold(f64::INFINITY, f64::min);
            max >= 1e8 || min < 1e-4 || max / min > 1e3
        };
        let (mut int_w, mut frac_w, mut exp_w) = (0, 0, 0);
        for &v in &finite {
            let (i, f, e) = parts(v, exp);
            int_w = int_w.max(i.len());
            frac_w = frac_w.max(f.len());
            if let Some(e) = e {
                exp_w = exp_w.max(format!("{}", e.unsigned_abs()).len().max(2));
            }
        }
        let mut width = if finite.is_empty() {
            0
        } else {
            int_w + 1 + frac_w + if exp { 2 + exp_w } else { 0 }
        };
        for &v in vals {
            if !v.is_finite() {
                width = width.max(special(v).len());
            }
        }
        Formatter {
            exp,
            int_w,
            frac_w,
            exp_w,
            width,
        }
    }

    fn format<T: Element>(&self, v: T) -> String {
        if !v.is_finite() {
            return format!("{:>w$}", special(v), w = self.width);
        }
        let (i, f, e) = parts(v, self.exp);
        if let Some(e) = e {
            // Scientific: NumPy pads the mantissa's digits with zeros.
            let sign = if e < 0 { '-' } else { '+' };
            let s = format!(
                "{i:>w$}.{f:0<fw$}e{sign}{:0>ew$}",
                e.unsigned_abs(),
                w = self.int_w,
                fw = self.frac_w,
                ew = self.exp_w
            );
            return format!("{s:>w$}", w = self.width);
        }
        let s = format!("{i:>w$}.{f:<fw$}", w = self.int_w, fw = self.frac_w);
        format!("{s:>w$}", w = self.width)
    }
}

fn special<T: Element>(v: T) -> &'static str {
    if v.is_nan() {
        "nan"
    } else if v > T::zero() {
        "inf"
    } else {
        "-inf"
    }
}

/// The index lists shown along an axis of length `n` (with a gap marker).
fn shown(n: usize, summarize: bool) -> (Vec<usize>, Option<usize>) {
    if summarize && n > 2 * EDGE {
        let mut v: Vec<usize> = (0..EDGE).collect();
        v.extend(n - EDGE..n);
        (v, Some(EDGE))
    } else {
        ((0..n).collect(), None)
    }
}

fn collect_shown<T: DType>(v: &ArrayView<'_, T>, summarize: bool, out: &mut Vec<T>) {
    if v.ndim() == 0 {
        out.push(*v.first().unwrap());
        return;
    }
    let (idx, _) = shown(v.shape()[0], summarize);
    for i in idx {
        let sub = v
            .view()
            .slice_move([crate::SliceArg::Index(i as isize)])
            .unwrap();
        collect_shown(&sub, summarize, out);
    }
}

/// Writes the nested brackets of `shape`, taking the formatted elements from
/// `words` in row-major order of the shown elements.
fn write_rec(
    out: &mut String,
    shape: &[usize],
    words: &mut impl Iterator<Item = String>,
    sep: &str,
    indent: usize,
    summarize: bool,
) {
    let nd = shape.len();
    let (idx, gap) = shown(shape[0], summarize);
    out.push('[');
    if nd == 1 {
        let mut line_len = indent + 1;
        for k in 0..idx.len() {
            if gap == Some(k) {
                let word = "...";
                push_word(out, &mut line_len, word, sep, indent);
            }
            let word = words.next().expect("one word per shown element");
            let last = k + 1 == idx.len();
            push_word(
                out,
                &mut line_len,
                &word,
                if last { "" } else { sep },
                indent,
            );
        }
    } else {
        let newlines = "\n".repeat(nd - 1);
        let pad = " ".repeat(indent + 1);
        for k in 0..idx.len() {
            if k > 0 {
                out.push_str(sep.trim_end());
                out.push_str(&newlines);
                out.push_str(&pad);
            }
            if gap == Some(k) {
                out.push_str("...");
                out.push_str(sep.trim_end());
                out.push_str(&newlines);
                out.push_str(&pad);
            }
            write_rec(out, &shape[1..], words, sep, indent + 1, summarize);
        }
    }
    out.push(']');
}

fn push_word(out: &mut String, line_len: &mut usize, word: &str, sep: &str, indent: usize) {
    let piece = word.len() + sep.trim_end().len();
    // +1 for the closing bracket that may follow on this line.
    if *line_len + piece + 1 > LINEWIDTH && *line_len > indent + 1 {
        while out.ends_with(' ') {
            out.pop();
        }
        out.push('\n');
        out.push_str(&" ".repeat(indent + 1));
        *line_len = indent + 1;
    }
    out.push_str(word);
    out.push_str(sep);
    *line_len += word.len() + sep.len();
}

/// NumPy's formatting of floats: one shared layout for all `vals`.
pub(crate) fn format_floats<T: Element>(vals: &[T]) -> Vec<String> {
    let f = Formatter::new(vals);
    vals.iter().map(|&v| f.format(v)).collect()
}

fn render<T: DType>(v: &ArrayView<'_, T>, sep: &str, indent: usize) -> String {
    let summarize = v.len() > THRESHOLD;
    let mut vals = Vec::new();
    collect_shown(v, summarize, &mut vals);
    let words = T::format_all(&vals);
    if v.ndim() == 0 {
        return words[0].trim().to_string();
    }
    let mut s = String::new();
    write_rec(
        &mut s,
        v.shape(),
        &mut words.into_iter(),
        sep,
        indent,
        summarize,
    );
    s
}

fn shape_tuple(shape: &[usize]) -> String {
    match shape.len() {
        1 => format!("({},)", shape[0]),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// NumPy's `str(a)`: `[[1. 2.]\n [3. 4.]]`.
impl<S: Data> fmt::Display for ArrayBase<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.view();
        // NumPy prints every empty array as `[]`, whatever its rank; the repr
        // (`Debug`) is where the shape shows.
        if v.is_empty() {
            return f.write_str("[]");
        }
        if v.ndim() == 0 {
            return f.write_str(&v.first().unwrap().format_scalar());
        }
        f.write_str(&render(&v, " ", 0))
    }
}

/// NumPy's `repr(a)`: `array([[1., 2.],\n       [3., 4.]])`, with `dtype=float32`
/// for `f32` arrays.
impl<S: Data> fmt::Debug for ArrayBase<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.view();
        let dtype = <S::Elem as DType>::DTYPE;
        // NumPy names the dtype unless it is the default for its literals.
        let show_dtype = !matches!(dtype, "float64" | "int64" | "bool");
        if v.is_empty() {
            if v.ndim() == 1 {
                return write!(f, "array([], dtype={dtype})");
            }
            return write!(
                f,
                "array([], shape={}, dtype={dtype})",
                shape_tuple(v.shape())
            );
        }
        let body = render(&v, ", ", 6);
        // NumPy 2 names the shape when the repr elides elements.
        let shape = if v.len() > THRESHOLD {
            format!(", shape={}", shape_tuple(v.shape()))
        } else {
            String::new()
        };
        let dtype = if show_dtype {
            format!(", dtype={dtype}")
        } else {
            String::new()
        };
        write!(f, "array({body}{shape}{dtype})")
    }
}

#[cfg(test)]
mod tests {
    use crate::Array;

    #[test]
    fn numpy_repr() {
        let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(format!("{a:?}"), "array([[1., 2.],\n       [3., 4.]])");
        assert_eq!(format!("{a}"), "[[1. 2.]\n [3. 4.]]");
        let b = Array::from_vec(vec![1.0, 2.5, 3.0]);
        assert_eq!(format!("{b:?}"), "array([1. , 2.5, 3. ])");
        let c = Array::from_vec(vec![1e-5, 1.0]);
        assert_eq!(format!("{c:?}"), "array([1.e-05, 1.e+00])");
        let d = Array::from_vec(vec![f64::NAN, -f64::INFINITY, 0.5]);
        assert_eq!(format!("{d:?}"), "array([ nan, -inf,  0.5])");
        let e = Array::<f32>::from_vec(vec![0.1, 100.0]);
        assert_eq!(format!("{e:?}"), "array([  0.1, 100. ], dtype=float32)");
        assert_eq!(
            format!("{:?}", Array::<f64>::zeros(&[0])),
            "array([], dtype=float64)"
        );
        assert_eq!(
            format!("{:?}", Array::<f64>::zeros(&[2, 0])),
            "array([], shape=(2, 0), dtype=float64)"
        );
        let z = Array::from_shape_vec(&[], vec![5.0]).unwrap();
        assert_eq!(format!("{z:?}"), "array(5.)");
        assert_eq!(format!("{z}"), "5.0");
        let big = Array::<f64>::arange(0.0, 2000.0, 1.0).unwrap();
        assert_eq!(
            format!("{big:?}"),
            "array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n       1.999e+03], shape=(2000,))"
        );
        let m = Array::from_vec(vec![1.5e-5, 1.0]);
        assert_eq!(format!("{m:?}"), "array([1.5e-05, 1.0e+00])");
        let w = Array::<f64>::arange(0.0, 30.0, 1.0)
            .unwrap()
            .mul(1.5)
            .unwrap();
        assert_eq!(
            format!("{w:?}"),
            "array([ 0. ,  1.5,  3. ,  4.5,  6. ,  7.5,  9. , 10.5, 12. , 13.5, 15. ,\n       16.5, 18. , 19.5, 21. , 22.5, 24. , 25.5, 27. , 28.5, 30. , 31.5,\n       33. , 34.5, 36. , 37.5, 39. , 40.5, 42. , 43.5])"
        );
        let b = Array::from_shape_vec(&[2, 2], vec![true, false, true, true]).unwrap();
        assert_eq!(
            format!("{b:?}"),
            "array([[ True, False],\n       [ True,  True]])"
        );
        assert_eq!(format!("{b}"), "[[ True False]\n [ True  True]]");
        assert_eq!(
            format!("{:?}", Array::from_vec(vec![true])),
            "array([ True])"
        );
        assert_eq!(
            format!("{:?}", Array::<bool>::from_vec(vec![])),
            "array([], dtype=bool)"
        );
        let p = Array::from_vec(vec![1.23456789012, 2.0]);
        assert_eq!(format!("{p:?}"), "array([1.23456789, 2.        ])");
        let t = Array::<f64>::arange(0.0, 8.0, 1.0)
            .unwrap()
            .into_shape(&[2, 2, 2])
            .unwrap();
        assert_eq!(
            format!("{t:?}"),
            "array([[[0., 1.],\n        [2., 3.]],\n\n       [[4., 5.],\n        [6., 7.]]])"
        );
    }

    /// Every empty array, of every rank and dtype, against NumPy 2.4's
    /// `str(np.zeros(shape, dtype))` (always `[]`) and `repr` (the shape beyond 1-D).
    #[test]
    fn empty_arrays_as_numpy() {
        fn check<T: crate::DType>(name: &str) {
            let shapes: [&[usize]; 9] = [
                &[0],
                &[0, 3],
                &[3, 0],
                &[2, 0, 4],
                &[0, 0],
                &[1, 0],
                &[0, 1, 1],
                &[2, 3, 0],
                &[1, 1, 0, 1],
            ];
            for shape in shapes {
                let a = Array::<T>::from_shape_vec(shape, vec![]).unwrap();
                assert_eq!(format!("{a}"), "[]", "{shape:?} {name}");
                assert_eq!(format!("{}", a.view()), "[]", "view {shape:?} {name}");
                let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
                let repr = match shape {
                    [_] => format!("array([], dtype={name})"),
                    _ => format!("array([], shape=({}), dtype={name})", dims.join(", ")),
                };
                assert_eq!(format!("{a:?}"), repr, "{shape:?} {name}");
            }
        }
        check::<f64>("float64");
        check::<f32>("float32");
        check::<bool>("bool");
    }
}
