//! What [`bake`](super::bake()) did: the folded cones, frozen inputs and node counts
//! ([`BakeReport`]), and the baked graph with it ([`Baked`]).

use super::storage::Storage;
use crate::graph_file::GraphFile;
use kiln_core::value::Value;
use kiln_io::convert;
use std::fmt;

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

/// What [`bake`](super::bake()) did.
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
    kiln_io::json::compact(&convert::display(v), &mut s);
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
