//! The in-memory scans against the read ceiling.

use super::runner::Runner;
use super::*;

/// The in-memory file-scan kernels (`ndsimd::scan::*_in`) on `threads` threads,
/// against the read ceiling over a buffer of the same size split over the pool the
/// same way (the machine's `threads`-core read bandwidth, measured in the same run).
pub fn scans(r: &mut Runner, threads: usize) {
    use ndsimd::scan::{count_byte_in, find_nonzero_in};
    // Every buffer here, the anchor's too, allocated alike: on a cache line, asking
    // for huge pages before the first touch (from 4 MiB), then written in full. (The
    // text and haystack were once plain `Vec`s on 4 KiB pages against an anchor on
    // huge pages: at 64 MiB the scans then ran 0.81-0.91 of the "ceiling", the
    // difference being the page walks.)
    use ndsimd_kernels::mem::Aligned;
    for bytes in [1usize << 20, 64 << 20] {
        let words = bytes / 8;
        let mut anchor = Aligned::filled(words, 0.0f64);
        anchor.payload_mut().fill(1.0);
        let anchor = anchor.payload();
        let parts = threads.max(1);
        let mut ceiling = || pool_read(&[anchor], parts);
        if r.wants("count_byte_in") {
            // Text-like: a newline every 61 bytes.
            let mut text = Aligned::filled(bytes, 0u8);
            for (i, b) in text.payload_mut().iter_mut().enumerate() {
                *b = if i % 61 == 60 {
                    b'\n'
                } else {
                    b'a' + (i % 26) as u8
                };
            }
            let text = text.payload();
            let want = (bytes / 61) as u64;
            assert_eq!(count_byte_in(text, b'\n'), want, "bench count_byte_in");
            r.row(
                "count_byte_in",
                bytes,
                bytes,
                "ceiling",
                &mut || {
                    black_box(count_byte_in(black_box(text), b'\n'));
                },
                &mut ceiling,
            );
        }
        if r.wants("find_nonzero_in") {
            // The haystack: zeros, one needle in the last word.
            // Every page written: untouched pages of a zeroed allocation all map the
            // kernel's one zero page, which reads from cache (measured: 5x the read
            // ceiling). `black_box` keeps the compiler from folding this into calloc.
            let mut hay = Aligned::filled(bytes, 0u8);
            for i in (0..bytes).step_by(4096) {
                hay.payload_mut()[i] = black_box(0);
            }
            hay.payload_mut()[bytes - 3] = 1;
            let hay = hay.payload();
            assert_eq!(
                find_nonzero_in(hay),
                Some(bytes as u64 - 8),
                "bench find_nonzero_in"
            );
            r.row(
                "find_nonzero_in",
                bytes,
                bytes,
                "ceiling",
                &mut || {
                    black_box(find_nonzero_in(black_box(hay)));
                },
                &mut ceiling,
            );
        }
    }
}
