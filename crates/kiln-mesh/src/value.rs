//! The mesh as a Kiln heavy value: its type name, size and content hash.

use crate::attribute::{AttribClass, AttribValues};
use crate::geometry::{Mesh, PrimKind};
use kiln_core::key::KeyHasher;
use kiln_core::value::{Heavy, HeavyData, Value, ValueType};
use std::any::Any;

/// The registered type name of meshes.
pub const MESH: &str = "mesh";
/// The port type of meshes.
pub const MESH_TYPE: ValueType = ValueType::Heavy(MESH);

impl Mesh {
    /// Wrap into a value.
    pub fn into_value(self) -> Value {
        Value::Heavy(Heavy::new(self))
    }
}

/// Feed an attribute's type and values into a hash.
pub(crate) fn hash_values(v: &AttribValues, h: &mut KeyHasher) {
    h.str(v.type_name());
    h.u64(v.len() as u64);
    match v {
        AttribValues::Float(x) => h.f32_slice(x),
        AttribValues::Int(x) => x.iter().for_each(|&i| h.i64(i as i64)),
        AttribValues::Vec2(x) => x.iter().for_each(|p| h.f32_slice(&p.to_array())),
        AttribValues::Vec3(x) => x.iter().for_each(|p| h.f32_slice(&p.to_array())),
        AttribValues::Vec4(x) => x.iter().for_each(|p| h.f32_slice(&p.to_array())),
    }
}

impl HeavyData for Mesh {
    fn type_name(&self) -> &'static str {
        MESH
    }
    fn byte_size(&self) -> usize {
        let attrs: usize = AttribClass::ALL
            .iter()
            .flat_map(|&c| self.attrs(c).iter())
            .map(|(_, v)| v.len() * v.width() * 4)
            .sum();
        let packed: usize = self
            .packed
            .iter()
            .map(|p| p.source.byte_size() + p.transforms.len() * 48)
            .sum();
        self.points.len() * 12 + self.vertices.len() * 4 + self.prims.len() * 12 + attrs + packed
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.u64(self.points.len() as u64);
        for p in &self.points {
            h.f32_slice(&p.to_array());
        }
        h.u64(self.vertices.len() as u64);
        self.vertices.iter().for_each(|&v| h.u64(v as u64));
        h.u64(self.prims.len() as u64);
        for p in &self.prims {
            h.u64(p.count as u64);
            h.u8(matches!(p.kind, PrimKind::Polyline) as u8);
        }
        for class in AttribClass::ALL {
            let a = self.attrs(class);
            h.u64(a.len() as u64);
            for (name, v) in a.iter() {
                h.str(name);
                hash_values(v, h);
            }
        }
        for map in [&self.groups.points, &self.groups.prims] {
            h.u64(map.len() as u64);
            for (name, m) in map {
                h.str(name);
                h.u64(m.len() as u64);
                m.iter().for_each(|&i| h.u64(i as u64));
            }
        }
        h.u64(self.packed.len() as u64);
        for p in &self.packed {
            p.source.hash_content(h);
            h.u64(p.transforms.len() as u64);
            p.transforms
                .iter()
                .for_each(|t| h.f32_slice(&t.to_cols_array()));
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meshes_are_shared_and_hashed() {
        let mut m = Mesh::new();
        for p in [glam::Vec3::ZERO, glam::Vec3::X, glam::Vec3::Y] {
            m.add_point(p);
        }
        m.add_polygon(&[0, 1, 2]);
        let mv = m.clone().into_value();
        assert_eq!(mv.value_type(), Some(MESH_TYPE));
        let mut m2 = m.clone();
        m2.vertices = vec![0, 2, 1];
        assert_ne!(mv.content_hash(), m2.into_value().content_hash());
        // Cloning a heavy value shares it rather than copying.
        let Value::Heavy(h) = &mv else { unreachable!() };
        let h2 = h.clone();
        assert!(std::ptr::eq(h.data(), h2.data()));
    }
}
