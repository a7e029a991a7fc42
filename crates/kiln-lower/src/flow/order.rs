//! The order of a flow run: when a node is ready, when a collective input is complete,
//! which node runs when nothing visited is ready, and the order children are visited in.

use super::compile::{Compiled, Dest};
use super::queues::Queues;

/// Whether node `m` can still send: a source not yet run, or a node with entities waiting.
fn live(c: &Compiled, q: &Queues, fired: &[bool], m: usize) -> bool {
    (c.nodes[m].source && !fired[m]) || q.holds(m)
}

/// Whether collective input `p` of node `v` has all it will get: no other node that can
/// reach it can still send.
pub(super) fn complete(c: &Compiled, q: &Queues, fired: &[bool], v: usize, p: usize) -> bool {
    c.nodes[v].inputs[p]
        .upstream
        .iter()
        .all(|&u| u == v || !live(c, q, fired, u))
}

/// Whether node `v` is ready to run: a source not yet run; otherwise every wired single
/// input holds an entity, every wired collective input is complete, and some wired input
/// holds an entity.
pub(super) fn ready(c: &Compiled, q: &Queues, fired: &[bool], v: usize) -> bool {
    let node = &c.nodes[v];
    if node.source {
        return !fired[v];
    }
    let mut any = false;
    for (p, i) in node.inputs.iter().enumerate() {
        if !i.wired {
            continue;
        }
        let held = q.len(v, p) > 0;
        if i.collective {
            if !complete(c, q, fired, v, p) {
                return false;
            }
        } else if !held {
            return false;
        }
        any |= held;
    }
    any
}

/// The first ready node in declaration order.
pub(super) fn first_ready(c: &Compiled, q: &Queues, fired: &[bool]) -> Option<usize> {
    (0..c.nodes.len()).find(|&v| ready(c, q, fired, v))
}

/// The first node in declaration order with entities in a collective input (run with what
/// it has when nothing else can run).
pub(super) fn first_waiting(c: &Compiled, q: &Queues) -> Option<usize> {
    (0..c.nodes.len()).find(|&v| {
        c.nodes[v]
            .inputs
            .iter()
            .enumerate()
            .any(|(p, i)| i.collective && q.len(v, p) > 0)
    })
}

/// Push onto `stack` the nodes a step sent entities to, so that they are visited in the
/// order `sent` lists them (output-port order, then declaration order): the first is on top.
pub(super) fn push_children(stack: &mut Vec<usize>, sent: &[Dest]) {
    let mut seen: Vec<usize> = Vec::with_capacity(sent.len());
    for d in sent {
        if !seen.contains(&d.node) {
            seen.push(d.node);
        }
    }
    stack.extend(seen.into_iter().rev());
}
