//! Validation: every problem in a graph, each naming the node, op and port involved, what was
//! expected and what was found. All diagnostics are reported, not only the first.

use crate::analysis::Topology;
pub use crate::error::{Diagnostic, DiagnosticKind, Diagnostics};
use crate::graph::{Graph, NodeId};
use crate::op::Op;
use crate::registry::Registry;
use crate::value::{Value, ValueType};
use std::sync::Arc;

/// Where an input port's value comes from, after validation.
#[derive(Clone, Debug)]
pub(crate) enum Binding {
    Wire { node: u32, port: u16 },
    Const(Value),
    Empty,
}

/// The result of a successful validation: resolved ops, bindings, params and types.
pub(crate) struct Resolved {
    pub ops: Vec<Arc<dyn Op>>,
    pub bindings: Vec<Vec<Binding>>,
    pub params: Vec<Vec<Value>>,
    pub out_types: Vec<Vec<ValueType>>,
    pub topo: Topology,
    pub order: Vec<u32>,
}

/// The inferred type of every node's outputs (by node index, then port), or every
/// diagnostic. Unlike a [`Plan`](crate::plan::Plan), this accepts audio loops (they are
/// valid graphs; only the tick evaluators refuse them).
pub fn output_types(
    graph: &Graph,
    registry: &Registry,
) -> Result<Vec<Vec<ValueType>>, Diagnostics> {
    resolve(graph, registry).map(|r| r.out_types)
}

/// Validate a graph against a registry, returning every diagnostic (empty when valid).
pub fn validate(graph: &Graph, registry: &Registry) -> Vec<Diagnostic> {
    match resolve(graph, registry) {
        Ok(_) => vec![],
        Err(d) => d.0,
    }
}

pub(crate) fn value_fits(ty: ValueType, v: &Value) -> bool {
    match v.value_type() {
        Some(found) => ty.accepts(found) || (ty == ValueType::Color && v.as_color().is_some()),
        None => false,
    }
}

/// Validate and resolve in one pass (shared by [`validate`] and plan building).
pub(crate) fn resolve(graph: &Graph, registry: &Registry) -> Result<Resolved, Diagnostics> {
    let mut diags = vec![];
    let n = graph.len();
    let mut ops: Vec<Option<Arc<dyn Op>>> = Vec::with_capacity(n);
    let mut params = Vec::with_capacity(n);
    let mut bindings: Vec<Vec<Binding>> = Vec::with_capacity(n);

    for node in graph.nodes() {
        let Some(op) = registry.get(&node.op) else {
            let mut d = Diagnostic::new(DiagnosticKind::UnknownOp, &node.id, &node.op)
                .expected("a registered op id")
                .found(format!("`{}`", node.op));
            if let Some(s) = registry.suggest(&node.op) {
                d = d.hint(format!("did you mean `{s}`? `kiln ops` lists them all"));
            } else {
                d = d.hint("`kiln ops` lists the registered ops");
            }
            diags.push(d);
            ops.push(None);
            params.push(vec![]);
            bindings.push(vec![]);
            continue;
        };
        let spec = op.spec();
        for name in node.params.keys() {
            if spec.param_index(name).is_none() {
                let names: Vec<&str> = spec.params.iter().map(|p| &*p.name).collect();
                diags.push(
                    Diagnostic::new(DiagnosticKind::UnknownPort, &node.id, &node.op)
                        .port(format!("param `{name}`"))
                        .expected(if names.is_empty() {
                            "no params".to_string()
                        } else {
                            format!("one of: {}", names.join(", "))
                        })
                        .found(format!("`{name}`")),
                );
            }
        }
        let mut pv = Vec::with_capacity(spec.params.len());
        for p in &spec.params {
            match node.params.get(&*p.name).or(p.default.as_ref()) {
                Some(v) if value_fits(p.ty, v) => pv.push(v.clone()),
                Some(v) => {
                    diags.push(
                        Diagnostic::new(DiagnosticKind::TypeMismatch, &node.id, &node.op)
                            .port(format!("param `{}`", p.name))
                            .expected(p.ty.name())
                            .found(v.type_name()),
                    );
                    pv.push(Value::Empty);
                }
                None => {
                    diags.push(
                        Diagnostic::new(DiagnosticKind::MissingParam, &node.id, &node.op)
                            .port(format!("param `{}`", p.name))
                            .expected(format!("a {} value", p.ty.name()))
                            .found("nothing"),
                    );
                    pv.push(Value::Empty);
                }
            }
        }
        params.push(pv);
        let mut b: Vec<Option<Binding>> = vec![None; spec.inputs.len()];
        for (name, v) in &node.consts {
            match spec.input_index(name) {
                None => diags.push(unknown_input(node.id.clone(), &node.op, name, op.as_ref())),
                Some(i) => {
                    if !value_fits(spec.inputs[i].ty, v) {
                        diags.push(
                            Diagnostic::new(DiagnosticKind::TypeMismatch, &node.id, &node.op)
                                .port(format!("input `{name}`"))
                                .expected(spec.inputs[i].ty.name())
                                .found(format!("constant of type {}", v.type_name())),
                        );
                    }
                    b[i] = Some(Binding::Const(v.clone()));
                }
            }
        }
        bindings.push(b.into_iter().map(|x| x.unwrap_or(Binding::Empty)).collect());
        ops.push(Some(op.clone()));
    }

    // Wires.
    let mut wired: Vec<Vec<bool>> = bindings.iter().map(|b| vec![false; b.len()]).collect();
    for w in graph.wires() {
        let src = graph.index_of(w.from.node.as_str());
        let dst = graph.index_of(w.to.node.as_str());
        let (Some(si), Some(di)) = (src, dst) else {
            let (missing, other) = if src.is_none() {
                (&w.from, &w.to)
            } else {
                (&w.to, &w.from)
            };
            let mut d = Diagnostic {
                kind: DiagnosticKind::UnknownNode,
                node: graph.node(other.node.as_str()).map(|n| n.id.clone()),
                op: graph.node(other.node.as_str()).map(|n| n.op.clone()),
                port: Some(format!("wire {} -> {}", w.from, w.to)),
                expected: Some("an existing node".into()),
                found: Some(format!("`{}`", missing.node)),
                nodes: vec![],
                hint: None,
            };
            let names: Vec<&str> = graph.nodes().iter().map(|n| n.id.as_str()).collect();
            if let Some(s) = names
                .iter()
                .min_by_key(|n| crate::registry::edit_distance(n, missing.node.as_str()))
                && crate::registry::edit_distance(s, missing.node.as_str()) <= 2
            {
                d.hint = Some(format!("did you mean `{s}`?"));
            }
            diags.push(d);
            continue;
        };
        let (Some(sop), Some(dop)) = (&ops[si], &ops[di]) else {
            continue;
        };
        let snode = &graph.nodes()[si];
        let dnode = &graph.nodes()[di];
        let Some(op_port) = sop.spec().output_index(&w.from.port) else {
            let names: Vec<&str> = sop.spec().outputs.iter().map(|p| &*p.name).collect();
            diags.push(
                Diagnostic::new(DiagnosticKind::UnknownPort, &snode.id, &snode.op)
                    .port(format!("output `{}`", w.from.port))
                    .expected(format!("one of: {}", names.join(", ")))
                    .found(format!("`{}` (wire to {})", w.from.port, w.to)),
            );
            continue;
        };
        let Some(ip) = dop.spec().input_index(&w.to.port) else {
            diags.push(unknown_input(
                dnode.id.clone(),
                &dnode.op,
                &w.to.port,
                dop.as_ref(),
            ));
            continue;
        };
        if wired[di][ip] || matches!(bindings[di][ip], Binding::Const(_)) {
            diags.push(
                Diagnostic::new(DiagnosticKind::MultipleWires, &dnode.id, &dnode.op)
                    .port(format!("input `{}`", w.to.port))
                    .expected("at most one wire or constant")
                    .found(format!("another source, {}", w.from)),
            );
            continue;
        }
        wired[di][ip] = true;
        bindings[di][ip] = Binding::Wire {
            node: si as u32,
            port: op_port as u16,
        };
    }

    // Required inputs and defaults.
    for (i, node) in graph.nodes().iter().enumerate() {
        let Some(op) = &ops[i] else { continue };
        if op.spec().delay && !matches!(bindings[i].first(), Some(Binding::Wire { .. })) {
            let name = op
                .spec()
                .inputs
                .first()
                .map(|p| p.name.to_string())
                .unwrap_or_default();
            diags.push(
                Diagnostic::new(DiagnosticKind::MissingInput, &node.id, &node.op)
                    .port(format!("input `{name}`"))
                    .expected("a wire from the node that seeds the latch")
                    .found(match bindings[i].first() {
                        Some(Binding::Const(_)) => "a constant",
                        _ => "nothing",
                    })
                    .hint("a latch's seed must come from a node (an `init` wire); it never defaults to zero"),
            );
            continue;
        }
        for (p, spec) in op.spec().inputs.iter().enumerate() {
            if matches!(bindings[i][p], Binding::Empty) {
                match &spec.default {
                    Some(v) => bindings[i][p] = Binding::Const(v.clone()),
                    None => diags.push(
                        Diagnostic::new(DiagnosticKind::MissingInput, &node.id, &node.op)
                            .port(format!("input `{}`", spec.name))
                            .expected(format!("a wire or a constant of type {}", spec.ty))
                            .found("nothing"),
                    ),
                }
            }
        }
    }

    // Cycles. An edge into a latch's `signal` is captured for the next tick, so it may close
    // a cycle; every other edge is a dependency within a tick.
    let is_delay = |w: &crate::graph::Wire, port: Option<usize>| {
        graph
            .index_of(w.to.node.as_str())
            .and_then(|d| ops[d].as_ref())
            .is_some_and(|op| {
                op.spec().delay
                    && op
                        .spec()
                        .input_index(&w.to.port)
                        .is_some_and(|i| port.is_none_or(|p| p == i))
            })
    };
    // An edge into a signal op's feedback input is read samples later by the streaming
    // evaluator, so it may close a loop too (the tick evaluators refuse such loops when they
    // plan: see `Plan::build`).
    let is_feedback = |w: &crate::graph::Wire| {
        graph
            .index_of(w.to.node.as_str())
            .and_then(|d| ops[d].as_ref())
            .is_some_and(|op| {
                op.spec()
                    .input_index(&w.to.port)
                    .is_some_and(|i| op.spec().inputs[i].feedback)
            })
    };
    let cyc_topo =
        Topology::from_graph_filtered(graph, |w| !is_delay(w, Some(1)) && !is_feedback(w));
    // Within a tick a latch depends on nothing: its output is the stored state.
    let topo = Topology::from_graph_filtered(graph, |w| !is_delay(w, None));
    let (partial, unordered) = cyc_topo.partial_order();
    let order = match unordered.is_empty() {
        true => Some(partial.clone()),
        false => {
            for cyc in cyc_topo.cycles() {
                let first = &graph.nodes()[cyc[0] as usize];
                let mut d = Diagnostic::new(DiagnosticKind::Cycle, &first.id, &first.op)
                    .expected("no cycle without a latch (a value cannot depend on itself within a tick)")
                    .hint("route the loop through a latch's `signal` input (a one-tick delay), or for audio through a feedback input such as `delay.in`");
                d.nodes = cyc
                    .iter()
                    .map(|&v| graph.nodes()[v as usize].id.clone())
                    .collect();
                diags.push(d);
            }
            None
        }
    };

    // Types, in topological order.
    let mut out_types: Vec<Vec<ValueType>> = ops
        .iter()
        .map(|o| {
            o.as_ref()
                .map(|o| o.spec().outputs.iter().map(|p| p.ty).collect())
                .unwrap_or_default()
        })
        .collect();
    {
        for &v in &partial {
            let v = v as usize;
            let Some(op) = &ops[v] else { continue };
            let node = &graph.nodes()[v];
            let spec = op.spec();
            let mut in_types = Vec::with_capacity(spec.inputs.len());
            let mut ok = true;
            for (p, ispec) in spec.inputs.iter().enumerate() {
                let found = match &bindings[v][p] {
                    Binding::Wire { node: s, port } => {
                        out_types[*s as usize].get(*port as usize).copied()
                    }
                    Binding::Const(c) => c.value_type(),
                    Binding::Empty => None,
                };
                if let (Binding::Wire { node: s, port }, Some(t)) = (&bindings[v][p], found)
                    && !ispec.ty.accepts(t)
                {
                    ok = false;
                    let src = &graph.nodes()[*s as usize];
                    let sport = &ops[*s as usize]
                        .as_ref()
                        .map(|o| o.spec().outputs[*port as usize].name.to_string())
                        .unwrap_or_default();
                    diags.push(
                            Diagnostic::new(DiagnosticKind::TypeMismatch, &node.id, &node.op)
                                .port(format!("input `{}`", ispec.name))
                                .expected(ispec.ty.name())
                                .found(format!("{t} from {}.{sport}", src.id))
                                .hint("allowed conversion: int -> float; `number` ports take any numeric type"),
                        );
                }
                in_types.push(found);
            }
            if !ok {
                continue;
            }
            match op.infer_outputs(&in_types, &params[v]) {
                Ok(t) => out_types[v] = t,
                Err(msg) => {
                    let found: Vec<String> = spec
                        .inputs
                        .iter()
                        .zip(&in_types)
                        .map(|(i, t)| {
                            format!("{}: {}", i.name, t.map(|t| t.name()).unwrap_or("none"))
                        })
                        .collect();
                    diags.push(
                        Diagnostic::new(DiagnosticKind::TypeMismatch, &node.id, &node.op)
                            .port("inputs".into())
                            .expected(msg)
                            .found(found.join(", ")),
                    )
                }
            }
        }
    }

    // A latch's signal, known only once the whole tick is typed, must fit its state type.
    for (i, node) in graph.nodes().iter().enumerate() {
        let Some(op) = &ops[i] else { continue };
        if !op.spec().delay {
            continue;
        }
        if let (Some(Binding::Wire { node: s, port }), Some(&want)) =
            (bindings[i].get(1), out_types[i].first())
            && let Some(&got) = out_types[*s as usize].get(*port as usize)
            && want != ValueType::Any
            && got != ValueType::Any
            && !want.accepts(got)
        {
            let src = &graph.nodes()[*s as usize];
            diags.push(
                Diagnostic::new(DiagnosticKind::TypeMismatch, &node.id, &node.op)
                    .port("input `signal`".into())
                    .expected(format!("{want} (the type of the latch's init)"))
                    .found(format!("{got} from {}", src.id)),
            );
        }
    }

    if !diags.is_empty() {
        return Err(Diagnostics(diags));
    }
    Ok(Resolved {
        // No diagnostics means every op resolved, so nothing is dropped here.
        ops: ops.into_iter().flatten().collect(),
        bindings,
        params,
        out_types,
        topo,
        order: order.unwrap_or_default(),
    })
}

fn unknown_input(node: NodeId, op_id: &str, name: &str, op: &dyn Op) -> Diagnostic {
    let names: Vec<&str> = op.spec().inputs.iter().map(|p| &*p.name).collect();
    Diagnostic::new(DiagnosticKind::UnknownPort, &node, op_id)
        .port(format!("input `{name}`"))
        .expected(if names.is_empty() {
            "no inputs".to_string()
        } else {
            format!("one of: {}", names.join(", "))
        })
        .found(format!("`{name}`"))
}

/// Loops that close only through a signal op's feedback input: legal for the streaming
/// evaluator, which runs them sample by sample, but not within a tick. The tick evaluators'
/// plans report them with this.
pub(crate) fn audio_loops(graph: &Graph, r: &Resolved) -> Result<(), Diagnostics> {
    if !r
        .ops
        .iter()
        .any(|op| op.spec().inputs.iter().any(|i| i.feedback))
        || r.topo.topo_order().is_ok()
    {
        return Ok(());
    }
    let diags = r
        .topo
        .cycles()
        .into_iter()
        .map(|cyc| {
            let first = &graph.nodes()[cyc[0] as usize];
            let mut d = Diagnostic::new(DiagnosticKind::Cycle, &first.id, &first.op)
                .expected("no loop within a tick")
                .found("a loop through an audio feedback input")
                .hint("audio loops run only in the streaming evaluator (`StreamingEvaluator`, `kiln render --seconds`)");
            d.nodes = cyc
                .iter()
                .map(|&v| graph.nodes()[v as usize].id.clone())
                .collect();
            d
        })
        .collect();
    Err(Diagnostics(diags))
}
