//! The file scan's in-memory functions on random bytes against naive references:
//! `find_nonzero_in`, `count_byte_in`, `LineIndex::build_in` and its queries, and
//! the byte kernels of every tier this CPU has. One input in eight is embedded in a
//! zero buffer past the size (512 KiB) where the scan splits over the pool.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndsimd_kernels::{available_tiers, byte_table_for};
use ndsimd::scan::{count_byte_in, find_nonzero_in, LineIndex};

/// Bytes past the pool's split threshold.
const BIG: usize = 600 << 10;

fn naive_lines(bytes: &[u8]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            out.push((start as u64, i as u64));
            start = i + 1;
        }
    }
    if start < bytes.len() {
        out.push((start as u64, bytes.len() as u64));
    }
    out
}

fn check(bytes: &[u8], needle: u8, every: u64, small: bool) {
    let first = bytes.iter().position(|&b| b != 0);
    assert_eq!(
        find_nonzero_in(bytes),
        first.map(|p| p as u64 & !7),
        "find_nonzero_in"
    );
    let count = bytes.iter().filter(|&&b| b == needle).count();
    assert_eq!(count_byte_in(bytes, needle), count as u64, "count_byte_in");

    let lines = naive_lines(bytes);
    let index = LineIndex::build_in(bytes, every);
    let every = every.max(1);
    assert_eq!(index.every(), every);
    assert_eq!(index.lines(), lines.len() as u64, "lines");
    assert_eq!(
        index.line_count(),
        bytes.iter().filter(|&&b| b == b'\n').count() as u64
    );
    assert_eq!(index.len(), bytes.len() as u64);
    let starts: Vec<u64> = lines.iter().step_by(every as usize).map(|l| l.0).collect();
    assert_eq!(index.starts(), &starts[..], "starts");
    // Every line of a small input; the first, last and a few indexed ones of a big one.
    let probe: Vec<usize> = if small {
        (0..=lines.len()).collect()
    } else {
        let n = lines.len();
        [0, 1, n / 2, n.saturating_sub(1), n].to_vec()
    };
    for n in probe {
        let want = lines.get(n).map(|l| l.0..l.1);
        assert_eq!(
            index.line_range_in(bytes, n as u64),
            want,
            "line_range_in({n})"
        );
        assert_eq!(
            index.line_offset_in(bytes, n as u64),
            want.map(|r| r.start),
            "line_offset_in({n})"
        );
    }

    if !small {
        return;
    }
    let words: Vec<u64> = bytes
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect();
    for tier in available_tiers() {
        let t = byte_table_for(tier).expect("an available tier has a table");
        assert_eq!((t.count_byte)(bytes, needle), count, "{tier:?} count_byte");
        let at: Vec<usize> = bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == needle)
            .map(|(i, _)| i)
            .collect();
        for n in [
            0,
            1,
            2,
            at.len() / 2,
            at.len().saturating_sub(1),
            at.len(),
            at.len() + 1,
        ] {
            let want = at.get(n).copied().ok_or(at.len());
            assert_eq!(
                (t.nth_byte)(bytes, needle, n),
                want,
                "{tier:?} nth_byte({n})"
            );
        }
        let fw = words.iter().position(|&w| w != 0);
        assert_eq!(
            (t.first_nonzero_word)(&words),
            fw,
            "{tier:?} first_nonzero_word"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, rest)) = data.split_first() else {
        return;
    };
    let Some((&needle, rest)) = rest.split_first() else {
        return;
    };
    let every = u64::from(ctl >> 2) % 13;
    // Unaligned starts: the kernels' heads and tails.
    let skip = usize::from(needle & 7).min(rest.len());
    if ctl & 7 == 0 {
        let mut big = vec![0u8; BIG];
        let at = (usize::from(needle) << 11) % (BIG - rest.len().min(BIG));
        big[at..at + rest.len().min(BIG)].copy_from_slice(&rest[..rest.len().min(BIG)]);
        ndsimd::with_threads(1 + usize::from(ctl >> 6), || {
            check(&big[skip..], needle, every, false)
        });
    } else {
        check(&rest[skip..], needle, every, true);
    }
});
