//! Recycled grid storage: the double buffer of a simulation driven through a latch.
//!
//! A step reads the previous state and writes a new one; it cannot write into the state it
//! reads (a cell's neighbours must still hold their old values), so a hand-written loop keeps
//! two buffers and swaps them. Through a latch the same happens without the step owning
//! anything: when the last holder of an old state lets it go (the latch moved on and no
//! evaluator memo keeps it), the grid's storage comes back here, and the next step takes it
//! instead of allocating. After the first ticks a simulation allocates no grid storage.
//!
//! A taken buffer holds old numbers: every step writes every cell of what it takes (the
//! tests compare runs with and without recycling bit for bit). The pool keeps at most
//! [`MAX_KEPT`] buffers and [`MAX_KEPT_BYTES`] bytes; [`fresh_allocations`] and
//! [`recycled`] count what it did (and [`clones`] the grids copied), so tests can see that a latch loop stops allocating.

use kiln_core::op::OpError;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The most buffers the pool keeps.
pub const MAX_KEPT: usize = 16;
/// The most bytes the pool keeps.
pub const MAX_KEPT_BYTES: usize = 512 << 20;
/// Buffers shorter than this are not kept (allocating them costs less than the lock).
const MIN_LEN: usize = 256;

static POOL: Mutex<Vec<Vec<f32>>> = Mutex::new(Vec::new());
static ENABLED: AtomicBool = AtomicBool::new(true);
static FRESH: AtomicU64 = AtomicU64::new(0);
static RECYCLED: AtomicU64 = AtomicU64::new(0);
static CLONES: AtomicU64 = AtomicU64::new(0);

/// Turn recycling on or off for the whole process (on by default), for grids and particle
/// systems ([`crate::particle_pool`]) alike. Off, every buffer is allocated afresh and freed
/// when dropped; the bits computed are the same either way.
pub fn set_recycling(on: bool) {
    ENABLED.store(on, Ordering::SeqCst);
    if !on {
        if let Ok(mut p) = POOL.lock() {
            p.clear();
        }
        crate::particle_pool::clear();
    }
}

/// Whether recycling is on.
pub(crate) fn recycling() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// How many grid buffers were allocated afresh since the process started.
pub fn fresh_allocations() -> u64 {
    FRESH.load(Ordering::SeqCst)
}

/// How many grid buffers were taken from the pool since the process started.
pub fn recycled() -> u64 {
    RECYCLED.load(Ordering::SeqCst)
}

/// How many grids were cloned (a copy of all their floats) since the process started: a
/// simulation driven through a latch clones none.
pub fn clones() -> u64 {
    CLONES.load(Ordering::SeqCst)
}

/// Count a grid clone.
pub(crate) fn count_clone() {
    CLONES.fetch_add(1, Ordering::Relaxed);
}

/// A buffer of exactly `len` floats whose contents are unspecified (recycled or zeroed):
/// the caller writes every element. `what` names it in a memory error.
pub(crate) fn take(len: usize, what: impl Fn() -> String) -> Result<Vec<f32>, OpError> {
    if len >= MIN_LEN
        && ENABLED.load(Ordering::Relaxed)
        && let Ok(mut p) = POOL.lock()
        && let Some(i) = p.iter().position(|v| v.len() == len)
    {
        RECYCLED.fetch_add(1, Ordering::Relaxed);
        return Ok(p.swap_remove(i));
    }
    FRESH.fetch_add(1, Ordering::Relaxed);
    kiln_core::memory::try_filled(len, 0.0f32, what).map_err(|e| OpError::new(e.to_string()))
}

/// Give back the storage of a grid nobody holds any more.
pub(crate) fn give(v: Vec<f32>) {
    if v.len() < MIN_LEN || !ENABLED.load(Ordering::Relaxed) {
        return;
    }
    if let Ok(mut p) = POOL.lock() {
        let held: usize = p.iter().map(|b| b.len() * 4).sum();
        if p.len() < MAX_KEPT && held + v.len() * 4 <= MAX_KEPT_BYTES {
            p.push(v);
        }
    }
}
