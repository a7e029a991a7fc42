//! Resolving a graph against a registry: every op found, every param and constant checked,
//! every wire bound, defaults applied, cycles refused (except through a latch or a feedback
//! input) and output types inferred in topological order. Each step is a method of
//! [`Resolver`], which gathers every diagnostic instead of stopping at the first.

use super::{Binding, Resolved, unknown_input, value_fits};
use crate::analysis::Topology;
use crate::error::{Diagnostic, DiagnosticKind, Diagnostics};
use crate::graph::Graph;
use crate::op::Op;
use crate::op::param_ports::ParamPorts;
use crate::registry::Registry;
use crate::value::{Value, ValueType};
use std::sync::Arc;

/// Resolve `graph` against `registry` (see the module docs), as an evaluator runs it: one
/// source per input, and every wire's type accepted by its input.
pub(crate) fn resolve(graph: &Graph, registry: &Registry) -> Result<Resolved, Diagnostics> {
    resolve_with(graph, registry, false)
}

/// [`resolve`] of a graph the plan will write out (see `kiln_lower::lower`): several wires may
/// go into a collective input (the plan queues them into one list), and a list may go into
/// a single input that takes its elements (the plan writes that node once per element).
pub(crate) fn resolve_document(
    graph: &Graph,
    registry: &Registry,
) -> Result<Resolved, Diagnostics> {
    resolve_with(graph, registry, true)
}

fn resolve_with(
    graph: &Graph,
    registry: &Registry,
    plan_forms: bool,
) -> Result<Resolved, Diagnostics> {
    let n = graph.len();
    super::count_resolve();
    let mut r = Resolver {
        graph,
        registry,
        plan_forms,
        extra: vec![],
        diags: vec![],
        plan_only: vec![],
        ops: Vec::with_capacity(n),
        params: Vec::with_capacity(n),
        bindings: Vec::with_capacity(n),
    };
    r.nodes();
    r.wires();
    r.defaults();
    let (topo, partial, order) = r.order();
    let out_types = r.types(&partial);
    r.latch_types(&out_types);
    r.extra_types(&out_types);
    if !r.diags.is_empty() {
        return Err(Diagnostics(r.diags));
    }
    Ok(Resolved {
        // No diagnostics means every op resolved, so nothing is dropped here.
        ops: r.ops.into_iter().flatten().collect(),
        bindings: r.bindings,
        params: r.params,
        out_types,
        topo,
        order: order.unwrap_or_default(),
        plan_only: r.plan_only,
    })
}

/// What resolution has found so far.
struct Resolver<'a> {
    graph: &'a Graph,
    registry: &'a Registry,
    /// Whether the forms the plan writes out are accepted (see [`resolve_document`]).
    plan_forms: bool,
    /// Wires beyond the first into a collective input, `(node, input, source node, port)`,
    /// type-checked as elements of its list.
    extra: Vec<(usize, usize, usize, usize)>,
    diags: Vec<Diagnostic>,
    /// What [`resolve`] would have reported where [`resolve_document`] accepted a form only
    /// a plan writes out (see [`Resolved::plan_only`]).
    plan_only: Vec<Diagnostic>,
    /// Per node: its op, when registered.
    ops: Vec<Option<Arc<dyn Op>>>,
    params: Vec<Vec<Value>>,
    bindings: Vec<Vec<Binding>>,
}

impl Resolver<'_> {
    /// Each node's op, params and constants.
    fn nodes(&mut self) {
        for node in self.graph.nodes() {
            let Some(op) = self.registry.get(&node.op) else {
                let mut d = Diagnostic::new(DiagnosticKind::UnknownOp, &node.id, &node.op)
                    .expected("a registered op id")
                    .found(format!("`{}`", node.op));
                if let Some(s) = self.registry.suggest(&node.op) {
                    d = d.hint(format!("did you mean `{s}`? `kiln ops` lists them all"));
                } else {
                    d = d.hint("`kiln ops` lists the registered ops");
                }
                self.diags.push(d);
                self.ops.push(None);
                self.params.push(vec![]);
                self.bindings.push(vec![]);
                continue;
            };
            let spec = op.spec();
            for name in node.params.keys() {
                if spec.param_index(name).is_none() {
                    let names: Vec<&str> = spec.params.iter().map(|p| &*p.name).collect();
                    self.diags.push(
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
                // A param is also an input port of its name: a constant given there is the
                // param's value, as if it were written under `params`.
                let given = super::given_param(spec, node, p);
                if node.params.contains_key(&p.name)
                    && node.consts.contains_key(&p.name)
                    && spec.input_index(&p.name).is_none()
                {
                    self.diags.push(
                        Diagnostic::new(DiagnosticKind::MultipleWires, &node.id, &node.op)
                            .port(format!("param `{}`", p.name))
                            .expected("one value: a param or a constant at its port")
                            .found("both"),
                    );
                }
                match given.or_else(|| p.default.clone()) {
                    Some(v) if value_fits(p.ty, &v) => pv.push(v),
                    Some(v) => {
                        self.diags.push(
                            Diagnostic::new(DiagnosticKind::TypeMismatch, &node.id, &node.op)
                                .port(format!("param `{}`", p.name))
                                .expected(p.ty.name())
                                .found(v.type_name()),
                        );
                        pv.push(Value::Empty);
                    }
                    None => {
                        self.diags.push(
                            Diagnostic::new(DiagnosticKind::MissingParam, &node.id, &node.op)
                                .port(format!("param `{}`", p.name))
                                .expected(format!("a {} value", p.ty.name()))
                                .found("nothing"),
                        );
                        pv.push(Value::Empty);
                    }
                }
            }
            self.params.push(pv);
            let mut b: Vec<Option<Binding>> = vec![None; spec.inputs.len()];
            for (name, v) in &node.consts {
                match spec.input_index(name) {
                    // A param's constant (read above).
                    None if spec.param_index(name).is_some() => {}
                    None => {
                        self.diags
                            .push(unknown_input(node.id.clone(), &node.op, name, op.as_ref()))
                    }
                    Some(i) => {
                        let ispec = &spec.inputs[i];
                        let per_item = self.plan_forms
                            && !ispec.ty.is_list()
                            && v.as_list()
                                .is_some_and(|l| l.iter().all(|x| value_fits(ispec.ty, x)));
                        if !value_fits(ispec.ty, v) {
                            let d =
                                Diagnostic::new(DiagnosticKind::TypeMismatch, &node.id, &node.op)
                                    .port(format!("input `{name}`"))
                                    .expected(spec.inputs[i].ty.name())
                                    .found(format!("constant of type {}", v.type_name()));
                            if per_item {
                                self.plan_only.push(d);
                            } else {
                                self.diags.push(d);
                            }
                        }
                        b[i] = Some(Binding::Const(v.clone()));
                    }
                }
            }
            self.bindings
                .push(b.into_iter().map(|x| x.unwrap_or(Binding::Empty)).collect());
            self.ops.push(Some(op.clone()));
        }
    }

    /// Bind the wires `wires()` found going into params, `(node, param, source node, source
    /// port)` in wire order: a node with such wires runs its op through [`ParamPorts`], whose
    /// spec has an input for each wired param after the op's own. A wire into a plan-time
    /// param is refused (the plan writes the values it knows into params before the engine
    /// sees them), as is a wire into a param that has a value, or a second wire.
    fn param_wires(&mut self, mut found: Vec<(usize, usize, usize, usize)>) {
        // By node, then param; wires into one param stay in wire order (a stable sort), so
        // a second wire is the one reported.
        found.sort_by_key(|w| (w.0, w.1));
        let mut wired: Vec<(usize, usize, usize, usize)> = vec![];
        for (di, pi, si, sp) in found {
            let Some(op) = &self.ops[di] else { continue };
            let spec = op.spec();
            let node = &self.graph.nodes()[di];
            let p = &spec.params[pi];
            let src = &self.graph.nodes()[si];
            let from = match self.ops[si].as_ref().and_then(|o| o.spec().outputs.get(sp)) {
                Some(o) => format!("{}.{}", src.id, o.name),
                None => src.id.to_string(),
            };
            let refuse = |expected: &str, found: String| {
                Diagnostic::new(DiagnosticKind::MultipleWires, &node.id, &node.op)
                    .port(format!("param `{}`", p.name))
                    .expected(expected.to_string())
                    .found(found)
            };
            if spec.param_at_plan_time(pi) {
                self.diags.push(
                    Diagnostic::new(DiagnosticKind::PlanTimePort, &node.id, &node.op)
                        .port(format!("param `{}`", p.name))
                        .expected(
                            "a value the plan knows: a constant, a graph input or a scope's item",
                        )
                        .found(format!("a wire from `{from}`, known only while cooking"))
                        .hint(format!(
                            "`{}` shapes the node before it runs; give it a constant or a graph input",
                            p.name
                        )),
                );
            } else if node.params.contains_key(&p.name) || node.consts.contains_key(&p.name) {
                let d = refuse(
                    "a wire or a value, not both",
                    format!("a value and a wire from `{from}`"),
                );
                self.diags.push(d);
            } else if wired.last().is_some_and(|&(d, q, _, _)| (d, q) == (di, pi)) {
                let d = refuse("at most one wire", format!("another wire, from `{from}`"));
                self.diags.push(d);
            } else {
                wired.push((di, pi, si, sp));
            }
        }
        let mut at = 0;
        while at < wired.len() {
            let di = wired[at].0;
            let end = at + wired[at..].iter().take_while(|w| w.0 == di).count();
            let group = &wired[at..end];
            at = end;
            let Some(op) = self.ops[di].take() else {
                continue;
            };
            let bound: Vec<usize> = group.iter().map(|w| w.1).collect();
            // A required param that is wired is given.
            let node = &self.graph.nodes()[di];
            for &pi in &bound {
                let port = format!("param `{}`", op.spec().params[pi].name);
                self.diags.retain(|d| {
                    !(d.kind == DiagnosticKind::MissingParam
                        && d.node.as_ref() == Some(&node.id)
                        && d.port.as_deref() == Some(port.as_str()))
                });
            }
            let own = op.spec().inputs.len();
            let wrapped: Arc<dyn Op> = Arc::new(ParamPorts::new(op, &bound));
            self.bindings[di].resize(wrapped.spec().inputs.len(), Binding::Empty);
            for (k, &(_, _, si, sp)) in group.iter().enumerate() {
                self.bindings[di][own + k] = Binding::Wire {
                    node: si as u32,
                    port: sp as u16,
                };
            }
            self.ops[di] = Some(wrapped);
        }
    }

    /// Each wire bound to its input (one source per input).
    fn wires(&mut self) {
        let mut wired: Vec<Vec<bool>> =
            self.bindings.iter().map(|b| vec![false; b.len()]).collect();
        let mut into_params = vec![];
        for w in self.graph.wires() {
            let src = self.graph.index_of(w.from.node.as_str());
            let dst = self.graph.index_of(w.to.node.as_str());
            let (Some(si), Some(di)) = (src, dst) else {
                let (missing, other) = if src.is_none() {
                    (&w.from, &w.to)
                } else {
                    (&w.to, &w.from)
                };
                let mut d = Diagnostic {
                    kind: DiagnosticKind::UnknownNode,
                    node: self.graph.node(other.node.as_str()).map(|n| n.id.clone()),
                    op: self.graph.node(other.node.as_str()).map(|n| n.op.clone()),
                    port: Some(format!("wire {} -> {}", w.from, w.to)),
                    expected: Some("an existing node".into()),
                    found: Some(format!("`{}`", missing.node)),
                    nodes: vec![],
                    hint: None,
                };
                let names: Vec<&str> = self.graph.nodes().iter().map(|n| n.id.as_str()).collect();
                if let Some(s) = names
                    .iter()
                    .min_by_key(|n| crate::registry::edit_distance(n, missing.node.as_str()))
                    && crate::registry::edit_distance(s, missing.node.as_str()) <= 2
                {
                    d.hint = Some(format!("did you mean `{s}`?"));
                }
                self.diags.push(d);
                continue;
            };
            let (Some(sop), Some(dop)) = (&self.ops[si], &self.ops[di]) else {
                continue;
            };
            let snode = &self.graph.nodes()[si];
            let dnode = &self.graph.nodes()[di];
            let Some(op_port) = sop.spec().output_index(&w.from.port) else {
                let names: Vec<&str> = sop.spec().outputs.iter().map(|p| &*p.name).collect();
                self.diags.push(
                    Diagnostic::new(DiagnosticKind::UnknownPort, &snode.id, &snode.op)
                        .port(format!("output `{}`", w.from.port))
                        .expected(format!("one of: {}", names.join(", ")))
                        .found(format!("`{}` (wire to {})", w.from.port, w.to)),
                );
                continue;
            };
            let Some(ip) = dop.spec().input_index(&w.to.port) else {
                // Every param is also an input port of its name (bound below).
                if let Some(pi) = dop.spec().param_index(&w.to.port) {
                    into_params.push((di, pi, si, op_port));
                    continue;
                }
                self.diags.push(unknown_input(
                    dnode.id.clone(),
                    &dnode.op,
                    &w.to.port,
                    dop.as_ref(),
                ));
                continue;
            };
            let collective = dop.spec().inputs[ip].collective;
            if wired[di][ip] && collective && self.plan_forms {
                self.extra.push((di, ip, si, op_port));
                self.plan_only.push(
                    Diagnostic::new(DiagnosticKind::MultipleWires, &dnode.id, &dnode.op)
                        .port(format!("input `{}`", w.to.port))
                        .expected("at most one wire or constant")
                        .found(format!("another source, {}", w.from)),
                );
                continue;
            }
            if wired[di][ip] || matches!(self.bindings[di][ip], Binding::Const(_)) {
                let mut d = Diagnostic::new(DiagnosticKind::MultipleWires, &dnode.id, &dnode.op)
                    .port(format!("input `{}`", w.to.port))
                    .expected(if collective && self.plan_forms {
                        "wires only (a collective input queues wires, not a constant too)"
                    } else {
                        "at most one wire or constant"
                    })
                    .found(format!("another source, {}", w.from));
                if !collective {
                    d = d.hint("only a collective input takes several wires (see `kiln ops`)");
                }
                self.diags.push(d);
                continue;
            }
            wired[di][ip] = true;
            self.bindings[di][ip] = Binding::Wire {
                node: si as u32,
                port: op_port as u16,
            };
        }
        self.param_wires(into_params);
    }

    /// Required inputs present, defaults applied where nothing is bound.
    fn defaults(&mut self) {
        for (i, node) in self.graph.nodes().iter().enumerate() {
            let Some(op) = &self.ops[i] else { continue };
            if op.spec().delay && !matches!(self.bindings[i].first(), Some(Binding::Wire { .. })) {
                let name = op
                    .spec()
                    .inputs
                    .first()
                    .map(|p| p.name.to_string())
                    .unwrap_or_default();
                self.diags.push(
                    Diagnostic::new(DiagnosticKind::MissingInput, &node.id, &node.op)
                        .port(format!("input `{name}`"))
                        .expected("a wire from the node that seeds the latch")
                        .found(match self.bindings[i].first() {
                            Some(Binding::Const(_)) => "a constant",
                            _ => "nothing",
                        })
                        .hint("a latch's seed must come from a node (an `init` wire); it never defaults to zero"),
                );
                continue;
            }
            for (p, spec) in op.spec().inputs.iter().enumerate() {
                if matches!(self.bindings[i][p], Binding::Empty) {
                    match &spec.default {
                        Some(v) => self.bindings[i][p] = Binding::Const(v.clone()),
                        None => self.diags.push(
                            Diagnostic::new(DiagnosticKind::MissingInput, &node.id, &node.op)
                                .port(format!("input `{}`", spec.name))
                                .expected(format!("a wire or a constant of type {}", spec.ty))
                                .found("nothing"),
                        ),
                    }
                }
            }
        }
    }

    /// The tick's dependency topology, a topological order of what can be ordered, and the
    /// order of every node when there is no cycle (a cycle is a diagnostic).
    fn order(&mut self) -> (Topology, Vec<u32>, Option<Vec<u32>>) {
        // Cycles. An edge into a latch's `signal` is captured for the next tick, so it may close
        // a cycle; every other edge is a dependency within a tick.
        let is_delay = |w: &crate::graph::Wire, port: Option<usize>| {
            self.graph
                .index_of(w.to.node.as_str())
                .and_then(|d| self.ops[d].as_ref())
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
            self.graph
                .index_of(w.to.node.as_str())
                .and_then(|d| self.ops[d].as_ref())
                .is_some_and(|op| {
                    op.spec()
                        .input_index(&w.to.port)
                        .is_some_and(|i| op.spec().inputs[i].feedback)
                })
        };
        let cyc_topo =
            Topology::from_graph_filtered(self.graph, |w| !is_delay(w, Some(1)) && !is_feedback(w));
        // Within a tick a latch depends on nothing: its output is the stored state.
        let topo = Topology::from_graph_filtered(self.graph, |w| !is_delay(w, None));
        let (partial, unordered) = cyc_topo.partial_order();
        let order = match unordered.is_empty() {
            true => Some(partial.clone()),
            false => {
                for cyc in cyc_topo.cycles() {
                    let first = &self.graph.nodes()[cyc[0] as usize];
                    let mut d = Diagnostic::new(DiagnosticKind::Cycle, &first.id, &first.op)
                        .expected("no cycle without a latch (a value cannot depend on itself within a tick)")
                        .hint("route the loop through a latch's `signal` input (a one-tick delay), or for audio through a feedback input such as `delay.in`");
                    d.nodes = cyc
                        .iter()
                        .map(|&v| self.graph.nodes()[v as usize].id.clone())
                        .collect();
                    self.diags.push(d);
                }
                None
            }
        };
        (topo, partial, order)
    }

    /// Output types, inferred in topological order.
    fn types(&mut self, partial: &[u32]) -> Vec<Vec<ValueType>> {
        let mut out_types: Vec<Vec<ValueType>> = self
            .ops
            .iter()
            .map(|o| {
                o.as_ref()
                    .map(|o| o.spec().outputs.iter().map(|p| p.ty).collect())
                    .unwrap_or_default()
            })
            .collect();
        {
            for &v in partial {
                let v = v as usize;
                let Some(op) = &self.ops[v] else { continue };
                let node = &self.graph.nodes()[v];
                let spec = op.spec();
                let mut in_types = Vec::with_capacity(spec.inputs.len());
                let mut ok = true;
                // Whether a list arrives at a single input (the plan writes the node once per
                // element, so its outputs are lists).
                let mut per_item = false;
                for (p, ispec) in spec.inputs.iter().enumerate() {
                    let found = match &self.bindings[v][p] {
                        Binding::Wire { node: s, port } => {
                            out_types[*s as usize].get(*port as usize).copied()
                        }
                        Binding::Const(c) => c.value_type(),
                        Binding::Empty => None,
                    };
                    let raw = found;
                    let found = match found {
                        Some(t) if self.plan_forms && self.is_per_item(ispec, t) => {
                            per_item = true;
                            t.element()
                        }
                        other => other,
                    };
                    if let (Binding::Wire { node: s, port }, Some(t), Some(raw)) =
                        (&self.bindings[v][p], found, raw)
                    {
                        let fits = self.wire_fits(ispec, t);
                        // A wire that fits only as a form the plan writes out (an implicit
                        // `for`, an element into a collective input) is what `resolve` refuses.
                        if !fits || !ispec.ty.accepts(raw) {
                            let src = &self.graph.nodes()[*s as usize];
                            let sport = &self.ops[*s as usize]
                                .as_ref()
                                .map(|o| o.spec().outputs[*port as usize].name.to_string())
                                .unwrap_or_default();
                            let shown = if fits { raw } else { t };
                            let d = Diagnostic::new(DiagnosticKind::TypeMismatch, &node.id, &node.op)
                                .port(format!("input `{}`", ispec.name))
                                .expected(ispec.ty.name())
                                .found(format!("{shown} from {}.{sport}", src.id))
                                .hint("allowed conversion: int -> float; `number` ports take any numeric type");
                            if fits {
                                self.plan_only.push(d);
                            } else {
                                ok = false;
                                self.diags.push(d);
                            }
                        }
                    }
                    in_types.push(found);
                }
                if !ok {
                    continue;
                }
                match op.infer_outputs(&in_types, &self.params[v]) {
                    Ok(t) if per_item => {
                        out_types[v] = t.into_iter().map(crate::list_type::list_of).collect()
                    }
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
                        self.diags.push(
                            Diagnostic::new(DiagnosticKind::TypeMismatch, &node.id, &node.op)
                                .port("inputs".into())
                                .expected(msg)
                                .found(found.join(", ")),
                        )
                    }
                }
            }
        }
        out_types
    }

    /// Whether a wire of type `t` fits input `ispec`: its type accepts `t`; and for a graph
    /// the plan writes out, a list into a single input of its element's type (an implicit
    /// `for`), or a single value into a collective input of a list of its type.
    fn wire_fits(&self, ispec: &crate::op::InputSpec, t: ValueType) -> bool {
        if ispec.ty.accepts(t) {
            return true;
        }
        if !self.plan_forms {
            return false;
        }
        if ispec.collective {
            return ispec.ty.element().is_some_and(|e| e.accepts(t));
        }
        self.is_per_item(ispec, t)
    }

    /// Whether a value of type `t` at `ispec` is taken element by element (an implicit `for`).
    fn is_per_item(&self, ispec: &crate::op::InputSpec, t: ValueType) -> bool {
        !ispec.collective
            && !ispec.ty.is_list()
            && !ispec.ty.accepts(t)
            && t.element().is_some_and(|e| ispec.ty.accepts(e))
    }

    /// The wires beyond the first into collective inputs, each an element (or a list of
    /// elements) of the input's list.
    fn extra_types(&mut self, out_types: &[Vec<ValueType>]) {
        for &(di, ip, si, sp) in &self.extra {
            let (Some(dop), Some(&t)) = (&self.ops[di], out_types[si].get(sp)) else {
                continue;
            };
            let ispec = &dop.spec().inputs[ip];
            let fits = ispec.ty.accepts(t) || ispec.ty.element().is_some_and(|e| e.accepts(t));
            if !fits {
                let node = &self.graph.nodes()[di];
                let src = &self.graph.nodes()[si];
                self.diags.push(
                    Diagnostic::new(DiagnosticKind::TypeMismatch, &node.id, &node.op)
                        .port(format!("input `{}`", ispec.name))
                        .expected(format!(
                            "{} or its elements (a collective input)",
                            ispec.ty.name()
                        ))
                        .found(format!("{t} from {}", src.id)),
                );
            }
        }
    }

    /// A latch's signal, known only once the whole tick is typed, must fit its state type.
    fn latch_types(&mut self, out_types: &[Vec<ValueType>]) {
        for (i, node) in self.graph.nodes().iter().enumerate() {
            let Some(op) = &self.ops[i] else { continue };
            if !op.spec().delay {
                continue;
            }
            if let (Some(Binding::Wire { node: s, port }), Some(&want)) =
                (self.bindings[i].get(1), out_types[i].first())
                && let Some(&got) = out_types[*s as usize].get(*port as usize)
                && want != ValueType::Any
                && got != ValueType::Any
                && !want.accepts(got)
            {
                let src = &self.graph.nodes()[*s as usize];
                self.diags.push(
                    Diagnostic::new(DiagnosticKind::TypeMismatch, &node.id, &node.op)
                        .port("input `signal`".into())
                        .expected(format!("{want} (the type of the latch's init)"))
                        .found(format!("{got} from {}", src.id)),
                );
            }
        }
    }
}
