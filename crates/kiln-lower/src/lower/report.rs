//! What a plan did: calls written, scopes and their copies, waits, choices and pruned nodes,
//! and whether the plan was made or reused.

/// One scope written out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeReport {
    /// The scope's call path.
    pub path: String,
    /// `for`, `fold`, `step`, or `each` (a node written once per element of a list given to
    /// a single input: its copies are `path[i]`).
    pub kind: &'static str,
    /// Copies (a `for` or an `each`) or passes (a `fold`) written.
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
pub struct LowerReport {
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

/// What one evaluation did with a scope's copies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeCounts {
    /// The scope's call path.
    pub path: String,
    /// `for`, `fold` or `step`.
    pub kind: &'static str,
    /// Copies the plan wrote.
    pub copies: usize,
    /// Copies of which at least one node ran.
    pub cooked: usize,
    /// Copies every node of which was answered without running.
    pub reused: usize,
    /// Cooked copies in which a node's result came out as it was, so the change stopped
    /// there (an early cutoff: only the incremental evaluator cuts off).
    pub cut_off: usize,
}

impl LowerReport {
    /// Per scope, how many copies an evaluation cooked, reused and cut off, from the nodes it
    /// ran, each `(id, cut off)` (a copy `path[i]` cooked when a node `path[i]/...` ran; a
    /// step, when its solver node `path` ran).
    pub fn scope_counts<'a>(
        &self,
        executed: impl IntoIterator<Item = (&'a str, bool)>,
    ) -> Vec<ScopeCounts> {
        let ran: Vec<(&str, bool)> = executed.into_iter().collect();
        self.scopes
            .iter()
            .map(|s| {
                let (cooked, cut_off) = if s.kind == "step" {
                    let me = ran.iter().filter(|(id, _)| *id == s.path);
                    let cut = me.clone().any(|&(_, c)| c);
                    (usize::from(me.count() > 0), usize::from(cut))
                } else {
                    // Copy index → whether a node of it was cut off.
                    let mut copies = std::collections::BTreeMap::new();
                    let prefix = format!("{}[", s.path);
                    for &(id, cut) in &ran {
                        if let Some(rest) = id.strip_prefix(&prefix)
                            && let Some((i, tail)) = rest.split_once(']')
                            && (tail.is_empty() || tail.starts_with('/'))
                        {
                            *copies.entry(i).or_insert(false) |= cut;
                        }
                    }
                    (copies.len(), copies.values().filter(|&&c| c).count())
                };
                ScopeCounts {
                    path: s.path.clone(),
                    kind: s.kind,
                    copies: s.copies,
                    cooked,
                    reused: s.copies - cooked.min(s.copies),
                    cut_off,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_cooked_when_a_node_of_it_ran_and_a_step_when_its_solver_did() {
        let r = LowerReport {
            scopes: vec![
                ScopeReport::new("w", "for", 3),
                ScopeReport::new("w[1]/b", "for", 2),
                ScopeReport::new("s", "step", 1),
            ],
            ..LowerReport::default()
        };
        // `w[1]/b[0]/x` is a node of copy 1 of `w` and of copy 0 of `w[1]/b`; `w/out~0-0` (a
        // gather) and `w[10]x` belong to no copy of `w`.
        let counts = r.scope_counts([
            ("w[1]/b[0]/x", true),
            ("w[2]/y", false),
            ("w[2]/z", false),
            ("w/out~0-0", false),
            ("w[10]x", false),
        ]);
        let got: Vec<(usize, usize, usize)> = counts
            .iter()
            .map(|c| (c.cooked, c.reused, c.cut_off))
            .collect();
        assert_eq!(got, [(2, 1, 1), (1, 1, 1), (0, 1, 0)]);
        assert_eq!(r.scope_counts([("s", false)])[2].cooked, 1);
    }
}
