//! Generators: meshes made from params alone (and, for the heightfield, an image). Each
//! checks the size it would make against the limits ([`crate::limits`]) before allocating.
//! Closed shapes wind their faces counter-clockwise seen from outside, so normals point out.

mod curve;
mod heightfield;
mod platonic;
mod revolve;
mod sphere;

pub use curve::{circle, curve_through, line};
pub use heightfield::heightfield;
pub use platonic::{cube, grid};
pub use revolve::{cone, cylinder, torus};
pub use sphere::{icosphere, uv_sphere};
