//! Block sizes of the loop nest, derived from the cache sizes.
//!
//! With `s` the element size, `MR x NR` the register tile and `L1`, `L2`, `L3` from
//! [`crate::cache_info`]:
//!
//! - `KC = min((L1 / 2) / (NR * s), L1 / (MR * s))`, rounded down to a multiple of 8
//!   and kept in `64..=1024`: the `KC x NR` panel of B that every micro-kernel call
//!   of one `jr` step reuses takes half of L1, the rest holding the tile of C and
//!   the `MR x KC` panel of A streaming through, which may not exceed one L1 (a
//!   longer one evicts B's panel before its next pass). The second bound binds only
//!   for tiles more than twice as tall as wide (docs/design.md#blocking).
//! - `MC = (L2 / 4) / (KC * s)`, rounded down to a multiple of `MR`, but at least a
//!   page (4096 bytes) of elements rounded up to `MR` where L3 is near
//!   ([`NEAR_L3_MAX`]): the packed `MC x KC` block of A sits in a quarter of L2 when
//!   that is at least a page wide, else in L3. A quarter: a block packed and read while it is
//!   still young in L2 pays (docs/design.md#blocking). A far L3 gets no floor: a
//!   block pushed out of L2 there stalls the kernel. The floor: when A is packed a
//!   k-step at a time (`pack.rs`) each step reads a page-long run, and each B
//!   micro-panel returns to L1 once per MC rows (docs/design.md#blocking).
//! - `NC = (L3 / 4) / (KC * s)`, rounded down to a multiple of `NR` (at least `NR`):
//!   the packed `KC x NC` block of B takes a quarter of L3 (shared by the cores).
//!
//! With the default caches ([`crate::CacheInfo::DEFAULT`]: 32 KiB, 1 MiB, 32 MiB) and
//! the AVX2 f64 kernel (8x6) this gives KC 336, MC 512 (the page floor; 96 from L2),
//! NC 3120.
//!
//! A product smaller than a block gets the block cut down to its own size (rounded up
//! to the tile), which only limits the scratch it asks for.

use crate::CacheInfo;

/// The smallest KC [`Blocking::derive`] gives.
const KC_MIN: usize = 64;

/// The least width of an A block, in bytes (see the module doc).
const PAGE: usize = 4096;

/// The largest L3 counted as near: one the narrow form streams A from
/// (`path::NARROW_L3_PART`) and the page floor of `MC` may push A's block into. An
/// L3 of hundreds of MiB is a server mesh, far from each core, and the narrow form's
/// kernels stall on it (docs/design.md#which-path).
pub(crate) const NEAR_L3_MAX: usize = 64 << 20;

/// `KC`, `MC`, `NC`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Blocking {
    pub kc: usize,
    pub mc: usize,
    pub nc: usize,
}

impl Blocking {
    /// The blocking for an `mr x nr` kernel on elements of `size` bytes.
    pub(crate) fn derive(mr: usize, nr: usize, size: usize, cache: CacheInfo) -> Blocking {
        let b_panel = (cache.l1d / 2) / (nr * size);
        let a_panel = cache.l1d / (mr * size);
        let kc = (b_panel.min(a_panel) / 8 * 8).clamp(KC_MIN, 1024);
        let page = PAGE.div_ceil(size).next_multiple_of(mr);
        let floor = if cache.l3 <= NEAR_L3_MAX { page } else { mr };
        let mc = ((cache.l2 / 4) / (kc * size) / mr * mr).max(floor);
        let nc = ((cache.l3 / 4) / (kc * size) / nr * nr).max(nr);
        Blocking { kc, mc, nc }
    }

    /// [`Blocking::derive`] for the detected caches, remembered per thread for the
    /// last tile shape asked: its divisions showed in batches of small products
    /// (docs/design.md#structure).
    pub(crate) fn for_tile(mr: usize, nr: usize, size: usize) -> Blocking {
        type Last = core::cell::Cell<Option<((usize, usize, usize), Blocking)>>;
        thread_local! {
            static LAST: Last = const { core::cell::Cell::new(None) };
        }
        let key = (mr, nr, size);
        LAST.with(|last| match last.get() {
            Some((k, b)) if k == key => b,
            _ => {
                let b = Blocking::derive(mr, nr, size, crate::cache_info());
                last.set(Some((key, b)));
                b
            }
        })
    }

    /// Cut down to an `m x n x k` product: no block beyond the product rounded up to
    /// the tile; `MC` and `NC` stay multiples of `mr` and `nr`; `KC` as [`depth`]
    /// says.
    pub(crate) fn fit(self, m: usize, n: usize, k: usize, mr: usize, nr: usize) -> Blocking {
        Blocking {
            kc: depth(k, self.kc),
            mc: self.mc.min(m.next_multiple_of(mr)).next_multiple_of(mr),
            nc: self.nc.min(n.next_multiple_of(nr)).next_multiple_of(nr),
        }
    }
}

/// The depth of the k-blocks of a product `k` deep, for a target `kc`: `kc` (at
/// most `k`), except when the last block would be shorter than a quarter of it;
/// then that remainder is spread over the full blocks (`k.div_ceil(k / kc)`, at
/// most 1.25 `kc`). Every k-block is a pass over C (read, add, write), and the
/// short one did little else (docs/design.md#blocking).
/// The direct path splits k the same way, so the sums do not depend on the path.
pub(crate) fn depth(k: usize, kc: usize) -> usize {
    let kc = kc.clamp(1, k.max(1));
    let (full, tail) = (k / kc, k % kc);
    if tail != 0 && tail < kc / 4 {
        k.div_ceil(full)
    } else {
        kc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_caches_give_the_documented_blocks() {
        let b = Blocking::derive(8, 6, 8, CacheInfo::DEFAULT);
        assert_eq!(
            b,
            Blocking {
                kc: 336,
                mc: 512,
                nc: 3120
            }
        );
        let tiny = CacheInfo {
            l1d: 1024,
            l2: 4096,
            l3: 8192,
        };
        let b = Blocking::derive(8, 6, 8, tiny);
        assert_eq!((b.kc, b.mc % 8, b.nc % 6), (64, 0, 0));
        assert!(b.mc >= 8 && b.nc >= 6);
        // Above the page floor, MC follows L2.
        let big = CacheInfo {
            l2: 8 << 20,
            ..CacheInfo::DEFAULT
        };
        assert_eq!(
            Blocking::derive(8, 6, 8, big).mc,
            2 * 1024 * 1024 / (336 * 8) / 8 * 8
        );
        // The floor rounds up to the tile: 4096 / 4 = 1024 f32 elements, 12 rows a tile.
        assert_eq!(Blocking::derive(12, 4, 4, CacheInfo::DEFAULT).mc, 1032);
        // A far L3 gets no floor: a server mesh's caches (48 KiB, 2 MiB, 480 MiB), f32 on a 32 x 12 tile and
        // AVX2's 16 x 6, f64 on a 16 x 12.
        let mesh = CacheInfo {
            l1d: 48 << 10,
            l2: 2 << 20,
            l3: 480 << 20,
        };
        let got = |mr, nr, s| {
            let b = Blocking::derive(mr, nr, s, mesh);
            (b.kc, b.mc)
        };
        assert_eq!(got(32, 12, 4), (384, 320));
        assert_eq!(got(16, 6, 4), (768, 160));
        assert_eq!(got(16, 12, 8), (256, 256));
        // A tile more than twice as tall as wide: A's micro-panel bounds KC to one
        // L1 (AVX-512's 48 x 8 f32 and 24 x 8 f64).
        assert_eq!(got(48, 8, 4), (256, 480));
        assert_eq!(got(24, 8, 8), (256, 240));
        // The same L1 and L2 with a near L3 keep the floor.
        let near = CacheInfo {
            l3: 32 << 20,
            ..mesh
        };
        assert_eq!(Blocking::derive(16, 6, 4, near).mc, 1024);
        // No floor still leaves a tile.
        let small_l2 = CacheInfo {
            l2: 64 << 10,
            ..mesh
        };
        assert_eq!(Blocking::derive(32, 12, 4, small_l2).mc, 32);
    }

    /// The remembered blocks are the derived ones, whatever order tile shapes come
    /// in.
    #[test]
    fn remembered_blocks_follow_the_tile() {
        let shapes = [
            (24, 8, 8),
            (48, 8, 4),
            (24, 8, 8),
            (8, 6, 8),
            (8, 6, 4),
            (8, 6, 4),
        ];
        for _ in 0..2 {
            for (mr, nr, size) in shapes {
                assert_eq!(
                    Blocking::for_tile(mr, nr, size),
                    Blocking::derive(mr, nr, size, crate::cache_info()),
                    "{mr} x {nr}, {size} bytes"
                );
            }
        }
    }

    #[test]
    fn a_short_last_k_block_is_spread_over_the_others() {
        assert_eq!(depth(1024, 336), 342); // 342 + 342 + 340
        assert_eq!(depth(700, 336), 350);
        assert_eq!(depth(337, 336), 337); // one block
        assert_eq!(depth(672, 336), 336); // no remainder
        assert_eq!(depth(420, 336), 336); // 84: a quarter, kept
        assert_eq!(depth(419, 336), 419);
        assert_eq!(depth(100, 336), 100);
        assert_eq!((depth(0, 336), depth(5, 0)), (1, 1));
        // Never more than 1.25 KC, and the blocks then cover k with a last one no
        // shorter than a quarter of the target.
        for kc in [1, 2, 3, 8, 64, 336] {
            for k in 1..4 * kc + 9 {
                let d = depth(k, kc);
                assert!(d <= kc + kc / 4 && d <= k.max(1), "{k} {kc} {d}");
                let last = k - (k - 1) / d * d;
                assert!(last >= (kc / 4).min(k) || last == d, "{k} {kc} {d} {last}");
            }
        }
    }
}
