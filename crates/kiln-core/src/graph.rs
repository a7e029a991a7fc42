//! Graphs as plain data: nodes (id, op id, params, inline constant inputs) and wires from an
//! output port to an input port, with an editing API. No evaluation logic lives here.

pub use crate::fields::Fields;
pub use crate::id::NodeId;
use crate::value::Value;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// A port of a node: `node.port`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PortRef {
    /// Node id.
    pub node: NodeId,
    /// Port name.
    pub port: String,
}

/// The port a reference without one names: the default output of a node.
pub const DEFAULT_PORT: &str = "out";

impl PortRef {
    /// `node.port`.
    pub fn new(node: impl Into<NodeId>, port: &str) -> Self {
        PortRef {
            node: node.into(),
            port: port.to_string(),
        }
    }
    /// Parse `"node.port"` (the last dot splits); a bare `"node"` means port `out`, the
    /// node's default output (see [`crate::op::OpSpec::output_index`]).
    pub fn parse(s: &str) -> PortRef {
        match s.rsplit_once('.') {
            Some((n, p)) if !n.is_empty() && !p.is_empty() => PortRef::new(n, p),
            _ => PortRef::new(s, DEFAULT_PORT),
        }
    }
}

impl fmt::Display for PortRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.node, self.port)
    }
}

/// A wire from an output port to an input port.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Wire {
    /// Source (an output port).
    pub from: PortRef,
    /// Destination (an input port).
    pub to: PortRef,
}

/// A node.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Id.
    pub id: NodeId,
    /// Op id in the registry.
    pub op: String,
    /// Params set on this node (unset params take the op's defaults).
    pub params: Fields,
    /// Inline constant values for input ports.
    pub consts: Fields,
}

/// An editing error.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GraphError {
    /// The id is taken.
    #[error("a node named `{0}` already exists")]
    DuplicateNode(String),
    /// No such node.
    #[error("no node named `{0}`")]
    NoSuchNode(String),
    /// No such wire.
    #[error("no wire into `{0}`")]
    NoSuchWire(String),
}

static NEXT_GRAPH_UID: AtomicU64 = AtomicU64::new(1);

/// A graph: nodes and wires. Plain data; evaluators read it.
#[derive(Debug)]
pub struct Graph {
    nodes: Vec<Node>,
    index: HashMap<NodeId, usize>,
    wires: Vec<Wire>,
    uid: u64,
    structure_rev: u64,
    data_rev: u64,
    /// `(data revision after the edit, node index)` of recent value edits, oldest first.
    journal: std::collections::VecDeque<(u64, u32)>,
    /// Data revisions at or below this are no longer in the journal.
    journal_floor: u64,
}

/// How many value edits the journal remembers; older ones make evaluators rescan.
const JOURNAL_LEN: usize = 1 << 16;

impl Clone for Graph {
    fn clone(&self) -> Self {
        Graph {
            nodes: self.nodes.clone(),
            index: self.index.clone(),
            wires: self.wires.clone(),
            uid: NEXT_GRAPH_UID.fetch_add(1, Ordering::Relaxed),
            structure_rev: 0,
            data_rev: 0,
            journal: Default::default(),
            journal_floor: 0,
        }
    }
}

impl Default for Graph {
    fn default() -> Self {
        Graph {
            nodes: vec![],
            index: HashMap::new(),
            wires: vec![],
            uid: NEXT_GRAPH_UID.fetch_add(1, Ordering::Relaxed),
            structure_rev: 0,
            data_rev: 0,
            journal: Default::default(),
            journal_floor: 0,
        }
    }
}

impl PartialEq for Graph {
    fn eq(&self, o: &Self) -> bool {
        self.nodes == o.nodes && self.wires == o.wires
    }
}

/// Identifies a graph and its revision: evaluators keep derived data (plans) while it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Revision {
    /// Unique per graph object in this process.
    pub uid: u64,
    /// Bumped by structural edits (nodes, ops, wires).
    pub structure: u64,
    /// Bumped by value edits (params, constants).
    pub data: u64,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }
    /// Current revision.
    pub fn revision(&self) -> Revision {
        Revision {
            uid: self.uid,
            structure: self.structure_rev,
            data: self.data_rev,
        }
    }
    fn record_data_edit(&mut self, node: usize) {
        self.data_rev += 1;
        if self.journal.len() == JOURNAL_LEN
            && let Some((rev, _)) = self.journal.pop_front()
        {
            self.journal_floor = rev;
        }
        self.journal.push_back((self.data_rev, node as u32));
    }

    /// The nodes whose params or constants were edited since data revision `data_rev` (see
    /// [`Revision::data`]), each once, in index order. `None` when the journal no longer
    /// reaches that far back, in which case a caller must treat every node as edited.
    /// Structural edits are not listed: they change [`Revision::structure`].
    pub fn data_edits_since(&self, data_rev: u64) -> Option<Vec<usize>> {
        if data_rev < self.journal_floor || data_rev > self.data_rev {
            return None;
        }
        let start = self.journal.partition_point(|&(r, _)| r <= data_rev);
        let mut v: Vec<usize> = self
            .journal
            .range(start..)
            .map(|&(_, n)| n as usize)
            .collect();
        v.sort_unstable();
        v.dedup();
        Some(v)
    }

    /// Read an output reference the one way Kiln reads them: a node's whole id (a node id may
    /// contain dots) means its default port, else `node.port` splits at the last dot (see
    /// [`PortRef::parse`]). Returns the node's index and the port name; the op resolves the
    /// name ([`crate::op::OpSpec::output_index`]).
    pub fn output_ref<'a>(&self, name: &'a str) -> Option<(usize, &'a str)> {
        if let Some(i) = self.index_of(name) {
            return Some((i, DEFAULT_PORT));
        }
        match name.rsplit_once('.') {
            Some((n, p)) if !n.is_empty() && !p.is_empty() => Some((self.index_of(n)?, p)),
            _ => None,
        }
    }

    /// Nodes in insertion order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
    /// Wires in insertion order.
    pub fn wires(&self) -> &[Wire] {
        &self.wires
    }
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    /// Whether the graph has no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
    /// A node by id.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.index.get(id).map(|&i| &self.nodes[i])
    }
    /// The dense index of a node (its position in [`Graph::nodes`]).
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.index.get(id).copied()
    }
    /// Make room for `nodes` more nodes and `wires` more wires (a loader that knows its
    /// sizes takes no more memory than they need).
    pub fn reserve(&mut self, nodes: usize, wires: usize) {
        self.nodes.reserve_exact(nodes);
        self.index.reserve(nodes);
        self.wires.reserve_exact(wires);
    }
    /// Add a node with no params.
    pub fn add_node(&mut self, id: impl Into<NodeId>, op: &str) -> Result<&mut Node, GraphError> {
        let id = id.into();
        if self.index.contains_key(&id) {
            return Err(GraphError::DuplicateNode(id.to_string()));
        }
        self.index.insert(id.clone(), self.nodes.len());
        self.nodes.push(Node {
            id,
            op: op.to_string(),
            params: Fields::new(),
            consts: Fields::new(),
        });
        self.structure_rev += 1;
        let n = self.nodes.len() - 1;
        Ok(&mut self.nodes[n])
    }
    /// Remove a node and every wire touching it.
    pub fn remove_node(&mut self, id: &str) -> Result<Node, GraphError> {
        let i = self
            .index
            .remove(id)
            .ok_or_else(|| GraphError::NoSuchNode(id.into()))?;
        let node = self.nodes.remove(i);
        for (j, n) in self.nodes.iter().enumerate().skip(i) {
            self.index.insert(n.id.clone(), j);
        }
        self.wires
            .retain(|w| w.from.node.as_str() != id && w.to.node.as_str() != id);
        self.structure_rev += 1;
        Ok(node)
    }
    /// Set a param.
    pub fn set_param(
        &mut self,
        id: &str,
        name: &str,
        v: impl Into<Value>,
    ) -> Result<(), GraphError> {
        let i = *self
            .index
            .get(id)
            .ok_or_else(|| GraphError::NoSuchNode(id.into()))?;
        self.nodes[i].params.insert(name.to_string(), v.into());
        self.record_data_edit(i);
        Ok(())
    }
    /// Set an inline constant for an input port.
    pub fn set_const(
        &mut self,
        id: &str,
        port: &str,
        v: impl Into<Value>,
    ) -> Result<(), GraphError> {
        let i = *self
            .index
            .get(id)
            .ok_or_else(|| GraphError::NoSuchNode(id.into()))?;
        self.nodes[i].consts.insert(port.to_string(), v.into());
        self.record_data_edit(i);
        Ok(())
    }
    /// Take away the inline constant of an input port, answering it (`None` if it had none).
    pub fn clear_const(&mut self, id: &str, port: &str) -> Result<Option<Value>, GraphError> {
        let i = *self
            .index
            .get(id)
            .ok_or_else(|| GraphError::NoSuchNode(id.into()))?;
        let old = self.nodes[i].consts.remove(port);
        if old.is_some() {
            self.record_data_edit(i);
        }
        Ok(old)
    }
    /// Add a wire `from` → `to`. Nothing is checked here; [`crate::validate`] reports problems
    /// (unknown ports, type mismatches, two wires into one input).
    pub fn connect(&mut self, from: PortRef, to: PortRef) {
        self.wires.push(Wire { from, to });
        self.structure_rev += 1;
    }
    /// Shorthand: `connect(PortRef::parse(from), PortRef::parse(to))`.
    pub fn wire(&mut self, from: &str, to: &str) {
        self.connect(PortRef::parse(from), PortRef::parse(to));
    }
    /// Remove every wire into `to`.
    pub fn disconnect(&mut self, to: &PortRef) -> Result<(), GraphError> {
        let before = self.wires.len();
        self.wires.retain(|w| &w.to != to);
        if self.wires.len() == before {
            return Err(GraphError::NoSuchWire(to.to_string()));
        }
        self.structure_rev += 1;
        Ok(())
    }
}
