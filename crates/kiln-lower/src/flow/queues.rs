//! The entity queues of a flow run: one per input port of every body node. A queue holds
//! runs of entities as they arrived: values, or plain floats when a float kernel made them
//! (a run of floats is the same entities as the `Value::Float`s, kept unboxed so the next
//! kernel reads them as a column); a step takes them as [`Entities`].

use super::compile::Compiled;
use super::entities::Entities;
use kiln_core::value::Value;
use std::collections::VecDeque;

/// A run of entities in a queue.
enum Chunk {
    Values(VecDeque<Value>),
    Floats(VecDeque<f64>),
}

impl Chunk {
    fn len(&self) -> usize {
        match self {
            Chunk::Values(v) => v.len(),
            Chunk::Floats(f) => f.len(),
        }
    }
}

/// One input port's queue.
#[derive(Default)]
struct Queue {
    chunks: VecDeque<Chunk>,
    len: usize,
}

impl Queue {
    fn push(&mut self, v: Value) {
        self.len += 1;
        if let Some(Chunk::Values(last)) = self.chunks.back_mut() {
            last.push_back(v);
        } else {
            self.chunks.push_back(Chunk::Values(VecDeque::from([v])));
        }
    }
    fn extend_floats(&mut self, xs: Vec<f64>) {
        self.len += xs.len();
        if let Some(Chunk::Floats(last)) = self.chunks.back_mut() {
            last.extend(xs);
        } else if !xs.is_empty() {
            self.chunks.push_back(Chunk::Floats(VecDeque::from(xs)));
        }
    }
    /// The `n` oldest entities (at most `len`).
    fn take(&mut self, n: usize) -> Entities {
        let n = n.min(self.len);
        self.len -= n;
        // All from one run of floats: a column as it is.
        if let Some(Chunk::Floats(f)) = self.chunks.front_mut()
            && f.len() >= n
        {
            let col = if f.len() == n {
                let Some(Chunk::Floats(f)) = self.chunks.pop_front() else {
                    unreachable!("the front chunk is a run of floats")
                };
                Vec::from(f)
            } else {
                f.drain(..n).collect()
            };
            return Entities::Floats(col);
        }
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let want = n - out.len();
            let Some(front) = self.chunks.front_mut() else {
                break;
            };
            let all = front.len() <= want;
            match front {
                Chunk::Values(v) if all => out.extend(v.drain(..)),
                Chunk::Values(v) => out.extend(v.drain(..want)),
                Chunk::Floats(f) if all => {
                    let (a, b) = f.as_slices();
                    out.extend(a.iter().chain(b).map(|&x| Value::Float(x)));
                    f.clear();
                }
                Chunk::Floats(f) => out.extend(f.drain(..want).map(Value::Float)),
            }
            if all {
                self.chunks.pop_front();
            }
        }
        Entities::Values(out)
    }
}

/// Every input port's queue, by node then port.
pub(super) struct Queues {
    q: Vec<Vec<Queue>>,
    /// Entities queued at each node, all ports together.
    at_node: Vec<u64>,
}

impl Queues {
    pub(super) fn new(c: &Compiled) -> Queues {
        Queues {
            q: c.nodes
                .iter()
                .map(|n| n.inputs.iter().map(|_| Queue::default()).collect())
                .collect(),
            at_node: vec![0; c.nodes.len()],
        }
    }
    /// Queue `v` at input `port` of node `node` (shared, not copied: values are immutable).
    pub(super) fn push(&mut self, node: usize, port: usize, v: Value) {
        if let Some(q) = self.q.get_mut(node).and_then(|n| n.get_mut(port)) {
            q.push(v);
            self.at_node[node] += 1;
        }
    }
    /// Queue float entities `xs` (in order) at `node.port`.
    pub(super) fn extend_floats(&mut self, node: usize, port: usize, xs: Vec<f64>) {
        if let Some(q) = self.q.get_mut(node).and_then(|n| n.get_mut(port)) {
            self.at_node[node] += xs.len() as u64;
            q.extend_floats(xs);
        }
    }
    /// The `n` oldest entities at `node.port` (fewer if it holds fewer), oldest first.
    pub(super) fn take_n(&mut self, node: usize, port: usize, n: usize) -> Entities {
        match self.q.get_mut(node).and_then(|q| q.get_mut(port)) {
            Some(q) => {
                let col = q.take(n);
                self.at_node[node] -= col.len() as u64;
                col
            }
            None => Entities::Values(Vec::new()),
        }
    }
    /// Every entity at `node.port`, oldest first.
    pub(super) fn take_all(&mut self, node: usize, port: usize) -> Entities {
        self.take_n(node, port, usize::MAX)
    }
    /// Entities at `node.port`.
    pub(super) fn len(&self, node: usize, port: usize) -> usize {
        self.q
            .get(node)
            .and_then(|n| n.get(port))
            .map_or(0, |q| q.len)
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

/// The floats of `items` when every one is a float (one pass, no boxing).
pub(super) fn floats_of(items: &[Value]) -> Option<Vec<f64>> {
    let mut xs = Vec::with_capacity(items.len());
    for item in items {
        let Value::Float(x) = item else {
            return None;
        };
        xs.push(*x);
    }
    Some(xs)
}
