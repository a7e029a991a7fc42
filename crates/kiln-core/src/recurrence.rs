//! Recurrence: the latch (a seeded unit delay) and [`Recurrent`], the driver that ticks a
//! graph containing latches.
//!
//! A cycle is legal only through a latch's `signal` input. Within one tick a latch depends on
//! nothing: it outputs its stored value, so the tick's graph is a DAG any evaluator runs.
//! Between ticks the driver captures each advancing latch's `signal` as its next value. The
//! seed comes from the latch's `init` input, which must be wired to a node (validation
//! refuses a constant or nothing), and is evaluated once per (re)start.
//!
//! A latch advances every `every` ticks, on the ticks `t` with `t % every == phase % every`,
//! and holds its value in between; its signal's cone is requested only on those ticks. The
//! base tick is the fastest rate: a latch advancing every tick.
//!
//! The state of a run is a [`Snapshot`]: the tick to run next and each latch's value. It can
//! be taken, restored and, for plain values, saved to a file (`kiln_io`).

use crate::context::EvalContext;
use crate::eval::{EvalError, Evaluator, Outputs, Request};
use crate::graph::{Graph, Revision};
use crate::op::{OpCall, OpError};
use crate::plan::{Plan, Source};
use crate::registry::{Registry, RegistryError};
use crate::value::{Value, ValueType};
use std::collections::BTreeMap;

/// The op id of the latch.
pub const LATCH_OP: &str = LatchOp::ID;

/// A seeded unit delay: outputs `init` at the first tick, then the `signal` it captured at
/// its previous advance. The only way to close a cycle.
#[crate::op(
    "latch",
    delay,
    purity = "user-input",
    out_type = ValueType::Any,
    infer = latch_type,
    out = "the stored value"
)]
pub fn latch(
    #[input("the seed (must be wired to a node)")] init: &Value,
    #[input("the value to hold from the next advance on (may close a cycle)")] signal: &Value,
    #[param(
        "advance every n base ticks (n >= 1) and hold in between",
        default = 1,
        range = 1..
    )]
    every: i64,
    #[param(
        "the tick offset of the advances: ticks t with t % every == phase % every",
        default = 0,
        range = 0..
    )]
    phase: i64,
    call: &OpCall<'_>,
) -> Result<Value, OpError> {
    call.ctx.latches.get(call.node).cloned().ok_or_else(|| {
        OpError::new(
            "the latch holds no value: latches are run by a recurrent driver \
             (`kiln_core::recurrence::Recurrent`), and a latch's init may not depend on a \
             latch",
        )
    })
}

/// The latch's output type: its init's.
fn latch_type(inputs: &[Option<ValueType>], _params: &[Value]) -> Result<Vec<ValueType>, String> {
    Ok(vec![
        inputs.first().copied().flatten().unwrap_or(ValueType::Any),
    ])
}

/// Register the latch.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(LatchOp::new())
}

/// What [`Recurrent::seek`] does when asked for a tick other than the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeekMode {
    /// Replay to the tick (from the nearest kept state at or before it, or the current
    /// state when that is nearer, else from the start): the same bits as stepping there.
    Resimulate,
    /// Jump: the latches keep their values and the tick counter moves.
    Discontinuity,
    /// Refuse with an error unless the tick is the next one.
    Error,
}

/// Which states [`Recurrent`] keeps so a backward seek replays from near its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckpointPolicy {
    /// Keep nothing: a backward seek replays from tick 0.
    None,
    /// Keep the state of every `k`-th tick.
    Every(u64),
    /// Keep as many states as fit in `bytes` (values' sizes plus their latch ids): every tick
    /// at first; whenever the kept states outgrow the budget, the interval doubles and the
    /// states off the new interval are dropped. The held bytes never exceed the budget, and a
    /// backward seek replays at most one interval.
    Budget {
        /// The most bytes the kept states may hold.
        bytes: usize,
    },
}

/// The state of a recurrent run: the next tick to run and each latch's value by node id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// The tick the next [`Recurrent::tick`] runs.
    pub tick: u64,
    /// Each latch's stored value, by node id.
    pub values: BTreeMap<String, Value>,
}

/// A latch as the driver needs it.
#[derive(Clone, Debug)]
struct Latch {
    id: String,
    init: Src,
    signal: Src,
    every: u64,
    phase: u64,
}

/// Where a latch input comes from, as an output name or a constant.
#[derive(Clone, Debug)]
enum Src {
    Output(String),
    Const(Value),
}

impl Latch {
    fn advances(&self, t: u64) -> bool {
        t % self.every == self.phase % self.every
    }
}

/// Ticks a graph with latches on an evaluator of your choice (see the module docs).
pub struct Recurrent<E: Evaluator> {
    eval: E,
    registry: Registry,
    known: Option<(Revision, Vec<Latch>)>,
    state: Option<Snapshot>,
    policy: CheckpointPolicy,
    /// The current interval of the budget policy.
    interval: u64,
    checkpoints: BTreeMap<u64, Snapshot>,
    held: usize,
}

impl Snapshot {
    /// Bytes the snapshot holds: its values' sizes plus their latch ids.
    pub fn byte_size(&self) -> usize {
        self.values
            .iter()
            .map(|(k, v)| k.len() + v.byte_size())
            .sum::<usize>()
            + std::mem::size_of::<Snapshot>()
    }
}

impl<E: Evaluator> Recurrent<E> {
    /// A driver running each tick on `eval`; `registry` resolves the graph's latches.
    pub fn new(eval: E, registry: Registry) -> Self {
        Recurrent {
            eval,
            registry,
            known: None,
            state: None,
            policy: CheckpointPolicy::None,
            interval: 1,
            checkpoints: BTreeMap::new(),
            held: 0,
        }
    }
    /// Keep a snapshot every `k` ticks (k >= 1), so a backward seek replays from the nearest
    /// one instead of from the start.
    pub fn with_checkpoints(self, k: u64) -> Self {
        self.with_checkpoint_policy(CheckpointPolicy::Every(k.max(1)))
    }
    /// Choose which states are kept for seeking (see [`CheckpointPolicy`]).
    pub fn with_checkpoint_policy(mut self, policy: CheckpointPolicy) -> Self {
        self.policy = match policy {
            CheckpointPolicy::Every(k) => CheckpointPolicy::Every(k.max(1)),
            p => p,
        };
        self.clear_checkpoints();
        self
    }
    /// Memory held by the driver, by part: the latch state and the kept states.
    pub fn memory_report(&self) -> crate::cache::MemoryReport {
        let mut r = crate::cache::MemoryReport::default();
        match &self.state {
            Some(s) => r.add("latch state", s.values.len(), s.byte_size()),
            None => r.add("latch state", 0, 0),
        }
        r.add("latch checkpoints", self.checkpoints.len(), self.held);
        r
    }
    /// Bytes held by the kept states.
    pub fn checkpoint_bytes(&self) -> usize {
        self.held
    }
    /// The ticks whose states are kept, in order.
    pub fn checkpoint_ticks(&self) -> Vec<u64> {
        self.checkpoints.keys().copied().collect()
    }
    fn clear_checkpoints(&mut self) {
        self.checkpoints.clear();
        self.held = 0;
        self.interval = 1;
    }
    /// Keep `state` (the state before tick `state.tick`) if the policy says so.
    fn keep(&mut self, state: &Snapshot) {
        let t = state.tick;
        match self.policy {
            CheckpointPolicy::None => {}
            CheckpointPolicy::Every(k) => {
                if t.is_multiple_of(k) && !self.checkpoints.contains_key(&t) {
                    self.held += state.byte_size();
                    self.checkpoints.insert(t, state.clone());
                }
            }
            CheckpointPolicy::Budget { bytes } => {
                if !t.is_multiple_of(self.interval) || self.checkpoints.contains_key(&t) {
                    return;
                }
                let size = state.byte_size();
                if size > bytes {
                    return;
                }
                self.held += size;
                self.checkpoints.insert(t, state.clone());
                while self.held > bytes {
                    self.interval = self.interval.saturating_mul(2);
                    let iv = self.interval;
                    self.checkpoints.retain(|k, _| k.is_multiple_of(iv));
                    self.held = self.checkpoints.values().map(Snapshot::byte_size).sum();
                    if self.checkpoints.len() <= 1 && self.held > bytes {
                        self.checkpoints.clear();
                        self.held = 0;
                    }
                }
            }
        }
    }
    /// The evaluator.
    pub fn evaluator(&mut self) -> &mut E {
        &mut self.eval
    }
    /// The state: `None` before the first tick (and after [`Recurrent::reset`]).
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.state.as_ref()
    }
    /// Continue from `s` (a snapshot taken earlier, perhaps from a file).
    pub fn restore(&mut self, s: Snapshot) {
        self.state = Some(s);
    }
    /// Forget the state: the next tick re-seeds every latch from its init and is tick 0.
    pub fn reset(&mut self) {
        self.state = None;
        self.clear_checkpoints();
    }
    /// The tick the next [`Recurrent::tick`] runs.
    pub fn next_tick(&self) -> u64 {
        self.state.as_ref().map_or(0, |s| s.tick)
    }
    /// Number of snapshots kept for seeking.
    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }

    fn latches(&mut self, graph: &Graph) -> Result<Vec<Latch>, EvalError> {
        if let Some((r, l)) = &self.known
            && *r == graph.revision()
        {
            return Ok(l.clone());
        }
        let plan = Plan::build(graph, &self.registry).map_err(EvalError::Invalid)?;
        let src = |s: &Source| -> Src {
            match s {
                Source::Wire { node, port } => {
                    let n = *node as usize;
                    let name = &plan.op(n).spec().outputs[*port as usize].name;
                    Src::Output(format!("{}.{}", plan.id(n), name))
                }
                Source::Const(v) => Src::Const(v.clone()),
                Source::Empty => Src::Const(Value::Empty),
            }
        };
        let mut out = vec![];
        for l in plan.latches() {
            let n = l.node as usize;
            let p = plan.params(n);
            let spec = plan.op(n).spec();
            if let Err(e) = crate::op::rule::check_params(spec, p, &Default::default()) {
                return Err(EvalError::Node {
                    node: plan.id(n).clone(),
                    op: LATCH_OP.into(),
                    port: e.port.map(|i| spec.port_name(i)),
                    message: e.message,
                });
            }
            let every = p.first().and_then(Value::as_i64).unwrap_or(1).max(1);
            let phase = p.get(1).and_then(Value::as_i64).unwrap_or(0).max(0);
            out.push(Latch {
                id: plan.id(n).to_string(),
                init: src(&l.init),
                signal: src(&l.signal),
                every: every as u64,
                phase: phase as u64,
            });
        }
        self.known = Some((graph.revision(), out.clone()));
        Ok(out)
    }

    /// Evaluate `names` (plus the outputs `extra`) at tick `t` with latch values `values`.
    fn run_tick(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
        t: u64,
        values: &BTreeMap<String, Value>,
        extra: &[String],
    ) -> Result<Outputs, EvalError> {
        let mut c = ctx.clone();
        c.latches = values.clone();
        c.frame = t as i64;
        c.time = t as f64 * ctx.dt;
        let mut r = request.clone();
        for e in extra {
            if !r.outputs.contains(e) {
                r.outputs.push(e.clone());
            }
        }
        self.eval.evaluate(graph, &r, &c)
    }

    /// Seed every latch from its init (at tick 0, with no latch values).
    fn start(
        &mut self,
        graph: &Graph,
        ctx: &EvalContext,
        latches: &[Latch],
    ) -> Result<Snapshot, EvalError> {
        let names: Vec<String> = latches
            .iter()
            .filter_map(|l| match &l.init {
                Src::Output(n) => Some(n.clone()),
                Src::Const(_) => None,
            })
            .collect();
        let out = if names.is_empty() {
            Outputs::default()
        } else {
            self.run_tick(graph, &Request::new(names), ctx, 0, &BTreeMap::new(), &[])?
        };
        let mut values = BTreeMap::new();
        for l in latches {
            let v = match &l.init {
                Src::Output(n) => out.get(n).cloned().unwrap_or_default(),
                Src::Const(v) => v.clone(),
            };
            values.insert(l.id.clone(), v);
        }
        Ok(Snapshot { tick: 0, values })
    }

    /// Run the next tick: evaluate `request` with every latch at its stored value, then let
    /// the latches that advance at this tick capture their signals. Returns the requested
    /// outputs of this tick.
    pub fn tick(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
    ) -> Result<Outputs, EvalError> {
        let latches = self.latches(graph)?;
        let state = match self.state.take() {
            Some(s) => s,
            None => {
                self.clear_checkpoints();
                self.start(graph, ctx, &latches)?
            }
        };
        let t = state.tick;
        self.keep(&state);
        let signals: Vec<String> = latches
            .iter()
            .filter(|l| l.advances(t))
            .filter_map(|l| match &l.signal {
                Src::Output(n) => Some(n.clone()),
                Src::Const(_) => None,
            })
            .collect();
        let result = self.run_tick(graph, request, ctx, t, &state.values, &signals);
        let mut out = match result {
            Ok(o) => o,
            Err(e) => {
                // A failed tick leaves the state where it was.
                self.state = Some(state);
                return Err(e);
            }
        };
        let mut values = state.values;
        for l in latches.iter().filter(|l| l.advances(t)) {
            let v = match &l.signal {
                Src::Output(n) => out.get(n).cloned().unwrap_or_default(),
                Src::Const(v) => v.clone(),
            };
            if let Value::Error(e) = v {
                self.state = Some(Snapshot { tick: t, values });
                return Err((*e).clone());
            }
            values.insert(l.id.clone(), v);
        }
        out.values.truncate(request.outputs.len());
        self.state = Some(Snapshot {
            tick: t + 1,
            values,
        });
        Ok(out)
    }

    /// Replay from tick 0 and return the outputs of tick `t`.
    pub fn run_to(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
        t: u64,
    ) -> Result<Outputs, EvalError> {
        self.reset();
        self.advance_to(graph, request, ctx, t)
    }

    /// Tick until the next tick is `t`, then run it.
    fn advance_to(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
        t: u64,
    ) -> Result<Outputs, EvalError> {
        let quiet = Request {
            outputs: vec![],
            ..request.clone()
        };
        while self.next_tick() < t {
            if ctx.is_cancelled() {
                return Err(EvalError::Cancelled);
            }
            self.tick(graph, &quiet, ctx)?;
        }
        self.tick(graph, request, ctx)
    }

    /// Run tick `t` next, by `mode`, and return its outputs.
    pub fn seek(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
        t: u64,
        mode: SeekMode,
    ) -> Result<Outputs, EvalError> {
        let next = self.next_tick();
        match mode {
            SeekMode::Error if t != next => Err(EvalError::Recurrence(format!(
                "seek to tick {t} refused: the next tick is {next} (seek mode Error)"
            ))),
            SeekMode::Error => self.tick(graph, request, ctx),
            SeekMode::Discontinuity => {
                if self.state.is_none() {
                    let latches = self.latches(graph)?;
                    self.state = Some(self.start(graph, ctx, &latches)?);
                }
                if let Some(s) = &mut self.state {
                    s.tick = t;
                }
                // Kept states before the jump no longer lead here.
                self.clear_checkpoints();
                self.tick(graph, request, ctx)
            }
            SeekMode::Resimulate => {
                // From the nearest kept state at or before `t`, unless the current state is
                // nearer (a forward seek).
                let kept = self.checkpoints.range(..=t).next_back();
                if t < next || self.state.is_none() {
                    self.state = kept.map(|(_, s)| s.clone());
                } else if let Some((&k, s)) = kept
                    && k > next
                {
                    self.state = Some(s.clone());
                }
                self.advance_to(graph, request, ctx, t)
            }
        }
    }
}
