//! The binary form of meshes, [`MeshCodec`] (tag 34), used by the disk cache, snapshots and
//! baked graphs.
//!
//! All numbers little-endian; a count is a u64. In order: the points (count, then 3 × f32
//! bits each), the vertices (count, then a u32 point index each), the primitives (count, then
//! a u32 vertex count and a u8 kind, 0 polygon or 1 polyline, each; they tile the vertices in
//! order), the attributes of each class in the order point, vertex, primitive, detail (count,
//! then per attribute its name, a u8 type, 0 float, 1 int, 2 vec2, 3 vec3, 4 vec4, and its
//! values as a count and 4-byte components), then the point groups and the primitive groups
//! (count, then per group its name and its members as a count and u32s), then the packed
//! sets (count, then per set its source in this same form, with no packed sets of its own,
//! and its transforms as a count and 12 f32 each, an affine matrix's columns). A name is a
//! count and UTF-8 bytes. A decoded mesh is checked whole ([`Mesh::check`]) before it is returned.

use crate::attribute::{AttribClass, AttribValues, Attributes};
use crate::geometry::{Mesh, PrimKind, Primitive};
use crate::group::Groups;
use crate::packed::Packed;
use crate::value::MESH;
use glam::{Affine3A, Vec2, Vec3, Vec4};
use kiln_core::codec::{ByteReader, CodecError, HeavyCodec, write_f32s, write_len};
use kiln_core::value::{Heavy, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The codec of meshes (see the [module docs](self)).
#[derive(Clone, Copy, Debug, Default)]
pub struct MeshCodec;

fn write_name(out: &mut Vec<u8>, s: &str) {
    write_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn write_u32s(out: &mut Vec<u8>, v: &[u32]) {
    write_len(out, v.len());
    out.reserve(v.len() * 4);
    v.iter()
        .for_each(|i| out.extend_from_slice(&i.to_le_bytes()));
}

fn write_values(out: &mut Vec<u8>, v: &AttribValues) {
    let (tag, flat): (u8, Vec<f32>) = match v {
        AttribValues::Float(x) => (0, x.clone()),
        AttribValues::Int(x) => {
            out.push(1);
            write_len(out, x.len());
            x.iter()
                .for_each(|i| out.extend_from_slice(&i.to_le_bytes()));
            return;
        }
        AttribValues::Vec2(x) => (2, x.iter().flat_map(|p| p.to_array()).collect()),
        AttribValues::Vec3(x) => (3, x.iter().flat_map(|p| p.to_array()).collect()),
        AttribValues::Vec4(x) => (4, x.iter().flat_map(|p| p.to_array()).collect()),
    };
    out.push(tag);
    write_len(out, v.len());
    write_f32s(out, &flat);
}

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
        write_mesh(m, out);
        Ok(())
    }
    fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
        read_mesh(input, true).map(Mesh::into_value)
    }
}

/// The binary form of `m`: its geometry, then its packed sets (each source in this form,
/// then its transforms as 12 floats each).
fn write_mesh(m: &Mesh, out: &mut Vec<u8>) {
    write_len(out, m.points.len());
    let flat: Vec<f32> = m.points.iter().flat_map(|p| p.to_array()).collect();
    write_f32s(out, &flat);
    write_u32s(out, &m.vertices);
    write_len(out, m.prims.len());
    for p in &m.prims {
        out.extend_from_slice(&p.count.to_le_bytes());
        out.push(matches!(p.kind, PrimKind::Polyline) as u8);
    }
    for class in AttribClass::ALL {
        let a = m.attrs(class);
        write_len(out, a.len());
        for (name, v) in a.iter() {
            write_name(out, name);
            write_values(out, v);
        }
    }
    for map in [&m.groups.points, &m.groups.prims] {
        write_len(out, map.len());
        for (name, members) in map {
            write_name(out, name);
            write_u32s(out, members);
        }
    }
    write_len(out, m.packed.len());
    for p in &m.packed {
        write_mesh(&p.source, out);
        write_len(out, p.transforms.len());
        let flat: Vec<f32> = p
            .transforms
            .iter()
            .flat_map(|t| t.to_cols_array())
            .collect();
        write_f32s(out, &flat);
    }
}

/// A mesh in [`write_mesh`]'s form; `outer` is false for a packed source, which holds no
/// packed sets of its own.
fn read_mesh(input: &mut ByteReader<'_>, outer: bool) -> Result<Mesh, CodecError> {
    let mut m = Mesh::new();
    let n = input.count(12, "points")?;
    let flat = input.f32_vec(n * 3, "points")?;
    m.points = flat.chunks_exact(3).map(Vec3::from_slice).collect();
    m.vertices = read_u32s(input, "vertices")?;
    let n = input.count(5, "primitives")?;
    let mut start = 0u32;
    m.prims.reserve(n);
    for _ in 0..n {
        let at = input.position();
        let count = input.u32("primitive vertex count")?;
        let kind = match input.u8("primitive kind")? {
            0 => PrimKind::Polygon,
            1 => PrimKind::Polyline,
            k => return Err(CodecError::invalid(at + 4, format!("primitive kind {k}"))),
        };
        m.prims.push(Primitive { start, count, kind });
        start = start
            .checked_add(count)
            .ok_or_else(|| CodecError::invalid(at, "primitives hold too many vertices"))?;
    }
    for class in AttribClass::ALL {
        *m.attrs_mut(class) = read_attrs(input)?;
    }
    m.groups = Groups {
        points: read_groups(input)?,
        prims: read_groups(input)?,
    };
    let at = input.position();
    let sets = input.count(8, "packed sets")?;
    if sets > 0 && !outer {
        return Err(CodecError::invalid(at, "a packed source holds packed sets"));
    }
    for _ in 0..sets {
        // Sources are read with `outer` false: one level deep at most.
        let source = read_mesh(input, false)?;
        let n = input.count(48, "instances")?;
        let flat = input.f32_vec(n * 12, "instances")?;
        let transforms = flat
            .chunks_exact(12)
            .map(Affine3A::from_cols_slice)
            .collect();
        m.packed.push(Packed {
            source: Arc::new(source),
            transforms,
        });
    }
    let at = input.position();
    m.check()
        .map_err(|e| CodecError::invalid(at, format!("not a whole mesh: {e}")))?;
    Ok(m)
}

fn read_u32s(input: &mut ByteReader<'_>, what: &'static str) -> Result<Vec<u32>, CodecError> {
    let n = input.count(4, what)?;
    let b = input.take(n * 4, what)?;
    Ok(b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

fn read_name(input: &mut ByteReader<'_>) -> Result<String, CodecError> {
    let at = input.position();
    let n = input.count(1, "name")?;
    let b = input.take(n, "name")?;
    String::from_utf8(b.to_vec()).map_err(|_| CodecError::invalid(at, "a name is not UTF-8"))
}

fn read_attrs(input: &mut ByteReader<'_>) -> Result<Attributes, CodecError> {
    let n = input.count(10, "attributes")?;
    let mut a = Attributes::default();
    for _ in 0..n {
        let name = read_name(input)?;
        let at = input.position();
        let tag = input.u8("attribute type")?;
        let width = match tag {
            0 | 1 => 1,
            2..=4 => tag as usize,
            t => return Err(CodecError::invalid(at, format!("attribute type {t}"))),
        };
        let len = input.count(4 * width, "attribute values")?;
        let values = if tag == 1 {
            let b = input.take(len * 4, "attribute values")?;
            AttribValues::Int(
                b.chunks_exact(4)
                    .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            )
        } else {
            let f = input.f32_vec(len * width, "attribute values")?;
            match tag {
                0 => AttribValues::Float(f),
                2 => AttribValues::Vec2(f.chunks_exact(2).map(Vec2::from_slice).collect()),
                3 => AttribValues::Vec3(f.chunks_exact(3).map(Vec3::from_slice).collect()),
                _ => AttribValues::Vec4(f.chunks_exact(4).map(Vec4::from_slice).collect()),
            }
        };
        a.insert(name, values);
    }
    Ok(a)
}

fn read_groups(input: &mut ByteReader<'_>) -> Result<BTreeMap<String, Vec<u32>>, CodecError> {
    let n = input.count(16, "groups")?;
    let mut map = BTreeMap::new();
    for _ in 0..n {
        let name = read_name(input)?;
        map.insert(name, read_u32s(input, "group members")?);
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_core::codec::HeavyCodec;

    fn sample() -> Mesh {
        let mut m = Mesh::new();
        for p in [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z] {
            m.add_point(p);
        }
        m.add_polygon(&[0, 1, 2]);
        m.add_polyline(&[2, 3]);
        m.point_attrs.insert(
            "Cd",
            AttribValues::Vec3(vec![Vec3::ONE, Vec3::X, Vec3::Y, Vec3::Z]),
        );
        m.vertex_attrs.insert(
            "uv",
            AttribValues::Vec2(vec![Vec2::ZERO, Vec2::X, Vec2::Y, Vec2::ONE, Vec2::ZERO]),
        );
        m.prim_attrs.insert("id", AttribValues::Int(vec![7, -3]));
        m.detail_attrs
            .insert("w", AttribValues::Vec4(vec![Vec4::W]));
        m.detail_attrs
            .insert("f", AttribValues::Float(vec![f32::NAN]));
        m.groups.set(AttribClass::Point, "top", vec![3, 2]);
        m.groups.set(AttribClass::Primitive, "faces", vec![0]);
        m
    }

    #[test]
    fn meshes_round_trip_whole() {
        let m = sample();
        let v = m.clone().into_value();
        let Value::Heavy(h) = &v else { unreachable!() };
        let mut bytes = Vec::new();
        MeshCodec.encode(h, &mut bytes).unwrap();
        let back = MeshCodec.decode(&mut ByteReader::new(&bytes)).unwrap();
        let b = back.as_heavy::<Mesh>().unwrap();
        assert_eq!(b.points, m.points);
        assert_eq!(b.vertices, m.vertices);
        assert_eq!(b.prims, m.prims);
        assert_eq!(b.groups, m.groups);
        assert_eq!(b.vertex_attrs, m.vertex_attrs);
        assert_eq!(back.content_hash(), v.content_hash());
        // Every cut is refused, never a panic or a partial mesh.
        for cut in 0..bytes.len() {
            assert!(
                MeshCodec
                    .decode(&mut ByteReader::new(&bytes[..cut]))
                    .is_err()
            );
        }
    }

    #[test]
    fn a_vertex_past_the_points_is_refused() {
        let mut m = sample();
        m.vertices[0] = 99;
        let v = m.into_value();
        let Value::Heavy(h) = &v else { unreachable!() };
        let mut bytes = Vec::new();
        MeshCodec.encode(h, &mut bytes).unwrap();
        let e = MeshCodec.decode(&mut ByteReader::new(&bytes)).unwrap_err();
        assert!(e.to_string().contains("point 99"), "{e}");
    }

    #[test]
    fn hashes_see_attributes_and_groups() {
        let a = sample();
        let mut b = a.clone();
        b.groups.set(AttribClass::Point, "top", vec![3]);
        assert_ne!(
            a.clone().into_value().content_hash(),
            b.into_value().content_hash()
        );
        let mut c = a.clone();
        c.prim_attrs.insert("id", AttribValues::Int(vec![7, -4]));
        assert_ne!(a.into_value().content_hash(), c.into_value().content_hash());
    }
}
