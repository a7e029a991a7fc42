//! Attribute ops: `mesh.attribute.create`, `mesh.attribute.randomize`,
//! `mesh.attribute.promote`.

use super::ports::{choice, class, mesh, put, seed, vec4};
use crate::edit::attrib::{TYPES, filled, promote, random};
use crate::value::MESH_TYPE;
use kiln_core::op::{FnOp, OpError};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

/// Register the ops of this file.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(
        FnOp::new(
            "mesh.attribute.create",
            "Set attribute `name` on every element of `class` to `value`.",
        )
        .required("mesh", MESH_TYPE, "the mesh")
        .input(
            "value",
            Value::Vec4([0.0; 4]),
            "the value (a number or vector; extra components ignored)",
        )
        .param("class", "point", "point, vertex, primitive or detail")
        .param("name", "Cd", "the attribute's name")
        .param("type", "vec3", "float, int, vec2, vec3 or vec4")
        .output_of("out", MESH_TYPE, "the mesh with the attribute")
        .run(|call, out| {
            let mut m = mesh(call, 0)?.clone();
            let c = class(call, 0)?;
            let ty = choice(call, 2, &TYPES)?;
            let v = filled(ty, m.count(c), vec4(call, 1)?)
                .ok_or_else(|| OpError::param(2, "unknown type"))?;
            m.attrs_mut(c).insert(call.param_str(1)?, v);
            put(out, m);
            Ok(())
        }),
    )?;
    reg.register(
        FnOp::new("mesh.attribute.randomize", "Set attribute `name` on `class` to seeded random values, each component between `min` and `max`.")
            .required("mesh", MESH_TYPE, "the mesh")
            .input("min", Value::Vec4([0.0; 4]), "the least value")
            .input("max", Value::Vec4([1.0; 4]), "the greatest value")
            .param("class", "point", "point, vertex, primitive or detail")
            .param("name", "pscale", "the attribute's name")
            .param("type", "float", "float, int, vec2, vec3 or vec4")
            .param("seed", 0i64, "the seed")
            .output_of("out", MESH_TYPE, "the mesh with the attribute")
            .run(|call, out| {
                let mut m = mesh(call, 0)?.clone();
                let c = class(call, 0)?;
                let ty = choice(call, 2, &TYPES)?;
                let v = random(ty, m.count(c), vec4(call, 1)?, vec4(call, 2)?, seed(call, 3)?)
                    .ok_or_else(|| OpError::param(2, "unknown type"))?;
                m.attrs_mut(c).insert(call.param_str(1)?, v);
                put(out, m);
                Ok(())
            }),
    )?;
    reg.register(
        FnOp::new("mesh.attribute.promote", "Move attribute `name` from class `from` to class `to`, averaging where several elements meet.")
            .required("mesh", MESH_TYPE, "the mesh")
            .param("name", "Cd", "the attribute's name")
            .param("from", "point", "point, vertex, primitive or detail")
            .param("to", "primitive", "point, vertex, primitive or detail")
            .output_of("out", MESH_TYPE, "the mesh with the attribute moved")
            .run(|call, out| {
                let mut m = mesh(call, 0)?.clone();
                let name = call.param_str(0)?;
                let (from, to) = (class(call, 1)?, class(call, 2)?);
                promote(&mut m, name, from, to).ok_or_else(|| {
                    OpError::param(0, format!("the mesh has no {} attribute `{name}`", from.name()))
                })?;
                put(out, m);
                Ok(())
            }),
    )?;
    Ok(())
}
