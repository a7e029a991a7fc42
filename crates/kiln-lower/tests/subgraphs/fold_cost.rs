//! A `fold … until` costs the same per pass however many passes came before (issue 37, item
//! 5: 250 / 2,000 passes took 0.19 / 24.2 s, each stop cooked over the cone of every pass
//! before). Counted, not timed: the nodes the plan's walks visit, the nodes it hands its
//! wait evaluator and what that evaluator does (keys, executions, hits) for 2,000 passes are
//! within 10× of those for 250, and the body runs once per pass.

use super::{counting, document, registry};
use kiln_core::eval::{EvalError, Evaluator, LazyEvaluator, Outputs, Request};
use kiln_core::prelude::*;

/// A wait evaluator that counts its work: the nodes of each graph it is given, and the keys,
/// executions and hits of each evaluation.
struct Counting {
    inner: LazyEvaluator,
    work: u64,
}

impl Evaluator for Counting {
    fn evaluate(
        &mut self,
        graph: &Graph,
        request: &Request,
        ctx: &EvalContext,
    ) -> Result<Outputs, EvalError> {
        self.work += graph.len() as u64;
        let out = self.inner.evaluate(graph, request, ctx)?;
        self.work += out.stats.keys_computed + out.stats.executed + out.stats.cache_hits;
        Ok(out)
    }
}

/// A fold counting from 0 to `n` by a body of three nodes (one counted), stopped `until`.
fn counting_fold(n: usize, until: &str) -> String {
    format!(
        r#"{{"kiln": 1,
      "graphs": {{"step": {{
        "inputs": {{"x": {{"type": "float", "default": 0.0}}}},
        "nodes": {{"c": {{"op": "test.count", "inputs": {{"x": "x"}}}},
                  "d": {{"op": "math.add", "inputs": {{"a": "c", "b": 1.0}}}},
                  "m": {{"op": "math.min", "inputs": {{"a": "d", "b": {n}.0}}}},
                  "g": {{"op": "cmp.ge", "inputs": {{"a": "c", "b": {n}.0}}}}}},
        "outputs": {{"y": "m", "done": "g"}}}}}},
      "nodes": {{"f": {{"op": "@step", "fold": {{"until": "{until}", "max": 100000, "state": {{"x": "y"}}}}, "inputs": {{"x": 0.0}}}}}},
      "outputs": {{"r": "f.y"}}}}"#
    )
}

/// Plan the fold to `n` stopped `until`: (the plan's work, passes written, body executions).
fn cost(n: usize, until: &str) -> (u64, usize, usize) {
    let reg = registry();
    let d = document(&counting_fold(n, until));
    let mut waits = Counting {
        inner: LazyEvaluator::new(reg.clone()),
        work: 0,
    };
    counting::take();
    let l = kiln_lower::lower::lower(&d.doc, &reg, &EvalContext::new(), &mut waits).unwrap();
    let runs = counting::take();
    let scope = &l.report.scopes[0];
    assert_eq!(scope.stopped.as_deref(), Some(until));
    (waits.work + l.walked, scope.copies, runs)
}

#[test]
fn until_folds_cost_the_same_per_pass_at_250_and_2000_passes() {
    for until in ["changed", "done"] {
        let (small, small_passes, small_runs) = cost(250, until);
        let (large, large_passes, large_runs) = cost(2000, until);
        // Pass `k` reads `k`: `done` at pass `n`, and pass `n` is the first to change nothing.
        assert_eq!((small_passes, large_passes), (251, 2001), "{until}");
        // The body runs once per pass while planning: no pass is cooked again.
        assert_eq!(
            (small_runs, large_runs),
            (small_passes, large_passes),
            "{until}"
        );
        eprintln!("{until}: 250 passes cost {small}, 2000 passes {large}");
        assert!(
            large < 10 * small,
            "{until}: 2000 passes cost {large}, 250 passes {small}: more than 10 times"
        );
    }
}
