//! Booleans of closed meshes through `boolmesh` (a pure-Rust port of Manifold's boolean):
//! union, difference and intersection. Both meshes are fanned into triangles and must be
//! closed 2-manifolds; the result is triangles.
//!
//! Attributes follow the faces they came from. Each input triangle corner is given to
//! `boolmesh` as a [`CornerMix`] value, which it interpolates barycentrically onto every
//! output corner, so each output corner knows the input corners (and weights) it was made
//! from: vertex attributes are blended from those input vertices, point attributes from
//! their points (a point made on a cut lies inside one input face, and takes that face's
//! barycentric blend), and each output triangle takes the primitive attributes and
//! primitive groups of the input primitive most of its corners' weight comes from. A point
//! is in a point group when its heaviest source point is. In a difference, `b`'s faces turn
//! inside out, and so do the `N` they carry. Without attributes or groups on either input
//! the boolean runs without values (nothing to carry).

use super::boolean_source::CornerMix;
use super::restructure::{compact, merge};
use crate::attribute::{AttribClass, AttribValues, Attributes, Weighted};
use crate::geometry::Mesh;
use crate::limits::LimitError;
use boolmesh::prelude::{Manifold, OpType, compute_boolean};
use glam::Vec3;

/// Which boolean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BooleanOp {
    /// Inside either.
    Union,
    /// Inside the first and not the second.
    Difference,
    /// Inside both.
    Intersection,
}

/// Why a boolean failed.
#[derive(Debug, thiserror::Error)]
pub enum BooleanError {
    /// An input is not a closed 2-manifold.
    #[error("input `{input}` is not a closed manifold mesh: {message}")]
    Input {
        /// `a` or `b`.
        input: &'static str,
        /// What the boolean library said.
        message: String,
    },
    /// The boolean itself failed.
    #[error("the boolean failed: {0}")]
    Failed(String),
    /// Both inputs together are over a size limit.
    #[error(transparent)]
    Limit(#[from] LimitError),
}

fn positions(points: &[Vec3]) -> Vec<f64> {
    points
        .iter()
        .flat_map(|p| p.as_dvec3().to_array())
        .collect()
}

fn manifold(mesh: &Mesh, input: &'static str) -> Result<Manifold, BooleanError> {
    let idx: Vec<usize> = mesh
        .triangles()
        .into_iter()
        .flatten()
        .map(|i| i as usize)
        .collect();
    Manifold::new(&positions(&mesh.points), &idx)
        .map_err(|message| BooleanError::Input { input, message })
}

fn op_type(op: BooleanOp) -> OpType {
    match op {
        BooleanOp::Union => OpType::Add,
        BooleanOp::Difference => OpType::Subtract,
        BooleanOp::Intersection => OpType::Intersect,
    }
}

fn carries_anything(m: &Mesh) -> bool {
    !(m.point_attrs.is_empty()
        && m.vertex_attrs.is_empty()
        && m.prim_attrs.is_empty()
        && m.groups.points.is_empty()
        && m.groups.prims.is_empty())
}

/// `a` `op` `b` (see the module docs); `node` names the node in a size error.
pub fn boolean_at(node: &str, a: &Mesh, b: &Mesh, op: BooleanOp) -> Result<Mesh, BooleanError> {
    if carries_anything(a) || carries_anything(b) {
        return boolean_carrying(node, a, b, op);
    }
    let (ma, mb) = (manifold(a, "a")?, manifold(b, "b")?);
    let mut out = Mesh::new();
    out.detail_attrs = a.detail_attrs.clone();
    let Some(r) = run(&ma, &mb, op)? else {
        return Ok(out);
    };
    out.points = to_points(&r);
    let n = out.points.len();
    for t in r.hs.chunks_exact(3) {
        let tri = [t[0].tail, t[1].tail, t[2].tail];
        if tri.iter().all(|&i| i < n) {
            out.add_polygon(&tri.map(|i| i as u32));
        }
    }
    compact(&mut out);
    Ok(out)
}

/// The boolean through boolmesh; `None` when the result is empty (boolmesh reports an
/// empty result as an error, "empty pos matrix").
fn run<S: boolmesh::Data>(
    a: &Manifold<S>,
    b: &Manifold<S>,
    op: BooleanOp,
) -> Result<Option<Manifold<S>>, BooleanError> {
    match compute_boolean(a, b, op_type(op)) {
        Ok(r) => Ok(Some(r)),
        Err(e) if e == "empty pos matrix" => Ok(None),
        Err(e) => Err(BooleanError::Failed(e)),
    }
}

/// `a` `op` `b` (see the module docs).
pub fn boolean(a: &Mesh, b: &Mesh, op: BooleanOp) -> Result<Mesh, BooleanError> {
    boolean_at("boolean", a, b, op)
}

fn to_points<S>(r: &Manifold<S>) -> Vec<Vec3> {
    r.ps.iter()
        .map(|p| Vec3::new(p.x as f32, p.y as f32, p.z as f32))
        .collect()
}

/// One side's manifold with a [`CornerMix`] on each corner, corners numbered from `first`
/// (triangle `t` of the side has corners `first + 3t ..`).
fn manifold_with_sources(
    mesh: &Mesh,
    input: &'static str,
    first: u32,
) -> Result<Manifold<CornerMix>, BooleanError> {
    let tris = mesh.triangles();
    let idx: Vec<usize> = tris.iter().flatten().map(|&i| i as usize).collect();
    let vals: Vec<CornerMix> = (0..idx.len() as u32)
        .map(|c| CornerMix::corner(first + c))
        .collect();
    Manifold::new_with_values(&positions(&mesh.points), &idx, &vals)
        .map_err(|message| BooleanError::Input { input, message })
}

/// The parent primitive of each triangle of [`Mesh::triangle_vertices`].
fn triangle_parents(mesh: &Mesh) -> Vec<u32> {
    let mut out = Vec::with_capacity(mesh.prims.len());
    for (f, p) in mesh.prims.iter().enumerate() {
        if p.kind == crate::PrimKind::Polygon && p.count >= 3 {
            out.extend(std::iter::repeat_n(f as u32, p.count as usize - 2));
        }
    }
    out
}

fn boolean_carrying(node: &str, a: &Mesh, b: &Mesh, op: BooleanOp) -> Result<Mesh, BooleanError> {
    let both = merge(node, a, b)?;
    let corners: Vec<u32> = both.triangle_vertices().into_iter().flatten().collect();
    let parents = triangle_parents(&both);
    let a_corners = 3 * triangle_parents(a).len() as u32;
    let ma = manifold_with_sources(a, "a", 0)?;
    let mb = manifold_with_sources(b, "b", a_corners)?;
    let Some(r) = run(&ma, &mb, op)? else {
        let mut out = Mesh::new();
        out.detail_attrs = a.detail_attrs.clone();
        return Ok(out);
    };
    let points = to_points(&r);
    let n = points.len();
    let source = |h: usize| -> Vec<Weighted> {
        r.vals.get(h).map_or(Vec::new(), |m| {
            m.terms()
                .into_iter()
                .filter_map(|(c, w)| corners.get(c as usize).map(|&v| (v, w)))
                .collect()
        })
    };
    let mut out = Mesh::new();
    out.points = points;
    let mut point_src: Vec<Option<Vec<Weighted>>> = vec![None; n];
    let mut vertex_src: Vec<Vec<Weighted>> = Vec::with_capacity(r.hs.len());
    let mut prim_src: Vec<u32> = Vec::with_capacity(r.hs.len() / 3);
    for (t, tri) in r.hs.chunks_exact(3).enumerate() {
        let pts = [tri[0].tail, tri[1].tail, tri[2].tail];
        if pts.iter().any(|&i| i >= n) {
            continue;
        }
        let mut weight_of_tri: Vec<(u32, f32)> = Vec::with_capacity(9);
        for (k, &p) in pts.iter().enumerate() {
            let h = 3 * t + k;
            let verts = source(h);
            if point_src[p].is_none() {
                point_src[p] = Some(
                    verts
                        .iter()
                        .filter_map(|&(v, w)| both.vertices.get(v as usize).map(|&q| (q, w)))
                        .collect(),
                );
            }
            if let Some(m) = r.vals.get(h) {
                for (c, w) in m.terms() {
                    match weight_of_tri.iter_mut().find(|x| x.0 == c / 3) {
                        Some(x) => x.1 += w,
                        None => weight_of_tri.push((c / 3, w)),
                    }
                }
            }
            vertex_src.push(verts);
        }
        let best = weight_of_tri
            .iter()
            .copied()
            .fold(None::<(u32, f32)>, |b, x| match b {
                Some(b) if b.1 > x.1 || (b.1 == x.1 && b.0 < x.0) => Some(b),
                _ => Some(x),
            });
        let parent = best
            .and_then(|(tri, _)| parents.get(tri as usize).copied())
            .unwrap_or(0);
        prim_src.push(parent);
        out.add_polygon(&pts.map(|i| i as u32));
    }
    let point_lists: Vec<Vec<Weighted>> = point_src
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect();
    out.point_attrs = blend(&both.point_attrs, &point_lists);
    out.vertex_attrs = blend(&both.vertex_attrs, &vertex_src);
    out.prim_attrs = both.prim_attrs.pick(&prim_src);
    out.detail_attrs = a.detail_attrs.clone();
    carry_groups(&both, &mut out, &point_lists, &prim_src);
    if op == BooleanOp::Difference {
        let from_b = |src: &[Weighted], first_b: u32| heaviest(src).is_some_and(|s| s >= first_b);
        let first_b_point = a.points.len() as u32;
        let first_b_vertex = a.vertices.len() as u32;
        let point_flip: Vec<bool> = point_lists
            .iter()
            .map(|s| from_b(s, first_b_point))
            .collect();
        let vertex_flip: Vec<bool> = vertex_src
            .iter()
            .map(|s| from_b(s, first_b_vertex))
            .collect();
        for (class, flip) in [
            (AttribClass::Point, &point_flip),
            (AttribClass::Vertex, &vertex_flip),
        ] {
            if let Some(AttribValues::Vec3(nv)) = out.attrs_mut(class).get_mut("N") {
                nv.iter_mut()
                    .zip(flip)
                    .filter(|(_, f)| **f)
                    .for_each(|(v, _)| *v = -*v);
            }
        }
    }
    compact(&mut out);
    Ok(out)
}

fn heaviest(src: &[Weighted]) -> Option<u32> {
    src.iter()
        .copied()
        .fold(None::<Weighted>, |b, x| match b {
            Some(b) if b.1 > x.1 || (b.1 == x.1 && b.0 < x.0) => Some(b),
            _ => Some(x),
        })
        .map(|x| x.0)
}

fn blend(attrs: &Attributes, lists: &[Vec<Weighted>]) -> Attributes {
    let slices: Vec<&[Weighted]> = lists.iter().map(Vec::as_slice).collect();
    attrs.blend(&slices)
}

/// Primitive groups pass to the triangles made from their members; a point joins the point
/// groups of its heaviest source point.
fn carry_groups(both: &Mesh, out: &mut Mesh, point_lists: &[Vec<Weighted>], prim_src: &[u32]) {
    for (name, members) in &both.groups.prims {
        let kids = prim_src
            .iter()
            .enumerate()
            .filter(|(_, p)| members.binary_search(p).is_ok())
            .map(|(k, _)| k as u32)
            .collect();
        out.groups.set(AttribClass::Primitive, name, kids);
    }
    for (name, members) in &both.groups.points {
        let kept = point_lists
            .iter()
            .enumerate()
            .filter(|(_, s)| heaviest(s).is_some_and(|h| members.binary_search(&h).is_ok()))
            .map(|(k, _)| k as u32)
            .collect();
        out.groups.set(AttribClass::Point, name, kept);
    }
}
