//! Entities through ports: what the plan writes for the two port kinds.
//!
//! * **Convergence.** The wires into a collective input are queued into one list by a
//!   `scope.queue` node (see [`super::ops`]), so no evaluator sees two wires into one input.
//!   The order is fixed: wires sorted by their source's node id, then port name (as the
//!   graph names them, so how a file is formatted does not matter); a list source gives its
//!   elements in order, any other value one element. A single wire from a list goes in as it
//!   is.
//! * **Implicit `for`.** A list wired into a single input that does not take lists writes the
//!   node once per element, `node[i]`, as a `for` writes its copies: each copy is given its
//!   element as a constant (so it is keyed by the element's content, and changing one element
//!   cooks one copy), and each output of the node becomes the list of its copies' outputs. A
//!   node fed by such a node maps over its copies element by element, with no cooking in
//!   between. A list a node computes is cooked first (a wait). Several mapped inputs of one
//!   node must have the same length.
//!
//! Divergence needs nothing: values are immutable and shared, so every consumer of an output
//! reads the same `Arc`.

use super::LowerError;
use super::expand::Lowering;
use super::flat::{Resolved, Src};
use super::ops::{GATHER_PORTS, GATHER_WIDTH, QUEUE_OP};
use super::report::ScopeReport;
use kiln_core::eval::Evaluator;
use kiln_core::graph::{Graph, Node, NodeId, PortRef};
use kiln_core::op::{InputSpec, OpSpec};
use kiln_core::registry::Registry;
use kiln_core::value::Value;
use kiln_doc::document::Document;
use std::collections::{HashMap, HashSet};

/// The id of copy `i` of a node written once per element.
pub(crate) fn entity_id(node: &str, i: usize) -> String {
    format!("{node}[{i}]")
}

/// Whether `doc` needs the plan for its ports alone (it may call nothing): several wires or a
/// single value into a collective input, or a list into a single input that does not take
/// lists.
pub fn needs_lowering(doc: &Document, registry: &Registry) -> bool {
    doc.has_structure() || has_entity_forms(&doc.graph, registry)
}

fn has_entity_forms(g: &Graph, registry: &Registry) -> bool {
    let spec_of = |id: &str| {
        g.node(id)
            .and_then(|n| registry.get(&n.op))
            .map(|o| o.spec().clone())
    };
    let mut seen: HashSet<&PortRef> = HashSet::new();
    for w in g.wires() {
        let Some(spec) = spec_of(&w.to.node) else {
            continue;
        };
        let Some(i) = spec.input_index(&w.to.port) else {
            continue;
        };
        let input = &spec.inputs[i];
        if input.collective || !seen.insert(&w.to) {
            return true;
        }
        let from = g.node(&w.from.node);
        let list = match from {
            Some(n) if n.op == "const" => {
                n.params.get("value").is_some_and(|v| v.as_list().is_some())
            }
            Some(_) => spec_of(&w.from.node)
                .and_then(|s| s.output_index(&w.from.port).map(|o| s.outputs[o].ty))
                .is_some_and(|t| t.is_list()),
            None => false,
        };
        if list && takes_elements(input) {
            return true;
        }
    }
    g.nodes().iter().any(|n| {
        registry.get(&n.op).is_some_and(|op| {
            n.consts.iter().any(|(port, v)| {
                op.spec().input_index(port).is_some_and(|i| {
                    let input = &op.spec().inputs[i];
                    input.collective || (v.as_list().is_some() && takes_elements(input))
                })
            })
        })
    })
}

/// Where a source goes in a queue: by its node id, then its port name (constants last).
fn queue_key(s: &Src) -> (u8, String, String) {
    match s {
        Src::Port(p) => (0, p.node.to_string(), p.port.clone()),
        Src::Const(_) | Src::Empty => (1, String::new(), String::new()),
    }
}

/// Whether a list arriving at `input` is taken element by element.
fn takes_elements(input: &InputSpec) -> bool {
    !input.collective && !input.ty.accepts(kiln_core::value::ValueType::List)
}

/// Where the elements of a mapped input come from.
enum Elements {
    /// Known: one source per element.
    Known(Vec<Src>),
    /// A list a node computes, to cook first.
    Cook(PortRef),
    /// Not written yet (a scope still waiting).
    Later,
}

/// One input of a node to map: the wire into it (or its constant) and its elements.
struct Mapped {
    port: String,
    wire: Option<usize>,
    elements: Elements,
}

impl<'d, 'r> Lowering<'d, 'r> {
    /// Queue the wires into collective inputs and write out the implicit `for`s of every node
    /// emitted so far, cooking the lists nodes compute.
    pub(crate) fn entities(&mut self, waits: &mut dyn Evaluator) -> Result<(), LowerError> {
        self.queue_collective()?;
        loop {
            let mut ready = Vec::new();
            let mut cook: Vec<(usize, Vec<Mapped>)> = Vec::new();
            let mut waiting: HashSet<NodeId> = HashSet::new();
            // A node that gave no input to write per element stays so until a node is
            // written per element (whose copies' outputs are lists to others): only the
            // nodes written since the last look, and those waiting then, are looked at again.
            let len = self.flat.nodes.len();
            let from = self.entity_scan_from.min(len);
            let mut look: Vec<usize> = if from == 0 {
                vec![]
            } else {
                std::mem::take(&mut self.entity_recheck)
            };
            look.extend(from..len);
            self.entity_scan_from = len;
            self.entity_recheck.clear();
            self.flat.walk(look.len());
            for idx in look {
                let id = self.flat.nodes[idx].id.clone();
                if self.flat.removed.contains(&id) || self.entity_seen.contains(&id) {
                    continue;
                }
                let mapped = self.mapped_inputs(idx);
                if mapped.is_empty() {
                    continue;
                }
                self.entity_recheck.push(idx);
                waiting.insert(id);
                if mapped
                    .iter()
                    .all(|m| matches!(m.elements, Elements::Known(_)))
                {
                    ready.push((idx, mapped));
                } else if mapped
                    .iter()
                    .all(|m| !matches!(m.elements, Elements::Later))
                {
                    cook.push((idx, mapped));
                }
            }
            if waiting.is_empty() {
                return Ok(());
            }
            if !ready.is_empty() {
                for (idx, mapped) in ready {
                    self.write_each(idx, mapped)?;
                }
                // Lists per element now exist: look at every node again.
                self.entity_scan_from = 0;
                continue;
            }
            // Cook the lists whose cones hold no node still to be mapped.
            let mut needs = Vec::new();
            for (_, mapped) in &cook {
                for m in mapped {
                    if let Elements::Cook(p) = &m.elements {
                        let s = Src::Port(p.clone());
                        if self.cone_free_of(&s, &waiting) && !needs.contains(&s) {
                            needs.push(s);
                        }
                    }
                }
            }
            if needs.is_empty() {
                // What is left waits on scopes not written yet (or on itself).
                return Ok(());
            }
            let answers = self.cook(&needs, waits);
            for s in &needs {
                if let Resolved::Port(p) = self.flat.resolve(s) {
                    let v = answers.get(&p).cloned().unwrap_or_default();
                    if let Value::Error(e) = &v {
                        return Err(LowerError::Wait {
                            what: format!("the list at {p}"),
                            kind: "each",
                            call: p.node.to_string(),
                            source: Box::new((**e).clone()),
                        });
                    }
                    self.cooked_lists.insert(p.clone(), v);
                }
            }
        }
    }

    /// Nodes still waiting to be written once per element (after the plan has run out of
    /// things to write, a plan error).
    pub(crate) fn entities_left(&mut self) -> Result<(), LowerError> {
        for idx in 0..self.flat.nodes.len() {
            let id = self.flat.nodes[idx].id.clone();
            if self.flat.removed.contains(&id) || self.entity_seen.contains(&id) {
                continue;
            }
            if !self.mapped_inputs(idx).is_empty() {
                return Err(LowerError::Scope {
                    kind: "each",
                    call: id.to_string(),
                    message: "the list it is given per element depends on itself".into(),
                });
            }
        }
        Ok(())
    }

    fn spec_of(&self, idx: usize) -> Option<&'r OpSpec> {
        let reg: &'r Registry = self.registry;
        reg.get(&self.flat.nodes[idx].op).map(|o| o.spec())
    }

    /// The inputs of node `idx` that take a list element by element.
    fn mapped_inputs(&mut self, idx: usize) -> Vec<Mapped> {
        let Some(spec) = self.spec_of(idx) else {
            return vec![];
        };
        if !spec.inputs.iter().any(takes_elements) {
            return vec![];
        }
        let node_id = self.flat.nodes[idx].id.clone();
        let consts = self.flat.nodes[idx].consts.clone();
        let mut out = Vec::new();
        for (port, v) in &consts {
            if let (Some(i), Value::List(items)) = (spec.input_index(port), v)
                && takes_elements(&spec.inputs[i])
            {
                out.push(Mapped {
                    port: port.clone(),
                    wire: None,
                    elements: Elements::Known(items.iter().cloned().map(Src::Const).collect()),
                });
            }
        }
        let wires: Vec<usize> = self
            .flat
            .wires_into()
            .get(&node_id)
            .cloned()
            .unwrap_or_default();
        for w in wires {
            let (src, to) = self.flat.wires[w].clone();
            let Some(i) = spec.input_index(&to.port) else {
                continue;
            };
            if !takes_elements(&spec.inputs[i]) {
                continue;
            }
            let elements = match self.flat.resolve(&src) {
                Resolved::Const(Value::List(items)) => {
                    // The plan decides on this constant (its length): an edit of it replans.
                    self.flat.read_by_plan(&src);
                    Elements::Known(items.iter().cloned().map(Src::Const).collect())
                }
                Resolved::Port(p) => match self.entity_elements.get(&p) {
                    Some(e) => Elements::Known(e.clone()),
                    None => match self.cooked_lists.get(&p) {
                        Some(Value::List(items)) => {
                            Elements::Known(items.iter().cloned().map(Src::Const).collect())
                        }
                        Some(_) => continue,
                        None if self.is_list_port(&p) => Elements::Cook(p),
                        None => continue,
                    },
                },
                Resolved::Pending(_) => Elements::Later,
                _ => continue,
            };
            out.push(Mapped {
                port: to.port.clone(),
                wire: Some(w),
                elements,
            });
        }
        out
    }

    /// Whether `p` is an output the plan knows gives a list: declared a list by its op, or a
    /// `const` node whose value is one.
    fn is_list_port(&self, p: &PortRef) -> bool {
        let Some(n) = self.flat.node(&p.node) else {
            return false;
        };
        if n.op == "const" {
            return n.params.get("value").is_some_and(|v| v.as_list().is_some());
        }
        self.registry.get(&n.op).is_some_and(|o| {
            let s = o.spec();
            s.output_index(&p.port)
                .is_some_and(|i| s.outputs[i].ty.is_list())
        })
    }

    /// Whether the cone of `src` is written and holds none of `waiting`.
    fn cone_free_of(&self, src: &Src, waiting: &HashSet<NodeId>) -> bool {
        let into = self.flat.wires_into();
        if self.flat.cone_ready(src, &|_| false).is_err() {
            return false;
        }
        let mut seen: HashSet<NodeId> = HashSet::new();
        let mut stack = Vec::new();
        if let Resolved::Port(p) = self.flat.resolve(src) {
            stack.push(p.node);
        }
        while let Some(id) = stack.pop() {
            if waiting.contains(&id) {
                return false;
            }
            if !seen.insert(id.clone()) {
                continue;
            }
            for &w in into.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
                if let Resolved::Port(p) = self.flat.resolve(&self.flat.wires[w].0) {
                    stack.push(p.node);
                }
            }
        }
        true
    }

    /// Write node `idx` once per element of its mapped inputs.
    fn write_each(&mut self, idx: usize, mapped: Vec<Mapped>) -> Result<(), LowerError> {
        let node = self.flat.nodes[idx].clone();
        let id = node.id.to_string();
        let lists: Vec<(String, Vec<Src>)> = mapped
            .iter()
            .map(|m| match &m.elements {
                Elements::Known(e) => (m.port.clone(), e.clone()),
                _ => (m.port.clone(), vec![]),
            })
            .collect();
        let n = shared_length(&id, &lists, self.limits.max_copies)?;
        let mapped_wires: HashSet<usize> = mapped.iter().filter_map(|m| m.wire).collect();
        let other_wires: Vec<(Src, String)> = self
            .flat
            .wires_into()
            .get(&node.id)
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .filter(|w| !mapped_wires.contains(w))
            .map(|&w| {
                (
                    self.flat.wires[w].0.clone(),
                    self.flat.wires[w].1.port.clone(),
                )
            })
            .collect();
        self.flat.removed.insert(node.id.clone());
        self.entity_seen.insert(node.id.clone());
        for i in 0..n {
            let cid = entity_id(&id, i);
            let mut copy = Node {
                id: NodeId::from(cid.as_str()),
                op: node.op.clone(),
                params: node.params.clone(),
                consts: node.consts.clone(),
            };
            for (port, _) in &lists {
                copy.consts.remove(port);
            }
            self.entity_seen.insert(copy.id.clone());
            self.emit(copy)?;
            for (port, e) in &lists {
                self.flat
                    .wire(e[i].clone(), PortRef::new(cid.as_str(), port.as_str()));
            }
            for (src, port) in &other_wires {
                self.flat
                    .wire(src.clone(), PortRef::new(cid.as_str(), port.as_str()));
            }
        }
        let outputs: Vec<String> = self
            .spec_of(idx)
            .map(|s| s.outputs.iter().map(|o| o.name.to_string()).collect())
            .unwrap_or_default();
        for o in outputs {
            let parts: Vec<Src> = (0..n)
                .map(|i| Src::Port(PortRef::new(entity_id(&id, i), &o)))
                .collect();
            let root = self.gather(&id, &o, parts.clone())?;
            // Readers resolve the output to the gather's root: a reader taking elements finds
            // the copies' outputs there.
            if let Src::Port(r) = &root {
                self.entity_elements.insert(r.clone(), parts);
            }
            self.flat.alias(PortRef::new(id.as_str(), o.as_str()), root);
        }
        self.report.scopes.push(ScopeReport::new(&id, "each", n));
        Ok(())
    }

    /// Write call `cid` of `asset` once per element when one of its single inputs of a type
    /// that is not a list is given a list: copy `cid[i]` is given element `i` of each such
    /// input and the rest of `binds` as they are; each output of the call is the list of its
    /// copies' outputs. A list the plan knows (a constant, the copies of a node written per
    /// element, a list cooked before) is written out now; one an op declares it makes, or a
    /// `const` node holds, is cooked first (the call waits). Whether the call is taken care
    /// of.
    pub(crate) fn map_call(
        &mut self,
        cid: &str,
        asset: &'d kiln_doc::document::Asset,
        binds: &HashMap<String, Src>,
        depth: usize,
    ) -> Result<bool, LowerError> {
        let mut lists: Vec<(String, Vec<Src>)> = Vec::new();
        let mut later: Vec<String> = Vec::new();
        for (port, src) in binds {
            let Some(decl) = asset.interface.input(port) else {
                continue;
            };
            if decl.collective || decl.ty.accepts(kiln_core::value::ValueType::List) {
                continue;
            }
            let elements = match self.flat.resolve(src) {
                Resolved::Const(Value::List(items)) => {
                    // The plan decides on this constant (its length): an edit of it replans.
                    self.flat.read_by_plan(src);
                    items.iter().cloned().map(Src::Const).collect()
                }
                Resolved::Port(p) => match self.entity_elements.get(&p) {
                    Some(e) => e.clone(),
                    None => match self.cooked_lists.get(&p) {
                        Some(Value::List(items)) => items.iter().cloned().map(Src::Const).collect(),
                        Some(_) => continue,
                        None if self.is_list_port(&p) => {
                            later.push(port.clone());
                            continue;
                        }
                        None => continue,
                    },
                },
                _ => continue,
            };
            lists.push((port.clone(), elements));
        }
        if !later.is_empty() {
            // A list a node computes: cooked first, then the call is written per element.
            later.sort();
            self.pending.push(super::waits::Pending::Each {
                cid: cid.to_string(),
                asset,
                binds: binds.clone(),
                ports: later,
                depth,
            });
            return Ok(true);
        }
        if lists.is_empty() {
            return Ok(false);
        }
        lists.sort_by(|a, b| a.0.cmp(&b.0));
        let n = shared_length(cid, &lists, self.limits.max_copies)?;
        for i in (0..n).rev() {
            let mut b = binds.clone();
            for (port, e) in &lists {
                b.insert(port.clone(), e[i].clone());
            }
            self.stack.push(super::expand::Frame {
                doc: &asset.doc,
                prefix: entity_id(cid, i),
                binds: Some(b),
                asset: Some(asset),
                depth,
            });
        }
        for o in &asset.interface.outputs {
            let parts: Vec<Src> = (0..n)
                .map(|i| Src::Port(PortRef::new(entity_id(cid, i), &o.name)))
                .collect();
            let root = self.gather(cid, &o.name, parts.clone())?;
            if let Src::Port(r) = &root {
                self.entity_elements.insert(r.clone(), parts);
            }
            self.flat.alias(PortRef::new(cid, o.name.as_str()), root);
        }
        self.alias_default_output(cid, asset);
        self.report.scopes.push(ScopeReport::new(cid, "each", n));
        Ok(true)
    }

    /// Queue the wires into every collective input of the nodes emitted so far (see the
    /// module docs for the order).
    fn queue_collective(&mut self) -> Result<(), LowerError> {
        let into = self.flat.wires_into();
        let mut work: Vec<(NodeId, String, Vec<usize>)> = Vec::new();
        // Each node is looked at once (it is then queued, or taken out): from where the last
        // look stopped.
        let from = self.queue_scan_from;
        self.queue_scan_from = self.flat.nodes.len();
        self.flat
            .walk(self.flat.nodes.len() - from.min(self.flat.nodes.len()));
        for idx in from..self.flat.nodes.len() {
            let id = self.flat.nodes[idx].id.clone();
            if self.flat.removed.contains(&id) || self.queued.contains(&id) {
                continue;
            }
            self.queued.insert(id.clone());
            let Some(spec) = self.spec_of(idx) else {
                continue;
            };
            for input in spec.inputs.iter().filter(|i| i.collective) {
                let ws: Vec<usize> = into
                    .get(&id)
                    .map(Vec::as_slice)
                    .unwrap_or(&[])
                    .iter()
                    .copied()
                    .filter(|&w| self.flat.wires[w].1.port == *input.name)
                    .collect();
                let direct = match ws.as_slice() {
                    [] => true,
                    [w] => match self.flat.resolve(&self.flat.wires[*w].0) {
                        Resolved::Const(v) => v.as_list().is_some(),
                        Resolved::Port(p) => self.is_list_port(&p),
                        _ => false,
                    },
                    _ => false,
                };
                if !direct {
                    work.push((id.clone(), input.name.to_string(), ws));
                }
            }
        }
        let rewired = !work.is_empty();
        for (id, port, mut ws) in work {
            ws.sort_by_key(|&w| queue_key(&self.flat.wires[w].0));
            let srcs: Vec<Src> = ws.iter().map(|&w| self.flat.wires[w].0.clone()).collect();
            let root = self.queue_tree(&format!("{id}/{port}"), srcs)?;
            // The wires into the input now go into the queue; the input reads the queue.
            for &w in &ws {
                self.flat.wires[w].1 = PortRef::new("", "");
            }
            self.flat
                .wire(root, PortRef::new(id.clone(), port.as_str()));
        }
        if rewired {
            self.flat.retain_wires(|(_, to)| !to.node.is_empty());
        }
        Ok(())
    }

    /// The wires into port `port` of call `n` in frame `f`, queued when the called graph
    /// declares that input collective; several wires into a single input are a plan error.
    pub(crate) fn queue_call_port(
        &mut self,
        f: &super::expand::Frame<'d>,
        n: &Node,
        port: &str,
        mut srcs: Vec<Src>,
    ) -> Result<Src, LowerError> {
        let cid = super::expand::join(&f.prefix, &n.id);
        let collective = f
            .doc
            .calls
            .get(&n.id)
            .and_then(|c| c.asset.interface.input(port))
            .is_some_and(|d| d.collective);
        if !collective {
            return Err(LowerError::Scope {
                kind: "call",
                call: cid,
                message: format!(
                    "its input `{port}` is given {} wires, but only a collective input takes                      more than one (declare the graph input with \"collective\": true)",
                    srcs.len()
                ),
            });
        }
        srcs.sort_by_key(queue_key);
        self.queue_tree(&format!("{cid}/{port}"), srcs)
    }

    /// Queue `srcs` through a tree of `scope.queue` nodes under `at`; returns the root.
    fn queue_tree(&mut self, at: &str, srcs: Vec<Src>) -> Result<Src, LowerError> {
        let mut level = 0;
        let mut cur = srcs;
        loop {
            let mut next = Vec::with_capacity(cur.len().div_ceil(GATHER_WIDTH).max(1));
            let chunks: Vec<&[Src]> = if cur.is_empty() {
                vec![&[]]
            } else {
                cur.chunks(GATHER_WIDTH).collect()
            };
            for (j, chunk) in chunks.into_iter().enumerate() {
                let qid = format!("{at}~queue{level}-{j}");
                let mut node = Node {
                    id: NodeId::from(qid.as_str()),
                    op: QUEUE_OP.to_string(),
                    params: Default::default(),
                    consts: Default::default(),
                };
                node.params
                    .insert("n".into(), Value::Int(chunk.len() as i64));
                self.queued.insert(node.id.clone());
                self.emit(node)?;
                for (k, s) in chunk.iter().enumerate() {
                    self.flat
                        .wire(s.clone(), PortRef::new(qid.as_str(), GATHER_PORTS[k]));
                }
                next.push(Src::Port(PortRef::new(qid.as_str(), "out")));
            }
            if next.len() == 1 {
                return Ok(next.remove(0));
            }
            cur = next;
            level += 1;
        }
    }
}

/// The length every list taken element by element shares (0 for none), checked against the
/// copy cap; lists of different lengths are refused, naming the first two ports.
fn shared_length(call: &str, lists: &[(String, Vec<Src>)], cap: u64) -> Result<usize, LowerError> {
    let Some((first, elements)) = lists.first() else {
        return Ok(0);
    };
    let n = elements.len();
    if let Some((port, e)) = lists.iter().find(|(_, e)| e.len() != n) {
        return Err(LowerError::Scope {
            kind: "each",
            call: call.to_string(),
            message: format!(
                "its inputs `{first}` and `{port}` are given lists of {n} and {} elements; lists \
                 taken element by element must have the same length",
                e.len()
            ),
        });
    }
    if n as u64 > cap {
        return Err(LowerError::TooLarge {
            what: "each",
            call: call.to_string(),
            size: n as u64,
            unit: "copies",
            limit: cap,
        });
    }
    Ok(n)
}
