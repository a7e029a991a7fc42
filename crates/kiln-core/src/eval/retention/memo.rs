//! Retention by content key: results kept under their keys, in the evaluator's own map or in
//! a shared [`Store`]. The pull walk keeps everything it computes here; the schedule walk
//! consults it when a store is set. A failed, tainted or volatile result is never kept (the
//! walks decide; this only stores what it is given). The own map may have a byte budget: once
//! more was put in it, it is emptied between requests.

use crate::cache::Store;
use crate::key::{Key, KeyMap};
use crate::validate::value_fits;
use crate::value::{Value, ValueType};
use std::sync::Arc;
use std::time::Duration;

/// Where results are kept by key.
#[derive(Default)]
pub(crate) struct Memo {
    /// The evaluator's own results (used when there is no store).
    pub(crate) own: KeyMap<Value>,
    /// A read-only map consulted after `own` (a preemptive worker reads its caller's).
    pub(crate) base: Option<Arc<KeyMap<Value>>>,
    /// The shared store: read and written instead of `own`.
    pub(crate) store: Option<Arc<Store>>,
    /// A store read but never written (a preemptive worker must not write the shared one).
    pub(crate) read_store: Option<Arc<Store>>,
    /// The most bytes `own` may hold before [`Memo::trim`] empties it.
    pub(crate) budget: Option<usize>,
    /// Bytes put into `own` since it was last emptied (an upper bound of what it holds).
    kept: usize,
    scratch: Vec<Value>,
}

impl Memo {
    /// Fill `out` (one slot per output of a node, of the declared `types`) with the results
    /// kept under `key`, if all of them are; returns whether they were. What comes from a
    /// store (which may have read it from a disk) must also be of the declared types: a
    /// value of another type under the key is not taken (the node runs instead).
    #[inline]
    pub(crate) fn fetch(&mut self, key: Key, out: &mut [Value], types: &[ValueType]) -> bool {
        let n = out.len();
        if n == 1 {
            if let Some(val) = self.own.get(&key) {
                out[0] = val.clone();
                return true;
            }
        } else if (0..n).all(|p| self.own.contains_key(&key.port(p))) {
            for (p, o) in out.iter_mut().enumerate() {
                if let Some(val) = self.own.get(&key.port(p)) {
                    *o = val.clone();
                }
            }
            return true;
        }
        if let Some(base) = &self.base
            && (0..n).all(|p| base.contains_key(&key.port(p)))
        {
            for (p, o) in out.iter_mut().enumerate() {
                if let Some(val) = base.get(&key.port(p)) {
                    *o = val.clone();
                }
            }
            return true;
        }
        if let Some(store) = self.store.as_ref().or(self.read_store.as_ref()) {
            let found = store.get_ports(key, n, &mut self.scratch) && fits(types, &self.scratch);
            // Taken, or cleared so no stale value reaches a run's output slots.
            for (o, val) in out.iter_mut().zip(self.scratch.drain(..)) {
                if found {
                    *o = val;
                }
            }
            return found;
        }
        false
    }

    /// Keep `val` as output `port` of the node keyed `key`, computed in `cost`.
    #[inline]
    pub(crate) fn keep(&mut self, key: Key, port: usize, val: &Value, cost: Duration) {
        match &self.store {
            Some(store) => {
                store.insert(key.port(port), val.clone(), cost);
            }
            None => {
                self.kept = self.kept.saturating_add(val.byte_size());
                self.own.insert(key.port(port), val.clone());
            }
        }
    }

    /// Let go of output `port` of the node keyed `key` from the evaluator's own map (a
    /// store keeps what its policy keeps).
    pub(crate) fn forget(&mut self, key: Key, port: usize) {
        if self.store.is_none()
            && let Some(v) = self.own.remove(&key.port(port))
        {
            self.kept = self.kept.saturating_sub(v.byte_size());
        }
    }

    /// Empty the evaluator's own map if what was put in it passes the budget.
    pub(crate) fn trim(&mut self) {
        if self.budget.is_some_and(|b| self.kept > b) {
            self.own.clear();
            self.kept = 0;
        }
    }

    /// Bytes held in the evaluator's own map.
    pub(crate) fn own_bytes(&self) -> usize {
        self.own.values().map(Value::byte_size).sum()
    }
}

/// Whether each of `vals` is of the declared output type beside it (a value read back from a
/// store is checked before it stands for a node's result).
pub(crate) fn fits(types: &[ValueType], vals: &[Value]) -> bool {
    types.len() == vals.len() && types.iter().zip(vals).all(|(&t, v)| value_fits(t, v))
}
