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

#[test]
fn exp_tables_are_powers_of_two_to_double_double_precision() {
    for j in 0..32u64 {
        let hi = f64::from_bits(EXP_F64_SCALE[j as usize].wrapping_add(j << 47));
        let v = (hi, hi * EXP_F64_TAIL[j as usize]);
        // (2^(j/32))^32 = 2^j: five squarings.
        let mut p = v;
        for _ in 0..5 {
            p = dd_mul(p, p);
        }
        let want = 2f64.powi(j as i32);
        let rel = ((p.0 - want) + p.1) / want;
        assert!(rel.abs() < 2f64.powi(-95), "exp f64 entry {j}: {rel:e}");
        // The f32 entry is 2^(j/32) rounded to f32, and its tail the rest.
        let h32 = f32::from_bits(EXP_F32_SCALE[j as usize].wrapping_add((j as u32) << 18));
        assert_eq!(h32, v.0 as f32, "exp f32 entry {j}");
        let t32 = ((v.0 - h32 as f64) + v.1) / h32 as f64;
        assert_eq!(EXP_F32_TAIL[j as usize], t32 as f32, "exp f32 tail {j}");
    }
    let l = std::f64::consts::LN_2 / 32.0;
    assert!((EXP_F64_LN2_N_HI + EXP_F64_LN2_N_LO - l).abs() <= l * f64::EPSILON);
    assert_eq!(
        EXP_F64_LN2_N_HI.to_bits() & 0xffff,
        0,
        "k * hi must be exact"
    );
    assert!((EXP_F64_N_LN2 - 1.0 / l).abs() <= f64::EPSILON * 64.0);
}

#[test]
fn exp16_tables_are_powers_of_two_to_their_precision() {
    for j in 0..16u64 {
        let hi = f64::from_bits(EXP16_F64_SCALE[j as usize].wrapping_add(j << 48));
        let v = (hi, hi * EXP16_F64_TAIL[j as usize]);
        // (2^(j/16))^16 = 2^j: four squarings.
        let mut p = v;
        for _ in 0..4 {
            p = dd_mul(p, p);
        }
        let want = 2f64.powi(j as i32);
        let rel = ((p.0 - want) + p.1) / want;
        assert!(rel.abs() < 2f64.powi(-95), "exp16 f64 entry {j}: {rel:e}");
        let h32 = f32::from_bits(EXP16_F32_SCALE[j as usize].wrapping_add((j as u32) << 19));
        assert_eq!(h32, v.0 as f32, "exp16 f32 entry {j}");
        let t32 = ((v.0 - h32 as f64) + v.1) / h32 as f64;
        assert_eq!(EXP16_F32_TAIL[j as usize], t32 as f32, "exp16 f32 tail {j}");
    }
    let l = std::f64::consts::LN_2 / 16.0;
    assert!((EXP16_F64_LN2_N_HI + EXP16_F64_LN2_N_LO - l).abs() <= l * f64::EPSILON);
    assert_eq!(
        EXP16_F64_LN2_N_HI.to_bits() & 0xffff,
        0,
        "k * hi must be exact"
    );
    assert!((EXP16_F64_N_LN2 - 1.0 / l).abs() <= f64::EPSILON * 32.0);
    // f32: |k| < 2^13, so hi keeps at most 11 significant bits.
    let s = EXP16_F32_LN2_N_HI as f64 + EXP16_F32_LN2_N_LO as f64;
    let lo = EXP16_F32_LN2_N_LO.abs() as f64;
    assert!(
        (s - l).abs() <= lo * 2f64.powi(-24),
        "f32 ln2/16 split: lo rounded"
    );
    assert_eq!(
        EXP16_F32_LN2_N_HI.to_bits() & 0x1fff,
        0,
        "f32 k * hi must be exact"
    );
    assert_eq!(EXP16_F32_N_LN2, (1.0 / l) as f32);
}

#[test]
fn exp8_f64_table_is_powers_of_two_to_double_double_precision() {
    for j in 0..8u64 {
        let hi = f64::from_bits(EXP8_F64_SCALE[j as usize].wrapping_add(j << 49));
        // (2^(j/8))^8 = 2^j: three squarings.
        let mut p = (hi, hi * EXP8_F64_TAIL[j as usize]);
        for _ in 0..3 {
            p = dd_mul(p, p);
        }
        let want = 2f64.powi(j as i32);
        let rel = ((p.0 - want) + p.1) / want;
        assert!(rel.abs() < 2f64.powi(-95), "exp8 f64 entry {j}: {rel:e}");
    }
    let l = std::f64::consts::LN_2 / 8.0;
    assert!((EXP8_F64_LN2_N_HI + EXP8_F64_LN2_N_LO - l).abs() <= l * f64::EPSILON);
    assert_eq!(
        EXP8_F64_LN2_N_HI.to_bits() & 0xffff,
        0,
        "k * hi must be exact"
    );
    assert!((EXP8_F64_N_LN2 - 1.0 / l).abs() <= f64::EPSILON * 16.0);
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
