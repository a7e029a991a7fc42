//! The order a stream runs its nodes in: the strongly connected components of the cone in
//! topological order, a component with a loop cut at its delaying nodes.

use super::config::StreamError;
use super::node::{InSrc, SNode, Step};
use crate::analysis::Topology;

/// An error naming stream node `u`: it sits on a loop nothing delays.
fn undelayed_loop(nodes: &[SNode], u: u32) -> StreamError {
    let g = &nodes[u as usize];
    StreamError::Node {
        node: g.id.clone(),
        op: g.op.clone(),
        port: None,
        message: "is on a loop without a delaying node".into(),
    }
}

/// The steps of each of `n_domains` clock domains, for blocks of `block` samples.
pub(super) fn steps(
    nodes: &[SNode],
    n_domains: usize,
    block: usize,
) -> Result<Vec<Vec<Step>>, StreamError> {
    let m = nodes.len();
    let mut edges = vec![];
    for (u, node) in nodes.iter().enumerate() {
        for s in &node.inputs {
            if let InSrc::Node(s) = *s {
                edges.push((s, u as u32));
            }
        }
    }
    let topo = Topology::from_edges(m, &edges);
    let sccs = topo.sccs();
    let mut comp = vec![0u32; m];
    for (c, members) in sccs.iter().enumerate() {
        for &u in members {
            comp[u as usize] = c as u32;
        }
    }
    let cedges: Vec<(u32, u32)> = edges
        .iter()
        .filter(|(a, b)| comp[*a as usize] != comp[*b as usize])
        .map(|(a, b)| (comp[*a as usize], comp[*b as usize]))
        .collect();
    let corder = Topology::from_edges(sccs.len(), &cedges)
        .topo_order()
        .map_err(|_| StreamError::Config("internal: components do not order".into()))?;
    let mut steps: Vec<Vec<Step>> = (0..n_domains).map(|_| vec![]).collect();
    for c in corder {
        let members = &sccs[c as usize];
        let cyclic = members.len() > 1 || {
            let u = members[0];
            nodes[u as usize]
                .inputs
                .iter()
                .any(|s| matches!(s, InSrc::Node(x) if *x == u))
        };
        let d = nodes[members[0] as usize].domain as usize;
        let step = if cyclic {
            loop_step(nodes, members, block)?
        } else {
            Step::Single(members[0])
        };
        steps[d].push(step);
    }
    Ok(steps)
}

/// The step of a component with a loop: its delaying nodes, and the rest in order with the
/// delaying nodes' inputs cut.
fn loop_step(nodes: &[SNode], members: &[u32], block: usize) -> Result<Step, StreamError> {
    let (delays, rest): (Vec<u32>, Vec<u32>) = members
        .iter()
        .copied()
        .partition(|&u| nodes[u as usize].latency > 0);
    if delays.is_empty() {
        return Err(undelayed_loop(nodes, members[0]));
    }
    let mut pos = vec![u32::MAX; nodes.len()];
    for (i, &u) in rest.iter().enumerate() {
        pos[u as usize] = i as u32;
    }
    let mut redges = vec![];
    for (i, &u) in rest.iter().enumerate() {
        for s in &nodes[u as usize].inputs {
            if let InSrc::Node(s) = *s
                && pos[s as usize] != u32::MAX
            {
                redges.push((pos[s as usize], i as u32));
            }
        }
    }
    let rorder = Topology::from_edges(rest.len(), &redges)
        .topo_order()
        .map_err(|_| undelayed_loop(nodes, rest[0]))?;
    let loop_latency = delays
        .iter()
        .map(|&u| nodes[u as usize].latency)
        .min()
        .unwrap_or(1);
    Ok(Step::Loop {
        delays,
        nodes: rorder.iter().map(|&i| rest[i as usize]).collect(),
        per_sample: loop_latency < block,
    })
}
