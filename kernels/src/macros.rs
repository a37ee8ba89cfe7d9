//! The macros that stamp out a tier: its kernels and its two tables.
//!
//! They keep every tier file to a few lines, so a tier differs from another only in
//! what genuinely differs (its target features, later its intrinsics), and a fix to
//! the wrapper pattern lands in one place.

/// One safe kernel of a tier whose body is the scalar oracle compiled with the tier's
/// target features, so the compiler vectorises the oracle loop at that tier's width.
///
/// The table needs a safe `fn` pointer, while a `#[target_feature]` function is unsafe
/// to call from code without the feature; the outer function is that safe wrapper.
macro_rules! autovec_kernel {
    ($feature:literal, $oracle:path => $name:ident($($arg:ident: $ty:ty),*)) => {
        #[doc = concat!("`", stringify!($oracle), "` compiled with `", $feature, "`.")]
        pub fn $name<T: $crate::scalar::Arith>($($arg: $ty),*) {
            #[target_feature(enable = $feature)]
            fn with_feature<T: $crate::scalar::Arith>($($arg: $ty),*) {
                $oracle($($arg),*)
            }
            // SAFETY: the tier modules are private, so this kernel is reachable only
            // through its tier's table, and `KernelElement::table_for` hands that table
            // out only when the CPU has the tier (`tier <= detected_tier()` on this
            // architecture), so every feature `with_feature` enables is present.
            unsafe { with_feature($($arg),*) }
        }
    };
}

/// The five operand shapes of each binary operation, one module per operation, named
/// as in [`crate::scalar`] so [`tier_tables!`] can read any tier the same way.
macro_rules! autovec_binary {
    ($feature:literal; $($op:ident),+ $(,)?) => {$(
        #[doc = concat!("`", stringify!($op), "` kernels of this tier.")]
        pub mod $op {
            use $crate::scalar;
            autovec_kernel!($feature, scalar::$op::vv => vv(a: &[T], b: &[T], out: &mut [T]));
            autovec_kernel!($feature, scalar::$op::vs => vs(a: &[T], s: T, out: &mut [T]));
            autovec_kernel!($feature, scalar::$op::sv => sv(s: T, b: &[T], out: &mut [T]));
            autovec_kernel!($feature, scalar::$op::assign_vv => assign_vv(acc: &mut [T], b: &[T]));
            autovec_kernel!($feature, scalar::$op::assign_vs => assign_vs(acc: &mut [T], s: T));
        }
    )+};
}

/// The two shapes of each unary operation, one module per operation.
macro_rules! autovec_unary {
    ($feature:literal; $($op:ident),+ $(,)?) => {$(
        #[doc = concat!("`", stringify!($op), "` kernels of this tier.")]
        pub mod $op {
            use $crate::scalar;
            autovec_kernel!($feature, scalar::$op::map => map(a: &[T], out: &mut [T]));
            autovec_kernel!($feature, scalar::$op::assign => assign(acc: &mut [T]));
        }
    )+};
}

/// A whole tier whose kernels are the oracles compiled with `$feature`.
macro_rules! autovec_tier {
    ($tier:expr, $feature:literal) => {
        autovec_binary!($feature; add, sub, mul, div);
        autovec_unary!($feature; neg, abs);
        tier_tables!($tier);
    };
}

/// `F32` and `F64`: the tables of the tier whose kernel modules (`add`, …, `abs`)
/// are in scope where this is invoked.
macro_rules! tier_tables {
    ($tier:expr) => {
        /// The `f32` kernels of this tier.
        pub static F32: $crate::Table<f32> = tier_tables!(@table $tier);
        /// The `f64` kernels of this tier.
        pub static F64: $crate::Table<f64> = tier_tables!(@table $tier);
    };
    (@table $tier:expr) => {
        $crate::Table {
            tier: $tier,
            add: tier_tables!(@binary add),
            sub: tier_tables!(@binary sub),
            mul: tier_tables!(@binary mul),
            div: tier_tables!(@binary div),
            neg: tier_tables!(@unary neg),
            abs: tier_tables!(@unary abs),
        }
    };
    (@binary $op:ident) => {
        $crate::BinaryOp {
            vv: $op::vv,
            vs: $op::vs,
            sv: $op::sv,
            assign_vv: $op::assign_vv,
            assign_vs: $op::assign_vs,
        }
    };
    (@unary $op:ident) => {
        $crate::UnaryOp {
            map: $op::map,
            assign: $op::assign,
        }
    };
}
