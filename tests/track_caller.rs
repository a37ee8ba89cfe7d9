//! Panics of the operators and of `get` report the caller's line. Its own test
//! binary: the panic hook it sets is process-wide, and a panic in another test
//! running alongside would be caught by it.

use ndsimd::Array;

fn grid(shape: &[usize]) -> Array<f64> {
    let n: usize = shape.iter().product();
    Array::from_shape_vec(shape, (0..n).map(|x| x as f64).collect()).unwrap()
}

/// Where the panic of `f` is reported (file name and line), via a panic hook.
fn panic_location(f: impl FnOnce() + std::panic::UnwindSafe) -> (String, u32) {
    use std::sync::{Arc, Mutex};
    let seen = Arc::new(Mutex::new(None));
    let s2 = Arc::clone(&seen);
    let old = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if let Some(l) = info.location() {
            *s2.lock().unwrap() = Some((l.file().to_string(), l.line()));
        }
    }));
    let r = std::panic::catch_unwind(f);
    std::panic::set_hook(old);
    assert!(r.is_err(), "no panic");
    let got = seen.lock().unwrap().take().expect("a location");
    got
}

#[test]
fn operator_and_index_panics_report_the_callers_line() {
    // `line!()` in the expansion is the invocation's line, where `$e` is too.
    macro_rules! at {
        ($e:expr) => {
            (
                Box::new(|| {
                    let _ = $e;
                }) as Box<dyn FnOnce() + std::panic::UnwindSafe>,
                line!(),
            )
        };
    }
    let (a, b) = (grid(&[2, 3]), grid(&[4]));
    let cases = vec![
        at!(&a + &b),
        at!(a.clone() * &b),
        at!(a.view() - b.clone()),
        at!(std::ops::AddAssign::add_assign(&mut a.clone(), &b)),
        at!(a.get(&[1])),
        at!(a.clone().get_mut(&[1, 1, 1]).is_some()),
    ];
    for (f, line) in cases {
        let (file, l) = panic_location(f);
        assert!(file.ends_with("track_caller.rs"), "{file}:{l}");
        assert_eq!(l, line, "{file}");
    }
}
