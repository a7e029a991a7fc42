//! Baking a graph in memory ([`bake`]), step by step: check the options against the graph's
//! inputs, freeze the inputs, find which nodes stay, evaluate the ports that feed them
//! (keeping a node whose value cannot be stored), and rebuild the graph with a `const` node
//! per folded port.

use super::classes::{ConeSizes, signal_nodes, static_nodes};
use super::rebuild::{add_const, copy_node, fresh_id, port_name, resolve_wires, with_consts};
use super::storage::{Storage, needs_blob, storable};
use super::{BakeError, BakeOptions, BakeReport, Baked, CONST_OP, Folded};
use crate::graph_file::GraphFile;
use kiln_core::context::EvalContext;
use kiln_core::eval::{ErrorPolicy, Evaluator, LazyEvaluator, Request};
use kiln_core::graph::{Graph, PortRef};
use kiln_core::plan::Plan;
use kiln_core::registry::Registry;
use kiln_core::validate::{Diagnostics, validate};
use kiln_core::value::Value;
use kiln_std::graph_io::{INPUT_PREFIX, OUTPUT_OP};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Bake a graph (see the [module docs](super)). The graph must validate.
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
    let input_ids = check_inputs(graph, options)?;
    let mut ctx = EvalContext::new();
    ctx.seed = options.seed.unwrap_or(0);
    ctx.inputs = options.inputs.clone();

    // 1. Freeze the inputs.
    let mut meta = file.meta.clone();
    let mut report = BakeReport {
        nodes_before: graph.len(),
        seed: options.seed,
        ..BakeReport::default()
    };
    let frozen = if options.freeze && !input_ids.is_empty() {
        report.frozen = freeze_inputs(graph, registry, &input_ids, &ctx)?;
        for (id, _) in &report.frozen {
            meta.input_docs.remove(id);
        }
        with_consts(graph, &report.frozen)
    } else {
        graph.clone()
    };

    // 2. Classes, kept nodes and the values of the ports to fold.
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
                    structure: Default::default(),
                },
                report,
            });
        }
    };
    let mut fold = Fold::new(&frozen, &plan, options.seed.is_some());
    let (frontier, values) = fold.evaluate_frontier(registry, &ctx)?;

    // 3. The baked graph.
    let out = fold.baked_graph(&frontier, &values, &mut report.folded);
    let diags = validate(&out, registry);
    if !diags.is_empty() {
        return Err(BakeError::Result(Diagnostics(diags)));
    }
    report.nodes_after = out.len();
    Ok(Baked {
        file: GraphFile {
            graph: out,
            meta,
            structure: Default::default(),
        },
        report,
    })
}

/// The graph's input nodes (dense indices), once the options fit them: input values only
/// when freezing, and only for inputs the graph has.
fn check_inputs(graph: &Graph, options: &BakeOptions) -> Result<Vec<usize>, BakeError> {
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
    let known: HashSet<String> = input_ids.iter().map(|&i| input_name(graph, i)).collect();
    if let Some(name) = options.inputs.keys().find(|k| !known.contains(*k)) {
        return Err(BakeError::UnknownInput {
            name: name.clone(),
            inputs: input_ids
                .iter()
                .map(|&i| graph.nodes()[i].id.to_string())
                .collect(),
        });
    }
    Ok(input_ids)
}

/// An input's name: its `name` param (the node's id in graph files).
fn input_name(graph: &Graph, i: usize) -> String {
    let n = &graph.nodes()[i];
    n.params
        .get("name")
        .and_then(Value::as_str)
        .map_or_else(|| n.id.to_string(), str::to_string)
}

/// The value of each input node in `input_ids`, by node id, evaluated as a run would.
fn freeze_inputs(
    graph: &Graph,
    registry: &Registry,
    input_ids: &[usize],
    ctx: &EvalContext,
) -> Result<Vec<(String, Value)>, BakeError> {
    let mut eval = LazyEvaluator::new(registry.clone());
    let mut frozen = Vec::with_capacity(input_ids.len());
    for &i in input_ids {
        let id = graph.nodes()[i].id.to_string();
        let out = eval
            .evaluate(graph, &Request::new([id.clone()]), ctx)
            .map_err(|error| BakeError::Input {
                name: input_name(graph, i),
                error,
            })?;
        let value = out.values.into_iter().next().map(|(_, v)| v);
        frozen.push((id, value.unwrap_or_default()));
    }
    Ok(frozen)
}

/// The ports to fold, as (node, output port) in dense indices.
type Frontier = BTreeSet<(usize, usize)>;

/// The value of each folded port.
type PortValues = HashMap<(usize, usize), Value>;

/// The folding of one planned (frozen) graph: which nodes stay, and its wires resolved.
struct Fold<'a> {
    graph: &'a Graph,
    plan: &'a Plan,
    is_static: Vec<bool>,
    /// Nodes that stay as they are: not static, graph outputs, latches, signal nodes, and
    /// static nodes whose value cannot be stored.
    kept: Vec<bool>,
    /// Each wire as (from node, from port, to node); the graph validated, so every wire
    /// resolves.
    wires: Vec<Option<(usize, usize, usize)>>,
}

impl<'a> Fold<'a> {
    fn new(graph: &'a Graph, plan: &'a Plan, seed_frozen: bool) -> Self {
        let is_static = static_nodes(plan, seed_frozen);
        let signal = signal_nodes(plan);
        let kept = (0..plan.len())
            .map(|v| {
                !is_static[v]
                    || signal[v]
                    || plan.op(v).spec().delay
                    || plan.op(v).spec().id == OUTPUT_OP
            })
            .collect();
        Fold {
            graph,
            plan,
            is_static,
            kept,
            wires: resolve_wires(graph, plan),
        }
    }

    fn is_const(&self, v: usize) -> bool {
        self.plan.op(v).spec().id == CONST_OP
    }

    /// The output ports of the nodes that go (are not kept) which feed nodes that stay.
    fn frontier(&self) -> Frontier {
        self.wires
            .iter()
            .flatten()
            .filter(|(from, _, to)| self.kept[*to] && !self.kept[*from])
            .map(|(from, port, _)| (*from, *port))
            .collect()
    }

    /// Evaluate the frontier until every port on it has a storable value (or is a `const`
    /// node's): a node whose value cannot be stored is kept, and its own static inputs
    /// join the frontier.
    fn evaluate_frontier(
        &mut self,
        registry: &Registry,
        ctx: &EvalContext,
    ) -> Result<(Frontier, PortValues), BakeError> {
        let mut values = PortValues::new();
        let mut eval = LazyEvaluator::new(registry.clone());
        loop {
            let frontier = self.frontier();
            let missing: Vec<(usize, usize)> = frontier
                .iter()
                .filter(|(v, p)| !self.is_const(*v) && !values.contains_key(&(*v, *p)))
                .copied()
                .collect();
            if missing.is_empty() {
                return Ok((frontier, values));
            }
            let names: Vec<String> = missing
                .iter()
                .map(|&(v, p)| port_name(self.plan, v, p))
                .collect();
            let request = Request::new(names).with_errors(ErrorPolicy::Propagate);
            let out = eval
                .evaluate(self.graph, &request, ctx)
                .map_err(BakeError::Eval)?;
            for (&(v, p), (_, value)) in missing.iter().zip(out.values) {
                if storable(&value, registry) {
                    values.insert((v, p), value);
                } else {
                    // Not foldable: keep the node; its static inputs join the frontier.
                    self.kept[v] = true;
                }
            }
        }
    }

    /// The baked graph: kept nodes as they are and a `const` per folded port, in graph
    /// order, then the wires into kept nodes, from the consts where their source was folded.
    /// Each folded port is listed in `folded`.
    fn baked_graph(
        &self,
        frontier: &Frontier,
        values: &PortValues,
        folded: &mut Vec<Folded>,
    ) -> Graph {
        let mut out = Graph::new();
        let holder = self.add_nodes(&mut out, frontier, values, folded);
        self.add_wires(&mut out, &holder);
        out
    }

    /// Add the kept nodes and the consts to `out`; returns the node holding each frontier
    /// port's value.
    fn add_nodes(
        &self,
        out: &mut Graph,
        frontier: &Frontier,
        values: &PortValues,
        folded: &mut Vec<Folded>,
    ) -> HashMap<(usize, usize), String> {
        let taken: HashSet<&str> = self.graph.nodes().iter().map(|n| n.id.as_str()).collect();
        let mut new_ids: HashSet<String> = HashSet::new();
        let mut holder: HashMap<(usize, usize), String> = HashMap::new();
        let cones = ConeSizes::new(self.plan, &self.is_static);
        for (v, node) in self.graph.nodes().iter().enumerate() {
            let ports: Vec<usize> = frontier
                .range((v, 0)..(v, usize::MAX))
                .map(|&(_, p)| p)
                .collect();
            if self.kept[v] || (!ports.is_empty() && self.is_const(v)) {
                copy_node(out, node);
                for p in ports {
                    holder.insert((v, p), node.id.to_string());
                }
                continue;
            }
            for p in ports {
                let Some(value) = values.get(&(v, p)) else {
                    continue;
                };
                let spec = self.plan.op(v).spec();
                let port = spec.outputs.get(p).map_or("out", |o| &o.name);
                let id = if port == "out" {
                    node.id.to_string()
                } else {
                    fresh_id(&format!("{}__{port}", node.id), &taken, &new_ids)
                };
                new_ids.insert(id.clone());
                add_const(out, &id, value.clone());
                folded.push(Folded {
                    node: id.clone(),
                    source: port_name(self.plan, v, p),
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
        holder
    }

    /// Add to `out` every wire into a kept node, from the const holding its source's value
    /// where that source was folded.
    fn add_wires(&self, out: &mut Graph, holder: &HashMap<(usize, usize), String>) {
        for (w, resolved) in self.graph.wires().iter().zip(&self.wires) {
            let Some((from, port, to)) = *resolved else {
                // Does not occur in a valid graph; kept as it was if its target stays.
                if out.node(w.to.node.as_str()).is_some() {
                    out.connect(w.from.clone(), w.to.clone());
                }
                continue;
            };
            if !self.kept[to] {
                continue;
            }
            match holder.get(&(from, port)) {
                Some(h) if !self.kept[from] => {
                    out.connect(PortRef::new(h.as_str(), "out"), w.to.clone());
                }
                _ => out.connect(w.from.clone(), w.to.clone()),
            }
        }
    }
}
