//! Portable oracles: the reference every SIMD kernel is tested against, and the
//! documentation of what each kernel computes.
//!
//! They are written so that LLVM vectorises the ones that are plain elementwise work
//! (the tiers without a hand-written kernel are these functions compiled with the
//! tier's target features), but each stays the readable statement of its rule.
//!
//! # The canonical order of `sum`, `prod` and `dot`
//!
//! A reduction keeps `L = 256 / size_of::<T>()` partial results ([`Arith::CANONICAL_LANES`]:
//! 32 for `f64`, 64 for `f32`), each starting at the identity (`-0.0` for sums, the
//! true additive identity, so the sum of `[-0.0]` is `-0.0`; `1.0` for products).
//! Element `i` is combined into lane `i % L` in index order, the tail too (lanes the
//! tail does not reach are left alone). The lanes are then folded by halving:
//! `while width > 1 { width /= 2; acc[j] = acc[j] op acc[j + width] for j < width }`,
//! and the result is `acc[0]`. Every tier follows this order, so a reduction gives the
//! same bits on every tier (a SIMD kernel fills the lanes past a tail with the
//! identity, which leaves them unchanged).
//!
//! `sum` and `dot` apply that lane order to blocks of [`BLOCK_BYTES`] (2 KiB:
//! [`block_len`] is 256 `f64` or 512 `f32`, so each lane adds 8 elements of a block),
//! and add the block results pairwise ([`Pairwise`]): the first `h` blocks, `h` the
//! largest power of two below the block count, form a perfect binary tree, and the
//! rest is summed the same way and added on the right. The tree depends only on the
//! length, so any aligned run of `2^j` blocks (and the run from there to the end) is
//! one of its subtrees: summed alone it gives the same bits, which is how a sum split
//! over threads on such runs ([`crate::par::tree_piece_len`]) matches one thread's.
//! Along any path of the tree at most `8 + log2 L + ceil(log2(n / block))` additions
//! round, so the result is within that many `ε·Σ|x|` of the exact sum (`ε` the unit
//! roundoff, `2^-53` for `f64` and `2^-24` for `f32`): no more than NumPy's pairwise
//! summation (blocks of 128 on 8 accumulators, `≈ 19 + ceil(log2(n / 128))`).
//! `prod` is one block of the lane order (a product's relative error does not depend
//! on the grouping the way a sum's does).
//!
//! When the result of `sum` or `prod` is a NaN and some input is a NaN, the result is
//! the first input NaN, quieted (NumPy's answer), on every tier; a NaN made by the
//! arithmetic (`inf - inf`, `0 * inf`) is the hardware's default NaN.
//!
//! ```
//! use ndsimd_kernels::scalar;
//! assert_eq!(scalar::sum(&[1.0f64, 2.0, 3.0]), 6.0);
//! assert!(scalar::sum::<f64>(&[]).is_sign_negative()); // -0.0: the identity
//! assert_eq!(scalar::max(&[-0.0f64, 0.0]).unwrap().to_bits(), 0); // +0 over -0
//! assert_eq!(scalar::argmax(&[1.0f64, f64::NAN, 2.0]), Some(1)); // the first NaN
//! ```

use core::fmt::Debug;

/// One binary elementwise oracle in its five operand shapes, from the rule for one
/// pair of elements (`|x, y| expression`).
macro_rules! binary_oracle {
    ($(#[$doc:meta])* $name:ident, |$x:ident, $y:ident| $rule:expr $(, staged = $staged:literal)?) => {
        binary_oracle!(@ Arith; $(#[$doc])* $name, |$x, $y| $rule $(, staged = $staged)?);
    };
    // `$Arith`: the oracle's element trait (`Arith` for floats, `int::IntArith`).
    (@ $($Arith:ident)::+; $(#[$doc:meta])* $name:ident, |$x:ident, $y:ident| $rule:expr $(, staged = $staged:literal)?) => {
        $(#[$doc])*
        pub mod $name {
            use $crate::scalar::$($Arith)::+ as Arith;
            /// Whether the in-place forms go through a stack block. For the rules
            /// that select one of their inputs (`maximum`, `minimum`), "store `acc`
            /// back unless `b` wins" is what LLVM sees, and it compiles that to a
            /// masked store of `b` (3.5x slower than `add` in place at 16Ki on AVX2);
            /// computing a block into the stack and copying it keeps plain stores.
            const STAGED: bool = false $(|| $staged)?;
            /// Elements per stack block of the staged forms.
            const BLOCK: usize = 64;
            /// The rule for one pair of elements.
            #[inline(always)]
            pub fn one<T: Arith>($x: T, $y: T) -> T {
                $rule
            }
            /// `out[i] = a[i] op b[i]`
            #[inline(always)]
            pub fn vv<T: Arith>(a: &[T], b: &[T], out: &mut [T]) {
                assert!(a.len() == out.len() && b.len() == out.len(), "kernel length mismatch");
                for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                    *o = one(x, y);
                }
            }
            /// `out[i] = a[i] op s`
            #[inline(always)]
            pub fn vs<T: Arith>(a: &[T], s: T, out: &mut [T]) {
                assert!(a.len() == out.len(), "kernel length mismatch");
                for (o, &x) in out.iter_mut().zip(a) {
                    *o = one(x, s);
                }
            }
            /// `out[i] = s op b[i]`
            #[inline(always)]
            pub fn sv<T: Arith>(s: T, b: &[T], out: &mut [T]) {
                assert!(b.len() == out.len(), "kernel length mismatch");
                for (o, &y) in out.iter_mut().zip(b) {
                    *o = one(s, y);
                }
            }
            /// [`vv`] into uninitialised memory: writes every element of `out`
            #[inline(always)]
            pub fn vv_uninit<T: Arith>(a: &[T], b: &[T], out: &mut [core::mem::MaybeUninit<T>]) {
                assert!(a.len() == out.len() && b.len() == out.len(), "kernel length mismatch");
                for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                    o.write(one(x, y));
                }
            }
            /// [`vs`] into uninitialised memory: writes every element of `out`
            #[inline(always)]
            pub fn vs_uninit<T: Arith>(a: &[T], s: T, out: &mut [core::mem::MaybeUninit<T>]) {
                assert!(a.len() == out.len(), "kernel length mismatch");
                for (o, &x) in out.iter_mut().zip(a) {
                    o.write(one(x, s));
                }
            }
            /// [`sv`] into uninitialised memory: writes every element of `out`
            #[inline(always)]
            pub fn sv_uninit<T: Arith>(s: T, b: &[T], out: &mut [core::mem::MaybeUninit<T>]) {
                assert!(b.len() == out.len(), "kernel length mismatch");
                for (o, &y) in out.iter_mut().zip(b) {
                    o.write(one(s, y));
                }
            }
            /// `acc[i] = acc[i] op b[i]`
            #[inline(always)]
            pub fn assign_vv<T: Arith>(acc: &mut [T], b: &[T]) {
                assert!(b.len() == acc.len(), "kernel length mismatch");
                if STAGED {
                    let mut tmp = [T::ZERO; BLOCK];
                    for (o, y) in acc.chunks_mut(BLOCK).zip(b.chunks(BLOCK)) {
                        let t = &mut tmp[..o.len()];
                        for ((t, &x), &y) in t.iter_mut().zip(o.iter()).zip(y) {
                            *t = one(x, y);
                        }
                        o.copy_from_slice(t);
                    }
                    return;
                }
                for (o, &y) in acc.iter_mut().zip(b) {
                    *o = one(*o, y);
                }
            }
            /// `acc[i] = (((acc[i] op b[0][i]) op b[1][i]) op b[2][i]) op b[3][i]`: four
            /// [`assign_vv`] calls in one pass over `acc`, the same operations in the same
            /// order (so the same bits), with one load and one store of `acc` for four
            /// inputs instead of four of each.
            #[inline(always)]
            pub fn assign_vv4<T: Arith>(acc: &mut [T], b: [&[T]; 4]) {
                let n = acc.len();
                assert!(b.iter().all(|r| r.len() == n), "kernel length mismatch");
                let (b0, b1, b2, b3) = (&b[0][..n], &b[1][..n], &b[2][..n], &b[3][..n]);
                for i in 0..n {
                    acc[i] = one(one(one(one(acc[i], b0[i]), b1[i]), b2[i]), b3[i]);
                }
            }
            /// `acc[i] = acc[i] op s`
            #[inline(always)]
            pub fn assign_vs<T: Arith>(acc: &mut [T], s: T) {
                if STAGED {
                    let mut tmp = [T::ZERO; BLOCK];
                    for o in acc.chunks_mut(BLOCK) {
                        let t = &mut tmp[..o.len()];
                        for (t, &x) in t.iter_mut().zip(o.iter()) {
                            *t = one(x, s);
                        }
                        o.copy_from_slice(t);
                    }
                    return;
                }
                for o in acc.iter_mut() {
                    *o = one(*o, s);
                }
            }
        }
    };
}

/// One unary elementwise oracle in its two shapes, from the rule for one element.
macro_rules! unary_oracle {
    ($(#[$doc:meta])* $name:ident, |$x:ident| $rule:expr) => {
        $(#[$doc])*
        pub mod $name {
            use $crate::scalar::Arith;
            /// The rule for one element.
            #[inline(always)]
            pub fn one<T: Arith>($x: T) -> T {
                $rule
            }
            /// `out[i] = f(a[i])`
            #[inline(always)]
            pub fn map<T: Arith>(a: &[T], out: &mut [T]) {
                assert!(a.len() == out.len(), "kernel length mismatch");
                for (o, &x) in out.iter_mut().zip(a) {
                    *o = one(x);
                }
            }
            /// [`map`] into uninitialised memory: writes every element of `out`
            #[inline(always)]
            pub fn map_uninit<T: Arith>(a: &[T], out: &mut [core::mem::MaybeUninit<T>]) {
                assert!(a.len() == out.len(), "kernel length mismatch");
                for (o, &x) in out.iter_mut().zip(a) {
                    o.write(one(x));
                }
            }
            /// `acc[i] = f(acc[i])`
            #[inline(always)]
            pub fn assign<T: Arith>(acc: &mut [T]) {
                for o in acc.iter_mut() {
                    *o = one(*o);
                }
            }
        }
    };
}

/// One comparison oracle, writing `bool`s, in its two shapes.
macro_rules! cmp_oracle {
    ($(#[$doc:meta])* $name:ident, $op:tt) => {
        cmp_oracle!(@ Arith; $(#[$doc])* $name, $op);
    };
    (@ $($Arith:ident)::+; $(#[$doc:meta])* $name:ident, $op:tt) => {
        $(#[$doc])*
        pub mod $name {
            use $crate::scalar::$($Arith)::+ as Arith;
            /// `out[i] = a[i] cmp b[i]`
            #[inline(always)]
            pub fn vv<T: Arith>(a: &[T], b: &[T], out: &mut [bool]) {
                assert!(a.len() == out.len() && b.len() == out.len(), "kernel length mismatch");
                for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                    *o = x $op y;
                }
            }
            /// `out[i] = a[i] cmp s`
            #[inline(always)]
            pub fn vs<T: Arith>(a: &[T], s: T, out: &mut [bool]) {
                assert!(a.len() == out.len(), "kernel length mismatch");
                for (o, &x) in out.iter_mut().zip(a) {
                    *o = x $op s;
                }
            }
        }
    };
}

// After the oracle macros, which it uses.
pub mod int;

/// The arithmetic the oracles need; implemented for `f32` and `f64`.
pub trait Arith:
    Copy
    + Debug
    + PartialOrd
    + Send
    + Sync
    + 'static
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
    + core::ops::Neg<Output = Self>
{
    /// Lanes of the canonical reduction order: `256 / size_of::<Self>()`.
    const CANONICAL_LANES: usize;
    /// `[Self; CANONICAL_LANES]`, the partial results of a canonical reduction.
    type Lanes: Copy + AsRef<[Self]> + AsMut<[Self]>;
    /// `+0.0`
    const ZERO: Self;
    /// `-0.0`, the additive identity (`x + -0.0 == x` bit for bit, `-0.0` included).
    const NEG_ZERO: Self;
    /// `1.0`
    const ONE: Self;
    /// The least positive normal number.
    const MIN_POSITIVE: Self;
    /// `n` exactly (`n < 2^24`): lane indices for the vector shuffles.
    fn small(n: u32) -> Self;
    /// Every lane set to `x`.
    fn lanes(x: Self) -> Self::Lanes;
    /// Absolute value by clearing the sign bit (so `abs(-NaN)` is `+NaN`, as NumPy).
    fn abs_bits(self) -> Self;
    /// Correctly rounded square root.
    fn sqrt(self) -> Self;
    /// `self * b + c` with one rounding.
    fn mul_add(self, b: Self, c: Self) -> Self;
    /// Whether this is a NaN.
    fn is_nan(self) -> bool;
    /// Whether the sign bit is set (`-0.0` and negative NaNs included).
    fn is_sign_negative(self) -> bool;
    /// `self` with the quiet bit set (a NaN as an arithmetic operation returns it).
    fn quieted(self) -> Self;
    /// `floor(log2 |self|)` for a finite nonzero `self`, subnormals included
    /// (AVX-512's `vgetexp`); other inputs give unspecified values.
    fn getexp(self) -> Self;
    /// `|self|` times the power of two that puts it in `[0.75, 1.5)`, for a finite
    /// nonzero `self`, subnormals included (AVX-512's `vgetmant` with that
    /// interval); other inputs give unspecified values.
    fn getmant(self) -> Self;
    /// `self * 2^floor(b)` where that and `2^floor(b)` are normal numbers
    /// (AVX-512's `vscalef`); other inputs give unspecified values.
    fn scalef(self, b: Self) -> Self;
}

macro_rules! arith_impl {
    ($t:ty, $bits:ty, $split:ident, $sign:expr, $quiet:expr) => {
        impl Arith for $t {
            const CANONICAL_LANES: usize = 256 / core::mem::size_of::<$t>();
            type Lanes = [$t; 256 / core::mem::size_of::<$t>()];
            const ZERO: $t = 0.0;
            const NEG_ZERO: $t = -0.0;
            const ONE: $t = 1.0;
            const MIN_POSITIVE: $t = <$t>::MIN_POSITIVE;
            #[inline(always)]
            fn small(n: u32) -> $t {
                n as $t
            }
            #[inline(always)]
            fn lanes(x: $t) -> Self::Lanes {
                [x; 256 / core::mem::size_of::<$t>()]
            }
            #[inline(always)]
            fn abs_bits(self) -> $t {
                <$t>::from_bits(self.to_bits() & !$sign)
            }
            #[inline(always)]
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn mul_add(self, b: $t, c: $t) -> $t {
                <$t>::mul_add(self, b, c)
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn is_sign_negative(self) -> bool {
                self.to_bits() & $sign != 0
            }
            #[inline(always)]
            fn quieted(self) -> $t {
                <$t>::from_bits(self.to_bits() | $quiet)
            }
            fn getexp(self) -> $t {
                $split(self.to_bits() & !$sign).1 as $t
            }
            fn scalef(self, b: $t) -> $t {
                const M: u32 = <$t>::MANTISSA_DIGITS - 1;
                const BIAS: i32 = <$t>::MAX_EXP - 1;
                let e = (b.floor() as i32).clamp(1 - BIAS, BIAS);
                self * <$t>::from_bits(((e + BIAS) as $bits) << M)
            }
            fn getmant(self) -> $t {
                let m = <$t>::from_bits($split(self.to_bits() & !$sign).0);
                if m >= 1.5 {
                    m * 0.5
                } else {
                    m
                }
            }
        }

        /// The bits `b` of a positive finite nonzero number as `m 2^e`: the bits
        /// of `m` in `[1, 2)` and `e` (subnormals normalised first).
        fn $split(b: $bits) -> ($bits, i32) {
            const M: u32 = <$t>::MANTISSA_DIGITS - 1;
            const BIAS: i32 = <$t>::MAX_EXP - 1;
            let field = (b >> M) as i32;
            let (frac, e) = if field == 0 {
                // Subnormal: shift the leading one up to the implicit bit's place.
                let sh = b.leading_zeros() - (<$bits>::BITS - 1 - M);
                ((b << sh) & ((1 << M) - 1), 1 - BIAS - sh as i32)
            } else {
                (b & ((1 << M) - 1), field - BIAS)
            };
            (frac | ((BIAS as $bits) << M), e)
        }
    };
}

arith_impl!(f32, u32, split_exp_f32, 0x8000_0000u32, 0x0040_0000u32);
arith_impl!(
    f64,
    u64,
    split_exp_f64,
    0x8000_0000_0000_0000u64,
    0x0008_0000_0000_0000u64
);

binary_oracle!(
    /// `x + y`
    add, |x, y| x + y
);
binary_oracle!(
    /// `x - y`
    sub, |x, y| x - y
);
binary_oracle!(
    /// `x * y` (never fused with a following add)
    mul, |x, y| x * y
);
binary_oracle!(
    /// `x / y`
    div, |x, y| x / y
);
binary_oracle!(
    /// NumPy's `maximum`: `x` if `x` is NaN, else `x > y ? x : y`. The result is one of
    /// the inputs bit for bit: a NaN in either propagates (the first one when both
    /// are), and equal inputs (`-0` and `+0` included) give `y`.
    maximum, |x, y| if x.is_nan() | (x > y) { x } else { y }, staged = true
);
binary_oracle!(
    /// NumPy's `minimum`: `x` if `x` is NaN, else `x < y ? x : y` (same rules as
    /// [`maximum`]).
    minimum, |x, y| if x.is_nan() | (x < y) { x } else { y }, staged = true
);

unary_oracle!(
    /// Negation (flips the sign bit, NaN included).
    neg, |x| -x
);
unary_oracle!(
    /// Absolute value (clears the sign bit, NaN included).
    abs, |x| x.abs_bits()
);
unary_oracle!(
    /// Correctly rounded square root; a negative input gives the hardware's NaN.
    sqrt, |x| x.sqrt()
);

cmp_oracle!(
    /// `==` (false when either is NaN)
    eq, ==
);
cmp_oracle!(
    /// `!=` (true when either is NaN)
    ne, !=
);
cmp_oracle!(
    /// `<` (false when either is NaN)
    lt, <
);
cmp_oracle!(
    /// `<=` (false when either is NaN)
    le, <=
);
cmp_oracle!(
    /// `>` (false when either is NaN)
    gt, >
);
cmp_oracle!(
    /// `>=` (false when either is NaN)
    ge, >=
);

/// `out[i] = a[i] * b[i] + c[i]` rounded once (`mul_add`; without FMA hardware this is
/// the software fma of the C library: correct, slow).
#[inline(always)]
pub fn fma<T: Arith>(a: &[T], b: &[T], c: &[T], out: &mut [T]) {
    let n = out.len();
    assert!(
        a.len() == n && b.len() == n && c.len() == n,
        "kernel length mismatch"
    );
    for (((o, &x), &y), &z) in out.iter_mut().zip(a).zip(b).zip(c) {
        *o = x.mul_add(y, z);
    }
}

/// Folds the lanes of a canonical reduction by halving (see the module docs).
#[inline(always)]
fn fold<T: Arith>(mut acc: T::Lanes, op: impl Fn(T, T) -> T) -> T {
    let acc = acc.as_mut();
    let mut width = acc.len();
    while width > 1 {
        width /= 2;
        let (lo, hi) = acc.split_at_mut(width);
        for (l, &h) in lo.iter_mut().zip(&hi[..width]) {
            *l = op(*l, h);
        }
    }
    acc[0]
}

/// A canonical reduction of one slice: element `i` into lane `i % CANONICAL_LANES`, then fold.
#[inline(always)]
fn reduce<T: Arith>(a: &[T], identity: T, op: impl Fn(T, T) -> T + Copy) -> T {
    let mut acc = T::lanes(identity);
    let chunks = a.chunks_exact(T::CANONICAL_LANES);
    // The tail fills the first lanes of one more chunk, the identity the rest, which
    // leaves those lanes as they were: every update is then a whole-array one, which
    // LLVM keeps in vector registers.
    let mut last = T::lanes(identity);
    last.as_mut()[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    for chunk in chunks.chain([last.as_ref()]) {
        for (s, &x) in acc.as_mut().iter_mut().zip(chunk) {
            *s = op(*s, x);
        }
    }
    fold(acc, op)
}

/// Bytes of one block of the pairwise sum (module docs): 8 elements per lane.
pub const BLOCK_BYTES: usize = 2048;

/// Elements of `T` in one block of the pairwise sum: 256 for `f64`, 512 for `f32`.
///
/// ```
/// assert_eq!(ndsimd_kernels::scalar::block_len::<f64>(), 256);
/// ```
#[inline(always)]
pub const fn block_len<T>() -> usize {
    BLOCK_BYTES / core::mem::size_of::<T>()
}

/// Pairwise addition of a stream of values in the fixed tree of the module docs:
/// [`push`](Self::push) the leaves in order, then [`finish`](Self::finish). Two runs
/// that push the leaves of one tree, or the sums of whole subtrees of it (aligned runs
/// of `2^j` leaves, the last one possibly short), give the same bits.
///
/// ```
/// use ndsimd_kernels::scalar::Pairwise;
/// let mut p = Pairwise::new(-0.0f64);
/// for x in [1.0, 2.0, 3.0] {
///     p.push(x);
/// }
/// assert_eq!(p.finish(), 6.0); // 1 + 2, then + 3
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Pairwise<T> {
    /// The roots of the finished perfect subtrees, largest first.
    stack: [T; 64],
    depth: usize,
    count: u64,
    identity: T,
}

impl<T: Copy + core::ops::Add<Output = T>> Pairwise<T> {
    /// An empty sum, whose [`finish`](Self::finish) is `identity`.
    #[inline(always)]
    pub fn new(identity: T) -> Self {
        Self {
            stack: [identity; 64],
            depth: 0,
            count: 0,
            identity,
        }
    }

    /// Adds the next leaf: it closes one perfect subtree per trailing one bit of the
    /// count so far (left operand the earlier subtree).
    #[inline(always)]
    pub fn push(&mut self, mut v: T) {
        let mut c = self.count;
        while c & 1 == 1 {
            self.depth -= 1;
            v = self.stack[self.depth] + v;
            c >>= 1;
        }
        self.stack[self.depth] = v;
        self.depth += 1;
        self.count += 1;
    }

    /// The sum: the open subtrees added from the smallest (rightmost) up.
    #[inline(always)]
    pub fn finish(self) -> T {
        let Some(top) = self.depth.checked_sub(1) else {
            return self.identity;
        };
        self.finish_with(self.stack[top], top)
    }

    /// The sum of the leaves pushed, then `tail` (at least one leaf's worth) on the
    /// right: `tail` is the [`finish`](Self::finish) of the last `r` leaves pushed on
    /// their own, when the leaves pushed before them were a multiple of `2^g` (as
    /// their subtree sums, `2^g` leaves each or more) and `r < 2^g`.
    ///
    /// Why the same bits: after `m·2^g` leaves the open subtrees are `2^g` leaves or
    /// larger. Each of the `r` leaves after them merges once per trailing one bit of
    /// the count, and the count's low `g` bits never all become ones before `r = 2^g`,
    /// so those leaves only build subtrees of their own on top of the stack. `finish`
    /// adds from the top down: those first (giving `tail`), then `s + v` for the
    /// older subtrees, which is this loop.
    ///
    /// ```
    /// use ndsimd_kernels::scalar::Pairwise;
    /// let (mut whole, mut groups) = (Pairwise::new(-0.0f64), Pairwise::new(-0.0f64));
    /// for x in [1.0, 2.0, 3.0, 4.0, 5.0] {
    ///     whole.push(x);
    /// }
    /// groups.push((1.0 + 2.0) + (3.0 + 4.0)); // one subtree of 4 leaves
    /// assert_eq!(groups.finish_with_tail(5.0), whole.finish());
    /// ```
    #[inline(always)]
    pub fn finish_with_tail(self, tail: T) -> T {
        self.finish_with(tail, self.depth)
    }

    /// `tail`, then the stack's first `top` subtrees added on its left, the nearest first.
    #[inline(always)]
    fn finish_with(&self, tail: T, top: usize) -> T {
        let mut v = tail;
        for &s in self.stack[..top].iter().rev() {
            v = s + v;
        }
        v
    }
}

/// The pairwise sum of `leaves` ([`Pairwise`]); `identity` when empty.
///
/// ```
/// assert_eq!(ndsimd_kernels::scalar::pairwise(&[1.0f32, 2.0, 4.0], -0.0), 7.0);
/// ```
#[inline]
pub fn pairwise<T: Copy + core::ops::Add<Output = T>>(leaves: &[T], identity: T) -> T {
    let mut p = Pairwise::new(identity);
    for &x in leaves {
        p.push(x);
    }
    p.finish()
}

/// `block(start, len)` for the blocks of `n` elements ([`block_len`] each, the last
/// one short), added pairwise; a single block (or none) is `block(0, n)` itself.
#[inline(always)]
pub(crate) fn blocked<T: Arith>(n: usize, mut block: impl FnMut(usize, usize) -> T) -> T {
    let b = block_len::<T>();
    if n <= b {
        return block(0, n);
    }
    let mut p = Pairwise::new(T::NEG_ZERO);
    let mut i = 0;
    while i + b <= n {
        p.push(block(i, b));
        i += b;
    }
    if i < n {
        p.push(block(i, n - i));
    }
    p.finish()
}

/// `r`, or the first NaN of `a` quieted when `r` is a NaN and `a` has one: the NaN
/// rule of `sum` and `prod` (module docs). Out of line: it runs only on a NaN.
#[inline(always)]
pub(crate) fn first_nan<T: Arith>(r: T, a: &[T]) -> T {
    #[cold]
    #[inline(never)]
    fn find<T: Arith>(r: T, a: &[T]) -> T {
        a.iter().find(|x| x.is_nan()).map_or(r, |x| x.quieted())
    }
    if r.is_nan() {
        find(r, a)
    } else {
        r
    }
}

/// The sum in the canonical order (module docs): blocks in the lane order, added
/// pairwise; `-0.0` for an empty slice.
#[inline(always)]
pub fn sum<T: Arith>(a: &[T]) -> T {
    let r = blocked(a.len(), |at, len| {
        reduce(&a[at..at + len], T::NEG_ZERO, |s, x| s + x)
    });
    first_nan(r, a)
}

/// The product in the canonical lane order (module docs); `1.0` for an empty slice.
#[inline(always)]
pub fn prod<T: Arith>(a: &[T]) -> T {
    first_nan(reduce(a, T::ONE, |s, x| s * x), a)
}

/// `sum(a[i] * b[i])` in the canonical order of [`sum`], each product rounded before
/// it is added (on every tier, so the bits do not depend on FMA hardware); `-0.0`
/// for empty slices.
#[inline(always)]
pub fn dot<T: Arith>(a: &[T], b: &[T]) -> T {
    assert!(a.len() == b.len(), "kernel length mismatch");
    blocked(a.len(), |at, len| {
        dot_block(&a[at..at + len], &b[at..at + len])
    })
}

/// One block of [`dot`]: `acc + a[i] * b[i]` into lane `i % CANONICAL_LANES`.
#[inline(always)]
fn dot_block<T: Arith>(a: &[T], b: &[T]) -> T {
    let mut acc = T::lanes(T::NEG_ZERO);
    let (ca, cb) = (
        a.chunks_exact(T::CANONICAL_LANES),
        b.chunks_exact(T::CANONICAL_LANES),
    );
    // The tail as in `reduce`: `0 * -0 = -0` is the identity of the sum.
    let (mut la, mut lb) = (T::lanes(T::ZERO), T::lanes(T::NEG_ZERO));
    la.as_mut()[..ca.remainder().len()].copy_from_slice(ca.remainder());
    lb.as_mut()[..cb.remainder().len()].copy_from_slice(cb.remainder());
    for (x, y) in ca.chain([la.as_ref()]).zip(cb.chain([lb.as_ref()])) {
        for ((s, &x), &y) in acc.as_mut().iter_mut().zip(x).zip(y) {
            *s = *s + x * y;
        }
    }
    fold(acc, |s, x| s + x)
}

/// The largest element: the first NaN (its exact bits) if there is one, else the
/// largest value with `+0` counted greater than `-0`; `None` for an empty slice.
#[inline(always)]
pub fn max<T: Arith>(a: &[T]) -> Option<T> {
    let (&first, rest) = a.split_first()?;
    let mut m = first;
    if m.is_nan() {
        return Some(m);
    }
    for &x in rest {
        if x.is_nan() {
            return Some(x);
        }
        // Equal values have equal bits except the zeros, where a negative `m`
        // (that is, `-0`) gives way to `x`.
        if x > m || (x == m && m.is_sign_negative()) {
            m = x;
        }
    }
    Some(m)
}

/// The smallest element: the first NaN (its exact bits) if there is one, else the
/// smallest value with `-0` counted less than `+0`; `None` for an empty slice.
#[inline(always)]
pub fn min<T: Arith>(a: &[T]) -> Option<T> {
    let (&first, rest) = a.split_first()?;
    let mut m = first;
    if m.is_nan() {
        return Some(m);
    }
    for &x in rest {
        if x.is_nan() {
            return Some(x);
        }
        if x < m || (x == m && x.is_sign_negative()) {
            m = x;
        }
    }
    Some(m)
}

/// The index of the first NaN if there is one, else of the first element equal
/// (IEEE `==`, so `-0 == +0`) to the largest; `None` for an empty slice.
#[inline(always)]
pub fn argmax<T: Arith>(a: &[T]) -> Option<usize> {
    let (&first, _) = a.split_first()?;
    let (mut best, mut at) = (first, 0);
    for (i, &x) in a.iter().enumerate() {
        if x.is_nan() {
            return Some(i);
        }
        if x > best {
            (best, at) = (x, i);
        }
    }
    Some(at)
}

/// The index of the first NaN if there is one, else of the first element equal
/// (IEEE `==`) to the smallest; `None` for an empty slice.
#[inline(always)]
pub fn argmin<T: Arith>(a: &[T]) -> Option<usize> {
    let (&first, _) = a.split_first()?;
    let (mut best, mut at) = (first, 0);
    for (i, &x) in a.iter().enumerate() {
        if x.is_nan() {
            return Some(i);
        }
        if x < best {
            (best, at) = (x, i);
        }
    }
    Some(at)
}

/// How many bytes of `hay` equal `needle`.
#[inline(always)]
pub fn count_byte(hay: &[u8], needle: u8) -> usize {
    hay.iter().filter(|&&b| b == needle).count()
}

/// The index of the `n`-th (from 0) byte of `hay` equal to `needle`; when there are
/// `n` or fewer such bytes, `Err` with their number.
#[inline(always)]
pub fn nth_byte(hay: &[u8], needle: u8, n: usize) -> Result<usize, usize> {
    let mut left = n;
    for (i, &b) in hay.iter().enumerate() {
        if b == needle {
            if left == 0 {
                return Ok(i);
            }
            left -= 1;
        }
    }
    Err(n - left)
}

/// The index of the first non-zero word, if any.
#[inline(always)]
pub fn first_nonzero_word(words: &[u64]) -> Option<usize> {
    words.iter().position(|&w| w != 0)
}

// The scalar tier's tables point straight at the oracles: on every architecture this
// tier is the reference the others are compared with.
use crate::math::oracle as math_ops;
tier_tables!(crate::Tier::Scalar);
use self::int as int_ops;
int_kernels!(@statics crate::Tier::Scalar);
byte_table!(crate::Tier::Scalar);
tier_kernels!(scalar);

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(x: Option<f64>) -> u64 {
        x.unwrap().to_bits()
    }

    #[test]
    fn maximum_and_minimum_return_an_input_bit_for_bit() {
        let (nan1, nan2) = (
            f64::from_bits(0x7ff8_0000_0000_0001),
            f64::from_bits(0xfff8_0000_0000_0002),
        );
        assert_eq!(maximum::one(-0.0f64, 0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(maximum::one(0.0f64, -0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(minimum::one(0.0f64, -0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(maximum::one(nan1, nan2).to_bits(), nan1.to_bits());
        assert_eq!(maximum::one(1.0, nan2).to_bits(), nan2.to_bits());
        assert_eq!(minimum::one(nan2, 1.0).to_bits(), nan2.to_bits());
        assert_eq!(maximum::one(1.0f64, 2.0), 2.0);
        assert_eq!(minimum::one(1.0f64, 2.0), 1.0);
    }

    #[test]
    fn comparisons_follow_ieee() {
        let a = [1.0f64, f64::NAN, 0.0, 2.0];
        let b = [1.0f64, f64::NAN, -0.0, 1.0];
        let mut out = [false; 4];
        eq::vv(&a, &b, &mut out);
        assert_eq!(out, [true, false, true, false]);
        ne::vv(&a, &b, &mut out);
        assert_eq!(out, [false, true, false, true]);
        ge::vs(&a, 1.0, &mut out);
        assert_eq!(out, [true, false, false, true]);
        lt::vs(&a, 1.0, &mut out);
        assert_eq!(out, [false, false, true, false]);
    }

    #[test]
    fn sums_start_from_negative_zero() {
        assert_eq!(sum::<f64>(&[]).to_bits(), (-0.0f64).to_bits());
        assert_eq!(sum(&[-0.0f64]).to_bits(), (-0.0f64).to_bits());
        assert_eq!(sum(&[-0.0f32; 100]).to_bits(), (-0.0f32).to_bits());
        assert_eq!(sum(&[-0.0f64, 0.0]).to_bits(), 0);
        assert_eq!(dot::<f64>(&[], &[]).to_bits(), (-0.0f64).to_bits());
        assert_eq!(dot(&[0.0f64], &[-1.0]).to_bits(), (-0.0f64).to_bits());
        assert_eq!(prod::<f32>(&[]), 1.0);
        assert_eq!(prod(&[2.0f64; 10]), 1024.0);
    }

    #[test]
    fn sums_follow_the_canonical_lane_order() {
        let big = 9007199254740992.0f64; // 2^53: big + 1 rounds back to big
        let naive = |a: &[f64]| a.iter().fold(-0.0, |s, &x| s + x);
        // Lanes 0, 1, 2 hold 1, big, -big; the fold adds lane 2 into lane 0 first
        // (1 - big is exact), then lane 1: the 1 survives. Left to right it is lost.
        let a = [1.0, big, -big];
        assert_eq!(naive(&a), 0.0);
        assert_eq!(sum(&a), 1.0);
        // Element 32 shares lane 0 with element 0 (f64 has 32 lanes), so there the
        // 1 is lost, while left to right it survives.
        let mut b = vec![0.0f64; 33];
        (b[0], b[1], b[32]) = (big, -big, 1.0);
        assert_eq!(naive(&b), 1.0);
        assert_eq!(sum(&b), 0.0);
        // The fold halves: lane 16 meets lane 0 before lane 1 does.
        let mut c = vec![0.0f64; 32];
        (c[0], c[1], c[16]) = (big, -big, 1.0);
        assert_eq!(naive(&c), 1.0);
        assert_eq!(sum(&c), 0.0);
        // f32 has 64 lanes.
        let mut d = vec![0.0f32; 65];
        (d[0], d[1], d[64]) = (16777216.0, -16777216.0, 1.0);
        assert_eq!(sum(&d), 0.0);
    }

    #[test]
    fn dot_rounds_each_product() {
        let e = f64::EPSILON;
        // Lane 0 gets 1 * -1, then (1 + e) * (1 - e) = 1 - e^2: rounded, that product
        // is 1 and the lane ends at 0 (fused, it would keep -e^2), on every tier.
        let (mut a, mut b) = (vec![0.0f64; 33], vec![0.0f64; 33]);
        (a[0], b[0], a[32], b[32]) = (1.0, -1.0, 1.0 + e, 1.0 - e);
        assert_eq!(dot(&a, &b).to_bits(), 0);
    }

    #[test]
    fn blocks_are_added_pairwise() {
        // 2^53 + 1 rounds to 2^53: where the 1s meet the big values shows the tree.
        let big = 9007199254740992.0f64;
        let b = block_len::<f64>();
        // Five blocks: ((B0 + B1) + (B2 + B3)) + B4. Blocks 0 and 1 cancel exactly,
        // and the 1s of blocks 2 and 3 add to 2 before they meet anything: the sum
        // keeps both. Left to right across blocks, or with block 4 inside the perfect
        // tree, they would be lost against 2^53.
        let mut a = vec![0.0f64; 4 * b + 1];
        (a[0], a[b], a[2 * b], a[3 * b], a[4 * b]) = (big, -big, 1.0, 1.0, big);
        assert_eq!(sum(&a), big + 2.0);
        // The tree of the whole equals the tree of its aligned halves.
        let halves = [sum(&a[..4 * b]), sum(&a[4 * b..])];
        assert_eq!(sum(&a).to_bits(), pairwise(&halves, -0.0).to_bits());
        // A last short block is the right leaf: [big, 1, 1] as blocks B0 B1 B2 is
        // (B0 + B1) + B2 = (2^53 + 1) + 1, both 1s lost one at a time.
        let mut c = vec![0.0f64; 2 * b + 1];
        (c[0], c[b], c[2 * b]) = (big, 1.0, 1.0);
        assert_eq!(sum(&c), big);
        assert_eq!(sum(&c[b..]), 2.0);
    }

    #[test]
    fn pairwise_matches_the_recursive_tree() {
        // tree(n) = perfect(h) + tree(n - h), h the largest power of two below n.
        fn tree(x: &[f64]) -> f64 {
            if x.len() == 1 {
                return x[0];
            }
            let h = 1 << (x.len() - 1).ilog2();
            tree(&x[..h]) + tree(&x[h..])
        }
        let vals: Vec<f64> = (0..40)
            .map(|i| 1.0 / (3.0 + i as f64) * 1e15f64.powi(i % 3))
            .collect();
        for n in 1..vals.len() {
            assert_eq!(
                pairwise(&vals[..n], -0.0).to_bits(),
                tree(&vals[..n]).to_bits(),
                "{n}"
            );
        }
        assert_eq!(pairwise::<f64>(&[], -0.0).to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn sum_and_prod_return_the_first_nan_quieted() {
        let (nan1, nan2) = (
            f64::from_bits(0x7ff0_0000_0000_0001), // signalling
            f64::from_bits(0xfff8_0000_0000_0002),
        );
        for n in [3usize, 40, 300, 1000] {
            let mut a = vec![1.0f64; n];
            (a[1], a[n - 1]) = (nan1, nan2);
            assert_eq!(sum(&a).to_bits(), 0x7ff8_0000_0000_0001, "{n}");
            assert_eq!(prod(&a).to_bits(), 0x7ff8_0000_0000_0001, "{n}");
            (a[1], a[n - 1]) = (nan2, nan1);
            assert_eq!(sum(&a).to_bits(), nan2.to_bits(), "{n}");
        }
    }

    #[test]
    fn max_and_min_order_zeros_and_return_the_first_nan() {
        let (nan1, nan2) = (
            f64::from_bits(0x7ff8_0000_0000_0001),
            f64::from_bits(0xfff8_0000_0000_0002),
        );
        assert_eq!(max::<f64>(&[]), None);
        assert_eq!(bits(max(&[0.0, -0.0])), 0);
        assert_eq!(bits(max(&[-0.0, 0.0])), 0);
        assert_eq!(bits(max(&[-0.0, -0.0])), (-0.0f64).to_bits());
        assert_eq!(bits(min(&[0.0, -0.0])), (-0.0f64).to_bits());
        assert_eq!(bits(min(&[-0.0, 0.0])), (-0.0f64).to_bits());
        assert_eq!(bits(min(&[0.0, 0.0])), 0);
        assert_eq!(bits(max(&[1.0, nan1, 2.0, nan2])), nan1.to_bits());
        assert_eq!(bits(min(&[nan2, nan1])), nan2.to_bits());
        assert_eq!(max(&[1.0, 3.0, -7.0]), Some(3.0));
        assert_eq!(min(&[1.0, 3.0, -7.0]), Some(-7.0));
    }

    #[test]
    fn argmax_and_argmin_pick_the_first() {
        assert_eq!(argmax::<f64>(&[]), None);
        assert_eq!(argmax(&[1.0, f64::NAN, 2.0, f64::NAN]), Some(1));
        assert_eq!(argmin(&[f64::NAN, 1.0]), Some(0));
        assert_eq!(argmax(&[-0.0, 0.0]), Some(0));
        assert_eq!(argmin(&[0.0, -0.0]), Some(0));
        assert_eq!(argmax(&[1.0, 3.0, 2.0, 3.0]), Some(1));
        assert_eq!(argmin(&[1.0, -3.0, 2.0, -3.0]), Some(1));
    }

    #[test]
    fn byte_and_word_scans() {
        assert_eq!(count_byte(b"a\nb\n\nc", b'\n'), 3);
        assert_eq!(count_byte(b"", b'\n'), 0);
        assert_eq!(nth_byte(b"a\nb\n\nc", b'\n', 2), Ok(4));
        assert_eq!(nth_byte(b"a\nb\n\nc", b'\n', 3), Err(3));
        assert_eq!(first_nonzero_word(&[0, 0, 5, 0, 7]), Some(2));
        assert_eq!(first_nonzero_word(&[0, 0]), None);
    }
}
