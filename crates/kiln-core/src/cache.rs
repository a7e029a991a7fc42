//! The content-addressed store: results by content key, shared by evaluators and sessions,
//! kept under a [`CachePolicy`] and an optional byte budget, with pinning, a memory report
//! and an optional persistent [`Backing`].
//!
//! A content key names an op, its version, params, constants, the context it reads and the
//! keys of its inputs — never a node id or a graph — so two graphs (or two evaluators) that
//! compute the same thing find each other's results here: the same op on the same inputs is
//! cooked once per process (and, with a backing, once per cache directory).
//!
//! Only results that are sound to reuse ever enter: evaluators never insert a failed,
//! cancelled or error-tainted value, nor a volatile node's.
//!
//! With a budget, the bytes held never exceed it: an insert evicts what the policy offers
//! (never a pinned entry) until the new entry fits, and a value that cannot fit is not kept.
//! Lowering the budget shrinks the store at once; only entries pinned at that moment can hold
//! it above the new budget, until they are unpinned.

use crate::key::{Key, KeyMap};
use crate::value::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// What a policy knows of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryInfo {
    /// Bytes held ([`Value::byte_size`]).
    pub bytes: usize,
    /// Time the result took to compute (zero when unknown, e.g. loaded from a backing).
    pub cost: Duration,
    /// The store's generation when the entry was inserted or last read.
    pub generation: u64,
}

/// Decides which entries leave the store, and in what order.
///
/// The store calls the hooks under its lock; `victim` must return a key the store holds and
/// that `pinned` says is not pinned, or `None` when the policy evicts nothing (then an
/// insert that does not fit the budget is refused).
pub trait CachePolicy: Send {
    /// The policy's name, for reports.
    fn name(&self) -> &'static str;
    /// An entry was added. The default ignores it.
    fn inserted(&mut self, _key: Key, _info: &EntryInfo) {}
    /// An entry was read. The default ignores it.
    fn touched(&mut self, _key: Key, _info: &EntryInfo) {}
    /// An entry left (evicted, or removed by the caller). The default ignores it.
    fn removed(&mut self, _key: Key) {}
    /// The next entry to evict to make room, skipping pinned ones. The default offers none.
    fn victim(&mut self, _pinned: &dyn Fn(Key) -> bool) -> Option<Key> {
        None
    }
    /// A new generation began ([`Store::next_generation`]): the entries to drop now.
    fn expired(&mut self, _generation: u64) -> Vec<Key> {
        vec![]
    }
}

/// Never evicts: everything computed stays (short-lived runs, batch export). With a budget,
/// what does not fit is not kept.
#[derive(Clone, Copy, Debug, Default)]
pub struct KeepAll;

impl CachePolicy for KeepAll {
    fn name(&self) -> &'static str {
        "keep-all"
    }
}

/// Evicts only on the caller's explicit [`Store::evict`] or [`Store::clear`]; with a budget,
/// what does not fit is not kept.
#[derive(Clone, Copy, Debug, Default)]
pub struct Manual;

impl CachePolicy for Manual {
    fn name(&self) -> &'static str {
        "manual"
    }
}

/// Keys ordered by a rank, ties broken by the order they were placed in: the index behind
/// the LRU and generational policies.
#[derive(Debug, Default)]
struct Ranked {
    tick: u64,
    order: BTreeMap<(u64, u64), Key>,
    at: HashMap<Key, (u64, u64)>,
}

impl Ranked {
    /// (Re)place `key` at `rank`, after every key already at that rank.
    fn place(&mut self, key: Key, rank: u64) {
        self.remove(key);
        self.tick += 1;
        let slot = (rank, self.tick);
        self.order.insert(slot, key);
        self.at.insert(key, slot);
    }
    fn remove(&mut self, key: Key) {
        if let Some(old) = self.at.remove(&key) {
            self.order.remove(&old);
        }
    }
    /// The lowest-ranked key that is not pinned, with its rank.
    fn first(&self, pinned: &dyn Fn(Key) -> bool) -> Option<(u64, Key)> {
        self.order
            .iter()
            .find(|(_, k)| !pinned(**k))
            .map(|(&(rank, _), &k)| (rank, k))
    }
    /// The keys ranked below `rank`.
    fn below(&self, rank: u64) -> Vec<Key> {
        self.order.range(..(rank, 0)).map(|(_, &k)| k).collect()
    }
}

/// Least recently used first. Weighted by cost, it is GreedyDual-Size: an entry's priority
/// is the running floor plus its recompute cost per byte, so cheap-to-recompute, large
/// entries go first and expensive small ones stay; every eviction raises the floor to the
/// evicted priority, which ages entries not read since.
#[derive(Debug, Default)]
pub struct Lru {
    weighted: bool,
    floor: f64,
    /// By priority (its bits: priorities are non-negative, so the bits order them), then
    /// recency; unweighted, every priority is 0 and recency alone orders.
    ranked: Ranked,
}

impl Lru {
    /// Plain least-recently-used.
    pub fn new() -> Self {
        Lru::default()
    }
    /// Weighted by the measured cost to recompute (see the type docs).
    pub fn weighted() -> Self {
        Lru {
            weighted: true,
            ..Lru::default()
        }
    }
    fn place(&mut self, key: Key, info: &EntryInfo) {
        let prio = if self.weighted {
            self.floor + info.cost.as_nanos() as f64 / info.bytes.max(1) as f64
        } else {
            0.0
        };
        self.ranked.place(key, prio.max(0.0).to_bits());
    }
}

impl CachePolicy for Lru {
    fn name(&self) -> &'static str {
        if self.weighted { "lru-weighted" } else { "lru" }
    }
    fn inserted(&mut self, key: Key, info: &EntryInfo) {
        self.place(key, info);
    }
    fn touched(&mut self, key: Key, info: &EntryInfo) {
        self.place(key, info);
    }
    fn removed(&mut self, key: Key) {
        self.ranked.remove(key);
    }
    fn victim(&mut self, pinned: &dyn Fn(Key) -> bool) -> Option<Key> {
        let (prio, key) = self.ranked.first(pinned)?;
        if self.weighted {
            self.floor = self.floor.max(f64::from_bits(prio));
        }
        Some(key)
    }
}

/// Keeps what recent generations used: an entry not read for `keep` generations (a
/// generation is typically a frame or a request: see [`Store::next_generation`]) is dropped
/// when the next one begins, and under budget pressure the oldest generation goes first.
#[derive(Debug)]
pub struct Generational {
    keep: u64,
    /// By the generation of last use, then recency.
    ranked: Ranked,
}

impl Generational {
    /// Keep entries used within the last `keep` generations (at least 1).
    pub fn new(keep: u64) -> Self {
        Generational {
            keep: keep.max(1),
            ranked: Ranked::default(),
        }
    }
}

impl CachePolicy for Generational {
    fn name(&self) -> &'static str {
        "generational"
    }
    fn inserted(&mut self, key: Key, info: &EntryInfo) {
        self.ranked.place(key, info.generation);
    }
    fn touched(&mut self, key: Key, info: &EntryInfo) {
        self.ranked.place(key, info.generation);
    }
    fn removed(&mut self, key: Key) {
        self.ranked.remove(key);
    }
    fn victim(&mut self, pinned: &dyn Fn(Key) -> bool) -> Option<Key> {
        self.ranked.first(pinned).map(|(_, k)| k)
    }
    fn expired(&mut self, generation: u64) -> Vec<Key> {
        // Used within the last `keep` generations: this one and the `keep - 1` before it.
        self.ranked
            .below((generation + 1).saturating_sub(self.keep))
    }
}

/// A persistent layer under the store (for example a cache directory: see `kiln_io`).
/// Loading a damaged entry must return `None` (and may remove it); saving is best effort.
pub trait Backing: Send + Sync {
    /// The value stored under `key`, if any intact one is.
    fn load(&self, key: Key) -> Option<Value>;
    /// Keep `value` under `key`, if its type can be stored. Failures are the backing's to
    /// count; they never fail an evaluation.
    fn save(&self, key: Key, value: &Value);
    /// A short description for reports (e.g. the directory).
    fn describe(&self) -> String;
}

/// Counters of a store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoreStats {
    /// Reads answered from memory.
    pub hits: u64,
    /// Reads answered by the backing.
    pub backing_hits: u64,
    /// Reads answered by neither.
    pub misses: u64,
    /// Entries added.
    pub inserts: u64,
    /// Entries the policy evicted (budget or generation).
    pub evictions: u64,
    /// Values not kept because they could not fit the budget.
    pub refused: u64,
}

/// One line of a [`MemoryReport`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryPart {
    /// What holds the memory (`store`, `memo`, `plan`, `latch state`, ...).
    pub part: String,
    /// Entries (values, nodes) held.
    pub entries: usize,
    /// Bytes held (values by [`Value::byte_size`], structures approximately).
    pub bytes: usize,
}

/// Memory held, by part, with totals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryReport {
    /// The parts, in the order they were added.
    pub parts: Vec<MemoryPart>,
}

impl MemoryReport {
    /// Add a part.
    pub fn add(&mut self, part: impl Into<String>, entries: usize, bytes: usize) {
        self.parts.push(MemoryPart {
            part: part.into(),
            entries,
            bytes,
        });
    }
    /// Append another report's parts.
    pub fn extend(&mut self, other: MemoryReport) {
        self.parts.extend(other.parts);
    }
    /// Bytes over every part.
    pub fn total_bytes(&self) -> usize {
        self.parts.iter().map(|p| p.bytes).sum()
    }
    /// Entries over every part.
    pub fn total_entries(&self) -> usize {
        self.parts.iter().map(|p| p.entries).sum()
    }
}

impl std::fmt::Display for MemoryReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for p in &self.parts {
            writeln!(
                f,
                "{:<24} {:>10} entries {:>14} bytes",
                p.part, p.entries, p.bytes
            )?;
        }
        write!(
            f,
            "{:<24} {:>10} entries {:>14} bytes",
            "total",
            self.total_entries(),
            self.total_bytes()
        )
    }
}

struct Entry {
    value: Value,
    info: EntryInfo,
    /// Insertion order, for shrinking under a policy that evicts nothing itself.
    seq: u64,
}

struct Inner {
    map: KeyMap<Entry>,
    policy: Box<dyn CachePolicy>,
    budget: Option<usize>,
    bytes: usize,
    pins: HashMap<Key, u32>,
    generation: u64,
    seq: u64,
    stats: StoreStats,
    backing: Option<Arc<dyn Backing>>,
}

impl Inner {
    fn remove(&mut self, key: Key) -> bool {
        match self.map.remove(&key) {
            Some(e) => {
                self.bytes -= e.info.bytes;
                self.policy.removed(key);
                true
            }
            None => false,
        }
    }

    /// Bring the bytes held within the budget after it was lowered or a pin released: the
    /// policy's victims first, then (for a policy that offers none) the oldest unpinned
    /// entries. Only pinned entries can keep it above.
    fn shrink(&mut self) {
        let Some(budget) = self.budget else { return };
        if self.make_room(0) {
            return;
        }
        while self.bytes > budget {
            let pins = &self.pins;
            let oldest = self
                .map
                .iter()
                .filter(|(k, _)| !pins.contains_key(*k))
                .min_by_key(|(_, e)| e.seq)
                .map(|(k, _)| *k);
            let Some(k) = oldest else { break };
            self.remove(k);
            self.stats.evictions += 1;
        }
    }

    /// Evict until `need` more bytes fit the budget; `false` if the policy cannot.
    fn make_room(&mut self, need: usize) -> bool {
        let Some(budget) = self.budget else {
            return true;
        };
        if need > budget {
            return false;
        }
        while self.bytes + need > budget {
            let pins = &self.pins;
            let Some(k) = self.policy.victim(&|k| pins.contains_key(&k)) else {
                return false;
            };
            if !self.remove(k) {
                // The policy named a key the store does not hold: forget it and stop.
                self.policy.removed(k);
                return false;
            }
            self.stats.evictions += 1;
        }
        true
    }

    fn put(&mut self, key: Key, value: Value, cost: Duration) -> Put {
        let bytes = value.byte_size();
        if let Some(old) = self.map.get(&key) {
            // Same key, same content: refresh the recency only.
            let info = old.info;
            self.policy.touched(key, &info);
            return Put::Held;
        }
        if !self.make_room(bytes) {
            self.stats.refused += 1;
            return Put::Refused;
        }
        let info = EntryInfo {
            bytes,
            cost,
            generation: self.generation,
        };
        self.policy.inserted(key, &info);
        self.seq += 1;
        let seq = self.seq;
        self.map.insert(key, Entry { value, info, seq });
        self.bytes += bytes;
        self.stats.inserts += 1;
        Put::Added
    }
}

/// What an insert did.
#[derive(PartialEq, Eq)]
enum Put {
    Added,
    /// Already held (same key, same content).
    Held,
    /// Did not fit the budget.
    Refused,
}

/// The content-addressed store (see the module docs). Share it with `Arc`.
pub struct Store {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let g = self.lock();
        f.debug_struct("Store")
            .field("policy", &g.policy.name())
            .field("entries", &g.map.len())
            .field("bytes", &g.bytes)
            .field("budget", &g.budget)
            .finish()
    }
}

impl Store {
    /// A store under `policy`, with no budget.
    pub fn new(policy: impl CachePolicy + 'static) -> Store {
        Store {
            inner: Mutex::new(Inner {
                map: KeyMap::default(),
                policy: Box::new(policy),
                budget: None,
                bytes: 0,
                pins: HashMap::new(),
                generation: 0,
                seq: 0,
                stats: StoreStats::default(),
                backing: None,
            }),
        }
    }

    /// Hold at most `bytes` (evicting now if needed; pinned entries stay).
    pub fn with_budget(self, bytes: usize) -> Store {
        self.set_budget(Some(bytes));
        self
    }

    /// Read and write through `backing` (a persistent cache).
    pub fn with_backing(self, backing: Arc<dyn Backing>) -> Store {
        self.lock().backing = Some(backing);
        self
    }

    /// Wrap in an `Arc` to share.
    pub fn shared(self) -> Arc<Store> {
        Arc::new(self)
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic under the lock (in a policy) leaves consistent-enough data: keep going.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Change the budget; entries are evicted (unpinned ones, by the policy) to fit it.
    ///
    /// Lowering the budget is an explicit request to shrink: what the policy does not offer
    /// to evict (keep-all and manual offer nothing) goes oldest first. Pinned entries stay,
    /// so only they can hold the store above the new budget.
    pub fn set_budget(&self, bytes: Option<usize>) {
        let mut g = self.lock();
        g.budget = bytes;
        g.shrink();
    }

    /// The budget, if any.
    pub fn budget(&self) -> Option<usize> {
        self.lock().budget
    }

    /// The value under `key`: from memory, else from the backing (then kept in memory too).
    pub fn get(&self, key: Key) -> Option<Value> {
        let mut g = self.lock();
        let generation = g.generation;
        if let Some(e) = g.map.get_mut(&key) {
            e.info.generation = generation;
            let (v, info) = (e.value.clone(), e.info);
            g.policy.touched(key, &info);
            g.stats.hits += 1;
            return Some(v);
        }
        let backing = g.backing.clone();
        drop(g);
        let found = backing.and_then(|b| b.load(key));
        let mut g = self.lock();
        match found {
            Some(v) => {
                g.stats.backing_hits += 1;
                // Its original cost is unknown: zero (a weighted LRU evicts it early).
                g.put(key, v.clone(), Duration::ZERO);
                Some(v)
            }
            None => {
                g.stats.misses += 1;
                None
            }
        }
    }

    /// The values of a node's `ports` outputs (under `key.port(p)`, see [`Key::port`]) into
    /// `out`, replacing what it held; `false` (and `out` unspecified) unless every one is
    /// held. Allocates nothing when `out` has room.
    pub fn get_ports(&self, key: Key, ports: usize, out: &mut Vec<Value>) -> bool {
        out.clear();
        for p in 0..ports {
            match self.get(key.port(p)) {
                Some(v) => out.push(v),
                None => return false,
            }
        }
        true
    }

    /// Whether `key` is held in memory (the backing is not asked).
    pub fn contains(&self, key: Key) -> bool {
        self.lock().map.contains_key(&key)
    }

    /// Keep `value` under `key`, computed in `cost`; a new entry is also saved to the
    /// backing (even when it does not fit the memory budget). Returns whether it is held in
    /// memory (false when it cannot fit the budget).
    pub fn insert(&self, key: Key, value: Value, cost: Duration) -> bool {
        let mut g = self.lock();
        let backing = g.backing.clone();
        let put = g.put(key, value.clone(), cost);
        drop(g);
        if put != Put::Held
            && let Some(b) = backing
        {
            b.save(key, &value);
        }
        put != Put::Refused
    }

    /// Remove `key` (pinned or not). Returns whether it was held.
    pub fn evict(&self, key: Key) -> bool {
        let mut g = self.lock();
        g.pins.remove(&key);
        g.remove(key)
    }

    /// Remove every entry, pinned or not (the backing is untouched).
    pub fn clear(&self) {
        let mut g = self.lock();
        let keys: Vec<Key> = g.map.keys().copied().collect();
        for k in keys {
            g.remove(k);
        }
        g.pins.clear();
    }

    /// Pin `key`: it is never evicted until unpinned as many times. Pinning a key the store
    /// does not hold does nothing and returns false.
    pub fn pin(&self, key: Key) -> bool {
        let mut g = self.lock();
        if !g.map.contains_key(&key) {
            return false;
        }
        *g.pins.entry(key).or_insert(0) += 1;
        true
    }

    /// Undo one [`pin`](Self::pin); once the last pin goes, the entry may be evicted (at
    /// once, if the store is over its budget).
    pub fn unpin(&self, key: Key) {
        let mut g = self.lock();
        if let Some(c) = g.pins.get_mut(&key) {
            *c -= 1;
            if *c == 0 {
                g.pins.remove(&key);
                // What the pin held above a lowered budget may go now.
                g.shrink();
            }
        }
    }

    /// Whether `key` is pinned.
    pub fn is_pinned(&self, key: Key) -> bool {
        self.lock().pins.contains_key(&key)
    }

    /// Begin a new generation (a frame, a request): the policy may drop entries it deems
    /// expired (pinned ones stay). Returns the new generation.
    pub fn next_generation(&self) -> u64 {
        let mut g = self.lock();
        g.generation += 1;
        let generation = g.generation;
        let expired = g.policy.expired(generation);
        for k in expired {
            if !g.pins.contains_key(&k) && g.remove(k) {
                g.stats.evictions += 1;
            }
        }
        generation
    }

    /// Entries held in memory.
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    /// Whether nothing is held in memory.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held in memory.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    /// Bytes held by pinned entries.
    pub fn pinned_bytes(&self) -> usize {
        let g = self.lock();
        g.pins
            .keys()
            .filter_map(|k| g.map.get(k))
            .map(|e| e.info.bytes)
            .sum()
    }

    /// The counters.
    pub fn stats(&self) -> StoreStats {
        self.lock().stats
    }

    /// The policy's name.
    pub fn policy_name(&self) -> &'static str {
        self.lock().policy.name()
    }

    /// The keys held, in no particular order.
    pub fn keys(&self) -> Vec<Key> {
        self.lock().map.keys().copied().collect()
    }

    /// The store's part of a memory report (entries and pinned entries).
    pub fn memory_report(&self) -> MemoryReport {
        let g = self.lock();
        let mut r = MemoryReport::default();
        let pinned: usize = g
            .pins
            .keys()
            .filter_map(|k| g.map.get(k))
            .map(|e| e.info.bytes)
            .sum();
        r.add(
            format!("store ({})", g.policy.name()),
            g.map.len() - g.pins.len().min(g.map.len()),
            g.bytes - pinned,
        );
        r.add("store, pinned", g.pins.len(), pinned);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(i: u128) -> Key {
        Key(i)
    }
    fn big(n: usize) -> Value {
        Value::Str(Arc::from("x".repeat(n).as_str()))
    }

    #[test]
    fn lru_evicts_the_least_recently_used_within_budget() {
        let one = big(100).byte_size();
        let s = Store::new(Lru::new()).with_budget(3 * one);
        for i in 0..3 {
            assert!(s.insert(k(i), big(100), Duration::ZERO));
        }
        s.get(k(0)); // 1 is now the oldest
        s.insert(k(3), big(100), Duration::ZERO);
        assert!(s.contains(k(0)) && !s.contains(k(1)) && s.contains(k(2)) && s.contains(k(3)));
        assert!(s.bytes() <= 3 * one);
        assert_eq!(s.stats().evictions, 1);
    }
}
