//! The errors values carry: why an evaluation failed ([`EvalError`], the payload of
//! [`Value::Error`](crate::value::Value::Error)) and what validation found
//! ([`Diagnostics`]). At the bottom of the crate with [`crate::id`]: it knows no value, op,
//! plan or evaluator, so values can carry errors without a circle.

use crate::id::NodeId;
use std::fmt;

/// What kind of problem a diagnostic reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DiagnosticKind {
    /// The node's op id is not registered.
    UnknownOp,
    /// A wire names a node that does not exist.
    UnknownNode,
    /// A port or param name the op does not declare.
    UnknownPort,
    /// A value or wire of the wrong type.
    TypeMismatch,
    /// More than one wire (or a wire and a constant) into one input.
    MultipleWires,
    /// A required input has no wire and no constant.
    MissingInput,
    /// A required param is not set.
    MissingParam,
    /// A cycle of wires.
    Cycle,
    /// A param or constant of the right type that breaks its op's rule (a range, a choice).
    BadValue,
    /// A wire into a plan-time param from a value known only while cooking.
    PlanTimePort,
}

impl DiagnosticKind {
    /// Short code for listings.
    pub fn code(&self) -> &'static str {
        match self {
            DiagnosticKind::UnknownOp => "unknown-op",
            DiagnosticKind::UnknownNode => "unknown-node",
            DiagnosticKind::UnknownPort => "unknown-port",
            DiagnosticKind::TypeMismatch => "type-mismatch",
            DiagnosticKind::MultipleWires => "multiple-wires",
            DiagnosticKind::MissingInput => "missing-input",
            DiagnosticKind::MissingParam => "missing-param",
            DiagnosticKind::Cycle => "cycle",
            DiagnosticKind::BadValue => "bad-value",
            DiagnosticKind::PlanTimePort => "plan-time-port",
        }
    }
}

/// One problem found in a graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// What kind of problem.
    pub kind: DiagnosticKind,
    /// The node concerned.
    pub node: Option<NodeId>,
    /// Its op id.
    pub op: Option<String>,
    /// The port or param concerned (`"input a"`, `"output out"`, `"param octaves"`).
    pub port: Option<String>,
    /// What was expected.
    pub expected: Option<String>,
    /// What was found.
    pub found: Option<String>,
    /// The nodes involved, for cycles.
    pub nodes: Vec<NodeId>,
    /// A hint for fixing it.
    pub hint: Option<String>,
}

impl Diagnostic {
    pub(crate) fn new(kind: DiagnosticKind, node: &NodeId, op: &str) -> Self {
        Diagnostic {
            kind,
            node: Some(node.clone()),
            op: Some(op.to_string()),
            port: None,
            expected: None,
            found: None,
            nodes: vec![],
            hint: None,
        }
    }
    pub(crate) fn port(mut self, p: String) -> Self {
        self.port = Some(p);
        self
    }
    pub(crate) fn expected(mut self, e: impl Into<String>) -> Self {
        self.expected = Some(e.into());
        self
    }
    pub(crate) fn found(mut self, f: impl Into<String>) -> Self {
        self.found = Some(f.into());
        self
    }
    pub(crate) fn hint(mut self, h: impl Into<String>) -> Self {
        self.hint = Some(h.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind.code())?;
        if let Some(n) = &self.node {
            write!(f, ": node `{n}`")?;
            if let Some(op) = &self.op {
                write!(f, " ({op})")?;
            }
        }
        if let Some(p) = &self.port {
            write!(f, ", {p}")?;
        }
        if !self.nodes.is_empty() {
            let names: Vec<&str> = self.nodes.iter().map(|n| n.as_str()).collect();
            write!(f, ": {} -> {}", names.join(" -> "), names[0])?;
        }
        match (&self.expected, &self.found) {
            (Some(e), Some(x)) => write!(f, ": expected {e}, found {x}")?,
            (Some(e), None) => write!(f, ": expected {e}")?,
            (None, Some(x)) => write!(f, ": found {x}")?,
            _ => {}
        }
        if let Some(h) = &self.hint {
            write!(f, " (hint: {h})")?;
        }
        Ok(())
    }
}

/// A list of diagnostics (a graph that failed validation).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} problem(s) in the graph", self.0.len())?;
        for d in &self.0 {
            write!(f, "\n  {d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// An evaluation failed.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum EvalError {
    /// The graph did not validate.
    #[error("{0}")]
    Invalid(Diagnostics),
    /// A requested output does not exist.
    #[error("no output named `{name}` (use `node` or `node.port`)")]
    UnknownOutput {
        /// The name requested.
        name: String,
    },
    /// A node's op returned an error.
    #[error("node `{node}` ({op}){}: {message}", port.as_ref().map(|p| format!(", {p}")).unwrap_or_default())]
    Node {
        /// Node id.
        node: NodeId,
        /// Op id.
        op: String,
        /// The port involved, e.g. `input "b"`.
        port: Option<String>,
        /// What went wrong.
        message: String,
    },
    /// A node's op panicked; the panic was caught.
    #[error("node `{node}` ({op}) panicked: {message}")]
    Panic {
        /// Node id.
        node: NodeId,
        /// Op id.
        op: String,
        /// The panic message.
        message: String,
    },
    /// The request was cancelled.
    #[error("evaluation cancelled")]
    Cancelled,
    /// A recurrent run was asked for something it cannot do (see [`crate::recurrence`]).
    #[error("recurrence: {0}")]
    Recurrence(String),
    /// A worker thread could not be started or died without an answer.
    #[error("evaluation worker failed: {0}")]
    Worker(String),
}
