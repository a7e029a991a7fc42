//! [`StepBody`]: the heavy value a `scope.step` node carries as its `body` param — the body
//! graph, the registry that runs it, the settings of the simulation, and the solver's
//! progress.

use super::progress::ProgressCache;
use super::{MAX_SUBSTEPS, STEP_BODY_TYPE, STEP_INPUTS};
use kiln_core::cache::MemoryReport;
use kiln_core::error::Diagnostics;
use kiln_core::graph::Graph;
use kiln_core::key::KeyHasher;
use kiln_core::op::Reads;
use kiln_core::plan::Plan;
use kiln_core::registry::Registry;
use kiln_core::value::{Heavy, HeavyData, Value};
use std::any::Any;
use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The settings of a step scope: which body inputs the node's `args` feed, which are state,
/// the step length and the substeps per step.
#[derive(Clone, Debug, PartialEq)]
pub struct StepSettings {
    /// The body inputs fed from the node's `args` list, in list order.
    pub args: Vec<String>,
    /// The state: each name is both a body input and a body output (an `output` node of that
    /// id), and is among `args`, which gives its initial value.
    pub state: Vec<String>,
    /// The step length in seconds (finite, > 0).
    pub dt: f64,
    /// Body runs per step (1 ..= [`MAX_SUBSTEPS`]); each run advances by `dt / substeps`.
    pub substeps: u32,
}

/// Why a [`StepBody`] could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StepBodyError {
    /// `dt` is not a finite number above 0.
    #[error("the step length dt must be a finite number above 0, found {0}")]
    BadDt(f64),
    /// `substeps` is 0 or above [`MAX_SUBSTEPS`].
    #[error("substeps must be in 1..={MAX_SUBSTEPS}, found {0}")]
    BadSubsteps(u32),
    /// The body graph does not validate against the registry.
    #[error("the step body does not validate: {0}")]
    Invalid(Diagnostics),
    /// The body holds a latch: a step body's memory from one run to the next is its state.
    #[error("the step body holds latch `{0}`; carry values between steps as state instead")]
    Latch(String),
    /// A name appears twice in `args`.
    #[error("arg `{0}` is listed twice")]
    DuplicateArg(String),
    /// A name appears twice in `state`.
    #[error("state `{0}` is listed twice")]
    DuplicateState(String),
    /// An arg or state takes a name the solver sets at every run.
    #[error(
        "`{0}` is set by the solver at every run (one of dt, time, index, substep) and cannot \
         be an arg or a state"
    )]
    ReservedName(String),
    /// A state is not an input of the body (no `input.*` node has that `name`).
    #[error("state `{0}` is not an input of the body (no `input.*` node named so)")]
    StateNotInput(String),
    /// A state is not an output of the body (no `output` node of that id).
    #[error("state `{0}` is not an output of the body (no `output` node of that id)")]
    StateNotOutput(String),
    /// A state has no initial value: it is not among `args`.
    #[error("state `{0}` has no initial value: add it to the args")]
    StateNotInArgs(String),
}

/// The body of a step scope with its settings (see the [module docs](super)). Wrap it in a
/// value with [`StepBody::into_value`] to set it as the `body` param of a `scope.step` node.
/// Two bodies of equal content (nodes, params, constants, wires, op versions and settings)
/// have equal content hashes, so they key equal; the progress they hold is not content.
pub struct StepBody {
    graph: Graph,
    registry: Registry,
    settings: StepSettings,
    /// Context fields other than the clock that the body reads (seed, preview, resolution).
    reads: Reads,
    /// For each state, the position of its initial value among the args.
    state_args: Vec<usize>,
    /// Body runs executed over this body's lifetime.
    runs: AtomicU64,
    pub(super) progress: Mutex<ProgressCache>,
}

impl StepBody {
    /// A body from `graph` (its interface: `input.*` nodes by their `name` param, `output`
    /// nodes by their id), the `registry` that runs it, and `settings`, which are checked
    /// (see [`StepBodyError`]); the graph is validated against the registry.
    pub fn new(
        graph: Graph,
        registry: Registry,
        settings: StepSettings,
    ) -> Result<StepBody, StepBodyError> {
        if !(settings.dt.is_finite() && settings.dt > 0.0) {
            return Err(StepBodyError::BadDt(settings.dt));
        }
        if settings.substeps == 0 || settings.substeps > MAX_SUBSTEPS {
            return Err(StepBodyError::BadSubsteps(settings.substeps));
        }
        let plan = Plan::build(&graph, &registry).map_err(StepBodyError::Invalid)?;
        if let Some(l) = plan.latches().first() {
            return Err(StepBodyError::Latch(plan.id(l.node as usize).to_string()));
        }
        check_names(&graph, &registry, &settings)?;
        let reads = body_reads(&plan);
        let state_args = settings
            .state
            .iter()
            .filter_map(|s| settings.args.iter().position(|a| a == s))
            .collect();
        Ok(StepBody {
            graph,
            registry,
            settings,
            reads,
            state_args,
            runs: AtomicU64::new(0),
            progress: Mutex::new(ProgressCache::default()),
        })
    }

    /// Wrap the body in a heavy value (its content hash is computed now).
    pub fn into_value(self) -> Value {
        Value::Heavy(Heavy::new(self))
    }

    /// The body graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }
    /// The registry the body runs on.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }
    /// The settings.
    pub fn settings(&self) -> &StepSettings {
        &self.settings
    }
    /// The number of whole steps reached at clock time `t` (see [`super::steps_at`]).
    pub fn steps_at(&self, t: f64) -> u64 {
        super::steps_at(t, self.settings.dt)
    }
    /// Context fields besides the clock that the body's ops read (seed, preview,
    /// resolution): they enter the `scope.step` node's key, and the solver passes them on.
    pub fn context_reads(&self) -> Reads {
        self.reads
    }
    /// Body runs executed by the solver over this body's lifetime (every substep of every
    /// step, replays included).
    pub fn runs(&self) -> u64 {
        self.runs.load(Ordering::Relaxed)
    }
    /// The state after 0 steps: each state's value among `args` (in the settings' order).
    pub fn initial_state(&self, args: &[Value]) -> Vec<Value> {
        self.state_args
            .iter()
            .map(|&i| args.get(i).cloned().unwrap_or_default())
            .collect()
    }
    pub(super) fn count_run(&self) {
        self.runs.fetch_add(1, Ordering::Relaxed);
    }
    /// Memory held by the solver's progress (one entry per node using this body, each with
    /// its state and nested evaluator).
    pub fn memory_report(&self) -> MemoryReport {
        match self.progress.lock() {
            Ok(p) => p.memory_report(),
            Err(_) => MemoryReport::default(),
        }
    }
    /// Forget all progress: the next call of any node using this body starts from step 0.
    pub fn clear_progress(&self) {
        if let Ok(mut p) = self.progress.lock() {
            *p = ProgressCache::default();
        }
    }
}

/// Check the names of `settings` against each other and the body's interface.
fn check_names(
    graph: &Graph,
    registry: &Registry,
    settings: &StepSettings,
) -> Result<(), StepBodyError> {
    let role = |op: &str| registry.get(op).map(|o| o.spec().role);
    let mut seen = BTreeSet::new();
    for a in &settings.args {
        if STEP_INPUTS.contains(&a.as_str()) {
            return Err(StepBodyError::ReservedName(a.clone()));
        }
        if !seen.insert(a.as_str()) {
            return Err(StepBodyError::DuplicateArg(a.clone()));
        }
    }
    let inputs: BTreeSet<&str> = graph
        .nodes()
        .iter()
        .filter(|n| role(&n.op) == Some(kiln_core::op::Role::GraphInput))
        .filter_map(kiln_doc::document::input_name)
        .collect();
    let mut states = BTreeSet::new();
    for s in &settings.state {
        if STEP_INPUTS.contains(&s.as_str()) {
            return Err(StepBodyError::ReservedName(s.clone()));
        }
        if !states.insert(s.as_str()) {
            return Err(StepBodyError::DuplicateState(s.clone()));
        }
        if !inputs.contains(s.as_str()) {
            return Err(StepBodyError::StateNotInput(s.clone()));
        }
        if graph
            .node(s)
            .is_none_or(|n| role(&n.op) != Some(kiln_core::op::Role::GraphOutput))
        {
            return Err(StepBodyError::StateNotOutput(s.clone()));
        }
        if !seen.contains(s.as_str()) {
            return Err(StepBodyError::StateNotInArgs(s.clone()));
        }
    }
    Ok(())
}

/// The context fields besides the clock (time, frame, dt: the solver sets those) that the
/// ops of `plan` read, including those read by step bodies nested in its params.
fn body_reads(plan: &Plan) -> Reads {
    let clock = Reads::TIME.with(Reads::FRAME).with(Reads::DT).0;
    let mut r = Reads::NONE;
    for n in 0..plan.len() {
        r = r.with(plan.op(n).spec().reads);
        for p in plan.params(n).iter() {
            if let Some(inner) = p.as_heavy::<StepBody>() {
                r = r.with(inner.reads);
            }
        }
    }
    Reads(r.0 & !clock)
}

impl std::fmt::Debug for StepBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StepBody")
            .field("nodes", &self.graph.len())
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// The `body` param of `scope.step` is a step body.
impl kiln_core::op::port::HeavyPort for StepBody {
    const TYPE: kiln_core::value::ValueType = kiln_core::value::ValueType::Heavy(STEP_BODY_TYPE);
}

impl HeavyData for StepBody {
    fn type_name(&self) -> &'static str {
        STEP_BODY_TYPE
    }
    fn byte_size(&self) -> usize {
        super::content::graph_bytes(&self.graph) + std::mem::size_of::<StepBody>()
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        super::content::hash_graph(&self.graph, &self.registry, h);
        let s = &self.settings;
        for names in [&s.args, &s.state] {
            h.u64(names.len() as u64);
            for n in names {
                h.str(n);
            }
        }
        h.f64(s.dt);
        h.u64(s.substeps as u64);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
