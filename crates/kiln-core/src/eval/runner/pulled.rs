//! Which lazy inputs each node has pulled so far ([`PullSets`], any number of inputs): the
//! state of the lazy-input protocol that the walks keep and the runner reads when it gathers
//! a lazy node's inputs.
//!
//! A node is on a walk's stack at most once at a time (the graph is acyclic), so the bits
//! live per node rather than per stack frame and frames stay small and `Copy`.

use crate::plan::Plan;

/// Per lazy node: one bit per input, set once the input is pulled.
#[derive(Default, Clone)]
pub(crate) struct PullSets {
    /// Per node, the start of its words in `words` (one more entry than nodes); a node
    /// without lazy inputs has an empty range.
    off: Vec<u32>,
    words: Vec<u64>,
}

impl PullSets {
    /// Room for every lazy node of `plan`, nothing pulled.
    pub(crate) fn new(plan: &Plan) -> Self {
        let mut off = Vec::with_capacity(plan.len() + 1);
        let mut len = 0u32;
        off.push(0);
        for v in 0..plan.len() {
            if plan.is_lazy(v) {
                len += plan.inputs(v).len().div_ceil(64).max(1) as u32;
            }
            off.push(len);
        }
        PullSets {
            off,
            words: vec![0; len as usize],
        }
    }

    #[inline]
    fn range(&self, v: usize) -> std::ops::Range<usize> {
        match (self.off.get(v), self.off.get(v + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// The bits of node `v` (empty for a node without lazy inputs).
    #[inline]
    pub(crate) fn get(&self, v: usize) -> &[u64] {
        let r = self.range(v);
        &self.words[r]
    }

    /// Forget what node `v` pulled.
    #[inline]
    pub(crate) fn clear(&mut self, v: usize) {
        let r = self.range(v);
        self.words[r].fill(0);
    }

    /// Record that node `v` pulled input `i`.
    #[inline]
    pub(crate) fn set(&mut self, v: usize, i: usize) {
        let r = self.range(v);
        if let Some(w) = self.words[r].get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
}

/// Whether input `i` is set in `bits`.
#[inline]
pub(crate) fn is_pulled(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

/// One number standing for a set of pulled inputs: the set itself when it fits in a word,
/// else its hash (incremental evaluation compares it with the last run's).
pub(crate) fn digest(bits: &[u64]) -> u64 {
    match bits {
        [] => 0,
        [w] => *w,
        ws => {
            let mut h = crate::key::KeyHasher::new();
            for &w in ws {
                h.u64(w);
            }
            h.finish_key().0 as u64
        }
    }
}
