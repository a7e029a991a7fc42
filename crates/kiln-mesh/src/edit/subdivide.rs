//! Subdivision surfaces: Catmull–Clark (any polygons, quads out) and Loop (triangles).
//! Boundary edges and points follow the crease rules (an edge point at the midpoint, a
//! boundary point at 3/4 of itself and 1/8 of each boundary neighbour); a point where more
//! than two boundary edges meet stays put. Point attributes follow the positions' stencils,
//! primitive attributes and groups pass to the child faces, vertex attributes are blended
//! within each face; polylines are dropped.

use super::adjacency::{PointEdges, other};
use super::stencil::{Positions, Stencils, Terms};
use super::topology::{EdgeTable, NONE};
use crate::attribute::{AttribClass, Attributes, Weighted};
use crate::geometry::{Mesh, PrimKind};
use crate::limits::{LimitError, check_size};
use glam::Vec3;

/// The polygons of `mesh` (indices of its primitives that are polygons of 3 or more).
fn polygons(mesh: &Mesh) -> Vec<usize> {
    (0..mesh.prims.len())
        .filter(|&f| mesh.prims[f].kind == PrimKind::Polygon && mesh.prims[f].count >= 3)
        .collect()
}

/// The crease rule for point `p`, when it is on the boundary: its stencil terms pushed,
/// `true`; `false` (nothing pushed) when `p` is not on the boundary.
fn boundary_rule<T: Terms>(table: &EdgeTable, at: &[u32], p: u32, st: &mut T) -> bool {
    let mut open = at
        .iter()
        .copied()
        .filter(|&e| table.is_boundary(e as usize));
    match (open.next(), open.next(), open.next()) {
        (None, ..) => false,
        (Some(a), Some(b), None) => {
            st.push(p, 0.75);
            st.push(other(table, a, p), 0.125);
            st.push(other(table, b, p), 0.125);
            true
        }
        _ => {
            st.push(p, 1.0);
            true
        }
    }
}

/// For each point, the faces (of a list of faces) that use it, in compressed rows in the
/// list's order; a face that uses a point twice is there twice.
struct PointFaces {
    offsets: Vec<u32>,
    faces: Vec<u32>,
}

impl PointFaces {
    fn of(mesh: &Mesh, faces: &[usize]) -> PointFaces {
        let v = mesh.points.len();
        let mut offsets = vec![0u32; v + 1];
        for &fi in faces {
            for &p in mesh.prim_points(fi) {
                offsets[p as usize + 1] += 1;
            }
        }
        for i in 0..v {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut list = vec![0u32; offsets[v] as usize];
        for &fi in faces {
            for &p in mesh.prim_points(fi) {
                list[fill[p as usize] as usize] = fi as u32;
                fill[p as usize] += 1;
            }
        }
        PointFaces {
            offsets,
            faces: list,
        }
    }
    fn at(&self, p: usize) -> &[u32] {
        &self.faces[self.offsets[p] as usize..self.offsets[p + 1] as usize]
    }
}

/// Catmull–Clark's stencils, in new-point order: the moved old points, then a face point per
/// face of `faces`, then an edge point per edge of `table`.
fn catmull_clark_rules<T: Terms>(mesh: &Mesh, faces: &[usize], table: &EdgeTable, st: &mut T) {
    let v = mesh.points.len();
    let at = PointEdges::of(v, table);
    let point_faces = PointFaces::of(mesh, faces);
    let centroid = |st: &mut T, fi: usize, w: f32| {
        let pts = mesh.prim_points(fi);
        let k = w / pts.len() as f32;
        pts.iter().for_each(|&q| st.push(q, k));
    };
    for p in 0..v as u32 {
        let edges = at.at(p as usize);
        let pf = point_faces.at(p as usize);
        let on_boundary = boundary_rule(table, edges, p, st);
        if on_boundary {
            // Its crease terms are in.
        } else if pf.is_empty() {
            st.push(p, 1.0);
        } else {
            let n = edges.len() as f32;
            // (F + 2R + (n − 3)P) / n
            for &fi in pf {
                centroid(st, fi as usize, 1.0 / (pf.len() as f32 * n));
            }
            for &ei in edges {
                let w = 2.0 / (n * edges.len() as f32) * 0.5;
                st.push(p, w);
                st.push(other(table, ei, p), w);
            }
            st.push(p, (n - 3.0) / n);
        }
        st.finish();
    }
    for &fi in faces {
        centroid(st, fi, 1.0);
        st.finish();
    }
    for (ei, [a, b]) in table.edges.iter().enumerate() {
        let [f0, f1] = table.faces[ei];
        if f1 == NONE {
            st.push(*a, 0.5);
            st.push(*b, 0.5);
        } else {
            st.push(*a, 0.25);
            st.push(*b, 0.25);
            centroid(st, f0 as usize, 0.25);
            centroid(st, f1 as usize, 0.25);
        }
        st.finish();
    }
}

/// A scheme's stencils for one mesh, written in new-point order.
trait Rules {
    /// Write every new point's stencil into `st`.
    fn write<T: Terms>(&self, st: &mut T);
}

/// Catmull–Clark's rules on `mesh` (see [`catmull_clark_rules`]).
struct CatmullClarkRules<'a> {
    mesh: &'a Mesh,
    faces: &'a [usize],
    table: &'a EdgeTable,
}

impl Rules for CatmullClarkRules<'_> {
    fn write<T: Terms>(&self, st: &mut T) {
        catmull_clark_rules(self.mesh, self.faces, self.table, st);
    }
}

/// The `count` new points that `rules` makes from `mesh`'s (about `per` terms each): their
/// positions, summed as the rules go, and `mesh`'s point attributes blended by the same
/// stencils (which are only stored when there are attributes to blend).
fn new_points(
    mesh: &Mesh,
    count: usize,
    per: usize,
    rules: &impl Rules,
) -> (Vec<Vec3>, Attributes) {
    if mesh.point_attrs.is_empty() {
        let mut pos = Positions::new(&mesh.points, count);
        rules.write(&mut pos);
        (pos.new, Attributes::default())
    } else {
        let mut both = (
            Positions::new(&mesh.points, count),
            Stencils::with_capacity(count, per),
        );
        rules.write(&mut both);
        let attrs = both.1.apply_attrs(&mesh.point_attrs);
        (both.0.new, attrs)
    }
}

/// Carry primitive attributes and groups from parents to children (`parent[c]` is child
/// `c`'s parent face).
fn carry_prims(from: &Mesh, to: &mut Mesh, parent: &[u32]) {
    to.prim_attrs = from.prim_attrs.pick(parent);
    let mut children: Vec<Vec<u32>> = Vec::new();
    if !from.groups.prims.is_empty() {
        children = vec![Vec::new(); from.prims.len()];
        for (c, &p) in parent.iter().enumerate() {
            children[p as usize].push(c as u32);
        }
    }
    for (name, members) in &from.groups.prims {
        let kids = members
            .iter()
            .flat_map(|&m| children[m as usize].iter().copied());
        to.groups.set(AttribClass::Primitive, name, kids.collect());
    }
    to.groups.points = from.groups.points.clone();
    to.detail_attrs = from.detail_attrs.clone();
}

/// One level of Catmull–Clark: every n-gon becomes n quads.
pub fn catmull_clark(node: &str, mesh: &Mesh) -> Result<Mesh, LimitError> {
    let faces = polygons(mesh);
    let table = EdgeTable::of(mesh);
    let corners: u64 = faces.iter().map(|&f| mesh.prims[f].count as u64).sum();
    let (v, f, e) = (mesh.points.len(), faces.len(), table.edges.len());
    check_size(node, (v + f + e) as u64, corners, corners * 4)?;
    let rules = CatmullClarkRules {
        mesh,
        faces: &faces,
        table: &table,
    };
    let mut out = Mesh::new();
    (out.points, out.point_attrs) = new_points(mesh, v + f + e, 8, &rules);
    let mut face_point = vec![NONE; mesh.prims.len()];
    for (k, &fi) in faces.iter().enumerate() {
        face_point[fi] = (v + k) as u32;
    }
    out.vertices.reserve(corners as usize * 4);
    out.prims.reserve(corners as usize);
    let edge_point = |e: u32| (v + f) as u32 + e;
    let mut parent = Vec::with_capacity(corners as usize);
    let blend_vertices = !mesh.vertex_attrs.is_empty();
    let mut vmix: Vec<Vec<Weighted>> = Vec::new();
    for &fi in &faces {
        let r = mesh.prims[fi].range();
        let n = r.len();
        for k in 0..n {
            let prev = r.start + if k == 0 { n - 1 } else { k - 1 };
            let here = r.start + k;
            let next = r.start + if k + 1 < n { k + 1 } else { 0 };
            out.add_polygon(&[
                mesh.vertices[here],
                edge_point(table.corner_edge[here]),
                face_point[fi],
                edge_point(table.corner_edge[prev]),
            ]);
            parent.push(fi as u32);
            if blend_vertices {
                let all = 1.0 / n as f32;
                vmix.push(vec![(here as u32, 1.0)]);
                vmix.push(vec![(here as u32, 0.5), (next as u32, 0.5)]);
                vmix.push(r.clone().map(|c| (c as u32, all)).collect());
                vmix.push(vec![(here as u32, 0.5), (prev as u32, 0.5)]);
            }
        }
    }
    if blend_vertices {
        let lists: Vec<&[Weighted]> = vmix.iter().map(Vec::as_slice).collect();
        out.vertex_attrs = mesh.vertex_attrs.blend(&lists);
    }
    carry_prims(mesh, &mut out, &parent);
    Ok(out)
}

/// Loop's rules on `mesh`: the moved old points, then an edge point per edge of `table`.
struct LoopRules<'a> {
    mesh: &'a Mesh,
    table: &'a EdgeTable,
}

impl Rules for LoopRules<'_> {
    fn write<T: Terms>(&self, st: &mut T) {
        let (mesh, table) = (self.mesh, self.table);
        let at = PointEdges::of(mesh.points.len(), table);
        for p in 0..mesh.points.len() as u32 {
            let edges = at.at(p as usize);
            let on_boundary = boundary_rule(table, edges, p, st);
            if on_boundary {
                // Its crease terms are in.
            } else if edges.is_empty() {
                st.push(p, 1.0);
            } else {
                let beta = loop_beta(edges.len());
                st.push(p, 1.0 - beta * edges.len() as f32);
                edges
                    .iter()
                    .for_each(|&ei| st.push(other(table, ei, p), beta));
            }
            st.finish();
        }
        let opposite = |f: u32, a: u32, b: u32| {
            mesh.prim_points(f as usize)
                .iter()
                .copied()
                .find(|&q| q != a && q != b)
        };
        for (ei, &[a, b]) in table.edges.iter().enumerate() {
            let [f0, f1] = table.faces[ei];
            match (f1 != NONE).then(|| (opposite(f0, a, b), opposite(f1, a, b))) {
                Some((Some(c), Some(d))) => {
                    st.push(a, 0.375);
                    st.push(b, 0.375);
                    st.push(c, 0.125);
                    st.push(d, 0.125);
                }
                _ => {
                    st.push(a, 0.5);
                    st.push(b, 0.5);
                }
            }
            st.finish();
        }
    }
}

/// Loop's weight of the neighbours of an interior point of valence `n`.
fn loop_beta(n: usize) -> f32 {
    let n = n as f32;
    let c = 0.375 + 0.25 * (std::f32::consts::TAU / n).cos();
    (0.625 - c * c) / n
}

/// Why a mesh cannot be Loop-subdivided.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// Over a size limit.
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// A polygon is not a triangle.
    #[error("Loop subdivision takes triangles; primitive {0} is not one (triangulate first)")]
    NotTriangles(usize),
}

/// One level of Loop subdivision: every triangle becomes four.
pub fn loop_subdivide(node: &str, mesh: &Mesh) -> Result<Mesh, LoopError> {
    let faces = polygons(mesh);
    if let Some(&bad) = faces.iter().find(|&&f| mesh.prims[f].count != 3) {
        return Err(LoopError::NotTriangles(bad));
    }
    let table = EdgeTable::of(mesh);
    let (v, e) = (mesh.points.len(), table.edges.len());
    check_size(
        node,
        (v + e) as u64,
        faces.len() as u64 * 4,
        faces.len() as u64 * 12,
    )?;
    let mut out = Mesh::new();
    (out.points, out.point_attrs) = new_points(
        mesh,
        v + e,
        7,
        &LoopRules {
            mesh,
            table: &table,
        },
    );
    out.vertices.reserve(faces.len() * 12);
    out.prims.reserve(faces.len() * 4);
    let mut parent = Vec::with_capacity(faces.len() * 4);
    let ep = |c: usize| v as u32 + table.corner_edge[c];
    for &fi in &faces {
        let s = mesh.prims[fi].start as usize;
        let [a, b, c] = [0, 1, 2].map(|k| mesh.vertices[s + k]);
        let (ab, bc, ca) = (ep(s), ep(s + 1), ep(s + 2));
        for t in [[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]] {
            out.add_polygon(&t);
            parent.push(fi as u32);
        }
    }
    carry_prims(mesh, &mut out, &parent);
    Ok(out)
}

/// The size of `mesh` subdivided `levels` times (Loop when `loop_scheme`, else
/// Catmull–Clark), known before any level is made: `(points, primitives, vertices, bytes)`,
/// saturating; `bytes` is what the last level and the one before it hold together (positions,
/// vertices, primitives and every attribute, at the input's widths), the most the
/// subdivision holds at once.
pub fn subdivided_size(mesh: &Mesh, loop_scheme: bool, levels: u32) -> (u64, u64, u64, u64) {
    if levels == 0 {
        let bytes = kiln_core::value::HeavyData::byte_size(mesh) as u64;
        return (
            mesh.points.len() as u64,
            mesh.prims.len() as u64,
            mesh.vertices.len() as u64,
            bytes,
        );
    }
    let faces = polygons(mesh);
    let edges = EdgeTable::of(mesh).edges.len() as u64;
    let corners: u64 = faces.iter().map(|&f| mesh.prims[f].count as u64).sum();
    let (mut v, mut f, mut e) = (mesh.points.len() as u64, faces.len() as u64, edges);
    let sides = if loop_scheme { 3 } else { 4 };
    let width = |class| -> u64 {
        mesh.attrs(class)
            .iter()
            .map(|(_, a)| a.width() as u64 * 4)
            .sum()
    };
    let (point_bytes, vertex_bytes, prim_bytes) = (
        12 + width(AttribClass::Point),
        4 + width(AttribClass::Vertex),
        12 + width(AttribClass::Primitive),
    );
    let bytes = |v: u64, f: u64| {
        v.saturating_mul(point_bytes)
            .saturating_add(f.saturating_mul(sides).saturating_mul(vertex_bytes))
            .saturating_add(f.saturating_mul(prim_bytes))
    };
    let mut before = bytes(v, f);
    let mut last = before;
    for level in 0..levels {
        let (v2, f2, e2) = if loop_scheme {
            (
                v.saturating_add(e),
                f.saturating_mul(4),
                e.saturating_mul(2).saturating_add(f.saturating_mul(3)),
            )
        } else if level == 0 {
            // Every n-gon becomes n quads, with n edges inside it.
            (
                v.saturating_add(f).saturating_add(e),
                corners,
                e.saturating_mul(2).saturating_add(corners),
            )
        } else {
            (
                v.saturating_add(f).saturating_add(e),
                f.saturating_mul(4),
                e.saturating_mul(2).saturating_add(f.saturating_mul(4)),
            )
        };
        (v, f, e) = (v2, f2, e2);
        before = last;
        last = bytes(v, f);
    }
    (v, f, f.saturating_mul(sides), last.saturating_add(before))
}

#[cfg(test)]
mod size_tests {
    use super::*;
    use crate::generate::{cube, grid, icosphere};

    fn sizes(m: &Mesh) -> (u64, u64, u64) {
        (
            m.points.len() as u64,
            m.prims.len() as u64,
            m.vertices.len() as u64,
        )
    }

    /// The size told before subdividing is the size made, level after level: closed and
    /// open quads (Catmull–Clark), triangles (Loop).
    #[test]
    fn the_size_told_before_is_the_size_made() {
        let shapes = [
            (cube(glam::Vec3::ONE), false),
            (grid("n", glam::Vec2::ONE, 3, 2).expect("small"), false),
            (icosphere("n", 1.0, 1).expect("small"), false),
            (icosphere("n", 1.0, 1).expect("small"), true),
        ];
        for (shape, loop_scheme) in shapes {
            let mut m = shape.clone();
            for levels in 0..4u32 {
                let (p, f, v, _) = subdivided_size(&shape, loop_scheme, levels);
                assert_eq!((p, f, v), sizes(&m), "loop {loop_scheme}, {levels} levels");
                m = if loop_scheme {
                    loop_subdivide("n", &m).expect("small")
                } else {
                    catmull_clark("n", &m).expect("small")
                };
            }
        }
    }
}
