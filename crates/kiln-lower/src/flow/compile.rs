//! A flow body made ready to run: its graph checked (ops, params, types through the first
//! wire of each port; cycles only through loop ports) and turned into dense arrays: per node
//! its kind, per input its queue's settings, per output the inputs it sends to.

use super::body::{FlowBodyError, FlowSettings};
use kiln_core::graph::{Graph, PortRef};
use kiln_core::op::{Columns, Kernel, Purity, Role};
use kiln_core::plan::{Plan, Source};
use kiln_core::registry::Registry;
use kiln_core::value::{Value, ValueType};
use std::collections::HashSet;

/// What a body node is to the executor.
pub(super) enum Kind {
    /// A graph input: sends its arg (or default) once; a list value element by element.
    Input { value: InputValue, spread: bool },
    /// A graph output: collects what reaches it into output `index`.
    Output { index: usize },
    /// An op run per entity.
    Op,
}

/// Where a graph input's value comes from.
pub(super) enum InputValue {
    /// Arg number `n` of the call.
    Arg(usize),
    /// The input's default.
    Default(Value),
    /// Nothing: it sends no entity.
    Nothing,
}

/// An input an output port sends to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Dest {
    pub node: usize,
    pub port: usize,
    /// A wire back into a loop port (its node reaches the sender).
    pub back: bool,
}

/// An input port of a body node.
pub(super) struct In {
    pub name: String,
    /// Some wire comes into it.
    pub wired: bool,
    pub collective: bool,
    /// The constant or default an unwired input takes (`Empty` when wired or none).
    pub fixed: Value,
    /// Its place among the body's loops, if it is a loop port.
    pub loop_slot: Option<usize>,
    /// For a collective input: every node that can send entities to it (sorted).
    pub upstream: Vec<usize>,
}

/// A body node.
pub(super) struct CNode {
    pub id: String,
    pub op_id: String,
    pub kind: Kind,
    pub inputs: Vec<In>,
    /// Per output port: its name and the inputs it sends to, sorted by node then port.
    pub outputs: Vec<(String, Vec<Dest>)>,
    /// No wire comes into it: it runs once, as a source.
    pub source: bool,
    /// The op's scalar kernel for float inputs, when it has one output, no lazy input, no
    /// collective input and no rules (see [`super::batch`]).
    pub kernel: Option<Kernel>,
    /// The kernel's column forms, when the op offers them (and a kernel).
    pub columns: Option<Columns>,
    /// Its runs may be split over threads: the op is pure or reads only the context.
    pub parallel: bool,
}

/// A loop port.
pub(super) struct LoopPort {
    pub node: usize,
    pub port: usize,
    pub cap: u32,
}

/// The body ready to run.
pub(super) struct Compiled {
    /// The plan of the checked graph (ops and params with defaults, by node index).
    pub plan: Plan,
    pub nodes: Vec<CNode>,
    /// The sources, in declaration order.
    pub sources: Vec<usize>,
    /// The body's outputs (graph output node ids), in declaration order.
    pub output_names: Vec<String>,
    pub loops: Vec<LoopPort>,
}

fn port_of(graph: &Graph, registry: &Registry, r: &PortRef, input: bool) -> Option<(usize, usize)> {
    let n = graph.index_of(&r.node)?;
    let spec = registry.get(&graph.nodes()[n].op)?.spec();
    let p = if input {
        spec.input_index(&r.port)?
    } else {
        spec.output_index(&r.port)?
    };
    Some((n, p))
}

/// The input specs of node `n`'s op.
fn plan_inputs<'r>(
    registry: &'r Registry,
    graph: &Graph,
    n: usize,
) -> Option<&'r [kiln_core::op::InputSpec]> {
    registry
        .get(&graph.nodes()[n].op)
        .map(|o| o.spec().inputs.as_slice())
}

/// Whether node `n` is a graph input of a list type (it sends one entity per element).
fn spread_input(registry: &Registry, graph: &Graph, n: usize) -> bool {
    registry.get(&graph.nodes()[n].op).is_some_and(|o| {
        let spec = o.spec();
        spec.role == Role::GraphInput
            && spec
                .outputs
                .first()
                .is_some_and(|o| o.ty.name().starts_with("list"))
    })
}

/// A value the input accepts, standing in for entities of unknown type: its default, or a
/// zero of its type.
fn stand_in(i: &kiln_core::op::InputSpec) -> Option<Value> {
    use kiln_core::value::ValueType as T;
    if let Some(d) = &i.default {
        return Some(d.clone());
    }
    Some(match i.ty {
        T::Float | T::Number | T::Any => Value::Float(0.0),
        T::Int => Value::Int(0),
        T::Bool => Value::Bool(false),
        T::Vec2 => Value::Vec2([0.0; 2]),
        T::Vec3 => Value::Vec3([0.0; 3]),
        T::Vec4 => Value::Vec4([0.0; 4]),
        T::Color => Value::Color([0.0; 4]),
        T::String => Value::str(""),
        T::List => Value::List(Vec::new().into()),
        _ => return None,
    })
}

/// Nodes reachable from `start` along `adj` (including `start`).
fn reach(adj: &[Vec<usize>], start: &[usize]) -> Vec<bool> {
    let mut seen = vec![false; adj.len()];
    let mut work: Vec<usize> = start.to_vec();
    for &s in start {
        seen[s] = true;
    }
    while let Some(n) = work.pop() {
        for &m in &adj[n] {
            if !seen[m] {
                seen[m] = true;
                work.push(m);
            }
        }
    }
    seen
}

/// The scalar kernel node `v` runs on float entities, if its op offers one that reads every
/// input.
fn kernel_of(plan: &Plan, v: usize) -> Option<Kernel> {
    let spec = plan.op(v).spec();
    let n = spec.inputs.len();
    if n == 0
        || plan.n_outputs(v) != 1
        || plan.is_lazy(v)
        || plan.has_rules(v)
        || spec.inputs.iter().any(|i| i.collective)
    {
        return None;
    }
    let types = vec![Some(ValueType::Float); n];
    plan.op(v)
        .kernel(&types, plan.params(v))
        .filter(|k| k.arity() == n)
}

/// The column forms of node `v`'s kernel `k`, when its op offers forms of the same arity.
fn columns_of(plan: &Plan, v: usize, k: Kernel) -> Option<Columns> {
    let types = vec![Some(ValueType::Float); k.arity()];
    let columns = plan.op(v).columns(&types, plan.params(v))?;
    match (columns, k) {
        (Columns::Unary(_), Kernel::Unary(_)) | (Columns::Binary(_), Kernel::Binary(_)) => {
            Some(columns)
        }
        _ => None,
    }
}

/// Check `graph` under `settings` and compile it.
pub(super) fn compile(
    graph: &Graph,
    registry: &Registry,
    settings: &FlowSettings,
) -> Result<Compiled, FlowBodyError> {
    let n = graph.len();
    // Resolve every wire to (node, port) pairs.
    let mut wires = Vec::with_capacity(graph.wires().len());
    for w in graph.wires() {
        let from = port_of(graph, registry, &w.from, false);
        let to = port_of(graph, registry, &w.to, true);
        match (from, to) {
            (Some(f), Some(t)) => wires.push((f, t)),
            // The check below reports the wire, in validation's words, when it is the first
            // into its port; a later one is reported here.
            _ => wires.push(((usize::MAX, 0), (usize::MAX, 0))),
        }
    }
    // The loop ports.
    let mut loops = Vec::new();
    let mut seen_loops = HashSet::new();
    for (at, cap) in &settings.loops {
        let Some((node, port)) = port_of(graph, registry, at, true) else {
            return Err(FlowBodyError::NoLoopPort(at.to_string()));
        };
        if *cap == 0 {
            return Err(FlowBodyError::ZeroCap(at.to_string()));
        }
        if seen_loops.insert((node, port)) {
            loops.push(LoopPort {
                node,
                port,
                cap: *cap,
            });
        }
    }
    let is_loop = |t: (usize, usize)| loops.iter().any(|l| (l.node, l.port) == t);
    // Every cycle must pass through a loop port: without the wires into loop ports the
    // graph is acyclic (Kahn's algorithm; what is left over lies on a cycle).
    let mut fwd = vec![Vec::new(); n];
    let mut rev = vec![Vec::new(); n];
    let mut forward = vec![Vec::new(); n];
    let mut indeg = vec![0usize; n];
    for &((f, _), t) in &wires {
        if f == usize::MAX {
            continue;
        }
        fwd[f].push(t.0);
        rev[t.0].push(f);
        if !is_loop(t) {
            forward[f].push(t.0);
            indeg[t.0] += 1;
        }
    }
    {
        let mut work: Vec<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
        let mut done = 0;
        while let Some(v) = work.pop() {
            done += 1;
            for &t in &forward[v] {
                indeg[t] -= 1;
                if indeg[t] == 0 {
                    work.push(t);
                }
            }
        }
        if done < n {
            let nodes = (0..n)
                .filter(|&v| indeg[v] > 0)
                .map(|v| graph.nodes()[v].id.to_string())
                .collect();
            return Err(FlowBodyError::Cycle(nodes));
        }
    }
    // Wires back: into a loop port from a node its node reaches.
    let back: Vec<bool> = wires
        .iter()
        .map(|&((f, _), t)| f != usize::MAX && is_loop(t) && reach(&fwd, &[t.0])[f])
        .collect();
    // The graph validation sees: every node, the first wire into each port that is not a
    // wire back.
    let mut check = Graph::new();
    for node in graph.nodes() {
        let c = check
            .add_node(node.id.clone(), &node.op)
            .map_err(|e| FlowBodyError::Graph(e.to_string()))?;
        c.params = node.params.clone();
        c.consts = node.consts.clone();
    }
    // A collective input takes entities of any type the list holds: it is checked as a
    // list (an empty one stands for what will arrive).
    let collective = |t: (usize, usize)| {
        t.0 != usize::MAX
            && plan_inputs(registry, graph, t.0).is_some_and(|ins| ins[t.1].collective)
    };
    let mut kept = HashSet::new();
    for (i, w) in graph.wires().iter().enumerate() {
        if back[i] {
            continue;
        }
        let first = kept.insert((w.to.node.clone(), w.to.port.clone()));
        let spreads = wires[i].0.0 != usize::MAX && spread_input(registry, graph, wires[i].0.0);
        if spreads && !collective(wires[i].1) {
            // A list input sends its elements, whose type the list type does not say: the
            // port is checked with a stand-in of its own type.
            if first {
                let spec = plan_inputs(registry, graph, wires[i].1.0).map(|ins| &ins[wires[i].1.1]);
                if let Some(v) = spec.and_then(stand_in) {
                    check
                        .set_const(&w.to.node, &w.to.port, v)
                        .map_err(|e| FlowBodyError::Graph(e.to_string()))?;
                }
            }
        } else if wires[i].0.0 != usize::MAX && collective(wires[i].1) {
            if first {
                check
                    .set_const(&w.to.node, &w.to.port, Value::List(Vec::new().into()))
                    .map_err(|e| FlowBodyError::Graph(e.to_string()))?;
            }
        } else if first {
            check.connect(w.from.clone(), w.to.clone());
        } else if wires[i].0.0 == usize::MAX {
            return Err(FlowBodyError::Wire(format!("{} → {}", w.from, w.to)));
        }
    }
    let plan = Plan::build(&check, registry).map_err(FlowBodyError::Invalid)?;
    if let Some(l) = plan.latches().first() {
        return Err(FlowBodyError::Latch(plan.id(l.node as usize).to_string()));
    }
    // Dense nodes.
    let mut output_names = Vec::new();
    let mut nodes = Vec::with_capacity(n);
    for (v, node) in graph.nodes().iter().enumerate() {
        let op = plan.op(v);
        let spec = op.spec();
        let kind = match spec.role {
            Role::GraphInput => {
                let name = kiln_doc::document::input_name(node).unwrap_or(&node.id);
                let value = match settings.args.iter().position(|a| a == name) {
                    Some(k) => InputValue::Arg(k),
                    None => match node.params.get("default") {
                        Some(d) => InputValue::Default(d.clone()),
                        None => spec
                            .param_index("default")
                            .and_then(|k| plan.params(v).get(k))
                            .filter(|d| !matches!(d, Value::Empty))
                            .map_or(InputValue::Nothing, |d| InputValue::Default(d.clone())),
                    },
                };
                let spread = spec
                    .outputs
                    .first()
                    .is_some_and(|o| o.ty.name().starts_with("list"));
                Kind::Input { value, spread }
            }
            Role::GraphOutput => {
                output_names.push(node.id.to_string());
                Kind::Output {
                    index: output_names.len() - 1,
                }
            }
            _ => Kind::Op,
        };
        let inputs = spec
            .inputs
            .iter()
            .enumerate()
            .map(|(p, i)| {
                let wired = wires.iter().any(|&(_, t)| t == (v, p));
                let fixed = match plan.inputs(v).get(p) {
                    Some(Source::Const(c)) if !wired => c.clone(),
                    _ => Value::Empty,
                };
                In {
                    name: i.name.to_string(),
                    wired,
                    collective: i.collective,
                    fixed,
                    loop_slot: loops.iter().position(|l| (l.node, l.port) == (v, p)),
                    upstream: Vec::new(),
                }
            })
            .collect();
        let outputs = spec
            .outputs
            .iter()
            .map(|o| (o.name.to_string(), Vec::new()))
            .collect();
        let kernel = match kind {
            Kind::Op => kernel_of(&plan, v),
            _ => None,
        };
        let columns = kernel.and_then(|k| columns_of(&plan, v, k));
        nodes.push(CNode {
            id: node.id.to_string(),
            op_id: node.op.clone(),
            kind,
            inputs,
            outputs,
            source: true,
            kernel,
            columns,
            parallel: matches!(spec.purity, Purity::Pure | Purity::Clock),
        });
    }
    for (i, &((f, fp), (t, tp))) in wires.iter().enumerate() {
        if f == usize::MAX {
            continue;
        }
        nodes[t].source = false;
        if let Some((_, d)) = nodes[f].outputs.get_mut(fp) {
            d.push(Dest {
                node: t,
                port: tp,
                back: back[i],
            });
        }
    }
    for node in &mut nodes {
        for (_, d) in &mut node.outputs {
            d.sort();
            d.dedup();
        }
    }
    // Who can send to each collective input.
    for (v, node) in nodes.iter_mut().enumerate() {
        for (p, input) in node.inputs.iter_mut().enumerate() {
            if !input.collective {
                continue;
            }
            let senders: Vec<usize> = wires
                .iter()
                .filter(|&&(f, t)| f.0 != usize::MAX && t == (v, p))
                .map(|&(f, _)| f.0)
                .collect();
            let up = reach(&rev, &senders);
            input.upstream = (0..n).filter(|&u| up[u]).collect();
        }
    }
    let sources = (0..n).filter(|&v| nodes[v].source).collect();
    Ok(Compiled {
        plan,
        nodes,
        sources,
        output_names,
        loops,
    })
}
