//! The lazy-input protocol, once for every walk: which lazy inputs a node has pulled so far
//! ([`PullSets`], any number of inputs), and the single step that asks the op which input to
//! pull next ([`lazy_step`]).
//!
//! A node is on a walk's stack at most once at a time (the graph is acyclic), so the bits
//! live per node rather than per stack frame and frames stay small and `Copy`.

use super::exec::{Runner, Taint, gather, uncaught_error};
use super::{EvalError, next_lazy};
use crate::plan::Plan;
use crate::value::Value;

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

/// What a lazy node does next.
pub(crate) enum LazyStep {
    /// Bring input `i` up to date (its bit is already set), then ask again.
    Pull(usize),
    /// Every input it wants is there: run it (an error the op raised while choosing was
    /// handed to the runner, which reports it as the node's result under the policy).
    Run,
}

/// Reusable buffers of [`lazy_step`].
#[derive(Default)]
pub(crate) struct LazyScratch {
    inputs: Vec<Value>,
    flags: Vec<bool>,
}

/// Ask lazy node `v` which input to pull next, given its inputs so far in `vals`. A pull the
/// op is not allowed (an eager input, one already pulled, one out of range) is an error
/// naming the node and the input.
#[allow(clippy::too_many_arguments)]
pub(crate) fn lazy_step(
    plan: &Plan,
    v: usize,
    vals: &[Value],
    taints: &[Taint],
    pulls: &mut PullSets,
    scratch: &mut LazyScratch,
    runner: &mut Runner,
) -> Result<LazyStep, EvalError> {
    let bits = pulls.get(v);
    gather(plan, v, vals, taints, bits, &mut scratch.inputs);
    let n_in = plan.inputs(v).len();
    scratch.flags.clear();
    scratch.flags.extend((0..n_in).map(|i| is_pulled(bits, i)));
    let next = if uncaught_error(plan, v, &scratch.inputs) {
        Ok(None)
    } else {
        next_lazy(plan, v, &scratch.inputs, &scratch.flags, runner.op_ctx())
    };
    let next = match next {
        Ok(n) => n,
        Err(EvalError::Cancelled) => return Err(EvalError::Cancelled),
        Err(e) => {
            runner.inject(e);
            None
        }
    };
    let Some(i) = next else {
        return Ok(LazyStep::Run);
    };
    let spec = plan.op(v).spec();
    if i >= n_in || is_pulled(bits, i) || !spec.inputs[i].lazy {
        return Err(EvalError::Node {
            node: plan.id(v).clone(),
            op: spec.id.to_string(),
            port: Some(
                spec.inputs
                    .get(i)
                    .map_or(format!("input #{i}"), |p| format!("input \"{}\"", p.name)),
            ),
            message: "the op asked to pull an input that is not an unpulled lazy input".into(),
        });
    }
    pulls.set(v, i);
    Ok(LazyStep::Pull(i))
}
