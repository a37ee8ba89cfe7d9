//! The two `unsafe` steps of the file scan (`ndsimd::scan`) behind safe wrappers:
//! viewing bytes as 8-byte words for [`ByteTable::first_nonzero_word`], and mapping a
//! file into memory.
//!
//! [`ByteTable::first_nonzero_word`]: crate::ByteTable::first_nonzero_word

use std::fs::File;
use std::io;
use std::ops::Deref;

/// Splits `bytes` into a head, the aligned `u64` words of the middle, and a tail:
/// `head ++ words (as native-endian bytes) ++ tail == bytes`, with `head` and `tail`
/// shorter than 8 bytes each in practice (correctness must never depend on that:
/// only speed does). The words are aligned in memory, not relative to the start of
/// `bytes`: `head.len()` is whatever the address of `bytes` makes it.
///
/// ```
/// let buf = [0u8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18];
/// let (head, words, tail) = ndsimd_kernels::io::as_words(&buf[1..]);
/// assert_eq!(head.len() + 8 * words.len() + tail.len(), buf.len() - 1);
/// let first = head.len() + 1; // index in `buf` of the first word's first byte
/// if let Some(&w) = words.first() {
///     assert_eq!(w.to_ne_bytes()[..], buf[first..first + 8]);
/// }
/// ```
pub fn as_words(bytes: &[u8]) -> (&[u8], &[u64], &[u8]) {
    // SAFETY: every bit pattern is a valid `u64`, `u64` has no padding and no
    // invariants, and `align_to` only puts whole, aligned `u64`s that lie inside
    // `bytes` into the middle slice, which borrows `bytes` immutably.
    unsafe { bytes.align_to::<u64>() }
}

/// A read-only memory map of a whole file, seen as `&[u8]` (through `Deref`).
///
/// # The risk that comes with it
///
/// The bytes are the file's page cache, not a copy. If another process **truncates**
/// the file while it is mapped, touching a page past the new end raises `SIGBUS` and
/// the process dies: nothing a library can catch. If another process **writes** to
/// it, the bytes seen may change while they are being read (a scan may then see a
/// mix of old and new contents). Use a mapping only for files nobody changes while
/// they are read; `ndsimd::scan` offers it as an opt-in strategy and defaults to
/// `pread`, which turns both cases into errors.
///
/// ```
/// use std::io::Write;
/// let path = std::env::temp_dir().join(format!("ndsimd-io-doc-{}", std::process::id()));
/// std::fs::File::create(&path)?.write_all(b"mapped")?;
/// let map = ndsimd_kernels::io::Mapping::new(&std::fs::File::open(&path)?)?;
/// assert_eq!(&map[..], b"mapped");
/// drop(map);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Mapping {
    // `None` for an empty file: there is nothing to map.
    map: Option<memmap2::Mmap>,
}

impl Mapping {
    /// Maps all of `file` (its length at this moment) read-only. An empty file gives
    /// an empty mapping. Errors are the OS's (for example a file too large for the
    /// address space, or a file that cannot be mapped).
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("ndsimd-io-new-{}", std::process::id()));
    /// std::fs::write(&path, b"")?;
    /// let map = ndsimd_kernels::io::Mapping::new(&std::fs::File::open(&path)?)?;
    /// assert!(map.is_empty());
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(file: &File) -> io::Result<Mapping> {
        if file.metadata()?.len() == 0 {
            return Ok(Mapping { map: None });
        }
        // SAFETY: the mapping is read-only and private to this `Mapping`, which hands
        // out only shared `&[u8]` borrows tied to itself, and unmaps on drop. What
        // Rust cannot rule out is another process changing the file underneath
        // (contents changing behind a `&[u8]`, or SIGBUS after a truncation): that is
        // the documented, opt-in risk of this type (see "The risk that comes with
        // it"), the same one every mmap-based reader (ripgrep, for one) accepts. The
        // values read are plain bytes, for which any bit pattern is valid.
        let map = unsafe { memmap2::Mmap::map(file)? };
        Ok(Mapping { map: Some(map) })
    }

    /// Tells the OS the mapping will be read front to back, soon (`madvise` with
    /// `MADV_SEQUENTIAL` and `MADV_WILLNEED`, where the OS has them): more read-ahead,
    /// pages dropped behind. A hint only; contents never change.
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("ndsimd-io-adv-{}", std::process::id()));
    /// std::fs::write(&path, vec![7u8; 1 << 16])?;
    /// let map = ndsimd_kernels::io::Mapping::new(&std::fs::File::open(&path)?)?;
    /// map.advise_sequential()?;
    /// assert_eq!(map[12345], 7);
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn advise_sequential(&self) -> io::Result<()> {
        #[cfg(unix)]
        if let Some(map) = &self.map {
            map.advise(memmap2::Advice::Sequential)?;
            map.advise(memmap2::Advice::WillNeed)?;
        }
        Ok(())
    }

    /// Asks the OS to map the pages of `range` (byte offsets into the mapping) now,
    /// in one call, rather than one fault per few pages as they are first touched
    /// (`madvise` with `MADV_POPULATE_READ`, Linux 5.14 and later). A hint: contents
    /// never change, and an OS or kernel without it returns an error that may be
    /// ignored. An empty or out-of-bounds range is an error.
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("ndsimd-io-pop-{}", std::process::id()));
    /// std::fs::write(&path, vec![5u8; 3 << 16])?;
    /// let map = ndsimd_kernels::io::Mapping::new(&std::fs::File::open(&path)?)?;
    /// let _ = map.populate(4096..(2 << 16) + 17); // a hint; any range inside
    /// assert_eq!(map[(2 << 16) + 16], 5);
    /// assert!(map.populate(0..(3 << 16) + 1).is_err());
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn populate(&self, range: std::ops::Range<usize>) -> io::Result<()> {
        let (start, end) = (range.start, range.end);
        if start >= end || end > self.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "populate {start}..{end} of a mapping of {} bytes",
                    self.len()
                ),
            ));
        }
        #[cfg(target_os = "linux")]
        if let Some(map) = &self.map {
            return map.advise_range(memmap2::Advice::PopulateRead, start, end - start);
        }
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "populating a mapping needs Linux",
        ))
    }
}

impl Deref for Mapping {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_words_covers_every_offset() {
        let buf: Vec<u8> = (0..100u8).collect();
        for start in 0..16 {
            for end in start..buf.len() {
                let s = &buf[start..end];
                let (h, w, t) = as_words(s);
                let mut joined = h.to_vec();
                for x in w {
                    joined.extend_from_slice(&x.to_ne_bytes());
                }
                joined.extend_from_slice(t);
                assert_eq!(joined, s, "{start}..{end}");
            }
        }
    }

    /// The resident size, in KiB, of the mapping that starts at `addr`
    /// (`/proc/self/smaps`).
    #[cfg(target_os = "linux")]
    fn rss_kib(addr: usize) -> usize {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut lines = smaps.lines();
        while let Some(l) = lines.next() {
            let range = l.split_whitespace().next().unwrap_or("");
            let Some((lo, _)) = range.split_once('-') else {
                continue;
            };
            if usize::from_str_radix(lo, 16) == Ok(addr) {
                for l in lines.by_ref() {
                    if let Some(v) = l.strip_prefix("Rss:") {
                        return v.trim().trim_end_matches("kB").trim().parse().unwrap();
                    }
                }
            }
        }
        panic!("no mapping at {addr:#x} in /proc/self/smaps");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn populate_maps_the_pages_it_is_asked_for() {
        let path = std::env::temp_dir().join(format!("ndsimd-io-populate-{}", std::process::id()));
        let len = 4 << 20;
        std::fs::write(&path, vec![3u8; len]).unwrap();
        let map = Mapping::new(&File::open(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        let addr = map.as_ptr() as usize;
        let before = rss_kib(addr);
        assert!(before < 1024, "{before} KiB resident before any read");
        match map.populate(4096..3 << 20) {
            // qemu-user (the CI's emulated lanes set NDSIMD_EMULATED) accepts the
            // advice and does nothing: a hint may be ignored.
            Ok(()) if std::env::var_os("NDSIMD_EMULATED").is_some() => {
                eprintln!("note: under emulation; populate's effect not checked");
            }
            Ok(()) => {
                let after = rss_kib(addr);
                assert!(
                    after >= (3 << 10) - 4,
                    "{after} KiB resident after populate"
                );
            }
            // Kernels before 5.14 do not know the advice.
            Err(e) => assert_eq!(e.raw_os_error(), Some(libc::EINVAL), "{e}"),
        }
        assert!(map.populate(0..len + 1).is_err());
        assert!(map.populate(5..5).is_err());
        assert_eq!(map[len - 1], 3);
    }
}
