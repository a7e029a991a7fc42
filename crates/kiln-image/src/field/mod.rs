//! Fields: per-pixel computations kept as a tape of steps ([`Tape`]) until an image is made
//! ([`render`]). A per-pixel op appends its steps to the tape of its inputs, so a chain of
//! such ops (fused by [`crate::fuse`] into one `image.fused` node, or written as one
//! `image.expr` formula) costs one pass over the pixels and one image.
//!
//! Registers are `f64`; an op that computed in `f32` before fields existed rounds after each
//! operation ([`Unary::Round32`]), so its pixels are bit for bit what they were.

pub mod eval;
pub mod plan;
pub mod render;
pub mod tape;

pub use render::render;
pub use tape::{Binary, Coord, Noise2, Px, Reg, Step, Tape, Ternary, Unary};
