//! The per-sample path for block size 1: each clock domain's steps flattened, when the stream
//! is built, into one list of node calls with their input and output offsets in the arena
//! precomputed and checked, run in a tight loop. It does what `run` does for a block of one
//! sample (a loop's delaying nodes emit, the loop's other nodes process, the delaying nodes
//! absorb), without the per-block bookkeeping: no step matching, no shared step list to
//! clone, no bounds check per node. The processors see the same calls, so the bits are those
//! of every other block size.

use super::StreamingEvaluator;
use super::node::{Domain, SNode, Step};

/// One call of the flattened program.
#[derive(Clone, Copy)]
pub(super) enum Call {
    /// `process` node `node`.
    Process(u32),
    /// `emit` node `node` (a loop's delaying node).
    Emit(u32),
    /// `absorb` into node `node`.
    Absorb(u32),
}

/// A domain's program: its calls in order (each node's offsets are in its `SNode`).
#[derive(Default)]
pub(super) struct Program {
    calls: Vec<Call>,
}

/// The program of each domain, or `None` when an offset falls outside an arena of `total`
/// samples (the stream then runs the general path).
pub(super) fn programs(domains: &[Domain], nodes: &[SNode], total: usize) -> Option<Vec<Program>> {
    let in_arena = |n: &SNode| n.out_off < total && n.in_offs.iter().all(|&o| o < total);
    if !nodes.iter().all(in_arena) {
        return None;
    }
    let programs = domains
        .iter()
        .map(|d| {
            let mut calls = vec![];
            for step in d.steps.iter() {
                match step {
                    Step::Single(u) => calls.push(Call::Process(*u)),
                    Step::Loop { delays, nodes, .. } => {
                        calls.extend(delays.iter().map(|&u| Call::Emit(u)));
                        calls.extend(nodes.iter().map(|&u| Call::Process(u)));
                        calls.extend(delays.iter().map(|&u| Call::Absorb(u)));
                    }
                }
            }
            Program { calls }
        })
        .collect();
    Some(programs)
}

/// Call `f` with one-sample slices of the arena at each of `offs`.
///
/// # Safety
/// Every offset must be within the arena at `base`, and nothing may write those samples
/// while `f` runs.
#[inline(always)]
unsafe fn with_samples<R>(offs: &[usize], base: *const f64, f: impl FnOnce(&[&[f64]]) -> R) -> R {
    // SAFETY: the caller's promise.
    let one = |o: usize| unsafe { std::slice::from_raw_parts(base.add(o), 1) };
    match *offs {
        [] => f(&[]),
        [a] => f(&[one(a)]),
        [a, b] => f(&[one(a), one(b)]),
        _ if offs.len() <= 16 => {
            let mut arr: [&[f64]; 16] = [&[]; 16];
            for (slot, &o) in arr.iter_mut().zip(offs) {
                *slot = one(o);
            }
            f(&arr[..offs.len()])
        }
        _ => {
            let v: Vec<&[f64]> = offs.iter().map(|&o| one(o)).collect();
            f(&v)
        }
    }
}

impl StreamingEvaluator {
    /// Run one sample of domain `d` through its program.
    #[inline]
    pub(super) fn run_fused(&mut self, d: usize) {
        let Some(programs) = &self.fused else {
            return;
        };
        let base = self.data.as_mut_ptr();
        for &call in &programs[d].calls {
            match call {
                Call::Process(u) => {
                    self.current = u;
                    let node = &mut self.nodes[u as usize];
                    // SAFETY: every offset was checked to be in the arena when the program
                    // was built; a node's output is never one of its inputs (see
                    // `run_node`), so the mutable sample aliases none of the shared ones.
                    unsafe {
                        let out = std::slice::from_raw_parts_mut(base.add(node.out_off), 1);
                        with_samples(&node.in_offs, base, |ins| node.proc.process(ins, out));
                    }
                }
                Call::Emit(u) => {
                    self.current = u;
                    let node = &mut self.nodes[u as usize];
                    // SAFETY: checked offset, and no other borrow of the arena is live.
                    let out = unsafe { std::slice::from_raw_parts_mut(base.add(node.out_off), 1) };
                    node.proc.emit(out);
                }
                Call::Absorb(u) => {
                    self.current = u;
                    let node = &mut self.nodes[u as usize];
                    // SAFETY: checked offsets; nothing writes the arena during the call.
                    unsafe { with_samples(&node.in_offs, base, |ins| node.proc.absorb(ins)) };
                }
            }
        }
    }
}
