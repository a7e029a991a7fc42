//! The solver's progress: for each node using a body, how far it has stepped, with what
//! inputs, the state reached, and the nested evaluator that keeps the body's results between
//! runs (so body nodes that read neither the state nor the step inputs cook once).

use kiln_core::cache::MemoryReport;
use kiln_core::eval::{Evaluator, IncrementalEvaluator};
use kiln_core::key::Key;
use kiln_core::value::Value;

/// How many nodes' progress one body keeps; the least recently used is dropped beyond this.
pub(super) const MAX_PROGRESS_ENTRIES: usize = 64;

/// One node's progress.
pub(super) struct Progress {
    /// The hash of what the steps read besides the state: the args and the context fields
    /// the body reads.
    pub(super) inputs: Key,
    /// Whole steps done.
    pub(super) done: u64,
    /// The state after `done` steps, in state order.
    pub(super) state: Vec<Value>,
    /// The body's evaluator: it keeps one value per body node, so memory does not grow with
    /// the number of steps.
    pub(super) eval: IncrementalEvaluator,
}

impl Progress {
    /// Back to step 0 with `initial` as the state and `inputs` as what the steps read. The
    /// nested evaluator stays: its values are keyed by what they were computed from.
    pub(super) fn restart(&mut self, inputs: Key, initial: Vec<Value>) {
        self.inputs = inputs;
        self.done = 0;
        self.state = initial;
    }
}

/// Progress by node id, most recently used last.
#[derive(Default)]
pub(super) struct ProgressCache {
    entries: Vec<(String, Progress)>,
}

impl ProgressCache {
    /// Take node `node`'s progress out (the caller runs without holding the lock and puts
    /// it back with [`ProgressCache::put`]).
    pub(super) fn take(&mut self, node: &str) -> Option<Progress> {
        let i = self.entries.iter().position(|(n, _)| n == node)?;
        Some(self.entries.remove(i).1)
    }
    /// Keep `p` as node `node`'s progress, dropping the least recently used beyond the cap.
    pub(super) fn put(&mut self, node: &str, p: Progress) {
        if let Some(i) = self.entries.iter().position(|(n, _)| n == node) {
            self.entries.remove(i);
        }
        if self.entries.len() >= MAX_PROGRESS_ENTRIES {
            self.entries.remove(0);
        }
        self.entries.push((node.to_string(), p));
    }
    /// Memory held: the states, and each nested evaluator's report.
    pub(super) fn memory_report(&self) -> MemoryReport {
        let mut r = MemoryReport::default();
        let states: usize = self
            .entries
            .iter()
            .map(|(_, p)| p.state.iter().map(Value::byte_size).sum::<usize>())
            .sum();
        r.add("step states", self.entries.len(), states);
        for (_, p) in &self.entries {
            r.extend(p.eval.memory_report());
        }
        r
    }
}
