//! Writing a document out: a worklist of frames (one per call being written, no recursion),
//! each copying its graph's nodes under its prefix and binding its interface nodes to what
//! the call was given.

use super::choice::Choice;
use super::flat::{Flat, Src};
use super::report::LowerReport;
use super::waits::Pending;
use super::{Limits, LowerError};
use kiln_core::context::EvalContext;
use kiln_core::graph::{Node, NodeId, PortRef};
use kiln_core::op::Role;
use kiln_core::registry::Registry;
use kiln_core::value::{Value, ValueType};
use kiln_doc::document::{Animated, Asset, Document, PlanValue, Scope};
use std::collections::{BTreeSet, HashMap, HashSet};

/// One graph being written out.
pub(crate) struct Frame<'d> {
    pub doc: &'d Document,
    /// Flat id prefix (`""` at the top, else the call or copy id).
    pub prefix: String,
    /// The call's bindings of the body's inputs; `None` at the top, where interface nodes are
    /// the flat graph's own.
    pub binds: Option<HashMap<String, Src>>,
    /// The asset written (for messages and defaults).
    pub asset: Option<&'d Asset>,
    /// Calls deep.
    pub depth: usize,
}

/// The state of one lowering.
pub(crate) struct Lowering<'d, 'r> {
    pub registry: &'r Registry,
    pub ctx: &'r EvalContext,
    pub limits: Limits,
    pub flat: Flat,
    pub stack: Vec<Frame<'d>>,
    pub pending: Vec<Pending<'d>>,
    pub choices: Vec<Choice>,
    pub report: LowerReport,
    /// Graph inputs whose values the plan read.
    pub inputs_read: BTreeSet<String>,
    /// Whether the plan cooked a node for a value (its plan stands on the whole context).
    pub waited: bool,
    /// Each call written, by flat id: its asset.
    pub calls: HashMap<String, &'d Asset>,
    /// Whether the plan sampled a curve at the clock (so it stands on the clock).
    pub clock: bool,
    /// The top graph's output nodes, emitted after everything else.
    pub outputs: Vec<Node>,
    /// The params animated by curves, as sampled.
    pub animated: Vec<super::AnimatedParam>,
    /// Each graph written, planned once (by its address: the document outlives the plan).
    templates: HashMap<usize, std::rc::Rc<Template>>,
    /// The nodes one copy of a graph writes at least (see [`Lowering::least_nodes`]), by its
    /// address.
    least: HashMap<usize, u64>,
    /// Nodes already written once per element, or copies of one (see `entities`).
    pub entity_seen: HashSet<NodeId>,
    /// Nodes whose collective inputs are queued.
    pub queued: HashSet<NodeId>,
    /// Each output of a node written once per element: its copies' outputs.
    pub entity_elements: HashMap<PortRef, Vec<Src>>,
    /// Lists the plan cooked to write a node once per element.
    pub cooked_lists: HashMap<PortRef, Value>,
    /// Values the plan cooked (by resolved port, errors left out): a later wait's cone stops
    /// at them (see `waits::cook`).
    pub cooked: HashMap<PortRef, Value>,
    /// Nodes before this index were looked at by `queue_collective` (each once).
    pub queue_scan_from: usize,
    /// Nodes before this index gave no input to write once per element when `entities` last
    /// looked, except those in `entity_recheck`; set back to 0 when a node is written per
    /// element (its copies' outputs may now be lists to others).
    pub entity_scan_from: usize,
    /// Nodes before `entity_scan_from` that were waiting to be written per element.
    pub entity_recheck: Vec<usize>,
    /// Whether wires into collective inputs are queued and lists into single inputs written
    /// out per element (not in a flow body, whose executor gives ports their own meaning).
    pub entity_forms: bool,
}

/// What a node of a graph is to the plan, whatever frame it is written in.
#[derive(Clone, Copy, PartialEq)]
enum Class {
    /// A graph input (bound to the call's argument in a body; a node at the top).
    Input,
    /// A graph output.
    Output,
    /// A call.
    Call,
    /// A choice.
    Choice,
    /// Any other node; `curves` when a curve animates one of its ports or params.
    Plain { curves: bool },
}

/// A graph as the plan reads it, worked out once per graph and kept for every frame that
/// writes it (every call of it, every copy of a scope): the class of each node, and the node
/// each wire goes into (by index), so writing a copy looks nothing up by name.
pub(crate) struct Template {
    class: Vec<Class>,
    wire_to: Vec<Option<usize>>,
}

impl Template {
    fn of(doc: &Document, registry: &Registry) -> Template {
        let g = &doc.graph;
        let class = g
            .nodes()
            .iter()
            .map(|n| {
                let role = registry
                    .get(&n.op)
                    .map(|o| o.spec().role)
                    .unwrap_or(Role::Node);
                match role {
                    Role::GraphInput => Class::Input,
                    Role::GraphOutput => Class::Output,
                    _ if doc.calls.contains_key(&n.id) => Class::Call,
                    Role::Choice => Class::Choice,
                    _ => Class::Plain {
                        curves: !curves_of(doc, &n.id).is_empty(),
                    },
                }
            })
            .collect();
        let wire_to = g.wires().iter().map(|w| g.index_of(&w.to.node)).collect();
        Template { class, wire_to }
    }
}

/// What a node of a frame is.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Emitted,
    Bound,
    Output,
    Call,
    Choice,
}

/// `prefix/id`, or `id` at the top.
pub(crate) fn join(prefix: &str, id: &str) -> String {
    if prefix.is_empty() {
        return id.to_string();
    }
    let mut s = String::with_capacity(prefix.len() + 1 + id.len());
    s.push_str(prefix);
    s.push('/');
    s.push_str(id);
    s
}

impl<'d, 'r> Lowering<'d, 'r> {
    pub fn new(registry: &'r Registry, ctx: &'r EvalContext, limits: Limits) -> Self {
        Lowering {
            registry,
            ctx,
            limits,
            flat: Flat::default(),
            stack: Vec::new(),
            pending: Vec::new(),
            choices: Vec::new(),
            report: LowerReport::default(),
            inputs_read: BTreeSet::new(),
            waited: false,
            calls: HashMap::new(),
            clock: false,
            outputs: Vec::new(),
            animated: Vec::new(),
            templates: HashMap::new(),
            least: HashMap::new(),
            entity_seen: HashSet::new(),
            queued: HashSet::new(),
            entity_elements: HashMap::new(),
            cooked_lists: HashMap::new(),
            cooked: HashMap::new(),
            queue_scan_from: 0,
            entity_scan_from: 0,
            entity_recheck: Vec::new(),
            entity_forms: true,
        }
    }

    /// Emit a node, within the node limit.
    pub fn emit(&mut self, node: Node) -> Result<(), LowerError> {
        if self.flat.nodes.len() as u64 >= self.limits.max_nodes {
            return Err(LowerError::TooLarge {
                what: "plan",
                call: node.id.to_string(),
                size: self.flat.nodes.len() as u64 + 1,
                unit: "nodes",
                limit: self.limits.max_nodes,
            });
        }
        self.flat.emit(node)
    }

    /// The body of `doc` as planned once (see [`Template`]), kept for every frame of it.
    fn template(&mut self, doc: &Document) -> std::rc::Rc<Template> {
        let at = doc as *const Document as usize;
        if let Some(t) = self.templates.get(&at) {
            return t.clone();
        }
        let t = std::rc::Rc::new(Template::of(doc, self.registry));
        self.templates.insert(at, t.clone());
        t
    }

    /// The nodes one copy of `top` writes at least: its plain nodes and, through each call
    /// written once in place (`Scope::Once`), those of the graph it calls (a `for`, `fold` or
    /// `step`, or a call of a flow graph, counts nothing here: its copies are checked as they
    /// are written, a flow body is its own plan). Counted
    /// before anything is written, so a graph that calls another twice, which calls another
    /// twice, and so on, is refused from its count, not after millions of nodes. Saturating;
    /// kept per graph; a worklist, no recursion (a loop of calls, which loading refuses,
    /// counts nothing).
    pub fn least_nodes(&mut self, top: &Document) -> u64 {
        let key = |d: &Document| d as *const Document as usize;
        let once = |d: &Document| -> Vec<*const Document> {
            d.calls
                .values()
                .filter(|c| matches!(c.scope, Scope::Once) && c.asset.doc.flow.is_none())
                .map(|c| &c.asset.doc as *const Document)
                .collect()
        };
        let mut stack: Vec<&Document> = vec![top];
        let mut opened: HashSet<usize> = HashSet::new();
        while let Some(&doc) = stack.last() {
            let k = key(doc);
            if self.least.contains_key(&k) {
                stack.pop();
                continue;
            }
            let callees: Vec<&Document> = doc
                .calls
                .values()
                .filter(|c| matches!(c.scope, Scope::Once) && c.asset.doc.flow.is_none())
                .map(|c| &c.asset.doc)
                .filter(|d| !self.least.contains_key(&key(d)))
                .collect();
            if !callees.is_empty() && opened.insert(k) {
                stack.extend(callees);
                continue;
            }
            let t = self.template(doc);
            let plain = t
                .class
                .iter()
                .filter(|c| matches!(c, Class::Plain { .. }))
                .count() as u64;
            let called = once(doc)
                .into_iter()
                .map(|d| self.least.get(&(d as usize)).copied().unwrap_or(0))
                .fold(0u64, u64::saturating_add);
            self.least.insert(k, plain.saturating_add(called));
            stack.pop();
        }
        self.least.get(&key(top)).copied().unwrap_or(0)
    }

    /// Write one frame: its nodes, its wires, and a frame (or scope) per call in it.
    pub fn expand(&mut self, f: Frame<'d>) -> Result<(), LowerError> {
        let doc: &'d Document = f.doc;
        let g = &doc.graph;
        let t = self.template(doc);
        let mut kinds: Vec<Kind> = Vec::with_capacity(g.len());
        let mut call_binds: HashMap<usize, HashMap<String, Src>> = HashMap::new();
        for (i, n) in g.nodes().iter().enumerate() {
            let kind = match (&t.class[i], &f.binds) {
                (Class::Input, Some(binds)) => {
                    let fid = join(&f.prefix, &n.id);
                    let name = kiln_doc::document::input_name(n)
                        .unwrap_or(&n.id)
                        .to_string();
                    let src = match binds.get(&name) {
                        Some(s) => s.clone(),
                        None => self.input_default(&f, n, &name)?,
                    };
                    self.flat
                        .alias(PortRef::new(fid, kiln_core::graph::DEFAULT_PORT), src);
                    Kind::Bound
                }
                (Class::Output, Some(_)) => {
                    if let Some(v) = n.consts.get("value") {
                        self.flat
                            .alias(PortRef::new(f.prefix.clone(), &n.id), Src::Const(v.clone()));
                    }
                    Kind::Output
                }
                // The graph's own outputs come last, as a graph file lists them.
                (Class::Output, None) => {
                    self.outputs.push(n.clone());
                    Kind::Emitted
                }
                (Class::Call, _) => {
                    let fid = join(&f.prefix, &n.id);
                    let mut b = HashMap::new();
                    for (p, v) in &n.consts {
                        b.insert(p.clone(), Src::Const(v.clone()));
                    }
                    for (port, a) in curves_of(doc, &n.id) {
                        if !a.param {
                            b.insert(port.to_string(), self.curve_node(&fid, port, a)?);
                        }
                    }
                    call_binds.insert(i, b);
                    Kind::Call
                }
                (Class::Choice, _) => Kind::Choice,
                (Class::Input | Class::Plain { .. }, _) => {
                    let fid = join(&f.prefix, &n.id);
                    let mut node = n.clone();
                    node.id = NodeId::from(fid.as_str());
                    let mut inputs = Vec::new();
                    if matches!(t.class[i], Class::Plain { curves: true } | Class::Input) {
                        for (port, a) in curves_of(doc, &n.id) {
                            if a.param {
                                let (v, input) = self.sample(&fid, &n.op, port, a)?;
                                if input {
                                    node.consts.insert(port.to_string(), v);
                                } else {
                                    node.params.insert(port.to_string(), v);
                                }
                            } else {
                                inputs.push((port, a));
                            }
                        }
                    }
                    self.emit(node)?;
                    for (port, a) in inputs {
                        let src = self.curve_node(&fid, port, a)?;
                        self.flat.wire(src, PortRef::new(fid.as_str(), port));
                    }
                    Kind::Emitted
                }
            };
            kinds.push(kind);
        }
        let mut choice_srcs: HashMap<usize, HashMap<&str, Src>> = HashMap::new();
        // Calls' ports given several wires: (call index, port) → every source.
        let mut multi: HashMap<(usize, String), Vec<Src>> = HashMap::new();
        for (w, to) in g.wires().iter().zip(&t.wire_to) {
            let Some(to) = *to else {
                // Wires into unknown nodes are reported by validation of the flat graph.
                continue;
            };
            let from = Src::Port(PortRef::new(join(&f.prefix, &w.from.node), &w.from.port));
            match kinds[to] {
                Kind::Emitted => self
                    .flat
                    .wire(from, PortRef::new(join(&f.prefix, &w.to.node), &w.to.port)),
                Kind::Output => self
                    .flat
                    .alias(PortRef::new(f.prefix.clone(), &w.to.node), from),
                Kind::Call => {
                    if let Some(b) = call_binds.get_mut(&to) {
                        match b.get(&w.to.port) {
                            Some(prev) if !n_has_const(g, to, &w.to.port) => multi
                                .entry((to, w.to.port.clone()))
                                .or_insert_with(|| vec![prev.clone()])
                                .push(from),
                            _ => {
                                b.insert(w.to.port.clone(), from);
                            }
                        }
                    }
                }
                Kind::Choice => {
                    choice_srcs
                        .entry(to)
                        .or_default()
                        .insert(w.to.port.as_str(), from);
                }
                // Wires into bound inputs are meaningless (validation of the asset reports
                // them).
                Kind::Bound => {}
            }
        }
        if let (Some(asset), Some(_)) = (f.asset, &f.binds) {
            self.alias_default_output(&f.prefix, asset);
        }
        for (i, n) in g.nodes().iter().enumerate() {
            match kinds[i] {
                Kind::Call => {
                    let mut binds = call_binds.remove(&i).unwrap_or_default();
                    let mut ports: Vec<(String, Vec<Src>)> = multi
                        .iter()
                        .filter(|((c, _), _)| *c == i)
                        .map(|((_, p), s)| (p.clone(), s.clone()))
                        .collect();
                    ports.sort_by(|a, b| a.0.cmp(&b.0));
                    for (port, srcs) in ports {
                        let src = self.queue_call_port(&f, n, &port, srcs)?;
                        binds.insert(port, src);
                    }
                    self.call(&f, n, binds)?;
                }
                Kind::Choice => {
                    let srcs = choice_srcs.remove(&i).unwrap_or_default();
                    self.choice(&f.prefix, n, srcs)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The value an unbound body input takes: its default, or an error naming the call.
    fn input_default(&self, f: &Frame<'d>, n: &Node, name: &str) -> Result<Src, LowerError> {
        let decl = f.asset.and_then(|a| a.interface.input(name));
        match decl
            .and_then(|d| d.default.clone())
            .or_else(|| n.params.get("default").cloned())
        {
            Some(v) => Ok(Src::Const(v)),
            None => Err(LowerError::MissingInput {
                call: f.prefix.clone(),
                asset: f.asset.map(|a| a.name.clone()).unwrap_or_default(),
                input: name.to_string(),
            }),
        }
    }

    /// A bare reference to a call (`wall` for `wall.out`) names its output `out`, or its
    /// first output when none is called `out`.
    pub fn alias_default_output(&mut self, at: &str, asset: &Asset) {
        let outs = &asset.interface.outputs;
        if outs
            .iter()
            .any(|o| o.name == kiln_core::graph::DEFAULT_PORT)
        {
            return;
        }
        if let Some(first) = outs.first() {
            self.flat.alias(
                PortRef::new(at, kiln_core::graph::DEFAULT_PORT),
                Src::Port(PortRef::new(at, &first.name)),
            );
        }
    }

    /// Write a call node out according to its scope.
    fn call(
        &mut self,
        f: &Frame<'d>,
        n: &Node,
        mut binds: HashMap<String, Src>,
    ) -> Result<(), LowerError> {
        let doc: &'d Document = f.doc;
        let Some(call) = doc.calls.get(&n.id) else {
            return Ok(());
        };
        let asset: &'d Asset = &call.asset;
        let cid = join(&f.prefix, &n.id);
        self.calls.insert(cid.clone(), asset);
        let depth = f.depth + 1;
        if depth > self.limits.max_depth {
            return Err(LowerError::TooDeep {
                call: cid,
                depth,
                limit: self.limits.max_depth,
            });
        }
        // Count first, then write: the nodes already written and those this call will
        // write at least must fit the limit.
        if matches!(call.scope, Scope::Once) && asset.doc.flow.is_none() {
            let size = (self.flat.nodes.len() as u64).saturating_add(self.least_nodes(&asset.doc));
            if size > self.limits.max_nodes {
                return Err(LowerError::TooLarge {
                    what: "plan",
                    call: cid,
                    size,
                    unit: "nodes",
                    limit: self.limits.max_nodes,
                });
            }
        }
        let reserved = scope_inputs(&call.scope);
        for (port, src) in binds.iter_mut() {
            let Some(decl) = asset.interface.input(port) else {
                if reserved.contains(&port.as_str()) {
                    continue;
                }
                return Err(LowerError::UnknownInput {
                    call: cid,
                    asset: asset.name.clone(),
                    port: port.clone(),
                    known: asset
                        .interface
                        .inputs
                        .iter()
                        .map(|p| p.name.clone())
                        .collect(),
                });
            };
            if let Src::Const(v) = src {
                *v = conform(v.clone(), decl.ty);
            }
        }
        self.report.calls += 1;
        if let Some(decl) = &asset.doc.flow {
            if call.scope != Scope::Once {
                return Err(LowerError::Scope {
                    kind: call.scope.kind(),
                    call: cid,
                    message: format!(
                        "`{}` is a flow graph, which is called once; a scope cannot write it out",
                        asset.name
                    ),
                });
            }
            return self.write_flow(cid, asset, binds, decl);
        }
        match &call.scope {
            Scope::Once if self.entity_forms && self.map_call(&cid, asset, &binds, depth)? => {
                Ok(())
            }
            Scope::Once => {
                self.stack.push(Frame {
                    doc: &asset.doc,
                    prefix: cid,
                    binds: Some(binds),
                    asset: Some(asset),
                    depth,
                });
                Ok(())
            }
            Scope::For(s) => {
                let items = self.plan_value(&f.prefix, &s.items);
                self.begin_for(cid, asset, binds, s, items, depth)
            }
            Scope::Fold(s) => {
                let count = s.count.as_ref().map(|c| self.plan_value(&f.prefix, c));
                self.begin_fold(cid, asset, binds, s, count, depth)
            }
            Scope::Step(s) => self.write_step(cid, asset, binds, s),
        }
    }

    /// A plan value as a source in the flat namespace of the frame at `prefix`.
    fn plan_value(&self, prefix: &str, v: &PlanValue) -> Src {
        match v {
            PlanValue::Const(v) => Src::Const(v.clone()),
            PlanValue::Ref(r) => Src::Port(PortRef::new(join(prefix, &r.node), &r.port)),
        }
    }
}

/// The curves animating node `id` of `doc`: `(port or param, curve)`.
fn curves_of<'a>(doc: &'a Document, id: &str) -> Vec<(&'a str, &'a Animated)> {
    doc.curves
        .range(PortRef::new(id, "")..)
        .take_while(|(at, _)| at.node.as_str() == id)
        .map(|(at, a)| (at.port.as_str(), a))
        .collect()
}

impl Lowering<'_, '_> {
    /// A `curve.sample` node for the curve feeding input `port` of flat node `fid`.
    fn curve_node(&mut self, fid: &str, port: &str, a: &Animated) -> Result<Src, LowerError> {
        let id = format!("{fid}~{port}");
        let mut node = Node {
            id: NodeId::from(id.as_str()),
            op: crate::anim::CURVE_SAMPLE_OP.to_string(),
            params: Default::default(),
            consts: Default::default(),
        };
        node.params.insert("keys".into(), a.keys.clone());
        node.params.insert("interp".into(), Value::str(&a.interp));
        self.emit(node)?;
        Ok(Src::Port(PortRef::new(id, kiln_core::graph::DEFAULT_PORT)))
    }

    /// The value of the curve animating param `param` of flat node `fid` (of op `op`) at the
    /// plan's clock, recorded in the plan's animated params: the plan then stands on the clock.
    /// With it, whether it is the constant of an input of that name (the op has no such param).
    fn sample(
        &mut self,
        fid: &str,
        op: &str,
        param: &str,
        a: &Animated,
    ) -> Result<(Value, bool), LowerError> {
        let curve =
            crate::anim::Curve::from_params(&a.keys, &Value::str(&a.interp)).map_err(|e| {
                LowerError::Curve {
                    at: format!("{fid}.{param}"),
                    message: e.to_string(),
                }
            })?;
        self.clock = true;
        let spec = self.registry.get(op).map(|o| o.spec());
        let ty = spec.and_then(|spec| spec.param_index(param).map(|i| spec.params[i].ty));
        // A param the op has made an input since (`InputSpec::was_param`): the curve gives the
        // input's constant.
        let input_ty = match ty {
            None => spec.and_then(|s| {
                s.inputs
                    .iter()
                    .find(|p| p.name == param && p.was_param)
                    .map(|p| p.ty)
            }),
            Some(_) => None,
        };
        let p = super::AnimatedParam {
            node: NodeId::from(fid),
            param: param.to_string(),
            curve,
            ty: ty.or(input_ty),
            input: input_ty.is_some(),
        };
        let v = p.at(self.ctx.time);
        let input = p.input;
        self.animated.push(p);
        Ok((v, input))
    }
}

/// Whether node `i` of `g` holds a constant at `port` (a wire then replaces it).
fn n_has_const(g: &kiln_core::graph::Graph, i: usize, port: &str) -> bool {
    g.nodes()[i].consts.contains_key(port)
}

/// The body inputs a scope binds itself.
pub(crate) fn scope_inputs(s: &Scope) -> &'static [&'static str] {
    match s {
        Scope::Once => &[],
        Scope::For(_) => &["item", "index", "count"],
        Scope::Fold(_) => &["index"],
        Scope::Step(_) => &["dt", "time", "index", "substep"],
    }
}

/// A constant given to a port of type `ty`, converted the way a graph file reads a constant
/// for a port of that type (a file reads a call's constants before it knows their ports): an
/// int for a float port is that float, a list of 2 to 4 numbers for a vector port that vector.
pub(crate) fn conform(v: Value, ty: ValueType) -> Value {
    let floats = |l: &[Value]| -> Option<Vec<f64>> { l.iter().map(Value::as_f64).collect() };
    match (ty, v) {
        (ValueType::Float, Value::Int(i)) => Value::Float(i as f64),
        (ValueType::Vec2 | ValueType::Vec3 | ValueType::Vec4, Value::List(l)) => {
            match (ty, floats(&l).as_deref()) {
                (ValueType::Vec2, Some(&[x, y])) => Value::Vec2([x, y]),
                (ValueType::Vec3, Some(&[x, y, z])) => Value::Vec3([x, y, z]),
                (ValueType::Vec4, Some(&[x, y, z, w])) => Value::Vec4([x, y, z, w]),
                _ => Value::List(l),
            }
        }
        (_, v) => v,
    }
}

impl Lowering<'_, '_> {
    /// The flat graph, once every wire's source is defined; a read of an output a called
    /// graph does not have is reported as such.
    pub fn finish(&mut self) -> Result<(kiln_core::graph::Graph, super::flat::Sites), LowerError> {
        let fold = super::param_fold::PlanFold::of(self);
        let done = self.flat.finish(&fold);
        let read = fold.read.into_inner();
        self.inputs_read.extend(read);
        done.map_err(|e| match e {
            LowerError::Unbound { port, read } => {
                let p = PortRef::parse(&read);
                match self.calls.get(p.node.as_str()) {
                    Some(asset) => LowerError::UnknownOutput {
                        port,
                        asset: asset.name.clone(),
                        output: p.port.clone(),
                        known: asset
                            .interface
                            .outputs
                            .iter()
                            .map(|o| o.name.clone())
                            .collect(),
                    },
                    None => LowerError::Unbound { port, read },
                }
            }
            other => other,
        })
    }
}
