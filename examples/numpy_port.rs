//! A small NumPy pipeline ported to ndsimd: standardize the columns of a data
//! matrix, score it against a weight matrix, softmax each row, take the argmax of
//! each row, and save the probabilities as a `.npy` file NumPy can load.
//!
//! Run: `cargo run --release --example numpy_port`. Each step names the NumPy line
//! it replaces and checks its own answer (an `assert!`), so a wrong result ends the
//! run with an error.

use ndsimd::{npy, Array};

type Res = Result<(), Box<dyn std::error::Error>>;

fn main() -> Res {
    let (n, d, k) = (1000, 16, 4);

    // x = (np.arange(n*d) % 97 * 0.37 + np.arange(n*d) % 13).reshape(n, d)
    let x = Array::from_shape_vec(
        &[n, d],
        (0..n * d)
            .map(|i| (i % 97) as f64 * 0.37 + (i % 13) as f64)
            .collect(),
    )?;
    println!("x: shape {:?}", x.shape());

    // mu = x.mean(axis=0, keepdims=True); sigma = x.std(axis=0, keepdims=True)
    let mu = x.mean_axis(0, true)?;
    let sigma = x.std_axis(0, 0, true)?;
    // z = (x - mu) / sigma
    let z = x.sub(&mu)?.div(&sigma)?;
    println!(
        "standardized: shape {:?}, column 0 mean {:.2e}, std {:.6}",
        z.shape(),
        z.mean_axis(0, false)?.to_vec()[0],
        z.std_axis(0, 0, false)?.to_vec()[0]
    );
    for (m, s) in z
        .mean_axis(0, false)?
        .iter()
        .zip(z.std_axis(0, 0, false)?.iter())
    {
        assert!(m.abs() < 1e-12, "a standardized column has mean {m}");
        assert!((s - 1.0).abs() < 1e-12, "a standardized column has std {s}");
    }

    // w = np.sin(np.arange(d*k)).reshape(d, k)  (any fixed weights will do)
    let w = Array::from_shape_vec(&[d, k], (0..d * k).map(|i| (i as f64).sin()).collect())?;
    // logits = z @ w
    let logits = z.matmul(&w)?;
    println!("logits = z @ w: shape {:?}", logits.shape());
    // Checked against a plain triple loop on the first row.
    for j in 0..k {
        let want: f64 = (0..d)
            .map(|i| z.get(&[0, i]).unwrap() * w.get(&[i, j]).unwrap())
            .sum();
        let got = *logits.get(&[0, j]).unwrap();
        assert!(
            (got - want).abs() <= 1e-12 * want.abs().max(1.0),
            "matmul: {got} vs {want}"
        );
    }

    // e = np.exp(logits - logits.max(axis=1, keepdims=True))
    let e = logits.sub(&logits.max_axis(1, true)?)?.exp();
    // p = e / e.sum(axis=1, keepdims=True)
    let p = e.div(&e.sum_axis(1, true)?)?;
    let row0 = p.index_axis(0, 0)?.to_vec();
    println!("softmax rows: shape {:?}, row 0 = {row0:.4?}", p.shape());
    for s in p.sum_axis(1, false)?.iter() {
        assert!((s - 1.0).abs() < 1e-12, "a softmax row sums to {s}");
    }
    assert!(p.iter().all(|&v| v > 0.0 && v <= 1.0));

    // label = p.argmax(axis=1)
    let label = p.argmax_axis(1, false)?;
    let label_l = logits.argmax_axis(1, false)?;
    let mut counts = vec![0usize; k];
    for &c in label.iter() {
        counts[c as usize] += 1;
    }
    println!(
        "argmax: shape {:?}, first 8 {:?}, per class {counts:?}",
        label.shape(),
        &label.to_vec()[..8]
    );
    // Softmax keeps the order within a row: the same argmax as the logits.
    assert_eq!(label, label_l);
    assert_eq!(counts.iter().sum::<usize>(), n);

    // np.save(path, p); q = np.load(path)
    let path = std::env::temp_dir().join(format!("ndsimd-numpy-port-{}.npy", std::process::id()));
    npy::write(&path, &p)?;
    let bytes = std::fs::metadata(&path)?.len();
    let q = npy::read::<f64>(&path)?;
    std::fs::remove_file(&path)?;
    println!(
        "saved {} ({bytes} bytes), read back shape {:?}",
        path.display(),
        q.shape()
    );
    assert_eq!(q.shape(), p.shape());
    assert_eq!(
        q.to_vec(),
        p.to_vec(),
        "the .npy round trip changed a value"
    );

    println!("numpy_port: all checks passed");
    Ok(())
}
