//! Normals: smooth (per point, area-weighted), flat (per vertex, the face's), and by angle
//! (per vertex: the faces around the point whose normals lie within the angle of this
//! face's, area-weighted). Each writes `N` on its class and removes `N` from the other.

use crate::attribute::{AttribClass, AttribValues};
use crate::geometry::{Mesh, PrimKind};
use glam::Vec3;

/// Polygon `f`'s normal times twice its area (Newell's sum: each vertex crossed with the
/// next, the last with the first, summed in that order), zero for a polyline.
#[inline]
fn face_normal(mesh: &Mesh, f: usize) -> Vec3 {
    if mesh.prims[f].kind != PrimKind::Polygon {
        return Vec3::ZERO;
    }
    let pts = mesh.prim_points(f);
    let Some((&first, rest)) = pts.split_first() else {
        return Vec3::ZERO;
    };
    let mut n = Vec3::ZERO;
    let mut a = mesh.points[first as usize];
    for &q in rest {
        let b = mesh.points[q as usize];
        n += a.cross(b);
        a = b;
    }
    n + a.cross(mesh.points[first as usize])
}

/// Each polygon's normal times twice its area (Newell's sum), zero for polylines.
pub fn weighted_face_normals(mesh: &Mesh) -> Vec<Vec3> {
    (0..mesh.prims.len())
        .map(|f| face_normal(mesh, f))
        .collect()
}

/// Unit smooth normals, one per point: the sum of the area-weighted normals of the faces
/// around it, in face order (zero for a point on no face).
pub fn smooth_normals(mesh: &Mesh) -> Vec<Vec3> {
    let mut n = vec![Vec3::ZERO; mesh.points.len()];
    for f in 0..mesh.prims.len() {
        let fnorm = face_normal(mesh, f);
        for &p in mesh.prim_points(f) {
            n[p as usize] += fnorm;
        }
    }
    n.iter_mut().for_each(|v| *v = v.normalize_or_zero());
    n
}

/// Set point `N` to the smooth normals.
pub fn set_smooth(mesh: &mut Mesh) {
    let n = smooth_normals(mesh);
    mesh.vertex_attrs.remove("N");
    mesh.point_attrs.insert("N", AttribValues::Vec3(n));
}

/// Set vertex `N`: each vertex the normal of its face (`angle` none), or the normals of the
/// faces around its point within `angle` radians of its face's.
pub fn set_by_angle(mesh: &mut Mesh, angle: Option<f32>) {
    let faces = weighted_face_normals(mesh);
    let mut out = vec![Vec3::ZERO; mesh.vertices.len()];
    match angle {
        None => {
            for (f, p) in mesh.prims.iter().enumerate() {
                let n = faces[f].normalize_or_zero();
                out[p.range()].iter_mut().for_each(|v| *v = n);
            }
        }
        Some(angle) => {
            let cos = angle.cos();
            let unit: Vec<Vec3> = faces.iter().map(|n| n.normalize_or_zero()).collect();
            // The faces around each point, in compressed rows.
            let mut offsets = vec![0u32; mesh.points.len() + 1];
            mesh.vertices
                .iter()
                .for_each(|&p| offsets[p as usize + 1] += 1);
            for i in 0..mesh.points.len() {
                offsets[i + 1] += offsets[i];
            }
            let mut fill = offsets.clone();
            let mut around = vec![0u32; mesh.vertices.len()];
            for (f, p) in mesh.prims.iter().enumerate() {
                for v in p.range() {
                    let pt = mesh.vertices[v] as usize;
                    around[fill[pt] as usize] = f as u32;
                    fill[pt] += 1;
                }
            }
            for (f, p) in mesh.prims.iter().enumerate() {
                for v in p.range() {
                    let pt = mesh.vertices[v] as usize;
                    let near = &around[offsets[pt] as usize..offsets[pt + 1] as usize];
                    let sum: Vec3 = near
                        .iter()
                        .filter(|&&g| unit[g as usize].dot(unit[f]) >= cos - 1e-6)
                        .map(|&g| faces[g as usize])
                        .sum();
                    out[v] = sum.normalize_or_zero();
                }
            }
        }
    }
    mesh.point_attrs.remove("N");
    mesh.attrs_mut(AttribClass::Vertex)
        .insert("N", AttribValues::Vec3(out));
}
