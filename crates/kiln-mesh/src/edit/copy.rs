//! Copying a mesh onto points: one copy per target point, moved to the point, turned by its
//! `orient` (a quaternion x, y, z, w) or else so the copy's +Y follows its `N`, and scaled by
//! its `pscale` (uniform) times its `scale` (per axis). The copies are real geometry, merged
//! into one mesh; each copy's primitives get the primitive attribute `copy` (the target
//! point's index).

use crate::attribute::{AttribValues, Attributes};
use crate::geometry::{Mesh, Primitive};
use crate::limits::{LimitError, check_size};
use glam::{Affine3A, Mat3, Quat, Vec3, Vec4};

/// The attributes of a target that place its copies, looked up once.
struct Placing<'a> {
    orient: Option<&'a [Vec4]>,
    normal: Option<&'a [Vec3]>,
    pscale: Option<&'a [f32]>,
    scale: Option<&'a [Vec3]>,
}

impl<'a> Placing<'a> {
    fn of(target: &'a Mesh) -> Placing<'a> {
        let a = &target.point_attrs;
        Placing {
            orient: match a.get("orient") {
                Some(AttribValues::Vec4(q)) => Some(q),
                _ => None,
            },
            normal: a.vec3("N"),
            pscale: a.float("pscale"),
            scale: a.vec3("scale"),
        }
    }
    /// The transform of the copy on point `i` at `at`.
    fn transform(&self, at: Vec3, i: usize) -> Affine3A {
        let rot = if let Some(q) = self.orient {
            let q = q[i];
            Quat::from_xyzw(q.x, q.y, q.z, q.w).normalize()
        } else if let Some(n) = self.normal {
            let n = n[i].try_normalize().unwrap_or(Vec3::Y);
            Quat::from_rotation_arc(Vec3::Y, n)
        } else {
            Quat::IDENTITY
        };
        let uniform = self.pscale.map_or(1.0, |s| s[i]);
        let axes = self.scale.map_or(Vec3::ONE, |s| s[i]);
        Affine3A::from_scale_rotation_translation(axes * uniform, rot, at)
    }
}

/// The transform that target point `i` gives its copy.
pub fn copy_transform(target: &Mesh, i: usize) -> Affine3A {
    Placing::of(target).transform(target.points[i], i)
}

/// The transform of each point of `target` (see [`copy_transform`]).
pub fn copy_transforms(target: &Mesh) -> Vec<Affine3A> {
    let placing = Placing::of(target);
    target
        .points
        .iter()
        .enumerate()
        .map(|(i, &at)| placing.transform(at, i))
        .collect()
}

/// One copy of `source` per point of `target` (see the module docs). Point and vertex
/// attributes of the source are copied along (normals turned with the copy).
pub fn copy_to_points(node: &str, source: &Mesh, target: &Mesh) -> Result<Mesh, LimitError> {
    copy_by(node, source, &copy_transforms(target))
}

/// One copy of `source`'s geometry per transform of `transforms`, as one mesh: copy `i`'s
/// primitives get the primitive attribute `copy` = `i` (see the module docs).
pub fn copy_by(node: &str, source: &Mesh, transforms: &[Affine3A]) -> Result<Mesh, LimitError> {
    let n = transforms.len() as u64;
    check_size(
        node,
        n.saturating_mul(source.points.len() as u64),
        n.saturating_mul(source.prims.len() as u64),
        n.saturating_mul(source.vertices.len() as u64),
    )?;
    let n = n as usize;
    let (sp, sv, sf) = (
        source.points.len(),
        source.vertices.len(),
        source.prims.len(),
    );
    let mut out = Mesh::new();
    out.points.reserve(n * sp);
    out.vertices.reserve(n * sv);
    out.prims.reserve(n * sf);
    let mut copy_id = Vec::with_capacity(n * sf);
    let point_n = source.point_attrs.vec3("N");
    let mut normals: Vec<Vec3> = Vec::with_capacity(if point_n.is_some() { n * sp } else { 0 });
    for (i, &m) in transforms.iter().enumerate().take(n) {
        let (po, vo) = ((i * sp) as u32, (i * sv) as u32);
        out.points
            .extend(source.points.iter().map(|&p| m.transform_point3(p)));
        if let Some(sn) = point_n {
            let normal = Mat3::from(m.matrix3).inverse().transpose();
            normals.extend(sn.iter().map(|&v| (normal * v).normalize_or_zero()));
        }
        out.vertices.extend(source.vertices.iter().map(|&v| v + po));
        out.prims.extend(source.prims.iter().map(|p| Primitive {
            start: p.start + vo,
            ..*p
        }));
        copy_id.extend(std::iter::repeat_n(i as i32, sf));
    }
    // Each copy's elements take the source's attributes, element for element.
    let repeat = |attrs: &Attributes, per: usize| -> Attributes {
        if attrs.is_empty() {
            return Attributes::default();
        }
        let indices: Vec<u32> = (0..n).flat_map(|_| 0..per as u32).collect();
        attrs.pick(&indices)
    };
    out.point_attrs = repeat(&source.point_attrs, sp);
    if point_n.is_some() {
        out.point_attrs.insert("N", AttribValues::Vec3(normals));
    }
    out.vertex_attrs = repeat(&source.vertex_attrs, sv);
    out.vertex_attrs.remove("N");
    out.prim_attrs = repeat(&source.prim_attrs, sf);
    out.prim_attrs.insert("copy", AttribValues::Int(copy_id));
    Ok(out)
}
