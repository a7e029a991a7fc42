//! Control inputs that change while a stream runs: [`StreamingEvaluator::set_input`].
//!
//! A new graph input value is given to the control evaluation (the same pull engine, whose
//! memo serves every control value that does not depend on it), and each control value that
//! changed reaches the nodes reading it before the next block:
//! - at a signal input, it is a constant signal: its constant buffer is refilled (processors
//!   read constants from their input slices every block);
//! - at any other input, the node's processor is built again with the new value and given
//!   the old one's state ([`save`](crate::signal::SignalProc::save) then
//!   [`load`](crate::signal::SignalProc::load)).
//!
//! Every affected node's processor is built with its new values first, so a value its op
//! refuses (a non-finite frequency, say) is an error naming the input and the node, and the
//! stream goes on unchanged.

use super::StreamingEvaluator;
use super::config::StreamError;
use super::node::SNode;
use super::table::{ProcSite, build_processor, constant_signal};
use crate::signal::SignalProc;
use crate::value::Value;

/// What one node takes from a control change.
struct NodeChange {
    node: usize,
    controls: Vec<Value>,
    /// Constant buffers to refill, with their new value.
    refills: Vec<(u32, f64)>,
    /// The new processor, when a non-signal input changed.
    rebuilt: Option<Box<dyn SignalProc>>,
}

impl StreamingEvaluator {
    /// Give graph input `name` (one of the `EvalContext` inputs the stream reads, see
    /// [`with_context`](Self::with_context)) the value `value`, between blocks: the control
    /// values depending on it are evaluated again and take effect at the next block. Since
    /// processors treat samples one after another, a stream given the same changes at the
    /// same sample positions gives the same bits for every block size.
    ///
    /// An error names the input; the stream then goes on with the values it had.
    pub fn set_input(&mut self, name: &str, value: impl Into<Value>) -> Result<(), StreamError> {
        let value = value.into();
        let input_err = |reason: String| StreamError::Input {
            input: name.to_string(),
            reason,
        };
        let (old, changed) = self
            .controls
            .set_input(name, Some(value))
            .map_err(|e| input_err(e.to_string()))?;
        match self.plan_changes(&changed) {
            Ok(plan) => {
                self.apply(plan);
                Ok(())
            }
            Err(reason) => {
                // Back to the old value; the memo still holds its results.
                let _ = self.controls.set_input(name, old);
                Err(input_err(reason))
            }
        }
    }

    /// The changes the control values `changed` make to each node reading them, or why one
    /// does not take them.
    fn plan_changes(&self, changed: &[usize]) -> Result<Vec<NodeChange>, String> {
        let mut plan = vec![];
        for (u, node) in self.nodes.iter().enumerate() {
            let hit = |p: usize| node.control_of[p].is_some_and(|i| changed.contains(&i));
            if !(0..node.control_of.len()).any(hit) {
                continue;
            }
            let mut controls = node.controls.clone();
            let mut refills = vec![];
            let mut rebuild = false;
            for (p, slot) in controls.iter_mut().enumerate() {
                let Some(i) = node.control_of[p].filter(|_| hit(p)) else {
                    continue;
                };
                *slot = self.controls.value(i).clone();
                match node.const_of[p] {
                    Some(c) => refills.push((c, constant_signal(slot).map_err(|m| at(node, m))?)),
                    None => rebuild = true,
                }
            }
            let site = ProcSite {
                id: &node.id,
                op: &node.op,
                params: &node.params,
                controls: &controls,
                sample_rate: self.domains[node.domain as usize].rate as f64,
                seed: self.config.seed,
            };
            // Built even when only constants change: the op checks its new values.
            let mut proc = build_processor(&self.registry, &site).map_err(|e| e.to_string())?;
            let rebuilt = if rebuild {
                let mut words = vec![];
                node.proc.save(&mut words);
                proc.load(&words)
                    .map_err(|m| at(node, format!("its state does not carry over: {m}")))?;
                Some(proc)
            } else {
                None
            };
            plan.push(NodeChange {
                node: u,
                controls,
                refills,
                rebuilt,
            });
        }
        Ok(plan)
    }

    fn apply(&mut self, plan: Vec<NodeChange>) {
        let block = self.config.block;
        for change in plan {
            for (c, x) in change.refills {
                let at = self.const_base + c as usize * block;
                self.data[at..at + block].fill(x);
            }
            let node = &mut self.nodes[change.node];
            node.controls = change.controls;
            if let Some(p) = change.rebuilt {
                node.proc = p;
            }
        }
    }
}

/// A reason naming stream node `node`.
fn at(node: &SNode, message: String) -> String {
    format!("node `{}` ({}): {message}", node.id, node.op)
}
