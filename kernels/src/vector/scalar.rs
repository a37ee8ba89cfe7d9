//! The portable "vectors": one lane of plain Rust arithmetic, for the scalar tier's
//! GEMM micro-kernels (the kernel template over one-lane vectors leaves LLVM free to
//! use whatever SIMD the baseline target has). `madd` is not fused (a software fma
//! would be far slower); `mul_add` is `T::mul_add`.

use super::Isa;

/// The portable ISA.
pub struct Scalar;

impl Isa for Scalar {
    type F32 = F32x1;
    type F64 = F64x1;
    type Bytes = Bytes1;
}

/// One lane, the scalar form of the x86 `max` rule: `b` unless `a > b`.
macro_rules! one_lane_float {
    ($(#[$doc:meta])* $v:ident: $t:ty, $int:ident: $i:ty, $u:ty) => {
        float_vector! {
            $(#[$doc])*
            $v($t): 1 x $t, int $int, mask bool, fma false;
            zero || 0.0,
            splat |x| x,
            load |p| *p,
            store |v, p| *p = v,
            add |a, b| a + b,
            sub |a, b| a - b,
            mul |a, b| a * b,
            div |a, b| a / b,
            mul_add |a, b, c| a.mul_add(b, c),
            madd |a, b, c| a * b + c,
            max |a, b| if a > b { a } else { b },
            min |a, b| if a < b { a } else { b },
            eq |a, b| a == b,
            lt |a, b| a < b,
            le |a, b| a <= b,
            unord |a, b| a.is_nan() || b.is_nan(),
            mask_or |a, b| a | b,
            mask_and |a, b| a & b,
            any |m| m,
            select |m, a, b| if m { a } else { b },
            and_bits |a, b| <$t>::from_bits(a.to_bits() & b.to_bits()),
            or_bits |a, b| <$t>::from_bits(a.to_bits() | b.to_bits()),
            signs |a| (a.to_bits() >> (<$u>::BITS - 1)) as u32,
            to_bits |a| a.to_bits() as $i,
            from_bits |i| <$t>::from_bits(i as $u),
            round_int |a| a.round_ties_even() as $i,
            from_int |i| i as $t,
            lookup2 |lo, hi, ix| if ix & 1 == 0 { lo } else { hi },
        }

        int_vector! {
            /// One integer lane.
            $int($i): 1 x $i;
            splat |x| x,
            load |p| *p,
            store |v, p| *p = v,
            add |a, b| a.wrapping_add(b),
            sub |a, b| a.wrapping_sub(b),
            and |a, b| a & b,
            or |a, b| a | b,
            shl<S> |a| a << S,
            shr<S> |a| ((a as $u) >> S) as $i,
        }
    };
}

one_lane_float!(
    /// One `f64` lane.
    F64x1: f64, I64x1: i64, u64
);
one_lane_float!(
    /// One `f32` lane.
    F32x1: f32, I32x1: i32, u32
);

byte_vector! {
    /// One byte.
    Bytes1(u8): 1;
    splat |b| b,
    load |p| *p,
    store |v, p| *p = v,
    eq |a, b| if a == b { 0xff } else { 0 },
    sub |a, b| a.wrapping_sub(b),
    or |a, b| a | b,
    sum |a| a as usize,
    is_zero |a| a == 0,
}
