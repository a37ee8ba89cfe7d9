//! Block sizes of the loop nest, derived from the cache sizes.
//!
//! With `s` the element size, `MR x NR` the register tile and `L1`, `L2`, `L3` from
//! [`crate::cache_info`]:
//!
//! - `KC = (L1 / 2) / (NR * s)`, rounded down to a multiple of 8 and kept in
//!   `64..=1024`: the `KC x NR` panel of B that every micro-kernel call of one `jr`
//!   step reuses takes half of L1, the rest holding the `MR x KC` panel of A streaming
//!   through and the tile of C.
//! - `MC = (L2 / 2) / (KC * s)`, rounded down to a multiple of `MR` (at least `MR`):
//!   the packed `MC x KC` block of A sits in half of L2.
//! - `NC = (L3 / 4) / (KC * s)`, rounded down to a multiple of `NR` (at least `NR`):
//!   the packed `KC x NC` block of B takes a quarter of L3 (shared by the cores).
//!
//! With the default caches ([`crate::CacheInfo::DEFAULT`]: 32 KiB, 1 MiB, 32 MiB) and
//! the AVX2 f64 kernel (8x6) this gives KC 336, MC 192, NC 3120.
//!
//! A product smaller than a block gets the block cut down to its own size (rounded up
//! to the tile), which only limits the scratch it asks for.

use crate::CacheInfo;

/// The smallest KC [`Blocking::derive`] gives.
pub(crate) const KC_MIN: usize = 64;

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
        let kc = ((cache.l1d / 2) / (nr * size) / 8 * 8).clamp(KC_MIN, 1024);
        let mc = ((cache.l2 / 2) / (kc * size) / mr * mr).max(mr);
        let nc = ((cache.l3 / 4) / (kc * size) / nr * nr).max(nr);
        Blocking { kc, mc, nc }
    }

    /// Cut down to an `m x n x k` product: no block beyond the product rounded up to
    /// the tile; `MC` and `NC` stay multiples of `mr` and `nr`.
    pub(crate) fn fit(self, m: usize, n: usize, k: usize, mr: usize, nr: usize) -> Blocking {
        Blocking {
            kc: self.kc.min(k).max(1),
            mc: self.mc.min(m.next_multiple_of(mr)).next_multiple_of(mr),
            nc: self.nc.min(n.next_multiple_of(nr)).next_multiple_of(nr),
        }
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
                mc: 192,
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
    }
}
