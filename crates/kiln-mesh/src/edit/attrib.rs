//! Attributes by hand: create one holding a value, fill one with seeded random values,
//! promote one from a class to another (averaging where several elements meet).

use crate::attribute::{AttribClass, AttribValues, Weighted};
use crate::geometry::Mesh;
use glam::{Vec2, Vec3, Vec4};

/// The attribute types by name: `float`, `int`, `vec2`, `vec3`, `vec4`.
pub const TYPES: [&str; 5] = ["float", "int", "vec2", "vec3", "vec4"];

/// `n` copies of `value` as an attribute of type `ty` (one of [`TYPES`]).
pub fn filled(ty: &str, n: usize, value: Vec4) -> Option<AttribValues> {
    Some(match ty {
        "float" => AttribValues::Float(vec![value.x; n]),
        "int" => AttribValues::Int(vec![value.x.round() as i32; n]),
        "vec2" => AttribValues::Vec2(vec![Vec2::new(value.x, value.y); n]),
        "vec3" => AttribValues::Vec3(vec![value.truncate(); n]),
        "vec4" => AttribValues::Vec4(vec![value; n]),
        _ => return None,
    })
}

/// A number in [0, 1) from a seed and an index (splitmix64 of both).
pub fn unit_random(seed: u64, i: u64, lane: u64) -> f32 {
    let mut s =
        seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ lane.wrapping_mul(0xD1B5_4A32_D192_ED03);
    (kiln_image::noise::splitmix64(&mut s) >> 40) as f32 / (1u64 << 24) as f32
}

/// An attribute of type `ty` on `n` elements, each component uniform between the same
/// component of `lo` and `hi`, the same for the same seed.
pub fn random(ty: &str, n: usize, lo: Vec4, hi: Vec4, seed: u64) -> Option<AttribValues> {
    let mut a = filled(ty, n, Vec4::ZERO)?;
    for i in 0..n {
        let t = Vec4::from_array(std::array::from_fn(|k| {
            unit_random(seed, i as u64, k as u64)
        }));
        a.set4(i, lo + (hi - lo) * t);
    }
    Some(a)
}

/// For each element of `to`, the elements of `from` it gathers, equally weighted.
fn sources(mesh: &Mesh, from: AttribClass, to: AttribClass) -> Vec<Vec<Weighted>> {
    use AttribClass::*;
    let even = |list: Vec<u32>| {
        let w = 1.0 / list.len().max(1) as f32;
        list.into_iter().map(|i| (i, w)).collect::<Vec<Weighted>>()
    };
    let mut by_point: Vec<Vec<u32>> = Vec::new();
    if to == Point && (from == Vertex || from == Primitive) {
        by_point = vec![Vec::new(); mesh.points.len()];
        for (f, p) in mesh.prims.iter().enumerate() {
            for v in p.range() {
                let id = if from == Vertex { v as u32 } else { f as u32 };
                by_point[mesh.vertices[v] as usize].push(id);
            }
        }
    }
    match (from, to) {
        (a, b) if a == b => (0..mesh.count(a) as u32).map(|i| vec![(i, 1.0)]).collect(),
        (_, Detail) => vec![even((0..mesh.count(from) as u32).collect())],
        (Detail, _) => vec![vec![(0, 1.0)]; mesh.count(to)],
        (Point, Vertex) => mesh.vertices.iter().map(|&p| vec![(p, 1.0)]).collect(),
        (Vertex | Primitive, Point) => by_point.into_iter().map(even).collect(),
        (Point, Primitive) => (0..mesh.prims.len())
            .map(|f| even(mesh.prim_points(f).to_vec()))
            .collect(),
        (Vertex, Primitive) => mesh
            .prims
            .iter()
            .map(|p| even(p.range().map(|v| v as u32).collect()))
            .collect(),
        _ => {
            // Primitive to vertex: each vertex its primitive's value.
            let mut out = vec![Vec::new(); mesh.vertices.len()];
            for (f, p) in mesh.prims.iter().enumerate() {
                p.range().for_each(|v| out[v] = vec![(f as u32, 1.0)]);
            }
            out
        }
    }
}

/// Move attribute `name` from class `from` to class `to` (averaged where several meet;
/// ints take the first): `None` when `from` has no such attribute.
pub fn promote(mesh: &mut Mesh, name: &str, from: AttribClass, to: AttribClass) -> Option<()> {
    let values = mesh.attrs(from).get(name)?.clone();
    let lists = sources(mesh, from, to);
    let refs: Vec<&[Weighted]> = lists.iter().map(Vec::as_slice).collect();
    let moved = values.blend(&refs);
    mesh.attrs_mut(from).remove(name);
    mesh.attrs_mut(to).insert(name, moved);
    Some(())
}

/// A point position as four floats (for attributes built from positions).
pub fn vec4_of(p: Vec3) -> Vec4 {
    p.extend(0.0)
}
