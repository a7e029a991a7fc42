//! The Rust types of the mesh ops' ports that read leniently (`#[op]` port types) and the
//! readings of values they share.

use crate::geometry::Mesh;
use glam::{Vec2, Vec3};
use kiln_core::op::OpError;
use kiln_core::value::Value;

fn as_vec3(v: Option<&Value>) -> Option<Vec3> {
    match v? {
        Value::Vec3(a) => Some(Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32)),
        Value::Float(x) => Some(Vec3::splat(*x as f32)),
        Value::Int(x) => Some(Vec3::splat(*x as f32)),
        Value::List(items) if items.len() == 3 => {
            let f: Option<Vec<f64>> = items.iter().map(|x| x.as_f64()).collect();
            f.map(|f| Vec3::new(f[0] as f32, f[1] as f32, f[2] as f32))
        }
        _ => None,
    }
}

/// A vec3 port read leniently (a number stands for the same number on every axis, a list of
/// three numbers for the vector), for ops written with `#[op]`.
pub(crate) struct V3(pub Vec3);

impl<'a> kiln_core::op::port::FromPort<'a> for V3 {
    fn port_type() -> kiln_core::value::ValueType {
        kiln_core::value::ValueType::Vec3
    }
    fn from_port(v: &'a Value) -> Option<Self> {
        as_vec3(Some(v)).map(V3)
    }
}

impl kiln_core::op::port::IntoPort for V3 {
    fn port_type() -> kiln_core::value::ValueType {
        kiln_core::value::ValueType::Vec3
    }
    fn into_port(self) -> Value {
        Value::Vec3([self.0.x as f64, self.0.y as f64, self.0.z as f64])
    }
}

/// A list item as a point: a vec3 or a list of three numbers.
pub(crate) fn point(v: &Value) -> Option<Vec3> {
    as_vec3(Some(v)).filter(|_| !matches!(v, Value::Float(_) | Value::Int(_)))
}

fn found(v: Option<&Value>) -> &'static str {
    v.map_or("nothing", |v| v.type_name())
}

/// Input `i` (the value `v`) as four floats: a number (in the first), a vector or a colour.
pub(crate) fn vec4_of(i: usize, v: &Value) -> Result<glam::Vec4, OpError> {
    let f = |x: f64| x as f32;
    match v {
        Value::Vec2(a) => Ok(glam::Vec4::new(f(a[0]), f(a[1]), 0.0, 0.0)),
        Value::Vec3(a) => Ok(glam::Vec4::new(f(a[0]), f(a[1]), f(a[2]), 0.0)),
        Value::Vec4(a) => Ok(glam::Vec4::new(f(a[0]), f(a[1]), f(a[2]), f(a[3]))),
        Value::Color(c) => Ok(glam::Vec4::from_array(*c)),
        x if x.as_f64().is_some() => {
            Ok(glam::Vec4::new(f(x.as_f64().unwrap_or(0.0)), 0.0, 0.0, 0.0))
        }
        _ => Err(OpError::input(
            i,
            format!("expected a number or vector, found {}", found(Some(v))),
        )),
    }
}

/// The attribute classes a class param names.
pub(crate) const CLASSES: [&str; 4] = ["point", "vertex", "primitive", "detail"];

/// A class param's value (one of [`CLASSES`], which its rule keeps) as its class.
pub(crate) fn class_of(s: &str) -> crate::AttribClass {
    crate::AttribClass::parse(s).unwrap_or(crate::AttribClass::Point)
}

/// A vec2 port read leniently (a number stands for the same number on both axes), for ops
/// written with `#[op]`.
pub(crate) struct V2(pub Vec2);

impl<'a> kiln_core::op::port::FromPort<'a> for V2 {
    fn port_type() -> kiln_core::value::ValueType {
        kiln_core::value::ValueType::Vec2
    }
    fn from_port(v: &'a Value) -> Option<Self> {
        match v {
            Value::Vec2(a) => Some(V2(Vec2::new(a[0] as f32, a[1] as f32))),
            v => v.as_f64().map(|x| V2(Vec2::splat(x as f32))),
        }
    }
}

impl kiln_core::op::port::IntoPort for V2 {
    fn port_type() -> kiln_core::value::ValueType {
        kiln_core::value::ValueType::Vec2
    }
    fn into_port(self) -> Value {
        Value::Vec2([self.0.x as f64, self.0.y as f64])
    }
}

/// A list of meshes at a `list<mesh>` port (a collective input's), for ops written with
/// `#[op]`.
pub(crate) struct Meshes<'a>(pub Vec<&'a Mesh>);

impl<'a> kiln_core::op::port::FromPort<'a> for Meshes<'a> {
    fn port_type() -> kiln_core::value::ValueType {
        kiln_core::list_type::list_of(crate::value::MESH_TYPE)
    }
    fn from_port(v: &'a Value) -> Option<Self> {
        let items = v.as_list()?;
        items
            .iter()
            .map(|x| x.as_heavy::<Mesh>())
            .collect::<Option<Vec<_>>>()
            .map(Meshes)
    }
}

impl kiln_core::op::port::IntoPort for Meshes<'_> {
    fn port_type() -> kiln_core::value::ValueType {
        kiln_core::list_type::list_of(crate::value::MESH_TYPE)
    }
    fn into_port(self) -> Value {
        Value::List(self.0.into_iter().map(|m| m.clone().into_value()).collect())
    }
}
