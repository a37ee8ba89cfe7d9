//! One vector abstraction per ISA, as `memchr`'s `Vector` and `pulp`'s per-ISA `Simd`:
//! [`FloatVector`] (with its integer lanes, [`IntVector`]) and [`ByteVector`],
//! implemented once for each ISA in this module's children (`sse2`, `avx2`,
//! `avx512`, `neon`, and the one-lane `scalar`), and named per ISA by an [`Isa`]
//! marker. Every hand-written kernel is written over them once: the reductions and
//! scans of `generic.rs`, the GEMM micro-kernel, direct path and matrix-vector
//! product of `gemm/`.
//!
//! Every method is `unsafe` for one reason: it runs its ISA's instructions, so the
//! caller must run where that ISA's features are present (inside a
//! `#[target_feature]` function of the tier, reached only through a table handed out
//! when the CPU has the tier). Methods that take pointers also need them valid for
//! `N` elements (no alignment needed). Everything is `#[inline(always)]`, so it is
//! compiled with the calling function's features.
//!
//! The scalar meaning of each method is its doc; `tests.rs` holds every ISA this host
//! runs to it, IEEE edge values included.

use crate::scalar::Arith;

/// An ISA: the vector types its kernels use, as `pulp`'s per-ISA `Simd` names them.
pub trait Isa {
    /// `f32` lanes (with `i32` integer lanes).
    type F32: FloatVector<T = f32, Int: IntVector<T = i32>>;
    /// `f64` lanes (with `i64` integer lanes).
    type F64: FloatVector<T = f64, Int: IntVector<T = i64>>;
    /// Byte lanes.
    type Bytes: ByteVector;
}

/// An element type with a [`FloatVector`] in every [`Isa`], so that one generic
/// kernel `fn max<T: Element>` fills both tables of a tier.
pub trait Element: Arith {
    /// The vector of `Self` in the ISA `I`.
    type Vector<I: Isa>: FloatVector<T = Self>;
}

impl Element for f32 {
    type Vector<I: Isa> = I::F32;
}

impl Element for f64 {
    type Vector<I: Isa> = I::F64;
}

/// The most lanes a vector has (AVX-512 `f32`): room on the stack for any vector.
pub(crate) const MAX_LANES: usize = 16;

/// What every vector of one ISA has: `N` lanes of `T` (see the module doc for the
/// safety contract), as `memchr`'s `Vector`.
pub trait Vector: Copy {
    /// The lane type.
    type T: Copy + Default;
    /// Lanes per vector.
    const N: usize;
    /// Every lane `x`.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn splat(x: Self::T) -> Self;
    /// `N` lanes from `p` (unaligned).
    ///
    /// # Safety
    /// The CPU has this ISA's features, and `p` is valid for `N` reads (any
    /// alignment).
    unsafe fn load(p: *const Self::T) -> Self;
    /// `N` lanes to `p` (unaligned).
    ///
    /// # Safety
    /// The CPU has this ISA's features, and `p` is valid for `N` writes (any
    /// alignment).
    unsafe fn store(self, p: *mut Self::T);
}

/// A vector of floats.
pub trait FloatVector: Vector<T: Arith> {
    /// Integer lanes of the same width (`i64` for `f64`, `i32` for `f32`).
    type Int: IntVector;
    /// A lane mask as the ISA's comparisons produce it (a vector of all-ones lanes,
    /// or a `k` register).
    type Mask: Copy;
    /// Whether the ISA has fused multiply-add, so [`FloatVector::madd`] rounds once.
    const FMA: bool;

    /// Every lane `+0`.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn zero() -> Self;
    /// `a + b`
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn add(a: Self, b: Self) -> Self;
    /// `a - b`
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn sub(a: Self, b: Self) -> Self;
    /// `a * b`
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn mul(a: Self, b: Self) -> Self;
    /// `a / b`, correctly rounded.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn div(a: Self, b: Self) -> Self;
    /// `a * b + c` rounded once (`T::mul_add`) on every ISA: one instruction where
    /// the ISA has FMA, lane by lane in software where it has not.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn mul_add(a: Self, b: Self, c: Self) -> Self;
    /// `a * b + c` at the ISA's speed: fused where [`FloatVector::FMA`] says so, else
    /// a multiply then an add (two roundings). What the GEMM kernels accumulate with.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn madd(a: Self, b: Self, c: Self) -> Self;
    /// The lanewise larger of `a` and `b` (either one when they compare equal, `-0`
    /// and `+0` included). `a` is NaN-free; a lane where `b` is NaN comes out NaN
    /// (x86 `maxpd` returns its second operand, NEON `fmax` propagates), which the
    /// reductions use to find NaNs by checking only their accumulators.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn max(a: Self, b: Self) -> Self;
    /// The lanewise smaller, with [`FloatVector::max`]'s NaN rule.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn min(a: Self, b: Self) -> Self;

    /// `a == b` (false where either is NaN).
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn eq(a: Self, b: Self) -> Self::Mask;
    /// `a < b` (false where either is NaN).
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn lt(a: Self, b: Self) -> Self::Mask;
    /// `a <= b` (false where either is NaN).
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn le(a: Self, b: Self) -> Self::Mask;
    /// `a > b` (false where either is NaN).
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    #[inline(always)]
    unsafe fn gt(a: Self, b: Self) -> Self::Mask {
        // SAFETY: the caller's contract, passed on.
        unsafe { Self::lt(b, a) }
    }
    /// `a >= b` (false where either is NaN).
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    #[inline(always)]
    unsafe fn ge(a: Self, b: Self) -> Self::Mask {
        // SAFETY: the caller's contract, passed on.
        unsafe { Self::le(b, a) }
    }
    /// True where `a` or `b` is NaN.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn unord(a: Self, b: Self) -> Self::Mask;
    /// Lanewise or of two masks.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn mask_or(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// Lanewise and of two masks.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn mask_and(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// Whether any lane of the mask is true.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn any(m: Self::Mask) -> bool;
    /// `a` where `m` is true, else `b`, bit for bit (NaN payloads kept).
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn select(m: Self::Mask, a: Self, b: Self) -> Self;

    /// Bitwise and of the element bits.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn and_bits(a: Self, b: Self) -> Self;
    /// Bitwise or of the element bits.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn or_bits(a: Self, b: Self) -> Self;
    /// The sign bits, lane `j` in bit `j`.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn signs(a: Self) -> u32;
    /// The element bits as integers (`T::to_bits`), no conversion.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn to_bits(a: Self) -> Self::Int;
    /// Integers' bits as elements (`T::from_bits`), no conversion.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn from_bits(i: Self::Int) -> Self;

    /// Each lane rounded to the nearest integer, ties to even (`round_ties_even`),
    /// as an integer. Exact for lanes of magnitude below 2^51 (`f64`; the SSE2 and
    /// AVX2 form adds and subtracts 1.5 * 2^52) or 2^31 (`f32`); other lanes, NaN
    /// and infinities give unspecified values.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn round_int(a: Self) -> Self::Int;
    /// Each integer lane as an element: exact for `|i| <= 2^51` (`f64`; other
    /// lanes unspecified), rounded to nearest as `i as f32` for every `i32`.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn from_int(i: Self::Int) -> Self;
    /// A lookup in a table of `2 * N` elements held in two vectors: lane `j` is
    /// element `idx[j] mod 2N` of `lo`'s lanes followed by `hi`'s (only the low bits
    /// of each index count), bit for bit. One `vpermi2pd` / `vpermi2ps` on AVX-512,
    /// two `vpermps` and a blend on AVX2, a `tbl` on NEON, lane by lane on SSE2.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn lookup2(lo: Self, hi: Self, idx: Self::Int) -> Self;
    /// A lookup in memory: lane `j` is `*p.add(idx[j])`, bit for bit. `p` must be
    /// valid for reads at every index (each non-negative). One `vgatherqpd` /
    /// `vgatherdps` on AVX2 and AVX-512, lane by lane through the stack elsewhere.
    ///
    /// # Safety
    /// The CPU has this ISA's features, every lane of `idx` is non-negative, and
    /// `p.add(idx[j])` is valid for a read for every lane `j`.
    #[inline(always)]
    unsafe fn gather(p: *const Self::T, idx: Self::Int) -> Self {
        let mut ix = [<Self::Int as Vector>::T::default(); MAX_LANES];
        let mut out = [<Self::T as Default>::default(); MAX_LANES];
        // SAFETY: `ix` holds `MAX_LANES >= N` lanes; the caller's contract.
        unsafe { idx.store(ix.as_mut_ptr()) };
        for (o, &i) in out.iter_mut().zip(&ix).take(Self::N) {
            // SAFETY: the caller's contract: `p` is valid at every index.
            *o = unsafe { *p.add(i.into() as usize) };
        }
        // SAFETY: as above.
        unsafe { Self::load(out.as_ptr()) }
    }
    /// A lookup in a table of 32 elements at `p` (valid for 32 reads): lane `j` is
    /// `*p.add(idx[j])`, every index in `0..32`, bit for bit. Permutes of the table
    /// held in registers on AVX-512 (one `vpermi2ps`; two `vpermi2pd` and a blend),
    /// [`FloatVector::gather`] elsewhere.
    ///
    /// # Safety
    /// The CPU has this ISA's features, `p` is valid for 32 reads, and every lane of
    /// `idx` is in `0..32`.
    #[inline(always)]
    unsafe fn table32(p: *const Self::T, idx: Self::Int) -> Self {
        // SAFETY: the caller's contract.
        unsafe { Self::gather(p, idx) }
    }
    /// Whether [`getexp`](Self::getexp) and [`getmant`](Self::getmant) are one
    /// instruction each (AVX-512), so that a kernel reducing by them beats one
    /// reducing by integer operations; elsewhere they go lane by lane.
    const GETEXP: bool = false;
    /// Each lane's [`Arith::getexp`]: `floor(log2 |a|)` for finite nonzero lanes,
    /// subnormals included (`vgetexppd` / `vgetexpps` on AVX-512).
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    #[inline(always)]
    unsafe fn getexp(a: Self) -> Self {
        // SAFETY: the caller's contract.
        unsafe { Self::lanewise(a, Arith::getexp) }
    }
    /// Each lane's [`Arith::getmant`]: `|a|` scaled by a power of two into
    /// `[0.75, 1.5)` for finite nonzero lanes, subnormals included (`vgetmantpd` /
    /// `vgetmantps` on AVX-512).
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    #[inline(always)]
    unsafe fn getmant(a: Self) -> Self {
        // SAFETY: the caller's contract.
        unsafe { Self::lanewise(a, Arith::getmant) }
    }
    /// True where a lane is not a positive normal number: NaN, `±0`, negative,
    /// `±Inf`, subnormal. One `vfpclasspd` on AVX-512.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    #[inline(always)]
    unsafe fn not_pos_normal(a: Self) -> Self::Mask {
        // SAFETY: the caller's contract.
        unsafe {
            let inf = Self::splat(Self::T::ONE / Self::T::ZERO);
            let min = Self::splat(Self::T::MIN_POSITIVE);
            // Ordered compares: false for NaN, so NaN lanes are flagged.
            Self::mask_or(
                Self::lt(a, min),
                Self::mask_or(Self::ge(a, inf), Self::unord(a, a)),
            )
        }
    }
    /// Each lane's [`Arith::scalef`]: `a * 2^floor(b)` where that and
    /// `2^floor(b)` are normal numbers (`vscalefpd` / `vscalefps` on AVX-512).
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    #[inline(always)]
    unsafe fn scalef(a: Self, b: Self) -> Self {
        let mut x = [<Self::T as Default>::default(); MAX_LANES];
        let mut y = x;
        // SAFETY: `x` and `y` hold `MAX_LANES >= N` lanes; the caller's contract.
        unsafe {
            a.store(x.as_mut_ptr());
            b.store(y.as_mut_ptr());
        }
        for (xi, &yi) in x[..Self::N].iter_mut().zip(&y) {
            *xi = xi.scalef(yi);
        }
        // SAFETY: as above.
        unsafe { Self::load(x.as_ptr()) }
    }
    /// True where a lane is not a positive finite number: NaN, `±0`, negative,
    /// `±Inf` (positive subnormals are not flagged). One `vfpclasspd` on AVX-512.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    #[inline(always)]
    unsafe fn not_pos_finite(a: Self) -> Self::Mask {
        // SAFETY: the caller's contract.
        unsafe {
            let inf = Self::splat(Self::T::ONE / Self::T::ZERO);
            Self::mask_or(
                Self::mask_or(Self::le(a, Self::zero()), Self::eq(a, inf)),
                Self::unord(a, a),
            )
        }
    }
    /// `f` of each lane, through the stack.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    #[inline(always)]
    unsafe fn lanewise(a: Self, f: impl Fn(Self::T) -> Self::T) -> Self {
        let mut buf = [<Self::T as Default>::default(); MAX_LANES];
        // SAFETY: `buf` holds `MAX_LANES >= N` lanes; the caller's contract.
        unsafe { a.store(buf.as_mut_ptr()) };
        for v in &mut buf[..Self::N] {
            *v = f(*v);
        }
        // SAFETY: as above.
        unsafe { Self::load(buf.as_ptr()) }
    }
}

/// A vector of integers, the [`FloatVector::Int`] of a float vector. Arithmetic
/// wraps.
pub trait IntVector: Vector<T: core::fmt::Debug + PartialEq + Into<i64>> {
    /// `a + b`, wrapping.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn add(a: Self, b: Self) -> Self;
    /// `a - b`, wrapping.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn sub(a: Self, b: Self) -> Self;
    /// Bitwise and.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn and(a: Self, b: Self) -> Self;
    /// Bitwise or.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn or(a: Self, b: Self) -> Self;
    /// Each lane's bits shifted left by `S` (below the lane's width), zeros in.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn shl<const S: u32>(a: Self) -> Self;
    /// Each lane's bits shifted right by `S` (below the lane's width), zeros in
    /// (a logical shift, whatever the sign).
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn shr<const S: u32>(a: Self) -> Self;
}

/// A vector of bytes.
pub trait ByteVector: Vector<T = u8> {
    /// `0xff` where the bytes are equal, else `0`.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn eq(a: Self, b: Self) -> Self;
    /// Bytewise wrapping `a - b`.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn sub(a: Self, b: Self) -> Self;
    /// Bitwise or.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn or(a: Self, b: Self) -> Self;
    /// The sum of the bytes as unsigned numbers.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn sum(a: Self) -> usize;
    /// Whether every bit is zero.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    unsafe fn is_zero(a: Self) -> bool;
    /// One step of `generic::count_byte`: the byte counters `acc` with one added
    /// where `x`'s byte equals `needle`'s, as `sub(acc, eq(x, needle))`. `minus_one`
    /// is `splat(0xff)` that the compiler cannot see through (`count_byte` passes it
    /// through `black_box` once per call), for an ISA whose best form subtracts it
    /// under a comparison mask: LLVM rewrites a masked subtract of a known `-1` into
    /// a mask-to-vector move and a plain subtract, one more instruction.
    ///
    /// # Safety
    /// The CPU has this ISA's features (the module doc's contract).
    #[inline(always)]
    unsafe fn tally(acc: Self, x: Self, needle: Self, minus_one: Self) -> Self {
        let _ = minus_one;
        // SAFETY: the caller's contract, passed on.
        unsafe { Self::sub(acc, Self::eq(x, needle)) }
    }
}

/// One method of a vector impl whose body is one expression over registers: the
/// arguments named in `open(..)` are newtypes unwrapped to their registers, and
/// `wrap $w` puts the result in the newtype `$w`. The `SAFETY` argument is the same
/// for every one: the trait's contract (the caller runs where the ISA's features are
/// present, and pointer arguments are valid for `N` lanes).
macro_rules! method {
    ($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty, open($($o:ident),*), $body:expr
     $(, wrap $w:ident)?) => {
        /// # Safety
        /// The trait method's contract (see the macro's doc).
        #[inline(always)]
        unsafe fn $name($($arg: $ty),*) -> $ret {
            $(let $o = $o.0;)*
            // SAFETY: the trait's contract (see the macro).
            let r = unsafe { $body };
            $($w)?(r)
        }
    };
}

/// `Vector` for the newtype `$v` over `$raw`, `$n` lanes of `$t`: the part every
/// kind of vector shares.
macro_rules! vector_base {
    ($(#[$doc:meta])* $v:ident($raw:ty): $n:literal x $t:ty;
     splat |$sx:ident| $splat:expr,
     load |$lp:ident| $load:expr,
     store |$sv:ident, $sp:ident| $store:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $v(pub(crate) $raw);

        // The one-lane scalar form has no unsafe operation in most methods.
        #[allow(unused_unsafe)]
        impl $crate::vector::Vector for $v {
            type T = $t;
            const N: usize = $n;
            method!(splat($sx: $t) -> Self, open(), $splat, wrap $v);
            method!(load($lp: *const $t) -> Self, open(), $load, wrap $v);
            #[inline(always)]
            unsafe fn store(self, $sp: *mut $t) {
                let $sv = self.0;
                // SAFETY: the trait's contract (`p` valid for `N` writes).
                unsafe { $store }
            }
        }
    };
}

/// A [`FloatVector`] impl from one expression per method, each over the raw
/// registers (`add |a, b| _mm256_add_pd(a, b)`): the signatures, the wrapping and
/// the `SAFETY` argument are written once here, each ISA file says only which
/// instructions. `$v` wraps `$raw`; its integer lanes are the [`IntVector`] `$int`.
macro_rules! float_vector {
    (
        $(#[$doc:meta])*
        $v:ident($raw:ty): $n:literal x $t:ty, int $int:ident, mask $m:ty, fma $fma:literal;
        zero || $zero:expr,
        splat |$sx:ident| $splat:expr,
        load |$lp:ident| $load:expr,
        store |$sv:ident, $sp:ident| $store:expr,
        add |$a0:ident, $b0:ident| $add:expr,
        sub |$a1:ident, $b1:ident| $sub:expr,
        mul |$a2:ident, $b2:ident| $mul:expr,
        div |$a3:ident, $b3:ident| $div:expr,
        mul_add |$a4:ident, $b4:ident, $c4:ident| $mul_add:expr,
        madd |$a5:ident, $b5:ident, $c5:ident| $madd:expr,
        max |$a6:ident, $b6:ident| $max:expr,
        min |$a7:ident, $b7:ident| $min:expr,
        eq |$a8:ident, $b8:ident| $eq:expr,
        lt |$a9:ident, $b9:ident| $lt:expr,
        le |$a10:ident, $b10:ident| $le:expr,
        unord |$a11:ident, $b11:ident| $unord:expr,
        mask_or |$a12:ident, $b12:ident| $mask_or:expr,
        mask_and |$a13:ident, $b13:ident| $mask_and:expr,
        any |$m14:ident| $any:expr,
        select |$m15:ident, $a15:ident, $b15:ident| $select:expr,
        and_bits |$a16:ident, $b16:ident| $and_bits:expr,
        or_bits |$a17:ident, $b17:ident| $or_bits:expr,
        signs |$a18:ident| $signs:expr,
        to_bits |$a19:ident| $to_bits:expr,
        from_bits |$i20:ident| $from_bits:expr,
        round_int |$a21:ident| $round_int:expr,
        from_int |$i22:ident| $from_int:expr,
        lookup2 |$lo:ident, $hi:ident, $ix:ident| $lookup2:expr
        $(, gather |$gp:ident, $gix:ident| $gather:expr)?
        $(, table32 |$tp:ident, $tix:ident| $table32:expr)?
        $(, getexp |$ge:ident| $getexp:expr, getmant |$gm:ident| $getmant:expr,
            not_pos_finite |$np:ident| $not_pos_finite:expr,
            not_pos_normal |$nn:ident| $not_pos_normal:expr,
            scalef |$sa:ident, $sb:ident| $scalef:expr)? $(,)?
    ) => {
        vector_base! {
            $(#[$doc])*
            $v($raw): $n x $t;
            splat |$sx| $splat,
            load |$lp| $load,
            store |$sv, $sp| $store
        }

        #[allow(unused_unsafe)]
        impl $crate::vector::FloatVector for $v {
            type Int = $int;
            type Mask = $m;
            const FMA: bool = $fma;
            method!(zero() -> Self, open(), $zero, wrap $v);
            method!(add($a0: Self, $b0: Self) -> Self, open($a0, $b0), $add, wrap $v);
            method!(sub($a1: Self, $b1: Self) -> Self, open($a1, $b1), $sub, wrap $v);
            method!(mul($a2: Self, $b2: Self) -> Self, open($a2, $b2), $mul, wrap $v);
            method!(div($a3: Self, $b3: Self) -> Self, open($a3, $b3), $div, wrap $v);
            method!(mul_add($a4: Self, $b4: Self, $c4: Self) -> Self, open($a4, $b4, $c4),
                $mul_add, wrap $v);
            method!(madd($a5: Self, $b5: Self, $c5: Self) -> Self, open($a5, $b5, $c5),
                $madd, wrap $v);
            method!(max($a6: Self, $b6: Self) -> Self, open($a6, $b6), $max, wrap $v);
            method!(min($a7: Self, $b7: Self) -> Self, open($a7, $b7), $min, wrap $v);
            method!(eq($a8: Self, $b8: Self) -> $m, open($a8, $b8), $eq);
            method!(lt($a9: Self, $b9: Self) -> $m, open($a9, $b9), $lt);
            method!(le($a10: Self, $b10: Self) -> $m, open($a10, $b10), $le);
            method!(unord($a11: Self, $b11: Self) -> $m, open($a11, $b11), $unord);
            method!(mask_or($a12: $m, $b12: $m) -> $m, open(), $mask_or);
            method!(mask_and($a13: $m, $b13: $m) -> $m, open(), $mask_and);
            method!(any($m14: $m) -> bool, open(), $any);
            method!(select($m15: $m, $a15: Self, $b15: Self) -> Self, open($a15, $b15),
                $select, wrap $v);
            method!(and_bits($a16: Self, $b16: Self) -> Self, open($a16, $b16), $and_bits,
                wrap $v);
            method!(or_bits($a17: Self, $b17: Self) -> Self, open($a17, $b17), $or_bits,
                wrap $v);
            method!(signs($a18: Self) -> u32, open($a18), $signs);
            method!(to_bits($a19: Self) -> $int, open($a19), $to_bits, wrap $int);
            method!(from_bits($i20: $int) -> Self, open($i20), $from_bits, wrap $v);
            method!(round_int($a21: Self) -> $int, open($a21), $round_int, wrap $int);
            method!(from_int($i22: $int) -> Self, open($i22), $from_int, wrap $v);
            method!(lookup2($lo: Self, $hi: Self, $ix: $int) -> Self, open($lo, $hi, $ix),
                $lookup2, wrap $v);
            $(method!(gather($gp: *const $t, $gix: $int) -> Self, open($gix), $gather,
                wrap $v);)?
            $(method!(table32($tp: *const $t, $tix: $int) -> Self, open($tix), $table32,
                wrap $v);)?
            $(
                const GETEXP: bool = true;
                method!(getexp($ge: Self) -> Self, open($ge), $getexp, wrap $v);
                method!(getmant($gm: Self) -> Self, open($gm), $getmant, wrap $v);
                method!(not_pos_finite($np: Self) -> $m, open($np), $not_pos_finite);
                method!(not_pos_normal($nn: Self) -> $m, open($nn), $not_pos_normal);
                method!(scalef($sa: Self, $sb: Self) -> Self, open($sa, $sb), $scalef, wrap $v);
            )?
        }
    };
}

/// An [`IntVector`] impl from one expression per method over the raw registers, as
/// [`float_vector!`]; the shifts name their constant (`shl<S> |a| ...`).
macro_rules! int_vector {
    (
        $(#[$doc:meta])*
        $v:ident($raw:ty): $n:literal x $t:ty;
        splat |$sx:ident| $splat:expr,
        load |$lp:ident| $load:expr,
        store |$sv:ident, $sp:ident| $store:expr,
        add |$a0:ident, $b0:ident| $add:expr,
        sub |$a1:ident, $b1:ident| $sub:expr,
        and |$a2:ident, $b2:ident| $and:expr,
        or |$a3:ident, $b3:ident| $or:expr,
        shl<$s4:ident> |$a4:ident| $shl:expr,
        shr<$s5:ident> |$a5:ident| $shr:expr $(,)?
    ) => {
        vector_base! {
            $(#[$doc])*
            $v($raw): $n x $t;
            splat |$sx| $splat,
            load |$lp| $load,
            store |$sv, $sp| $store
        }

        #[allow(unused_unsafe)]
        impl $crate::vector::IntVector for $v {
            method!(add($a0: Self, $b0: Self) -> Self, open($a0, $b0), $add, wrap $v);
            method!(sub($a1: Self, $b1: Self) -> Self, open($a1, $b1), $sub, wrap $v);
            method!(and($a2: Self, $b2: Self) -> Self, open($a2, $b2), $and, wrap $v);
            method!(or($a3: Self, $b3: Self) -> Self, open($a3, $b3), $or, wrap $v);
            #[inline(always)]
            unsafe fn shl<const $s4: u32>($a4: Self) -> Self {
                const { assert!($s4 < <$t>::BITS) };
                let $a4 = $a4.0;
                // SAFETY: the trait's contract.
                $v(unsafe { $shl })
            }
            #[inline(always)]
            unsafe fn shr<const $s5: u32>($a5: Self) -> Self {
                const { assert!($s5 < <$t>::BITS) };
                let $a5 = $a5.0;
                // SAFETY: the trait's contract.
                $v(unsafe { $shr })
            }
        }
    };
}

/// A [`ByteVector`] impl from one expression per method over the raw registers, as
/// [`float_vector!`] (`tally` optional: the trait's default otherwise).
macro_rules! byte_vector {
    (
        $(#[$doc:meta])*
        $v:ident($raw:ty): $n:literal;
        splat |$sx:ident| $splat:expr,
        load |$lp:ident| $load:expr,
        store |$sv:ident, $sp:ident| $store:expr,
        eq |$a0:ident, $b0:ident| $eq:expr,
        sub |$a1:ident, $b1:ident| $sub:expr,
        or |$a2:ident, $b2:ident| $or:expr,
        sum |$a3:ident| $sum:expr,
        is_zero |$a4:ident| $is_zero:expr
        $(, tally |$acc:ident, $x:ident, $needle:ident, $minus_one:ident| $tally:expr)? $(,)?
    ) => {
        vector_base! {
            $(#[$doc])*
            $v($raw): $n x u8;
            splat |$sx| $splat,
            load |$lp| $load,
            store |$sv, $sp| $store
        }

        #[allow(unused_unsafe)]
        impl $crate::vector::ByteVector for $v {
            method!(eq($a0: Self, $b0: Self) -> Self, open($a0, $b0), $eq, wrap $v);
            method!(sub($a1: Self, $b1: Self) -> Self, open($a1, $b1), $sub, wrap $v);
            method!(or($a2: Self, $b2: Self) -> Self, open($a2, $b2), $or, wrap $v);
            method!(sum($a3: Self) -> usize, open($a3), $sum);
            method!(is_zero($a4: Self) -> bool, open($a4), $is_zero);
            $(
                method!(tally($acc: Self, $x: Self, $needle: Self, $minus_one: Self) -> Self,
                    open($acc, $x, $needle, $minus_one), $tally, wrap $v);
            )?
        }
    };
}

// After the macros, which they use.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
#[cfg(target_arch = "aarch64")]
pub(crate) mod neon;
pub(crate) mod scalar;
#[cfg(target_arch = "x86_64")]
pub(crate) mod sse2;
#[cfg(test)]
mod tests;
