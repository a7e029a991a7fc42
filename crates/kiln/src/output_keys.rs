//! The content keys of a cook's outputs, computed without cooking: each node's key from
//! its definition, what it reads of the context and its inputs' keys, in plan order, with
//! the one function every evaluator keys results with (`Plan::node_key`). Two cooks whose
//! outputs have the same keys make the same bits, so a farm item whose done marker holds
//! the keys it would make now has nothing to do.

use crate::ProjectError;
use crate::cook::CookOptions;
use crate::project::Project;
use kiln_core::key::Key;
use kiln_core::plan::Plan;

impl Project {
    /// The key of every output `opts` asks for (in request order), as its cook would key
    /// them; the plan is made (and plan-time values cooked) but no output is.
    pub fn output_keys(&mut self, opts: &CookOptions) -> Result<Vec<(String, Key)>, ProjectError> {
        let (_planned, outputs, graph) = self.prepare(opts.clock, &opts.outputs, opts.fuse)?;
        let plan = Plan::build(&graph, &self.registry)
            .map_err(|d| ProjectError::Invalid { problems: d.0 })?;
        let mut ctx = self.context(opts.clock);
        ctx.seed = opts.seed;
        ctx.resolution = opts.size;
        let mut keys = vec![Key::default(); plan.len()];
        for &n in plan.order() {
            let n = n as usize;
            keys[n] = plan.node_key(n, &ctx, 0, |src| keys[src]);
        }
        let mut out = Vec::with_capacity(outputs.len());
        for name in outputs {
            let Some((n, port)) = plan.resolve_output(&name, &graph) else {
                return Err(ProjectError::NoOutputs);
            };
            out.push((name, keys[n].port(port)));
        }
        Ok(out)
    }
}
