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
pub const INPUT_MESH_OP: &str = InputMeshOp::ID;

/// A named graph input of a mesh (`kiln run --set NAME=@file.obj` reads one from a file).
#[kiln_core::op(
    "input.mesh",
    purity = "user-input",
    role = kiln_core::op::Role::GraphInput,
    hash_context = hash_mesh_input,
    out_type = crate::MESH_TYPE,
    out = "the input's value"
)]
fn input_mesh(
    #[param("the input's name")] name: &str,
    ctx: &kiln_core::context::EvalContext,
) -> Result<kiln_core::value::Value, kiln_core::op::OpError> {
    kiln_std::graph_io::input_value(crate::MESH_TYPE, name, None, ctx)
}

fn hash_mesh_input(
    params: &[kiln_core::value::Value],
    ctx: &kiln_core::context::EvalContext,
    h: &mut kiln_core::key::KeyHasher,
) {
    kiln_std::graph_io::hash_input(crate::MESH_TYPE, false, params, ctx, h)
}

/// Register every mesh op.
pub(crate) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    generators::register(reg)?;
    modify::register(reg)?;
    build::register(reg)?;
    attributes::register(reg)?;
    lists::register(reg)?;
    with_image::register(reg)?;
    reg.register(InputMeshOp::new())?;
    Ok(())
}
