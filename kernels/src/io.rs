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
    // Where the mapping is listed for `exit_on_mapped_sigbus` (`None`: not listed).
    #[cfg(target_os = "linux")]
    slot: Option<usize>,
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
            return Ok(Mapping {
                map: None,
                #[cfg(target_os = "linux")]
                slot: None,
            });
        }
        // SAFETY: the mapping is read-only and private to this `Mapping`, which hands
        // out only shared `&[u8]` borrows tied to itself, and unmaps on drop. What
        // Rust cannot rule out is another process changing the file underneath
        // (contents changing behind a `&[u8]`, or SIGBUS after a truncation): that is
        // the documented, opt-in risk of this type (see "The risk that comes with
        // it"), the same one every mmap-based reader (ripgrep, for one) accepts. The
        // values read are plain bytes, for which any bit pattern is valid.
        let map = unsafe { memmap2::Mmap::map(file)? };
        #[cfg(target_os = "linux")]
        let slot = sigbus::register(map.as_ptr() as usize, map.len());
        Ok(Mapping {
            map: Some(map),
            #[cfg(target_os = "linux")]
            slot,
        })
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
        let (start, end) = self.inside("populate", range)?;
        #[cfg(target_os = "linux")]
        if let Some(map) = &self.map {
            return map.advise_range(memmap2::Advice::PopulateRead, start, end - start);
        }
        Err(needs_linux("populating a mapping"))
    }

    /// How many of the pages that hold `range` (byte offsets into the mapping) are
    /// in memory now (`mincore`): the pages the range touches, and how many of them
    /// are resident, as `(resident, pages)`. Reading nothing and mapping nothing, it
    /// tells whether a file is in the page cache. An empty or out-of-bounds range is
    /// an error, and so is any OS but Linux (`Unsupported`).
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("ndsimd-io-res-{}", std::process::id()));
    /// std::fs::write(&path, vec![1u8; 3 << 16])?; // just written: in the page cache
    /// let map = ndsimd_kernels::io::Mapping::new(&std::fs::File::open(&path)?)?;
    /// if let Ok((resident, pages)) = map.resident(0..3 << 16) {
    ///     assert!(resident <= pages && pages >= 3 << 16 >> 16);
    /// }
    /// assert!(map.resident(0..(3 << 16) + 1).is_err());
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn resident(&self, range: std::ops::Range<usize>) -> io::Result<(usize, usize)> {
        let (start, end) = self.inside("resident", range)?;
        #[cfg(target_os = "linux")]
        if let Some(map) = &self.map {
            // SAFETY: `sysconf` has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            let page = if page > 0 { page as usize } else { 4096 };
            let base = map.as_ptr() as usize;
            let first = (base + start) & !(page - 1);
            let last = base + end;
            let mut vec = vec![0u8; (last - first).div_ceil(page)];
            // SAFETY: `first` is page-aligned (the page of the range's first byte) and
            // `first..last` lies within this live mapping, rounded down to its own
            // page; `vec` has one byte for each page of that span, which `mincore`
            // writes and nothing else.
            let r = unsafe {
                libc::mincore(
                    first as *mut libc::c_void,
                    last - first,
                    vec.as_mut_ptr() as *mut libc::c_uchar,
                )
            };
            if r != 0 {
                return Err(io::Error::last_os_error());
            }
            let resident = vec.iter().filter(|&&b| b & 1 != 0).count();
            return Ok((resident, vec.len()));
        }
        Err(needs_linux("asking which pages are resident"))
    }

    /// `range`'s ends, or an error when it is empty or not inside the mapping.
    fn inside(&self, what: &str, range: std::ops::Range<usize>) -> io::Result<(usize, usize)> {
        let (start, end) = (range.start, range.end);
        if start >= end || end > self.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{what} {start}..{end} of a mapping of {} bytes", self.len()),
            ));
        }
        Ok((start, end))
    }
}

mod typed {
    pub trait Sealed {}
}

/// Element types a [`TypedMapping`] can see a mapping as: the plain integers and
/// floats (every bit pattern a value) and `bool` (whose bytes must be 0 or 1, checked
/// once when the [`TypedMapping`] is made). Sealed.
///
/// ```
/// use ndsimd_kernels::io::MapElement;
/// assert_eq!(bool::first_invalid(&[0, 1, 2, 1]), Some(2));
/// assert_eq!(u8::first_invalid(&[0, 1, 2, 1]), None);
/// ```
pub trait MapElement: Copy + Sync + 'static + typed::Sealed {
    /// The index of the first item of `bytes` (whole items of this type, in native
    /// byte order) that is not a value of this type, if any.
    fn first_invalid(bytes: &[u8]) -> Option<usize>;
}

macro_rules! map_any_bits {
    ($($t:ty),*) => {$(
        impl typed::Sealed for $t {}
        impl MapElement for $t {
            fn first_invalid(_: &[u8]) -> Option<usize> {
                None
            }
        }
    )*};
}
map_any_bits!(f32, f64, u8, u16, u32, u64, i8, i16, i32, i64);

impl typed::Sealed for bool {}
impl MapElement for bool {
    fn first_invalid(bytes: &[u8]) -> Option<usize> {
        bytes.iter().position(|&b| b > 1)
    }
}

/// Why [`TypedMapping::new`] refused a part of a mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The range is not inside the mapping.
    Bounds,
    /// The range starts at an address that is not a multiple of the type's
    /// alignment `align`: the file places the items at a byte offset that is not.
    Misaligned {
        /// The alignment the element type needs, in bytes.
        align: usize,
    },
    /// Item `index` of the range (its first byte `byte`) is not a value of the type.
    Invalid {
        /// The index of the first bad item.
        index: usize,
        /// Its first byte.
        byte: u8,
    },
}

/// A [`Mapping`] that owns its map and sees `len` items of `T` in it, from byte
/// `start`, as a `&[T]` without copying. Made by [`TypedMapping::new`], which checks
/// the range, the alignment and (for `bool`) every byte once.
///
/// It carries [`Mapping`]'s risk ("The risk that comes with it"): a file changed
/// by another process while mapped changes the items seen, and for `bool` that
/// can put a byte other than 0 or 1 behind a `&[bool]`. Map only files nobody
/// writes while they are mapped.
///
/// ```
/// let path = std::env::temp_dir().join(format!("ndsimd-io-typed-{}", std::process::id()));
/// let mut bytes = vec![0u8; 8];
/// bytes.extend_from_slice(&1.5f64.to_ne_bytes());
/// std::fs::write(&path, &bytes)?;
/// let map = ndsimd_kernels::io::Mapping::new(&std::fs::File::open(&path)?)?;
/// let base = map.as_ptr();
/// let typed = ndsimd_kernels::io::TypedMapping::<f64>::new(map, 8, 1).unwrap();
/// assert_eq!(typed.as_slice(), &[1.5]);
/// assert_eq!(typed.as_slice().as_ptr() as usize, base as usize + 8); // no copy
/// std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct TypedMapping<T> {
    map: Mapping,
    start: usize,
    len: usize,
    _items: std::marker::PhantomData<fn() -> T>,
}

impl<T: MapElement> TypedMapping<T> {
    /// Sees `len` items of `T` from byte `start` of `map`; refused when they do not
    /// lie inside it, their address is not aligned for `T`, or (for `bool`) a byte
    /// is neither 0 nor 1. An empty range is always accepted.
    ///
    /// ```
    /// use ndsimd_kernels::io::{Mapping, Refusal, TypedMapping};
    /// let path = std::env::temp_dir().join(format!("ndsimd-io-refuse-{}", std::process::id()));
    /// std::fs::write(&path, [0u8, 1, 7, 0, 0, 0, 0, 0, 0])?;
    /// let open = || Mapping::new(&std::fs::File::open(&path)?);
    /// assert_eq!(TypedMapping::<u64>::new(open()?, 1, 1).err(), Some(Refusal::Misaligned { align: 8 }));
    /// assert_eq!(TypedMapping::<u64>::new(open()?, 8, 1).err(), Some(Refusal::Bounds));
    /// assert_eq!(TypedMapping::<bool>::new(open()?, 0, 3).err(), Some(Refusal::Invalid { index: 2, byte: 7 }));
    /// assert_eq!(TypedMapping::<bool>::new(open()?, 0, 2).unwrap().as_slice(), &[false, true]);
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(map: Mapping, start: usize, len: usize) -> Result<Self, Refusal> {
        let typed = TypedMapping {
            map,
            start,
            len,
            _items: std::marker::PhantomData,
        };
        if len == 0 {
            return Ok(typed);
        }
        let end = len
            .checked_mul(std::mem::size_of::<T>())
            .and_then(|n| n.checked_add(start))
            .ok_or(Refusal::Bounds)?;
        if end > typed.map.len() {
            return Err(Refusal::Bounds);
        }
        let bytes = &typed.map[start..end];
        let align = std::mem::align_of::<T>();
        if !(bytes.as_ptr() as usize).is_multiple_of(align) {
            return Err(Refusal::Misaligned { align });
        }
        if let Some(index) = T::first_invalid(bytes) {
            let byte = bytes[index * std::mem::size_of::<T>()];
            return Err(Refusal::Invalid { index, byte });
        }
        Ok(typed)
    }

    /// The items, borrowed from the mapping (no copy).
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("ndsimd-io-slice-{}", std::process::id()));
    /// std::fs::write(&path, 7i32.to_ne_bytes())?;
    /// let map = ndsimd_kernels::io::Mapping::new(&std::fs::File::open(&path)?)?;
    /// let typed = ndsimd_kernels::io::TypedMapping::<i32>::new(map, 0, 1).unwrap();
    /// assert_eq!(typed.as_slice(), &[7]);
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn as_slice(&self) -> &[T] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `new` checked that `len` items of `T` from byte `start` lie inside
        // the mapping, start at an address aligned for `T`, and (for `bool`, the one
        // `MapElement` with invalid bit patterns) hold only 0 and 1; the mapping is
        // owned by `self`, read-only, and outlives the borrow. A file changed by
        // another process underneath is `Mapping`'s documented risk.
        unsafe {
            std::slice::from_raw_parts(self.map.as_ptr().add(self.start).cast::<T>(), self.len)
        }
    }

    /// The whole mapping, as bytes.
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("ndsimd-io-whole-{}", std::process::id()));
    /// std::fs::write(&path, [1u8, 2, 3])?;
    /// let map = ndsimd_kernels::io::Mapping::new(&std::fs::File::open(&path)?)?;
    /// let typed = ndsimd_kernels::io::TypedMapping::<u8>::new(map, 1, 2).unwrap();
    /// assert_eq!((typed.as_slice(), &typed.mapping()[..]), (&[2u8, 3][..], &[1u8, 2, 3][..]));
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn mapping(&self) -> &Mapping {
        &self.map
    }
}

#[cfg(target_os = "linux")]
impl Drop for Mapping {
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            sigbus::unregister(slot);
        }
    }
}

/// The error of a call that only Linux answers: `Unsupported`, saying what needs it.
fn needs_linux(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::Unsupported, format!("{what} needs Linux"))
}

/// Asks the OS to drop the cached pages of `file` (`posix_fadvise` with
/// `POSIX_FADV_DONTNEED`): pages not yet written back stay, and the OS may keep
/// others; contents never change. For tests and benchmarks that want a cold file
/// without root. Linux only (elsewhere `Unsupported`).
///
/// ```
/// let path = std::env::temp_dir().join(format!("ndsimd-io-drop-{}", std::process::id()));
/// std::fs::write(&path, vec![4u8; 1 << 16])?;
/// let file = std::fs::File::open(&path)?;
/// file.sync_all()?; // written back, so the pages can go
/// if cfg!(target_os = "linux") {
///     ndsimd_kernels::io::drop_cached(&file)?;
/// }
/// assert_eq!(std::fs::read(&path)?, vec![4u8; 1 << 16]);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn drop_cached(file: &File) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: an advice on a descriptor `file` keeps open for the call; it
        // touches no memory of this process.
        let r = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        Err(needs_linux("dropping cached pages"))
    }
}

/// Makes a `SIGBUS` raised by reading a [`Mapping`] (its file was truncated while it
/// was mapped: see "The risk that comes with it") end the process the way a program
/// ends on an error: `message` is written to stderr and the process exits with
/// `code` at once (`_exit`: no destructors, no buffered output flushed). Any other
/// `SIGBUS` (not inside a live mapping, or sent by `kill`) keeps its default action.
/// Process-wide and for programs, not libraries: it replaces any `SIGBUS` handler
/// already installed. A later call replaces the message and code. Linux only
/// (elsewhere `Unsupported`, and nothing changes); at most 64 mappings alive at once
/// are covered (a fault in another one keeps the default action).
///
/// ```no_run
/// ndsimd_kernels::io::exit_on_mapped_sigbus("prog: FILE: truncated while mapped\n", 2)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn exit_on_mapped_sigbus(message: &str, code: i32) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        sigbus::install(message, code)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (message, code);
        Err(needs_linux("a SIGBUS handler for mappings"))
    }
}

/// The live mappings' address ranges, and the `SIGBUS` handler that looks them up.
#[cfg(target_os = "linux")]
mod sigbus {
    use std::io;
    use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicUsize, Ordering};

    const SLOTS: usize = 64;
    // Each slot: the start (0 when free) and the end of one live mapping.
    static STARTS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
    static ENDS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
    static MESSAGE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
    static MESSAGE_LEN: AtomicUsize = AtomicUsize::new(0);
    static CODE: AtomicI32 = AtomicI32::new(2);

    /// Lists `start..start + len`; the slot, or `None` when all are taken.
    pub(super) fn register(start: usize, len: usize) -> Option<usize> {
        let slot = (0..SLOTS).find(|&i| {
            STARTS[i]
                .compare_exchange(0, usize::MAX, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })?;
        // Claimed with an impossible start, so no fault matches a half-written slot.
        ENDS[slot].store(start + len, Ordering::Release);
        STARTS[slot].store(start, Ordering::Release);
        Some(slot)
    }

    pub(super) fn unregister(slot: usize) {
        ENDS[slot].store(0, Ordering::Release);
        STARTS[slot].store(0, Ordering::Release);
    }

    fn listed(addr: usize) -> bool {
        (0..SLOTS).any(|i| {
            let start = STARTS[i].load(Ordering::Acquire);
            let end = ENDS[i].load(Ordering::Acquire);
            start != 0 && start <= addr && addr < end
        })
    }

    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid `siginfo_t` to an `SA_SIGINFO` handler;
        // `si_addr` is the faulting address for a fault (and meaningless, but readable,
        // for a signal sent by a process, which `listed` then does not match).
        let addr = unsafe { (*info).si_addr() } as usize;
        if listed(addr) {
            let msg = MESSAGE.load(Ordering::Acquire);
            let len = MESSAGE_LEN.load(Ordering::Acquire);
            // SAFETY: `write` and `_exit` are async-signal-safe; `msg..msg + len` is the
            // leaked message `install` published (a null pointer writes nothing).
            unsafe {
                if !msg.is_null() {
                    libc::write(2, msg as *const libc::c_void, len);
                }
                libc::_exit(CODE.load(Ordering::Relaxed));
            }
        }
        // Not ours: the default action. The signal is blocked while its handler runs,
        // so the one raised here is delivered when the handler returns (and a fault
        // would fault again anyway).
        // SAFETY: `signal` and `raise` are async-signal-safe.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }

    pub(super) fn install(message: &str, code: i32) -> io::Result<()> {
        let leaked: &'static mut [u8] = Box::leak(message.as_bytes().to_vec().into_boxed_slice());
        MESSAGE_LEN.store(0, Ordering::Release);
        MESSAGE.store(leaked.as_mut_ptr(), Ordering::Release);
        MESSAGE_LEN.store(leaked.len(), Ordering::Release);
        CODE.store(code, Ordering::Relaxed);
        // SAFETY: a zeroed `sigaction` is a valid starting value (no flags, empty
        // mask); the handler has the `SA_SIGINFO` signature and touches only atomics
        // and async-signal-safe calls.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_sigbus as *const () as usize;
            act.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut act.sa_mask);
            if libc::sigaction(libc::SIGBUS, &act, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
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
    fn resident_counts_the_pages_in_the_page_cache() {
        use std::io::Write;
        let path = std::env::temp_dir().join(format!("ndsimd-io-resident-{}", std::process::id()));
        let len = (1 << 20) + 100;
        let mut f = File::create(&path).unwrap();
        f.write_all(&vec![9u8; len]).unwrap();
        f.sync_all().unwrap();
        drop(f);
        let file = File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let map = Mapping::new(&file).unwrap();
        // Written, so cached: 256 full pages and the partial one.
        let (resident, pages) = map.resident(0..len).unwrap();
        assert_eq!(pages, 257);
        assert_eq!(resident, 257, "just written");
        // A range inside one page is that page; one straddling two is both.
        assert_eq!(map.resident(4097..4098).unwrap(), (1, 1));
        assert_eq!(map.resident(4095..4097).unwrap(), (2, 2));
        // Clean pages dropped from the cache are not resident any more (qemu-user
        // passes the advice on, but its answers are not checked there).
        drop_cached(&file).unwrap();
        let (after, _) = map.resident(0..len).unwrap();
        // A file system that holds its files in memory (tmpfs) drops nothing.
        let kept = after == pages;
        if kept {
            eprintln!("note: the temp dir's file system keeps its pages; the drop not checked");
        }
        if std::env::var_os("NDSIMD_EMULATED").is_none() && !kept {
            assert!(after < 8, "{after} pages still resident after DONTNEED");
            assert_eq!(map[len / 2], 9);
            let (one, _) = map.resident(len / 2..len / 2 + 1).unwrap();
            assert_eq!(one, 1, "the page just read");
        }
        assert!(map.resident(0..len + 1).is_err());
        assert!(map.resident(7..7).is_err());
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
