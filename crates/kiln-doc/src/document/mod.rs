//! Documents: graphs that hold structure. A [`Document`] is a [`Graph`] some of whose nodes
//! are calls of other graphs ([`Asset`]s), optionally written out by a scope (`for`, `fold`,
//! `step`). Evaluators never see a document: the plan (`kiln_lower::lower`) writes it out into
//! the flat graph they run.
//!
//! A document is plain data built by whoever reads graph files ([`crate::assets`]); every call
//! already holds the asset it calls, so lowering never looks anything up by name or path.

mod digest;
mod interface;

pub use digest::DocDigest;
pub use interface::{Interface, PortDecl, input_name};

use kiln_core::graph::{Graph, NodeId, PortRef};
use kiln_core::key::Key;
use kiln_core::value::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The iteration cap of a loop port (of a graph in the flow paradigm) whose file sets none.
pub const DEFAULT_LOOP_MAX: u32 = 1000;

/// The prefix of the op id of a call: node `wall` with op `@brick` calls asset `brick`.
pub const CALL_PREFIX: char = '@';

/// A graph with structure: the graph (where a call is a node whose op starts with
/// [`CALL_PREFIX`]) and what each call calls.
#[derive(Clone, Debug, Default)]
pub struct Document {
    /// The nodes and wires. Interface nodes (graph inputs and outputs) are the document's
    /// ports when it is used as a node.
    pub graph: Graph,
    /// The call of each call node, by node id.
    pub calls: BTreeMap<NodeId, Call>,
    /// Animated values: the keyframed curve feeding an input port (`node.port`) or a param
    /// (`node.param`), sampled at the clock.
    pub curves: BTreeMap<PortRef, Animated>,
    /// `Some` when the graph runs in the flow paradigm (entities through ports, see
    /// `kiln_lower::flow`): a call of it becomes one `scope.flow` node.
    pub flow: Option<FlowDecl>,
}

/// What a graph in the flow paradigm declares besides its nodes: its loop ports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowDecl {
    /// The loop ports (`node.input`), each with its iteration cap: the most times entities
    /// may be sent back into it.
    pub loops: BTreeMap<PortRef, u32>,
}

/// Where an animated value goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Animated {
    /// Whether it is a param (`true`) or an input port (`false`).
    pub param: bool,
    /// The curve's keys, as the `keys` param of `curve.sample` holds them.
    pub keys: Value,
    /// The interpolation (`step`, `linear`, `bezier`).
    pub interp: String,
}

/// A node that is a graph: the asset it calls and the scope that writes it out.
#[derive(Clone, Debug)]
pub struct Call {
    /// The graph called.
    pub asset: Arc<Asset>,
    /// How the call is written out.
    pub scope: Scope,
}

/// How a call is written out.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Scope {
    /// Once, in place.
    #[default]
    Once,
    /// Once per item of a list.
    For(ForScope),
    /// A chain of passes.
    Fold(FoldScope),
    /// A fixed-step simulation.
    Step(StepScope),
}

impl Scope {
    /// The scope's name in files and reports.
    pub fn kind(&self) -> &'static str {
        match self {
            Scope::Once => "call",
            Scope::For(_) => "for",
            Scope::Fold(_) => "fold",
            Scope::Step(_) => "step",
        }
    }
}

/// A value the plan needs before it can write a scope out: a constant, or a reference to a
/// port of the calling graph (a graph input, or a node the plan cooks first: a wait).
#[derive(Clone, Debug, PartialEq)]
pub enum PlanValue {
    /// Known in the document.
    Const(Value),
    /// The value of an output port of the calling graph.
    Ref(PortRef),
}

/// A `for` scope: the body once per item of `items`. The body may declare the inputs `item`
/// (the item; another name with `as`), `index` (its place, from 0) and `count` (the number of items). Every body
/// output not carried is collected into a list, one element per item.
#[derive(Clone, Debug, PartialEq)]
pub struct ForScope {
    /// The list written out.
    pub items: PlanValue,
    /// The body input that receives the item (`item` unless the file says `as`).
    pub item: String,
    /// Carried values, `(input, output)`: body input `input` is fed, for every copy after
    /// the first, from output `output` of the copy before (the first copy takes the call's
    /// input). The call's output `output` is what the last copy left.
    pub carry: Vec<(String, String)>,
}

/// When a fold stops early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Until {
    /// When a pass leaves every state value as it found it.
    Changed,
    /// When the body's bool output of this name is true after a pass.
    Output(String),
}

/// A `fold` scope: passes in a chain. Each state `(input, output)` feeds body input `input`
/// from output `output` of the pass before (the first pass takes the call's input); the
/// call's outputs are the last pass's. The body may declare the input `index` (from 0).
#[derive(Clone, Debug, PartialEq)]
pub struct FoldScope {
    /// The states, `(input, output)`.
    pub state: Vec<(String, String)>,
    /// The number of passes (at most `max`), or `None`: until `until` holds.
    pub count: Option<PlanValue>,
    /// Stop after the first pass where this holds.
    pub until: Option<Until>,
    /// The most passes the fold may make; more fails, naming the fold.
    pub max: u32,
}

/// The default cap on the passes of a fold.
pub const DEFAULT_FOLD_MAX: u32 = 1000;

/// A `step` scope: a fixed-step simulation whose states `(input, output)` feed each step's
/// input from the step before's output; the call's outputs are the state at the clock's time.
#[derive(Clone, Debug, PartialEq)]
pub struct StepScope {
    /// The states, `(input, output)`.
    pub state: Vec<(String, String)>,
    /// Seconds per step.
    pub dt: f64,
    /// Runs of the body per step (each of `dt / substeps`).
    pub substeps: u32,
}

/// A graph used as a node.
#[derive(Debug)]
pub struct Asset {
    /// The name calls use (`brick`, `walls/brick`).
    pub name: String,
    /// Where it was read from: a file path, or `file#name` for a graph defined inline.
    pub origin: String,
    /// Digest of what its files hold (its own text and, through its calls, every asset it
    /// calls): editing any of them changes it.
    pub digest: Key,
    /// Free text describing it.
    pub description: Option<String>,
    /// The graph.
    pub doc: Document,
    /// Its ports.
    pub interface: Interface,
}

impl Document {
    /// A document without calls.
    pub fn from_graph(graph: Graph) -> Document {
        Document {
            graph,
            ..Document::default()
        }
    }
    /// Whether any node is a call, any value is animated, or the graph is a flow graph.
    pub fn has_structure(&self) -> bool {
        !self.calls.is_empty() || !self.curves.is_empty() || self.flow.is_some()
    }
}
