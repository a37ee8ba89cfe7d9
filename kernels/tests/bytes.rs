//! The byte and word kernels of the file scan (`count_byte`, `nth_byte`,
//! `first_nonzero_word`) of
//! every available tier against the scalar oracle and a naive count written here:
//! every length `0..=200` and some long ones, every byte offset `0..=7` (word offset
//! `0..=3`), the needle at every position, every needle value, long runs of the needle
//! (so per-lane counters must not wrap), the first non-zero word at every position.

mod common;

use common::{byte_table, report, XorShift};
use ndsimd_kernels::{available_tiers, ByteTable, Tier};

const MAX_BYTES: usize = 200;

fn tables() -> Vec<(Tier, &'static ByteTable)> {
    available_tiers()
        .into_iter()
        .map(|t| (t, byte_table(t).expect("available tier has a byte table")))
        .collect()
}

/// Checks `count_byte(hay, needle)` on every tier (and the oracle) against a naive count.
fn count(tables: &[(Tier, &ByteTable)], hay: &[u8], needle: u8, what: &str, out: &mut Vec<String>) {
    let want = hay.iter().filter(|&&b| b == needle).count();
    let oracle = byte_table(Tier::Scalar).unwrap();
    for (tier, t) in std::iter::once(&(Tier::Scalar, oracle)).chain(tables) {
        let got = (t.count_byte)(hay, needle);
        if got != want {
            out.push(format!(
                "{tier} count_byte {what} len {} needle {needle:#04x}: got {got}, want {want}",
                hay.len()
            ));
        }
    }
}

/// Checks `first_nonzero_word(words)` on every tier (and the oracle).
fn first(tables: &[(Tier, &ByteTable)], words: &[u64], what: &str, out: &mut Vec<String>) {
    let want = words.iter().position(|&w| w != 0);
    let oracle = byte_table(Tier::Scalar).unwrap();
    for (tier, t) in std::iter::once(&(Tier::Scalar, oracle)).chain(tables) {
        let got = (t.first_nonzero_word)(words);
        if got != want {
            out.push(format!(
                "{tier} first_nonzero_word {what} len {}: got {got:?}, want {want:?}",
                words.len()
            ));
        }
    }
}

#[test]
fn count_byte_matches_a_naive_count() {
    let tables = tables();
    let mut rng = XorShift(0x3c6e_f372_fe94_f82b);
    let mut failures = Vec::new();
    let mut buf = vec![0u8; 140_010];
    for len in 0..=MAX_BYTES {
        for off in 0..8 {
            for b in buf[..len + 16].iter_mut() {
                *b = rng.next() as u8;
            }
            let hay = &buf[off..off + len];
            let mut needles = vec![0u8, 0xff, 0x80, 0x7f, b'\n', rng.next() as u8];
            needles.extend(hay.get(len / 2));
            for needle in needles {
                count(
                    &tables,
                    hay,
                    needle,
                    &format!("random off {off}"),
                    &mut failures,
                );
            }
        }
        // The needle at every position of a hay without it, alone and with its
        // neighbours; the offset moves with the length.
        let off = len % 8;
        let needle = (len as u8).wrapping_mul(37);
        for p in 0..len {
            let hay = &mut buf[off..off + len];
            for b in hay.iter_mut() {
                *b = (rng.next() as u8) | 1;
                if *b == needle {
                    *b ^= 2;
                }
            }
            hay[p] = needle;
            count(
                &tables,
                hay,
                needle,
                &format!("needle at {p} off {off}"),
                &mut failures,
            );
            if p + 1 < len {
                hay[len - 1] = needle;
                count(
                    &tables,
                    hay,
                    needle,
                    &format!("needle at {p} and end"),
                    &mut failures,
                );
            }
        }
        // Nothing but the needle.
        let hay = &mut buf[off..off + len];
        hay.fill(needle);
        count(&tables, hay, needle, "all needle", &mut failures);
        count(&tables, hay, !needle, "no needle", &mut failures);
    }
    // Every needle value over random bytes, at lengths around the vector widths.
    for len in [
        0, 1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200, 4099,
    ] {
        for off in 0..8 {
            for b in buf[..len + 8].iter_mut() {
                *b = rng.next() as u8;
            }
            let hay = &buf[off..off + len];
            let mut total = 0;
            for needle in 0..=255u8 {
                count(
                    &tables,
                    hay,
                    needle,
                    &format!("every needle off {off}"),
                    &mut failures,
                );
                total += (byte_table(Tier::Scalar).unwrap().count_byte)(hay, needle);
            }
            assert_eq!(
                total, len,
                "counts of all 256 needles must add up to the length"
            );
        }
    }
    // Long hays: per-lane byte counters would wrap after 255 matches (65,280
    // bytes of needles through AVX2's 8 x 32-byte steps, 130,560 through
    // AVX-512's 8 x 64).
    for (len, off) in [(65_537, 3), (69_999, 1), (140_001, 5)] {
        let hay = &mut buf[off..off + len];
        hay.fill(b'\n');
        count(
            &tables,
            hay,
            b'\n',
            &format!("long all needle off {off}"),
            &mut failures,
        );
        for (i, b) in hay.iter_mut().enumerate() {
            *b = if i % 3 == 0 { b'\n' } else { rng.next() as u8 };
        }
        for needle in [b'\n', 0, 0xff, rng.next() as u8] {
            count(
                &tables,
                hay,
                needle,
                &format!("long off {off}"),
                &mut failures,
            );
        }
    }
    // Longer than any L2 (a tier may take another loop for hays from memory).
    let mut long = vec![0u8; 5 << 20];
    for (i, b) in long.iter_mut().enumerate() {
        *b = if i % 7 == 0 { b'\n' } else { rng.next() as u8 };
    }
    count(&tables, &long[1..], b'\n', "5 MiB", &mut failures);
    report(failures);
}

/// Checks `nth_byte(hay, needle, n)` on every tier (and the oracle) against a naive
/// scan, for every `n` from 0 to one past the number of needles.
fn nth(tables: &[(Tier, &ByteTable)], hay: &[u8], needle: u8, what: &str, out: &mut Vec<String>) {
    let at: Vec<usize> = (0..hay.len()).filter(|&i| hay[i] == needle).collect();
    let oracle = byte_table(Tier::Scalar).unwrap();
    for n in 0..=at.len() + 1 {
        let want = at.get(n).copied().ok_or(at.len());
        for (tier, t) in std::iter::once(&(Tier::Scalar, oracle)).chain(tables) {
            let got = (t.nth_byte)(hay, needle, n);
            if got != want {
                out.push(format!(
                    "{tier} nth_byte {what} len {} needle {needle:#04x} n {n}: got {got:?}, want {want:?}",
                    hay.len()
                ));
            }
        }
    }
}

#[test]
fn nth_byte_matches_a_naive_scan() {
    let tables = tables();
    let mut rng = XorShift(0x1f83_d9ab_fb41_bd6b);
    let mut failures = Vec::new();
    let mut buf = vec![0u8; 70_000];
    for len in 0..=MAX_BYTES {
        for off in 0..8 {
            // Needle densities from none to every byte: random bytes, one in 8,
            // one in 64, all.
            for density in [0u64, 8, 64, 1] {
                for b in buf[..len + 16].iter_mut() {
                    let r = rng.next();
                    *b = match density {
                        0 => r as u8,
                        1 => b'\n',
                        d if r.is_multiple_of(d) => b'\n',
                        _ => (r as u8) | 0x80,
                    };
                }
                let hay = &buf[off..off + len];
                nth(
                    &tables,
                    hay,
                    b'\n',
                    &format!("density {density} off {off}"),
                    &mut failures,
                );
            }
        }
    }
    // Long hays: many blocks skipped before the wanted one, and a wanted needle past
    // 255 matches (per-lane counters must be emptied per block).
    for (len, off) in [(4099, 0), (65_537, 3)] {
        let hay = &mut buf[off..off + len];
        for (i, b) in hay.iter_mut().enumerate() {
            *b = if i % 97 == 5 { b'\n' } else { b'a' };
        }
        let at: Vec<usize> = (0..len).filter(|&i| hay[i] == b'\n').collect();
        for (tier, t) in tables.iter() {
            for n in [0, 1, 300, at.len() - 1, at.len(), at.len() + 7] {
                let want = at.get(n).copied().ok_or(at.len());
                let got = (t.nth_byte)(hay, b'\n', n);
                if got != want {
                    failures.push(format!(
                        "{tier} nth_byte long {len} n {n}: got {got:?}, want {want:?}"
                    ));
                }
            }
        }
        hay.fill(b'\n');
        for (tier, t) in tables.iter() {
            for n in [0, 255, 256, 1000, len - 1, len] {
                let want = if n < len { Ok(n) } else { Err(len) };
                let got = (t.nth_byte)(hay, b'\n', n);
                if got != want {
                    failures.push(format!(
                        "{tier} nth_byte all-needle {len} n {n}: got {got:?}, want {want:?}"
                    ));
                }
            }
        }
    }
    report(failures);
}

#[test]
fn first_nonzero_word_matches_a_naive_scan() {
    let tables = tables();
    let mut rng = XorShift(0xa54f_f53a_5f1d_36f1);
    let mut failures = Vec::new();
    let mut buf = vec![0u64; 70_000];
    for len in 0..=MAX_BYTES {
        for off in 0..4 {
            let words = &mut buf[off..off + len];
            words.fill(0);
            first(&tables, words, &format!("zeros off {off}"), &mut failures);
            for p in 0..len {
                let words = &mut buf[off..off + len];
                words.fill(0);
                // One bit at either end of the word, or anything.
                words[p] = match p % 3 {
                    0 => 1,
                    1 => 1 << 63,
                    _ => rng.next() | 1,
                };
                first(
                    &tables,
                    words,
                    &format!("one at {p} off {off}"),
                    &mut failures,
                );
                // Garbage after the first non-zero word changes nothing.
                for w in words[p + 1..].iter_mut() {
                    *w = rng.next();
                }
                first(
                    &tables,
                    words,
                    &format!("{p} then random, off {off}"),
                    &mut failures,
                );
            }
        }
    }
    for len in [4099, 65_537] {
        let words = &mut buf[1..1 + len];
        words.fill(0);
        first(&tables, words, "long zeros", &mut failures);
        for p in [0, len / 2, len - 2, len - 1] {
            let words = &mut buf[1..1 + len];
            words.fill(0);
            words[p] = 1 << (p % 64);
            first(&tables, words, &format!("long, one at {p}"), &mut failures);
        }
    }
    report(failures);
}
