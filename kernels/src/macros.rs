//! The macros that stamp out a tier: its kernels and its tables.
//!
//! They keep every tier file to a list of which operations are autovectorised oracles
//! and which are hand-written, so a tier differs from another only in what genuinely
//! differs (its target features, its vector types), and a fix to the wrapper pattern
//! lands in one place.
//!
//! The `SAFETY` argument of every tier wrapper is the same: the tier modules are
//! private, so a tier's kernels are reachable only through its tables, and
//! `KernelElement::table_for` / `byte_table_for` hand out a table only when the CPU
//! has that tier (`tier <= detected_tier()` on this architecture). A tier may list a
//! kernel of a lower tier of the same architecture (AVX-512 lists AVX2's): detection
//! gives a tier only when every feature of the tiers below it is present.

/// One safe kernel of a tier whose body is the scalar oracle compiled with the tier's
/// target features, so the compiler vectorises the oracle loop at that tier's width.
///
/// The table needs a safe `fn` pointer, while a `#[target_feature]` function is unsafe
/// to call from code without the feature; the outer function is that safe wrapper.
macro_rules! autovec_kernel {
    ($feature:literal, $oracle:path => $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?) => {
        autovec_kernel!(@ $crate::scalar::Arith; $feature, $oracle => $name($($arg: $ty),*) $(-> $ret)?);
    };
    // `$Arith`: the oracle's element trait.
    (@ $Arith:path; $feature:literal, $oracle:path => $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?) => {
        #[doc = concat!("`", stringify!($oracle), "` compiled with `", $feature, "`.")]
        pub fn $name<T: $Arith>($($arg: $ty),*) $(-> $ret)? {
            #[target_feature(enable = $feature)]
            fn with_feature<T: $Arith>($($arg: $ty),*) $(-> $ret)? {
                $oracle($($arg),*)
            }
            // SAFETY: reachable only through a table handed out when the CPU has this
            // tier, so every feature `with_feature` enables is present (see `macros.rs`).
            unsafe { with_feature($($arg),*) }
        }
    };
}

/// The five operand shapes of each binary operation, one module per operation, named
/// as in [`crate::scalar`] so [`tier_tables!`] can read any tier the same way.
macro_rules! autovec_binary {
    ($feature:literal; $($op:ident),+ $(,)?) => {$(
        #[doc = concat!("`", stringify!($op), "` kernels of this tier (autovectorised).")]
        pub mod $op {
            use $crate::scalar;
            autovec_kernel!($feature, scalar::$op::vv => vv(a: &[T], b: &[T], out: &mut [T]));
            autovec_kernel!($feature, scalar::$op::vs => vs(a: &[T], s: T, out: &mut [T]));
            autovec_kernel!($feature, scalar::$op::sv => sv(s: T, b: &[T], out: &mut [T]));
            autovec_kernel!($feature, scalar::$op::vv_uninit => vv_uninit(a: &[T], b: &[T], out: &mut [core::mem::MaybeUninit<T>]));
            autovec_kernel!($feature, scalar::$op::vs_uninit => vs_uninit(a: &[T], s: T, out: &mut [core::mem::MaybeUninit<T>]));
            autovec_kernel!($feature, scalar::$op::sv_uninit => sv_uninit(s: T, b: &[T], out: &mut [core::mem::MaybeUninit<T>]));
            autovec_kernel!($feature, scalar::$op::assign_vv => assign_vv(acc: &mut [T], b: &[T]));
            autovec_kernel!($feature, scalar::$op::assign_vv4 => assign_vv4(acc: &mut [T], b: [&[T]; 4]));
            autovec_kernel!($feature, scalar::$op::assign_vs => assign_vs(acc: &mut [T], s: T));
        }
    )+};
}

/// The two shapes of each unary operation, one module per operation.
macro_rules! autovec_unary {
    ($feature:literal; $($op:ident),+ $(,)?) => {$(
        #[doc = concat!("`", stringify!($op), "` kernels of this tier (autovectorised).")]
        pub mod $op {
            use $crate::scalar;
            autovec_kernel!($feature, scalar::$op::map => map(a: &[T], out: &mut [T]));
            autovec_kernel!($feature, scalar::$op::map_uninit => map_uninit(a: &[T], out: &mut [core::mem::MaybeUninit<T>]));
            autovec_kernel!($feature, scalar::$op::assign => assign(acc: &mut [T]));
        }
    )+};
}

/// The two shapes of each comparison, one module per comparison.
macro_rules! autovec_cmp {
    ($feature:literal; $($op:ident),+ $(,)?) => {$(
        #[doc = concat!("`", stringify!($op), "` kernels of this tier (autovectorised).")]
        pub mod $op {
            use $crate::scalar;
            autovec_kernel!($feature, scalar::$op::vv => vv(a: &[T], b: &[T], out: &mut [bool]));
            autovec_kernel!($feature, scalar::$op::vs => vs(a: &[T], s: T, out: &mut [bool]));
        }
    )+};
}

/// `fma`, the one kernel outside the modules above.
macro_rules! autovec_fma {
    ($feature:literal) => {
        autovec_kernel!($feature, $crate::scalar::fma => fma(a: &[T], b: &[T], c: &[T], out: &mut [T]));
    };
}

/// The hand-written float kernels of a tier: `sum`, `prod`, `max`, `min`, `argmax`,
/// `argmin` and `dot` (`$dot`: `generic::dot` on every ISA, so the bits do not depend on
/// FMA), [`crate::generic`] instantiated with the vectors of the [`crate::vector::Isa`]
/// `$isa`.
macro_rules! handwritten_floats {
    // `streamed: $narrow, when: $past`: `sum` and `dot` of operands of `bytes` for which
    // `$past(bytes)` holds take the kernels of module `$narrow` instead.
    ($feature:literal, $isa:ty, $dot:ident $(, streamed: $narrow:path, when: $past:path)?) => {
        handwritten_floats!(@sum $feature, $isa $(, $narrow, $past)?);
        handwritten_floats!(@reduce $feature, $isa, prod, sum -> T, true);
        handwritten_floats!(@reduce $feature, $isa, max, max -> Option<T>, true);
        handwritten_floats!(@reduce $feature, $isa, min, max -> Option<T>, false);
        handwritten_floats!(@reduce $feature, $isa, argmax, argmax -> Option<usize>, true);
        handwritten_floats!(@reduce $feature, $isa, argmin, argmax -> Option<usize>, false);
        handwritten_floats!(@dot $feature, $isa, $dot $(, $narrow, $past)?);
    };
    (@sum $feature:literal, $isa:ty $(, $narrow:path, $past:path)?) => {
        #[doc = concat!("`scalar::sum`, hand-written (`generic::sum`, one block `generic::sum_block`) with `", $feature, "`.")]
        pub fn sum<T: $crate::vector::Element>(a: &[T]) -> T {
            #[target_feature(enable = $feature)]
            fn with_feature<T: $crate::vector::Element>(a: &[T]) -> T {
                // SAFETY: the ISA's features are enabled here.
                unsafe { $crate::generic::sum::<T::Vector<$isa>, false>(a) }
            }
            #[target_feature(enable = $feature)]
            fn one_block<T: $crate::vector::Element>(a: &[T]) -> T {
                // SAFETY: the ISA's features are enabled here, and the caller passes
                // at most one block.
                unsafe { $crate::generic::sum_block::<T::Vector<$isa>>(a) }
            }
            if a.len() <= $crate::scalar::block_len::<T>() {
                // SAFETY: reachable only through a table handed out when the CPU has
                // this tier, so every feature it enables is present (see
                // `macros.rs`); `a` is at most one block.
                return unsafe { one_block(a) };
            }
            // Past one block only: a one-block sum never streams.
            $(if $past(core::mem::size_of_val(a)) {
                use $narrow as narrow;
                return narrow::sum(a);
            })?
            // SAFETY: as for `one_block`.
            unsafe { with_feature(a) }
        }
    };
    (@dot $feature:literal, $isa:ty, $dot:ident $(, $narrow:path, $past:path)?) => {
        #[doc = concat!("`scalar::", stringify!($dot), "`, hand-written (`generic::",
            stringify!($dot), "`) with `", $feature, "`.")]
        pub fn dot<T: $crate::vector::Element>(a: &[T], b: &[T]) -> T {
            $(if $past(2 * core::mem::size_of_val(a)) {
                use $narrow as narrow;
                return narrow::dot(a, b);
            })?
            #[target_feature(enable = $feature)]
            fn with_feature<T: $crate::vector::Element>(a: &[T], b: &[T]) -> T {
                // SAFETY: the ISA's features are enabled here.
                unsafe { $crate::generic::$dot::<T::Vector<$isa>>(a, b) }
            }
            // SAFETY: reachable only through a table handed out when the CPU has this
            // tier, so every feature `with_feature` enables is present (see `macros.rs`).
            unsafe { with_feature(a, b) }
        }
    };
    (@reduce $feature:literal, $isa:ty, $name:ident, $alg:ident -> $ret:ty, $max:literal) => {
        #[doc = concat!("`scalar::", stringify!($name), "`, hand-written (`generic::",
            stringify!($alg), "`) with `", $feature, "`.")]
        pub fn $name<T: $crate::vector::Element>(a: &[T]) -> $ret {
            #[target_feature(enable = $feature)]
            fn with_feature<T: $crate::vector::Element>(a: &[T]) -> $ret {
                // SAFETY: the ISA's features are enabled here.
                unsafe { $crate::generic::$alg::<T::Vector<$isa>, $max>(a) }
            }
            // SAFETY: reachable only through a table handed out when the CPU has this
            // tier, so every feature `with_feature` enables is present (see `macros.rs`).
            unsafe { with_feature(a) }
        }
    };
}

/// The hand-written byte kernels of a tier, [`crate::generic`] over the `ByteVector` `$v`.
macro_rules! handwritten_bytes {
    ($feature:literal, $v:ty) => {
        #[doc = concat!("`scalar::count_byte`, hand-written (`generic::count_byte`) with `", $feature, "`.")]
        pub fn count_byte(hay: &[u8], needle: u8) -> usize {
            #[target_feature(enable = $feature)]
            fn with_feature(hay: &[u8], needle: u8) -> usize {
                // SAFETY: the ISA's features are enabled here.
                unsafe { $crate::generic::count_byte::<$v>(hay, needle) }
            }
            // SAFETY: reachable only through a table handed out when the CPU has this
            // tier, so every feature `with_feature` enables is present (see `macros.rs`).
            unsafe { with_feature(hay, needle) }
        }

        #[doc = concat!("`scalar::nth_byte`, hand-written (`generic::nth_byte`) with `", $feature, "`.")]
        pub fn nth_byte(hay: &[u8], needle: u8, n: usize) -> Result<usize, usize> {
            #[target_feature(enable = $feature)]
            fn with_feature(hay: &[u8], needle: u8, n: usize) -> Result<usize, usize> {
                // SAFETY: the ISA's features are enabled here.
                unsafe { $crate::generic::nth_byte::<$v>(hay, needle, n) }
            }
            // SAFETY: reachable only through a table handed out when the CPU has this
            // tier, so every feature `with_feature` enables is present (see `macros.rs`).
            unsafe { with_feature(hay, needle, n) }
        }

        #[doc = concat!("`scalar::first_nonzero_word`, hand-written (`generic::first_nonzero_word`) with `", $feature, "`.")]
        pub fn first_nonzero_word(words: &[u64]) -> Option<usize> {
            #[target_feature(enable = $feature)]
            fn with_feature(words: &[u64]) -> Option<usize> {
                // SAFETY: the ISA's features are enabled here.
                unsafe { $crate::generic::first_nonzero_word::<$v>(words) }
            }
            // SAFETY: reachable only through a table handed out when the CPU has this
            // tier, so every feature `with_feature` enables is present (see `macros.rs`).
            unsafe { with_feature(words) }
        }
    };
}

/// `math_ops`: the exp/log kernels of a tier, [`crate::math`]'s vector kernels
/// over the [`crate::vector::Isa`] `$isa` (a full path).
macro_rules! math_kernels {
    ($feature:literal, $isa:path) => {
        /// The exp/log kernels of this tier (hand-written: `crate::math`).
        pub mod math_ops {
            math_kernels!(@op $feature, $isa, exp, $crate::math::EXP);
            math_kernels!(@op $feature, $isa, log, $crate::math::LOG);
            math_kernels!(@op $feature, $isa, exp2, $crate::math::EXP2);
            math_kernels!(@op $feature, $isa, log2, $crate::math::LOG2);
            math_kernels!(@op $feature, $isa, log10, $crate::math::LOG10);
            math_kernels!(@op $feature, $isa, expm1, $crate::math::EXPM1);
            math_kernels!(@op $feature, $isa, log1p, $crate::math::LOG1P);
            math_kernels!(@op $feature, $isa, tanh, $crate::math::TANH);
            math_kernels!(@op $feature, $isa, sin, $crate::math::SIN);
            math_kernels!(@op $feature, $isa, cos, $crate::math::COS);
            math_kernels!(@pow $feature, $isa);
        }
    };
    (@pow $feature:literal, $isa:path) => {
        /// `pow` kernels of this tier (`crate::math`), in every operand shape.
        pub mod pow {
            use $crate::math::{pow_raw, Pow};
            use core::mem::MaybeUninit;

            /// # Safety
            /// The CPU has this tier's features (`$feature`); `out` is valid for `n`
            /// writes, each operand for `n` reads (one where it is a scalar); an
            /// operand may be `out` itself, not otherwise overlap it.
            #[target_feature(enable = $feature)]
            unsafe fn run<T: Pow>(a: *const T, av: bool, b: *const T, bv: bool, out: *mut T, n: usize) {
                // SAFETY: the caller's contract, with the ISA's features enabled here.
                unsafe { pow_raw::<T, $isa>(a, av, b, bv, out, n) }
            }
            /// `out[i] = pow(a[i], b[i])`
            pub fn vv<T: Pow>(a: &[T], b: &[T], out: &mut [T]) {
                assert!(a.len() == out.len() && b.len() == out.len(), "kernel length mismatch");
                // SAFETY: reachable only through a table handed out when the CPU has
                // this tier (see `macros.rs`); the slices hold `out.len()` elements.
                unsafe { run(a.as_ptr(), true, b.as_ptr(), true, out.as_mut_ptr(), out.len()) }
            }
            /// `out[i] = pow(a[i], s)`
            pub fn vs<T: Pow>(a: &[T], s: T, out: &mut [T]) {
                assert!(a.len() == out.len(), "kernel length mismatch");
                // SAFETY: as in `vv`; `s` is one readable value.
                unsafe { run(a.as_ptr(), true, &s, false, out.as_mut_ptr(), out.len()) }
            }
            /// `out[i] = pow(s, b[i])`
            pub fn sv<T: Pow>(s: T, b: &[T], out: &mut [T]) {
                assert!(b.len() == out.len(), "kernel length mismatch");
                // SAFETY: as in `vs`.
                unsafe { run(&s, false, b.as_ptr(), true, out.as_mut_ptr(), out.len()) }
            }
            /// [`vv`] into uninitialised memory: writes every element of `out`
            pub fn vv_uninit<T: Pow>(a: &[T], b: &[T], out: &mut [MaybeUninit<T>]) {
                assert!(a.len() == out.len() && b.len() == out.len(), "kernel length mismatch");
                // SAFETY: as in `vv` (`MaybeUninit<T>` has `T`'s layout).
                unsafe { run(a.as_ptr(), true, b.as_ptr(), true, out.as_mut_ptr().cast(), out.len()) }
            }
            /// [`vs`] into uninitialised memory: writes every element of `out`
            pub fn vs_uninit<T: Pow>(a: &[T], s: T, out: &mut [MaybeUninit<T>]) {
                assert!(a.len() == out.len(), "kernel length mismatch");
                // SAFETY: as in `vs` (`MaybeUninit<T>` has `T`'s layout).
                unsafe { run(a.as_ptr(), true, &s, false, out.as_mut_ptr().cast(), out.len()) }
            }
            /// [`sv`] into uninitialised memory: writes every element of `out`
            pub fn sv_uninit<T: Pow>(s: T, b: &[T], out: &mut [MaybeUninit<T>]) {
                assert!(b.len() == out.len(), "kernel length mismatch");
                // SAFETY: as in `sv` (`MaybeUninit<T>` has `T`'s layout).
                unsafe { run(&s, false, b.as_ptr(), true, out.as_mut_ptr().cast(), out.len()) }
            }
            /// `acc[i] = pow(acc[i], b[i])`
            pub fn assign_vv<T: Pow>(acc: &mut [T], b: &[T]) {
                assert!(b.len() == acc.len(), "kernel length mismatch");
                let p = acc.as_mut_ptr();
                // SAFETY: as in `vv`; the kernel reads each vector before it writes it.
                unsafe { run(p, true, b.as_ptr(), true, p, acc.len()) }
            }
            /// Four [`assign_vv`] in turn (the same bits)
            pub fn assign_vv4<T: Pow>(acc: &mut [T], b: [&[T]; 4]) {
                for bi in b {
                    assign_vv(acc, bi);
                }
            }
            /// `acc[i] = pow(acc[i], s)`
            pub fn assign_vs<T: Pow>(acc: &mut [T], s: T) {
                let p = acc.as_mut_ptr();
                // SAFETY: as in `assign_vv`.
                unsafe { run(p, true, &s, false, p, acc.len()) }
            }
        }
    };
    (@op $feature:literal, $isa:path, $op:ident, $id:path) => {
        #[doc = concat!("`", stringify!($op), "` kernels of this tier (`crate::math`).")]
        pub mod $op {
            use $crate::math::{map_raw, Math};
            use core::mem::MaybeUninit;

            /// # Safety
            /// The CPU has this tier's features (`$feature`); `a` is valid for `n` reads and
            /// `out` for `n` writes (`out` may be `a` itself, not otherwise overlap it).
            #[target_feature(enable = $feature)]
            unsafe fn run<T: Math>(a: *const T, out: *mut T, n: usize) {
                // SAFETY: the caller's contract, with the ISA's features enabled here.
                unsafe { map_raw::<T, $isa, { $id }>(a, out, n) }
            }
            /// `out[i] = op(a[i])`
            pub fn map<T: Math>(a: &[T], out: &mut [T]) {
                assert!(a.len() == out.len(), "kernel length mismatch");
                // SAFETY: reachable only through a table handed out when the CPU has
                // this tier (see `macros.rs`); both slices hold `a.len()` elements.
                unsafe { run(a.as_ptr(), out.as_mut_ptr(), a.len()) }
            }
            /// [`map`] into uninitialised memory: writes every element of `out`
            pub fn map_uninit<T: Math>(a: &[T], out: &mut [MaybeUninit<T>]) {
                assert!(a.len() == out.len(), "kernel length mismatch");
                // SAFETY: as in `map` (`MaybeUninit<T>` has `T`'s layout).
                unsafe { run(a.as_ptr(), out.as_mut_ptr().cast(), a.len()) }
            }
            /// `acc[i] = op(acc[i])`
            pub fn assign<T: Math>(acc: &mut [T]) {
                let p = acc.as_mut_ptr();
                // SAFETY: as in `map`; the kernel reads each vector before it writes it.
                unsafe { run(p, p, acc.len()) }
            }
            /// `out[i] = op(a[i] - s)` into uninitialised memory, returning the sum
            /// of the results (`math::map_shift_sum_raw`): writes every element of `out`
            #[allow(dead_code)] // the tables hold only `exp`'s
            pub fn map_shift_sum<T: Math>(a: &[T], s: T, out: &mut [MaybeUninit<T>]) -> T {
                /// # Safety
                /// The CPU has `$feature`; `a` is valid for `n` reads and `out` for `n`
                /// writes.
                #[target_feature(enable = $feature)]
                unsafe fn run_sum<T: Math>(a: *const T, s: T, out: *mut T, n: usize) -> T {
                    // SAFETY: the caller's contract, with the ISA's features enabled here.
                    unsafe { $crate::math::map_shift_sum_raw::<T, $isa, { $id }>(a, s, out, n) }
                }
                assert!(a.len() == out.len(), "kernel length mismatch");
                // SAFETY: as in `map` (`MaybeUninit<T>` has `T`'s layout).
                unsafe { run_sum(a.as_ptr(), s, out.as_mut_ptr().cast(), a.len()) }
            }
        }
    };
}

/// `F32` and `F64`: the tables of the tier whose kernels (modules `add`, …, `ge`,
/// `math_ops`, and functions `fma`, …, `dot`) are in scope where this is invoked.
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
            sqrt: tier_tables!(@unary sqrt),
            exp: tier_tables!(@unary math_ops::exp),
            exp_shift_sum: $crate::WritesAll(math_ops::exp::map_shift_sum),
            log: tier_tables!(@unary math_ops::log),
            exp2: tier_tables!(@unary math_ops::exp2),
            log2: tier_tables!(@unary math_ops::log2),
            log10: tier_tables!(@unary math_ops::log10),
            expm1: tier_tables!(@unary math_ops::expm1),
            log1p: tier_tables!(@unary math_ops::log1p),
            tanh: tier_tables!(@unary math_ops::tanh),
            sin: tier_tables!(@unary math_ops::sin),
            cos: tier_tables!(@unary math_ops::cos),
            pow: tier_tables!(@binary math_ops::pow),
            maximum: tier_tables!(@binary maximum),
            minimum: tier_tables!(@binary minimum),
            fma,
            eq: tier_tables!(@cmp eq),
            ne: tier_tables!(@cmp ne),
            lt: tier_tables!(@cmp lt),
            le: tier_tables!(@cmp le),
            gt: tier_tables!(@cmp gt),
            ge: tier_tables!(@cmp ge),
            sum,
            prod,
            max,
            min,
            argmax,
            argmin,
            dot,
        }
    };
    (@binary $($op:ident)::+) => {
        $crate::BinaryOp {
            vv: $($op)::+::vv,
            vs: $($op)::+::vs,
            sv: $($op)::+::sv,
            vv_uninit: $crate::WritesAll($($op)::+::vv_uninit),
            vs_uninit: $crate::WritesAll($($op)::+::vs_uninit),
            sv_uninit: $crate::WritesAll($($op)::+::sv_uninit),
            assign_vv: $($op)::+::assign_vv,
            assign_vv4: $($op)::+::assign_vv4,
            assign_vs: $($op)::+::assign_vs,
        }
    };
    (@unary $($op:ident)::+) => {
        $crate::UnaryOp {
            map: $($op)::+::map,
            map_uninit: $crate::WritesAll($($op)::+::map_uninit),
            assign: $($op)::+::assign,
        }
    };
    (@cmp $($op:ident)::+) => {
        $crate::CmpOp {
            vv: $($op)::+::vv,
            vs: $($op)::+::vs,
        }
    };
}

/// `int_ops`: the integer kernels of a tier (modules `add`, `sub`, `mul`, `eq`, …,
/// `ge` and the function `sum`): the [`crate::scalar::int`] oracles compiled with the
/// tier's features, which LLVM vectorises (wrapping integer arithmetic is
/// associative, so the sum's vector lanes give the oracle's bits), and the tables
/// `I32`, `I64` and `U8` over them.
macro_rules! int_kernels {
    ($feature:literal, $tier:expr) => {
        /// The integer kernels of this tier (autovectorised `scalar::int`).
        pub mod int_ops {
            int_kernels!(@binary $feature; add, sub, mul);
            int_kernels!(@cmp $feature; eq, ne, lt, le, gt, ge);
            autovec_kernel!(@ $crate::scalar::int::IntArith; $feature, $crate::scalar::int::sum => sum(a: &[T]) -> i64);
        }
        int_kernels!(@statics $tier);
    };
    // The tables over the `int_ops` in scope.
    (@statics $tier:expr) => {
        /// The `i32` kernels of this tier.
        pub static I32: $crate::IntTable<i32> = int_kernels!(@table $tier);
        /// The `i64` kernels of this tier.
        pub static I64: $crate::IntTable<i64> = int_kernels!(@table $tier);
        /// The `u8` kernels of this tier.
        pub static U8: $crate::IntTable<u8> = int_kernels!(@table $tier);
    };
    (@binary $feature:literal; $($op:ident),+) => {$(
        #[doc = concat!("`", stringify!($op), "` kernels of this tier (autovectorised).")]
        pub mod $op {
            use $crate::scalar::int;
            autovec_kernel!(@ int::IntArith; $feature, int::$op::vv => vv(a: &[T], b: &[T], out: &mut [T]));
            autovec_kernel!(@ int::IntArith; $feature, int::$op::vs => vs(a: &[T], s: T, out: &mut [T]));
            autovec_kernel!(@ int::IntArith; $feature, int::$op::sv => sv(s: T, b: &[T], out: &mut [T]));
            autovec_kernel!(@ int::IntArith; $feature, int::$op::vv_uninit => vv_uninit(a: &[T], b: &[T], out: &mut [core::mem::MaybeUninit<T>]));
            autovec_kernel!(@ int::IntArith; $feature, int::$op::vs_uninit => vs_uninit(a: &[T], s: T, out: &mut [core::mem::MaybeUninit<T>]));
            autovec_kernel!(@ int::IntArith; $feature, int::$op::sv_uninit => sv_uninit(s: T, b: &[T], out: &mut [core::mem::MaybeUninit<T>]));
            autovec_kernel!(@ int::IntArith; $feature, int::$op::assign_vv => assign_vv(acc: &mut [T], b: &[T]));
            autovec_kernel!(@ int::IntArith; $feature, int::$op::assign_vv4 => assign_vv4(acc: &mut [T], b: [&[T]; 4]));
            autovec_kernel!(@ int::IntArith; $feature, int::$op::assign_vs => assign_vs(acc: &mut [T], s: T));
        }
    )+};
    (@cmp $feature:literal; $($op:ident),+) => {$(
        #[doc = concat!("`", stringify!($op), "` kernels of this tier (autovectorised).")]
        pub mod $op {
            use $crate::scalar::int;
            autovec_kernel!(@ int::IntArith; $feature, int::$op::vv => vv(a: &[T], b: &[T], out: &mut [bool]));
            autovec_kernel!(@ int::IntArith; $feature, int::$op::vs => vs(a: &[T], s: T, out: &mut [bool]));
        }
    )+};
    (@table $tier:expr) => {
        $crate::IntTable {
            tier: $tier,
            add: tier_tables!(@binary int_ops::add),
            sub: tier_tables!(@binary int_ops::sub),
            mul: tier_tables!(@binary int_ops::mul),
            eq: tier_tables!(@cmp int_ops::eq),
            ne: tier_tables!(@cmp int_ops::ne),
            lt: tier_tables!(@cmp int_ops::lt),
            le: tier_tables!(@cmp int_ops::le),
            gt: tier_tables!(@cmp int_ops::gt),
            ge: tier_tables!(@cmp int_ops::ge),
            sum: int_ops::sum,
        }
    };
}

/// `KERNELS`: everything the tier compiles, for [`crate::dispatch::kernels_for`]:
/// the tables `F32`, `F64` and `BYTES` in scope where this is invoked, the GEMM
/// micro-kernels of `gemm::$tier` and the ceilings of `ceiling::$tier`.
macro_rules! tier_kernels {
    ($tier:ident) => {
        /// Everything this tier compiles.
        pub(crate) static KERNELS: $crate::dispatch::TierKernels = $crate::dispatch::TierKernels {
            f32: &F32,
            f64: &F64,
            i32: &I32,
            i64: &I64,
            u8: &U8,
            bytes: &BYTES,
            gemm_f32: &$crate::gemm::$tier::F32,
            gemm_f64: &$crate::gemm::$tier::F64,
            ceilings: &$crate::ceiling::$tier::TABLE,
        };
    };
}

/// `BYTES`: the byte table of the tier whose `count_byte`, `nth_byte` and
/// `first_nonzero_word` are in scope where this is invoked.
macro_rules! byte_table {
    ($tier:expr) => {
        /// The byte and word kernels of this tier.
        pub static BYTES: $crate::ByteTable = $crate::ByteTable {
            tier: $tier,
            count_byte,
            nth_byte,
            first_nonzero_word,
        };
    };
}

/// An item for tests and benchmarks: public with the feature `internals`,
/// crate-private without it, so it is not part of the crate's stable interface.
macro_rules! internal {
    ($(#[$m:meta])* pub $($rest:tt)*) => {
        #[cfg(feature = "internals")]
        $(#[$m])*
        pub $($rest)*

        #[cfg(not(feature = "internals"))]
        #[allow(dead_code)]
        $(#[$m])*
        pub(crate) $($rest)*
    };
}
