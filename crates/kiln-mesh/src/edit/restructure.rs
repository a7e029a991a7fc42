//! Rebuilding primitives: triangulate, reverse, merge two meshes, fuse nearby points.

use crate::attribute::{AttribClass, AttribValues};
use crate::geometry::{Mesh, PrimKind};
use crate::limits::{LimitError, check_size};
use glam::{IVec3, Vec3};
use std::collections::HashMap;

/// Rebuild `mesh`'s primitives from `(kind, vertices)` lists of old vertex indices, each
/// with its parent primitive: vertex attributes follow their vertices, primitive attributes
/// and groups their parents.
pub fn rebuild(mesh: &Mesh, prims: &[(PrimKind, Vec<u32>, u32)]) -> Mesh {
    let mut out = Mesh {
        points: mesh.points.clone(),
        point_attrs: mesh.point_attrs.clone(),
        detail_attrs: mesh.detail_attrs.clone(),
        ..Mesh::default()
    };
    out.groups.points = mesh.groups.points.clone();
    let mut old_vertices = Vec::with_capacity(mesh.vertices.len());
    let mut parents = Vec::with_capacity(prims.len());
    for (kind, verts, parent) in prims {
        let pts: Vec<u32> = verts.iter().map(|&v| mesh.vertices[v as usize]).collect();
        out.add_prim(*kind, &pts);
        old_vertices.extend_from_slice(verts);
        parents.push(*parent);
    }
    out.vertex_attrs = mesh.vertex_attrs.pick(&old_vertices);
    out.prim_attrs = mesh.prim_attrs.pick(&parents);
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
    out
}

/// Every polygon fanned into triangles from its first vertex (exact for convex polygons);
/// polylines kept.
pub fn triangulate(mesh: &Mesh) -> Mesh {
    let mut prims = Vec::with_capacity(mesh.vertices.len());
    for (f, p) in mesh.prims.iter().enumerate() {
        let s = p.start;
        if p.kind == PrimKind::Polygon && p.count > 3 {
            for k in 1..p.count - 1 {
                prims.push((PrimKind::Polygon, vec![s, s + k, s + k + 1], f as u32));
            }
        } else {
            prims.push((p.kind, p.range().map(|v| v as u32).collect(), f as u32));
        }
    }
    rebuild(mesh, &prims)
}

/// Every primitive's vertex order reversed, and `N` negated, so faces turn inside out.
pub fn reverse(mesh: &Mesh) -> Mesh {
    let prims: Vec<_> = mesh
        .prims
        .iter()
        .enumerate()
        .map(|(f, p)| {
            (
                p.kind,
                p.range().rev().map(|v| v as u32).collect(),
                f as u32,
            )
        })
        .collect();
    let mut out = rebuild(mesh, &prims);
    for class in [AttribClass::Point, AttribClass::Vertex] {
        if let Some(AttribValues::Vec3(n)) = out.attrs_mut(class).get_mut("N") {
            n.iter_mut().for_each(|v| *v = -*v);
        }
    }
    out
}

/// `a` and `b` as one mesh: `b`'s elements after `a`'s, attributes only one side has
/// filled with zeros on the other, groups of both (by name, united), the packed sets of
/// both; detail from `a`.
pub fn merge(node: &str, a: &Mesh, b: &Mesh) -> Result<Mesh, LimitError> {
    merge_all(node, &[a, b])
}

/// Every mesh of `meshes` as one, in their order (see [`merge`]: each one's elements after
/// those of the meshes before it; detail from the first). The total size is checked against
/// the limits before anything is copied, and each mesh is copied once, so merging n meshes
/// costs their total size. No mesh gives an empty mesh.
pub fn merge_all(node: &str, meshes: &[&Mesh]) -> Result<Mesh, LimitError> {
    let total = |f: fn(&Mesh) -> usize| meshes.iter().map(|m| f(m) as u64).sum::<u64>();
    check_size(
        node,
        total(|m| m.points.len()),
        total(|m| m.prims.len()),
        total(|m| m.vertices.len()),
    )?;
    let Some((first, rest)) = meshes.split_first() else {
        return Ok(Mesh::default());
    };
    let mut out = (*first).clone();
    out.points
        .reserve(total(|m| m.points.len()) as usize - first.points.len());
    out.vertices
        .reserve(total(|m| m.vertices.len()) as usize - first.vertices.len());
    out.prims
        .reserve(total(|m| m.prims.len()) as usize - first.prims.len());
    for b in rest {
        append(&mut out, b);
    }
    Ok(out)
}

/// `b`'s elements appended after `out`'s (the step of [`merge_all`]).
fn append(out: &mut Mesh, b: &Mesh) {
    let (np, nv, nf) = (
        out.points.len() as u32,
        out.vertices.len() as u32,
        out.prims.len() as u32,
    );
    out.points.extend_from_slice(&b.points);
    out.vertices.extend(b.vertices.iter().map(|&v| v + np));
    out.prims.extend(b.prims.iter().map(|p| crate::Primitive {
        start: p.start + nv,
        ..*p
    }));
    out.point_attrs
        .append(np as usize, &b.point_attrs, b.points.len());
    out.vertex_attrs
        .append(nv as usize, &b.vertex_attrs, b.vertices.len());
    out.prim_attrs
        .append(nf as usize, &b.prim_attrs, b.prims.len());
    // Shifted past every member so far, the new members keep each group sorted and
    // distinct.
    for (mine, theirs, shift) in [
        (&mut out.groups.points, &b.groups.points, np),
        (&mut out.groups.prims, &b.groups.prims, nf),
    ] {
        for (name, members) in theirs {
            mine.entry(name.clone())
                .or_default()
                .extend(members.iter().map(|&m| m + shift));
        }
    }
    out.packed.extend(b.packed.iter().cloned());
}

/// Points within `distance` of an earlier point are fused into it (the earliest within
/// reach, found through a grid of cells `distance` wide); vertices follow, repeated points
/// in a row within a primitive are dropped, and a polygon left with fewer than three points
/// (or a polyline with fewer than two) is removed. Unused points are removed.
pub fn fuse(mesh: &Mesh, distance: f32) -> Mesh {
    let d = distance.max(1e-12);
    let cell = |p: Vec3| (p / d).floor().as_ivec3();
    let mut grid: HashMap<IVec3, Vec<u32>> = HashMap::with_capacity(mesh.points.len());
    let mut target: Vec<u32> = Vec::with_capacity(mesh.points.len());
    for (i, &p) in mesh.points.iter().enumerate() {
        let c = cell(p);
        let mut found: Option<u32> = None;
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    // Saturating: a point past ±2³¹ cells has its cell at the edge of
                    // `i32` (`as_ivec3` saturates), and its neighbours there are that cell.
                    if let Some(list) = grid.get(&c.saturating_add(IVec3::new(dx, dy, dz))) {
                        for &j in list {
                            if mesh.points[j as usize].distance(p) <= distance
                                && found.is_none_or(|f| j < f)
                            {
                                found = Some(j);
                            }
                        }
                    }
                }
            }
        }
        match found {
            Some(j) => target.push(j),
            None => {
                target.push(i as u32);
                grid.entry(c).or_default().push(i as u32);
            }
        }
    }
    let mut prims = Vec::with_capacity(mesh.prims.len());
    for (f, p) in mesh.prims.iter().enumerate() {
        let mut kept: Vec<u32> = Vec::with_capacity(p.count as usize);
        for v in p.range() {
            let t = target[mesh.vertices[v] as usize];
            if kept
                .last()
                .is_none_or(|&k| target[mesh.vertices[k as usize] as usize] != t)
            {
                kept.push(v as u32);
            }
        }
        let closed = p.kind == PrimKind::Polygon;
        if closed && kept.len() > 1 {
            let first = target[mesh.vertices[kept[0] as usize] as usize];
            let last = target[mesh.vertices[*kept.last().unwrap_or(&kept[0]) as usize] as usize];
            if first == last {
                kept.pop();
            }
        }
        if kept.len() >= if closed { 3 } else { 2 } {
            prims.push((p.kind, kept, f as u32));
        }
    }
    let mut out = rebuild(mesh, &prims);
    out.vertices
        .iter_mut()
        .for_each(|v| *v = target[*v as usize]);
    compact(&mut out);
    out
}

/// Remove the points no vertex uses, renumbering the rest in order (point attributes and
/// groups follow).
pub fn compact(mesh: &mut Mesh) {
    let mut used = vec![false; mesh.points.len()];
    mesh.vertices.iter().for_each(|&v| used[v as usize] = true);
    if used.iter().all(|&u| u) {
        return;
    }
    let mut new_index = vec![u32::MAX; mesh.points.len()];
    let mut keep = Vec::new();
    for (i, &u) in used.iter().enumerate() {
        if u {
            new_index[i] = keep.len() as u32;
            keep.push(i as u32);
        }
    }
    mesh.points = keep.iter().map(|&i| mesh.points[i as usize]).collect();
    mesh.point_attrs = mesh.point_attrs.pick(&keep);
    mesh.vertices
        .iter_mut()
        .for_each(|v| *v = new_index[*v as usize]);
    for members in mesh.groups.points.values_mut() {
        *members = members
            .iter()
            .filter_map(|&m| Some(new_index[m as usize]).filter(|&n| n != u32::MAX))
            .collect();
    }
}
