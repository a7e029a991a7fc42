//! Graph files: a versioned JSON format for [`Graph`]s, pleasant to write and diff by hand.
//!
//! ```json
//! {
//!   "kiln": 1,
//!   "description": "optional free text",
//!   "inputs": {
//!     "scale": { "type": "float", "default": 4.0, "doc": "optional" }
//!   },
//!   "nodes": {
//!     "twice": { "op": "math.mul", "inputs": { "a": "scale", "b": 2.0 } }
//!   },
//!   "outputs": { "result": "twice.out" }
//! }
//! ```
//!
//! * Every entry of `inputs`, `nodes` and `outputs` becomes one node whose id is its name.
//!   Graph inputs become `input.<type>` nodes with params `name` (= the id) and `default`;
//!   graph outputs become `output` nodes wired from the referenced port into their `value`.
//! * In a node's `inputs`, a string is a reference to an output port (`"node.port"`, or
//!   `"node"` for its port `out`), except that a string starting with `#` is a colour
//!   constant. Anything else is an inline constant; `{"const": x}` writes any constant
//!   (strings included), `{"type": "vec3", "value": [..]}` one of an explicit type.
//! * A param or input constant may be a blob reference, `{"type": "image", "blob":
//!   "baked.blobs/<hex>.kv"}`: a value stored beside a baked graph (see
//!   [blobs](mod@crate::blob)), resolved by [`read_graph`] and [`load_graph_in`], checked,
//!   and a [`LoadError::Blob`] when missing or damaged.
//! * Values are read according to the declared type of the param or port in the registry
//!   (an int literal for a float param is a float, `[1, 2, 3]` for a vec3 port is a vec3, ...).
//!   A value that does not fit its declared type is still loaded (by inference) and reported
//!   by [`kiln_core::validate::validate`], together with unknown ops, ports and the rest.
//!
//! Loading fails ([`LoadError`]) only for what a [`Graph`] cannot hold: text that is not
//! JSON, a missing or unsupported version, a section of the wrong shape, a bad or duplicate
//! name, a node without `op`, an unknown key.
//!
//! The graph's description and the docs of its inputs are not part of [`Graph`]; they are
//! returned alongside it in [`GraphMeta`] (see [`GraphFile`]), and written back by
//! [`save_graph_with_meta`].
//!
//! [`save_graph`] writes the canonical form: keys in a fixed order, params and inputs sorted,
//! two-space indentation, short values on one line. Loading a canonical file and saving it
//! gives the same bytes; saving is a fixed point after one load.
//!
//! The module is cut by concept: [`LoadError`] and its message parts (`error`), loading
//! (`load`, over the shape checks of `shape` and the name rules of `names`) and saving
//! (`save`).

mod editor;
mod load;
mod names;
mod save;
mod section;
mod shape;
pub mod structure;

pub use kiln_io::LoadError;
pub(crate) use kiln_io::load_error::{from_json_error, version_mismatch};
pub use load::{load_graph, load_graph_bytes, load_graph_in, read_graph};
pub use names::is_valid_name;
pub(crate) use save::save_graph_with;
pub use save::{save_graph, save_graph_with_meta, write_graph};
pub use section::Section;

use kiln_core::graph::Graph;
use kiln_core::registry::Registry;
use kiln_core::value::ValueType;
use std::collections::BTreeMap;

/// The graph file version this build reads and writes.
pub const VERSION: i64 = kiln_io::GRAPH_FILE_VERSION;

/// The keys allowed at the top level of a graph file.
pub const TOP_LEVEL_KEYS: [&str; 8] = [
    "kiln",
    "description",
    "inputs",
    "nodes",
    "outputs",
    "graphs",
    "paradigm",
    "editor",
];
/// The keys allowed in a file's `editor` section (what an editor such as Kiln Studio keeps).
pub const EDITOR_KEYS: [&str; 1] = ["positions"];
/// The keys allowed in a graph defined inline (under `graphs`).
pub const INLINE_KEYS: [&str; 6] = [
    "description",
    "inputs",
    "nodes",
    "outputs",
    "graphs",
    "paradigm",
];
/// The keys allowed in a node.
pub const NODE_KEYS: [&str; 7] = ["op", "params", "inputs", "for", "fold", "step", "loop"];
/// The keys allowed in a graph input.
pub const INPUT_KEYS: [&str; 5] = ["type", "default", "doc", "collective", "color"];
/// The keys allowed in a graph output written as an object.
pub const OUTPUT_KEYS: [&str; 2] = ["from", "color"];

/// What a graph file holds besides the graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphMeta {
    /// The file's `description`.
    pub description: Option<String>,
    /// The `doc` of each graph input, by input name.
    pub input_docs: BTreeMap<String, String>,
    /// The `color` of each graph output that states one (`{"from": ..., "color": "data"}`), by
    /// output name: the colour space its image is written in as an 8 or 16-bit PNG.
    pub output_colors: BTreeMap<String, kiln_io::image_files::ColorSpace>,
    /// Where an editor drew each node (`editor.positions`: node id to `[x, y]`, whole
    /// numbers). Editor metadata only: no evaluation reads it.
    pub positions: BTreeMap<String, [i64; 2]>,
}

/// A loaded graph file: the graph and its metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphFile {
    /// The graph.
    pub graph: Graph,
    /// Description and input docs.
    pub meta: GraphMeta,
    /// Inline graphs, scopes and animated values.
    pub structure: structure::Structure,
}

impl GraphFile {
    /// A graph with no metadata.
    pub fn new(graph: Graph) -> GraphFile {
        GraphFile {
            graph,
            meta: GraphMeta::default(),
            structure: Default::default(),
        }
    }
    /// The canonical text of this file (see [`save_graph_with_meta`]).
    pub fn to_json(&self, registry: &Registry) -> String {
        save_graph_with_meta(&self.graph, &self.meta, registry)
    }
}

/// The declared type of param `name` of `op`, if the registry knows them.
pub(crate) fn param_type(registry: &Registry, op: &str, name: &str) -> Option<ValueType> {
    let spec = registry.get(op)?.spec();
    Some(spec.params[spec.param_index(name)?].ty)
}

/// The declared type of input `port` of `op`, if the registry knows them; a param's port
/// (every param is also an input port of its name) has the param's type.
pub(crate) fn input_type(registry: &Registry, op: &str, port: &str) -> Option<ValueType> {
    let spec = registry.get(op)?.spec();
    match spec.input_index(port) {
        Some(i) => Some(spec.inputs[i].ty),
        None => Some(spec.params[spec.param_index(port)?].ty),
    }
}

/// The declared type of input `name` of `op` when the op marks it a former param
/// ([`was_param`](kiln_core::op::InputSpec::was_param)): a `params` key of that name gives the
/// input's constant.
pub(crate) fn former_param_type(registry: &Registry, op: &str, name: &str) -> Option<ValueType> {
    let spec = registry.get(op)?.spec();
    let port = &spec.inputs[spec.input_index(name)?];
    port.was_param.then_some(port.ty)
}
