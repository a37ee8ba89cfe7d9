//! SIMD slice kernels and CPU tier dispatch for `ndsimd`.
//!
//! This crate speaks only slices and lengths; it knows nothing of shapes. The
//! `ndsimd` crate turns views and broadcasting into runs of contiguous memory and
//! hands each run to a kernel from the [`Table`] of its element type.
//!
//! Every kernel has a portable oracle in [`scalar`], which is also the documentation
//! of what it computes; every tier is held bit-identical to it (reductions included:
//! they follow the canonical lane order documented there). The one freedom: when two
//! different NaNs meet in one addition, multiplication or fma, which of them comes out
//! is the compiler's choice (LLVM may commute the operands).
//!
//! Each tier lives in its architecture's (private) module (`x86::{sse2, avx2, avx512}`,
//! `aarch64::neon`) as one module or function per operation plus its tables (`F32`,
//! `F64`, `BYTES`), reachable only through [`KernelElement::table_for`] and
//! [`byte_table_for`], which check the CPU first. A tier file is a list saying, per
//! operation, whether it is the oracle compiled with the tier's target features
//! (autovectorised) or hand-written:
//!
//! | operations | scalar | sse2 | avx2 | avx512 | neon |
//! |---|---|---|---|---|---|
//! | neg abs maximum minimum, comparisons, fma | oracle | auto | auto | auto | auto |
//! | add sub mul | oracle | auto | auto | auto in L1, = avx2 past it | auto |
//! | div sqrt | oracle | auto | auto | = avx2 | auto |
//! | sum prod dot max min argmax argmin | oracle | hand | hand | hand | hand |
//! | count_byte | oracle | hand | hand | hand up to L2, = avx2 past it | hand |
//! | nth_byte | oracle | hand | hand | = avx2 | hand |
//! | first_nonzero_word | oracle | hand | hand | hand (its own loop) | hand |
//!
//! "auto" is the oracle under `#[target_feature]`, which LLVM vectorises at the tier's
//! width (measured in `benches/kernels.rs`: at a plain loop moving the same bytes from
//! L2 sizes up; `sqrt` is bound by the divider; a hand-written comparison with movemask
//! and a bit-to-bool table was no faster than LLVM's, so it was dropped). "hand" is one
//! algorithm in the private `generic` module over the per-ISA vector types of the
//! private `vector` module, as `memchr` does: the canonical-order reductions (whose
//! autovectorised form LLVM shuffles or narrows), the NaN-rule reductions and the scans
//! (whose early exits LLVM does not vectorise). "= avx2" is the AVX2 tier's kernel
//! itself, where its 256-bit loop measured faster than a 512-bit one (the reasons are
//! in `x86/avx512.rs`).
//!
//! The `fma` of the scalar and SSE2 tiers is the C library's software fma (correct,
//! slow); `dot` is [`scalar::dot`] on every tier (each product rounded, so the bits do
//! not depend on FMA hardware).

#![warn(missing_docs)]
// Every unsafe operation sits in an `unsafe` block with its `SAFETY:` line, inside
// `unsafe fn`s too.
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
// What a caller of an `unsafe fn` must guarantee is written in its `# Safety`
// section; clippy checks the public ones, `tests/safety_docs.rs` every one.
#![deny(clippy::missing_safety_doc)]

#[macro_use]
mod macros;

pub mod arena;
pub mod buffers;
pub mod ceiling;
pub mod dispatch;
pub mod gemm;
mod generic;
pub mod io;
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
pub mod libmvec;
pub mod math;
pub mod mem;
pub mod par;
pub mod pool;
pub mod scalar;
pub mod stdio;
pub mod stream;
// Private: the vector types run their ISA's instructions unchecked. `lookup2` is
// used only by the module's tests so far.
#[cfg_attr(not(test), allow(dead_code))]
mod vector;

// Private on purpose: a tier's kernels are safe `fn`s that execute that tier's
// instructions unconditionally, so the only way to reach them must be
// `KernelElement::table_for`, which checks the CPU first.
#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use dispatch::{
    active_tier, arch_tiers, available_tiers, byte_table, byte_table_for, cache_info,
    detected_tier, CacheInfo, Tier,
};

/// A kernel of this crate that writes every element of its output slice (it panics
/// before writing anything when the lengths disagree), so its output may be
/// uninitialised memory: [`par::collect_vv`] and its siblings build a `Vec` with it
/// without zeroing the allocation first. Only this crate makes these (the tables'
/// `*_uninit` fields); [`WritesAll::get`] hands out the function.
#[derive(Clone, Copy)]
pub struct WritesAll<F>(pub(crate) F);

impl<F: Copy> WritesAll<F> {
    /// The kernel itself.
    pub fn get(self) -> F {
        self.0
    }
}

/// Output slices of uninitialised elements, as the `*_uninit` kernels write them.
pub type Uninit<T> = [core::mem::MaybeUninit<T>];
/// `out[i] = f(a[i] - s)` into uninitialised memory, returning the sum of `out`.
pub type ShiftSumUninit<T> = fn(a: &[T], s: T, out: &mut Uninit<T>) -> T;
/// `out[i] = a[i] op b[i]` into uninitialised memory.
pub type VvUninit<T> = fn(a: &[T], b: &[T], out: &mut Uninit<T>);
/// `out[i] = a[i] op s` into uninitialised memory.
pub type VsUninit<T> = fn(a: &[T], s: T, out: &mut Uninit<T>);
/// `out[i] = s op b[i]` into uninitialised memory.
pub type SvUninit<T> = fn(s: T, b: &[T], out: &mut Uninit<T>);
/// `out[i] = f(a[i])` into uninitialised memory.
pub type MapUninit<T> = fn(a: &[T], out: &mut Uninit<T>);

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
    /// `vv` into uninitialised memory (the same values)
    pub vv_uninit: WritesAll<VvUninit<T>>,
    /// `vs` into uninitialised memory (the same values)
    pub vs_uninit: WritesAll<VsUninit<T>>,
    /// `sv` into uninitialised memory (the same values)
    pub sv_uninit: WritesAll<SvUninit<T>>,
    /// `acc[i] = acc[i] op b[i]`
    pub assign_vv: fn(acc: &mut [T], b: &[T]),
    /// `acc[i] = (((acc[i] op b[0][i]) op b[1][i]) op b[2][i]) op b[3][i]`: four
    /// `assign_vv` calls in one pass, the same bits (folding the rows of an axis)
    pub assign_vv4: fn(acc: &mut [T], b: [&[T]; 4]),
    /// `acc[i] = acc[i] op s`
    pub assign_vs: fn(acc: &mut [T], s: T),
}

/// A unary elementwise operation.
pub struct UnaryOp<T> {
    /// `out[i] = f(a[i])`
    pub map: fn(a: &[T], out: &mut [T]),
    /// `map` into uninitialised memory (the same values)
    pub map_uninit: WritesAll<MapUninit<T>>,
    /// `acc[i] = f(acc[i])`
    pub assign: fn(acc: &mut [T]),
}

/// A comparison producing booleans, NumPy semantics: every comparison with a NaN
/// is false except `ne`, which is true.
pub struct CmpOp<T> {
    /// `out[i] = a[i] cmp b[i]`
    pub vv: fn(a: &[T], b: &[T], out: &mut [bool]),
    /// `out[i] = a[i] cmp s` (a scalar on the left is the mirrored comparison)
    pub vs: fn(a: &[T], s: T, out: &mut [bool]),
}

/// The kernels of one element type at one tier.
///
/// The elementwise kernels, `maximum`/`minimum`, the comparisons, `max`/`min` and
/// `argmax`/`argmin` are bit-identical to [`scalar`] on every tier. `sum`, `prod`
/// and `dot` follow the canonical order documented in [`scalar`] (blocks in a fixed
/// lane order, added pairwise), so they are bit-identical across tiers too.
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
    /// `sqrt(x)`, correctly rounded; negative inputs give the hardware's default NaN
    pub sqrt: UnaryOp<T>,
    /// `e^x` within 1 ULP ([`math`]: NumPy's edges; not bit-identical across tiers)
    pub exp: UnaryOp<T>,
    /// `out[i] = exp(a[i] - s)` (the bits of `exp` of `a[i] - s` on this tier),
    /// returning the sum of `out`: softmax's row pass. The sum's order is the
    /// tier's (lane-wise partial sums), within `n` ε of a sequential sum.
    pub exp_shift_sum: WritesAll<ShiftSumUninit<T>>,
    /// `ln x` within 1 ULP ([`math`]: NumPy's edges; not bit-identical across tiers)
    pub log: UnaryOp<T>,
    /// `2^x` within 1 ULP ([`math`]: as `exp`)
    pub exp2: UnaryOp<T>,
    /// `log2 x` within 1 ULP ([`math`]: as `log`)
    pub log2: UnaryOp<T>,
    /// `log10 x` within 1 ULP ([`math`]: as `log`)
    pub log10: UnaryOp<T>,
    /// `e^x - 1` within 1 ULP, accurate near 0 ([`math::expm1_f64`]: `-1` for
    /// large negative `x`, `+Inf` past overflow, `-0` kept; not bit-identical across tiers)
    pub expm1: UnaryOp<T>,
    /// `ln(1 + x)` within 1 ULP, accurate near 0 ([`math::log1p_f64`]: `-Inf` at
    /// `-1`, NaN below, `-0` kept; not bit-identical across tiers)
    pub log1p: UnaryOp<T>,
    /// `tanh x` within 1 ULP ([`math::tanh_f64`]: `±1` past `|x|` of about 19
    /// (`f64`) or 9 (`f32`), `-0` kept; not bit-identical across tiers)
    pub tanh: UnaryOp<T>,
    /// `sin x` within 1 ULP ([`math`]: NaN for NaN and ±Inf, `sin(-0) = -0`)
    pub sin: UnaryOp<T>,
    /// `cos x` within 1 ULP ([`math`]: NaN for NaN and ±Inf)
    pub cos: UnaryOp<T>,
    /// `x^y` within 1 ULP ([`math`]: C99's and NumPy's edges; not bit-identical
    /// across tiers)
    pub pow: BinaryOp<T>,
    /// NumPy's `maximum(x, y)`: `x` if `x` is NaN, else `x > y ? x : y` (so a NaN in
    /// either propagates, and equal values, `-0` and `+0` included, give `y`)
    pub maximum: BinaryOp<T>,
    /// NumPy's `minimum(x, y)`: `x` if `x` is NaN, else `x < y ? x : y`
    pub minimum: BinaryOp<T>,
    /// `out[i] = a[i] * b[i] + c[i]` rounded once (IEEE fused multiply-add)
    #[allow(clippy::type_complexity)]
    pub fma: fn(a: &[T], b: &[T], c: &[T], out: &mut [T]),
    /// `==`
    pub eq: CmpOp<T>,
    /// `!=`
    pub ne: CmpOp<T>,
    /// `<`
    pub lt: CmpOp<T>,
    /// `<=`
    pub le: CmpOp<T>,
    /// `>`
    pub gt: CmpOp<T>,
    /// `>=`
    pub ge: CmpOp<T>,
    /// Sum in the canonical order ([`scalar::sum`]); `-0.0` for an empty slice
    /// (the caller maps an empty sum to NumPy's `+0.0`)
    pub sum: fn(a: &[T]) -> T,
    /// Product in the canonical lane order ([`scalar::prod`]); `1.0` for an empty slice
    pub prod: fn(a: &[T]) -> T,
    /// Largest element ([`scalar::max`]): the first NaN if there is one, and `+0`
    /// over `-0`; `None` for an empty slice
    pub max: fn(a: &[T]) -> Option<T>,
    /// Smallest element ([`scalar::min`]): the first NaN if there is one, and `-0`
    /// under `+0`; `None` for an empty slice
    pub min: fn(a: &[T]) -> Option<T>,
    /// Index of the first largest element, or of the first NaN; `None` when empty
    pub argmax: fn(a: &[T]) -> Option<usize>,
    /// Index of the first smallest element, or of the first NaN; `None` when empty
    pub argmin: fn(a: &[T]) -> Option<usize>,
    /// `sum(a[i] * b[i])` in the canonical order ([`scalar::dot`]), each product rounded
    pub dot: fn(a: &[T], b: &[T]) -> T,
}

/// The integer kernels of one element type (`i32`, `i64`, `u8`) at one tier, all
/// bit-identical to [`scalar::int`] (integer arithmetic has no rounding to differ in).
pub struct IntTable<T: 'static> {
    /// The tier these kernels were compiled for.
    pub tier: Tier,
    /// `x + y`, wrapping (NumPy's overflow rule)
    pub add: BinaryOp<T>,
    /// `x - y`, wrapping
    pub sub: BinaryOp<T>,
    /// `x * y`, wrapping
    pub mul: BinaryOp<T>,
    /// `==`
    pub eq: CmpOp<T>,
    /// `!=`
    pub ne: CmpOp<T>,
    /// `<`
    pub lt: CmpOp<T>,
    /// `<=`
    pub le: CmpOp<T>,
    /// `>`
    pub gt: CmpOp<T>,
    /// `>=`
    pub ge: CmpOp<T>,
    /// The sum in 64 bits, wrapping on `i64` overflow ([`scalar::int::sum`]); `0` when empty
    pub sum: fn(a: &[T]) -> i64,
}

/// The byte and word kernels of the file scan, at one tier.
pub struct ByteTable {
    /// The tier these kernels were compiled for.
    pub tier: Tier,
    /// How many bytes of `hay` equal `needle`.
    pub count_byte: fn(hay: &[u8], needle: u8) -> usize,
    /// The index of the `n`-th (from 0) byte of `hay` equal to `needle`; when there
    /// are `n` or fewer, `Err` with their number.
    pub nth_byte: fn(hay: &[u8], needle: u8, n: usize) -> Result<usize, usize>,
    /// The index of the first non-zero word, if any.
    pub first_nonzero_word: fn(words: &[u64]) -> Option<usize>,
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

mod int_sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for u8 {}
}

/// Integer element types that have kernel tables: `i32`, `i64` and `u8`.
///
/// ```
/// use ndsimd_kernels::IntKernelElement;
/// assert_eq!((i64::int_table().sum)(&[i64::MAX, 1]), i64::MIN); // wraps in 64 bits
/// ```
pub trait IntKernelElement: Copy + Send + Sync + 'static + int_sealed::Sealed {
    /// The table for the active tier (resolved once, then one load per call).
    fn int_table() -> &'static IntTable<Self>;
    /// The table for a given tier, or `None` when this architecture has no such tier
    /// or this CPU lacks it (as [`KernelElement::table_for`]).
    fn int_table_for(tier: Tier) -> Option<&'static IntTable<Self>>;
}
