//! Sampling an image onto a mesh: each point takes the colour under its texture coordinate
//! (point `uv`, or the mean of its vertices' `uv`; without either, a planar projection of
//! its X and Z over the bounds), bilinearly filtered, image rows top down (v = 1 is the top
//! row).

use crate::attribute::{AttribClass, AttribValues};
use crate::geometry::Mesh;
use glam::{Vec2, Vec3, Vec4};
use kiln_image::image::Image;

/// The image's colour at `uv`, bilinear, clamped at the edges.
pub fn sample(image: &Image, uv: Vec2) -> Vec4 {
    let (w, h) = (image.width.max(1) as usize, image.height.max(1) as usize);
    let x = (uv.x * w as f32 - 0.5).clamp(0.0, (w - 1) as f32);
    let y = ((1.0 - uv.y) * h as f32 - 0.5).clamp(0.0, (h - 1) as f32);
    let (x0, y0) = (x.floor() as usize, y.floor() as usize);
    let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
    let px = |i: usize, j: usize| {
        Vec4::from_array(image.pixels.get(j * w + i).copied().unwrap_or([0.0; 4]))
    };
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let top = px(x0, y0).lerp(px(x1, y0), fx);
    let bottom = px(x0, y1).lerp(px(x1, y1), fx);
    top.lerp(bottom, fy)
}

/// Set point attribute `name` (a vec3 colour) from `image`.
pub fn sample_onto_points(mesh: &mut Mesh, image: &Image, name: &str) {
    let uv: Vec<Vec2> = match (mesh.point_attrs.vec2("uv"), mesh.vertex_attrs.vec2("uv")) {
        (Some(uv), _) => uv.to_vec(),
        (None, Some(_)) => {
            let mut m = mesh.clone();
            super::attrib::promote(&mut m, "uv", AttribClass::Vertex, AttribClass::Point);
            m.point_attrs
                .vec2("uv")
                .map(<[Vec2]>::to_vec)
                .unwrap_or_default()
        }
        (None, None) => {
            let (lo, hi) = crate::measure::bounds(mesh).unwrap_or((Vec3::ZERO, Vec3::ONE));
            let size = (hi - lo).max(Vec3::splat(1e-12));
            mesh.points
                .iter()
                .map(|p| {
                    let t = (*p - lo) / size;
                    Vec2::new(t.x, 1.0 - t.z)
                })
                .collect()
        }
    };
    let colours = uv.iter().map(|&t| sample(image, t).truncate()).collect();
    mesh.point_attrs.insert(name, AttribValues::Vec3(colours));
}
