//! What a graph offers its caller: its inputs (types, defaults, docs and the rules of the
//! ports they reach) and its outputs (types and colour spaces).

use kiln_core::op::rule::Rule;
use kiln_core::value::{Value, ValueType};
use kiln_io::image_files::ColorSpace;

/// A graph input.
#[derive(Clone, Debug)]
pub struct InputInfo {
    /// Its name (what `set` takes).
    pub name: String,
    /// Its type.
    pub ty: ValueType,
    /// Its default, when it has one (an input without one must be set).
    pub default: Option<Value>,
    /// Its `doc` in the graph file.
    pub doc: Option<String>,
    /// Each port of the top graph it is wired into that states a rule (a range, choices),
    /// as `(node.port, rule)`: a value breaking one is refused there.
    pub reaches: Vec<(String, Rule)>,
}

/// A graph output.
#[derive(Clone, Debug)]
pub struct OutputInfo {
    /// Its name (what a cook requests, and the stem of its file).
    pub name: String,
    /// Its type, when the graph's types resolve.
    pub ty: Option<ValueType>,
    /// The colour space the graph file gives it (images written as PNG).
    pub colour: ColorSpace,
}
