//! The mesh heavy type. The nodes that make meshes arrive with the mesh library; the type is
//! here so every crate agrees on it and on its hash.

use kiln_core::codec::{ByteReader, CodecError, HeavyCodec, write_f32s, write_len};
use kiln_core::key::KeyHasher;
use kiln_core::value::{Heavy, HeavyData, Value, ValueType};
use std::any::Any;

/// The registered type name of meshes.
pub const MESH: &str = "mesh";
/// The port type of meshes.
pub const MESH_TYPE: ValueType = ValueType::Heavy(MESH);

/// An indexed triangle mesh.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Mesh {
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Per-vertex normals (empty or one per position).
    pub normals: Vec<[f32; 3]>,
    /// Triangles as triples of vertex indices.
    pub triangles: Vec<[u32; 3]>,
}

impl Mesh {
    /// Wrap into a value.
    pub fn into_value(self) -> Value {
        Value::Heavy(kiln_core::value::Heavy::new(self))
    }
}

impl HeavyData for Mesh {
    fn type_name(&self) -> &'static str {
        MESH
    }
    fn byte_size(&self) -> usize {
        (self.positions.len() + self.normals.len()) * 12 + self.triangles.len() * 12
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.u64(self.positions.len() as u64);
        h.f32_slice(self.positions.as_flattened());
        h.u64(self.normals.len() as u64);
        h.f32_slice(self.normals.as_flattened());
        h.u64(self.triangles.len() as u64);
        for t in &self.triangles {
            for i in t {
                h.u64(*i as u64);
            }
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The binary form of meshes (tag 34): each of positions, normals and triangles as a u64
/// count, then its items (3 × f32 bits for a position or normal, 3 × u32 for a triangle).
#[derive(Clone, Copy, Debug, Default)]
pub struct MeshCodec;

impl HeavyCodec for MeshCodec {
    fn type_name(&self) -> &'static str {
        MESH
    }
    fn tag(&self) -> u8 {
        34
    }
    fn encode(&self, value: &Heavy, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let m = value
            .downcast::<Mesh>()
            .ok_or_else(|| CodecError::wrong_type(self, value))?;
        write_len(out, m.positions.len());
        write_f32s(out, m.positions.as_flattened());
        write_len(out, m.normals.len());
        write_f32s(out, m.normals.as_flattened());
        write_len(out, m.triangles.len());
        out.reserve(m.triangles.len() * 12);
        for i in m.triangles.as_flattened() {
            out.extend_from_slice(&i.to_le_bytes());
        }
        Ok(())
    }
    fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
        let positions = f32x3_vec(input, "positions")?;
        let normals = f32x3_vec(input, "normals")?;
        let n = input.count(12, "triangles")?;
        let b = input.take(n * 12, "triangles")?;
        let triangles = b
            .chunks_exact(12)
            .map(|c| {
                let u = |i: usize| u32::from_le_bytes([c[i], c[i + 1], c[i + 2], c[i + 3]]);
                [u(0), u(4), u(8)]
            })
            .collect();
        Ok(Mesh {
            positions,
            normals,
            triangles,
        }
        .into_value())
    }
}

/// A u64 count, then that many triples of f32 bits.
fn f32x3_vec(input: &mut ByteReader<'_>, what: &'static str) -> Result<Vec<[f32; 3]>, CodecError> {
    let n = input.count(12, what)?;
    let flat = input.f32_vec(n * 3, what)?;
    Ok(flat.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meshes_are_shared_and_hashed() {
        let m = Mesh {
            positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            normals: vec![],
            triangles: vec![[0, 1, 2]],
        };
        let mv = m.clone().into_value();
        assert_eq!(mv.value_type(), Some(MESH_TYPE));
        let mut m2 = m.clone();
        m2.triangles[0] = [0, 2, 1];
        assert_ne!(mv.content_hash(), m2.into_value().content_hash());
        // Cloning a heavy value shares it rather than copying.
        let Value::Heavy(h) = &mv else { unreachable!() };
        let h2 = h.clone();
        assert!(std::ptr::eq(h.data(), h2.data()));
    }
}
