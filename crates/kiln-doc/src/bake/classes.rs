//! Which nodes baking may fold: static nodes (with the seed frozen or not), and signal
//! nodes, which it keeps; and the size of each static node's cone, for the report.

use kiln_core::op::{Purity, Reads};
use kiln_core::plan::{Class, Plan, Source};
use kiln_core::value::ValueType;
use std::collections::HashSet;

/// Which nodes are static: [`Plan::class`] is [`Class::Static`], or, with the seed frozen,
/// would be if reading the seed were not a context read. A frozen seed freezes the other
/// hints of the baking request with it: the resolution and the preview flag (none and off),
/// which image generators read for the size they leave to the request.
pub(super) fn static_nodes(plan: &Plan, seed_frozen: bool) -> Vec<bool> {
    if !seed_frozen {
        return (0..plan.len())
            .map(|v| plan.class(v) == Class::Static)
            .collect();
    }
    let mut st = vec![false; plan.len()];
    for &v in plan.order() {
        let v = v as usize;
        let spec = plan.op(v).spec();
        let own = match spec.purity {
            Purity::Pure => true,
            Purity::Clock => {
                let frozen = Reads::SEED.with(Reads::RESOLUTION).with(Reads::PREVIEW);
                !spec.reads.is_empty() && Reads(spec.reads.0 & !frozen.0).is_empty()
            }
            _ => false,
        };
        st[v] = own
            && plan.inputs(v).iter().all(|s| match s {
                Source::Wire { node, .. } => st[*node as usize],
                _ => true,
            });
    }
    st
}

/// Signal ops (a `signal` port) and every node fed by one.
pub(super) fn signal_nodes(plan: &Plan) -> Vec<bool> {
    let mut sig = vec![false; plan.len()];
    for &v in plan.order() {
        let v = v as usize;
        let spec = plan.op(v).spec();
        sig[v] = spec.inputs.iter().any(|i| i.ty == ValueType::Signal)
            || spec.outputs.iter().any(|o| o.ty == ValueType::Signal)
            || plan.output_types(v).contains(&ValueType::Signal)
            || plan.inputs(v).iter().any(|s| match s {
                Source::Wire { node, .. } => sig[*node as usize],
                _ => false,
            });
    }
    sig
}

/// The size of each static node's static cone (itself and its static ancestors).
pub(super) struct ConeSizes<'a> {
    plan: &'a Plan,
    is_static: &'a [bool],
}

impl<'a> ConeSizes<'a> {
    /// Cone sizes over `plan`, where `is_static` says which nodes count.
    pub(super) fn new(plan: &'a Plan, is_static: &'a [bool]) -> Self {
        ConeSizes { plan, is_static }
    }
    /// The number of nodes in `v`'s static cone, `v` included.
    pub(super) fn size(&self, v: usize) -> usize {
        let mut seen = HashSet::from([v]);
        let mut stack = vec![v];
        while let Some(u) = stack.pop() {
            for s in self.plan.inputs(u).iter() {
                if let Source::Wire { node, .. } = s {
                    let w = *node as usize;
                    if self.is_static[w] && seen.insert(w) {
                        stack.push(w);
                    }
                }
            }
        }
        seen.len()
    }
}
