//! What a present did: [`PresentReport`], and for a session over a document what the plan
//! did ([`LowerPresent`]).

use crate::lower::{LowerCounts, ScopeCounts};
use std::time::Duration;

/// What a present did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PresentReport {
    /// The frame's number.
    pub frame: u64,
    /// Whether the graph was (re)planned for it (the first present, or after a structural
    /// edit).
    pub planned: bool,
    /// Nodes in the plan.
    pub nodes: usize,
    /// Nodes whose value was reused: checked and still current, or found in the store.
    pub reused: u64,
    /// Nodes cooked (executed).
    pub cooked: u64,
    /// Cooked nodes whose result had the same bits as before, so their dependents were
    /// spared (early cutoff).
    pub cut_off: u64,
    /// Cooked nodes that ran on a worker thread of the parallel policy.
    pub parallel: u64,
    /// Wall time of the present, commit included.
    pub elapsed: Duration,
    /// For a session over a document, what its plan did.
    pub plan: Option<LowerPresent>,
}

/// What the plan of a session over a document did, as of a present.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LowerPresent {
    /// Plans made, reused and patched in place over the session's life.
    pub plans: LowerCounts,
    /// Values the plan cooked before it could write a scope out.
    pub waits: usize,
    /// Per scope, the copies the plan wrote and what this present did with them.
    pub scopes: Vec<ScopeCounts>,
}

impl std::fmt::Display for PresentReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "frame {}: {} nodes{}, cooked {}, reused {}, cut off {}, in {:.3} ms",
            self.frame,
            self.nodes,
            if self.planned { " (planned)" } else { "" },
            self.cooked,
            self.reused,
            self.cut_off,
            self.elapsed.as_secs_f64() * 1e3
        )?;
        if let Some(p) = &self.plan {
            write!(
                f,
                "; plans: {} made, {} reused, {} patched in place",
                p.plans.made, p.plans.reused, p.plans.patched
            )?;
            for s in &p.scopes {
                write!(
                    f,
                    "; {} `{}`: {} copies, {} cooked, {} reused, {} cut off",
                    s.kind, s.path, s.copies, s.cooked, s.reused, s.cut_off
                )?;
            }
        }
        Ok(())
    }
}
