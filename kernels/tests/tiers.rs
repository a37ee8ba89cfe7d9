//! Tier detection, the `NDSIMD_TIER` cap, and which tables `table_for` hands out.

use ndsimd_kernels::{
    active_tier, arch_tiers, available_tiers, detected_tier, KernelElement, Table, Tier,
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

#[test]
fn table_for_gives_exactly_the_supported_tiers() {
    check_tables::<f32>();
    check_tables::<f64>();
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
