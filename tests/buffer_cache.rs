//! The cache of dropped arrays' large buffers: a result written into a reused
//! buffer, which an earlier array left full of NaN, equals the same result in fresh
//! memory bit for bit, and the buffer is in fact reused. One test function: the
//! cache is shared by the whole process.

use ndsimd::{concatenate, where_, Array};

/// 8 MiB of `f64`: above the cache's 4 MiB floor.
const N: usize = 1 << 20;

/// Drops an array of NaN with room for a result of `N` elements (the library's
/// buffers carry up to 7 elements of padding), and returns where its buffer starts.
fn poison() -> usize {
    let mut v = Vec::with_capacity(N + 64);
    v.resize(N + 64, f64::NAN);
    let a = Array::from_vec(v);
    let p = a.as_slice().unwrap().as_ptr() as usize;
    drop(a);
    p
}

fn bits(a: &Array<f64>) -> Vec<u64> {
    a.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn results_in_reused_buffers_match_fresh_ones() {
    let x = Array::from_vec((0..N).map(|i| (i % 1000) as f64 / 8.0 - 60.0).collect());
    let y = Array::from_vec((0..N).map(|i| (i % 777) as f64 * 0.25).collect());
    let half = x.slice(ndsimd::s![..N / 2]).unwrap().to_owned();
    let cond = x.greater(&y).unwrap();
    let idx: Vec<i64> = (0..N as i64).map(|i| (i * 7919) % N as i64).collect();
    let row = Array::from_vec((0..1024).map(|i| i as f64).collect());
    let wide = Array::from_vec((0..2 * N).map(|i| i as f64 * 0.5).collect());
    let grid = x
        .reshape(&[(N / 1024) as isize, 1024])
        .unwrap()
        .into_owned();
    type Op<'a> = (&'static str, Box<dyn Fn() -> Array<f64> + 'a>);
    let ops: Vec<Op> = vec![
        ("add", Box::new(|| x.add(&y).unwrap())),
        ("mul scalar", Box::new(|| x.mul(3.0).unwrap())),
        ("broadcast add", Box::new(|| grid.add(&row).unwrap())),
        ("exp", Box::new(|| x.exp())),
        ("where_", Box::new(|| where_(&cond, &x, &y).unwrap())),
        ("take", Box::new(|| x.take(&idx, 0).unwrap())),
        (
            "to_owned of a strided view",
            Box::new(|| wide.slice(ndsimd::s![..;2]).unwrap().to_owned()),
        ),
        ("clone", Box::new(|| x.clone())),
        (
            "concatenate",
            Box::new(|| concatenate(&[half.view(), half.view()], 0).unwrap()),
        ),
    ];
    let limit = 256 << 20;
    for (name, op) in &ops {
        // Fresh memory: the cache off.
        ndsimd::set_buffer_cache_limit(0);
        let fresh = op();
        ndsimd::set_buffer_cache_limit(limit);
        let base = poison();
        let reused = op();
        let at = reused.as_slice().unwrap().as_ptr() as usize;
        assert!(
            at >= base && at - base <= 7 * 8,
            "{name}: the NaN buffer at {base:#x} was not reused (result at {at:#x})"
        );
        let (r, f) = (bits(&reused), bits(&fresh));
        if let Some(i) = (0..r.len().max(f.len())).find(|&i| r.get(i) != f.get(i)) {
            panic!(
                "{name}: element {i} is {:?} in the reused buffer, {:?} in fresh memory",
                reused.as_slice().unwrap().get(i),
                fresh.as_slice().unwrap().get(i)
            );
        }
        // An unwritten element would still be NaN; the inputs make none.
        assert!(!reused.iter().any(|v| v.is_nan()), "{name}");
    }
    // `zeros` never hands out a used buffer's values.
    poison();
    assert!(Array::<f64>::zeros(&[N]).iter().all(|&v| v == 0.0));
    // Freeing: what is held goes, and nothing is held with the cache off.
    poison();
    assert!(ndsimd::free_cached_buffers() >= N * 8);
    assert_eq!(ndsimd::free_cached_buffers(), 0);
    ndsimd::set_buffer_cache_limit(0);
    poison();
    assert_eq!(ndsimd::free_cached_buffers(), 0);
}
