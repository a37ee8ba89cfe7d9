//! The kernels of the active tier, each next to its anchor in the same run: a plain
//! loop that only moves the same bytes (`read`: xor-fold of one slice's bits,
//! `read2`: of two slices, `copy`: one slice in, one out, `2r1w`: two in, one out),
//! so the ratio says how close a kernel is to the memory or cache bound. For the
//! hand-written kernels the oracle compiled with AVX2 (what the tier would be without
//! them) is measured too, as `oracle@avx2`.
//!
//! f64 at n = 1Ki, 16Ki, 256Ki, 4Mi; f32 at 1Ki. Every kernel's answer is checked
//! against the scalar oracle before it is timed. Quick run:
//! `cargo bench -p ndsimd-kernels -- --warm-up-time 0.3 --measurement-time 1`.

// The tests' generator, so benches and tests draw data the same way.
#[path = "../tests/common/mod.rs"]
mod common;

use common::XorShift;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkGroup, Criterion};
use criterion::{measurement::WallTime, BenchmarkId};
use ndsimd_kernels::{byte_table, scalar, KernelElement};

/// What the bench needs of `f64` and `f32`.
trait Elem: KernelElement + scalar::Arith {
    const NAME: &'static str;
    fn from_f64(x: f64) -> Self;
    fn bits64(self) -> u64;
}
impl Elem for f64 {
    const NAME: &'static str = "f64";
    fn from_f64(x: f64) -> Self {
        x
    }
    fn bits64(self) -> u64 {
        self.to_bits()
    }
}
impl Elem for f32 {
    const NAME: &'static str = "f32";
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn bits64(self) -> u64 {
        self.to_bits() as u64
    }
}

/// Values in [1, 17): no NaN, so the reductions scan the whole slice.
fn data<T: Elem>(n: usize, seed: u64) -> Vec<T> {
    let mut rng = XorShift(seed | 1);
    (0..n)
        .map(|_| T::from_f64(1.0 + (rng.next() % 1000) as f64 / 64.0))
        .collect()
}

// The anchors, compiled with AVX2 where the host has it (as the kernels are).
#[inline(always)]
fn read_plain<T: Elem>(a: &[T]) -> u64 {
    a.iter().fold(0, |s, x| s ^ x.bits64())
}
#[inline(always)]
fn read2_plain<T: Elem>(a: &[T], b: &[T]) -> u64 {
    a.iter()
        .zip(b)
        .fold(0, |s, (x, y)| s ^ x.bits64() ^ y.bits64())
}
#[inline(always)]
fn copy_plain<T: Elem>(a: &[T], out: &mut [T]) {
    out.copy_from_slice(a)
}
#[inline(always)]
fn two_one_plain<T: Elem>(a: &[T], b: &[T], out: &mut [T]) {
    // min() keeps it a plain 2-read-1-write vector loop with no NaN or sign work.
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = if x < y { x } else { y };
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The anchors and the oracles compiled with AVX2 + FMA.
    use super::*;

    macro_rules! with_avx2 {
        ($($name:ident = $body:path => ($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {$(
            pub fn $name<T: Elem>($($arg: $ty),*) -> $ret {
                #[target_feature(enable = "avx2,fma")]
                fn inner<T: Elem>($($arg: $ty),*) -> $ret {
                    $body($($arg),*)
                }
                assert!(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"));
                // SAFETY: the features were just checked.
                unsafe { inner($($arg),*) }
            }
        )*};
    }
    with_avx2! {
        read = read_plain => (a: &[T]) -> u64;
        read2 = read2_plain => (a: &[T], b: &[T]) -> u64;
        copy = copy_plain => (a: &[T], out: &mut [T]) -> ();
        two_one = two_one_plain => (a: &[T], b: &[T], out: &mut [T]) -> ();
        oracle_max = scalar::max => (a: &[T]) -> Option<T>;
        oracle_argmax = scalar::argmax => (a: &[T]) -> Option<usize>;
        oracle_sum = scalar::sum => (a: &[T]) -> T;
        oracle_dot = scalar::dot => (a: &[T], b: &[T]) -> T;
    }
    #[target_feature(enable = "avx2,fma")]
    fn count_inner(h: &[u8], b: u8) -> usize {
        scalar::count_byte(h, b)
    }
    #[target_feature(enable = "avx2,fma")]
    fn nonzero_inner(w: &[u64]) -> Option<usize> {
        scalar::first_nonzero_word(w)
    }
    pub fn oracle_count(h: &[u8], b: u8) -> usize {
        assert!(is_x86_feature_detected!("avx2"));
        // SAFETY: the feature was just checked.
        unsafe { count_inner(h, b) }
    }
    pub fn oracle_nonzero(w: &[u64]) -> Option<usize> {
        assert!(is_x86_feature_detected!("avx2"));
        // SAFETY: the feature was just checked.
        unsafe { nonzero_inner(w) }
    }
}
#[cfg(not(target_arch = "x86_64"))]
mod avx2 {
    //! Elsewhere the anchors are the plain loops.
    pub(crate) use super::{
        copy_plain as copy, read2_plain as read2, read_plain as read, two_one_plain as two_one,
    };
}

/// Whether the AVX2 oracle rows can run (they exist on x86-64 only).
#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
}

fn bench<R>(g: &mut BenchmarkGroup<WallTime>, name: &str, n: usize, mut f: impl FnMut() -> R) {
    g.bench_function(BenchmarkId::new(name, n), |b| b.iter(|| black_box(f())));
}

fn floats<T: Elem>(c: &mut Criterion, sizes: &[usize]) {
    let t = T::table();
    for &n in sizes {
        let (a, b, cc) = (data::<T>(n, 1), data::<T>(n, 2), data::<T>(n, 3));
        let mut out = vec![T::ZERO; n];
        let mut flags = vec![false; n];
        let mut g = c.benchmark_group(format!("{}/{}", T::NAME, t.tier));

        // Verify the answers before the clock.
        let check = |got: &[T], want: &[T]| {
            assert!(got.iter().zip(want).all(|(x, y)| x.bits64() == y.bits64()));
        };
        let mut want = vec![T::ZERO; n];
        (t.add.vv)(&a, &b, &mut out);
        scalar::add::vv(&a, &b, &mut want);
        check(&out, &want);
        (t.maximum.vv)(&a, &b, &mut out);
        scalar::maximum::vv(&a, &b, &mut want);
        check(&out, &want);
        (t.sqrt.map)(&a, &mut out);
        scalar::sqrt::map(&a, &mut want);
        check(&out, &want);
        (t.fma)(&a, &b, &cc, &mut out);
        scalar::fma(&a, &b, &cc, &mut want);
        check(&out, &want);
        let mut want_flags = vec![false; n];
        (t.lt.vv)(&a, &b, &mut flags);
        scalar::lt::vv(&a, &b, &mut want_flags);
        assert_eq!(flags, want_flags);
        assert_eq!((t.sum)(&a).bits64(), scalar::sum(&a).bits64());
        assert_eq!((t.prod)(&a).bits64(), scalar::prod(&a).bits64());
        assert_eq!((t.max)(&a), scalar::max(&a));
        assert_eq!((t.min)(&a), scalar::min(&a));
        assert_eq!((t.argmax)(&a), scalar::argmax(&a));
        assert_eq!((t.argmin)(&a), scalar::argmin(&a));
        let d = (t.dot)(&a, &b).bits64();
        assert_eq!(d, scalar::dot(&a, &b).bits64());

        bench(&mut g, "anchor read", n, || avx2::read(&a));
        bench(&mut g, "anchor read2", n, || avx2::read2(&a, &b));
        bench(&mut g, "anchor copy", n, || avx2::copy(&a, &mut out));
        bench(&mut g, "anchor 2r1w", n, || avx2::two_one(&a, &b, &mut out));
        bench(&mut g, "add", n, || (t.add.vv)(&a, &b, &mut out));
        bench(&mut g, "maximum", n, || (t.maximum.vv)(&a, &b, &mut out));
        bench(&mut g, "sqrt", n, || (t.sqrt.map)(&a, &mut out));
        bench(&mut g, "fma", n, || (t.fma)(&a, &b, &cc, &mut out));
        bench(&mut g, "lt", n, || (t.lt.vv)(&a, &b, &mut flags));
        bench(&mut g, "sum", n, || (t.sum)(&a));
        bench(&mut g, "prod", n, || (t.prod)(&a));
        bench(&mut g, "dot", n, || (t.dot)(&a, &b));
        bench(&mut g, "max", n, || (t.max)(&a));
        bench(&mut g, "min", n, || (t.min)(&a));
        bench(&mut g, "argmax", n, || (t.argmax)(&a));
        bench(&mut g, "argmin", n, || (t.argmin)(&a));
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            bench(&mut g, "sum oracle@avx2", n, || avx2::oracle_sum(&a));
            bench(&mut g, "dot oracle@avx2", n, || avx2::oracle_dot(&a, &b));
            bench(&mut g, "max oracle@avx2", n, || avx2::oracle_max(&a));
            bench(&mut g, "argmax oracle@avx2", n, || avx2::oracle_argmax(&a));
        }
        g.finish();
    }
}

fn bytes(c: &mut Criterion, sizes: &[usize]) {
    let t = byte_table();
    for &n in sizes {
        // Text-like bytes with a newline every ~64, and all-zero words but the last.
        let hay: Vec<u8> = data::<f64>(n, 4)
            .iter()
            .map(|&x| if x < 1.25 { b'\n' } else { b'a' + (x as u8) })
            .collect();
        let mut words = vec![0u64; n / 8];
        *words.last_mut().unwrap() = 1;
        assert_eq!((t.count_byte)(&hay, b'\n'), scalar::count_byte(&hay, b'\n'));
        assert_eq!((t.first_nonzero_word)(&words), Some(n / 8 - 1));

        let mut g = c.benchmark_group(format!("bytes/{}", t.tier));
        bench(&mut g, "anchor read", n, || avx2::read::<f64>(f64s(&words)));
        bench(&mut g, "count_byte", n, || (t.count_byte)(&hay, b'\n'));
        bench(&mut g, "first_nonzero_word", n, || {
            (t.first_nonzero_word)(&words)
        });
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            bench(&mut g, "count_byte oracle@avx2", n, || {
                avx2::oracle_count(&hay, b'\n')
            });
            bench(&mut g, "first_nonzero_word oracle@avx2", n, || {
                avx2::oracle_nonzero(&words)
            });
        }
        g.finish();
    }
}

/// The words as `f64`s, for the read anchor (same bytes, bits untouched).
fn f64s(w: &[u64]) -> &[f64] {
    // SAFETY: u64 and f64 have the same size and alignment, and every bit pattern is
    // a valid f64.
    unsafe { std::slice::from_raw_parts(w.as_ptr().cast(), w.len()) }
}

const SIZES: [usize; 4] = [1 << 10, 1 << 14, 1 << 18, 1 << 22];

fn all(c: &mut Criterion) {
    floats::<f64>(c, &SIZES);
    floats::<f32>(c, &SIZES[..1]);
    bytes(c, &[1 << 14, 1 << 22]);
}

criterion_group!(benches, all);
criterion_main!(benches);
