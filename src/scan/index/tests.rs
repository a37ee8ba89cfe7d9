//! Unit tests of the line index's internals: the block hand-off between workers
//! and the newline search.

use super::{build_blocks, for_each_newline, nth_in, MemSource};

// The hand-off under contention: many tiny blocks, more workers than cores,
// several `every`, repeated; each build against a plain one-pass reference.
#[test]
fn many_small_blocks_on_many_workers_match_a_plain_pass() {
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    let text: Vec<u8> = (0..20_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x.is_multiple_of(5) {
                b'\n'
            } else {
                b'a'
            }
        })
        .collect();
    for every in [1u64, 3, 8, 100] {
        let mut want = vec![0u64];
        let mut lines = 0u64;
        for (i, &c) in text.iter().enumerate() {
            if c == b'\n' {
                lines += 1;
                if lines.is_multiple_of(every) && i + 1 < text.len() {
                    want.push(i as u64 + 1);
                }
            }
        }
        for threads in [1, 2, 3, 5, 8] {
            for block in [64u64, 200, 4096] {
                for _ in 0..3 {
                    let got = build_blocks(
                        &MemSource(&text),
                        text.len() as u64,
                        block,
                        threads,
                        every,
                        None,
                    )
                    .unwrap();
                    assert_eq!(got.newlines, lines, "{every} {threads} {block}");
                    assert_eq!(got.starts, want, "{every} {threads} {block}");
                }
            }
        }
    }
}

#[test]
fn for_each_newline_finds_every_one() {
    let mut bytes = vec![b'x'; 70];
    for &p in &[0usize, 7, 8, 9, 15, 16, 63, 64, 69] {
        bytes[p] = b'\n';
    }
    // Bytes that differ from '\n' in one bit, and 0x8a (high bit set).
    bytes[3] = 0x0b;
    bytes[4] = 0x8a;
    bytes[5] = 0x08;
    let mut seen = Vec::new();
    for_each_newline(&bytes, |p| {
        seen.push(p);
        true
    });
    assert_eq!(seen, [0, 7, 8, 9, 15, 16, 63, 64, 69]);
    let mut k = 4;
    assert_eq!(nth_in(&bytes, &mut k), Some(15));
    let mut k = 20;
    assert_eq!(nth_in(&bytes, &mut k), None);
    assert_eq!(k, 11);
}
