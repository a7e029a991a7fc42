//! The key pass: content keys of a request's cone, computed before any value so that a walk
//! can look a node up by key without visiting what is beneath it. Static nodes' keys come
//! from the plan for free; the others are computed once per request, bottom-up, with an
//! explicit stack.

use crate::context::EvalContext;
use crate::eval::Stats;
use crate::key::Key;
use crate::plan::{Class, Plan, Source};

/// Keys of the current request, by node.
#[derive(Default)]
pub(crate) struct KeyPass {
    generation: u32,
    stamp: Vec<u32>,
    keys: Vec<Key>,
    stack: Vec<(u32, bool)>,
    /// Changes every request: a volatile node's key is never the same twice.
    nonce: u64,
}

impl KeyPass {
    /// Room for the nodes of `plan`, nothing computed.
    pub(crate) fn reset(&mut self, plan: &Plan) {
        self.stamp = vec![0; plan.len()];
        self.keys = vec![Key::default(); plan.len()];
        self.generation = 0;
    }

    /// Start a request: every computed key is forgotten.
    pub(crate) fn begin(&mut self) {
        if self.generation == u32::MAX {
            self.stamp.fill(0);
            self.generation = 0;
        }
        self.generation += 1;
        self.nonce += 1;
    }

    /// The key of node `v` (computed by [`KeyPass::compute`] unless static).
    #[inline]
    pub(crate) fn key(&self, plan: &Plan, v: usize) -> Key {
        if plan.class(v) == Class::Static {
            plan.static_keys()[v]
        } else {
            self.keys[v]
        }
    }

    /// Compute the keys of the cone of `roots` (through every input, lazy ones too: a lazy
    /// node's key names all its inputs).
    pub(crate) fn compute(
        &mut self,
        plan: &Plan,
        roots: &[(usize, usize)],
        ctx: &EvalContext,
        stats: &mut Stats,
    ) {
        let g = self.generation;
        self.stack.clear();
        for &(n, _) in roots {
            if plan.class(n) != Class::Static && self.stamp[n] != g {
                self.stack.push((n as u32, false));
            }
        }
        while let Some((v, expanded)) = self.stack.pop() {
            let v = v as usize;
            if self.stamp[v] == g {
                continue;
            }
            if !expanded {
                self.stack.push((v as u32, true));
                for s in plan.inputs(v) {
                    if let Source::Wire { node, .. } = s {
                        let u = *node as usize;
                        if plan.class(u) != Class::Static && self.stamp[u] != g {
                            self.stack.push((*node, false));
                        }
                    }
                }
            } else {
                let sk = plan.static_keys();
                let keys = &self.keys;
                let k = plan.node_key(v, ctx, self.nonce, |s| {
                    if plan.class(s) == Class::Static {
                        sk[s]
                    } else {
                        keys[s]
                    }
                });
                self.keys[v] = k;
                self.stamp[v] = g;
                stats.keys_computed += 1;
            }
        }
    }
}
