//! Letting go of intermediate values within a run: a heavy value held in a slot is dropped
//! once the last node of the run that reads it has run, unless it is a requested output. So
//! the memory of a long chain of image ops is bounded by its width, not its length.
//!
//! Only schedules without lazy nodes release (a lazy op may pull an input after its other
//! consumers ran), and only schedules that make heavy values pay for the counting at all.
//! The incremental evaluator, whose slots outlive the run, also asks for the content hash of
//! each value released ([`Release::released`]), to compute it again when needed and still
//! tell whether its bits changed.

use crate::eval::walks::schedule::Schedule;
use crate::key::{Key, KeyHasher};
use crate::plan::{Plan, Source};
use crate::value::Value;

/// Consumers left per node in the current run.
#[derive(Default)]
pub(crate) struct Release {
    /// Per node: its readers in the run that have not run yet (`u32::MAX`: kept to the end).
    left: Vec<u32>,
    active: bool,
    /// Record what is released in [`Release::released`].
    pub(crate) record: bool,
    /// With `record`: each node released in this run, with the hash of its outputs.
    pub(crate) released: Vec<(u32, Key)>,
}

impl Release {
    /// Start a run of `sched`: counts from the schedule, or nothing to do.
    pub(crate) fn begin(&mut self, sched: &Schedule) {
        self.released.clear();
        match sched.uses() {
            Some(uses) => {
                self.left.clear();
                self.left.extend_from_slice(uses);
                self.active = true;
            }
            None => self.active = false,
        }
    }

    /// Node `v` ran: each wired input it read has one reader fewer; an input with none left
    /// gives up its shared values (strings, lists, heavy values).
    #[inline]
    pub(crate) fn consumed(&mut self, plan: &Plan, v: usize, vals: &mut [Value]) {
        if !self.active {
            return;
        }
        let record = self.record;
        let released = &mut self.released;
        count_down(&mut self.left, plan, v, |u| {
            let off = plan.output_offset(u);
            let outs = &mut vals[off..off + plan.n_outputs(u)];
            if record {
                released.push((u as u32, outputs_hash(outs)));
            }
            for slot in outs {
                if is_shared(slot) {
                    *slot = Value::Empty;
                }
            }
        });
    }
}

/// Node `v` ran: each node it reads through a wire has one reader fewer in `left`
/// (`u32::MAX`: kept to the end); `done(u)` is called for each node left with none.
#[inline]
pub(crate) fn count_down(left: &mut [u32], plan: &Plan, v: usize, mut done: impl FnMut(usize)) {
    for s in plan.inputs(v) {
        let Source::Wire { node, .. } = s else {
            continue;
        };
        let u = *node as usize;
        let Some(l) = left.get_mut(u) else {
            continue;
        };
        if *l == u32::MAX || *l == 0 {
            continue;
        }
        *l -= 1;
        if *l == 0 {
            done(u);
        }
    }
}

/// Whether a value is one whose memory is worth giving up (a string, list or heavy value).
#[inline]
pub(crate) fn is_shared(v: &Value) -> bool {
    matches!(v, Value::Heavy(_) | Value::List(_) | Value::Str(_))
}

/// The hash of a node's output values, to tell later whether a recomputed result has the
/// same bits.
pub(crate) fn outputs_hash(outs: &[Value]) -> Key {
    let mut h = KeyHasher::new();
    for v in outs {
        v.hash_into(&mut h);
    }
    h.finish_key()
}
