//! What can go wrong between opening a graph file and writing its outputs, each failure
//! naming the file, input, output or node it concerns.

use kiln_core::prelude::{Diagnostic, EvalError, ValueType};
use std::path::PathBuf;

/// A failure of a [`Project`](crate::Project) call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProjectError {
    /// The graph file itself could not be read or parsed.
    #[error("cannot load {path}: {source}")]
    File {
        /// The graph file opened.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<kiln_io::LoadError>,
    },
    /// A file or graph the graph file calls could not be read or resolved.
    #[error("cannot load {path}: {source}")]
    Load {
        /// The graph file opened.
        path: PathBuf,
        /// Why (the file it concerns is named inside).
        #[source]
        source: Box<kiln_doc::assets::AssetError>,
    },
    /// The graph text (a built-in or in-memory graph) does not parse.
    #[error("cannot load {origin}: {source}")]
    Text {
        /// What the text is (`built-in demo`, a file name).
        origin: String,
        /// Why.
        #[source]
        source: Box<kiln_io::LoadError>,
    },
    /// The document could not be written out into a flat graph (a scope over a list the
    /// plan could not cook, a plan over its limits, ...).
    #[error("cannot plan {origin}: {source}")]
    Plan {
        /// The graph planned.
        origin: String,
        /// Why.
        #[source]
        source: Box<kiln_lower::lower::LowerError>,
    },
    /// A value was given for an input the graph does not have.
    #[error("`{name}`: the graph has no input of that name ({})", known_inputs(.inputs))]
    UnknownInput {
        /// The name given.
        name: String,
        /// The graph's inputs.
        inputs: Vec<String>,
    },
    /// `NODE.PORT` named a node the graph does not have (and no input has that name).
    #[error("`{name}`: the graph has no input of that name and no node `{node}`")]
    UnknownNode {
        /// The name given.
        name: String,
        /// The node it names.
        node: String,
    },
    /// `NODE.PORT` named a port the node does not have.
    #[error("`{node}.{port}`: node `{node}` has no port `{port}` (it has: {})", .ports.join(", "))]
    UnknownPort {
        /// The node.
        node: String,
        /// The port given.
        port: String,
        /// The node's ports (its inputs and params).
        ports: Vec<String>,
    },
    /// A value (or a file) given for an input does not fit its type.
    #[error("`{name}` ({ty}): {message}")]
    InputValue {
        /// The input.
        name: String,
        /// Its type.
        ty: ValueType,
        /// What is wrong (a file that does not read names the file).
        message: String,
    },
    /// The flat graph has validation problems (every one is listed).
    #[error("the graph has {} problem(s): {}", .problems.len(), first_problems(.problems))]
    Invalid {
        /// Each problem, naming its node and port.
        problems: Vec<Diagnostic>,
    },
    /// Nothing to cook: the graph declares no outputs and none were named.
    #[error("the graph has no outputs (add an \"outputs\" section, or name nodes with --output)")]
    NoOutputs,
    /// An output's colour space was asked for an output that is not written.
    #[error("--color `{name}=...`: `{name}` is not an output written (outputs: {})", .outputs.join(", "))]
    ColourOfUnknownOutput {
        /// The name given.
        name: String,
        /// The outputs written.
        outputs: Vec<String>,
    },
    /// A colour space name is not one Kiln knows.
    #[error("--color `{given}`: expected {expected} (optionally after NAME=), found `{found}`")]
    ColourName {
        /// The argument as given.
        given: String,
        /// The names allowed.
        expected: String,
        /// The space named.
        found: String,
    },
    /// An output format cannot be written at the depth asked.
    #[error("{what} with --depth: {message}")]
    Depth {
        /// The output (or `--output` argument) concerned.
        what: String,
        /// Why.
        message: String,
    },
    /// The evaluation failed; nothing was written.
    #[error("evaluation failed: {source}; nothing was written{hint}")]
    Eval {
        /// The failure, naming the node and op.
        #[source]
        source: Box<EvalError>,
        /// A hint for a likely cause (a latch cooked outside a recurrent driver), or empty.
        hint: String,
    },
    /// A name asked of a stream is neither a node nor an output of the graph.
    #[error("output `{output}`: the graph has no node or output of that name")]
    UnknownOutput {
        /// The name asked.
        output: String,
    },
    /// A name asked of a stream does not carry a signal.
    #[error("output `{output}` is not a signal: {what}; only signal (audio) outputs stream")]
    NotASignal {
        /// The name asked.
        output: String,
        /// What it is instead, naming its node, port and op.
        what: String,
    },
    /// The streaming evaluator could not be built for the graph.
    #[error("{origin}: cannot build the stream: {source}")]
    Stream {
        /// The file streamed.
        origin: String,
        /// Why, naming the node.
        #[source]
        source: Box<kiln_core::eval::StreamError>,
    },
    /// An animated output (GIF, APNG) could not be made or written.
    #[error("{message}")]
    Animation {
        /// What failed, naming the output, the format and the tick.
        message: String,
    },
    /// A live present failed (see [`crate::Live`]); the last frame stays current.
    #[error("{origin}: {source}")]
    Present {
        /// The file presented.
        origin: String,
        /// What failed: the plan, validation, a node (named with its op), or the commit.
        #[source]
        source: Box<kiln_lower::session::SessionError>,
    },
    /// An edit could not be applied to the project's document.
    #[error("{origin}: {source}")]
    Edit {
        /// The file edited.
        origin: String,
        /// What the edit named that the document does not have.
        #[source]
        source: Box<kiln_doc::edit::EditError>,
    },
    /// A tick of a render failed.
    #[error("tick {tick} failed: {source}")]
    Tick {
        /// The tick.
        tick: u64,
        /// The failure, naming the node and op.
        #[source]
        source: Box<EvalError>,
    },
    /// An output could not be encoded; nothing was written.
    #[error("cannot write output `{output}`: {source}; nothing was written")]
    Encode {
        /// The output.
        output: String,
        /// Why.
        #[source]
        source: Box<kiln_io::WriteError>,
    },
    /// The group of output files could not land; each file kept its previous contents.
    #[error("{source}; every output file was left as it was")]
    Commit {
        /// Why.
        #[source]
        source: Box<kiln_io::FrameError>,
    },
    /// Some files of the group landed and others did not (see the error for which).
    #[error("{source}")]
    CommitIncomplete {
        /// Which files did not land.
        #[source]
        source: Box<kiln_io::FrameError>,
    },
    /// The output folder could not be made.
    #[error("cannot create {path}: {source}")]
    OutputFolder {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The persistent cache directory could not be opened.
    #[error("--cache: {source}")]
    Cache {
        /// Why.
        #[source]
        source: Box<kiln_io::CacheError>,
    },
    /// A sweep or its name template is malformed.
    #[error("{0}")]
    Sweep(#[from] crate::sweep::SweepError),
    /// A sweep's further worker could not open its project.
    #[error("a sweep worker could not open the graph: {message}")]
    SweepWorker {
        /// Why.
        message: String,
    },
    /// A sweep item's output holds an error, so none of the item's files are written.
    #[error("output `{output}` failed")]
    SweepOutputFailed {
        /// The output.
        output: String,
    },
}

fn known_inputs(inputs: &[String]) -> String {
    if inputs.is_empty() {
        "it has no inputs".to_string()
    } else {
        format!("inputs: {}", inputs.join(", "))
    }
}

/// The first few problems, one after another, and how many more there are.
fn first_problems(problems: &[Diagnostic]) -> String {
    const SHOWN: usize = 3;
    let mut text: Vec<String> = problems.iter().take(SHOWN).map(|d| d.to_string()).collect();
    if problems.len() > SHOWN {
        text.push(format!("and {} more", problems.len() - SHOWN));
    }
    text.join("; ")
}
