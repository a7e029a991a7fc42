//! Sessions: a graph kept cooked between edits, presenting whole frames at once.
//!
//! A [`Session`] holds a graph, the incremental evaluator's plan and values, the user inputs
//! and (optionally) a shared [`Store`]. Param, constant and input edits do not replan; a
//! structural edit replans on the next present, keeping every value whose node, op, params
//! and wiring are unchanged, so only the changed nodes' cones are recomputed.
//!
//! A session may also hold a [`Document`] ([`Session::from_document`]): it is planned through
//! a [`Live`] document, so value edits are made in the kept flat graph in place, edits the
//! plan decided on plan again, and each present reports what the plan did ([`LowerPresent`]).
//!
//! [`Session::present`] evaluates every output for a clock and, only if all succeed (and the
//! optional commit step, such as writing files, succeeds too), swaps the new [`Frame`] in:
//! readers holding the previous frame's `Arc` keep a consistent set of outputs, and a failed
//! present leaves the last frame standing. With a store, the values of the frame being
//! presented are pinned there.

mod cook;
mod report;

pub use cook::{CookOptions, Cooked};
pub use report::{LowerPresent, PresentReport};

use crate::lower::{Edit, EditError, Live, LowerError, Lowered};
use kiln_core::cache::{MemoryReport, Store};
use kiln_core::context::EvalContext;
use kiln_core::eval::{ErrorPolicy, EvalError, Evaluator, IncrementalEvaluator, Request};
use kiln_core::graph::{Graph, GraphError};
use kiln_core::key::Key;
use kiln_core::registry::Registry;
use kiln_core::value::Value;
use kiln_doc::document::Document;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// The clock a frame is presented at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    /// Seconds.
    pub time: f64,
    /// Frame number.
    pub frame: i64,
    /// Seconds per frame.
    pub dt: f64,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            time: 0.0,
            frame: 0,
            dt: 1.0 / 60.0,
        }
    }
}

impl Clock {
    /// Frame `frame` at `fps` frames per second.
    pub fn at_frame(frame: i64, fps: f64) -> Clock {
        Clock {
            time: frame as f64 / fps,
            frame,
            dt: 1.0 / fps,
        }
    }
}

/// One presented frame: every output of the session, computed together.
#[derive(Clone, Debug)]
pub struct Frame {
    /// How many frames this session presented before this one.
    pub number: u64,
    /// The clock it was computed at.
    pub clock: Clock,
    /// Each output by name, in the session's order.
    pub values: Vec<(String, Value)>,
}

impl Frame {
    /// The value of output `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// Why a present or an edit failed. A failed present commits nothing.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// An edit named something the graph does not have.
    #[error("{0}")]
    Graph(#[from] GraphError),
    /// Evaluation failed (validation, a node's error, cancellation).
    #[error("{0}")]
    Eval(#[from] EvalError),
    /// The commit step (e.g. writing the frame's files) failed.
    #[error("commit: {0}")]
    Commit(String),
    /// An edit of a session's document could not be applied.
    #[error("{0}")]
    Edit(#[from] EditError),
    /// The session's document could not be planned.
    #[error("{0}")]
    Plan(#[from] LowerError),
    /// An edit that needs a document, made to a session over a plain graph.
    #[error("this session holds a plain graph, not a document: {0}")]
    NotADocument(&'static str),
}

/// What a session cooks: a flat graph, or a document and its plan.
enum Source {
    Graph(Graph),
    Document {
        live: Box<Live>,
        /// The plan of the last present (dropped before an edit, so the edit can be made in
        /// it in place).
        plan: Option<Arc<Lowered>>,
        /// What [`Session::graph`] answers before the first present.
        empty: Graph,
    },
}

/// The graph a cook runs: the plan's flat graph over a document, else the session's graph.
fn cooked_graph<'a>(source: &'a Source, lowered: &'a Option<Arc<Lowered>>) -> &'a Graph {
    match (lowered, source) {
        (Some(l), _) => &l.graph,
        (None, Source::Graph(g)) => g,
        (None, Source::Document { empty, .. }) => empty,
    }
}

/// A graph kept cooked between edits (see the module docs).
pub struct Session {
    source: Source,
    eval: IncrementalEvaluator,
    outputs: Vec<String>,
    inputs: BTreeMap<String, Value>,
    seed: u64,
    store: Option<Arc<Store>>,
    frame: Option<Arc<Frame>>,
    pinned: Vec<Key>,
    presented: u64,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("nodes", &self.graph().len())
            .field("outputs", &self.outputs)
            .field("presented", &self.presented)
            .finish()
    }
}

impl Session {
    /// A session presenting `outputs` (`node` or `node.port`) of `graph`.
    pub fn new<S: Into<String>>(
        registry: Registry,
        graph: Graph,
        outputs: impl IntoIterator<Item = S>,
    ) -> Session {
        Session::with_source(registry, Source::Graph(graph), outputs)
    }

    /// A session presenting `outputs` of document `doc`, planned against `registry` (see the
    /// [module docs](self)).
    pub fn from_document<S: Into<String>>(
        registry: Registry,
        doc: Document,
        outputs: impl IntoIterator<Item = S>,
    ) -> Session {
        let source = Source::Document {
            live: Box::new(Live::new(registry.clone(), doc)),
            plan: None,
            empty: Graph::new(),
        };
        Session::with_source(registry, source, outputs)
    }

    fn with_source<S: Into<String>>(
        registry: Registry,
        source: Source,
        outputs: impl IntoIterator<Item = S>,
    ) -> Session {
        Session {
            source,
            eval: IncrementalEvaluator::new(registry),
            outputs: outputs.into_iter().map(Into::into).collect(),
            inputs: BTreeMap::new(),
            seed: 0,
            store: None,
            frame: None,
            pinned: vec![],
            presented: 0,
        }
    }

    /// Share results through `store` (with other sessions and evaluators of the process).
    pub fn with_store(mut self, store: Arc<Store>) -> Session {
        self.eval = self.take_eval().with_store(store.clone());
        self.store = Some(store);
        self
    }

    /// Re-cook independent stale nodes at once under `policy` (see
    /// [`IncrementalEvaluator::with_parallel`]).
    pub fn with_parallel(mut self, policy: kiln_core::eval::ParallelPolicy) -> Session {
        self.eval = self.take_eval().with_parallel(policy);
        self
    }

    fn take_eval(&mut self) -> IncrementalEvaluator {
        let registry = self.eval.registry().clone();
        std::mem::replace(&mut self.eval, IncrementalEvaluator::new(registry))
    }

    /// The graph: for a session over a document, the flat graph of the last present (an
    /// empty graph before the first).
    pub fn graph(&self) -> &Graph {
        match &self.source {
            Source::Graph(g) => g,
            Source::Document { plan, empty, .. } => plan.as_ref().map_or(empty, |p| &p.graph),
        }
    }

    /// The document, for a session over one.
    pub fn document(&self) -> Option<&Document> {
        match &self.source {
            Source::Graph(_) => None,
            Source::Document { live, .. } => Some(live.document()),
        }
    }

    /// Apply `edit` to the session's document (see [`Live::edit`]): `Ok(true)` when the kept
    /// plan was edited in place.
    pub fn edit_document(&mut self, edit: Edit) -> Result<bool, SessionError> {
        match &mut self.source {
            Source::Graph(_) => Err(SessionError::NotADocument("document edits")),
            Source::Document { live, plan, .. } => {
                *plan = None;
                Ok(live.edit(edit)?)
            }
        }
    }

    /// The outputs presented.
    pub fn outputs(&self) -> &[String] {
        &self.outputs
    }

    /// The last frame presented, if any.
    pub fn frame(&self) -> Option<Arc<Frame>> {
        self.frame.clone()
    }

    /// Set a param (a value edit: no replanning; over a document, see
    /// [`Session::edit_document`]).
    pub fn set_param(
        &mut self,
        node: &str,
        name: &str,
        v: impl Into<Value>,
    ) -> Result<(), SessionError> {
        match &mut self.source {
            Source::Graph(g) => Ok(g.set_param(node, name, v)?),
            Source::Document { .. } => self
                .edit_document(Edit::Param {
                    node: node.into(),
                    param: name.into(),
                    value: v.into(),
                })
                .map(drop),
        }
    }

    /// Set an inline constant (a value edit: no replanning; over a document, see
    /// [`Session::edit_document`]).
    pub fn set_const(
        &mut self,
        node: &str,
        port: &str,
        v: impl Into<Value>,
    ) -> Result<(), SessionError> {
        match &mut self.source {
            Source::Graph(g) => Ok(g.set_const(node, port, v)?),
            Source::Document { .. } => self
                .edit_document(Edit::Const {
                    node: node.into(),
                    port: port.into(),
                    value: v.into(),
                })
                .map(drop),
        }
    }

    /// Set a user input (read by `input.*` nodes): only its readers' cones recook.
    pub fn set_input(&mut self, name: &str, v: impl Into<Value>) {
        self.inputs.insert(name.to_string(), v.into());
    }

    /// Set every user input at once: an input not in `inputs` goes back to its default.
    pub fn replace_inputs(&mut self, inputs: BTreeMap<String, Value>) {
        self.inputs = inputs;
    }

    /// Set the seed.
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// Edit the graph's structure (or anything else; over a document, its own graph); the
    /// next present replans, keeping the values of unchanged nodes.
    pub fn edit<R>(&mut self, f: impl FnOnce(&mut Graph) -> R) -> R {
        match &mut self.source {
            Source::Graph(g) => f(g),
            Source::Document { live, plan, .. } => {
                *plan = None;
                live.edit_graph(f)
            }
        }
    }

    /// Replace the graph (e.g. reloaded from its file; a session over a document holds the
    /// graph from then on). Nodes are matched by id: those with the same op, params and
    /// wiring keep their values.
    pub fn replace_graph(&mut self, graph: Graph) {
        self.source = Source::Graph(graph);
    }

    /// Replace the document (e.g. read again from its files): planned afresh unless it
    /// digests as the one held; values of unchanged flat nodes are kept.
    pub fn replace_document(&mut self, doc: Document) {
        match &mut self.source {
            Source::Document { live, plan, .. } => {
                *plan = None;
                live.replace(doc);
            }
            Source::Graph(_) => {
                let registry = self.eval.registry().clone();
                self.source = Source::Document {
                    live: Box::new(Live::new(registry, doc)),
                    plan: None,
                    empty: Graph::new(),
                };
            }
        }
    }

    /// Change the outputs presented.
    pub fn set_outputs<S: Into<String>>(&mut self, outputs: impl IntoIterator<Item = S>) {
        self.outputs = outputs.into_iter().map(Into::into).collect();
    }

    /// Present a frame at `clock` (see [`Session::present_with`]).
    pub fn present(&mut self, clock: Clock) -> Result<PresentReport, SessionError> {
        self.present_with(clock, |_| Ok(()))
    }

    /// Compute every output at `clock`, run `commit` on the complete frame (for example to
    /// write its files as a group), and only then make it the current frame. On any failure
    /// nothing changes: the last frame stays current and the error is returned.
    pub fn present_with(
        &mut self,
        clock: Clock,
        commit: impl FnOnce(&Frame) -> Result<(), String>,
    ) -> Result<PresentReport, SessionError> {
        let t0 = Instant::now();
        let mut ctx = EvalContext::new();
        ctx.time = clock.time;
        ctx.frame = clock.frame;
        ctx.dt = clock.dt;
        ctx.seed = self.seed;
        ctx.inputs = self.inputs.clone();
        let mut req = Request::new(self.outputs.iter().cloned()).with_errors(ErrorPolicy::FailFast);
        // Over a document, the plan of this clock (its scopes' counts come from the timings).
        let lowered = match &mut self.source {
            Source::Graph(_) => None,
            Source::Document { live, plan, .. } => {
                *plan = None;
                let l = live.lower(&ctx)?;
                if !l.report.scopes.is_empty() {
                    req = req.with_timings();
                }
                Some(l)
            }
        };
        let graph = cooked_graph(&self.source, &lowered);
        let out = self.eval.evaluate(graph, &req, &ctx)?;
        let frame = Frame {
            number: self.presented,
            clock,
            values: out.values,
        };
        commit(&frame).map_err(SessionError::Commit)?;
        Ok(self.settle(out.stats, &out.timings, frame, lowered, t0))
    }

    /// Make `frame` (just cooked from `lowered`, or from the plain graph) the current one:
    /// pin its values in the store and release the old frame's, keep the plan for the next
    /// edit, and report what the cook did.
    fn settle(
        &mut self,
        s: kiln_core::eval::Stats,
        timings: &[kiln_core::eval::NodeTiming],
        frame: Frame,
        lowered: Option<Arc<Lowered>>,
        t0: Instant,
    ) -> PresentReport {
        let graph = cooked_graph(&self.source, &lowered);
        let mut pinned = vec![];
        if let Some(store) = &self.store {
            for name in &self.outputs {
                if let Some(k) = self.eval.output_key(graph, name)
                    && store.pin(k)
                {
                    pinned.push(k);
                }
            }
            for k in std::mem::take(&mut self.pinned) {
                store.unpin(k);
            }
        }
        self.pinned = pinned;
        self.frame = Some(Arc::new(frame));
        self.presented += 1;
        let plan = match (&mut self.source, lowered) {
            (Source::Document { live, plan, .. }, Some(l)) => {
                let ran = timings.iter().map(|t| (t.node.as_str(), t.cut_off));
                let present = LowerPresent {
                    plans: live.counts(),
                    waits: l.report.waits.len(),
                    scopes: l.report.scope_counts(ran),
                };
                *plan = Some(l);
                Some(present)
            }
            _ => None,
        };
        PresentReport {
            frame: self.presented - 1,
            planned: s.planned,
            nodes: self.eval.plan().map_or(0, |p| p.len()),
            reused: s.cache_hits,
            cooked: s.executed,
            cut_off: s.cutoffs,
            parallel: s.parallel,
            elapsed: t0.elapsed(),
            plan,
        }
    }

    /// Memory held, by part: the session's values, its plan and the shared store.
    pub fn memory_report(&self) -> MemoryReport {
        let mut r = self.eval.memory_report();
        if let Some(store) = &self.store {
            r.extend(store.memory_report());
        }
        r
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(store) = &self.store {
            for &k in &self.pinned {
                store.unpin(k);
            }
        }
    }
}
