//! The loops inside one band of C, down to the micro-kernel: MC blocks of A (loop 3),
//! B's panels (loop 2), A's panels (loop 1), one tile per call; and the narrow form's
//! band, which packs each B panel right before its tiles. `driver.rs` runs the outer
//! loops and hands each worker its bands.

use super::block::Blocking;
use super::kernel::Ahead;
use super::mat::{Raw, RawMut};
use super::pack::{self, Src};
use super::table::Kernel;
use super::{scratch, GemmElement};

/// Enough room for the largest register tile (AVX-512 f32: 48 x 8, 384 elements):
/// the scratch tile for edge tiles and strided C.
pub(crate) const TILE_MAX: usize = 512;

/// In the narrow form, a full B panel whose columns run along k is read in place, not
/// packed, when A's block has at most this many panels: packing it then costs as much
/// as its few tiles' arithmetic (docs/design.md#packing-and-prefetch).
pub(crate) const B_IN_PLACE_PANELS: usize = 4;

/// The narrow form's scratch per thread for `m` rows of A `kcb` deep on `mr x nr`
/// tiles: A's packed block, one B panel, the edge tile.
pub(crate) fn narrow_len(mr: usize, nr: usize, m: usize, kcb: usize) -> usize {
    m.div_ceil(mr) * mr * kcb + nr * kcb + TILE_MAX
}

/// What every band of one product shares.
pub(crate) struct Nest<T: 'static> {
    pub kern: &'static Kernel<T>,
    pub blk: Blocking,
    /// Whether kernels prefetch the next panel's source (`Tuning::prefetch`).
    pub prefetch: bool,
    /// Whether the narrow form reads B's panels in place when it can
    /// (`Tuning::b_in_place`; `None`: when A has few panels).
    pub b_in_place: Option<bool>,
    pub m: usize,
    pub alpha: T,
    pub a: Raw<T>,
    pub c: RawMut<T>,
}

// SAFETY: `Raw` and `RawMut` are shared as their own impls say; the rest is plain data.
unsafe impl<T: Send + Sync> Sync for Nest<T> {}

impl<T: GemmElement> Nest<T> {
    /// Loop 3 for one band: rows `rows` (whole tiles, except at `m`) by panels `cols` of the packed B block
    /// (`kcb` deep from `pc`, `ncb` wide from `jc`): packs A's blocks of the band and
    /// runs loop 2 on each. Each block's kernels prefetch the source of the next one: the
    /// band's next, or after its last, the first block of `then` (the rows of the
    /// band this thread most likely runs next). The A block is packed into `slot`
    /// (or, without one, into this thread's own buffer).
    ///
    /// # Safety
    /// The CPU has the kernel's tier; `bpack` holds the packed B block; no other
    /// thread touches these tiles of C;
    /// `slot`, when given, holds `mc * kc + TILE_MAX` elements that no other thread
    /// uses meanwhile.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn band(
        &self,
        bpack: *const T,
        (pc, kcb): (usize, usize),
        (jc, ncb): (usize, usize),
        rows: core::ops::Range<usize>,
        cols: core::ops::Range<usize>,
        beta: T,
        then: Option<core::ops::Range<usize>>,
        slot: Option<*mut T>,
    ) {
        let (mr, nr) = (self.kern.mr, self.kern.nr);
        debug_assert!(self.m >= rows.end && mr * nr <= TILE_MAX);
        // The packed A block, then the stack-free edge tile: zeroing a tile on the
        // stack per call cost a quarter of the instructions of a batch of 16x16
        // products (callgrind).
        let a_len = self.blk.mc * kcb;
        scratch::slot_or(slot, &scratch::PACK_A, a_len + TILE_MAX, |apack, _| {
            let tile = apack.wrapping_add(a_len);
            for ic in rows.clone().step_by(self.blk.mc) {
                let mcb = self.blk.mc.min(rows.end - ic);
                let src = Src {
                    ptr: self.a.at(ic, pc),
                    along: self.a.rs,
                    step: self.a.cs,
                };
                let a_panels = mcb.div_ceil(mr);
                // SAFETY: `apack` holds `mc * kcb >= a_panels * mr * kcb` elements;
                // the source is the `mcb x kcb` block of A at `(ic, pc)`, inside A;
                // the CPU has the kernel's tier (so its gather's features).
                unsafe { pack::block(apack, src, mcb, mr, kcb, 0..a_panels, self.kern.gather8) };
                // The next A block, for this block's kernels to ask for.
                let next = match (ic + self.blk.mc, &then) {
                    (next, _) if next < rows.end => Some(next..rows.end),
                    (_, Some(then)) if !then.is_empty() => Some(then.clone()),
                    _ => None,
                };
                let ahead = match next.filter(|_| self.prefetch) {
                    Some(next) => {
                        let src = Src {
                            ptr: self.a.at(next.start, pc),
                            ..src
                        };
                        pack::ahead(src, self.blk.mc.min(next.len()), kcb)
                    }
                    None => Ahead::NONE,
                };
                // SAFETY: A's block is packed (`a_panels` panels); `cols` are packed
                // panels of B's block; these tiles of C are this band's alone; `tile`
                // is this thread's scratch past the A block.
                unsafe {
                    self.b_panels(
                        kcb,
                        apack,
                        (ic, mcb),
                        bpack,
                        (jc, ncb),
                        cols.clone(),
                        beta,
                        tile,
                        ahead,
                    )
                };
            }
        });
    }

    /// Loop 2: the tiles of rows `ic .. ic + mcb` (A's packed block `apack`) by B's
    /// packed panels `cols` (of the block `bpack`, `ncb` wide from `jc`), a column of
    /// tiles per panel, each column's kernels asking for their share of `ahead`.
    ///
    /// # Safety
    /// `apack` holds `mcb.div_ceil(MR)` packed panels and `bpack` the packed panels
    /// `cols`, each `kcb` steps; these tiles of C are inside C and no other thread
    /// touches them; `tile` as in [`Nest::tile`].
    #[allow(clippy::too_many_arguments)]
    unsafe fn b_panels(
        &self,
        kcb: usize,
        apack: *const T,
        (ic, mcb): (usize, usize),
        bpack: *const T,
        (jc, ncb): (usize, usize),
        cols: core::ops::Range<usize>,
        beta: T,
        tile: *mut T,
        ahead: Ahead,
    ) {
        let nr = self.kern.nr;
        for jr in cols.clone() {
            let j0 = jr * nr;
            // SAFETY: as the caller promises, for panel `jr` of B's block.
            unsafe {
                self.column(
                    kcb,
                    apack,
                    (ic, mcb),
                    bpack.wrapping_add(jr * nr * kcb),
                    (jc + j0, nr.min(ncb - j0)),
                    beta,
                    tile,
                    ahead.part(jr - cols.start, cols.len()),
                    None,
                )
            };
        }
    }

    /// Loop 1: the tiles of rows `i .. i + rows` of C (from A's packed block `apack`, whose
    /// panels start at row `i`) by columns `j .. j + cols` (one packed panel `pb` of
    /// B, `cols <= NR`). The tiles' kernel calls share `ahead`'s runs among them.
    ///
    /// # Safety
    /// `apack` holds `rows.div_ceil(MR)` packed panels and `pb` one, each `kcb` steps
    /// (with `b_cs`, `pb` is B's panel in place, as `BColsFn` reads it); the tiles
    /// are inside C and no other thread touches them; `tile` as in [`Nest::tile`].
    #[allow(clippy::too_many_arguments)]
    unsafe fn column(
        &self,
        kcb: usize,
        apack: *const T,
        (i, rows): (usize, usize),
        pb: *const T,
        (j, cols): (usize, usize),
        beta: T,
        tile: *mut T,
        ahead: Ahead,
        b_cs: Option<isize>,
    ) {
        let mr = self.kern.mr;
        let calls = rows.div_ceil(mr);
        for ir in 0..calls {
            let i0 = ir * mr;
            let pa = apack.wrapping_add(ir * mr * kcb);
            // SAFETY: panel `ir` of A's block and `pb`, `kcb` steps each; the tile at
            // `(i + i0, j)`, cut to `rows` and `cols`, is one of the caller's.
            unsafe {
                self.tile(
                    kcb,
                    (pa, pb),
                    (i + i0, j),
                    (mr.min(rows - i0), cols),
                    beta,
                    tile,
                    ahead.part(ir, calls),
                    b_cs,
                )
            };
        }
    }

    /// One tile of C, `rows x cols` (at most `MR x NR`) at `(i, j)`, from packed
    /// panels `pa`, `pb` of `kcb` steps: the kernel straight into C when the tile is
    /// full and C's columns are contiguous, else through `tile` (`TILE_MAX`
    /// elements of this thread's scratch) and [`store_edge`]. A panel of at most
    /// [`Kernel::edge`]`[0]` rows, or a packed one of at most `edge[1]` columns,
    /// takes an edge kernel, "full" then meaning that many. The kernel prefetches
    /// `ahead` while it runs.
    ///
    /// # Safety
    /// `pa`, `pb` are packed panels of `kcb` steps (with `b_cs`, `pb` is B's panel in
    /// place, as `BColsFn` reads it); the tile is inside C and no other thread
    /// touches it; `tile` is valid for `TILE_MAX` reads and writes,
    /// initialised, aliased by nothing else; the CPU has the kernel's tier.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn tile(
        &self,
        kcb: usize,
        (pa, pb): (*const T, *const T),
        (i, j): (usize, usize),
        (rows, cols): (usize, usize),
        beta: T,
        tile: *mut T,
        ahead: Ahead,
        b_cs: Option<isize>,
    ) {
        let (mr, nr) = (self.kern.mr, self.kern.nr);
        let c0 = self.c.at(i, j);
        // A panel of at most `edge[0]` rows of A, or a packed one of at most
        // `edge[1]` columns of B (the rest padding), takes an edge kernel, which does
        // only those rows' or columns' multiply-adds.
        let [eh, ew] = self.kern.edge;
        let (re, ce) = (rows <= eh, b_cs.is_none() && cols <= ew);
        let (height, width) = (if re { eh } else { mr }, if ce { ew } else { nr });
        let kernel = |c: *mut T, cs: isize, beta: T| match b_cs {
            // SAFETY: as the caller promises, for each kernel (an edge kernel's tile
            // is its first `height` rows and `width` columns, all that is read back
            // below).
            None => unsafe {
                (self.kern.run[usize::from(re)][usize::from(ce)])(
                    kcb, pa, pb, c, cs, self.alpha, beta, ahead,
                )
            },
            // SAFETY: as above, with B read in place.
            Some(bcs) => unsafe {
                (self.kern.run_b_cols[usize::from(re)])(
                    kcb, pa, pb, bcs, c, cs, self.alpha, beta, ahead,
                )
            },
        };
        // SAFETY: as the caller promises; `c0` is the tile's corner inside C.
        unsafe {
            if rows == height && cols == width && self.c.rs == 1 {
                kernel(c0, self.c.cs, beta);
            } else {
                kernel(tile, mr as isize, T::ZERO);
                let c = RawMut { ptr: c0, ..self.c };
                let t = core::slice::from_raw_parts(tile.cast_const(), TILE_MAX);
                store_edge(t, mr, (rows, cols), beta, c);
            }
        }
    }

    /// The elements the narrow form packs into for a k-block `kcb` deep: A's whole
    /// block, one panel of B, an edge tile.
    pub(crate) fn narrow_len(&self, kcb: usize) -> usize {
        narrow_len(self.kern.mr, self.kern.nr, self.m, kcb)
    }

    /// The narrow form, for products whose whole `m x KC` block of A fits in half of
    /// L2 or near L3 (`path::NARROW_L3_PART`): that block packed into this thread's slot
    /// (once per product and k-block, however many bands the thread runs), then each
    /// panel `jr` in `cols` of B (`NR` columns, `kcb` deep) packed into a one-panel
    /// buffer right before its tiles run, so it is still in L1 when they read it. The
    /// blocked form packs a whole `KC x NC` block of B first (several MiB, out to L3
    /// or memory and back), which pays only when each packed element of B serves many
    /// tiles, i.e. when A has many rows. The tiles'
    /// arithmetic is the blocked form's, so the two give the same bits (tested).
    ///
    /// Measured against the blocked form: docs/design.md#which-path.
    ///
    /// The packing goes to `slot` (or, without one, this thread's own buffer).
    ///
    /// # Safety
    /// No other thread touches these columns of C; the CPU has the kernel's tier;
    /// `slot`, when given, holds [`Nest::narrow_len`]`(kcb)` elements that no other
    /// thread uses meanwhile.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn narrow_band(
        &self,
        product: u64,
        b: Raw<T>,
        n: usize,
        (pc, kcb): (usize, usize),
        cols: core::ops::Range<usize>,
        beta: T,
        slot: Option<*mut T>,
    ) {
        let (mr, nr) = (self.kern.mr, self.kern.nr);
        let a_panels = self.m.div_ceil(mr);
        let a_len = a_panels * mr * kcb;
        let need = self.narrow_len(kcb);
        scratch::slot_or(slot, &scratch::PACK_NARROW, need, |apack, holds| {
            let bpanel = apack.wrapping_add(a_len);
            let tile = bpanel.wrapping_add(nr * kcb);
            // A thread packs A's block once per product and k-block, whatever number
            // of bands it runs (a band per chunk would pack it again each time).
            if *holds != Some((product, pc)) {
                let src = Src {
                    ptr: self.a.at(0, pc),
                    along: self.a.rs,
                    step: self.a.cs,
                };
                // SAFETY: `apack` holds `a_panels * mr * kcb` elements; the source is
                // the `m x kcb` block of A at `(0, pc)`, inside A; the CPU has the
                // kernel's tier (so its gather's features).
                unsafe { pack::block(apack, src, self.m, mr, kcb, 0..a_panels, self.kern.gather8) };
                *holds = Some((product, pc));
            }
            for jr in cols.clone() {
                let j0 = jr * nr;
                let width = nr.min(n - j0);
                let src = Src {
                    ptr: b.at(pc, j0),
                    along: b.cs,
                    step: b.rs,
                };
                // A full panel whose columns run along k is read where it lies when
                // it serves few tiles (`B_IN_PLACE_PANELS`); others are packed.
                let in_place = src.step == 1
                    && width == nr
                    && self.b_in_place.unwrap_or(a_panels <= B_IN_PLACE_PANELS);
                if !in_place {
                    // SAFETY: `bpanel` holds `nr * kcb` elements past the A block; the
                    // source is the `kcb x width` block of B at `(pc, j0)`, inside B;
                    // the CPU has the kernel's tier (so its gather's features).
                    unsafe { pack::panel(bpanel, src, width, nr, kcb, self.kern.gather8) };
                }
                let (pb, b_cs) = if in_place {
                    (src.ptr, Some(src.along))
                } else {
                    (bpanel.cast_const(), None)
                };
                // The next panel's source, for this panel's kernels to ask for.
                let ahead = if self.prefetch && jr + 1 < cols.end {
                    let j1 = j0 + nr;
                    let next = Src {
                        ptr: b.at(pc, j1),
                        ..src
                    };
                    pack::ahead(next, nr.min(n - j1), kcb)
                } else {
                    Ahead::NONE
                };
                // SAFETY: A's whole block is packed (`a_panels` panels) and B's
                // panel `jr` is packed, or read in place (`NR` columns of B, `kcb`
                // contiguous steps each); its tiles of C are in this band's columns;
                // `tile` is this thread's scratch past the B panel (initialised when
                // allocated).
                unsafe {
                    self.column(
                        kcb,
                        apack,
                        (0, self.m),
                        pb,
                        (j0, width),
                        beta,
                        tile,
                        ahead,
                        b_cs,
                    )
                };
            }
        });
    }
}

/// `C = t + beta * C` over the valid `rows x cols` part of a stack tile `t` (column
/// `j` at `t[j * ld..]`) that holds `alpha * AB`: the same arithmetic as the kernel's
/// own write, so edge tiles round as full ones do.
///
/// # Safety
/// `c.at(i, j)` is valid for writes (and reads unless `beta == 0`) for `i < rows`,
/// `j < cols`.
#[inline]
pub(crate) unsafe fn store_edge<T: GemmElement>(
    t: &[T],
    ld: usize,
    (rows, cols): (usize, usize),
    beta: T,
    c: RawMut<T>,
) {
    for j in 0..cols {
        for i in 0..rows {
            let v = t[j * ld + i];
            let p = c.at(i, j);
            // SAFETY: `(i, j)` is inside the tile, as the caller allows.
            unsafe { *p = if beta == T::ZERO { v } else { v + beta * *p } };
        }
    }
}
