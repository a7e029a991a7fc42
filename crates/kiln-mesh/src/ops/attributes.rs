//! Attribute ops: `mesh.attribute.create`, `mesh.attribute.randomize`,
//! `mesh.attribute.promote`.

use super::ports::{choice, class, mesh, put, seed, vec4};
use super::spec_op::SpecOp;
use crate::edit::attrib::{TYPES, filled, promote, random};
use crate::value::MESH_TYPE;
use glam::Vec4;
use kiln_core::op::{FnOp, InputSpec, OpError, OpSpec, OutputSpec, ParamSpec};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

fn text(name: &'static str, default: &str, doc: &'static str) -> ParamSpec {
    ParamSpec::new(name, ValueType::String, Value::str(default), doc)
}

fn any(name: &'static str, default: [f64; 4], doc: &'static str) -> InputSpec {
    InputSpec::optional(name, ValueType::Any, Value::Vec4(default), doc)
}

const CLASSES: &str = "point, vertex, primitive or detail";
const TYPE_DOC: &str = "float, int, vec2, vec3 or vec4";

/// Register the ops of this file.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let mesh_in = || InputSpec::required("mesh", MESH_TYPE, "the mesh");
    let out_spec = || OutputSpec::new("out", MESH_TYPE, "the mesh with the attribute");
    reg.register(SpecOp {
        spec: OpSpec::new(
            "mesh.attribute.create",
            "Set attribute `name` on every element of `class` to `value`.",
        )
        .input(mesh_in())
        .input(any(
            "value",
            [0.0; 4],
            "the value (a number, vector or colour)",
        ))
        .param(text("class", "point", CLASSES))
        .param(text("name", "Cd", "the attribute's name"))
        .param(text("type", "vec3", TYPE_DOC))
        .output(out_spec()),
        body: |call, out| {
            let mut m = mesh(call, 0)?.clone();
            let c = class(call, 0)?;
            let ty = choice(call, 2, &TYPES)?;
            let v = filled(ty, m.count(c), vec4(call, 1)?)
                .ok_or_else(|| OpError::param(2, "unknown type"))?;
            m.attrs_mut(c).insert(call.param_str(1)?, v);
            put(out, m);
            Ok(())
        },
    })?;
    reg.register(SpecOp {
        spec: OpSpec::new(
            "mesh.attribute.randomize",
            "Set attribute `name` on `class` to seeded random values, each component between \
             `min` and `max` (a number stands for every component).",
        )
        .input(mesh_in())
        .input(any("min", [0.0; 4], "the least value"))
        .input(any("max", [1.0; 4], "the greatest value"))
        .param(text("class", "point", CLASSES))
        .param(text("name", "pscale", "the attribute's name"))
        .param(text("type", "float", TYPE_DOC))
        .param(ParamSpec::new(
            "seed",
            ValueType::Int,
            Value::Int(0),
            "the seed",
        ))
        .output(out_spec()),
        body: |call, out| {
            let mut m = mesh(call, 0)?.clone();
            let c = class(call, 0)?;
            let ty = choice(call, 2, &TYPES)?;
            let spread = |i| -> Result<Vec4, OpError> {
                match call.inputs.get(i).and_then(Value::as_f64) {
                    Some(x) => Ok(Vec4::splat(x as f32)),
                    None => vec4(call, i),
                }
            };
            let v = random(ty, m.count(c), spread(1)?, spread(2)?, seed(call, 3)?)
                .ok_or_else(|| OpError::param(2, "unknown type"))?;
            m.attrs_mut(c).insert(call.param_str(1)?, v);
            put(out, m);
            Ok(())
        },
    })?;
    reg.register(
        FnOp::new(
            "mesh.attribute.promote",
            "Move attribute `name` from class `from` to class `to`, averaging where several \
             elements meet.",
        )
        .required("mesh", MESH_TYPE, "the mesh")
        .param("name", "Cd", "the attribute's name")
        .param("from", "point", CLASSES)
        .param("to", "primitive", CLASSES)
        .output_of("out", MESH_TYPE, "the mesh with the attribute moved")
        .run(|call, out| {
            let mut m = mesh(call, 0)?.clone();
            let name = call.param_str(0)?;
            let (from, to) = (class(call, 1)?, class(call, 2)?);
            promote(&mut m, name, from, to).ok_or_else(|| {
                OpError::param(
                    0,
                    format!("the mesh has no {} attribute `{name}`", from.name()),
                )
            })?;
            put(out, m);
            Ok(())
        }),
    )?;
    Ok(())
}
