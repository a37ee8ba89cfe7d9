//! The generated tables against their definitions, and the file against a fresh
//! run of its generator.

use super::tables::*;

/// `a * b` exactly, as a double-double.
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// Double-double product, relative error about 2^-104.
fn dd_mul(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let (p, e) = two_prod(a.0, b.0);
    let e = e + (a.0 * b.1 + a.1 * b.0);
    let s = p + e;
    (s, e - (s - p))
}

/// One exp table of `N = scale.len()` entries: each `f64` entry and its tail are
/// `2^(j/N)` to double-double precision (`(2^(j/N))^N = 2^j` by squarings), each
/// `f32` entry (`f32`: its scale and tail) is that rounded to `f32` with its tail the
/// rest, `ln2/N` is split so that `k * hi` is exact for every `k` of a finite
/// result, and `N/ln2` is rounded.
fn check_exp_table(
    scale: &[u64],
    tail: &[f64],
    f32: Option<(&[u32], &[f32])>,
    ln2_n: (f64, f64),
    n_ln2: f64,
) {
    let n = scale.len() as u64;
    let shift = 52 - n.ilog2();
    for j in 0..n {
        let hi = f64::from_bits(scale[j as usize].wrapping_add(j << shift));
        let v = (hi, hi * tail[j as usize]);
        let mut p = v;
        for _ in 0..n.ilog2() {
            p = dd_mul(p, p);
        }
        let want = 2f64.powi(j as i32);
        let rel = ((p.0 - want) + p.1) / want;
        assert!(rel.abs() < 2f64.powi(-95), "N {n} f64 entry {j}: {rel:e}");
        if let Some((s32, t32)) = f32 {
            let h32 = f32::from_bits(s32[j as usize].wrapping_add((j as u32) << (shift - 29)));
            assert_eq!(h32, v.0 as f32, "N {n} f32 entry {j}");
            let t = ((v.0 - h32 as f64) + v.1) / h32 as f64;
            assert_eq!(t32[j as usize], t as f32, "N {n} f32 tail {j}");
        }
    }
    let l = std::f64::consts::LN_2 / n as f64;
    assert!((ln2_n.0 + ln2_n.1 - l).abs() <= l * f64::EPSILON, "N {n}");
    // |k| < 2^16: hi keeps at most 37 significant bits.
    assert_eq!(ln2_n.0.to_bits() & 0xffff, 0, "N {n}: k * hi must be exact");
    assert!(
        (n_ln2 - 1.0 / l).abs() <= f64::EPSILON * 2.0 * n as f64,
        "N {n}"
    );
}

/// The `f32` split of `ln2/N` and `N/ln2`: `|k| < 2^13`, so hi keeps at most 11
/// significant bits, and lo is the rest rounded.
fn check_exp_f32_consts(n: u32, ln2_n: (f32, f32), n_ln2: f32) {
    let l = std::f64::consts::LN_2 / n as f64;
    let s = ln2_n.0 as f64 + ln2_n.1 as f64;
    let lo = (ln2_n.1 as f64).abs();
    assert!(
        (s - l).abs() <= lo * 2f64.powi(-24),
        "N {n}: f32 lo rounded"
    );
    assert_eq!(
        ln2_n.0.to_bits() & 0x1fff,
        0,
        "N {n}: f32 k * hi must be exact"
    );
    assert_eq!(n_ln2, (1.0 / l) as f32, "N {n}");
}

#[test]
fn exp_tables_are_powers_of_two_to_their_precision() {
    check_exp_table(
        &EXP_F64_SCALE,
        &EXP_F64_TAIL,
        Some((&EXP_F32_SCALE, &EXP_F32_TAIL)),
        (EXP_F64_LN2_N_HI, EXP_F64_LN2_N_LO),
        EXP_F64_N_LN2,
    );
    check_exp_f32_consts(32, (EXP_F32_LN2_N_HI, EXP_F32_LN2_N_LO), EXP_F32_N_LN2);
    check_exp_table(
        &EXP16_F64_SCALE,
        &EXP16_F64_TAIL,
        Some((&EXP16_F32_SCALE, &EXP16_F32_TAIL)),
        (EXP16_F64_LN2_N_HI, EXP16_F64_LN2_N_LO),
        EXP16_F64_N_LN2,
    );
    check_exp_f32_consts(
        16,
        (EXP16_F32_LN2_N_HI, EXP16_F32_LN2_N_LO),
        EXP16_F32_N_LN2,
    );
    check_exp_table(
        &EXP8_F64_SCALE,
        &EXP8_F64_TAIL,
        None,
        (EXP8_F64_LN2_N_HI, EXP8_F64_LN2_N_LO),
        EXP8_F64_N_LN2,
    );
}

#[test]
fn log_tables_hold_inverse_centers_and_their_logs() {
    for i in 0..32 {
        let (a, w) = if i < 20 {
            (0.6875 + i as f64 / 64.0, 1.0 / 64.0)
        } else {
            (1.0 + (i - 20) as f64 / 32.0, 1.0 / 32.0)
        };
        let c = a + w / 2.0;
        assert_eq!(LOG_F64_INVC[i], 1.0 / c, "invc {i}");
        let hi = LOG_F64_LOGC_HI[i];
        assert_eq!(
            (hi * 2f64.powi(42)).fract(),
            0.0,
            "logc hi {i} off the grid"
        );
        let logc = hi + LOG_F64_LOGC_LO[i];
        assert!(
            (logc + LOG_F64_INVC[i].ln()).abs() <= 2.0 * f64::EPSILON * logc.abs(),
            "logc {i}"
        );
    }
    for i in 0..32 {
        let (a, w) = if i < 20 {
            (0.6875 + i as f64 / 64.0, 1.0 / 64.0)
        } else {
            (1.0 + (i - 20) as f64 / 32.0, 1.0 / 32.0)
        };
        assert_eq!(
            LOG_F32_INVC[i],
            (1.0 / (a + w / 2.0)) as f32,
            "invc f32 {i}"
        );
        let logc = LOG_F32_LOGC_HI[i] as f64 + LOG_F32_LOGC_LO[i] as f64;
        assert!(
            (logc + (LOG_F32_INVC[i] as f64).ln()).abs() <= 1e-12,
            "logc f32 {i}"
        );
    }
    assert_eq!((LOG_F64_LN2_HI * 2f64.powi(42)).fract(), 0.0);
    assert!((LOG_F64_LN2_HI + LOG_F64_LN2_LO - std::f64::consts::LN_2).abs() < 1e-30);
}

#[test]
fn log16_tables_hold_inverse_centers_and_their_logs() {
    for i in 0..16 {
        // z's top 4 mantissa bits: [1, 1.5) in steps of 1/16, [0.75, 1) of 1/32
        // (there log x = e ln2 + ln2 + log z: the entry carries the ln 2).
        let (a, w, fold) = if i < 8 {
            (1.0 + i as f64 / 16.0, 1.0 / 16.0, 0.0)
        } else {
            (
                (1.0 + i as f64 / 16.0) / 2.0,
                1.0 / 32.0,
                std::f64::consts::LN_2,
            )
        };
        assert_eq!(LOG16_F64_INVC[i], 1.0 / (a + w / 2.0), "invc {i}");
        let hi = LOG16_F64_LOGC_HI[i];
        assert_eq!(
            (hi * 2f64.powi(42)).fract(),
            0.0,
            "logc hi {i} off the grid"
        );
        let logc = hi + LOG16_F64_LOGC_LO[i];
        let want = fold - LOG16_F64_INVC[i].ln();
        assert!(
            (logc - want).abs() <= 2.0 * f64::EPSILON * want.abs(),
            "logc {i}"
        );
    }
}

/// The checked-in file is what the generator writes (where mpmath is installed;
/// elsewhere the definition checks above stand alone).
#[test]
fn tables_file_matches_a_fresh_run_of_its_generator() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = std::process::Command::new("python3")
        .arg(format!("{root}/tools/gen_math_tables.py"))
        .output();
    let Some(out) = out.ok().filter(|o| o.status.success()) else {
        eprintln!("skipped: python3 with mpmath not available");
        return;
    };
    let file = std::fs::read_to_string(format!("{root}/kernels/src/math/tables.rs")).unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout) == file,
        "kernels/src/math/tables.rs differs from `python3 tools/gen_math_tables.py`"
    );
}
