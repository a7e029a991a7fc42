//! What can stop a plan: every error names the call path of the node, scope or port involved.

use kiln_core::error::EvalError;

/// Why a document could not be written out into a flat graph.
#[derive(Debug, thiserror::Error)]
pub enum LowerError {
    /// Two flat nodes got the same id (a body node named like a generated one).
    #[error("two nodes of the written-out graph are both called `{0}`")]
    IdClash(String),
    /// A wire's source is defined nowhere.
    #[error("`{port}` reads `{read}`, which no node or call defines")]
    Unbound {
        /// The flat port read into.
        port: String,
        /// The flat port read.
        read: String,
    },
    /// A port stands for itself: a call reads its own output, directly or through others.
    #[error(
        "`{0}` stands for itself: a call reads its own output, directly or through the calls around it"
    )]
    AliasLoop(String),
    /// An animated param's curve is malformed.
    #[error("the curve of `{at}`: {message}")]
    Curve {
        /// The flat `node.param`.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// A call wires or sets a port its graph does not have.
    #[error("call `{call}` of `{asset}` sets input `{port}`, which `{asset}` does not have{}", hint(.known))]
    UnknownInput {
        /// Call path.
        call: String,
        /// The asset's name.
        asset: String,
        /// The port.
        port: String,
        /// The inputs it has.
        known: Vec<String>,
    },
    /// A port of a call is read that its graph does not output.
    #[error("`{port}` is read, but `{asset}` has no output `{output}`{}", hint(.known))]
    UnknownOutput {
        /// The flat port read.
        port: String,
        /// The asset's name.
        asset: String,
        /// The output asked for.
        output: String,
        /// The outputs it has.
        known: Vec<String>,
    },
    /// A required input of a call is neither wired nor set, and has no default.
    #[error("call `{call}` gives no value for input `{input}` of `{asset}`, which has no default")]
    MissingInput {
        /// Call path.
        call: String,
        /// The asset's name.
        asset: String,
        /// The input.
        input: String,
    },
    /// A scope is declared wrongly (a carry that is not both an input and an output, a bad
    /// count, an `until` output that does not exist).
    #[error("{kind} `{call}`: {message}")]
    Scope {
        /// The scope kind (`for`, `fold`, `step`).
        kind: &'static str,
        /// Call path.
        call: String,
        /// What is wrong.
        message: String,
    },
    /// A fold did not stop within its cap.
    #[error(
        "fold `{call}` did not stop within {max} passes (its `max`); raise `max` or check its stop condition"
    )]
    FoldCap {
        /// Call path.
        call: String,
        /// The cap.
        max: u32,
    },
    /// A size the plan was asked for is over its limit.
    #[error("{what} `{call}` would write {size} {unit}, over the limit of {limit}")]
    TooLarge {
        /// What is counted (`for`, `fold`, `plan`).
        what: &'static str,
        /// Call path.
        call: String,
        /// The size asked for.
        size: u64,
        /// The unit (`copies`, `nodes`).
        unit: &'static str,
        /// The limit.
        limit: u64,
    },
    /// Calls nest deeper than the limit.
    #[error("call `{call}` nests {depth} calls deep, over the limit of {limit}")]
    TooDeep {
        /// Call path.
        call: String,
        /// Its depth.
        depth: usize,
        /// The limit.
        limit: usize,
    },
    /// A value the plan waited on failed to cook.
    #[error("the {what} of {kind} `{call}` failed: {source}")]
    Wait {
        /// What was waited on (`items`, `count`, `stop after pass 3`).
        what: String,
        /// The scope kind.
        kind: &'static str,
        /// Call path.
        call: String,
        /// The failure.
        source: Box<EvalError>,
    },
    /// A value the plan waited on has the wrong type.
    #[error("the {what} of {kind} `{call}` must be {expected}, found {found}")]
    WaitType {
        /// What was waited on.
        what: String,
        /// The scope kind.
        kind: &'static str,
        /// Call path.
        call: String,
        /// What it must be.
        expected: &'static str,
        /// What it was.
        found: String,
    },
    /// Plan values wait on each other through scopes, so none can be cooked first.
    #[error(
        "the {what} of {kind} `{call}` depends on `{on}`, which is itself written out by a scope that waits"
    )]
    WaitCycle {
        /// What was waited on.
        what: String,
        /// The scope kind.
        kind: &'static str,
        /// Call path.
        call: String,
        /// The pending port it reads.
        on: String,
    },
}

fn hint(known: &[String]) -> String {
    if known.is_empty() {
        String::new()
    } else {
        format!(" (it has: {})", known.join(", "))
    }
}

impl LowerError {
    /// The flat id of the node or call the error is about, when there is one.
    pub fn call_path(&self) -> Option<&str> {
        match self {
            LowerError::UnknownInput { call, .. }
            | LowerError::MissingInput { call, .. }
            | LowerError::Scope { call, .. }
            | LowerError::FoldCap { call, .. }
            | LowerError::TooLarge { call, .. }
            | LowerError::TooDeep { call, .. }
            | LowerError::Wait { call, .. }
            | LowerError::WaitType { call, .. }
            | LowerError::WaitCycle { call, .. } => Some(call),
            _ => None,
        }
    }
}
