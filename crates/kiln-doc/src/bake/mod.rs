//! Baking: a graph whose user inputs are frozen into constants and whose pure cones are
//! folded into stored constants, giving the same outputs with fewer nodes.
//!
//! [`bake`] works on a loaded graph in memory and returns the baked graph ([`Baked`]);
//! [`write_baked`] writes it as a graph file with its heavy values in a blob folder beside it.
//!
//! # What is folded
//!
//! 1. **Freezing** (with [`BakeOptions::freeze`]): every graph input (an `input.<type>` node)
//!    becomes a `const` node of the same id holding its current value: the one given in
//!    [`BakeOptions::inputs`], else its default. Without freezing, inputs stay inputs and
//!    everything that depends on them stays too.
//! 2. **Classes**: a node is *static* when it depends only on params and constants, as
//!    [`Plan::class`](kiln_core::plan::Plan::class) computes ([`Class::Static`](kiln_core::plan::Class::Static)) on the
//!    frozen graph. With [`BakeOptions::seed`] set, the seed is frozen too: ops whose only
//!    context read is the seed (`image.noise`, `clock.seed`, ...) count as static, and are
//!    evaluated at that seed. Nodes reading the clock (time, frame, dt), latches, stateful and
//!    side-effect nodes, and whatever depends on them are never static.
//! 3. **Kept nodes**: every node that is not static, every graph output (`output` node, so
//!    output names stay valid), and every signal op (a node with a `signal` port, or fed by
//!    one: signals exist only in the streaming evaluator) stays as it is.
//! 4. **Folding**: each output port of a static node that feeds a kept node is evaluated (by
//!    a [`LazyEvaluator`](kiln_core::eval::LazyEvaluator)) and replaced by a `const` node holding the value. The const takes
//!    the folded node's id when the port is `out` (so `node` and `node.out` still name it),
//!    else the id `<node>__<port>`. A `const` node already there (or a frozen input) is kept
//!    as it is. Every other static node is no longer needed and is removed.
//!
//! A port whose value cannot be stored is not folded: its node is kept, and its own static
//! inputs are folded instead. That is a node that fails (the baked graph fails the same way),
//! an empty value, and a heavy value of a type without a binary form (see
//! [`encode_value`](crate::encode_value)). If the graph cannot be planned for the tick evaluators (an audio graph
//! with a feedback loop), nothing is folded; inputs are still frozen.
//!
//! The folded values are bit for bit those a run of the original graph computes (with the
//! same inputs and, when frozen, the same seed), so every evaluator gives the baked graph's
//! outputs the same bits as the original's.
//!
//! # Storage: embedded values and blobs
//!
//! The `const` op takes a `value` of any type, so it holds every folded value. Plain values
//! (numbers, vectors, colours, strings, lists of them) are written into the graph file, as
//! any constant. Heavy values (images, meshes, audio buffers, and lists holding them) and
//! plain values whose JSON form would not read back bit for bit (a NaN with a payload) are
//! stored by content in a blob folder beside the graph file, `<graph stem>.blobs/`, one file
//! per distinct value, and referenced from the graph file:
//!
//! ```json
//! "sky": {"op": "const", "params": {"value": {"type": "image", "blob": "baked.blobs/4f…e1.kv"}}}
//! ```
//!
//! A blob file has the entry format of the persistent cache ([`crate::cache`]): header (magic,
//! length, XXH3-128 checksum, key) and the value in the binary codec of [`encode_value`](crate::encode_value). Its
//! key, and so its name, is the XXH3-128 of that payload. Reading the graph with
//! [`read_graph`](crate::read_graph) resolves each reference relative to the graph file's
//! folder and checks it: a missing or damaged blob, or one of another type than the reference
//! says, is a [`LoadError::Blob`](crate::LoadError::Blob) naming it.
//!
//! [`write_baked`] writes the blobs first (each atomically, skipping one already there
//! intact), then the graph file (atomically), so a graph file on disk never references a blob
//! that is not there yet. Blobs of an earlier bake to the same path that are no longer
//! referenced are left in the folder.
//!
//! The module is cut by concept: what a bake reports (`report`), which nodes are static and
//! which are kept (`classes`), which values can be stored and where (`storage`), the folding
//! itself (`fold`), the graph editing it needs (`rebuild`) and writing (`write`). Blob files
//! and references are [`crate::blob`]'s.

mod classes;
mod fold;
mod rebuild;
mod report;
mod storage;
mod write;

pub use fold::bake;
pub use kiln_io::blob::{BLOB_DIR_SUFFIX, BLOB_EXT, blob_dir_for, blob_file_name};
pub use report::{BakeReport, Baked, Folded};
pub use storage::{Storage, needs_blob};
pub use write::{WriteReport, write_baked};

use kiln_core::eval::EvalError;
use kiln_core::validate::Diagnostics;
use kiln_core::value::Value;
use kiln_io::values::WriteError;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The op of the nodes that hold frozen inputs and folded values.
pub const CONST_OP: &str = "const";

/// How to bake.
#[derive(Clone, Debug, Default)]
pub struct BakeOptions {
    /// Turn graph inputs into constants (their values from [`inputs`](Self::inputs), else
    /// their defaults).
    pub freeze: bool,
    /// Values of graph inputs, by name (only with [`freeze`](Self::freeze)). Ints are taken
    /// for floats and hex strings for colours, as for a run.
    pub inputs: BTreeMap<String, Value>,
    /// Freeze the evaluation seed at this value: nodes whose only context read is the seed
    /// are folded, at this seed. `None`: they stay, and read the seed of each run.
    pub seed: Option<u64>,
}

/// Why a graph could not be baked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BakeError {
    /// The graph does not validate.
    #[error("{0}")]
    Invalid(Diagnostics),
    /// A value of the graph has no binary form to write (a heavy type without a codec, such
    /// as a step scope's body), so the graph cannot be baked.
    #[error(
        "node `{node}`: its {what} `{name}` holds a value of type {type_name}, which has no codec to write it; the graph cannot be baked"
    )]
    NoCodec {
        /// The node.
        node: String,
        /// `param` or `input`.
        what: &'static str,
        /// The param or port.
        name: String,
        /// The value's type.
        type_name: String,
    },
    /// Input values were given without freezing.
    #[error(
        "input values were given but inputs are not frozen (hint: add --freeze to turn inputs into constants)"
    )]
    InputsNeedFreeze,
    /// A value was given for an input the graph does not have.
    #[error("the graph has no input named `{name}` ({})", names_or_none(inputs))]
    UnknownInput {
        /// The name given.
        name: String,
        /// The graph's inputs.
        inputs: Vec<String>,
    },
    /// An input's value could not be frozen (a value of the wrong type).
    #[error("cannot freeze input `{name}`: {error}")]
    Input {
        /// The input.
        name: String,
        /// What went wrong.
        error: EvalError,
    },
    /// Evaluating the folded values failed as a whole (a failing node does not: it is kept).
    #[error("evaluation failed: {0}")]
    Eval(EvalError),
    /// The baked graph does not validate: a bug in baking.
    #[error("the baked graph does not validate (a bug in kiln bake): {0}")]
    Result(Diagnostics),
    /// The destination path cannot hold a baked graph.
    #[error("cannot write a baked graph to `{}`: {message}", path.display())]
    Destination {
        /// The path.
        path: PathBuf,
        /// Why not.
        message: String,
    },
    /// Writing a blob or the graph file failed.
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// The graph's input names for a message, or that it has none.
fn names_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "it has no inputs".to_string()
    } else {
        format!("inputs: {}", names.join(", "))
    }
}
