//! The streaming evaluator: audio-rate signals processed in blocks.
//!
//! It runs the signal ops (ops with a [`ValueType::Signal`](crate::value::ValueType::Signal)
//! output) upstream of the requested outputs, one block of samples at a time. Each node's
//! [`SignalProc`](crate::signal::SignalProc) — oscillator phase, filter memory, delay line —
//! is built and owned here, so a stream can be reset, saved and restored without touching the
//! graph, and two streams of one graph never share state.
//!
//! - **Control values** (`controls`). Ordinary nodes feeding signal ops (a frequency
//!   computed by maths nodes, say) are evaluated by the shared pull walk of the lazy
//!   evaluator on a plan of the control sub-graph, when the stream is built; a number arriving
//!   at a signal port is a constant signal.
//! - **Order** (`order`). Nodes run in the topological order of their strongly connected
//!   components. A component with a loop (legal only through a
//!   [feedback input](crate::op::InputSpec::feedback)) runs block by block when its shortest
//!   delay is at least the block size: the delaying nodes
//!   [`emit`](crate::signal::SignalProc::emit) a block from their state, the others process
//!   it, then the delaying nodes [`absorb`](crate::signal::SignalProc::absorb) their inputs. A
//!   shorter loop runs sample by sample, inside that component only; the rest of the graph
//!   stays in blocks.
//! - **Clock domains** (`run`). Upstream of a `resample` node, nodes run at the rate it
//!   names. Before each block, every such domain is run (in chunks of at most one block) as
//!   far as its resampler needs, deepest first, without recursion.
//! - **Changing inputs** (`live`). A graph input may change between blocks
//!   ([`StreamingEvaluator::set_input`]); the control values depending on it are evaluated
//!   again and take effect at the next block.
//! - **Block-size invariance.** Because every processor treats samples one after another, the
//!   output is the same, bit for bit, for every block size.
//! - **Failures.** An op's panic is caught and reported as that node's error; the stream is
//!   then stopped until [`StreamingEvaluator::reset`].
//!
//! The parts, one file each: `config` (configuration and errors), `build` (outputs, the
//! signal cone, the arena), `table` (nodes, domains, processors), `order`, `run`,
//! `snapshot`, `live` (changing inputs), `fused` (block size 1), `inputs` (slicing the arena).

mod build;
mod config;
mod controls;
mod fused;
mod inputs;
mod live;
mod node;
mod order;
mod run;
mod snapshot;
mod table;

pub use config::{StreamConfig, StreamError};
pub use snapshot::StreamSnapshot;

use crate::registry::Registry;
use controls::Controls;
use node::{Domain, SNode};

/// Runs audio-rate signal graphs in blocks (see the module docs).
pub struct StreamingEvaluator {
    config: StreamConfig,
    /// The registry the processors were built from (to rebuild one when a control changes).
    registry: Registry,
    /// The control values and the engine that evaluates them.
    controls: Controls,
    nodes: Vec<SNode>,
    /// One block per node, then one per constant signal.
    data: Vec<f64>,
    /// Where the constant blocks start in `data`.
    const_base: usize,
    domains: Vec<Domain>,
    outputs: Vec<u32>,
    /// The node running now, for panic reports.
    current: u32,
    stopped: Option<crate::graph::NodeId>,
    /// Samples in the outputs' buffers from the last block.
    last_len: usize,
    targets: Vec<u64>,
    /// The flattened per-sample programs of block size 1 (see `fused`).
    fused: Option<Vec<fused::Program>>,
}

impl std::fmt::Debug for StreamingEvaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamingEvaluator")
            .field("config", &self.config)
            .field("nodes", &self.nodes.len())
            .field("domains", &self.domains.len())
            .field("position", &self.position())
            .finish()
    }
}

impl StreamingEvaluator {
    /// The configuration.
    pub fn config(&self) -> StreamConfig {
        self.config
    }

    /// Samples of the outer domain produced so far.
    pub fn position(&self) -> u64 {
        self.domains[0].position
    }

    /// Number of nodes the stream runs.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of clock domains (1 without `resample` nodes).
    pub fn domain_count(&self) -> usize {
        self.domains.len()
    }

    /// What evaluating the control values did, summed over the stream's life.
    pub fn control_stats(&self) -> crate::eval::Stats {
        self.controls.stats()
    }

    /// The samples of output `i` from the last block (empty before the first).
    pub fn output(&self, i: usize) -> &[f64] {
        match self.outputs.get(i) {
            Some(&u) => {
                let off = self.nodes[u as usize].out_off;
                &self.data[off..off + self.last_len]
            }
            None => &[],
        }
    }
}
