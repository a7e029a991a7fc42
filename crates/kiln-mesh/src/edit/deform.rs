//! Moving points: an affine transform, noise displacement along normals, and the bend,
//! twist and taper deformers (about the Y axis, over the mesh's extent in Y). A deformer
//! other than the transform leaves normals stale, so it removes `N`.

use super::noise3::Noise3;
use crate::attribute::{AttribClass, AttribValues};
use crate::geometry::Mesh;
use crate::measure::bounds;
use glam::{Affine3A, Mat3, Vec3};

/// Apply `m` to the points, and its inverse transpose to `N` (kept unit length).
pub fn transform(mesh: &mut Mesh, m: Affine3A) {
    mesh.points
        .iter_mut()
        .for_each(|p| *p = m.transform_point3(*p));
    let normal = Mat3::from(m.matrix3).inverse().transpose();
    for class in [AttribClass::Point, AttribClass::Vertex] {
        if let Some(AttribValues::Vec3(n)) = mesh.attrs_mut(class).get_mut("N") {
            n.iter_mut()
                .for_each(|v| *v = (normal * *v).normalize_or_zero());
        }
    }
}

fn drop_normals(mesh: &mut Mesh) {
    mesh.point_attrs.remove("N");
    mesh.vertex_attrs.remove("N");
}

/// Push each point along its point normal `N` (smooth normals when there is none) by
/// `amplitude` × fractal noise at `frequency` × the point.
pub fn displace(mesh: &mut Mesh, amplitude: f32, frequency: f32, octaves: u32, seed: u64) {
    let normals = match mesh.point_attrs.vec3("N") {
        Some(n) => n.to_vec(),
        None => super::normals::smooth_normals(mesh),
    };
    let noise = Noise3::new(seed);
    for (p, n) in mesh.points.iter_mut().zip(normals) {
        *p += n * amplitude * noise.fbm(*p * frequency, octaves, 0.5);
    }
    drop_normals(mesh);
}

/// The mesh's Y extent: `(min, height)`, height at least a tiny positive number.
fn extent(mesh: &Mesh) -> (f32, f32) {
    bounds(mesh).map_or((0.0, 1.0), |(lo, hi)| (lo.y, (hi.y - lo.y).max(1e-12)))
}

/// Bend the mesh about the Z axis by `angle` radians over its height: a point at relative
/// height t is turned by t × angle around a centre at x = height / angle.
pub fn bend(mesh: &mut Mesh, angle: f32) {
    if angle.abs() < 1e-9 {
        return;
    }
    let (y0, h) = extent(mesh);
    let r = h / angle;
    for p in mesh.points.iter_mut() {
        let theta = angle * (p.y - y0) / h;
        let d = r - p.x;
        *p = Vec3::new(r - d * theta.cos(), y0 + d * theta.sin(), p.z);
    }
    drop_normals(mesh);
}

/// Twist the mesh about the Y axis: `angle` radians from its bottom to its top.
pub fn twist(mesh: &mut Mesh, angle: f32) {
    let (y0, h) = extent(mesh);
    for p in mesh.points.iter_mut() {
        let (s, c) = (angle * (p.y - y0) / h).sin_cos();
        *p = Vec3::new(c * p.x + s * p.z, p.y, -s * p.x + c * p.z);
    }
    drop_normals(mesh);
}

/// Taper the mesh along Y: X and Z scaled from 1 at its bottom to `top` at its top.
pub fn taper(mesh: &mut Mesh, top: f32) {
    let (y0, h) = extent(mesh);
    for p in mesh.points.iter_mut() {
        let s = 1.0 + (top - 1.0) * (p.y - y0) / h;
        p.x *= s;
        p.z *= s;
    }
    drop_normals(mesh);
}
