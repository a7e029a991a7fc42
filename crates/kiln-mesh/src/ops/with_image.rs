//! The mesh ops that read an image: `mesh.heightfield` and `mesh.attribute.sample`, each one
//! function with the `#[op]` attribute.

use super::ports::V2;
use crate::Mesh;
use crate::edit::from_image::sample_onto_points;
use crate::generate;
use glam::Vec2;
use kiln_core::op;
use kiln_core::op::{OpCall, OpError};
use kiln_core::registry::{Registry, RegistryError};
use kiln_image::image::Image;

/// A terrain: a grid with one point per pixel, raised by its luminance.
#[op("mesh.heightfield", out = "the mesh")]
pub fn heightfield(
    #[input("the heights (luminance 0 to 1)")] image: &Image,
    #[input("extent along X and Z", default = V2(Vec2::splat(10.0)))] size: V2,
    #[input("the rise of luminance 1", default = 1.0)] height: f64,
    call: &OpCall,
) -> Result<Mesh, OpError> {
    Ok(generate::heightfield(
        call.node,
        image,
        size.0,
        height as f32,
    )?)
}

/// Set point attribute `name` to the image's colour under each point's `uv` (a planar XZ fit without one).
#[op("mesh.attribute.sample", out = "the mesh with the attribute")]
pub fn sample(
    #[input("the mesh")] mesh: &Mesh,
    #[input("the image sampled")] image: &Image,
    #[param("the attribute's name (a vec3)", default = "Cd")] name: &str,
) -> Mesh {
    let mut m = mesh.clone();
    sample_onto_points(&mut m, image, name);
    m
}

/// Register the ops of this file.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(HeightfieldOp::new())?;
    reg.register(SampleOp::new())
}
