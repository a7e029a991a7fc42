//! The flat graph being written: emitted nodes, wires between flat ports, and aliases (a port
//! of a call, or an interface node of a body, standing for the port or constant it was bound
//! to). Wires are resolved through the aliases only when the graph is finished, so a node may
//! be written before the call it reads is written out.

use super::LowerError;
use kiln_core::graph::{Graph, Node, NodeId, PortRef};
use kiln_core::value::{Value, ValueType};
use std::cell::Cell;
use std::collections::{HashMap, HashSet};

/// What a flat port stands for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Src {
    /// A port (an emitted node's output, or another alias).
    Port(PortRef),
    /// A constant.
    Const(Value),
    /// Nothing: an optional input left unbound.
    Empty,
}

/// A source resolved through the aliases.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Resolved {
    /// An output port of an emitted node.
    Port(PortRef),
    /// A constant.
    Const(Value),
    /// Nothing.
    Empty,
    /// A port no alias or node defines yet (a scope not yet written out).
    Pending(PortRef),
    /// A port that stands for itself through aliases (a call reading its own output).
    Loop(PortRef),
}

/// Where the constants a call was given landed in the flat graph: for each site (the alias
/// port of a body input bound to a constant), the flat inputs that hold its value, and the
/// sites whose value the plan itself read. An edit of a site the plan did not read is a value
/// edit of those inputs (see [`super::Live`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Sites {
    pub consumers: HashMap<PortRef, Vec<PortRef>>,
    pub plan_read: HashSet<PortRef>,
}

/// How the flat graph's writer treats wires into params (see
/// [`kiln_core::op::param_ports`]): which ports of a node are params, and the values the plan
/// knows for a port (a graph input's), which it writes into the param as a constant.
pub(crate) trait ParamFold {
    /// The type of param `port` of `node`'s op, when `port` names a param and no input.
    fn param_type(&self, node: &Node, port: &str) -> Option<ValueType>;
    /// The value the plan knows `port` to have, if it is a graph input's.
    fn known(&self, port: &PortRef) -> Option<Value>;
    /// Record that the value of `port` (a graph input) was written into a param: the plan
    /// stands on that input.
    fn read_into_param(&self, port: &PortRef);
}

/// Write the value `v` reaching port `to` into `g`: into its node's params when `ty` (the
/// port is a param of that type; an int for a float param is that float), else as the
/// input's constant.
fn write_value(g: &mut Graph, to: &PortRef, ty: Option<ValueType>, v: Value) {
    match ty {
        Some(ty) => {
            let _ = g.set_param(&to.node, &to.port, ty.conform(v));
        }
        None => {
            let _ = g.set_const(&to.node, &to.port, v);
        }
    }
}

/// The flat graph under construction.
#[derive(Default)]
pub(crate) struct Flat {
    pub nodes: Vec<Node>,
    index: HashMap<NodeId, usize>,
    pub wires: Vec<(Src, PortRef)>,
    alias: HashMap<PortRef, Src>,
    /// Emitted nodes later taken out (the untaken side of a choice).
    pub removed: HashSet<NodeId>,
    /// Constant sites whose value the plan itself read (a list, a count, a condition).
    pub plan_read: HashSet<PortRef>,
    /// For each node, the indices of the wires into it, kept as wires are added (so no
    /// step of the plan rebuilds it from every wire).
    into: HashMap<NodeId, Vec<usize>>,
    /// Nodes and wires visited by walks over the graph being written: the plan's own work,
    /// counted so a test can tell that it grows with what is written, no faster.
    pub walked: Cell<u64>,
}

impl Flat {
    /// Emit a node; ids are unique by construction (namespaced), a clash is a plan error.
    pub fn emit(&mut self, node: Node) -> Result<(), LowerError> {
        if self.index.contains_key(&node.id) {
            return Err(LowerError::IdClash(node.id.to_string()));
        }
        self.index.insert(node.id.clone(), self.nodes.len());
        self.nodes.push(node);
        Ok(())
    }
    /// The emitted node of this id.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.index.get(id).map(|&i| &self.nodes[i])
    }
    /// Make `port` stand for `src`.
    pub fn alias(&mut self, port: PortRef, src: Src) {
        self.alias.insert(port, src);
    }
    /// A wire from `src` into `to`.
    pub fn wire(&mut self, src: Src, to: PortRef) {
        self.into
            .entry(to.node.clone())
            .or_default()
            .push(self.wires.len());
        self.wires.push((src, to));
    }
    /// Keep only the wires `keep` holds (the index of wires into nodes is made again).
    pub fn retain_wires(&mut self, keep: impl FnMut(&(Src, PortRef)) -> bool) {
        self.wires.retain(keep);
        self.into.clear();
        for (i, (_, to)) in self.wires.iter().enumerate() {
            self.into.entry(to.node.clone()).or_default().push(i);
        }
    }
    /// Count `n` more nodes or wires visited (see [`Flat::walked`]).
    pub fn walk(&self, n: usize) {
        self.walked.set(self.walked.get() + n as u64);
    }
    /// Follow aliases from `src`.
    pub fn resolve(&self, src: &Src) -> Resolved {
        self.resolve_site(src).0
    }

    /// Follow aliases from `src`; a constant comes with its site, the alias port that was
    /// bound to it (`None` for a constant written where it is used).
    pub fn resolve_site(&self, src: &Src) -> (Resolved, Option<PortRef>) {
        let mut cur = src.clone();
        let mut last: Option<PortRef> = None;
        // Every alias is followed at most once; more means the aliases loop.
        for _ in 0..=self.alias.len() {
            match cur {
                Src::Const(v) => return (Resolved::Const(v), last),
                Src::Empty => return (Resolved::Empty, None),
                Src::Port(p) => {
                    if let Some(next) = self.alias.get(&p) {
                        cur = next.clone();
                        last = Some(p);
                        continue;
                    }
                    if self.index.contains_key(&p.node) {
                        return (Resolved::Port(p), None);
                    }
                    return (Resolved::Pending(p), None);
                }
            }
        }
        (
            Resolved::Loop(last.unwrap_or_else(|| PortRef::new("", ""))),
            None,
        )
    }

    /// [`Flat::resolve`] for a value the plan itself decides on: a constant's site is marked
    /// as read by the plan, so an edit of it makes a new plan.
    pub fn read_by_plan(&mut self, src: &Src) -> Resolved {
        let (r, site) = self.resolve_site(src);
        if let (Resolved::Const(_), Some(site)) = (&r, site) {
            self.plan_read.insert(site);
        }
        r
    }

    /// The graph of every emitted node, with every wire resolved; `Err` names the first wire
    /// whose source is undefined.
    pub fn finish(&self, fold: &dyn ParamFold) -> Result<(Graph, Sites), LowerError> {
        for (src, to) in &self.wires {
            if self.removed.contains(&to.node) {
                continue;
            }
            match self.resolve(src) {
                Resolved::Pending(p) => {
                    return Err(LowerError::Unbound {
                        port: to.to_string(),
                        read: p.to_string(),
                    });
                }
                Resolved::Loop(p) => return Err(LowerError::AliasLoop(p.to_string())),
                _ => {}
            }
        }
        let mut sites = Sites {
            plan_read: self.plan_read.clone(),
            ..Sites::default()
        };
        let g = self.write(|id| !self.removed.contains(id), Some(&mut sites), fold);
        Ok((g, sites))
    }

    fn write(
        &self,
        keep: impl Fn(&NodeId) -> bool,
        mut sites: Option<&mut Sites>,
        fold: &dyn ParamFold,
    ) -> Graph {
        let mut g = Graph::new();
        for n in self.nodes.iter().filter(|n| keep(&n.id)) {
            if let Ok(node) = g.add_node(n.id.clone(), &n.op) {
                node.params = n.params.clone();
                node.consts = n.consts.clone();
            }
        }
        for (src, to) in self.wires.iter().filter(|(_, to)| keep(&to.node)) {
            match self.resolve_site(src) {
                // A graph input's value into a param: the param's constant.
                (Resolved::Port(p), _)
                    if let Some(v) = fold.known(&p)
                        && let Some(ty) = self
                            .node(&to.node)
                            .and_then(|n| fold.param_type(n, &to.port)) =>
                {
                    fold.read_into_param(&p);
                    write_value(&mut g, to, Some(ty), v);
                }
                (Resolved::Port(p), _) if keep(&p.node) => g.connect(p, to.clone()),
                // A constant at a param's port is the param's value (validation reads it so,
                // keyed as if written under `params`).
                (Resolved::Const(v), site) => {
                    let _ = g.set_const(&to.node, &to.port, v);
                    if let (Some(sites), Some(site)) = (sites.as_deref_mut(), site) {
                        sites.consumers.entry(site).or_default().push(to.clone());
                    }
                }
                _ => {}
            }
        }
        g
    }

    /// Whether the emitted nodes feeding `src` (itself included) are all written: `Err` names
    /// the first pending port on the way. The walk stops at ports `known` holds (values
    /// already cooked, whose cones were written).
    pub fn cone_ready(&self, src: &Src, known: &dyn Fn(&PortRef) -> bool) -> Result<(), PortRef> {
        let mut seen: HashSet<NodeId> = HashSet::new();
        let mut stack = Vec::new();
        match self.resolve(src) {
            Resolved::Port(p) if known(&p) => return Ok(()),
            Resolved::Port(p) => stack.push(p.node),
            Resolved::Pending(p) | Resolved::Loop(p) => return Err(p),
            _ => return Ok(()),
        }
        while let Some(id) = stack.pop() {
            if !seen.insert(id.clone()) {
                continue;
            }
            self.walk(1);
            for &w in self.into.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
                self.walk(1);
                match self.resolve(&self.wires[w].0) {
                    Resolved::Port(p) if known(&p) => {}
                    Resolved::Port(p) => stack.push(p.node),
                    Resolved::Pending(p) | Resolved::Loop(p) => return Err(p),
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// The graph of the cones of `ports`: the emitted nodes feeding them, with the wires into
    /// them resolved, except that a port `known` has a value for is not walked past: its
    /// value is written as a constant where it is read (not into the nodes `wired` names,
    /// whose inputs must stay wires: a latch's). Visits only the cone.
    pub fn cone_graph(
        &self,
        ports: &[PortRef],
        known: &HashMap<PortRef, Value>,
        wired: &dyn Fn(&Node) -> bool,
        fold: &dyn ParamFold,
    ) -> Graph {
        let keeps_wires = |id: &NodeId| self.node(id).is_some_and(wired);
        let mut keep: HashSet<NodeId> = HashSet::new();
        let mut stack: Vec<NodeId> = ports.iter().map(|p| p.node.clone()).collect();
        while let Some(id) = stack.pop() {
            if !keep.insert(id.clone()) {
                continue;
            }
            self.walk(1);
            let wires_stay = keeps_wires(&id);
            for &w in self.into.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
                self.walk(1);
                if let Resolved::Port(p) = self.resolve(&self.wires[w].0)
                    && (wires_stay || !known.contains_key(&p))
                {
                    stack.push(p.node);
                }
            }
        }
        // In the order they were emitted, as the whole graph has them.
        let mut order: Vec<usize> = keep
            .iter()
            .filter_map(|id| self.index.get(id).copied())
            .collect();
        order.sort_unstable();
        let mut g = Graph::new();
        for &i in &order {
            let n = &self.nodes[i];
            if let Ok(node) = g.add_node(n.id.clone(), &n.op) {
                node.params = n.params.clone();
                node.consts = n.consts.clone();
            }
        }
        for &i in &order {
            let id = &self.nodes[i].id;
            let wires_stay = keeps_wires(id);
            for &w in self.into.get(id).map(Vec::as_slice).unwrap_or(&[]) {
                let (src, to) = &self.wires[w];
                let param = || fold.param_type(&self.nodes[i], &to.port);
                match self.resolve(src) {
                    Resolved::Port(p) => match known.get(&p).filter(|_| !wires_stay) {
                        // A value the plan cooked: a param's constant where it goes to one.
                        Some(v) => {
                            write_value(&mut g, to, param(), v.clone());
                        }
                        None => match fold.known(&p).zip(param()) {
                            Some((v, ty)) => {
                                fold.read_into_param(&p);
                                write_value(&mut g, to, Some(ty), v);
                            }
                            None if keep.contains(&p.node) => g.connect(p, to.clone()),
                            None => {}
                        },
                    },
                    Resolved::Const(v) => {
                        let _ = g.set_const(&to.node, &to.port, v);
                    }
                    _ => {}
                }
            }
        }
        g
    }

    /// For each emitted node, the indices of the wires into it.
    pub fn wires_into(&self) -> &HashMap<NodeId, Vec<usize>> {
        &self.into
    }
}
