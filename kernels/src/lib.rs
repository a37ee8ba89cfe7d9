//! SIMD slice kernels and CPU tier dispatch for `ndsimd`.
//!
//! This crate speaks only slices and lengths; it knows nothing of shapes. The
//! `ndsimd` crate turns views and broadcasting into runs of contiguous memory and
//! hands each run to a kernel from the [`Table`] of its element type.
//!
//! Every kernel has a portable oracle in [`scalar`]; the SIMD tiers are held
//! bit-identical to it for the elementwise operations.
//!
//! Each tier lives in its architecture's (private) module (`x86::{sse2, avx2, avx512}`,
//! `aarch64::neon`) as one module per operation plus two tables, `F32` and `F64`,
//! reachable only through [`KernelElement::table_for`].
//! Today a tier's kernels are the oracles compiled with that tier's target features;
//! hand-written intrinsics replace them one operation module at a time.

#![warn(missing_docs)]

#[macro_use]
mod macros;

pub mod dispatch;
pub mod mem;
pub mod scalar;

// Private on purpose: a tier's kernels are safe `fn`s that execute that tier's
// instructions unconditionally, so the only way to reach them must be
// `KernelElement::table_for`, which checks the CPU first.
#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use dispatch::{
    active_tier, arch_tiers, available_tiers, cache_info, detected_tier, CacheInfo, Tier,
};

/// A binary elementwise operation in every operand shape a run can take.
///
/// All slices passed together must have the same length; a kernel panics
/// otherwise (it never reads or writes past the shortest slice).
pub struct BinaryOp<T> {
    /// `out[i] = a[i] op b[i]`
    pub vv: fn(a: &[T], b: &[T], out: &mut [T]),
    /// `out[i] = a[i] op s`
    pub vs: fn(a: &[T], s: T, out: &mut [T]),
    /// `out[i] = s op b[i]`
    pub sv: fn(s: T, b: &[T], out: &mut [T]),
    /// `acc[i] = acc[i] op b[i]`
    pub assign_vv: fn(acc: &mut [T], b: &[T]),
    /// `acc[i] = acc[i] op s`
    pub assign_vs: fn(acc: &mut [T], s: T),
}

/// A unary elementwise operation.
pub struct UnaryOp<T> {
    /// `out[i] = f(a[i])`
    pub map: fn(a: &[T], out: &mut [T]),
    /// `acc[i] = f(acc[i])`
    pub assign: fn(acc: &mut [T]),
}

/// The kernels of one element type at one tier.
pub struct Table<T: 'static> {
    /// The tier these kernels were compiled for.
    pub tier: Tier,
    /// `x + y`
    pub add: BinaryOp<T>,
    /// `x - y`
    pub sub: BinaryOp<T>,
    /// `x * y` (never fused with a following add)
    pub mul: BinaryOp<T>,
    /// `x / y`, correctly rounded as IEEE 754 requires
    pub div: BinaryOp<T>,
    /// `-x` by flipping the sign bit, NaN included
    pub neg: UnaryOp<T>,
    /// `|x|` by clearing the sign bit, so `abs(-NaN)` is `+NaN` (as NumPy)
    pub abs: UnaryOp<T>,
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// Element types that have kernel tables: `f32` and `f64`.
pub trait KernelElement: Copy + Send + Sync + 'static + sealed::Sealed {
    /// The table for the active tier (resolved once, then one load per call).
    fn table() -> &'static Table<Self>;
    /// The table for a given tier, or `None` when this architecture has no such tier
    /// or this CPU lacks it (so holding a table proves its features are present).
    fn table_for(tier: Tier) -> Option<&'static Table<Self>>;
}
