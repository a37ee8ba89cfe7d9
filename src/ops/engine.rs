//! Turns N-dimensional operands into runs of contiguous memory for slice kernels.
//!
//! Every operand (the output first) is described by an offset and strides over the
//! output's shape (broadcast operands have stride 0). The plan drops length-1 axes,
//! makes the output's strides positive, orders axes by the output's stride, and
//! merges adjacent axes wherever every operand allows it. The last axis is then the
//! run: each operand is contiguous (stride 1), constant (stride 0, a broadcast) or
//! strided along it. Contiguous and constant operands go straight to the kernel (a
//! row broadcast over a matrix streams row by row, never copied to the full
//! shape); strided ones are gathered into a small stack buffer, block by block.

// Operands are parallel arrays indexed by operand number; index loops read best.
#![allow(clippy::needless_range_loop)]

use crate::array::MAX_NDIM;

/// Elements per gather block: small enough for the stack, large enough that the
/// kernel call dominates.
pub(crate) const BLOCK: usize = 256;

pub(crate) struct Plan<const K: usize> {
    ndim: usize,
    shape: [usize; MAX_NDIM],
    strides: [[isize; MAX_NDIM]; K],
    offsets: [isize; K],
}

impl<const K: usize> Plan<K> {
    /// `None` when the shape has no elements.
    pub(crate) fn new(
        shape: &[usize],
        offsets: [usize; K],
        strides: [&[isize]; K],
    ) -> Option<Self> {
        if shape.contains(&0) {
            return None;
        }
        let mut p = Plan {
            ndim: 0,
            shape: [0; MAX_NDIM],
            strides: [[0; MAX_NDIM]; K],
            offsets: offsets.map(|o| o as isize),
        };
        // Keep the axes that matter; flip those where the output walks backwards.
        for (ax, &len) in shape.iter().enumerate() {
            if len == 1 {
                continue;
            }
            let flip = strides[0][ax] < 0;
            for k in 0..K {
                let s = strides[k][ax];
                if flip {
                    p.offsets[k] += s * (len as isize - 1);
                    p.strides[k][p.ndim] = -s;
                } else {
                    p.strides[k][p.ndim] = s;
                }
            }
            p.shape[p.ndim] = len;
            p.ndim += 1;
        }
        // Order axes by the output's stride, largest first (stable: C order stays).
        for i in 1..p.ndim {
            let mut j = i;
            while j > 0 && p.strides[0][j - 1] < p.strides[0][j] {
                p.shape.swap(j - 1, j);
                for k in 0..K {
                    p.strides[k].swap(j - 1, j);
                }
                j -= 1;
            }
        }
        // Merge axis i into i+1 where every operand steps uniformly across both.
        let mut n = 0;
        for i in 0..p.ndim {
            if n > 0 {
                let prev = n - 1;
                let ok =
                    (0..K).all(|k| p.strides[k][prev] == p.strides[k][i] * p.shape[i] as isize);
                if ok {
                    p.shape[prev] *= p.shape[i];
                    for k in 0..K {
                        p.strides[k][prev] = p.strides[k][i];
                    }
                    continue;
                }
            }
            p.shape[n] = p.shape[i];
            for k in 0..K {
                p.strides[k][n] = p.strides[k][i];
            }
            n += 1;
        }
        if n == 0 {
            // A single element: one run of length 1.
            p.shape[0] = 1;
            for k in 0..K {
                p.strides[k][0] = 1;
            }
            n = 1;
        }
        p.ndim = n;
        Some(p)
    }

    /// The run length and each operand's stride along the run.
    pub(crate) fn run(&self) -> (usize, [isize; K]) {
        let last = self.ndim - 1;
        (
            self.shape[last],
            core::array::from_fn(|k| self.strides[k][last]),
        )
    }

    /// How many runs the plan has.
    pub(crate) fn runs(&self) -> usize {
        self.shape[..self.ndim - 1].iter().product()
    }

    /// Calls `f` with each operand's offset at the start of every run.
    pub(crate) fn for_each_run(&self, f: impl FnMut([usize; K])) {
        self.for_each_run_in(0, self.runs(), f)
    }

    /// [`for_each_run`](Self::for_each_run) for runs `r0..r1` only (in row-major
    /// order of the outer axes), so disjoint ranges can go to different workers.
    pub(crate) fn for_each_run_in(&self, r0: usize, r1: usize, mut f: impl FnMut([usize; K])) {
        if r0 >= r1 {
            return;
        }
        let outer = self.ndim - 1;
        let mut idx = [0usize; MAX_NDIM];
        let mut off = self.offsets;
        // Decompose r0 into the outer odometer, last outer axis fastest.
        let mut rem = r0;
        for ax in (0..outer).rev() {
            idx[ax] = rem % self.shape[ax];
            rem /= self.shape[ax];
            for k in 0..K {
                off[k] += self.strides[k][ax] * idx[ax] as isize;
            }
        }
        let mut left = r1 - r0;
        loop {
            f(off.map(|o| o as usize));
            left -= 1;
            if left == 0 {
                return;
            }
            let mut ax = outer;
            loop {
                if ax == 0 {
                    return;
                }
                ax -= 1;
                idx[ax] += 1;
                for k in 0..K {
                    off[k] += self.strides[k][ax];
                }
                if idx[ax] < self.shape[ax] {
                    break;
                }
                for k in 0..K {
                    off[k] -= self.strides[k][ax] * self.shape[ax] as isize;
                }
                idx[ax] = 0;
            }
        }
    }
}

/// Copies `len` elements starting at `off` with `stride` into `buf`.
#[inline]
pub(crate) fn gather<T: Copy>(src: &[T], off: usize, stride: isize, buf: &mut [T]) {
    let mut o = off as isize;
    for b in buf.iter_mut() {
        *b = src[o as usize];
        o += stride;
    }
}

/// Writes `buf` to `dst` starting at `off` with `stride`.
#[inline]
pub(crate) fn scatter<T: Copy>(dst: &mut [T], off: usize, stride: isize, buf: &[T]) {
    let mut o = off as isize;
    for &b in buf {
        dst[o as usize] = b;
        o += stride;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs<const K: usize>(p: &Plan<K>) -> Vec<[usize; K]> {
        let mut v = Vec::new();
        p.for_each_run(|o| v.push(o));
        v
    }

    #[test]
    fn merges_contiguous() {
        let p = Plan::new(&[2, 3, 4], [0, 0], [&[12, 4, 1], &[12, 4, 1]]).unwrap();
        assert_eq!(p.run(), (24, [1, 1]));
        assert_eq!(runs(&p), vec![[0, 0]]);
    }

    #[test]
    fn row_broadcast_streams_rows() {
        let p = Plan::new(&[3, 4], [0, 0, 0], [&[4, 1], &[4, 1], &[0, 1]]).unwrap();
        assert_eq!(p.run(), (4, [1, 1, 1]));
        assert_eq!(runs(&p), vec![[0, 0, 0], [4, 4, 0], [8, 8, 0]]);
    }

    #[test]
    fn flips_negative_output() {
        let p = Plan::new(&[4], [3, 0], [&[-1], &[1]]).unwrap();
        assert_eq!(p.run(), (4, [1, -1]));
        assert_eq!(runs(&p), vec![[0, 3]]);
    }

    #[test]
    fn run_ranges_partition_the_runs() {
        let p = Plan::new(&[3, 4, 5], [0, 0], [&[20, 5, 1], &[0, 0, 1]]).unwrap();
        assert_eq!(p.runs(), 12);
        let all = runs(&p);
        for r0 in 0..=12 {
            for r1 in r0..=12 {
                let mut v = Vec::new();
                p.for_each_run_in(r0, r1, |o| v.push(o));
                assert_eq!(v, all[r0..r1].to_vec());
            }
        }
    }

    #[test]
    fn empty_and_scalar() {
        assert!(Plan::new(&[2, 0], [0, 0], [&[0, 1], &[0, 1]]).is_none());
        let p = Plan::new(&[], [5, 7], [&[], &[]]).unwrap();
        assert_eq!(p.run().0, 1);
        assert_eq!(runs(&p), vec![[5, 7]]);
    }
}
