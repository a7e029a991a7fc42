//! The mesh ops that read an image: `mesh.heightfield` and `mesh.attribute.sample`.

use super::ports::{float, mesh, put, vec2};
use crate::edit::from_image::sample_onto_points;
use crate::generate;
use crate::value::MESH_TYPE;
use kiln_core::op::FnOp;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;
use kiln_image::image::{IMAGE_TYPE, Image};

/// Register the ops of this file.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(
        FnOp::new(
            "mesh.heightfield",
            "A terrain: a grid with one point per pixel, raised by its luminance.",
        )
        .required("image", IMAGE_TYPE, "the heights (luminance 0 to 1)")
        .input("size", Value::Vec2([10.0, 10.0]), "extent along X and Z")
        .input("height", 1.0, "the rise of luminance 1")
        .output_of("out", MESH_TYPE, "the mesh")
        .run(|call, out| {
            let img = call.heavy::<Image>(0, "an image")?;
            put(
                out,
                generate::heightfield(call.node, img, vec2(call, 1)?, float(call, 2)?)?,
            );
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new("mesh.attribute.sample", "Set point attribute `name` to the image's colour under each point's `uv` (a planar XZ fit without one).")
            .required("mesh", MESH_TYPE, "the mesh")
            .required("image", IMAGE_TYPE, "the image sampled")
            .param("name", "Cd", "the attribute's name (a vec3)")
            .output_of("out", MESH_TYPE, "the mesh with the attribute")
            .run(|call, out| {
                let mut m = mesh(call, 0)?.clone();
                let img = call.heavy::<Image>(1, "an image")?;
                sample_onto_points(&mut m, img, call.param_str(0)?);
                put(out, m);
                Ok(())
            }),
    )?;
    Ok(())
}
