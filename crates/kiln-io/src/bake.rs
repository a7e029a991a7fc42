//! Baking: a graph whose user inputs are frozen into constants and whose pure cones are
//! folded into stored constants, giving the same outputs with fewer nodes.
//!
//! [`bake`] works on a loaded graph in memory and returns the baked graph ([`Baked`]);
//! [`write_baked`] writes it as a graph file with its heavy values in a blob folder beside it.
//!
//! # What is folded
//!
//! 1. **Freezing** (with [`BakeOptions::freeze`]): every graph input (an `input.<type>` node)
//!    becomes a `const` node of the same id holding its current value: the one given in
//!    [`BakeOptions::inputs`], else its default. Without freezing, inputs stay inputs and
//!    everything that depends on them stays too.
//! 2. **Classes**: a node is *static* when it depends only on params and constants, as
//!    [`Plan::class`] computes ([`Class::Static`]) on the
//!    frozen graph. With [`BakeOptions::seed`] set, the seed is frozen too: ops whose only
//!    context read is the seed (`image.noise`, `clock.seed`, ...) count as static, and are
//!    evaluated at that seed. Nodes reading the clock (time, frame, dt), latches, stateful and
//!    side-effect nodes, and whatever depends on them are never static.
//! 3. **Kept nodes**: every node that is not static, every graph output (`output` node, so
//!    output names stay valid), and every signal op (a node with a `signal` port, or fed by
//!    one: signals exist only in the streaming evaluator) stays as it is.
//! 4. **Folding**: each output port of a static node that feeds a kept node is evaluated (by
//!    a [`LazyEvaluator`]) and replaced by a `const` node holding the value. The const takes
//!    the folded node's id when the port is `out` (so `node` and `node.out` still name it),
//!    else the id `<node>__<port>`. A `const` node already there (or a frozen input) is kept
//!    as it is. Every other static node is no longer needed and is removed.
//!
//! A port whose value cannot be stored is not folded: its node is kept, and its own static
//! inputs are folded instead. That is a node that fails (the baked graph fails the same way),
//! an empty value, and a heavy value of a type without a codec in the registry (see
//! [`encode_value`]). If the graph cannot be planned for the tick evaluators (an audio graph
//! with a feedback loop), nothing is folded; inputs are still frozen.
//!
//! The folded values are bit for bit those a run of the original graph computes (with the
//! same inputs and, when frozen, the same seed), so every evaluator gives the baked graph's
//! outputs the same bits as the original's.
//!
//! # Storage: embedded values and blobs
//!
//! The `const` op takes a `value` of any type, so it holds every folded value. Plain values
//! (numbers, vectors, colours, strings, lists of them) are written into the graph file, as
//! any constant. Heavy values (images, meshes, audio buffers, and lists holding them) and
//! plain values whose JSON form would not read back bit for bit (a NaN with a payload) are
//! stored by content in a blob folder beside the graph file, `<graph stem>.blobs/`, one file
//! per distinct value, and referenced from the graph file:
//!
//! ```json
//! "sky": {"op": "const", "params": {"value": {"type": "image", "blob": "baked.blobs/4f…e1.kv"}}}
//! ```
//!
//! A blob file has the entry format of the persistent cache ([`crate::cache`]): header (magic,
//! length, XXH3-128 checksum, key) and the value in the binary codec of [`encode_value`]. Its
//! key, and so its name, is the XXH3-128 of that payload. Reading the graph with
//! [`read_graph`](crate::read_graph) resolves each reference relative to the graph file's
//! folder and checks it: a missing or damaged blob, or one of another type than the reference
//! says, is a [`LoadError::Blob`] naming it.
//!
//! [`write_baked`] writes the blobs first (each atomically, skipping one already there
//! intact), then the graph file (atomically), so a graph file on disk never references a blob
//! that is not there yet. Blobs of an earlier bake to the same path that are no longer
//! referenced are left in the folder.

use crate::cache::{check_entry, encode_entry};
use crate::convert::{self, ColorStyle, Ctx};
use crate::graph_file::{GraphFile, LoadError, save_graph_with};
use crate::json::Json;
use crate::value_codec::{decode_value, encode_value};
use crate::values::{WriteError, write_atomic};
use kiln_core::context::EvalContext;
use kiln_core::eval::{ErrorPolicy, EvalError, Evaluator, LazyEvaluator, Request};
use kiln_core::graph::{Graph, PortRef};
use kiln_core::key::{Key, KeyHasher};
use kiln_core::op::{Purity, Reads};
use kiln_core::plan::{Class, Plan, Source};
use kiln_core::registry::Registry;
use kiln_core::validate::{Diagnostics, validate};
use kiln_core::value::{Value, ValueType};
use kiln_std::graph_io::{INPUT_PREFIX, OUTPUT_OP};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::path::{Component, Path, PathBuf};

/// The op of the nodes that hold frozen inputs and folded values.
pub const CONST_OP: &str = "const";

/// What the blob folder's name adds to the graph file's stem (`baked.json` →
/// `baked.blobs`).
pub const BLOB_DIR_SUFFIX: &str = ".blobs";

/// The extension of blob files.
pub const BLOB_EXT: &str = "kv";

/// How to bake.
#[derive(Clone, Debug, Default)]
pub struct BakeOptions {
    /// Turn graph inputs into constants (their values from [`inputs`](Self::inputs), else
    /// their defaults).
    pub freeze: bool,
    /// Values of graph inputs, by name (only with [`freeze`](Self::freeze)). Ints are taken
    /// for floats and hex strings for colours, as for a run.
    pub inputs: BTreeMap<String, Value>,
    /// Freeze the evaluation seed at this value: nodes whose only context read is the seed
    /// are folded, at this seed. `None`: they stay, and read the seed of each run.
    pub seed: Option<u64>,
}

/// Why a graph could not be baked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BakeError {
    /// The graph does not validate.
    #[error("{0}")]
    Invalid(Diagnostics),
    /// Input values were given without freezing.
    #[error(
        "input values were given but inputs are not frozen (hint: add --freeze to turn inputs into constants)"
    )]
    InputsNeedFreeze,
    /// A value was given for an input the graph does not have.
    #[error("the graph has no input named `{name}` ({})", names_or_none(inputs))]
    UnknownInput {
        /// The name given.
        name: String,
        /// The graph's inputs.
        inputs: Vec<String>,
    },
    /// An input's value could not be frozen (a value of the wrong type).
    #[error("cannot freeze input `{name}`: {error}")]
    Input {
        /// The input.
        name: String,
        /// What went wrong.
        error: EvalError,
    },
    /// Evaluating the folded values failed as a whole (a failing node does not: it is kept).
    #[error("evaluation failed: {0}")]
    Eval(EvalError),
    /// The baked graph does not validate: a bug in baking.
    #[error("the baked graph does not validate (a bug in kiln bake): {0}")]
    Result(Diagnostics),
    /// The destination path cannot hold a baked graph.
    #[error("cannot write a baked graph to `{}`: {message}", path.display())]
    Destination {
        /// The path.
        path: PathBuf,
        /// Why not.
        message: String,
    },
    /// Writing a blob or the graph file failed.
    #[error(transparent)]
    Write(#[from] WriteError),
}

fn names_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "it has no inputs".to_string()
    } else {
        format!("inputs: {}", names.join(", "))
    }
}

/// Where a folded value is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// In the graph file, as a constant.
    Embedded,
    /// In a blob file beside the graph file.
    Blob,
}

/// One folded cone: a `const` node of the baked graph that replaces a computed value.
#[derive(Clone, Debug, PartialEq)]
pub struct Folded {
    /// The id of the `const` node.
    pub node: String,
    /// The port whose value it holds, `node.port`.
    pub source: String,
    /// The op of that port's node.
    pub op: String,
    /// How many nodes of the original graph its value was computed from (the static cone
    /// upstream of the port, the port's node included; cones may overlap).
    pub cone: usize,
    /// The value's type name.
    pub type_name: &'static str,
    /// Where the value is stored when written.
    pub storage: Storage,
}

/// What [`bake`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BakeReport {
    /// Nodes of the original graph.
    pub nodes_before: usize,
    /// Nodes of the baked graph.
    pub nodes_after: usize,
    /// The inputs frozen into constants, with their values, in graph order.
    pub frozen: Vec<(String, Value)>,
    /// The frozen seed, if any.
    pub seed: Option<u64>,
    /// The folded cones, in graph order.
    pub folded: Vec<Folded>,
    /// Why nothing was folded, when the graph could not be planned.
    pub not_folded: Option<String>,
}

impl BakeReport {
    /// The number of folded cones.
    pub fn folded_cones(&self) -> usize {
        self.folded.len()
    }
    /// Folded values stored in blobs.
    pub fn blob_values(&self) -> usize {
        self.folded
            .iter()
            .filter(|f| f.storage == Storage::Blob)
            .count()
    }
}

impl fmt::Display for BakeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "nodes: {} before, {} after",
            self.nodes_before, self.nodes_after
        )?;
        let blobs = self.blob_values();
        writeln!(
            f,
            "folded cones: {} ({} embedded, {} in blobs)",
            self.folded_cones(),
            self.folded_cones() - blobs,
            blobs
        )?;
        if !self.frozen.is_empty() {
            let frozen: Vec<String> = self
                .frozen
                .iter()
                .map(|(n, v)| format!("{n} = {}", short(v)))
                .collect();
            writeln!(f, "frozen inputs: {}", frozen.join(", "))?;
        }
        if let Some(s) = self.seed {
            writeln!(f, "frozen seed: {s}")?;
        }
        if let Some(why) = &self.not_folded {
            writeln!(f, "nothing folded: {why}")?;
        }
        Ok(())
    }
}

/// A short form of a value for reports.
fn short(v: &Value) -> String {
    if matches!(v, Value::Heavy(_)) {
        return format!("<{}>", v.type_name());
    }
    let mut s = String::new();
    crate::json::compact(&convert::display(v), &mut s);
    s
}

/// A baked graph: the graph file (its `const` nodes hold the folded values themselves) and
/// what baking did.
#[derive(Clone, Debug)]
pub struct Baked {
    /// The baked graph and its metadata (the docs of frozen inputs are dropped).
    pub file: GraphFile,
    /// What was frozen and folded.
    pub report: BakeReport,
}

/// Bake a graph (see the module docs). The graph must validate.
pub fn bake(
    file: &GraphFile,
    registry: &Registry,
    options: &BakeOptions,
) -> Result<Baked, BakeError> {
    let graph = &file.graph;
    let diags = validate(graph, registry);
    if !diags.is_empty() {
        return Err(BakeError::Invalid(Diagnostics(diags)));
    }
    let input_ids: Vec<usize> = graph
        .nodes()
        .iter()
        .enumerate()
        .filter(|(_, n)| n.op.starts_with(INPUT_PREFIX))
        .map(|(i, _)| i)
        .collect();
    if !options.inputs.is_empty() && !options.freeze {
        return Err(BakeError::InputsNeedFreeze);
    }
    let names: Vec<String> = input_ids
        .iter()
        .map(|&i| graph.nodes()[i].id.to_string())
        .collect();
    // An input's name is its `name` param (the node's id in graph files).
    let input_name = |i: usize| -> String {
        let n = &graph.nodes()[i];
        n.params
            .get("name")
            .and_then(Value::as_str)
            .map_or_else(|| n.id.to_string(), str::to_string)
    };
    let known: HashSet<String> = input_ids.iter().map(|&i| input_name(i)).collect();
    if let Some(name) = options.inputs.keys().find(|k| !known.contains(*k)) {
        return Err(BakeError::UnknownInput {
            name: name.clone(),
            inputs: names,
        });
    }

    let mut ctx = EvalContext::new();
    ctx.seed = options.seed.unwrap_or(0);
    ctx.inputs = options.inputs.clone();

    // 1. Freeze the inputs: evaluate each input node as a run would, and make it a const.
    let mut frozen = graph.clone();
    let mut meta = file.meta.clone();
    let mut report = BakeReport {
        nodes_before: graph.len(),
        seed: options.seed,
        ..BakeReport::default()
    };
    if options.freeze && !input_ids.is_empty() {
        let mut eval = LazyEvaluator::new(registry.clone());
        for &i in &input_ids {
            let id = graph.nodes()[i].id.to_string();
            let out = eval
                .evaluate(graph, &Request::new([id.clone()]), &ctx)
                .map_err(|error| BakeError::Input {
                    name: input_name(i),
                    error,
                })?;
            let value = out.values.into_iter().next().map(|(_, v)| v);
            meta.input_docs.remove(&id);
            report.frozen.push((id, value.unwrap_or_default()));
        }
        frozen = with_consts(graph, &report.frozen);
    }

    // 2. Classes, kept nodes and the ports to fold.
    let plan = match Plan::build(&frozen, registry) {
        Ok(p) => p,
        Err(d) => {
            let why =
                d.0.first()
                    .map_or_else(|| d.to_string(), |first| first.to_string());
            report.not_folded = Some(format!("the tick evaluators cannot plan the graph: {why}"));
            report.nodes_after = frozen.len();
            return Ok(Baked {
                file: GraphFile {
                    graph: frozen,
                    meta,
                },
                report,
            });
        }
    };
    let is_static = static_nodes(&plan, options.seed.is_some());
    let signal = signal_nodes(&plan);
    let n = plan.len();
    let mut kept: Vec<bool> = (0..n)
        .map(|v| {
            !is_static[v]
                || signal[v]
                || plan.op(v).spec().delay
                || plan.op(v).spec().id == OUTPUT_OP
        })
        .collect();
    // Each wire as (from node, from port, to node) in dense indices (the graph validated,
    // so every wire resolves).
    let wires = resolve_wires(&frozen, &plan);
    let is_const = |v: usize| plan.op(v).spec().id == CONST_OP;
    let mut values: HashMap<(usize, usize), Value> = HashMap::new();
    let mut eval = LazyEvaluator::new(registry.clone());
    let frontier = loop {
        let frontier: BTreeSet<(usize, usize)> = wires
            .iter()
            .flatten()
            .filter(|(from, _, to)| kept[*to] && !kept[*from])
            .map(|(from, port, _)| (*from, *port))
            .collect();
        let missing: Vec<(usize, usize)> = frontier
            .iter()
            .filter(|(v, p)| !is_const(*v) && !values.contains_key(&(*v, *p)))
            .copied()
            .collect();
        if missing.is_empty() {
            break frontier;
        }
        let names: Vec<String> = missing
            .iter()
            .map(|&(v, p)| port_name(&plan, v, p))
            .collect();
        let request = Request::new(names).with_errors(ErrorPolicy::Propagate);
        let out = eval
            .evaluate(&frozen, &request, &ctx)
            .map_err(BakeError::Eval)?;
        for (&(v, p), (_, value)) in missing.iter().zip(out.values) {
            if storable(&value, registry) {
                values.insert((v, p), value);
            } else {
                // Not foldable: keep the node; its static inputs join the frontier.
                kept[v] = true;
            }
        }
    };

    // 3. The baked graph: kept nodes as they are, a const per folded port, in graph order.
    let taken: HashSet<&str> = frozen.nodes().iter().map(|n| n.id.as_str()).collect();
    let mut new_ids: HashSet<String> = HashSet::new();
    let mut holder: HashMap<(usize, usize), String> = HashMap::new();
    let mut out = Graph::new();
    let cones = ConeSizes::new(&plan, &is_static);
    for (v, node) in frozen.nodes().iter().enumerate() {
        let ports: Vec<usize> = frontier
            .range((v, 0)..(v, usize::MAX))
            .map(|&(_, p)| p)
            .collect();
        if kept[v] || (!ports.is_empty() && is_const(v)) {
            copy_node(&mut out, node);
            for p in ports {
                holder.insert((v, p), node.id.to_string());
            }
            continue;
        }
        for p in ports {
            let Some(value) = values.get(&(v, p)) else {
                continue;
            };
            let spec = plan.op(v).spec();
            let port = spec.outputs.get(p).map_or("out", |o| &o.name);
            let id = if port == "out" {
                node.id.to_string()
            } else {
                fresh_id(&format!("{}__{port}", node.id), &taken, &new_ids)
            };
            new_ids.insert(id.clone());
            add_const(&mut out, &id, value.clone());
            report.folded.push(Folded {
                node: id.clone(),
                source: port_name(&plan, v, p),
                op: node.op.clone(),
                cone: cones.size(v),
                type_name: value.type_name(),
                storage: if needs_blob(value) {
                    Storage::Blob
                } else {
                    Storage::Embedded
                },
            });
            holder.insert((v, p), id);
        }
    }
    for (w, resolved) in frozen.wires().iter().zip(&wires) {
        let Some((from, port, to)) = *resolved else {
            // Does not occur in a valid graph; kept as it was if its target stays.
            if out.node(w.to.node.as_str()).is_some() {
                out.connect(w.from.clone(), w.to.clone());
            }
            continue;
        };
        if !kept[to] {
            continue;
        }
        match holder.get(&(from, port)) {
            Some(h) if !kept[from] => {
                out.connect(PortRef::new(h.as_str(), "out"), w.to.clone());
            }
            _ => out.connect(w.from.clone(), w.to.clone()),
        }
    }
    let diags = validate(&out, registry);
    if !diags.is_empty() {
        return Err(BakeError::Result(Diagnostics(diags)));
    }
    report.nodes_after = out.len();
    Ok(Baked {
        file: GraphFile { graph: out, meta },
        report,
    })
}

/// Every wire of `g` as (from node, from port, to node), `None` where it does not resolve.
fn resolve_wires(g: &Graph, plan: &Plan) -> Vec<Option<(usize, usize, usize)>> {
    g.wires()
        .iter()
        .map(|w| {
            let from = g.index_of(w.from.node.as_str())?;
            let to = g.index_of(w.to.node.as_str())?;
            let port = plan.op(from).spec().output_index(&w.from.port)?;
            Some((from, port, to))
        })
        .collect()
}

/// `node.port` for output `p` of node `v`.
fn port_name(plan: &Plan, v: usize, p: usize) -> String {
    let spec = plan.op(v).spec();
    let port = spec.outputs.get(p).map_or("out", |o| &o.name);
    format!("{}.{port}", plan.id(v))
}

/// `base`, or `base_2`, `base_3`, ... : the first id neither taken nor given out.
fn fresh_id(base: &str, taken: &HashSet<&str>, given: &HashSet<String>) -> String {
    let free = |s: &str| !taken.contains(s) && !given.contains(s);
    if free(base) {
        return base.to_string();
    }
    (2u64..)
        .map(|k| format!("{base}_{k}"))
        .find(|s| free(s))
        .unwrap_or_else(|| base.to_string())
}

fn copy_node(out: &mut Graph, node: &kiln_core::graph::Node) {
    // Ids are unique in the source graph, and new ids avoid them.
    if let Ok(n) = out.add_node(node.id.clone(), &node.op) {
        n.params = node.params.clone();
        n.consts = node.consts.clone();
    }
}

fn add_const(out: &mut Graph, id: &str, value: Value) {
    if let Ok(n) = out.add_node(id, CONST_OP) {
        n.params.insert("value".into(), value);
    }
}

/// `g` with each node of `consts` made a `const` holding its value (wires are kept; an
/// input has none coming in).
fn with_consts(g: &Graph, consts: &[(String, Value)]) -> Graph {
    let consts: HashMap<&str, &Value> = consts.iter().map(|(id, v)| (id.as_str(), v)).collect();
    let mut rebuilt = Graph::new();
    for node in g.nodes() {
        match consts.get(node.id.as_str()) {
            Some(v) => add_const(&mut rebuilt, node.id.as_str(), (*v).clone()),
            None => copy_node(&mut rebuilt, node),
        }
    }
    for w in g.wires() {
        rebuilt.connect(w.from.clone(), w.to.clone());
    }
    rebuilt
}

/// Which nodes are static: [`Plan::class`] is [`Class::Static`], or, with the seed frozen,
/// would be if reading the seed were not a context read.
fn static_nodes(plan: &Plan, seed_frozen: bool) -> Vec<bool> {
    if !seed_frozen {
        return (0..plan.len())
            .map(|v| plan.class(v) == Class::Static)
            .collect();
    }
    let mut st = vec![false; plan.len()];
    for &v in plan.order() {
        let v = v as usize;
        let spec = plan.op(v).spec();
        let own = match spec.purity {
            Purity::Pure => true,
            Purity::Clock => {
                !spec.reads.is_empty() && Reads(spec.reads.0 & !Reads::SEED.0).is_empty()
            }
            _ => false,
        };
        st[v] = own
            && plan.inputs(v).iter().all(|s| match s {
                Source::Wire { node, .. } => st[*node as usize],
                _ => true,
            });
    }
    st
}

/// Signal ops (a `signal` port) and every node fed by one.
fn signal_nodes(plan: &Plan) -> Vec<bool> {
    let mut sig = vec![false; plan.len()];
    for &v in plan.order() {
        let v = v as usize;
        let spec = plan.op(v).spec();
        sig[v] = spec.inputs.iter().any(|i| i.ty == ValueType::Signal)
            || spec.outputs.iter().any(|o| o.ty == ValueType::Signal)
            || plan.output_types(v).contains(&ValueType::Signal)
            || plan.inputs(v).iter().any(|s| match s {
                Source::Wire { node, .. } => sig[*node as usize],
                _ => false,
            });
    }
    sig
}

/// The size of each static node's static cone (itself and its static ancestors).
struct ConeSizes<'a> {
    plan: &'a Plan,
    is_static: &'a [bool],
}

impl<'a> ConeSizes<'a> {
    fn new(plan: &'a Plan, is_static: &'a [bool]) -> Self {
        ConeSizes { plan, is_static }
    }
    fn size(&self, v: usize) -> usize {
        let mut seen = HashSet::from([v]);
        let mut stack = vec![v];
        while let Some(u) = stack.pop() {
            for s in self.plan.inputs(u).iter() {
                if let Source::Wire { node, .. } = s {
                    let w = *node as usize;
                    if self.is_static[w] && seen.insert(w) {
                        stack.push(w);
                    }
                }
            }
        }
        seen.len()
    }
}

/// Whether a folded value can be stored: in the graph file (reading back bit for bit) or in
/// a blob (with the codecs of `registry`).
fn storable(v: &Value, registry: &Registry) -> bool {
    match v {
        Value::Empty | Value::Error(_) => false,
        v if needs_blob(v) => encode_value(v, registry).is_some(),
        _ => true,
    }
}

/// Whether a value goes into a blob: it holds a heavy value, or its JSON form would not read
/// back bit for bit.
pub fn needs_blob(v: &Value) -> bool {
    fn heavy(v: &Value) -> bool {
        match v {
            Value::Heavy(_) => true,
            Value::List(items) => items.iter().any(heavy),
            _ => false,
        }
    }
    if heavy(v) {
        return true;
    }
    if matches!(v, Value::Empty | Value::Error(_)) {
        return false;
    }
    let j = convert::encode(v, Some(ValueType::Any), Ctx::Param, ColorStyle::Hex);
    !convert::decode_value(&j, Some(ValueType::Any), "").is_ok_and(|back| back.same_bits(v))
}

// ---------------------------------------------------------------------------------------------
// Writing

/// The blob folder of a baked graph at `path`: `<stem>.blobs` beside it.
pub fn blob_dir_for(path: &Path) -> Option<PathBuf> {
    let stem = path.file_stem()?.to_str()?;
    Some(path.with_file_name(format!("{stem}{BLOB_DIR_SUFFIX}")))
}

/// The file name of the blob whose payload has key `key`.
pub fn blob_file_name(key: Key) -> String {
    format!("{}.{BLOB_EXT}", key.to_hex())
}

/// What [`write_baked`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// The graph file.
    pub graph: PathBuf,
    /// The blob folder, when the graph has blobs.
    pub blob_dir: Option<PathBuf>,
    /// Blob files written.
    pub blobs_written: usize,
    /// Blob files that were already there, intact (not rewritten).
    pub blobs_present: usize,
    /// Bytes of the blobs the graph references.
    pub blob_bytes: u64,
}

impl fmt::Display for WriteReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.blob_dir {
            Some(d) => write!(
                f,
                "blobs written: {} ({} already there, {} bytes in {})",
                self.blobs_written,
                self.blobs_present,
                self.blob_bytes,
                d.display()
            ),
            None => write!(f, "blobs written: 0"),
        }
    }
}

fn value_key(v: &Value) -> Key {
    let mut h = KeyHasher::new();
    v.hash_into(&mut h);
    h.finish_key()
}

/// Write a baked graph to `path` with its blobs in [`blob_dir_for`]`(path)`: every param or
/// constant that [`needs_blob`] (and has a binary form) goes into a blob. Blobs are written
/// first, each atomically (an intact one already there is kept), then the graph file,
/// atomically. The graph's folder must exist.
pub fn write_baked(
    path: &Path,
    file: &GraphFile,
    registry: &Registry,
) -> Result<WriteReport, BakeError> {
    let bad = |message: &str| BakeError::Destination {
        path: path.to_path_buf(),
        message: message.to_string(),
    };
    let dir = blob_dir_for(path).ok_or_else(|| bad("the path has no file name"))?;
    if dir == path {
        return Err(bad(&format!(
            "it would be its own blob folder (name the graph file with an extension other than `{BLOB_DIR_SUFFIX}`)"
        )));
    }
    let dir_name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| bad("the blob folder's name is not UTF-8"))?
        .to_string();

    // Every distinct value that goes into a blob, with its payload.
    let mut blobs: HashMap<Key, (String, Vec<u8>)> = HashMap::new();
    let mut order: Vec<Key> = vec![];
    for node in file.graph.nodes() {
        for v in node.params.values().chain(node.consts.values()) {
            if !needs_blob(v) {
                continue;
            }
            let vk = value_key(v);
            if blobs.contains_key(&vk) {
                continue;
            }
            let Some(payload) = encode_value(v, registry) else {
                continue;
            };
            let key = Key(xxhash_rust::xxh3::xxh3_128(&payload));
            let reference = format!("{dir_name}/{}", blob_file_name(key));
            blobs.insert(vk, (reference, payload));
            order.push(vk);
        }
    }
    let mut report = WriteReport {
        graph: path.to_path_buf(),
        ..WriteReport::default()
    };
    if !blobs.is_empty() {
        std::fs::create_dir_all(&dir).map_err(|source| WriteError::Io {
            path: dir.clone(),
            source,
        })?;
        let mut done: HashSet<&str> = HashSet::new();
        for vk in &order {
            let (reference, payload) = &blobs[vk];
            if !done.insert(reference) {
                continue;
            }
            let key = Key(xxhash_rust::xxh3::xxh3_128(payload));
            let blob_path = dir.join(blob_file_name(key));
            report.blob_bytes += payload.len() as u64;
            let intact = std::fs::read(&blob_path)
                .ok()
                .is_some_and(|b| check_entry(key, &b).is_ok());
            if intact {
                report.blobs_present += 1;
            } else {
                write_atomic(&blob_path, &encode_entry(key, payload))?;
                report.blobs_written += 1;
            }
        }
        report.blob_dir = Some(dir);
    }
    let text = save_graph_with(&file.graph, &file.meta, registry, &|v| {
        if !needs_blob(v) {
            return None;
        }
        blobs.get(&value_key(v)).map(|(r, _)| r.clone())
    });
    write_atomic(path, text.as_bytes())?;
    Ok(report)
}

// ---------------------------------------------------------------------------------------------
// Reading blob references (called by the graph file loader)

/// The JSON of a blob reference: `{"type": <value's type>, "blob": reference}`.
pub(crate) fn blob_json(v: &Value, reference: String) -> Json {
    Json::Object(vec![
        ("type".into(), Json::Str(v.type_name().to_string())),
        ("blob".into(), Json::Str(reference)),
    ])
}

/// Resolves the blob references of one graph file, each blob read once.
pub(crate) struct BlobReader<'a> {
    dir: Option<&'a Path>,
    registry: &'a Registry,
    read: HashMap<String, Value>,
}

impl<'a> BlobReader<'a> {
    /// A reader for references relative to `dir` (`None`: a graph not read from a file,
    /// where a reference is an error), decoding heavy values with the codecs of `registry`.
    pub(crate) fn new(dir: Option<&'a Path>, registry: &'a Registry) -> Self {
        BlobReader {
            dir,
            registry,
            read: HashMap::new(),
        }
    }

    /// The value of `j` if it is a blob reference (an object with a `blob` key), `None` for
    /// any other JSON. `path` is its location in the file, for errors.
    pub(crate) fn read(&mut self, j: &Json, path: &str) -> Result<Option<Value>, LoadError> {
        let Json::Object(entries) = j else {
            return Ok(None);
        };
        let Some((_, blob)) = entries.iter().find(|(k, _)| k == "blob") else {
            return Ok(None);
        };
        let shape = |message: String| {
            LoadError::format(
                path,
                message,
                Some(r#"a blob reference is {"type": "image", "blob": "<graph>.blobs/<32 hex digits>.kv"}"#.into()),
            )
        };
        let Json::Str(reference) = blob else {
            return Err(shape(format!(
                "`blob` must be a string, found {}",
                blob.kind()
            )));
        };
        let mut ty = None;
        for (k, v) in entries {
            match (k.as_str(), v) {
                ("blob", _) => {}
                ("type", Json::Str(t)) if ty.is_none() => ty = Some(t.as_str()),
                ("type", Json::Str(_)) => return Err(shape("key `type` appears twice".into())),
                ("type", other) => {
                    return Err(shape(format!(
                        "`type` must be a string, found {}",
                        other.kind()
                    )));
                }
                (other, _) => {
                    return Err(shape(format!(
                        "unexpected key `{other}` in a blob reference"
                    )));
                }
            }
        }
        if entries.iter().filter(|(k, _)| k == "blob").count() > 1 {
            return Err(shape("key `blob` appears twice".into()));
        }
        let Some(ty) = ty else {
            return Err(shape("a blob reference needs a `type` key".into()));
        };
        let err = |message: String, hint: Option<&str>| LoadError::Blob {
            path: path.to_string(),
            blob: reference.clone(),
            message,
            hint: hint.map(str::to_string),
        };
        let Some(dir) = self.dir else {
            return Err(err(
                "cannot be resolved: the graph was not read from a file".into(),
                Some("load baked graphs with read_graph, which finds blobs beside the file"),
            ));
        };
        let (components, key) = parse_reference(reference).map_err(|m| {
            err(
                m,
                Some("a blob reference is `<graph>.blobs/<32 hex digits>.kv`, relative to the graph file"),
            )
        })?;
        let value = match self.read.get(reference) {
            Some(v) => v.clone(),
            None => {
                let mut file = dir.to_path_buf();
                file.extend(components);
                let rebake =
                    Some("the blob folder must stay beside the graph file; bake the graph again");
                let bytes = std::fs::read(&file).map_err(|e| {
                    if e.kind() == std::io::ErrorKind::NotFound {
                        err(format!("is missing ({} not found)", file.display()), rebake)
                    } else {
                        err(format!("cannot be read ({}): {e}", file.display()), None)
                    }
                })?;
                let payload = check_entry(key, &bytes)
                    .map_err(|m| err(format!("is damaged ({}): {m}", file.display()), rebake))?;
                let value = decode_value(payload, self.registry)
                    .map_err(|m| err(format!("is damaged ({}): {m}", file.display()), rebake))?;
                self.read.insert(reference.clone(), value.clone());
                value
            }
        };
        if value.type_name() != ty {
            return Err(err(
                format!(
                    "holds a {} value, but the reference says {ty}",
                    value.type_name()
                ),
                None,
            ));
        }
        Ok(Some(value))
    }
}

/// The path components and key of a reference `dir/…/<32 hex>.kv`: relative, without `.` or
/// `..`, and its file name a key.
fn parse_reference(reference: &str) -> Result<(Vec<String>, Key), String> {
    if reference.contains('\\') {
        return Err("the reference must use `/` between folders".into());
    }
    let mut parts = vec![];
    for segment in reference.split('/') {
        // Each segment a plain name: no root, drive, `.` or `..`, nothing empty.
        let plain = matches!(
            Path::new(segment).components().collect::<Vec<_>>().as_slice(),
            [Component::Normal(s)] if *s == std::ffi::OsStr::new(segment)
        );
        if !plain || segment.contains(':') {
            return Err("the reference must be a relative path inside the graph's folder".into());
        }
        parts.push(segment.to_string());
    }
    let name = parts.last().map(String::as_str).unwrap_or_default();
    let hex = name
        .strip_suffix(&format!(".{BLOB_EXT}"))
        .filter(|h| h.len() == 32 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| format!("the file name `{name}` is not <32 hex digits>.{BLOB_EXT}"))?;
    let key = u128::from_str_radix(hex, 16).map_err(|e| format!("bad key `{hex}`: {e}"))?;
    Ok((parts, Key(key)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_relative_paths_to_keys() {
        let hex = "0123456789abcdef0123456789abcdef";
        let (parts, key) = parse_reference(&format!("b.blobs/{hex}.kv")).expect("valid");
        assert_eq!(parts, vec!["b.blobs".to_string(), format!("{hex}.kv")]);
        assert_eq!(key.to_hex(), hex);
        for bad in [
            format!("/abs/{hex}.kv"),
            format!("../b.blobs/{hex}.kv"),
            format!("b.blobs/./{hex}.kv"),
            format!("b.blobs\\{hex}.kv"),
            format!("b.blobs//{hex}.kv"),
            format!("c:/{hex}.kv"),
            "b.blobs/xyz.kv".to_string(),
            format!("b.blobs/{hex}.png"),
            String::new(),
        ] {
            assert!(parse_reference(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn blob_dirs_sit_beside_the_graph() {
        assert_eq!(
            blob_dir_for(Path::new("t/b.json")),
            Some(PathBuf::from("t/b.blobs"))
        );
        assert_eq!(blob_dir_for(Path::new("b")), Some(PathBuf::from("b.blobs")));
        assert_eq!(blob_dir_for(Path::new("/")), None);
    }

    #[test]
    fn only_heavy_and_inexact_values_need_blobs() {
        assert!(!needs_blob(&Value::Float(1.5)));
        assert!(!needs_blob(&Value::Float(f64::NAN)));
        assert!(!needs_blob(&Value::Float(-0.0)));
        assert!(!needs_blob(&Value::str("#fff")));
        assert!(!needs_blob(&Value::Vec3([1.0, f64::INFINITY, 0.0])));
        assert!(needs_blob(&Value::Float(f64::from_bits(
            0x7ff8_dead_0000_0001
        ))));
        let img = kiln_std::image::Image {
            width: 1,
            height: 1,
            pixels: vec![[0.5; 4]],
        }
        .into_value();
        assert!(needs_blob(&img));
        assert!(needs_blob(&Value::List(std::sync::Arc::from(vec![img]))));
    }
}
