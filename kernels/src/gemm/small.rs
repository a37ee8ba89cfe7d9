//! Products too small to repay packing: a plain loop, each element of C a dot
//! product over k in order (multiply then add, never fused), no scratch, no fan-out.

use super::mat::{Raw, RawMut};
use crate::scalar::Arith;

/// `C = alpha * A * B + beta * C` for an `m x k` A and `k x n` B, `k > 0`; `C` is not
/// read when `beta == 0`.
///
/// # Safety
/// `a.at(i, p)`, `b.at(p, j)` are valid for reads and `c.at(i, j)` for reads and
/// writes for every `i < m`, `p < k`, `j < n`, with distinct `(i, j)` distinct.
pub(crate) unsafe fn gemm<T: Arith>(
    (m, n, k): (usize, usize, usize),
    alpha: T,
    a: Raw<T>,
    b: Raw<T>,
    beta: T,
    c: RawMut<T>,
) {
    for j in 0..n {
        for i in 0..m {
            let mut ab = T::ZERO;
            // SAFETY: `i < m`, `p < k`, `j < n`, as the caller allows.
            unsafe {
                for p in 0..k {
                    ab = ab + *a.at(i, p) * *b.at(p, j);
                }
                let t = ab * alpha;
                let out = c.at(i, j);
                *out = if beta == T::ZERO { t } else { t + beta * *out };
            }
        }
    }
}
