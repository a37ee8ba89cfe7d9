//! The persistent helper pool that parallel operations run on (DESIGN §3).
//!
//! One global pool, started lazily by the first parallel [`run`]: it has
//! [`num_threads`] participants, the calling thread plus `num_threads() - 1` helper
//! threads named `ndsimd-worker-N`. The size comes from the `NDSIMD_NUM_THREADS`
//! environment variable when it holds an integer ≥ 1 (capped at
//! [`MAX_THREADS_PER_CORE`] per core, with a warning), else from
//! [`std::thread::available_parallelism`]; [`set_num_threads`] changes it at run time
//! and [`with_threads`] caps it for a scope on the current thread.
//!
//! # How a job runs
//!
//! [`run`] builds the job descriptor (the closure, the caller's run of chunks, a panic
//! slot) on its own stack. The chunks are split into one contiguous run per
//! participant, each a `next..end` pair of counters, so that a participant gets the
//! same chunks (and keeps their data in its own cache) from one job to the next. Each
//! helper owns a cache-padded slot holding a state (`IDLE`, `POSTED`, `TAKEN`), the
//! job's closure and pointer, and its run; the caller sets every run, fills the
//! slots, marks them `POSTED`, wakes the helpers it sees asleep, and starts on its
//! first chunk, which it took before posting. A participant claims chunks from its
//! own run with `fetch_add` until it is exhausted; then the caller, and the helpers
//! when there are more chunks than participants, steal from the other runs the same
//! way, one chunk at a time; so a fast participant takes more, and a helper that wakes
//! late finds its run done.
//!
//! A hand-off between cores costs a cache line's trip each way
//! (docs/perf.md#what-a-hand-off-costs), so the path avoids what would add trips in
//! series:
//! the caller issues no locked instruction between its posts and its first chunk, a
//! helper finds everything it needs to start on the line it watched, and a helper
//! with one chunk reports back without reading the other runs first.
//!
//! When the caller runs out of chunks it retires each posted helper: a helper that has
//! not yet claimed its slot (`POSTED` → `IDLE` succeeds) is cancelled and never sees the
//! job; one that has (`TAKEN`) is waited for (spin, then yield) until it stores `IDLE`,
//! which is its last access to the job. Only then does `run` return and the job's stack
//! frame go away. This is what the `unsafe` here rests on: helpers reach the caller's
//! job and closure through a pointer and a reference whose lifetimes are erased, which
//! is sound because the caller does not return (nor unwind) before every helper that
//! took the job has left it.
//!
//! [`run_copy`] takes a `Copy` closure by value and writes its bytes (up to
//! [`COPY_MAX`]) into each helper's slot, on the lines after the one the helper
//! watches; the helper runs its chunks on that copy. A closure passed by reference
//! is read where it lies, on the caller's stack, and whatever it captures by
//! reference lies in another of the caller's frames, and so on: every one of those
//! lines freshly written by the caller for this job, so each a fetch from the
//! caller's core, and one after another, since each address is read from the line
//! before. The elementwise drivers pass `move` closures of slices and kernel
//! pointers down to the pool, so a helper finds everything in its slot: 16Ki
//! `add_into` on two threads went from 1.32-1.41x to 1.48-1.60x one thread's speed
//! (docs/design.md#the-pool).
//!
//! After a job a helper spins for a window ([`set_spin_micros`], default 200 µs) watching
//! its slot, then parks; back-to-back jobs thus skip the wake-up. Its first sleep is
//! short (100 µs), for the post that may land, unannounced, as it goes to sleep: the
//! caller reads whether it sleeps without a fence after posting. Nothing is allocated
//! per job: the descriptor lives on the caller's stack and the slots are static.
//!
//! # The `rayon` feature
//!
//! With the crate feature `rayon`, [`run`] hands its chunks to rayon's global pool
//! instead (the own helpers are never started). The drivers are unchanged: they cut
//! their work by [`current_num_threads`], whose default is then rayon's thread count,
//! and [`set_num_threads`] and [`with_threads`] still bound how many pieces they cut
//! (1 runs inline); the size of rayon's pool itself is rayon's (`RAYON_NUM_THREADS`
//! or a `ThreadPoolBuilder`). A run inside a job stays inline, and a panic reaches
//! the caller after the other chunks finish, as below. The spin window and the
//! helper counters concern only the own pool.
//!
//! # Robustness
//!
//! - A [`run`] from inside a job (on the caller or on a helper) runs inline on the
//!   calling thread, so nested parallel code cannot deadlock.
//! - The pool runs one job at a time. A [`run`] from another user thread while it is
//!   busy runs inline on that thread (a try-lock, never a wait): every caller gets
//!   correct results and no caller blocks on another.
//! - A panic in a chunk is caught on whichever participant ran it; the other chunks
//!   still run, and once all participants are done the first payload is re-raised on
//!   the caller with [`std::panic::resume_unwind`]. The pool stays usable.
//! - Helpers are detached threads: they never keep the process alive, and nothing
//!   joins them at exit.

use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::hint::spin_loop;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::thread;
use std::time::Instant;

use crossbeam_utils::sync::{Parker, Unparker};
use crossbeam_utils::CachePadded;

use crate::mem::ALIGN;

/// The largest pool size; [`set_num_threads`] clamps to it.
pub const MAX_THREADS: usize = 512;
const MAX_HELPERS: usize = MAX_THREADS - 1;

/// How many `spin_loop`s the caller spends waiting for a helper before it yields.
const WAIT_SPINS: u32 = 1 << 12;

/// How long a helper's first sleep lasts before it looks for a post that came with
/// no wake-up (`wait_for_post`).
const NAP: std::time::Duration = std::time::Duration::from_micros(100);

/// Default spin window of a helper after a job, in nanoseconds.
const DEFAULT_SPIN_NS: u64 = 200_000;

// Slot states.
const IDLE: u8 = 0;
const POSTED: u8 = 1;
const TAKEN: u8 = 2;

/// Pool size (participants, caller included); 0 until first read.
static THREADS: AtomicUsize = AtomicUsize::new(0);
/// How long a helper spins after a job before parking.
static SPIN_NS: AtomicU64 = AtomicU64::new(DEFAULT_SPIN_NS);
/// Held by the one caller whose job is on the pool.
static BUSY: AtomicBool = AtomicBool::new(false);
/// Helpers spawned so far; `SLOTS[..SPAWNED]` are set.
static SPAWNED: AtomicUsize = AtomicUsize::new(0);
/// Serialises spawning.
static SPAWN_LOCK: Mutex<()> = Mutex::new(());
/// Helper `i`'s slot, leaked once it is spawned.
static SLOTS: [AtomicPtr<CachePadded<Slot>>; MAX_HELPERS] =
    [const { AtomicPtr::new(ptr::null_mut()) }; MAX_HELPERS];

thread_local! {
    /// True while this thread runs chunks of a job (always true on helpers).
    static IN_JOB: Cell<bool> = const { Cell::new(false) };
    /// The [`with_threads`] cap of this thread; 0 when there is none.
    static LIMIT: Cell<usize> = const { Cell::new(0) };
}

/// A participant's run of chunks, `next..end`, claimed one at a time by its owner and
/// by thieves alike.
struct Run {
    next: AtomicUsize,
    end: AtomicUsize,
}

impl Run {
    const fn new() -> Self {
        Run {
            next: AtomicUsize::new(0),
            end: AtomicUsize::new(0),
        }
    }

    fn set(&self, start: usize, end: usize) {
        self.next.store(start, Ordering::Relaxed);
        self.end.store(end, Ordering::Relaxed);
    }

    /// Claims and runs chunks of this run until none is left, as participant `me`.
    fn drain(&self, body: Body<'_>, me: usize) {
        let end = self.end.load(Ordering::Relaxed);
        // A load first, so an exhausted run costs no write to its owner's line.
        while self.next.load(Ordering::Relaxed) < end {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= end {
                return;
            }
            body.call(i, Some(me));
        }
    }
}

/// The closure of a job, as [`run`] or [`run_indexed`] got it: kept as it came, so a
/// participant reaches the caller's closure in one step (a wrapper closure would be
/// one more line to fetch from the caller's cache before a helper's first chunk).
#[derive(Clone, Copy)]
enum Body<'a> {
    Plain(&'a (dyn Fn(usize) + Sync)),
    Indexed(&'a (dyn Fn(usize, Option<usize>) + Sync)),
    /// A helper's copy of a [`run_copy`] closure, in its slot's `payload`: `call`
    /// is `call_copy::<F>` and `data` points at the copy.
    Copied {
        call: unsafe fn(*const u8, usize),
        data: *const u8,
        _life: std::marker::PhantomData<&'a ()>,
    },
}

// SAFETY: `Plain` and `Indexed` hold `&(dyn Fn + Sync)`, which are `Send` and
// `Sync`. `Copied` holds the copy of a `run_copy` closure, whose type is `Send +
// Sync`, and its `call_copy`; calling it from another thread is what `Sync` allows.
unsafe impl Send for Body<'_> {}
// SAFETY: as above.
unsafe impl Sync for Body<'_> {}

impl Body<'_> {
    /// Runs chunk `i` as participant `me` (`None` on rayon's threads).
    #[inline]
    fn call(self, i: usize, me: Option<usize>) {
        match self {
            Body::Plain(f) => f(i),
            Body::Indexed(f) => f(i, me),
            // SAFETY: a `Copied` body is made only in `run_with`, with `call` the
            // `call_copy` of the very type whose bytes it copied to `data`, and it
            // is called only while that copy stands (the helper holds the job).
            Body::Copied { call, data, .. } => unsafe { call(data, i) },
        }
    }

    fn inline(self, chunks: usize) {
        let _in_job = InJob::enter();
        for i in 0..chunks {
            self.call(i, Some(0));
        }
    }
}

/// What a helper and the caller share about one helper: a cache line of state and
/// two of `payload`. The caller writes the job's fields here before it posts, so a
/// helper that takes the job finds the closure, its run and whether to steal on the
/// line it was watching (and a `run_copy` closure itself on the two after it).
#[repr(C)]
struct Slot {
    /// `IDLE`, `POSTED` (by the caller) or `TAKEN` (by the helper).
    state: AtomicU8,
    /// True while the helper is parked (or about to be): the caller wakes it only then.
    sleeping: AtomicBool,
    /// Whether the helper steals from the other runs after its own: only when the job
    /// has more chunks than participants. With one chunk each, the caller alone picks
    /// up a late helper's chunk, and a helper done with its own need not read the
    /// other runs' lines (each a fetch from another core) before it reports back.
    steal: AtomicBool,
    /// Set by the caller before it posts; read by the helper after it takes.
    job: AtomicPtr<Job>,
    /// The job's closure, written by the caller before it posts and read by the helper
    /// only between taking the job and going back to `IDLE` (see `Sync` below).
    body: UnsafeCell<Option<Body<'static>>>,
    /// The helper's own run of the current job.
    run: Run,
    unparker: Unparker,
    /// The bytes of a [`run_copy`] closure, written by the caller before it posts,
    /// under the same rule as `body`, on the two lines after the one the helper
    /// watches; the helper asks for them as soon as it sees the post.
    payload: UnsafeCell<Payload>,
}

/// Room for a closure of [`run_copy`]: [`COPY_MAX`] bytes on whole cache lines.
#[repr(C, align(64))]
struct Payload([std::mem::MaybeUninit<u8>; COPY_MAX]);

/// The largest closure [`run_copy`] copies to the helpers; a larger one (or one
/// aligned to more than a cache line) is run as [`run`] runs it.
pub const COPY_MAX: usize = 128;

// SAFETY: every field but `body` and `payload` is `Sync`. Those two are written only
// by the caller that holds `BUSY` (one writer), and only while the slot is `IDLE`,
// before its `Release` store of `POSTED`; the helper reads them only after its
// `Acquire` compare-exchange `POSTED` → `TAKEN` succeeded and before its `Release`
// store of `IDLE`, which the caller waits for (`Retire`) before it returns, let
// alone posts again. So a read never overlaps a write and always sees the write of
// its own job. (The helper's prefetch of `payload` before it takes the job reads
// nothing: a hint.)
unsafe impl Sync for Slot {}

/// A job: lives on the caller's stack for the duration of [`run`].
struct Job {
    /// Participants: the caller (0) and helpers `0..helpers` (1..=helpers).
    helpers: usize,
    /// The caller's own run.
    run: CachePadded<Run>,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl Job {
    fn run_of(&self, participant: usize) -> &Run {
        match participant {
            0 => &self.run,
            p => &slot(p - 1).run,
        }
    }

    /// Participant `me` runs chunk `first` if given (one it claimed before posting),
    /// drains its own run, then, if `steal`, steals from the others' in turn, catching
    /// panics (the first payload is kept) and going on after one. When it returns with
    /// `steal`, every chunk has been claimed (and those it claimed have run).
    fn work(&self, body: Body<'_>, me: usize, mut first: Option<usize>, steal: bool) {
        loop {
            let pass = || {
                if let Some(i) = first.take() {
                    body.call(i, Some(me));
                }
                if steal {
                    self.drain_all(body, me);
                } else {
                    self.run_of(me).drain(body, me);
                }
            };
            match catch_unwind(AssertUnwindSafe(pass)) {
                Ok(()) => return,
                Err(payload) => {
                    let mut first = self.panic.lock().unwrap_or_else(PoisonError::into_inner);
                    if first.is_none() {
                        *first = Some(payload);
                    }
                }
            }
        }
    }

    fn drain_all(&self, body: Body<'_>, me: usize) {
        let n = self.helpers + 1;
        // A run's counter only grows, so one pass over all runs claims every chunk.
        for k in 0..n {
            let p = if me + k < n { me + k } else { me + k - n };
            self.run_of(p).drain(body, me);
        }
    }
}

/// Marks the current thread as inside a job until dropped (restoring the old mark).
struct InJob(bool);

impl InJob {
    fn enter() -> Self {
        InJob(IN_JOB.replace(true))
    }
}

impl Drop for InJob {
    fn drop(&mut self) {
        IN_JOB.set(self.0);
    }
}

/// Releases the pool when dropped.
struct Busy;

impl Drop for Busy {
    fn drop(&mut self) {
        BUSY.store(false, Ordering::Release);
    }
}

/// Retires the first `posted` helpers when dropped: cancels those that have not taken
/// the job and waits until those that have are done with it. Dropped before the job,
/// also when unwinding, so no helper can see the job after it is gone.
struct Retire {
    posted: usize,
}

impl Drop for Retire {
    fn drop(&mut self) {
        for i in 0..self.posted {
            let s = slot(i);
            match s
                .state
                .compare_exchange(POSTED, IDLE, Ordering::Acquire, Ordering::Acquire)
            {
                // Cancelled: the helper never saw the job. Or never posted / done.
                Ok(_) | Err(IDLE) => {}
                Err(_) => {
                    // Spin (a helper is usually a chunk away), then yield: a helper
                    // may be preempted when threads outnumber cores.
                    let mut spins = 0u32;
                    while s.state.load(Ordering::Acquire) != IDLE {
                        if spins < WAIT_SPINS {
                            spins += 1;
                            spin_loop();
                        } else {
                            thread::yield_now();
                        }
                    }
                }
            }
        }
    }
}

/// Helper `i`'s slot; `i < SPAWNED`.
fn slot(i: usize) -> &'static Slot {
    let p = SLOTS[i].load(Ordering::Acquire);
    debug_assert!(!p.is_null());
    // SAFETY: slot pointers come from `Box::leak` in `spawn_helpers` and are stored
    // before `SPAWNED` covers their index; callers only ask for `i < SPAWNED`, which
    // they read with `Acquire`, so `p` is a valid, never-freed `Slot`.
    unsafe { &*p }
}

/// How many threads per core `NDSIMD_NUM_THREADS` may ask for.
///
/// The parallel kernels are compute- or bandwidth-bound and every participant owns a
/// run of chunks, so participants beyond the cores only time-slice: they add threads,
/// wake-ups and stragglers, never speed. Four per core still leaves room to
/// oversubscribe on purpose (to measure, or where a CPU quota hides cores the pool
/// could use), while a slip such as `100000` cannot start hundreds of threads.
///
/// ```
/// use ndsimd_kernels::pool::{num_threads, MAX_THREADS, MAX_THREADS_PER_CORE};
/// let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
/// // Whatever NDSIMD_NUM_THREADS says, the default pool stays within the cap.
/// assert!(num_threads() <= (MAX_THREADS_PER_CORE * cores).min(MAX_THREADS));
/// ```
pub const MAX_THREADS_PER_CORE: usize = 4;

/// The pool size from the environment, or the machine. Read once, so that its
/// warning is printed once.
fn default_threads() -> usize {
    static DEFAULT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *DEFAULT.get_or_init(|| {
        let cores = thread::available_parallelism().map_or(1, |n| n.get());
        let var = std::env::var_os("NDSIMD_NUM_THREADS");
        let (n, warning) = env_threads(var.as_deref(), cores);
        if let Some(w) = warning {
            // Not `eprintln!`, which panics when stderr is closed.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "ndsimd: {w}");
        }
        #[cfg(feature = "rayon")]
        let fallback = rayon::current_num_threads;
        #[cfg(not(feature = "rayon"))]
        let fallback = || cores;
        n.unwrap_or_else(fallback).clamp(1, MAX_THREADS)
    })
}

/// The pool size `NDSIMD_NUM_THREADS=value` asks for on a machine of `cores`
/// (`None`: unset or unusable, so the default), and the warning to print: for a value
/// that is not an integer ≥ 1 (then the default), or one above
/// `MAX_THREADS_PER_CORE * cores` or [`MAX_THREADS`] (then that cap). An empty value
/// counts as unset.
fn env_threads(value: Option<&std::ffi::OsStr>, cores: usize) -> (Option<usize>, Option<String>) {
    let Some(value) = value.filter(|v| !v.to_string_lossy().trim().is_empty()) else {
        return (None, None);
    };
    let cap = cores
        .saturating_mul(MAX_THREADS_PER_CORE)
        .clamp(1, MAX_THREADS);
    let too_many = |asked: &dyn std::fmt::Display| {
        let w = format!(
            "NDSIMD_NUM_THREADS={asked} is more than {MAX_THREADS_PER_CORE} threads per core \
             ({cores} cores here) or {MAX_THREADS} in all; using {cap}"
        );
        (Some(cap), Some(w))
    };
    let text = value.to_str().map(str::trim);
    match text.map(str::parse::<usize>) {
        Some(Ok(n)) if n > cap => too_many(&n),
        Some(Ok(n)) if n >= 1 => (Some(n), None),
        Some(Err(e)) if *e.kind() == std::num::IntErrorKind::PosOverflow => {
            too_many(&text.unwrap_or_default())
        }
        _ => {
            let w = format!(
                "ignoring NDSIMD_NUM_THREADS={value:?}: not a thread count (an integer from 1); \
                 using the default"
            );
            (None, Some(w))
        }
    }
}

/// The number of participants of the pool (the caller plus its helpers).
///
/// This is the pool's size as last set by [`set_num_threads`], or the default
/// (`NDSIMD_NUM_THREADS` when it is an integer ≥ 1, capped at
/// [`MAX_THREADS_PER_CORE`] times [`std::thread::available_parallelism`] and at
/// [`MAX_THREADS`], else `available_parallelism` itself; an unusable or capped value
/// is reported on stderr once). It ignores [`with_threads`]; see
/// [`current_num_threads`] for what a job started here would get.
pub fn num_threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => {
            let n = default_threads();
            match THREADS.compare_exchange(0, n, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => n,
                Err(set) => set,
            }
        }
        n => n,
    }
}

/// The most participants a [`run`] started on this thread now would use: 1 inside a
/// job (nested runs are inline), else [`num_threads`] capped by [`with_threads`].
/// (A run may still use fewer: when the pool is busy with another thread's job it
/// runs inline.) Parallel drivers size their splits with this.
pub fn current_num_threads() -> usize {
    if IN_JOB.get() {
        return 1;
    }
    let n = num_threads();
    match LIMIT.get() {
        0 => n,
        cap => n.min(cap),
    }
}

/// Sets the pool size (participants, the caller included) from now on; takes effect
/// at the next [`run`].
///
/// `n` is clamped to `1..=MAX_THREADS`: 0 means 1 (every job inline). Unlike
/// `NDSIMD_NUM_THREADS` it is not capped per core: a program's own call is deliberate
/// (tests oversubscribe small machines on purpose to exercise the pool), while the
/// environment is where slips come from. Growing spawns
/// the missing helpers at the next run; shrinking leaves the surplus helpers idle
/// (parked, never posted to) until the pool grows again. A job already running keeps
/// the participants it started with.
pub fn set_num_threads(n: usize) {
    THREADS.store(n.clamp(1, MAX_THREADS), Ordering::Relaxed);
}

/// Runs `f` with the jobs started on this thread capped at `n` participants (`n` = 0
/// is taken as 1; 1 runs every job inline on this thread). The innermost call wins;
/// the previous cap comes back when `f` returns or unwinds. The cap applies to this
/// thread only and never grows the pool beyond [`num_threads`].
pub fn with_threads<R>(n: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            LIMIT.set(self.0);
        }
    }
    let _restore = Restore(LIMIT.replace(n.max(1)));
    f()
}

/// Sets how long a helper spins (watching for the next job) after a job before it
/// parks, in microseconds; default 200. 0 parks at once. Spinning helpers notice a
/// change at once.
pub fn set_spin_micros(us: u64) {
    SPIN_NS.store(us.saturating_mul(1000), Ordering::Relaxed);
}

/// The spin window set by [`set_spin_micros`], in microseconds.
pub fn spin_micros() -> u64 {
    SPIN_NS.load(Ordering::Relaxed) / 1000
}

/// How many helper threads exist (spawned so far, idle ones included).
pub fn spawned_helpers() -> usize {
    SPAWNED.load(Ordering::Acquire)
}

/// How many helpers are parked right now (a racy snapshot, for tests and
/// diagnostics).
pub fn parked_helpers() -> usize {
    (0..spawned_helpers())
        .filter(|&i| slot(i).sleeping.load(Ordering::Relaxed))
        .count()
}

/// Calls `f(i)` exactly once for each `i` in `0..chunks`, spread over the calling
/// thread and the pool's helpers, and returns when all calls are done.
///
/// Chunks are claimed dynamically (an atomic counter), in increasing order of `i`
/// overall but with no promise about which thread runs which chunk; split the work
/// into at least [`current_num_threads`] chunks (a few times more evens out late
/// helpers). Runs inline on the calling thread when `chunks` ≤ 1, inside a job, under
/// `with_threads(1, ..)`, with a pool of 1, or while the pool runs another thread's
/// job.
///
/// # Panics
///
/// If `f` panics, the remaining chunks still run (on the pool; an inline run stops at
/// the panic), then the first panic's payload is resumed on the caller.
pub fn run(chunks: usize, f: &(dyn Fn(usize) + Sync)) {
    run_with(chunks, Body::Plain(f), None);
}

/// [`run`], with `f` also told which participant runs the chunk: `f(i, Some(p))`,
/// where `p` is 0 on the calling thread and `1..` on the helpers. `p` is smaller than
/// `current_num_threads().min(chunks)` (at least 1), and no two chunks running at
/// the same time get the same `p`; so a caller can hand each participant its own
/// part of a buffer it allocated once, instead of each thread growing its own the
/// first time the (dynamic) schedule gives it a chunk. With the `rayon` feature,
/// chunks that run on rayon's pool get `None` (rayon's threads have no such
/// numbering); a run that stays inline (one thread, or inside a job) still gets
/// `Some(0)` on the calling thread.
///
/// # Panics
///
/// As [`run`].
pub fn run_indexed(chunks: usize, f: &(dyn Fn(usize, Option<usize>) + Sync)) {
    run_with(chunks, Body::Indexed(f), None);
}

/// [`run`], for a closure that is `Copy`: its bytes (when they fit in [`COPY_MAX`])
/// travel to each helper in the slot the helper watches, so a helper reaches the
/// captured values without fetching them from the caller's stack. A closure that
/// captures references reaches the caller's stack through each of them, one line
/// after another, every line freshly written by the caller and so fetched from its
/// core (65-95 ns each: docs/perf.md#what-a-hand-off-costs); a `move`
/// closure holding the values (slices, lengths, function pointers) saves those
/// trips. Identical results to [`run`]; with the `rayon` feature, the same as
/// [`run`] (rayon's threads share the caller's closure).
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// let hits: Vec<AtomicUsize> = (0..8).map(|_| AtomicUsize::new(0)).collect();
/// let hits = &hits[..];
/// ndsimd_kernels::pool::run_copy(8, move |i| {
///     hits[i].fetch_add(1, Ordering::Relaxed);
/// });
/// assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
/// ```
///
/// # Panics
///
/// As [`run`].
pub fn run_copy<F>(chunks: usize, f: F)
where
    F: Fn(usize) + Send + Sync + Copy,
{
    let fits = std::mem::size_of::<F>() <= COPY_MAX && std::mem::align_of::<F>() <= ALIGN;
    let copy = fits.then_some(Carry {
        call: call_copy::<F>,
        from: &f as *const F as *const u8,
        size: std::mem::size_of::<F>(),
    });
    run_with(chunks, Body::Plain(&f), copy);
}

/// What [`run_copy`] copies to each helper's `payload`: `size` bytes from `from`,
/// called through `call`.
struct Carry {
    call: unsafe fn(*const u8, usize),
    from: *const u8,
    size: usize,
}

/// Calls the `F` at `data` on chunk `i`.
///
/// # Safety
///
/// `data` points at a valid `F`, aligned, that stays valid during the call.
unsafe fn call_copy<F: Fn(usize)>(data: *const u8, i: usize) {
    // SAFETY: the caller's promise.
    let f = unsafe { &*(data as *const F) };
    f(i)
}

fn run_with(chunks: usize, body: Body<'_>, copy: Option<Carry>) {
    let want = current_num_threads().min(chunks);
    // A run counter overshoots its end by at most one claim per participant and pass.
    if want <= 1 || chunks > usize::MAX / 2 {
        return body.inline(chunks);
    }
    if cfg!(feature = "rayon") {
        return run_rayon(chunks, body);
    }
    if BUSY
        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        return body.inline(chunks);
    }
    let _busy = Busy;
    let helpers = ensure_helpers(want - 1);
    if helpers == 0 {
        return body.inline(chunks);
    }

    // Participant p owns chunks bounds(p)..bounds(p + 1), the same ones from job to
    // job of the same shape, so each keeps its part of the data in its own cache.
    let n = helpers + 1;
    let bounds = |p: usize| chunks / n * p + p.min(chunks % n);
    let job = Job {
        helpers,
        run: CachePadded::new(Run::new()),
        panic: Mutex::new(None),
    };
    // The caller's first chunk (0) is its own before anyone can see the job: it starts
    // on it without an atomic claim, which would wait for the posts below to reach
    // the helpers' lines first (a locked instruction drains the store buffer).
    job.run.set(1, bounds(1));
    // Declared after `job`, so dropped (waiting for the helpers) before it.
    let retire = Retire { posted: helpers };
    // Every run is set before any helper is posted: a helper steals from the others.
    for i in 0..helpers {
        slot(i).run.set(bounds(i + 1), bounds(i + 2));
    }
    let steal = chunks > n;
    let job_ptr = &job as *const Job as *mut Job;
    // SAFETY: only the lifetime is erased (`Body` is two words and a tag either way).
    // Helpers call the closure only while they hold the job (`TAKEN`), and `Retire`
    // keeps this frame, and with it the borrow of `f`, alive until each is done.
    let erased = unsafe { std::mem::transmute::<Body<'_>, Body<'static>>(body) };
    for i in 0..helpers {
        let s = slot(i);
        s.job.store(job_ptr, Ordering::Relaxed);
        s.steal.store(steal, Ordering::Relaxed);
        let own = match &copy {
            Some(c) => {
                let data = s.payload.get() as *mut u8;
                // SAFETY: `payload` has room for `c.size` ≤ COPY_MAX bytes, aligned to a
                // line (≥ the closure's alignment, checked in `run_copy`), and no
                // helper reads it now (the slot is IDLE; see below). The bytes are a
                // `Copy` value's, so the copy is a valid value of its own.
                unsafe { ptr::copy_nonoverlapping(c.from, data, c.size) };
                Body::Copied {
                    call: c.call,
                    data,
                    _life: std::marker::PhantomData,
                }
            }
            None => erased,
        };
        // SAFETY: the slot is `IDLE` (the last `Retire` saw to it) and we hold `BUSY`,
        // so no helper reads `body` or `payload` now (see `impl Sync for Slot`).
        unsafe { *s.body.get() = Some(own) };
        s.state.store(POSTED, Ordering::Release);
        // A helper still in its spin window sees the post by itself; waking it would
        // cost a locked instruction here (waiting for these stores to reach its line)
        // before the caller starts its own chunk. This check races with a helper that
        // is just going to sleep (neither side fences): such a helper may miss the
        // wake-up, and it looks again after a short first sleep (`NAP` in
        // `wait_for_post`); meanwhile the caller steals its chunks, or cancels them.
        if s.sleeping.load(Ordering::Relaxed) {
            s.unparker.unpark();
        }
    }
    {
        let _in_job = InJob::enter();
        job.work(body, 0, Some(0), true);
    }
    drop(retire);
    let payload = job
        .panic
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    drop(_busy);
    if let Some(payload) = payload {
        resume_unwind(payload);
    }
}

/// The `rayon` feature's [`run`]: the chunks as tasks of rayon's global pool. Each
/// task marks its thread as inside a job, so the drivers see one thread there and
/// nested runs stay inline exactly as on the own pool. rayon re-raises a task's
/// panic on the caller once the other tasks are done.
#[cfg(feature = "rayon")]
fn run_rayon(chunks: usize, body: Body<'_>) {
    use rayon::prelude::*;
    (0..chunks).into_par_iter().with_max_len(1).for_each(|i| {
        let _in_job = InJob::enter();
        body.call(i, None);
    });
}

#[cfg(not(feature = "rayon"))]
fn run_rayon(chunks: usize, body: Body<'_>) {
    body.inline(chunks);
}

/// Makes sure `n` helpers exist (spawning the missing ones) and returns how many of
/// them can be used (fewer when the OS refuses a thread).
fn ensure_helpers(n: usize) -> usize {
    let have = SPAWNED.load(Ordering::Acquire);
    if have >= n {
        return n;
    }
    spawn_helpers(n)
}

#[cold]
fn spawn_helpers(n: usize) -> usize {
    let _lock = SPAWN_LOCK.lock().unwrap_or_else(PoisonError::into_inner);
    let mut have = SPAWNED.load(Ordering::Acquire);
    while have < n.min(MAX_HELPERS) {
        let parker = Parker::new();
        let slot: &'static CachePadded<Slot> = Box::leak(Box::new(CachePadded::new(Slot {
            state: AtomicU8::new(IDLE),
            sleeping: AtomicBool::new(false),
            steal: AtomicBool::new(false),
            job: AtomicPtr::new(ptr::null_mut()),
            body: UnsafeCell::new(None),
            run: Run::new(),
            unparker: parker.unparker().clone(),
            payload: UnsafeCell::new(Payload([std::mem::MaybeUninit::uninit(); COPY_MAX])),
        })));
        let index = have;
        let spawned = thread::Builder::new()
            .name(format!("ndsimd-worker-{}", have + 1))
            .spawn(move || helper_main(slot, index, parker));
        if spawned.is_err() {
            break; // `slot` stays leaked: a few bytes, once
        }
        SLOTS[have].store(
            slot as *const CachePadded<Slot> as *mut _,
            Ordering::Release,
        );
        have += 1;
        SPAWNED.store(have, Ordering::Release);
    }
    have.min(n)
}

fn helper_main(slot: &'static Slot, index: usize, parker: Parker) {
    IN_JOB.set(true);
    loop {
        wait_for_post(slot, &parker);
        // A `run_copy` closure is in `payload`: ask for its lines now, alongside the
        // claim below, rather than one by one as the closure reads them.
        let payload = slot.payload.get() as *const u8;
        for line in 0..COPY_MAX / ALIGN {
            crate::mem::prefetch::<true>(payload.wrapping_add(ALIGN * line));
        }
        if slot
            .state
            .compare_exchange(POSTED, TAKEN, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            continue; // cancelled: the caller finished the job alone
        }
        let job = slot.job.load(Ordering::Relaxed);
        // SAFETY: the caller stored `job` before posting (`Release`, paired with the
        // `Acquire` of our POSTED → TAKEN), it points at a `Job` on the caller's stack,
        // and the caller's `Retire` guard does not let that frame go (neither by return
        // nor by unwinding) until it sees this slot go back to IDLE, which we store only
        // after our last access to the job. The erased lifetime of `f` is covered the
        // same way: `f` outlives the job.
        let job = unsafe { &*job };
        // SAFETY: we hold the job (`TAKEN`), so the caller wrote `body` before posting
        // and does not touch it until we store `IDLE` (see `impl Sync for Slot`).
        let body = unsafe { *slot.body.get() };
        if let Some(body) = body {
            job.work(body, index + 1, None, slot.steal.load(Ordering::Relaxed));
        }
        slot.state.store(IDLE, Ordering::Release);
    }
}

/// Returns once the slot is `POSTED`: spins for the spin window, then parks.
fn wait_for_post(slot: &Slot, parker: &Parker) {
    let start = Instant::now();
    let mut n: u32 = 0;
    loop {
        if slot.state.load(Ordering::Acquire) == POSTED {
            return;
        }
        if n & 63 == 0 {
            if start.elapsed().as_nanos() as u64 >= SPIN_NS.load(Ordering::Relaxed) {
                break;
            }
            if n & 4095 == 0 && n != 0 {
                // Let a runnable user thread have this core now and then.
                thread::yield_now();
            }
        }
        n = n.wrapping_add(1);
        spin_loop();
    }
    loop {
        slot.sleeping.store(true, Ordering::Relaxed);
        // The caller stores POSTED and then wakes the helper only if it reads
        // `sleeping` as true, with no fence between (see `run_with`). A post whose
        // read of `sleeping` ran before our store reached it comes with no wake-up,
        // so the first sleep is short: after `NAP` we look again. A post after that
        // sees `sleeping` (stored long before), and the caller stores POSTED before it
        // unparks, while an unpark before `park` makes `park` return at once.
        if slot.state.load(Ordering::Acquire) != POSTED {
            parker.park_timeout(NAP);
        }
        if slot.state.load(Ordering::Acquire) != POSTED {
            parker.park();
        }
        slot.sleeping.store(false, Ordering::Relaxed);
        if slot.state.load(Ordering::Acquire) == POSTED {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The helper's state, its run and the job's fields fill one line, and a
    /// `run_copy` closure starts on the next (the doc of `Slot` says so).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn the_slot_is_a_line_of_state_then_the_payload() {
        assert_eq!(std::mem::offset_of!(Slot, payload), ALIGN);
        assert_eq!(std::mem::size_of::<Slot>(), ALIGN + COPY_MAX);
        assert_eq!(std::mem::align_of::<CachePadded<Slot>>() % ALIGN, 0);
        assert_eq!(std::mem::align_of::<Payload>(), ALIGN);
    }

    #[test]
    fn env_threads_parses_caps_and_warns() {
        use std::ffi::OsStr;
        let env = |v: &str, cores| env_threads(Some(OsStr::new(v)), cores);
        assert_eq!(env_threads(None, 2), (None, None));
        assert_eq!(env("", 2), (None, None));
        assert_eq!(env(" 3 ", 2), (Some(3), None));
        assert_eq!(env("8", 2), (Some(8), None));
        assert_eq!(env("1", 1), (Some(1), None));
        let capped = |asked: &str, cores: usize, cap: usize| {
            let w = format!(
                "NDSIMD_NUM_THREADS={asked} is more than 4 threads per core ({cores} cores \
                 here) or {MAX_THREADS} in all; using {cap}"
            );
            assert_eq!(env(asked, cores), (Some(cap), Some(w)), "{asked}");
        };
        capped("9", 2, 8);
        capped("100000", 2, 8);
        capped("99999999999999999999999", 2, 8);
        capped("600", 1000, MAX_THREADS);
        for bad in ["0", "-1", "abc", "2.5", "4 threads", "+"] {
            let w = format!(
                "ignoring NDSIMD_NUM_THREADS={:?}: not a thread count (an integer from 1); \
                 using the default",
                OsStr::new(bad)
            );
            assert_eq!(env(bad, 2), (None, Some(w)), "{bad}");
        }
    }
}
