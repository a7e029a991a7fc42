//! Recycled particle storage: the double buffer of a particle system driven through a latch.
//!
//! A step reads the previous system and writes the next one (the survivors, then the newly
//! emitted), so, as with grids ([`crate::pool`]), the storage of a system nobody holds any
//! more comes back here when it is dropped, and the next step writes into it instead of
//! allocating (and touching fresh pages). A taken buffer is empty, with room for at least
//! what was asked. The shelf keeps at most [`MAX_KEPT`] buffers and [`MAX_KEPT_BYTES`]
//! bytes; recycling follows [`crate::pool::set_recycling`], and [`fresh_allocations`] and
//! [`recycled`] count what it did, so tests can see that a latch loop stops allocating.

use crate::particles::Particle;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most buffers the shelf keeps.
pub const MAX_KEPT: usize = 8;
/// The most bytes the shelf keeps.
pub const MAX_KEPT_BYTES: usize = 512 << 20;
/// Buffers with room for fewer particles than this are not kept.
const MIN_CAPACITY: usize = 1024;

static SHELF: Mutex<Vec<Vec<Particle>>> = Mutex::new(Vec::new());
static FRESH: AtomicU64 = AtomicU64::new(0);
static RECYCLED: AtomicU64 = AtomicU64::new(0);

/// How many particle buffers were allocated afresh since the process started.
pub fn fresh_allocations() -> u64 {
    FRESH.load(Ordering::SeqCst)
}

/// How many particle buffers were taken from the shelf since the process started.
pub fn recycled() -> u64 {
    RECYCLED.load(Ordering::SeqCst)
}

fn bytes(v: &Vec<Particle>) -> usize {
    v.capacity() * std::mem::size_of::<Particle>()
}

/// An empty buffer with room for at least `capacity` particles: the smallest kept one that
/// is large enough, else a new one.
pub(crate) fn take(capacity: usize) -> Vec<Particle> {
    if capacity >= MIN_CAPACITY
        && crate::pool::recycling()
        && let Ok(mut shelf) = SHELF.lock()
        && let Some(i) = (0..shelf.len())
            .filter(|&i| shelf[i].capacity() >= capacity)
            .min_by_key(|&i| shelf[i].capacity())
    {
        RECYCLED.fetch_add(1, Ordering::Relaxed);
        let mut v = shelf.swap_remove(i);
        v.clear();
        return v;
    }
    FRESH.fetch_add(1, Ordering::Relaxed);
    Vec::with_capacity(capacity)
}

/// Give back the storage of a system nobody holds any more.
pub(crate) fn give(v: Vec<Particle>) {
    if v.capacity() < MIN_CAPACITY || !crate::pool::recycling() {
        return;
    }
    if let Ok(mut shelf) = SHELF.lock() {
        let held: usize = shelf.iter().map(bytes).sum();
        if shelf.len() < MAX_KEPT && held + bytes(&v) <= MAX_KEPT_BYTES {
            shelf.push(v);
        }
    }
}

/// Drop every kept buffer (when recycling is turned off).
pub(crate) fn clear() {
    if let Ok(mut shelf) = SHELF.lock() {
        shelf.clear();
    }
}
