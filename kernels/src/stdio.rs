//! Which standard descriptors were closed when the process started.
//!
//! Rust's runtime reopens a closed stdin, stdout or stderr on `/dev/null` before
//! `main`, so a program started as `tool >&-` cannot tell its output is going nowhere.
//! grep, started that way, reports "Bad file descriptor" and exits 2; the `ndsimd`
//! tool does the same with [`closed_at_start`]. The state is read by a function in
//! `.init_array`, which the C runtime runs before Rust's `main` sets anything up.

#[cfg(target_os = "linux")]
mod imp {
    use std::sync::atomic::{AtomicU8, Ordering};

    /// Bit `fd` set: descriptor `fd` (0, 1 or 2) was closed at process start.
    pub(super) static CLOSED: AtomicU8 = AtomicU8::new(0);

    extern "C" fn record() {
        let mut bits = 0u8;
        for fd in 0..3 {
            // SAFETY: `fcntl(fd, F_GETFD)` only reads the descriptor table and fails
            // with EBADF for a closed descriptor; it touches no memory of ours.
            if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
                bits |= 1 << fd;
            }
        }
        CLOSED.store(bits, Ordering::Relaxed);
    }

    // The C runtime calls every function in `.init_array` before `main`, where Rust's
    // runtime reopens closed standard descriptors; `record` runs no Rust runtime code.
    #[used]
    #[link_section = ".init_array"]
    static RECORD: extern "C" fn() = record;
}

/// Whether standard descriptor `fd` (0 stdin, 1 stdout, 2 stderr) was closed when the
/// process started, before Rust's runtime put `/dev/null` in its place. Always
/// `false` for other descriptors and on systems other than Linux.
///
/// ```
/// // Under `cargo test` every standard descriptor is open.
/// assert!(!ndsimd_kernels::stdio::closed_at_start(1));
/// assert!(!ndsimd_kernels::stdio::closed_at_start(7));
/// ```
pub fn closed_at_start(fd: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        fd < 3 && imp::CLOSED.load(std::sync::atomic::Ordering::Relaxed) & (1 << fd) != 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = fd;
        false
    }
}
