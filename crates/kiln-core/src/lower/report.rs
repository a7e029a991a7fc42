//! What a plan did: calls written, scopes and their copies, waits, choices and pruned nodes,
//! and whether the plan was made or reused.

/// One scope written out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeReport {
    /// The scope's call path.
    pub path: String,
    /// `for` or `fold` or `step`.
    pub kind: &'static str,
    /// Copies (a `for`) or passes (a `fold`) written.
    pub copies: usize,
    /// For a fold that stopped early: what stopped it (`changed` or the output's name).
    pub stopped: Option<String>,
}

impl ScopeReport {
    /// A scope of `copies` copies.
    pub fn new(path: &str, kind: &'static str, copies: usize) -> Self {
        ScopeReport {
            path: path.to_string(),
            kind,
            copies,
            stopped: None,
        }
    }
}

/// What one plan did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlanReport {
    /// Whether the plan was reused rather than made.
    pub reused: bool,
    /// Calls written out (every copy of a scope counts once per call it writes).
    pub calls: usize,
    /// Scopes written out.
    pub scopes: Vec<ScopeReport>,
    /// Ports the plan cooked before it could write a scope (`node.port`, flat ids).
    pub waits: Vec<String>,
    /// Choices the plan made.
    pub choices: usize,
    /// Nodes taken out because only an untaken alternative needed them.
    pub pruned: usize,
    /// Nodes in the flat graph.
    pub nodes: usize,
}
