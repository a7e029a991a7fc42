//! A stream's state: reset to the start, snapshot and restore.

use super::StreamingEvaluator;
use super::config::StreamError;
use crate::graph::NodeId;

/// The state of a stream: each domain's position and each node's processor state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamSnapshot {
    ids: Vec<NodeId>,
    positions: Vec<u64>,
    states: Vec<Vec<u64>>,
}

impl StreamSnapshot {
    /// Samples of the outer domain produced when the snapshot was taken.
    pub fn position(&self) -> u64 {
        self.positions.first().copied().unwrap_or(0)
    }
}

impl StreamingEvaluator {
    /// Return every processor and position to the start.
    pub fn reset(&mut self) {
        for node in &mut self.nodes {
            node.proc.reset();
        }
        for d in &mut self.domains {
            d.position = 0;
        }
        self.clear_buffers();
        self.stopped = None;
        self.last_len = 0;
    }

    /// Zero every node's buffer (a panic may have left one half written).
    fn clear_buffers(&mut self) {
        self.data[..self.const_base].fill(0.0);
    }

    /// The stream's state, to [`restore`](Self::restore) later (in this stream or another
    /// built from the same graph).
    pub fn snapshot(&self) -> StreamSnapshot {
        StreamSnapshot {
            ids: self.nodes.iter().map(|n| n.id.clone()).collect(),
            positions: self.domains.iter().map(|d| d.position).collect(),
            states: self
                .nodes
                .iter()
                .map(|n| {
                    let mut w = vec![];
                    n.proc.save(&mut w);
                    w
                })
                .collect(),
        }
    }

    /// Go back (or forward) to a state taken with [`snapshot`](Self::snapshot).
    pub fn restore(&mut self, snap: &StreamSnapshot) -> Result<(), StreamError> {
        let ids: Vec<&NodeId> = self.nodes.iter().map(|n| &n.id).collect();
        if snap.ids.iter().collect::<Vec<_>>() != ids || snap.positions.len() != self.domains.len()
        {
            return Err(StreamError::Snapshot(
                "it was taken from a stream of other nodes".into(),
            ));
        }
        for (node, words) in self.nodes.iter_mut().zip(&snap.states) {
            node.proc.load(words).map_err(|m| StreamError::Node {
                node: node.id.clone(),
                op: node.op.clone(),
                port: None,
                message: format!("state does not load: {m}"),
            })?;
        }
        for (d, &p) in self.domains.iter_mut().zip(&snap.positions) {
            d.position = p;
        }
        self.clear_buffers();
        self.stopped = None;
        self.last_len = 0;
        Ok(())
    }
}
