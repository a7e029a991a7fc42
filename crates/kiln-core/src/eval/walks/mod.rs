//! Walks: what an evaluator visits for a request, with explicit stacks (no recursion whose
//! depth grows with the graph).
//!
//! - [`pull_walk`]: from the requested outputs down to what they need, pulling lazy inputs
//!   as the op asks (the lazy evaluator; the streaming evaluator's control values);
//! - [`key_pass`]: the content keys of a request's cone, before any value, so a walk can
//!   take a node by key without visiting what lies beneath it;
//! - [`schedule`]: a requested cone compiled into blocks sorted by level, and
//!   [`schedule_walk`], which replays them over any [`Retention`](crate::eval::retention::Retention);
//! - [`keyed_walk`]: the schedule walk over a memo or a store (keys first, then only what no
//!   key finds); [`slot_walk`]: the schedule walk over value slots (eager and compiled).

pub(crate) mod key_pass;
pub(crate) mod keyed_walk;
pub(crate) mod pull_walk;
pub(crate) mod schedule;
pub(crate) mod schedule_walk;
pub(crate) mod slot_walk;
