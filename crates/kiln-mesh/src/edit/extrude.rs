//! Extruding and insetting faces, each on its own: a face's points move toward its centre
//! by `inset` (a fraction, 0 to 1) and along its normal by `distance`, making the front
//! face; a quad joins each edge of the face to the moved edge. The fronts are put in the
//! primitive group `extrude_front`, the quads in `extrude_side`. With `keep_back` the
//! original face stays, reversed, closing a lone profile into a solid.

use crate::attribute::AttribClass;
use crate::geometry::{Mesh, PrimKind};
use crate::limits::{LimitError, check_size};
use crate::measure::{polygon_centre, polygon_normal};

/// The settings of [`extrude`].
#[derive(Clone, Copy, Debug)]
pub struct Extrude {
    /// How far along the face normal the front moves.
    pub distance: f32,
    /// How far toward the face centre the front's points move (0 none, 1 all the way).
    pub inset: f32,
    /// Keep each extruded face, reversed, as a back.
    pub keep_back: bool,
}

/// Extrude the polygons of `mesh` that `selected` marks (one flag per primitive).
pub fn extrude(node: &str, mesh: &Mesh, selected: &[bool], s: Extrude) -> Result<Mesh, LimitError> {
    let picked = |f: usize| {
        selected.get(f).copied().unwrap_or(false)
            && mesh.prims[f].kind == PrimKind::Polygon
            && mesh.prims[f].count >= 3
    };
    let extra: u64 = (0..mesh.prims.len())
        .filter(|&f| picked(f))
        .map(|f| mesh.prims[f].count as u64)
        .sum();
    check_size(
        node,
        mesh.points.len() as u64 + extra,
        mesh.prims.len() as u64 + 2 * extra,
        mesh.vertices.len() as u64 + 6 * extra,
    )?;
    let mut out = Mesh::new();
    out.points = mesh.points.clone();
    let mut point_src: Vec<u32> = (0..mesh.points.len() as u32).collect();
    let mut vertex_src: Vec<u32> = Vec::with_capacity(mesh.vertices.len() + 6 * extra as usize);
    let mut parents: Vec<u32> = Vec::with_capacity(mesh.prims.len() + 2 * extra as usize);
    let (mut fronts, mut sides) = (Vec::new(), Vec::new());
    for (f, p) in mesh.prims.iter().enumerate() {
        let verts: Vec<u32> = p.range().map(|v| v as u32).collect();
        if !picked(f) {
            let pts: Vec<u32> = verts.iter().map(|&v| mesh.vertices[v as usize]).collect();
            out.add_prim(p.kind, &pts);
            vertex_src.extend_from_slice(&verts);
            parents.push(f as u32);
            continue;
        }
        let (c, n) = (polygon_centre(mesh, f), polygon_normal(mesh, f));
        let old: Vec<u32> = mesh.prim_points(f).to_vec();
        let moved: Vec<u32> = old
            .iter()
            .map(|&q| {
                let at = mesh.points[q as usize];
                point_src.push(q);
                out.add_point(at + (c - at) * s.inset + n * s.distance)
            })
            .collect();
        let k = old.len();
        for i in 0..k {
            let j = (i + 1) % k;
            sides.push(out.add_polygon(&[old[i], old[j], moved[j], moved[i]]));
            vertex_src.extend([verts[i], verts[j], verts[j], verts[i]]);
            parents.push(f as u32);
        }
        fronts.push(out.add_polygon(&moved));
        vertex_src.extend_from_slice(&verts);
        parents.push(f as u32);
        if s.keep_back {
            let back: Vec<u32> = old.iter().rev().copied().collect();
            out.add_polygon(&back);
            vertex_src.extend(verts.iter().rev());
            parents.push(f as u32);
        }
    }
    out.point_attrs = mesh.point_attrs.pick(&point_src);
    out.vertex_attrs = mesh.vertex_attrs.pick(&vertex_src);
    out.prim_attrs = mesh.prim_attrs.pick(&parents);
    out.detail_attrs = mesh.detail_attrs.clone();
    out.groups.points = mesh.groups.points.clone();
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); mesh.prims.len()];
    for (c, &p) in parents.iter().enumerate() {
        children[p as usize].push(c as u32);
    }
    for (name, members) in &mesh.groups.prims {
        let kids = members
            .iter()
            .flat_map(|&m| children[m as usize].iter().copied());
        out.groups.set(AttribClass::Primitive, name, kids.collect());
    }
    out.groups
        .set(AttribClass::Primitive, "extrude_front", fronts);
    out.groups
        .set(AttribClass::Primitive, "extrude_side", sides);
    Ok(out)
}
