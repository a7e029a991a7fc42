//! A mesh from line segments: each segment `[x0, y0, x1, y1]` of the XY plane (z = 0) as an
//! open polyline of its two ends, or, with a radius, as a closed tube around it: a regular
//! `sides`-gon of that radius swept from one end to the other, capped at both ends. Each
//! tube is a closed, consistently oriented 2-manifold of its own (Euler characteristic 2),
//! its faces wound counter-clockwise seen from outside. Every primitive gets the primitive
//! attribute `segment`, the index of the segment it came from.
//!
//! Space colonization's `sim.tree.lines` gives such segments, so a grown tree can be
//! written as a mesh; the lists are plain values, so neither domain knows the other.

use crate::attribute::AttribValues;
use crate::geometry::Mesh;
use crate::limits::{LimitError, check_size};
use glam::{Vec3, Vec4};
use std::f32::consts::TAU;

/// The fewest sides of a tube.
pub const MIN_SIDES: u32 = 3;
/// The most sides of a tube.
pub const MAX_SIDES: u32 = 64;

/// The points, primitives and vertices that [`segments_mesh`] makes for `count` segments
/// (saturating), `sides` per tube, or polylines when `tubes` is false.
pub fn segments_size(count: u64, tubes: bool, sides: u32) -> (u64, u64, u64) {
    if !tubes {
        return (count.saturating_mul(2), count, count.saturating_mul(2));
    }
    let n = sides as u64;
    (
        count.saturating_mul(2 * n),
        count.saturating_mul(n + 2),
        // n quads and two n-gon caps.
        count.saturating_mul(6 * n),
    )
}

/// Two unit vectors across `axis` (a unit vector) such that `(u, w, axis)` is
/// right-handed: `u × w = axis`.
fn frame(axis: Vec3) -> (Vec3, Vec3) {
    let u = if axis.z.abs() < 0.9 { Vec3::Z } else { Vec3::X };
    let u = (u - axis * axis.dot(u)).normalize();
    (u, axis.cross(u))
}

/// The segments as polylines (`radius` 0) or closed tubes of `sides` sides (clamped to
/// [`MIN_SIDES`]..=[`MAX_SIDES`]) and `radius` (see the module docs); the size is checked
/// against the limits before anything is allocated. A segment of zero length makes a tube
/// across the x axis, flat along it.
pub fn segments_mesh(
    node: &str,
    segments: &[Vec4],
    radius: f32,
    sides: u32,
) -> Result<Mesh, LimitError> {
    let tubes = radius > 0.0;
    let sides = sides.clamp(MIN_SIDES, MAX_SIDES);
    let (p, f, v) = segments_size(segments.len() as u64, tubes, sides);
    check_size(node, p, f, v)?;
    let mut m = Mesh::new();
    m.points.reserve(p as usize);
    m.vertices.reserve(v as usize);
    m.prims.reserve(f as usize);
    let mut ids = Vec::with_capacity(f as usize);
    let mut ring = Vec::with_capacity(sides as usize);
    for (i, s) in segments.iter().enumerate() {
        let (a, b) = (Vec3::new(s.x, s.y, 0.0), Vec3::new(s.z, s.w, 0.0));
        if !tubes {
            let pa = m.add_point(a);
            let pb = m.add_point(b);
            m.add_polyline(&[pa, pb]);
            ids.push(i as i32);
            continue;
        }
        let axis = (b - a).try_normalize().unwrap_or(Vec3::X);
        let (u, w) = frame(axis);
        let n = sides;
        let first = m.points.len() as u32;
        for end in [a, b] {
            for k in 0..n {
                let phi = TAU * k as f32 / n as f32;
                m.add_point(end + (u * phi.cos() + w * phi.sin()) * radius);
            }
        }
        let (at_a, at_b) = (|k: u32| first + k % n, |k: u32| first + n + k % n);
        for k in 0..n {
            // Along the ring, then along the axis: the normal points out.
            m.add_polygon(&[at_a(k), at_a(k + 1), at_b(k + 1), at_b(k)]);
        }
        // The end cap faces +axis (counter-clockwise seen from there), the start cap -axis.
        ring.clear();
        ring.extend((0..n).map(at_b));
        m.add_polygon(&ring);
        ring.clear();
        ring.extend((0..n).rev().map(at_a));
        m.add_polygon(&ring);
        ids.extend(std::iter::repeat_n(i as i32, n as usize + 2));
    }
    m.prim_attrs.insert("segment", AttribValues::Int(ids));
    Ok(m)
}
