//! The entity queues of a flow run: one per input port of every body node.

use super::compile::Compiled;
use crate::value::Value;
use std::collections::VecDeque;

/// Every input port's queue, by node then port.
pub(super) struct Queues {
    q: Vec<Vec<VecDeque<Value>>>,
    /// Entities queued at each node, all ports together.
    at_node: Vec<u64>,
}

impl Queues {
    pub(super) fn new(c: &Compiled) -> Queues {
        Queues {
            q: c.nodes
                .iter()
                .map(|n| n.inputs.iter().map(|_| VecDeque::new()).collect())
                .collect(),
            at_node: vec![0; c.nodes.len()],
        }
    }
    /// Queue `v` at input `port` of node `node` (shared, not copied: values are immutable).
    pub(super) fn push(&mut self, node: usize, port: usize, v: Value) {
        if let Some(q) = self.q.get_mut(node).and_then(|n| n.get_mut(port)) {
            q.push_back(v);
            self.at_node[node] += 1;
        }
    }
    /// Queue `vs` (in order) at `node.port`.
    pub(super) fn extend(
        &mut self,
        node: usize,
        port: usize,
        vs: impl ExactSizeIterator<Item = Value>,
    ) {
        if let Some(q) = self.q.get_mut(node).and_then(|n| n.get_mut(port)) {
            self.at_node[node] += vs.len() as u64;
            q.extend(vs);
        }
    }
    /// The `n` oldest entities at `node.port` (fewer if it holds fewer), oldest first.
    pub(super) fn take_n(&mut self, node: usize, port: usize, n: usize) -> Vec<Value> {
        match self.q.get_mut(node).and_then(|q| q.get_mut(port)) {
            Some(q) => {
                let n = n.min(q.len());
                self.at_node[node] -= n as u64;
                q.drain(..n).collect()
            }
            None => Vec::new(),
        }
    }
    /// Every entity at `node.port`, oldest first.
    pub(super) fn take_all(&mut self, node: usize, port: usize) -> Vec<Value> {
        match self.q.get_mut(node).and_then(|n| n.get_mut(port)) {
            Some(q) => {
                self.at_node[node] -= q.len() as u64;
                q.drain(..).collect()
            }
            None => Vec::new(),
        }
    }
    /// Entities at `node.port`.
    pub(super) fn len(&self, node: usize, port: usize) -> usize {
        self.q
            .get(node)
            .and_then(|n| n.get(port))
            .map_or(0, VecDeque::len)
    }
    /// Whether any input of `node` holds an entity.
    pub(super) fn holds(&self, node: usize) -> bool {
        self.at_node.get(node).is_some_and(|&n| n > 0)
    }
    /// Entities queued anywhere.
    pub(super) fn total(&self) -> u64 {
        self.at_node.iter().sum()
    }
}
