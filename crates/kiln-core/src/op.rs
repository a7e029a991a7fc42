//! Ops: what a node does. An op declares its ports, params, version, documentation and
//! purity class, and executes on a slice of input values into a slice of output slots.

use crate::context::EvalContext;
use crate::key::KeyHasher;
use crate::value::{Value, ValueType};
use std::borrow::Cow;

pub mod columns;
pub mod param_ports;
pub mod port;
pub mod rule;
pub use columns::{BinaryColumns, Columns};
pub use rule::{Rule, RuleEnv, Violation};

/// How a node's result may change between evaluations with the same inputs and params.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Purity {
    /// A function of inputs and params only.
    Pure,
    /// Also reads the clock or other context fields (declared in [`OpSpec::reads`]).
    Clock,
    /// Also reads user-supplied graph inputs.
    UserInput,
    /// Keeps state between evaluations.
    Stateful,
    /// Acts on the world (writes files, sends messages): never skipped by a cache.
    SideEffect,
}

impl Purity {
    /// Name for docs and listings.
    pub fn name(&self) -> &'static str {
        match self {
            Purity::Pure => "pure",
            Purity::Clock => "clock",
            Purity::UserInput => "user-input",
            Purity::Stateful => "stateful",
            Purity::SideEffect => "side-effect",
        }
    }
}

/// Context fields an op reads; they enter its content key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Reads(pub u8);

impl Reads {
    /// Reads nothing from the context.
    pub const NONE: Reads = Reads(0);
    /// Reads `time`.
    pub const TIME: Reads = Reads(1);
    /// Reads `frame`.
    pub const FRAME: Reads = Reads(2);
    /// Reads `dt`.
    pub const DT: Reads = Reads(4);
    /// Reads `seed`.
    pub const SEED: Reads = Reads(8);
    /// Reads `preview`.
    pub const PREVIEW: Reads = Reads(16);
    /// Reads `resolution`.
    pub const RESOLUTION: Reads = Reads(32);
    /// Union.
    pub const fn with(self, o: Reads) -> Reads {
        Reads(self.0 | o.0)
    }
    /// Whether all of `o` is read.
    pub const fn has(self, o: Reads) -> bool {
        self.0 & o.0 == o.0 && o.0 != 0
    }
    /// Whether nothing is read.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Feed the fields read into a key.
    pub fn hash_fields(self, ctx: &EvalContext, h: &mut KeyHasher) {
        if self.has(Reads::TIME) {
            h.f64(ctx.time);
        }
        if self.has(Reads::FRAME) {
            h.i64(ctx.frame);
        }
        if self.has(Reads::DT) {
            h.f64(ctx.dt);
        }
        if self.has(Reads::SEED) {
            h.u64(ctx.seed);
        }
        if self.has(Reads::PREVIEW) {
            h.u8(ctx.preview as u8);
        }
        if self.has(Reads::RESOLUTION) {
            match ctx.resolution {
                Some((w, h2)) => {
                    h.u8(1);
                    h.u64(w as u64);
                    h.u64(h2 as u64);
                }
                None => h.u8(0),
            }
        }
    }
}

/// An input port.
#[derive(Clone, Debug)]
pub struct InputSpec {
    /// Port name.
    pub name: Cow<'static, str>,
    /// Accepted type.
    pub ty: ValueType,
    /// Default when unwired: `None` makes the input required.
    pub default: Option<Value>,
    /// Lazy: pulled only when the op asks for it (see [`Op::next_lazy`]).
    pub lazy: bool,
    /// The op handles [`Value::Error`] at this input itself (under
    /// [`ErrorPolicy::Propagate`](crate::eval::ErrorPolicy::Propagate)); without it, an
    /// error arriving here is passed on without running the op.
    pub catches_errors: bool,
    /// A feedback input: the op's output at a sample depends on this input only at earlier
    /// samples (at least its processor's latency before), so a loop through it is legal in
    /// the streaming evaluator (see `crate::stream`).
    pub feedback: bool,
    /// A collective input: it receives a whole list of entities, and several wires into it
    /// queue their entities into that one list. A single input (the default) takes one value;
    /// what a list arriving at a single input means is up to the plan (see
    /// `docs/graph-format.md`).
    pub collective: bool,
    /// What values the input accepts beyond its type (see [`rule`]).
    pub rule: Option<Rule>,
    /// The input was a param of the op before it was made wireable: a graph file that gives a
    /// value (or a curve) for a param of this name gives this input's constant, so files
    /// written before still load (see `docs/graph-format.md`, Nodes).
    pub was_param: bool,
    /// One-line description.
    pub doc: Cow<'static, str>,
}

impl InputSpec {
    /// A required input.
    pub fn required(name: &'static str, ty: ValueType, doc: &'static str) -> Self {
        InputSpec {
            name: name.into(),
            ty,
            default: None,
            lazy: false,
            catches_errors: false,
            feedback: false,
            collective: false,
            rule: None,
            was_param: false,
            doc: doc.into(),
        }
    }
    /// An optional input with a default.
    pub fn optional(name: &'static str, ty: ValueType, default: Value, doc: &'static str) -> Self {
        InputSpec {
            name: name.into(),
            ty,
            default: Some(default),
            lazy: false,
            catches_errors: false,
            feedback: false,
            collective: false,
            rule: None,
            was_param: false,
            doc: doc.into(),
        }
    }
    /// Make the input lazy.
    pub fn lazy(mut self) -> Self {
        self.lazy = true;
        self
    }
    /// Mark the input as a feedback input (see [`InputSpec::feedback`]).
    pub fn feedback(mut self) -> Self {
        self.feedback = true;
        self
    }
    /// Mark the input as collective (see [`InputSpec::collective`]).
    pub fn collective(mut self) -> Self {
        self.collective = true;
        self
    }
    /// Let the op see error values at this input (see [`InputSpec::catches_errors`]).
    pub fn catching_errors(mut self) -> Self {
        self.catches_errors = true;
        self
    }
    /// Accept only values that follow `rule`.
    pub fn with_rule(mut self, rule: Rule) -> Self {
        self.rule = Some(rule);
        self
    }
    /// Mark the input as a former param (see [`InputSpec::was_param`]).
    pub fn was_param(mut self) -> Self {
        self.was_param = true;
        self
    }
}

/// An output port.
#[derive(Clone, Debug)]
pub struct OutputSpec {
    /// Port name.
    pub name: Cow<'static, str>,
    /// Declared type (ops may refine it through [`Op::infer_outputs`]).
    pub ty: ValueType,
    /// One-line description.
    pub doc: Cow<'static, str>,
}

impl OutputSpec {
    /// An output port.
    pub fn new(name: &'static str, ty: ValueType, doc: &'static str) -> Self {
        OutputSpec {
            name: name.into(),
            ty,
            doc: doc.into(),
        }
    }
}

/// A parameter: a value fixed per node, set in the graph rather than wired.
#[derive(Clone, Debug)]
pub struct ParamSpec {
    /// Param name.
    pub name: Cow<'static, str>,
    /// Type.
    pub ty: ValueType,
    /// Default (`None` makes the param required).
    pub default: Option<Value>,
    /// What values the param accepts beyond its type (see [`rule`]).
    pub rule: Option<Rule>,
    /// A plan-time port: the value shapes the node before it runs (its output type, its
    /// structure), so a wire into it must come from a value the plan knows (a constant, a
    /// graph input, a scope's item), which the plan writes in as the param's constant. Any
    /// other param is also an ordinary input port: a wire from a cooked value drives it at
    /// run time (see [`param_ports`]).
    pub plan_time: bool,
    /// One-line description.
    pub doc: Cow<'static, str>,
}

impl ParamSpec {
    /// A param with a default.
    pub fn new(name: &'static str, ty: ValueType, default: Value, doc: &'static str) -> Self {
        ParamSpec {
            name: name.into(),
            ty,
            default: Some(default),
            rule: None,
            plan_time: false,
            doc: doc.into(),
        }
    }
    /// A param the graph must set.
    pub fn required(name: &'static str, ty: ValueType, doc: &'static str) -> Self {
        ParamSpec {
            name: name.into(),
            ty,
            default: None,
            rule: None,
            plan_time: false,
            doc: doc.into(),
        }
    }
    /// Mark the param as a plan-time port (see [`ParamSpec::plan_time`]).
    pub fn plan_time(mut self) -> Self {
        self.plan_time = true;
        self
    }
    /// Accept only values that follow `rule`.
    pub fn with_rule(mut self, rule: Rule) -> Self {
        self.rule = Some(rule);
        self
    }
}

/// Everything declared about an op.
#[derive(Clone, Debug)]
pub struct OpSpec {
    /// Registry id, e.g. `math.add`.
    pub id: Cow<'static, str>,
    /// Version: bump when results change, so old cache entries stop matching.
    pub version: u32,
    /// Documentation.
    pub doc: Cow<'static, str>,
    /// Input ports, in order.
    pub inputs: Vec<InputSpec>,
    /// Output ports, in order.
    pub outputs: Vec<OutputSpec>,
    /// Params, in order.
    pub params: Vec<ParamSpec>,
    /// Purity class.
    pub purity: Purity,
    /// Context fields read.
    pub reads: Reads,
    /// A unit delay (the latch): input 0 (`init`) seeds it and input 1 is captured for the
    /// next tick. Neither is a dependency within a tick, so a cycle through input 1 is legal;
    /// its output is the stored state (see [`crate::recurrence`]).
    pub delay: bool,
    /// What the node is to a graph used as a node (see [`Role`]).
    pub role: Role,
    /// A rule over all the params together (an image's pixels in total, say), checked once
    /// each param follows its own (see [`rule`]).
    pub params_rule: Option<rule::ParamsCheck>,
    /// Its result changes whenever a wired input changes (the plan's `scope.gather` of
    /// parts of fixed lengths): an evaluator that cuts off unchanged results need not
    /// compare this op's new result with its old one when an input brought it to run.
    pub injective: bool,
}

/// What a node of an op is to the interface of its graph: an ordinary node, or one of the
/// graph's inputs or outputs. The plan (see `kiln_lower::lower`) binds the interface nodes of a
/// graph used as a node to the ports of its call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Role {
    /// An ordinary node.
    #[default]
    Node,
    /// A graph input: its param `name` names it, its param `default` (if any) is its default,
    /// and its one output is the input's value.
    GraphInput,
    /// A graph output: named by its node id, its input `value` is what it gives.
    GraphOutput,
    /// A two-way choice with inputs `cond`, `a` (taken when true) and `b`: when the plan knows
    /// `cond` (a constant or a graph input), it takes one alternative and writes nothing that
    /// only the other needs.
    Choice,
}

impl OpSpec {
    /// A pure op with no ports yet.
    pub fn new(id: &'static str, doc: &'static str) -> Self {
        OpSpec {
            id: id.into(),
            version: 1,
            doc: doc.into(),
            inputs: vec![],
            outputs: vec![],
            params: vec![],
            purity: Purity::Pure,
            reads: Reads::NONE,
            delay: false,
            role: Role::Node,
            params_rule: None,
            injective: false,
        }
    }
    /// Set the interface role (see [`Role`]).
    pub fn role(mut self, r: Role) -> Self {
        self.role = r;
        self
    }
    /// Add an input.
    pub fn input(mut self, i: InputSpec) -> Self {
        self.inputs.push(i);
        self
    }
    /// Add an output.
    pub fn output(mut self, o: OutputSpec) -> Self {
        self.outputs.push(o);
        self
    }
    /// Add a param.
    pub fn param(mut self, p: ParamSpec) -> Self {
        self.params.push(p);
        self
    }
    /// Set the purity class.
    pub fn purity(mut self, p: Purity) -> Self {
        self.purity = p;
        self
    }
    /// Declare context fields read (sets purity to `Clock` if it was `Pure`).
    pub fn reads(mut self, r: Reads) -> Self {
        self.reads = self.reads.with(r);
        if self.purity == Purity::Pure {
            self.purity = Purity::Clock;
        }
        self
    }
    /// Set the rule over all the params together (see [`OpSpec::params_rule`]).
    pub fn with_params_rule(mut self, check: rule::ParamsCheck) -> Self {
        self.params_rule = Some(check);
        self
    }
    /// Mark the op injective (see [`OpSpec::injective`]).
    pub fn injective(mut self) -> Self {
        self.injective = true;
        self
    }
    /// Set the version.
    pub fn version(mut self, v: u32) -> Self {
        self.version = v;
        self
    }
    /// Index of an input by name.
    pub fn input_index(&self, name: &str) -> Option<usize> {
        self.inputs.iter().position(|p| p.name == name)
    }
    /// Index of an output by name. `out` is also the name of the default output: the port
    /// called `out`, or the first output when none is. A reference without a port
    /// (`node`, see [`crate::graph::PortRef::parse`]) means `node.out`, so a wire, a request
    /// and a graph output all read a bare node name the same way.
    pub fn output_index(&self, name: &str) -> Option<usize> {
        match self.outputs.iter().position(|p| p.name == name) {
            None if name == crate::graph::DEFAULT_PORT && !self.outputs.is_empty() => Some(0),
            found => found,
        }
    }
    /// Index of a param by name.
    pub fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }
    /// How diagnostics name a port or param: ``input `a` ``, ``output `out` ``,
    /// ``param `octaves` `` (`?` for an index the op does not have).
    pub fn port_name(&self, port: PortIndex) -> String {
        let name = |n: Option<&Cow<'static, str>>| n.map_or("?".to_string(), |n| n.to_string());
        match port {
            PortIndex::Input(i) => {
                format!("input `{}`", name(self.inputs.get(i).map(|p| &p.name)))
            }
            PortIndex::Output(i) => {
                format!("output `{}`", name(self.outputs.get(i).map(|p| &p.name)))
            }
            PortIndex::Param(i) => {
                format!("param `{}`", name(self.params.get(i).map(|p| &p.name)))
            }
        }
    }
    /// Whether param `i` is a plan-time port (see [`ParamSpec::plan_time`]): marked so, or a
    /// param of a graph's interface node or of a latch, which the plan reads itself.
    pub fn param_at_plan_time(&self, i: usize) -> bool {
        self.params.get(i).is_some_and(|p| p.plan_time) || self.role != Role::Node || self.delay
    }
    /// Whether any input is lazy.
    pub fn has_lazy_inputs(&self) -> bool {
        self.inputs.iter().any(|i| i.lazy)
    }
}

/// Which port an [`OpError`] concerns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortIndex {
    /// Input port by index.
    Input(usize),
    /// Output port by index.
    Output(usize),
    /// Param by index.
    Param(usize),
}

/// An error raised by an op; the evaluator adds the node id, op id and port name.
#[derive(Clone, Debug, PartialEq)]
pub struct OpError {
    /// The port involved, if any.
    pub port: Option<PortIndex>,
    /// What went wrong.
    pub message: String,
}

impl OpError {
    /// An error not tied to a port.
    pub fn new(msg: impl Into<String>) -> Self {
        OpError {
            port: None,
            message: msg.into(),
        }
    }
    /// An error about input `i`.
    pub fn input(i: usize, msg: impl Into<String>) -> Self {
        OpError {
            port: Some(PortIndex::Input(i)),
            message: msg.into(),
        }
    }
    /// An error about param `i`.
    pub fn param(i: usize, msg: impl Into<String>) -> Self {
        OpError {
            port: Some(PortIndex::Param(i)),
            message: msg.into(),
        }
    }
    /// The op saw the cancellation token set and stopped.
    pub fn cancelled() -> Self {
        OpError {
            port: None,
            message: CANCELLED_MESSAGE.into(),
        }
    }
    /// Whether this is the cancellation marker.
    pub fn is_cancelled(&self) -> bool {
        self.port.is_none() && self.message == CANCELLED_MESSAGE
    }
}

const CANCELLED_MESSAGE: &str = "\u{0}cancelled";

/// What an op sees when it runs: input values (one per input port, in order; an unpulled lazy
/// input is [`Value::Empty`]), params (one per param, defaults filled in) and the context.
pub struct OpCall<'a> {
    /// Input values.
    pub inputs: &'a [Value],
    /// Param values.
    pub params: &'a [Value],
    /// Evaluation context.
    pub ctx: &'a EvalContext,
    /// The id of the node being run.
    pub node: &'a str,
}

macro_rules! getter {
    ($name:ident, $t:ty, $conv:ident, $what:literal) => {
        /// Read an input, or an error naming the port.
        #[inline]
        pub fn $name(&self, i: usize) -> Result<$t, OpError> {
            self.inputs.get(i).and_then(|v| v.$conv()).ok_or_else(|| {
                OpError::input(
                    i,
                    format!(
                        concat!("expected ", $what, ", found {}"),
                        self.inputs
                            .get(i)
                            .map(|v| v.type_name())
                            .unwrap_or("nothing")
                    ),
                )
            })
        }
    };
}

// Params have no index getters: an op reads its params by name, as the arguments of its
// `#[op]` function.
impl OpCall<'_> {
    getter!(float, f64, as_f64, "float");
    getter!(int, i64, as_i64, "int");
    getter!(bool, bool, as_bool, "bool");
    getter!(color, [f32; 4], as_color, "color");

    /// Read a heavy input as a concrete type.
    pub fn heavy<T: crate::value::HeavyData>(&self, i: usize, what: &str) -> Result<&T, OpError> {
        self.inputs
            .get(i)
            .and_then(|v| v.as_heavy::<T>())
            .ok_or_else(|| {
                OpError::input(
                    i,
                    format!(
                        "expected {what}, found {}",
                        self.inputs
                            .get(i)
                            .map(|v| v.type_name())
                            .unwrap_or("nothing")
                    ),
                )
            })
    }
    /// Return `Err(cancelled)` if cancellation was requested: call this in long loops.
    #[inline]
    pub fn check_cancel(&self) -> Result<(), OpError> {
        if self.ctx.is_cancelled() {
            Err(OpError::cancelled())
        } else {
            Ok(())
        }
    }
}

/// A node operation.
///
/// `execute` receives borrowed slices and writes into pre-sized output slots, so the calling
/// convention itself allocates nothing.
pub trait Op: Send + Sync + 'static {
    /// The op's declaration.
    fn spec(&self) -> &OpSpec;

    /// Compute the outputs. `out` has one slot per output port.
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError>;

    /// For ops with lazy inputs: given the inputs pulled so far (eager inputs are always
    /// present; `pulled[i]` tells whether lazy input `i` has been pulled), return the next
    /// lazy input to pull, or `None` when ready to execute. The default pulls nothing.
    fn next_lazy(&self, _call: &OpCall<'_>, _pulled: &[bool]) -> Result<Option<usize>, OpError> {
        Ok(None)
    }

    /// The output types, given the types arriving at each input (`None`: unwired and no
    /// default) and the params. The default returns the declared output types; polymorphic
    /// ops refine them, or explain why the input types do not fit together.
    fn infer_outputs(
        &self,
        _inputs: &[Option<ValueType>],
        _params: &[Value],
    ) -> Result<Vec<ValueType>, String> {
        Ok(self.spec().outputs.iter().map(|o| o.ty).collect())
    }

    /// Feed what the op reads from the context into its key. The default hashes the fields
    /// declared in [`OpSpec::reads`]; ops reading graph inputs hash the input's value.
    fn hash_context(&self, _params: &[Value], ctx: &EvalContext, h: &mut KeyHasher) {
        self.spec().reads.hash_fields(ctx, h)
    }

    /// A scalar form of the op that the compiled and eager evaluators may run instead of
    /// [`Op::execute`] when every input is statically a float (`inputs` gives the types
    /// arriving at each input) and the op has one float output. It must give the same bits
    /// as `execute` on those inputs: ops return the very function their `execute` applies.
    /// The default has none.
    fn kernel(&self, _inputs: &[Option<ValueType>], _params: &[Value]) -> Option<Kernel> {
        None
    }

    /// The column forms of [`Op::kernel`] for the same `inputs` and `params`: the same
    /// function over a whole run of floats in one loop (made with
    /// [`unary_columns!`](crate::unary_columns) or [`binary_columns!`](crate::binary_columns)
    /// from the kernel's own closure). The flow executor runs a batch through them. The
    /// default has none; an op offering them must offer the kernel too.
    fn columns(&self, _inputs: &[Option<ValueType>], _params: &[Value]) -> Option<Columns> {
        None
    }
}

/// A scalar float form of an op (see [`Op::kernel`]): what a compiled schedule runs on raw
/// `f64`s, with no [`Value`] matching, no [`OpCall`] and no `Result`.
#[derive(Clone, Copy, Debug)]
pub enum Kernel {
    /// A constant.
    Const(f64),
    /// A function of the op's one input.
    Unary(fn(f64) -> f64),
    /// A function of the op's two inputs, in port order.
    Binary(fn(f64, f64) -> f64),
    /// A function of the op's three inputs, in port order.
    Ternary(fn(f64, f64, f64) -> f64),
}

impl Kernel {
    /// Number of inputs the kernel reads.
    pub fn arity(&self) -> usize {
        match self {
            Kernel::Const(_) => 0,
            Kernel::Unary(_) => 1,
            Kernel::Binary(_) => 2,
            Kernel::Ternary(_) => 3,
        }
    }
}
