//! The peers' one timing rule, shared by every binary of this crate: samples of at
//! least 20 ms (the repetition count doubled until one sample takes that long), the
//! median of 5 such samples, in seconds per call.
use std::time::Instant;

/// The median of `v` (sorted in place; NaN-free input).
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Seconds per call of `f`: the median of 5 samples of at least 20 ms each.
pub fn secs(f: &mut dyn FnMut()) -> f64 {
    let mut reps = 1;
    loop {
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        if t.elapsed().as_secs_f64() > 0.02 {
            break;
        }
        reps *= 2;
    }
    let mut v: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed().as_secs_f64() / reps as f64
        })
        .collect();
    median(&mut v)
}
