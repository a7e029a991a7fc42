//! Copying a mesh onto points: one copy per target point, moved to the point, turned by its
//! `orient` (a quaternion x, y, z, w) or else so the copy's +Y follows its `N`, and scaled by
//! its `pscale` (uniform) times its `scale` (per axis). The copies are real geometry, merged
//! into one mesh; each copy's primitives get the primitive attribute `copy` (the target
//! point's index).

use crate::attribute::{AttribValues, Attributes};
use crate::geometry::{Mesh, Primitive};
use crate::limits::{LimitError, check_size};
use glam::{Affine3A, Mat3, Mat3A, Quat, Vec3, Vec4};

/// The attributes of a target that place its copies, looked up once.
struct Placing<'a> {
    orient: Option<&'a [Vec4]>,
    normal: Option<&'a [Vec3]>,
    pscale: Option<&'a [f32]>,
    scale: Option<&'a [Vec3]>,
}

impl<'a> Placing<'a> {
    /// The turn of copy `i`, when its point has `orient` or `N`.
    #[inline(never)]
    fn turn(&self, i: usize) -> Mat3A {
        if let Some(q) = self.orient {
            let q = q[i];
            Mat3A::from_quat(Quat::from_xyzw(q.x, q.y, q.z, q.w).normalize())
        } else if let Some(n) = self.normal {
            let n = n[i].try_normalize().unwrap_or(Vec3::Y);
            Mat3A::from_quat(Quat::from_rotation_arc(Vec3::Y, n))
        } else {
            Mat3A::IDENTITY
        }
    }
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
    /// The transform of the copy on point `i` at `at`: scale, then the rotation, then the
    /// move (as `Affine3A::from_scale_rotation_translation`, whose matrix for the identity
    /// quaternion is the identity matrix's columns times the scale, built here directly).
    #[inline(always)]
    fn transform(&self, at: Vec3, i: usize) -> Affine3A {
        let rot = if self.orient.is_none() && self.normal.is_none() {
            Mat3A::IDENTITY
        } else {
            self.turn(i)
        };
        let uniform = self.pscale.map_or(1.0, |s| s[i]);
        let scale = self.scale.map_or(Vec3::ONE, |s| s[i]) * uniform;
        Affine3A {
            matrix3: Mat3A::from_cols(
                rot.x_axis * scale.x,
                rot.y_axis * scale.y,
                rot.z_axis * scale.z,
            ),
            translation: at.into(),
        }
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
    let placing = Placing::of(target);
    copy_with(node, source, target.points.len(), |i| {
        placing.transform(target.points[i], i)
    })
}

/// One copy of `source`'s geometry per transform of `transforms`, as one mesh: copy `i`'s
/// primitives get the primitive attribute `copy` = `i` (see the module docs).
pub fn copy_by(node: &str, source: &Mesh, transforms: &[Affine3A]) -> Result<Mesh, LimitError> {
    copy_with(node, source, transforms.len(), |i| transforms[i])
}

/// [`copy_by`] with copy `i`'s transform `transform(i)`, for `i` below `n`, made as each
/// copy is.
fn copy_with(
    node: &str,
    source: &Mesh,
    n: usize,
    transform: impl Fn(usize) -> Affine3A,
) -> Result<Mesh, LimitError> {
    let n = n as u64;
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
    for i in 0..n {
        let m = transform(i);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(m: Affine3A) -> Vec<u32> {
        m.to_cols_array().iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn transforms_are_glams_scale_rotation_translation() {
        let mut t = Mesh::new();
        let scales = [1.0, 0.25, -2.0, 0.0, -0.0, f32::NAN];
        for (i, _) in scales.iter().enumerate() {
            t.add_point(Vec3::new(i as f32, -1.5, 0.5 * i as f32));
        }
        t.point_attrs
            .insert("pscale", AttribValues::Float(scales.to_vec()));
        let axes: Vec<Vec3> = (0..scales.len())
            .map(|i| Vec3::new(1.0, -3.0, i as f32))
            .collect();
        let want = |rot: &dyn Fn(usize) -> Quat, t: &Mesh, axes: bool| -> Vec<Vec<u32>> {
            (0..scales.len())
                .map(|i| {
                    let s = if axes {
                        Vec3::new(1.0, -3.0, i as f32)
                    } else {
                        Vec3::ONE
                    };
                    bits(Affine3A::from_scale_rotation_translation(
                        s * scales[i],
                        rot(i),
                        t.points[i],
                    ))
                })
                .collect()
        };
        let got =
            |t: &Mesh| -> Vec<Vec<u32>> { copy_transforms(t).into_iter().map(bits).collect() };
        assert_eq!(got(&t), want(&|_| Quat::IDENTITY, &t, false));
        t.point_attrs.insert("scale", AttribValues::Vec3(axes));
        assert_eq!(got(&t), want(&|_| Quat::IDENTITY, &t, true));
        let normals: Vec<Vec3> = (0..scales.len())
            .map(|i| Vec3::new(i as f32, 1.0, -0.5))
            .collect();
        t.point_attrs
            .insert("N", AttribValues::Vec3(normals.clone()));
        let arc = |i: usize| Quat::from_rotation_arc(Vec3::Y, normals[i].normalize());
        assert_eq!(got(&t), want(&arc, &t, true));
        let q: Vec<Vec4> = (0..scales.len())
            .map(|i| Vec4::new(0.1 * i as f32, 1.0, -0.3, 2.0))
            .collect();
        t.point_attrs
            .insert("orient", AttribValues::Vec4(q.clone()));
        let turn = |i: usize| Quat::from_xyzw(q[i].x, q[i].y, q[i].z, q[i].w).normalize();
        assert_eq!(got(&t), want(&turn, &t, true));
    }
}
