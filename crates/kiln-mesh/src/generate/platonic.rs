//! The grid and the box.

use crate::attribute::AttribValues;
use crate::geometry::Mesh;
use crate::limits::{LimitError, check_size};
use glam::{Vec2, Vec3};

/// A grid of `cols` × `rows` quads in the XZ plane (Y up), `size` across, centred on the
/// origin, facing +Y, with point `uv` from 0 to 1.
pub fn grid(node: &str, size: Vec2, cols: u32, rows: u32) -> Result<Mesh, LimitError> {
    let (c, r) = (cols.max(1) as u64, rows.max(1) as u64);
    check_size(node, (c + 1) * (r + 1), c * r, 4 * c * r)?;
    let (c, r) = (c as u32, r as u32);
    let mut m = Mesh::new();
    let mut uv = Vec::with_capacity(((c + 1) * (r + 1)) as usize);
    for j in 0..=r {
        for i in 0..=c {
            let t = Vec2::new(i as f32 / c as f32, j as f32 / r as f32);
            m.add_point(Vec3::new((t.x - 0.5) * size.x, 0.0, (t.y - 0.5) * size.y));
            uv.push(Vec2::new(t.x, 1.0 - t.y));
        }
    }
    let at = |i: u32, j: u32| j * (c + 1) + i;
    for j in 0..r {
        for i in 0..c {
            // Counter-clockwise seen from +Y: x grows, then z shrinks.
            m.add_polygon(&[at(i, j), at(i, j + 1), at(i + 1, j + 1), at(i + 1, j)]);
        }
    }
    m.point_attrs.insert("uv", AttribValues::Vec2(uv));
    Ok(m)
}

/// An axis-aligned box of `size`, centred on the origin: 8 points, 6 quads.
pub fn cube(size: Vec3) -> Mesh {
    let mut m = Mesh::new();
    let h = size * 0.5;
    for k in 0..8u32 {
        let s = |bit: u32| if k & bit != 0 { 1.0 } else { -1.0 };
        m.add_point(Vec3::new(s(1), s(2), s(4)) * h);
    }
    // Bits: 1 = +x, 2 = +y, 4 = +z. Each face counter-clockwise seen from outside.
    for f in [
        [0, 4, 6, 2], // -x
        [1, 3, 7, 5], // +x
        [0, 1, 5, 4], // -y
        [2, 6, 7, 3], // +y
        [0, 2, 3, 1], // -z
        [4, 5, 7, 6], // +z
    ] {
        m.add_polygon(&f);
    }
    m
}
