//! The stream's tables: its nodes with their processors, the steps each clock domain runs,
//! and the domains.

use crate::graph::NodeId;
use crate::signal::SignalProc;
use crate::value::Value;
use std::sync::Arc;

/// Where a signal input's samples come from.
#[derive(Clone, Copy, Debug)]
pub(super) enum InSrc {
    /// The output buffer of a stream node.
    Node(u32),
    /// A constant buffer.
    Const(u32),
}

/// One node of the stream.
pub(super) struct SNode {
    pub(super) id: NodeId,
    pub(super) op: String,
    /// The node's params (defaults filled in), to rebuild its processor.
    pub(super) params: Vec<Value>,
    pub(super) proc: Box<dyn SignalProc>,
    /// What the processor was built with: one value per input port (see
    /// [`SignalCall::controls`](crate::signal::SignalCall::controls)).
    pub(super) controls: Vec<Value>,
    /// For each input port fed by a control value, that value's index.
    pub(super) control_of: Vec<Option<usize>>,
    /// For each input port, its constant buffer when it is a signal port given a number.
    pub(super) const_of: Vec<Option<u32>>,
    /// One per signal input port, in port order.
    pub(super) inputs: Vec<InSrc>,
    /// Where those inputs' samples start in the arena.
    pub(super) in_offs: Vec<usize>,
    /// Where this node's output starts in the arena.
    pub(super) out_off: usize,
    pub(super) latency: usize,
    pub(super) domain: u32,
}

/// What a clock domain runs for a block, in order.
pub(super) enum Step {
    /// One node over the whole run.
    Single(u32),
    /// A loop: the delaying nodes emit, the others run in order, the delaying nodes absorb.
    Loop {
        delays: Vec<u32>,
        nodes: Vec<u32>,
        per_sample: bool,
    },
}

/// A clock domain: the graph's outer rate, or the rate upstream of a `resample` node.
pub(super) struct Domain {
    pub(super) rate: u64,
    /// Shared so a run can walk them while borrowing the evaluator mutably.
    pub(super) steps: Arc<[Step]>,
    /// Samples produced so far.
    pub(super) position: u64,
    /// The resample node this domain feeds (in its parent domain) and the source it reads.
    pub(super) feeds: Option<(u32, InSrc)>,
}
