//! Retentions: where an evaluator's results live, and how long.
//!
//! - [`Retention`]: the one interface the schedule walk and the parallel levels run any
//!   retention through — is a node done, bring it up to date, begin and finish it on a
//!   worker;
//! - [`slots`]: value slots with generation stamps, one value per output for the current
//!   request (eager and compiled);
//! - [`memo`]: results kept by content key, in an own map or a shared store (lazy, and every
//!   evaluator with a store);
//! - [`release`]: letting go of an intermediate value within a run once its last reader ran.
//!
//! The incremental evaluator's stale records (`incremental/records.rs`) are the third
//! [`Retention`].

pub(crate) mod memo;
pub(crate) mod release;
pub(crate) mod slots;

use crate::eval::EvalError;
use crate::eval::runner::{Prepared, Runner, Taint, gather};
use crate::plan::Plan;
use crate::value::Value;

/// What an evaluator keeps per node, and what running one means to it: the retention side
/// of the schedule walk ([`schedule_walk`](crate::eval::walks::schedule_walk)) and of parallel levels
/// ([`parallel`](crate::eval::parallel)).
pub(crate) trait Retention {
    /// Whether node `v` needs no work in this request.
    fn is_done(&self, v: usize) -> bool;
    /// Value slots (see [`Plan::output_offset`]).
    fn vals(&self) -> &[Value];
    /// Per-node taints.
    fn taints(&self) -> &[Taint];
    /// Bring node `v` up to date; its inputs (the lazy ones in `pulled`) are.
    fn step(
        &mut self,
        plan: &Plan,
        v: usize,
        pulled: &[u64],
        runner: &mut Runner,
        scratch: &mut Vec<Value>,
    ) -> Result<(), EvalError>;
    /// For a parallel level: whether node `v` must run, settling it at once when it need not
    /// (an up-to-date check, a store hit). The default: it must.
    fn par_must_run(&mut self, _plan: &Plan, _v: usize, _runner: &mut Runner) -> bool {
        true
    }
    /// For a parallel level: settle node `v` at once if it needs no execution (`None`), or
    /// hand out its gathered inputs and their taint for a worker to run it. An input carrying
    /// an error the op does not catch settles it too, through [`Retention::par_finish`].
    fn par_begin(
        &mut self,
        plan: &Plan,
        v: usize,
        runner: &mut Runner,
    ) -> Result<Option<(Vec<Value>, Taint)>, EvalError> {
        if !self.par_must_run(plan, v, runner) {
            return Ok(None);
        }
        let mut inputs = vec![];
        let taint = gather(plan, v, self.vals(), self.taints(), &[], &mut inputs);
        let mut out = vec![Value::Empty; plan.n_outputs(v)];
        match runner.prepare(v, &inputs, &taint, &mut out)? {
            Prepared::Propagated(t) => {
                self.par_finish(plan, v, out, t, runner);
                Ok(None)
            }
            Prepared::Run => Ok(Some((inputs, taint))),
        }
    }
    /// Take the outputs a worker computed for `v`, already completed under the request's
    /// policy (`taint` is the result's).
    fn par_finish(
        &mut self,
        plan: &Plan,
        v: usize,
        out: Vec<Value>,
        taint: Taint,
        runner: &mut Runner,
    );
    /// Whether a parallel task may go on with the node its last node alone feeds (the
    /// strategy then needs no look at that node before it runs).
    fn par_chains(&self) -> bool {
        false
    }
    /// Run the nodes of `block` from `pos` that have scalar kernels, as far as they go;
    /// returns where it stopped.
    ///
    /// `fresh` says no node of the block can be done already and nothing will ask later (the
    /// main block of a schedule without lazy nodes), so done-marks may be skipped.
    fn run_kernels(
        &mut self,
        _plan: &Plan,
        _block: &[u32],
        pos: usize,
        _runner: &mut Runner,
        _fresh: bool,
    ) -> usize {
        pos
    }
    /// As [`Retention::run_kernels`], over the positions `visit[i..]` of `block` only;
    /// returns the index in `visit` where it stopped.
    fn run_visit(
        &mut self,
        _plan: &Plan,
        _block: &[u32],
        _visit: &[u32],
        i: usize,
        _runner: &mut Runner,
    ) -> usize {
        i
    }
}
