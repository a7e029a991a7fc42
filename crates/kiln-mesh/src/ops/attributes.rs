//! Attribute ops: `mesh.attribute.create`, `mesh.attribute.randomize`,
//! `mesh.attribute.promote`. Each is one function with the `#[op]` attribute.

use super::ports::{CLASSES, class_of, vec4_of};
use crate::Mesh;
use crate::edit::attrib::{TYPES, filled, promote, random};
use glam::Vec4;
use kiln_core::op;
use kiln_core::op::{OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::Value;

/// Set attribute `name` on every element of `class` to `value`.
#[op("mesh.attribute.create", out = "the mesh with the attribute")]
pub fn create(
    #[input("the mesh")] mesh: &Mesh,
    #[input("the value (a number, vector or colour)", default = Value::Vec4([0.0; 4]))]
    value: &Value,
    #[param("point, vertex, primitive or detail", default = "point", rule = Rule::OneOf(&CLASSES))]
    class: &str,
    #[param("the attribute's name", default = "Cd")] name: &str,
    #[param("float, int, vec2, vec3 or vec4", default = "vec3", rule = Rule::OneOf(&TYPES))]
    r#type: &str,
) -> Result<Mesh, OpError> {
    let mut m = mesh.clone();
    let c = class_of(class);
    let v = filled(r#type, m.count(c), vec4_of(1, value)?)
        .ok_or_else(|| OpError::param(2, "unknown type"))?;
    m.attrs_mut(c).insert(name, v);
    Ok(m)
}

/// Set attribute `name` on `class` to seeded random values, each component between `min` and `max` (a number stands for every component).
#[op("mesh.attribute.randomize", out = "the mesh with the attribute")]
pub fn randomize(
    #[input("the mesh")] mesh: &Mesh,
    #[input("the least value", default = Value::Vec4([0.0; 4]))] min: &Value,
    #[input("the greatest value", default = Value::Vec4([1.0; 4]))] max: &Value,
    #[param("point, vertex, primitive or detail", default = "point", rule = Rule::OneOf(&CLASSES))]
    class: &str,
    #[param("the attribute's name", default = "pscale")] name: &str,
    #[param("float, int, vec2, vec3 or vec4", default = "float", rule = Rule::OneOf(&TYPES))]
    r#type: &str,
    #[param("the seed", default = 0)] seed: i64,
) -> Result<Mesh, OpError> {
    let mut m = mesh.clone();
    let c = class_of(class);
    let spread = |i, v: &Value| -> Result<Vec4, OpError> {
        match v.as_f64() {
            Some(x) => Ok(Vec4::splat(x as f32)),
            None => vec4_of(i, v),
        }
    };
    let v = random(
        r#type,
        m.count(c),
        spread(1, min)?,
        spread(2, max)?,
        seed as u64,
    )
    .ok_or_else(|| OpError::param(2, "unknown type"))?;
    m.attrs_mut(c).insert(name, v);
    Ok(m)
}

/// Move attribute `name` from class `from` to class `to`, averaging where several elements meet.
#[op("mesh.attribute.promote", out = "the mesh with the attribute moved")]
pub fn promote_attribute(
    #[input("the mesh")] mesh: &Mesh,
    #[param("the attribute's name", default = "Cd")] name: &str,
    #[param("point, vertex, primitive or detail", default = "point", rule = Rule::OneOf(&CLASSES))]
    from: &str,
    #[param("point, vertex, primitive or detail", default = "primitive", rule = Rule::OneOf(&CLASSES))]
    to: &str,
) -> Result<Mesh, OpError> {
    let mut m = mesh.clone();
    let (from, to) = (class_of(from), class_of(to));
    promote(&mut m, name, from, to).ok_or_else(|| {
        OpError::param(
            0,
            format!("the mesh has no {} attribute `{name}`", from.name()),
        )
    })?;
    Ok(m)
}

/// Register the ops of this file.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(CreateOp::new())?;
    reg.register(RandomizeOp::new())?;
    reg.register(PromoteAttributeOp::new())
}
