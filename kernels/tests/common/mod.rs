//! Shared by the integration tests: element-type helpers, IEEE edge inputs, a tiny
//! xorshift generator, and every kernel of a table behind one calling convention.

#![allow(dead_code)] // each test file uses a different part of this module

use ndsimd_kernels::scalar::Arith;
use ndsimd_kernels::{KernelElement, Table};
use std::fmt::Debug;

/// The widest vector in f32 lanes (AVX-512): lengths up to `3 * W + 3` cover every
/// tail residue of every tier, plus a few full vectors.
pub const W: usize = 16;
/// Longest slice the tests hand a kernel.
pub const MAX_LEN: usize = 3 * W + 3;

/// xorshift64: deterministic, so a failure reproduces, and no `rand` dependency.
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// What the tests need of `f32` and `f64` beyond what the kernels need.
pub trait TestFloat: KernelElement + Arith + Debug {
    const NAME: &'static str;
    fn bits(self) -> u64;
    /// ±0, ±Inf, NaNs (payload, sign bit set, signalling), subnormals, MIN_POSITIVE,
    /// MAX, MIN, ±1.
    fn edges() -> Vec<Self>;
    /// Half arbitrary bit patterns (every exponent, random NaN payloads), half
    /// ordinary values whose sums and quotients round.
    fn random(rng: &mut XorShift) -> Self;
    /// A value no kernel produces from the test inputs, written around each output
    /// slice to catch writes outside it.
    fn canary() -> Self;
    /// The bits of this NaN once quieted, as any arithmetic instruction returns it.
    fn quiet_bits(self) -> u64;
    fn nan(self) -> bool;
}

impl TestFloat for f32 {
    const NAME: &'static str = "f32";
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn edges() -> Vec<f32> {
        let b = f32::from_bits;
        vec![
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            b(0x7fc1_2345), // quiet NaN with a payload
            b(0xffc0_0bad), // quiet NaN, sign bit set
            b(0x7f80_0001), // signalling NaN
            b(0x0000_0001), // smallest subnormal
            b(0x807f_ffff), // largest subnormal, negative
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            1.0,
            -1.0,
        ]
    }
    fn random(rng: &mut XorShift) -> f32 {
        let r = rng.next();
        if r & 1 == 0 {
            f32::from_bits((r >> 32) as u32)
        } else {
            ((r >> 32) as i32) as f32 / (1u32 << (r >> 8 & 31)) as f32
        }
    }
    fn canary() -> f32 {
        f32::from_bits(0x7fbe_ef01)
    }
    fn quiet_bits(self) -> u64 {
        (self.to_bits() | 0x0040_0000) as u64
    }
    fn nan(self) -> bool {
        self.is_nan()
    }
}

impl TestFloat for f64 {
    const NAME: &'static str = "f64";
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn edges() -> Vec<f64> {
        let b = f64::from_bits;
        vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            b(0x7ff8_0000_0012_3456), // quiet NaN with a payload
            b(0xfff8_0000_0000_0bad), // quiet NaN, sign bit set
            b(0x7ff0_0000_0000_0001), // signalling NaN
            b(0x0000_0000_0000_0001), // smallest subnormal
            b(0x800f_ffff_ffff_ffff), // largest subnormal, negative
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            1.0,
            -1.0,
        ]
    }
    fn random(rng: &mut XorShift) -> f64 {
        let r = rng.next();
        if r & 1 == 0 {
            f64::from_bits(rng.next())
        } else {
            (r as i64 >> 1) as f64 / (1u64 << (r >> 8 & 63)) as f64
        }
    }
    fn canary() -> f64 {
        f64::from_bits(0x7ff7_beef_beef_0001)
    }
    fn quiet_bits(self) -> u64 {
        self.to_bits() | 0x0008_0000_0000_0000
    }
    fn nan(self) -> bool {
        self.is_nan()
    }
}

/// One kernel of a table, whatever its operand shape.
#[derive(Clone, Copy)]
pub enum Kernel<T: 'static> {
    Vv(fn(&[T], &[T], &mut [T])),
    Vs(fn(&[T], T, &mut [T])),
    Sv(fn(T, &[T], &mut [T])),
    AssignVv(fn(&mut [T], &[T])),
    AssignVs(fn(&mut [T], T)),
    Map(fn(&[T], &mut [T])),
    Assign(fn(&mut [T])),
}

impl<T: Copy> Kernel<T> {
    /// The two operands element `i` of a binary kernel combines under [`Kernel::run`]'s
    /// convention; `None` for unary kernels.
    pub fn operands(self, a: &[T], b: &[T], s: T, i: usize) -> Option<(T, T)> {
        match self {
            Kernel::Vv(_) | Kernel::AssignVv(_) => Some((a[i], b[i])),
            Kernel::Vs(_) | Kernel::AssignVs(_) => Some((a[i], s)),
            Kernel::Sv(_) => Some((s, b[i])),
            Kernel::Map(_) | Kernel::Assign(_) => None,
        }
    }

    /// Runs the kernel as `out = op(a, b, s)`. In-place kernels take `out` as their
    /// accumulator after `a` is copied into it, so every shape reads `a` and writes `out`.
    pub fn run(self, a: &[T], b: &[T], s: T, out: &mut [T]) {
        match self {
            Kernel::Vv(f) => f(a, b, out),
            Kernel::Vs(f) => f(a, s, out),
            Kernel::Sv(f) => f(s, b, out),
            Kernel::AssignVv(f) => {
                out.copy_from_slice(a);
                f(out, b)
            }
            Kernel::AssignVs(f) => {
                out.copy_from_slice(a);
                f(out, s)
            }
            Kernel::Map(f) => f(a, out),
            Kernel::Assign(f) => {
                out.copy_from_slice(a);
                f(out)
            }
        }
    }
}

/// Every kernel of a table with its name, in a fixed order (so index `k` of two
/// tables is the same operation).
pub fn kernels<T>(t: &Table<T>) -> Vec<(String, Kernel<T>)> {
    let mut v = Vec::new();
    for (name, op) in [
        ("add", &t.add),
        ("sub", &t.sub),
        ("mul", &t.mul),
        ("div", &t.div),
    ] {
        v.push((format!("{name}.vv"), Kernel::Vv(op.vv)));
        v.push((format!("{name}.vs"), Kernel::Vs(op.vs)));
        v.push((format!("{name}.sv"), Kernel::Sv(op.sv)));
        v.push((format!("{name}.assign_vv"), Kernel::AssignVv(op.assign_vv)));
        v.push((format!("{name}.assign_vs"), Kernel::AssignVs(op.assign_vs)));
    }
    for (name, op) in [("neg", &t.neg), ("abs", &t.abs)] {
        v.push((format!("{name}.map"), Kernel::Map(op.map)));
        v.push((format!("{name}.assign"), Kernel::Assign(op.assign)));
    }
    v
}

/// Fills `buf` with random values, a quarter of them edge values, and then puts an
/// edge value (chosen by `pick`) at the start, the middle and the end of `buf[range]`.
pub fn fill<T: TestFloat>(
    buf: &mut [T],
    range: std::ops::Range<usize>,
    rng: &mut XorShift,
    pick: &mut usize,
) {
    let edges = T::edges();
    for x in buf.iter_mut() {
        let r = rng.next();
        *x = if r.is_multiple_of(4) {
            edges[(r >> 8) as usize % edges.len()]
        } else {
            T::random(rng)
        };
    }
    if range.is_empty() {
        return;
    }
    let len = range.len();
    for at in [0, len / 2, len - 1] {
        buf[range.start + at] = edges[*pick % edges.len()];
        *pick += 1;
    }
}
