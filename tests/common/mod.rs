//! Helpers shared by the integration tests: a seeded xorshift generator and
//! random strided views (a view of a given shape living inside a bigger buffer,
//! stored with its axes permuted and sliced with steps, negative ones included).

#![allow(dead_code)]

use ndsimd::{Array, ArrayView, DType, SliceArg};

/// A seeded xorshift64 generator (no `rand` crate).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn int(&mut self, lo: isize, hi: isize) -> isize {
        lo + (self.next() % (hi - lo + 1) as u64) as isize
    }

    /// A value, one in eight an IEEE edge case (±0, ±Inf, NaN, the least
    /// subnormal, `big`, -1); else a multiple of 1/8 in [-125, 125]. `big` is
    /// `f64::MAX` where overflow is part of the test, smaller where a sum's error
    /// bound must stay finite.
    pub fn edge_f64(&mut self, big: f64) -> f64 {
        let edge = [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            5e-324,
            big,
            -1.0,
        ];
        if self.below(8) == 0 {
            edge[self.below(edge.len())]
        } else {
            (self.below(2001) as f64 - 1000.0) / 8.0
        }
    }
}

/// Equal bits, or both NaN (any payload).
pub fn same_f64(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// A view of a given shape inside a bigger buffer: the base stored with its axes
/// permuted, the permutation back, and the slice that cuts the view out.
pub struct Layout<T: DType> {
    pub base: Array<T>,
    pub perm: Vec<usize>,
    pub args: Vec<SliceArg>,
}

impl<T: DType> Layout<T> {
    /// For each axis a step drawn from `steps` and up to `max_pad` extra elements
    /// of padding (no draw when there is a single choice); axes stored in a random
    /// order when `permute`; then the base filled from `value`, in storage order.
    pub fn new(
        rng: &mut Rng,
        shape: &[usize],
        steps: &[isize],
        max_pad: usize,
        permute: bool,
        mut value: impl FnMut(&mut Rng) -> T,
    ) -> Self {
        let n = shape.len();
        let mut args = Vec::new();
        let mut base_shape = Vec::new();
        for &len in shape {
            let step = if steps.len() > 1 {
                steps[rng.below(steps.len())]
            } else {
                steps[0]
            };
            let pad = if max_pad > 0 {
                rng.below(max_pad + 1)
            } else {
                0
            };
            let span = if len == 0 {
                0
            } else {
                (len - 1) * step.unsigned_abs() + 1
            };
            let blen = span + pad;
            base_shape.push(blen);
            args.push(if len == 0 {
                SliceArg::Slice {
                    start: Some(0),
                    stop: Some(0),
                    step: 1,
                }
            } else if step > 0 {
                let start = rng.below(pad + 1) as isize;
                SliceArg::Slice {
                    start: Some(start),
                    stop: Some(start + span as isize),
                    step,
                }
            } else {
                let start = (blen - 1 - rng.below(pad + 1)) as isize;
                let stop = start - span as isize;
                SliceArg::Slice {
                    start: Some(start),
                    stop: if stop < 0 { None } else { Some(stop) },
                    step,
                }
            });
        }
        let mut perm: Vec<usize> = (0..n).collect();
        if permute {
            for i in (1..n).rev() {
                perm.swap(i, rng.below(i + 1));
            }
        }
        let stored: Vec<usize> = perm.iter().map(|&p| base_shape[p]).collect();
        let size: usize = stored.iter().product();
        let base = Array::from_shape_vec(&stored, (0..size).map(|_| value(rng)).collect()).unwrap();
        // Axis p of the stored base is logical axis perm[p]; invert.
        let mut inv = vec![0; n];
        for (p, &q) in perm.iter().enumerate() {
            inv[q] = p;
        }
        Layout {
            base,
            perm: inv,
            args,
        }
    }

    /// The view the recipe describes.
    pub fn view(&self) -> ArrayView<'_, T> {
        let v = self.base.permute_axes(&self.perm).unwrap();
        v.slice_move(&self.args[..]).unwrap()
    }
}

/// A fresh directory under the system temp dir (`ndsimd-{suite}-test-{pid}-{name}-{n}`),
/// removed on drop (a failing test's too).
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(suite: &str, name: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "ndsimd-{suite}-test-{}-{name}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        // Left over from an earlier process of this pid: start empty.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// A file `name` in the directory holding `data`.
    pub fn file(&self, name: &str, data: &[u8]) -> std::path::PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, data).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Drops the cached pages of `file` (written back first) and says whether they
/// went: a file system that keeps its files in memory (tmpfs) cannot drop them, and
/// a test of cold reads then has nothing to test.
#[cfg(target_os = "linux")]
pub fn evicted(file: &std::fs::File) -> bool {
    file.sync_all().unwrap();
    ndsimd_kernels::io::drop_cached(file).unwrap();
    let map = ndsimd_kernels::io::Mapping::new(file).unwrap();
    let gone = !map.is_empty() && map.resident(0..map.len()).is_ok_and(|(r, _)| r == 0);
    if !gone {
        eprintln!("note: the temp dir's file system keeps its pages cached; cold case skipped");
    }
    gone
}
