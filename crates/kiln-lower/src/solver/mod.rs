//! The solver of `step` scopes: a fixed-dt simulation body run as one node.
//!
//! The lowering of a `step` scope gives its body as a plain [`Graph`](kiln_core::graph::Graph)
//! whose interface is its graph-input nodes (ops of [`Role::GraphInput`](kiln_core::op::Role), read by
//! their `name` param) and graph-output nodes (by node id), wraps it in a [`StepBody`] with its [`StepSettings`], and
//! makes one node of op [`STEP_OP`] (`scope.step`) with the body as its `body` param and the
//! values of the body's args as its `args` list input. Its `state` output is the list of the
//! state values, in the settings' state order.
//!
//! **Semantics.** At context time `t` the node's value is the state after
//! `n = steps_at(t, dt)` whole steps ([`steps_at`]: `floor(t / dt)`, with `t = k * dt`
//! counting as `k` despite rounding; negative times give 0). After 0 steps each state holds
//! its value among the args. Step `i` runs the body `substeps` times; run `s` sees as inputs
//! every arg, the current state (in place of an arg of the same name), `dt` = dt / substeps,
//! `time` = (i · substeps + s) · dt / substeps, `index` = i (an int) and `substep` = s (an
//! int), and the body's state outputs become the new state. The body's context clock is the
//! run's: `time` and `dt` as above, `frame` = i. Of the caller's context it sees only the
//! cancellation token, and the seed, preview flag and resolution hint (which enter the node's
//! key when the body reads them); the caller's graph inputs do not reach it.
//!
//! **Keys.** The node's key holds the body's content hash (its param), its args' keys and
//! the step count `n`, not the raw time: every time within one step, and a paused clock, key
//! equal, so the evaluator's memo or stale marks answer without running it.
//!
//! **Progress.** The body keeps, per node id using it (at most 64, least recently used
//! dropped), the steps done, the state reached, a hash of the args (and read context
//! fields), and the nested [`IncrementalEvaluator`](kiln_core::eval::IncrementalEvaluator) that
//! runs the body. A call with the same args at `n` at or past the steps done continues from
//! there; an earlier `n` (a seek back) or other args replays from step 0. Replays give the
//! same bits as a fresh run: each run's inputs are computed from the step and substep
//! numbers, never accumulated. The nested evaluator keeps one value per body node between
//! runs, so body nodes that depend on neither the state nor the step inputs cook once over
//! any number of steps, and its memory does not grow with the step count.
//!
//! **Limits and failures.** A call needing more than [`MAX_RUNS_PER_CALL`] body runs fails
//! at once, naming the step count. An error inside the body fails the node with the step,
//! substep and the body's own error (which names the inner node, op and port). Cancellation
//! is checked between runs and reaches the body's ops; the steps completed before a failure
//! or a cancellation are kept.

mod body;
mod content;
mod op;
mod progress;
mod run;
mod steps;

pub use body::{StepBody, StepBodyError, StepSettings};
pub(crate) use content::{graph_bytes, hash_graph};
pub use op::StepOp;
pub use steps::steps_at;

use kiln_core::registry::{Registry, RegistryError};

/// The op id of the step solver.
pub const STEP_OP: &str = StepOp::ID;
/// The heavy type name of [`StepBody`] (the type of the `body` param).
pub const STEP_BODY_TYPE: &str = "step-body";
/// The most body runs one `scope.step` call may do (steps to run × substeps).
pub const MAX_RUNS_PER_CALL: u64 = 10_000_000;
/// The most substeps a step may have.
pub const MAX_SUBSTEPS: u32 = 10_000;
/// The body input holding the run's time step, dt / substeps (a float).
pub const INPUT_DT: &str = "dt";
/// The body input holding the run's time, (i · substeps + s) · dt / substeps (a float).
pub const INPUT_TIME: &str = "time";
/// The body input holding the step number i (an int).
pub const INPUT_INDEX: &str = "index";
/// The body input holding the substep number s within the step (an int).
pub const INPUT_SUBSTEP: &str = "substep";
/// The inputs the solver sets at every run; no arg or state may take these names.
pub const STEP_INPUTS: [&str; 4] = [INPUT_DT, INPUT_TIME, INPUT_INDEX, INPUT_SUBSTEP];

/// Register the step solver op ([`STEP_OP`]).
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(StepOp::new())
}
