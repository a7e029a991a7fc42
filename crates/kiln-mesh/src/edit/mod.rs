//! Operations on meshes, as plain functions (the ops in [`crate::ops`] call them).

mod adjacency;
pub mod stencil;
pub mod subdivide;
pub mod topology;
