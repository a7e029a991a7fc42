//! # kiln-core
//!
//! The engine core of Kiln: values, ops, graphs as plain data, validation, content keys,
//! plans and evaluators, streaming, recurrence, the store. It knows nothing of domains
//! (images, audio, meshes are heavy values defined by node libraries), of file formats (see
//! `kiln-io`) or of documents: graphs with calls and scopes are written out into flat graphs
//! by `kiln-lower` before an evaluator sees them.
//!
//! ```
//! use kiln_core::prelude::*;
//!
//! struct Double(OpSpec);
//! impl Op for Double {
//!     fn spec(&self) -> &OpSpec { &self.0 }
//!     fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
//!         out[0] = Value::Float(call.float(0)? * 2.0);
//!         Ok(())
//!     }
//! }
//!
//! let mut reg = Registry::new();
//! reg.register(Double(
//!     OpSpec::new("double", "Twice its input.")
//!         .input(InputSpec::required("x", ValueType::Float, "value"))
//!         .output(OutputSpec::new("out", ValueType::Float, "2x")),
//! )).unwrap();
//! let mut g = Graph::new();
//! g.add_node("a", "double").unwrap();
//! g.set_const("a", "x", 21.0).unwrap();
//! let mut eval = LazyEvaluator::new(reg);
//! let out = eval.evaluate(&g, &Request::new(["a"]), &EvalContext::new()).unwrap();
//! assert_eq!(out.get("a"), Some(&Value::Float(42.0)));
//! ```
//!
//! Its modules, by what they are about:
//!
//! - **Values and ops**: [`value`], [`list_type`], [`record`], [`op`], [`codec`] (heavy
//!   values' binary forms), [`registry`], [`error`] (evaluation errors, diagnostics),
//!   [`id`] (node ids).
//! - **Graphs and validation**: [`graph`], [`analysis`] (topology, cycles), [`validate`]
//!   (every diagnostic, or the [`Checked`](validate::Checked) graph a plan is made from),
//!   [`key`] (content keys), [`plan`].
//! - **Evaluation**: [`context`] (clock, inputs, cancellation, progress), [`eval`] (the
//!   evaluators and the walks, retentions and node runner they are made of).
//! - **Streaming and recurrence**: [`signal`], [`stream`], [`recurrence`].
//! - **Storage**: [`cache`] (the shared content-addressed store and its policies),
//!   [`memory`] (the process-wide memory budget, large buffers allocated without aborting).
#![deny(missing_docs)]

// The code the `#[op]` attribute writes names `::kiln_core`, here too.
extern crate self as kiln_core;

/// Write an op as one plain Rust function: see [`kiln_macros`] and `docs/writing-ops.md`.
pub use kiln_macros::op;

// Values and ops
pub mod codec;
pub mod error;
pub mod id;
pub mod list_type;
pub mod op;
pub mod record;
pub mod registry;
pub mod value;

// Graphs and validation
pub mod analysis;
mod fields;
pub mod graph;
pub mod key;
pub mod plan;
pub mod validate;

// Evaluation
pub mod context;
pub mod eval;

// Streaming and recurrence
pub mod recurrence;
pub mod signal;
pub mod stream;

// Storage
pub mod cache;
pub mod memory;

/// The guide `docs/writing-ops.md`, included here so that `cargo test` compiles and runs its
/// examples as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/writing-ops.md")]
pub struct WritingOpsGuide;

/// The vocabulary of people who build graphs, write ops and run evaluators. Internals that
/// evaluators share (`Plan`, `Source`, `KeyHasher`, `Kernel`) are reached by their modules.
pub mod prelude {
    pub use crate::context::{
        CancelToken, EvalContext, Progress, ProgressReport, ProgressSink, progress_channel,
    };
    pub use crate::eval::{
        CancelMode, CompiledEvaluator, EagerEvaluator, ErrorPolicy, EvalError, Evaluator, Failure,
        IncrementalEvaluator, LazyEvaluator, Outputs, ParallelPolicy, Request, Stats, StreamConfig,
        StreamError, StreamingEvaluator,
    };
    pub use crate::graph::{Graph, GraphError, Node, NodeId, PortRef, Wire};
    pub use crate::key::Key;
    pub use crate::op::{
        InputSpec, Op, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Purity, Reads,
    };
    pub use crate::registry::{Registry, RegistryError};
    pub use crate::validate::{Diagnostic, DiagnosticKind, Diagnostics, validate};
    pub use crate::value::{Heavy, HeavyData, Value, ValueType};
}
