//! A counting global allocator: the fuzz crate and tests/fuzz_corpora.rs install it
//! (`#[global_allocator] static A: Counting = Counting;`) to hold every target to
//! [`allowance`]: a reader may not allocate more than the input could justify.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting the bytes live and their peak since [`reset_peak`].
pub struct Counting;

// SAFETY: every call is passed to `System` unchanged; only counters are updated beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is the one `System.alloc` needs.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (every allocation above is).
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `dealloc`, and `new_size` is the caller's to check.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        p
    }
}

fn grew(size: usize) {
    let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

/// Starts a new peak from the bytes live now; returns them.
pub fn reset_peak() -> usize {
    let live = LIVE.load(Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    live
}

/// The most bytes live since [`reset_peak`].
pub fn peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// The fixed part of the bound: the buffers a reader keeps whatever its input (a 1 MiB read
/// chunk of a table file, a few tables of names).
pub const FIXED: usize = 1 << 20;

/// The most a target may allocate on an input of `len` bytes: twice the input and [`FIXED`].
pub fn allowance(len: usize) -> usize {
    2 * len + FIXED
}

/// Runs `target` on `bytes` and panics if it allocated more than [`allowance`] beyond what
/// was live before (meaningful only when [`Counting`] is the global allocator).
pub fn run_bounded(target: fn(&[u8]), bytes: &[u8]) {
    let before = reset_peak();
    target(bytes);
    let used = peak().saturating_sub(before);
    assert!(
        used <= allowance(bytes.len()),
        "allocated {used} bytes at the peak on an input of {} bytes (allowed {})",
        bytes.len(),
        allowance(bytes.len())
    );
}
