//! # kiln-lower
//!
//! Kiln's compiled model, above the edit model of `kiln-doc`: a
//! [`Document`](kiln_doc::document::Document) (a graph whose nodes may call other graphs,
//! optionally written out by a `for`, `fold` or `step` scope, with animated values and
//! entity flow) is written out by [`lower`] into the flat
//! [`Graph`](kiln_core::graph::Graph) every evaluator of `kiln-core` runs, so the engine never
//! learns about structure. The scopes' ops live here too: the gathers and queues a plan
//! writes ([`lower::register`]), the flow executor of `"paradigm": "flow"` graphs ([`flow`]),
//! the fixed-step solver of `step` scopes ([`solver`]) and keyframed curves ([`anim`]).
//! [`session`] keeps a graph or a document cooked between edits.
//!
//! Values a plan must cook before it can write a scope out (a `for` over a node's list) are
//! cooked by an evaluator its caller hands it, so they share the caller's store.
#![deny(missing_docs)]

// Documents written out into flat graphs.
pub mod flat_file;
pub mod lower;

// What the plan writes scopes into.
pub mod anim;
pub mod flow;
pub mod solver;

// Documents and graphs kept cooked between edits.
pub mod session;

use kiln_core::registry::{Registry, RegistryError};

/// Register every op of the compiled model: the plan's gathers and queues, the flow op, the
/// step solver's op and the curve sampler.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    lower::register(reg)?;
    solver::register(reg)?;
    flow::register(reg)?;
    anim::register(reg)
}
