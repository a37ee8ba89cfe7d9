//! The portable micro-kernels: [`tile`](super::kernel::tile) over one-lane "vectors".
//!
//! The multiply-add is not fused (`a * b + c`, two roundings): a software fma would
//! be far slower, and the tile shape leaves LLVM free to use whatever SIMD the
//! baseline target has.

use super::kernel::Simd;

/// One element posing as a vector.
#[derive(Clone, Copy)]
pub(crate) struct One<T>(T);

macro_rules! one_lane {
    ($t:ty) => {
        impl Simd for One<$t> {
            type T = $t;
            const N: usize = 1;
            #[inline(always)]
            unsafe fn zero() -> Self {
                One(0.0)
            }
            #[inline(always)]
            unsafe fn splat(x: $t) -> Self {
                One(x)
            }
            #[inline(always)]
            unsafe fn load(p: *const $t) -> Self {
                // SAFETY: the caller passes a pointer valid for one read.
                One(unsafe { *p })
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $t) {
                // SAFETY: the caller passes a pointer valid for one write.
                unsafe { *p = self.0 }
            }
            #[inline(always)]
            unsafe fn add(a: Self, b: Self) -> Self {
                One(a.0 + b.0)
            }
            #[inline(always)]
            unsafe fn mul(a: Self, b: Self) -> Self {
                One(a.0 * b.0)
            }
            #[inline(always)]
            unsafe fn mul_add(a: Self, b: Self, c: Self) -> Self {
                One(a.0 * b.0 + c.0)
            }
        }
    };
}
one_lane!(f64);
one_lane!(f32);

gemm_kernel!(F64, portable, f64, One<f64>, 4 x 4, edge 2 x 2, direct 4 x 4);
gemm_kernel!(F32, portable, f32, One<f32>, 4 x 4, edge 2 x 2, direct 4 x 4);
