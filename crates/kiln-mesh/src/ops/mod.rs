//! The mesh ops, registered by [`crate::register`].

mod attributes;
mod build;
mod generators;
mod lists;
mod modify;
pub(crate) mod ports;
mod with_image;

use kiln_core::registry::{Registry, RegistryError};

/// The op of mesh graph inputs (a graph file's input of type `mesh`).
pub const INPUT_MESH_OP: &str = "input.mesh";

/// Register every mesh op.
pub(crate) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    generators::register(reg)?;
    modify::register(reg)?;
    build::register(reg)?;
    attributes::register(reg)?;
    lists::register(reg)?;
    with_image::register(reg)?;
    reg.register(kiln_std::graph_io::GraphInput::without_default(
        INPUT_MESH_OP,
        "A named graph input of a mesh (`kiln run --set NAME=@file.obj` reads one from a file).",
        crate::MESH_TYPE,
    ))?;
    Ok(())
}
