//! Tier detection, the `NDSIMD_TIER` cap, and which tables `table_for` hands out.

use ndsimd_kernels::{
    active_tier, arch_tiers, available_tiers, detected_tier, IntKernelElement, IntTable,
    KernelElement, Table, Tier,
};

#[test]
fn available_tiers_ascend_from_scalar_to_active() {
    let tiers = available_tiers();
    assert_eq!(tiers.first(), Some(&Tier::Scalar), "{tiers:?}");
    assert_eq!(tiers.last(), Some(&active_tier()), "{tiers:?}");
    assert!(tiers.windows(2).all(|w| w[0] < w[1]), "{tiers:?}");
    assert!(tiers.iter().all(|t| arch_tiers().contains(t)), "{tiers:?}");
    assert!(active_tier() <= detected_tier());
    assert!(arch_tiers().contains(&detected_tier()));
}

#[test]
fn cap_from_environment_is_honoured() {
    let cap = std::env::var("NDSIMD_TIER").ok();
    match cap.as_deref().and_then(Tier::parse) {
        Some(t) if arch_tiers().contains(&t) && t <= detected_tier() => {
            assert_eq!(active_tier(), t, "NDSIMD_TIER={cap:?}")
        }
        // Unset, unknown, another architecture's, or above the CPU: ignored.
        _ => assert_eq!(active_tier(), detected_tier(), "NDSIMD_TIER={cap:?}"),
    }
}

#[test]
fn tier_names_round_trip() {
    for t in Tier::ALL {
        assert_eq!(Tier::parse(t.name()), Some(t));
        assert_eq!(t.to_string(), t.name());
    }
}

fn check_tables<T: KernelElement>() {
    for t in Tier::ALL {
        let expected = arch_tiers().contains(&t) && t <= detected_tier();
        let table: Option<&Table<T>> = T::table_for(t);
        assert_eq!(table.is_some(), expected, "table_for({t})");
        if let Some(table) = table {
            assert_eq!(table.tier, t);
        }
    }
    assert_eq!(T::table().tier, active_tier());
}

fn check_int_tables<T: IntKernelElement>() {
    for t in Tier::ALL {
        let expected = arch_tiers().contains(&t) && t <= detected_tier();
        let table: Option<&IntTable<T>> = T::int_table_for(t);
        assert_eq!(table.is_some(), expected, "int_table_for({t})");
        if let Some(table) = table {
            assert_eq!(table.tier, t);
        }
    }
    assert_eq!(T::int_table().tier, active_tier());
}

#[test]
fn table_for_gives_exactly_the_supported_tiers() {
    check_tables::<f32>();
    check_tables::<f64>();
    check_int_tables::<i32>();
    check_int_tables::<i64>();
    check_int_tables::<u8>();
}

#[test]
fn cache_sizes_are_plausible() {
    let c = ndsimd_kernels::cache_info();
    assert!(
        c.l1d >= 4 << 10 && c.l1d <= c.l2 && c.l2 <= c.l3.max(c.l2),
        "{c:?}"
    );
}

/// CI passes the tier the (possibly emulated) CPU must be detected as, read from
/// /proc/cpuinfo, so a detection bug cannot quietly turn every lane into the
/// scalar lane.
#[test]
fn detection_matches_what_ci_expects() {
    if let Ok(want) = std::env::var("NDSIMD_EXPECT_DETECTED_TIER") {
        let want = Tier::parse(&want).expect("NDSIMD_EXPECT_DETECTED_TIER names a tier");
        assert_eq!(
            detected_tier(),
            want,
            "detected tier differs from the CPU's flags"
        );
    }
}

/// `NDSIMD_TIER=bogus` keeps the detected tier and says so on stderr, once, naming
/// the accepted values. Runs this test again in a child process (the tier is read
/// once per process), with `NDSIMD_TIERS_CHILD` set to make it the child.
#[test]
fn unknown_tier_name_warns_once_and_keeps_the_detected_tier() {
    let name = "unknown_tier_name_warns_once_and_keeps_the_detected_tier";
    if std::env::var_os("NDSIMD_TIERS_CHILD").is_some() {
        // Asked twice: the warning still comes once.
        println!("active={} detected={}", active_tier(), detected_tier());
        println!("again={}", active_tier());
        return;
    }
    // Under qemu-user (the CI's emulated lanes) a child of another architecture
    // cannot start without the emulator; the check is for the native lanes.
    if std::env::var_os("NDSIMD_EMULATED").is_some() {
        return;
    }
    let child = |tier: &str| {
        std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env("NDSIMD_TIERS_CHILD", "1")
            .env("NDSIMD_TIER", tier)
            .output()
            .unwrap()
    };
    let out = child("bogus");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let d = detected_tier();
    assert!(
        stdout.contains(&format!("active={d} detected={d}")),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("again={d}")), "{stdout}");
    let names: Vec<&str> = arch_tiers().iter().map(|t| t.name()).collect();
    let warning = format!(
        "ndsimd: ignoring NDSIMD_TIER=\"bogus\": not a tier (accepted: {}); using the detected tier, {d}\n",
        names.join(", ")
    );
    assert_eq!(stderr.matches(&warning).count(), 1, "{stderr}");
    // A valid cap is quiet.
    let out = child("scalar");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("active=scalar"), "{stdout}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("NDSIMD_TIER"));
}
