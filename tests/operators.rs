//! Every spelling of an arithmetic operator against the method it stands for: an
//! owned array, a borrowed one, a view by value (`ArrayView`, `ArrayViewMut`) or a
//! scalar on either side, and the `op=` forms. Each spelling gives the method's
//! bits, the method's panic message for shapes that do not broadcast, and takes the
//! method's path: it makes the same allocations on the calling thread, plain and
//! zeroed (a counting allocator), so no spelling zero-fills where the method does
//! not. An owned left operand whose shape is the result's is written in place.

mod common;

use common::Rng;
use ndsimd::{Array, Element, SliceArg};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::thread::LocalKey;

struct Counting;

thread_local! {
    // Per thread, so the harness's other tests do not count.
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    static ZEROED: Cell<u64> = const { Cell::new(0) };
}

fn bump(counter: &'static LocalKey<Cell<u64>>) {
    // `try_with`: a thread being torn down may still allocate.
    let _ = counter.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged;
// the counters (const-initialized thread locals without destructors, which never
// allocate) have no effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump(&ALLOCS);
        // SAFETY: forwarded as received (see the impl).
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump(&ZEROED);
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump(&ALLOCS);
        // SAFETY: forwarded as received.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// What a call allocated on this thread: plain allocations (and reallocations),
/// and zeroed ones (`Array::zeros` before the engine writes it).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Path {
    allocs: u64,
    zeroed: u64,
}

fn counted<R>(f: impl FnOnce() -> R) -> (R, Path) {
    let (a0, z0) = (ALLOCS.with(Cell::get), ZEROED.with(Cell::get));
    let r = f();
    let path = Path {
        allocs: ALLOCS.with(Cell::get) - a0,
        zeroed: ZEROED.with(Cell::get) - z0,
    };
    (r, path)
}

/// Bit patterns, so signed zeros count.
trait Bits: Element {
    fn bits(self) -> u64;
}
impl Bits for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
}
impl Bits for f32 {
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

fn same_bits<T: Bits>(got: &Array<T>, want: &Array<T>, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    // Any NaN matches a NaN: which payload an operation on two NaNs keeps is not
    // specified (LLVM may commute an add), and it differs between kernels.
    let differ = |g: T, w: T| g.bits() != w.bits() && !(g.is_nan() && w.is_nan());
    let mismatch = got
        .iter()
        .zip(want.iter())
        .enumerate()
        .find(|(_, (g, w))| differ(**g, **w));
    if let Some((i, (g, w))) = mismatch {
        panic!(
            "{what}: element {i} (row-major) is {g:?} ({:#x}), want {w:?} ({:#x})",
            g.bits(),
            w.bits()
        );
    }
}

/// The message `f` panics with.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p.downcast_ref::<&str>().unwrap().to_string(),
    }
}

/// Values with signed zeros, infinities and NaNs, so that a spelling that swapped
/// its operands would show.
fn values<T: Element>(shape: &[usize], seed: u64) -> Array<T> {
    let n: usize = shape.iter().product();
    let specials = [
        f64::from_bits(0x7ff8_0000_0000_0123),
        f64::from_bits(0xfff8_0000_0000_0456),
        -0.0,
        0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let mut rng = Rng(seed | 1);
    let v = (0..n)
        .map(|i| {
            let x = rng.next();
            let f = if i % 11 == 3 {
                specials[(x % 6) as usize]
            } else {
                (x % 2001) as f64 / 64.0 - 15.0
            };
            T::from_f64(f).unwrap()
        })
        .collect();
    Array::from_shape_vec(shape, v).unwrap()
}

/// The pairs of operands every spelling runs on: same shapes, a row broadcast, a
/// left operand the result is larger than, padded rows (long contiguous runs in a
/// strided array), transposed operands with long and with short strided runs (these
/// take the zeroed buffer and the engine's blocks), and one large enough to split
/// over the pool.
fn cases<T: Element>() -> Vec<(String, Array<T>, Array<T>)> {
    let t = |a: Array<T>| a.reversed_axes();
    // Rows contiguous, the array not: runs long enough to be written into a new
    // array without zeroing it first.
    let padded = |a: Array<T>| {
        a.slice_move([SliceArg::from(..), SliceArg::from(3..73)])
            .unwrap()
    };
    vec![
        (
            "same shape".into(),
            values(&[4, 70], 1),
            values(&[4, 70], 2),
        ),
        ("row".into(), values(&[4, 70], 3), values(&[70], 4)),
        (
            "larger than a".into(),
            values(&[70], 5),
            values(&[4, 70], 6),
        ),
        (
            "padded rows".into(),
            padded(values(&[4, 80], 15)),
            values(&[70], 16),
        ),
        (
            "transposed".into(),
            t(values(&[70, 4], 7)),
            values(&[4, 70], 8),
        ),
        (
            "short runs".into(),
            t(values(&[5, 3], 9)),
            t(values(&[5, 3], 10)),
        ),
        ("outer".into(), values(&[3, 1], 11), values(&[1, 4], 12)),
        ("pool".into(), values(&[256, 160], 13), values(&[160], 14)),
    ]
}

/// A pointer to an array's first element, to see a buffer reused.
fn first<T: Element>(a: &Array<T>) -> *const T {
    a.iter().next().map_or(std::ptr::null(), |x| x as *const T)
}

macro_rules! suite {
    ($T:ident, $($op:tt $op_assign:tt $method:ident $try_assign:ident $s:literal;)*) => {$({
        for (case, a, b) in cases::<$T>() {
            // References for the `move` closures below.
            let (ar, br) = (&a, &b);
            let name = stringify!($method);
            let what = |spelling: &str| format!("{}: {case}: {spelling}", name);
            // Once uncounted: the pool's start and lazy tables allocate.
            let _ = (a.$method(&b), a.$method($s), a.clone().$try_assign(&b));
            let (want, method_path) = counted(|| a.$method(&b).unwrap());

            // Allocating spellings: the method's path.
            let check = |spelling: &str, (got, path): (Array<$T>, Path)| {
                same_bits(&got, &want, &what(spelling));
                assert_eq!(path, method_path, "{}: path", what(spelling));
            };
            check("&a op &b", counted(|| &a $op &b));
            let bo = b.clone();
            check("&a op b", counted(move || ar $op bo));
            let bv = b.view();
            check("&a op b.view()", counted(move || ar $op bv));
            let av = a.view();
            check("a.view() op &b", counted(move || av $op br));
            let (av, bv) = (a.view(), b.view());
            check("a.view() op b.view()", counted(move || av $op bv));
            let (av, bo) = (a.view(), b.clone());
            check("a.view() op b", counted(move || av $op bo));
            let av = a.view();
            check("&a.view() op &b", counted(|| &av $op &b));
            let mut am = a.clone();
            let avm = am.view_mut();
            check("a.view_mut() op &b", counted(move || avm $op br));

            // An owned left operand: in its buffer when the result has its shape
            // (the in-place method's path), else the allocating method's.
            let in_place = want.shape() == a.shape();
            let mut c = a.clone();
            let (r, assign_path) = counted(|| c.$try_assign(&b));
            if in_place {
                r.unwrap();
                same_bits(&c, &want, &what("try_assign"));
            }
            let owned_path = if in_place { assign_path } else { method_path };
            // `at`: where the left operand's buffer was, kept when written in place.
            let owned = |spelling: &str, at: *const $T, (got, path): (Array<$T>, Path)| {
                same_bits(&got, &want, &what(spelling));
                assert_eq!(path, owned_path, "{}: path", what(spelling));
                if in_place {
                    assert_eq!(first(&got), at, "{}: buffer not reused", what(spelling));
                }
            };
            let ao = a.clone();
            owned("a op &b", first(&ao), counted(move || ao $op br));
            let (ao, bo) = (a.clone(), b.clone());
            owned("a op b", first(&ao), counted(move || ao $op bo));
            let (ao, bv) = (a.clone(), b.view());
            owned("a op b.view()", first(&ao), counted(move || ao $op bv));

            // `op=`: the in-place method's path.
            if in_place {
                let assigned = |spelling: &str, (c, path): (Array<$T>, Path)| {
                    same_bits(&c, &want, &what(spelling));
                    assert_eq!(path, assign_path, "{}: path", what(spelling));
                };
                let mut c = a.clone();
                assigned("c op= &b", counted(|| { c $op_assign &b; c }));
                let (mut c, bo) = (a.clone(), b.clone());
                assigned("c op= b", counted(move || { c $op_assign bo; c }));
                let (mut c, bv) = (a.clone(), b.view());
                assigned("c op= b.view()", counted(move || { c $op_assign bv; c }));
                let mut c = a.clone();
                let r = counted(|| { let mut cv = c.view_mut(); cv $op_assign &b; });
                assigned("c.view_mut() op= &b", (c, r.1));
            }

            // A scalar on the right: the method's path with a scalar.
            let s: $T = $s;
            let (want, method_path) = counted(|| a.$method(s).unwrap());
            let check = |spelling: &str, (got, path): (Array<$T>, Path)| {
                same_bits(&got, &want, &what(spelling));
                assert_eq!(path, method_path, "{}: path", what(spelling));
            };
            check("&a op s", counted(|| &a $op s));
            let av = a.view();
            check("a.view() op s", counted(move || av $op s));
            let mut am = a.clone();
            let avm = am.view_mut();
            check("a.view_mut() op s", counted(move || avm $op s));
            let mut c = a.clone();
            let ((), assign_path) = counted(|| c.$try_assign(s).unwrap());
            same_bits(&c, &want, &what("try_assign s"));
            let ao = a.clone();
            let at = first(&ao);
            let (got, path) = counted(move || ao $op s);
            same_bits(&got, &want, &what("a op s"));
            assert_eq!(path, assign_path, "{}: path", what("a op s"));
            assert_eq!(first(&got), at, "{}: buffer not reused", what("a op s"));
            let mut c = a.clone();
            let ((), path) = counted(|| c $op_assign s);
            same_bits(&c, &want, &what("c op= s"));
            assert_eq!(path, assign_path, "{}: path", what("c op= s"));
            let mut c = a.clone();
            let ((), path) = counted(|| { let mut cv = c.view_mut(); cv $op_assign s; });
            same_bits(&c, &want, &what("c.view_mut() op= s"));
            assert_eq!(path, assign_path, "{}: path", what("c.view_mut() op= s"));

            // A scalar on the left: the element-by-element value in `s op x`'s
            // order, by the path of the method with the scalar on the right.
            let v: Vec<$T> = a.iter().map(|&x| s $op x).collect();
            let want = Array::from_shape_vec(a.shape(), v).unwrap();
            let check = |spelling: &str, (got, path): (Array<$T>, Path)| {
                same_bits(&got, &want, &what(spelling));
                assert_eq!(path, method_path, "{}: path", what(spelling));
            };
            check("s op &a", counted(|| s $op &a));
            let ao = a.clone();
            check("s op a", counted(move || s $op ao));
            let av = a.view();
            check("s op a.view()", counted(move || s $op av));
        }

        // Shapes that do not broadcast: every spelling panics with the method's
        // message; an `op=` that would grow its target with the in-place method's.
        let (a, b) = (values::<$T>(&[2, 3], 20), values::<$T>(&[4, 1, 2], 21));
        let msg = a.$method(&b).unwrap_err().to_string();
        assert!(msg.contains("[2, 3]") && msg.contains("[4, 1, 2]"), "{msg}");
        let spellings: Vec<(&str, Box<dyn FnOnce()>)> = vec![
            ("&a op &b", Box::new(|| drop(&a $op &b))),
            ("&a op b", Box::new(|| drop(&a $op b.clone()))),
            ("&a op b.view()", Box::new(|| drop(&a $op b.view()))),
            ("a.view() op &b", Box::new(|| drop(a.view() $op &b))),
            ("a.view() op b", Box::new(|| drop(a.view() $op b.clone()))),
            ("a.view_mut() op &b", Box::new(|| drop(a.clone().view_mut() $op &b))),
            ("a op &b", Box::new(|| drop(a.clone() $op &b))),
            ("a op b", Box::new(|| drop(a.clone() $op b.clone()))),
            ("a op b.view()", Box::new(|| drop(a.clone() $op b.view()))),
        ];
        for (spelling, f) in spellings {
            assert_eq!(panic_message(f), msg, "{}: {spelling}", stringify!($method));
        }
        let mut small = values::<$T>(&[3], 22);
        let wide = values::<$T>(&[2, 3], 23);
        let msg = small.$try_assign(&wide).unwrap_err().to_string();
        assert!(msg.contains("[3]") && msg.contains("[2, 3]"), "{msg}");
        let spellings: Vec<(&str, Box<dyn FnOnce()>)> = vec![
            ("c op= &b", Box::new(|| { let mut c = small.clone(); c $op_assign &wide; })),
            ("c op= b", Box::new(|| { let mut c = small.clone(); c $op_assign wide.clone(); })),
            ("c op= b.view()", Box::new(|| { let mut c = small.clone(); c $op_assign wide.view(); })),
            ("c.view_mut() op= &b", Box::new(|| { let mut c = small.clone(); let mut v = c.view_mut(); v $op_assign &wide; })),
        ];
        for (spelling, f) in spellings {
            assert_eq!(panic_message(f), msg, "{}: {spelling}", stringify!($method));
        }
        let msg = small.$try_assign(&b).unwrap_err().to_string();
        let mut c = small.clone();
        assert_eq!(panic_message(|| c $op_assign &b), msg, "{}: c op= &b", stringify!($method));
    })*};
}

/// [`suite!`] for the four operators of one type, each with a scalar that changes
/// the bits of every finite element.
macro_rules! every_operator {
    ($T:ident) => {
        suite!($T,
            + += add try_add_assign -2.5;
            - -= sub try_sub_assign 0.75;
            * *= mul try_mul_assign -3.0;
            / /= div try_div_assign 1.5;
        )
    };
}

#[test]
fn every_spelling_of_an_f64_operator_is_its_method() {
    every_operator!(f64);
}

#[test]
fn every_spelling_of_an_f32_operator_is_its_method() {
    every_operator!(f32);
}

#[test]
fn negation_is_the_neg_methods() {
    for (case, a, _) in cases::<f64>() {
        let _ = a.neg(); // once uncounted: the pool's start allocates
        let (want, method_path) = counted(|| a.neg());
        let check = |spelling: &str, (got, path): (Array<f64>, Path)| {
            same_bits(&got, &want, &format!("{case}: {spelling}"));
            assert_eq!(path, method_path, "{case}: {spelling}: path");
        };
        check("-&a", counted(|| -&a));
        let av = a.view();
        check("-a.view()", counted(move || -av));
        let mut am = a.clone();
        let avm = am.view_mut();
        check("-a.view_mut()", counted(move || -avm));
        let mut c = a.clone();
        let ((), assign_path) = counted(|| c.neg_assign());
        same_bits(&c, &want, &format!("{case}: neg_assign"));
        let ao = a.clone();
        let at = first(&ao);
        let (got, path) = counted(move || -ao);
        same_bits(&got, &want, &format!("{case}: -a"));
        assert_eq!(path, assign_path, "{case}: -a: path");
        assert_eq!(first(&got), at, "{case}: -a: buffer not reused");
    }
}

/// The panic of an operator points at the caller's line, as a method's `unwrap`
/// there would.
#[test]
fn an_operator_panics_at_its_caller() {
    static AT: std::sync::Mutex<Option<(String, u32)>> = std::sync::Mutex::new(None);
    let (a, b) = (Array::<f64>::zeros(&[2]), Array::<f64>::zeros(&[3]));
    let previous = std::panic::take_hook();
    let me = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        // Other tests panic on purpose meanwhile: only this thread's counts.
        if std::thread::current().id() == me {
            let at = info.location().map(|l| (l.file().to_string(), l.line()));
            *AT.lock().unwrap() = at;
        }
    }));
    let expected = line!() + 1;
    let r = std::panic::catch_unwind(|| drop(&a + &b));
    std::panic::set_hook(previous);
    assert!(r.is_err());
    let at = AT.lock().unwrap().clone().unwrap();
    assert!(at.0.ends_with("operators.rs"), "{at:?}");
    assert_eq!(at.1, expected, "{at:?}");
}
