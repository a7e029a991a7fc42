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

/// Meshes are ports of ops written with `#[kiln_core::op]`.
impl kiln_core::op::port::HeavyPort for Mesh {
    const TYPE: ValueType = MESH_TYPE;
}

impl Mesh {
    /// Wrap into a value.
    pub fn into_value(self) -> Value {
        Value::Heavy(Heavy::new(self))
    }
}

/// Values per block of the bulk feeders below.
const BLOCK: usize = 512;

/// Feed each value as a little-endian u64, a block at a time: the same bytes as one
/// [`KeyHasher::u64`] per value, with one call per block.
fn feed_u64s(h: &mut KeyHasher, values: impl IntoIterator<Item = u64>) {
    let mut buf = [0u8; BLOCK * 8];
    let mut len = 0;
    for v in values {
        buf[len..len + 8].copy_from_slice(&v.to_le_bytes());
        len += 8;
        if len == buf.len() {
            h.bytes(&buf);
            len = 0;
        }
    }
    h.bytes(&buf[..len]);
}

/// Feed vectors of `N` floats, each float by its bits as [`KeyHasher::f32_slice`] feeds it,
/// a block of floats at a time: the same bytes as one `f32_slice` per vector.
fn feed_vectors<const N: usize>(h: &mut KeyHasher, values: impl IntoIterator<Item = [f32; N]>) {
    let mut buf = [0f32; BLOCK];
    let per_block = BLOCK / N * N;
    let mut len = 0;
    for v in values {
        buf[len..len + N].copy_from_slice(&v);
        len += N;
        if len == per_block {
            h.f32_slice(&buf[..len]);
            len = 0;
        }
    }
    h.f32_slice(&buf[..len]);
}

/// Feed an attribute's type and values into a hash.
pub(crate) fn hash_values(v: &AttribValues, h: &mut KeyHasher) {
    h.str(v.type_name());
    h.u64(v.len() as u64);
    match v {
        AttribValues::Float(x) => h.f32_slice(x),
        AttribValues::Int(x) => feed_u64s(h, x.iter().map(|&i| i as i64 as u64)),
        AttribValues::Vec2(x) => feed_vectors(h, x.iter().map(|p| p.to_array())),
        AttribValues::Vec3(x) => feed_vectors(h, x.iter().map(|p| p.to_array())),
        AttribValues::Vec4(x) => feed_vectors(h, x.iter().map(|p| p.to_array())),
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
        feed_vectors(h, self.points.iter().map(|p| p.to_array()));
        h.u64(self.vertices.len() as u64);
        feed_u64s(h, self.vertices.iter().map(|&v| v as u64));
        h.u64(self.prims.len() as u64);
        // A count (u64) and a polyline flag (u8) per primitive, a block at a time.
        let mut buf = [0u8; BLOCK * 9];
        for chunk in self.prims.chunks(BLOCK) {
            for (o, p) in buf.chunks_exact_mut(9).zip(chunk) {
                o[..8].copy_from_slice(&(p.count as u64).to_le_bytes());
                o[8] = matches!(p.kind, PrimKind::Polyline) as u8;
            }
            h.bytes(&buf[..chunk.len() * 9]);
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
                feed_u64s(h, m.iter().map(|&i| i as u64));
            }
        }
        h.u64(self.packed.len() as u64);
        for p in &self.packed {
            p.source.hash_content(h);
            h.u64(p.transforms.len() as u64);
            feed_vectors(h, p.transforms.iter().map(|t| t.to_cols_array()));
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
    fn bulk_feeding_gives_the_bytes_of_feeding_one_by_one() {
        for n in [0usize, 1, 41, 42, 43, 511, 512, 513, 2000] {
            let ints: Vec<u64> = (0..n as u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            let (mut bulk, mut one) = (KeyHasher::new(), KeyHasher::new());
            feed_u64s(&mut bulk, ints.iter().copied());
            ints.iter().for_each(|&i| one.u64(i));
            assert_eq!(bulk.finish_key(), one.finish_key(), "{n} u64s");
            let vecs: Vec<[f32; 12]> = (0..n)
                .map(|i| {
                    std::array::from_fn(|k| {
                        if k == 5 && i % 7 == 0 {
                            f32::NAN
                        } else {
                            (i * 12 + k) as f32 * 0.37
                        }
                    })
                })
                .collect();
            let (mut bulk, mut one) = (KeyHasher::new(), KeyHasher::new());
            feed_vectors(&mut bulk, vecs.iter().copied());
            vecs.iter().for_each(|v| one.f32_slice(v));
            assert_eq!(bulk.finish_key(), one.finish_key(), "{n} vectors of 12");
            let (mut bulk, mut one) = (KeyHasher::new(), KeyHasher::new());
            feed_vectors(&mut bulk, vecs.iter().map(|v| [v[0], v[5], v[2]]));
            vecs.iter().for_each(|v| one.f32_slice(&[v[0], v[5], v[2]]));
            assert_eq!(bulk.finish_key(), one.finish_key(), "{n} vectors of 3");
        }
    }

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
