//! Operations on meshes, as plain functions (the ops in [`crate::ops`] call them).

mod adjacency;
pub mod attrib;
pub mod boolean;
mod boolean_source;
pub mod by_attribute;
pub mod copy;
pub mod deform;
pub mod extrude;
pub mod from_image;
pub mod noise3;
pub mod normals;
pub mod packed;
pub mod poses;
pub mod restructure;
pub mod scatter;
pub mod segments;
pub mod simplify;
pub mod stencil;
pub mod subdivide;
pub mod topology;
pub mod uv;
