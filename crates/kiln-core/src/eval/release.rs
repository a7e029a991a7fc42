//! Letting go of intermediate values within a run: a heavy value held in a slot is dropped
//! once the last node of the run that reads it has run, unless it is a requested output. So
//! the memory of a long chain of image ops is bounded by its width, not its length.
//!
//! Only schedules without lazy nodes release (a lazy op may pull an input after its other
//! consumers ran), and only schedules that make heavy values pay for the counting at all.

use super::schedule::Schedule;
use crate::plan::{Plan, Source};
use crate::value::Value;

/// Consumers left per node in the current run.
#[derive(Default)]
pub(crate) struct Release {
    /// Per node: its readers in the run that have not run yet (`u32::MAX`: kept to the end).
    left: Vec<u32>,
    active: bool,
}

impl Release {
    /// Start a run of `sched`: counts from the schedule, or nothing to do.
    pub(crate) fn begin(&mut self, sched: &Schedule) {
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
        for s in plan.inputs(v) {
            let Source::Wire { node, .. } = s else {
                continue;
            };
            let u = *node as usize;
            let Some(left) = self.left.get_mut(u) else {
                continue;
            };
            if *left == u32::MAX || *left == 0 {
                continue;
            }
            *left -= 1;
            if *left == 0 {
                let off = plan.output_offset(u);
                for slot in &mut vals[off..off + plan.n_outputs(u)] {
                    if matches!(slot, Value::Heavy(_) | Value::List(_) | Value::Str(_)) {
                        *slot = Value::Empty;
                    }
                }
            }
        }
    }
}
