//! Texture coordinates by projection, fitted to the mesh's bounds: planar (along an axis,
//! point `uv`), box (each face along the axis nearest its normal, vertex `uv`) and spherical
//! (longitude and latitude about the bounds' centre, point `uv`).

use crate::attribute::AttribValues;
use crate::geometry::Mesh;
use crate::measure::{bounds, polygon_normal};
use glam::{Vec2, Vec3};

fn fit(mesh: &Mesh) -> (Vec3, Vec3) {
    let (lo, hi) = bounds(mesh).unwrap_or((Vec3::ZERO, Vec3::ONE));
    (lo, (hi - lo).max(Vec3::splat(1e-12)))
}

/// The two coordinates across axis `axis` (0 x, 1 y, 2 z), each 0 to 1 over the bounds.
fn across(p: Vec3, lo: Vec3, size: Vec3, axis: usize) -> Vec2 {
    let t = (p - lo) / size;
    match axis {
        0 => Vec2::new(t.z, t.y),
        1 => Vec2::new(t.x, t.z),
        _ => Vec2::new(t.x, t.y),
    }
}

/// Point `uv` by projecting along `axis` (0 x, 1 y, 2 z).
pub fn planar(mesh: &mut Mesh, axis: usize) {
    let (lo, size) = fit(mesh);
    let uv = mesh
        .points
        .iter()
        .map(|&p| across(p, lo, size, axis))
        .collect();
    mesh.vertex_attrs.remove("uv");
    mesh.point_attrs.insert("uv", AttribValues::Vec2(uv));
}

/// Vertex `uv`: each face projected along the axis nearest its normal.
pub fn cube(mesh: &mut Mesh) {
    let (lo, size) = fit(mesh);
    let mut uv = vec![Vec2::ZERO; mesh.vertices.len()];
    for f in 0..mesh.prims.len() {
        let n = polygon_normal(mesh, f).abs();
        let axis = if n.x >= n.y && n.x >= n.z {
            0
        } else if n.y >= n.z {
            1
        } else {
            2
        };
        for v in mesh.prims[f].range() {
            uv[v] = across(mesh.points[mesh.vertices[v] as usize], lo, size, axis);
        }
    }
    mesh.point_attrs.remove("uv");
    mesh.vertex_attrs.insert("uv", AttribValues::Vec2(uv));
}

/// Point `uv`: u the longitude (0 to 1 from −X round through −Z), v the latitude (0 at
/// the bottom, 1 at the top) of each point seen from the bounds' centre.
pub fn spherical(mesh: &mut Mesh) {
    let (lo, size) = fit(mesh);
    let centre = lo + size * 0.5;
    let uv = mesh
        .points
        .iter()
        .map(|&p| {
            let d = (p - centre).normalize_or_zero();
            Vec2::new(
                0.5 + d.z.atan2(d.x) / std::f32::consts::TAU,
                0.5 + d.y.clamp(-1.0, 1.0).asin() / std::f32::consts::PI,
            )
        })
        .collect();
    mesh.vertex_attrs.remove("uv");
    mesh.point_attrs.insert("uv", AttribValues::Vec2(uv));
}
