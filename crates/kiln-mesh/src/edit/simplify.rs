//! Simplification through meshoptimizer (`meshopt`): the polygons fanned into triangles,
//! then edges collapsed until `ratio` of the triangles remain or the next collapse would
//! move the surface more than `error` (relative to the mesh's extent). Points keep their
//! positions and point attributes; unused points are removed; primitive and vertex
//! attributes and groups are not kept (the triangles are new).

use super::restructure::compact;
use crate::geometry::Mesh;

/// The triangles meshoptimizer keeps of `triangles` (point indices) over `points`, aiming at
/// `target` triangles within the relative `error`.
pub fn simplify_indices(
    points: &[[f32; 3]],
    triangles: &[u32],
    target: usize,
    error: f32,
) -> Vec<u32> {
    meshopt::simplify_decoder(
        triangles,
        points,
        target * 3,
        error,
        meshopt::SimplifyOptions::None,
        None,
    )
}

/// `mesh` simplified toward `ratio` (0 to 1) of its triangles.
pub fn simplify(mesh: &Mesh, ratio: f32, error: f32) -> Mesh {
    let tris: Vec<u32> = mesh.triangles().into_iter().flatten().collect();
    let points: Vec<[f32; 3]> = mesh.points.iter().map(|p| p.to_array()).collect();
    let target = ((tris.len() / 3) as f32 * ratio.clamp(0.0, 1.0)).round() as usize;
    let kept = simplify_indices(&points, &tris, target, error.max(0.0));
    let mut out = Mesh {
        points: mesh.points.clone(),
        point_attrs: mesh.point_attrs.clone(),
        detail_attrs: mesh.detail_attrs.clone(),
        ..Mesh::default()
    };
    out.groups.points = mesh.groups.points.clone();
    for t in kept.chunks_exact(3) {
        out.add_polygon(t);
    }
    compact(&mut out);
    out
}
