//! A shaded picture of a mesh, for a user without a 3D program: a small software
//! rasteriser with a z-buffer. The camera looks at the centre of the mesh's bounds from the
//! front right and above (along −(1, 0.8, 1.4)), orthographic, framing the bounding sphere;
//! each triangle is lit flat by a Lambert term from a light over the camera's left shoulder
//! (both sides lit, so open surfaces read as well as closed ones) over a grey gradient.
//! Polylines are not drawn; packed instances are drawn expanded.
//!
//! The cost is bounded whatever the mesh: every pixel a triangle's bounds cover is a unit of
//! work, and once [`WORK_PER_PIXEL`] units a pixel of the picture are spent, later triangles
//! are sampled on a grid twice as coarse (each sample fills its block), then four times, and
//! so on (a block is depth-tested at its first pixel and filled whole when nearer); once the
//! coarsest grid's budget is spent too, the picture stands as drawn. A mesh of a few million
//! triangles draws exactly; a hundred thousand large triangles drawn over one another cost a
//! bounded multiple of the picture, not their covered pixels.

use super::corners::Corners;
use glam::{Vec2, Vec3};
use kiln_mesh::Mesh;

/// The preview's size in pixels.
pub const PREVIEW_SIZE: u32 = 512;

/// The units of work (pixels of a triangle's bounds visited) a pixel of the picture may take
/// before the sampling grid coarsens (see the module docs).
pub const WORK_PER_PIXEL: u64 = 64;

/// The preview of `mesh` as 8-bit RGBA pixels, `size` × `size`, rows top to bottom.
pub fn render_preview(mesh: &Mesh, size: u32) -> Vec<u8> {
    render_preview_counted(mesh, size).0
}

/// [`render_preview`], with the samples it took (its cost).
pub fn render_preview_counted(mesh: &Mesh, size: u32) -> (Vec<u8>, u64) {
    let s = size.max(1) as usize;
    let mut rgba = Vec::with_capacity(s * s * 4);
    for y in 0..s {
        let g = 0.32 - 0.14 * y as f32 / s as f32;
        for _ in 0..s {
            rgba.extend([to8(g), to8(g), to8(g * 1.1), 255]);
        }
    }
    // Packed instances are drawn as the geometry they stand for (past the size limits, only
    // the mesh's own geometry is drawn).
    let expanded;
    let mesh = match kiln_mesh::edit::packed::unpack("preview", mesh) {
        Ok(m) if !mesh.packed.is_empty() => {
            expanded = m;
            &expanded
        }
        _ => mesh,
    };
    // A mesh whose corners do not fit the memory budget previews as nothing.
    let Ok(c) = Corners::of(mesh) else {
        return (rgba, 0);
    };
    let Some((lo, hi)) = bounds(&c.positions) else {
        return (rgba, 0);
    };
    let centre = (lo + hi) * 0.5;
    let radius = ((hi - lo).length() * 0.5).max(1e-6);
    let forward = -Vec3::new(1.0, 0.8, 1.4).normalize();
    let right = forward.cross(Vec3::Y).normalize();
    let up = right.cross(forward);
    let light = (-forward + up * 0.6 - right * 0.5).normalize();
    let half = s as f32 * 0.5;
    let project = |p: Vec3| {
        let d = p - centre;
        let scale = 0.92 * half / radius;
        (
            Vec2::new(half + d.dot(right) * scale, half - d.dot(up) * scale),
            d.dot(forward),
        )
    };
    let mut depth = vec![f32::INFINITY; s * s];
    let budget = WORK_PER_PIXEL.saturating_mul((s * s) as u64);
    // The samples taken so far, the work when the grid step last changed, and the step: 1,
    // then 2, 4, … each time the work since the last change passes the budget.
    let (mut work, mut since, mut step) = (0u64, 0u64, 1usize);
    for t in &c.triangles {
        if work - since > budget {
            // The coarsest grid's budget spent too: the picture stands as drawn.
            if step >= s {
                break;
            }
            step *= 2;
            since = work;
        }
        let [a, b, p] = t.map(|i| c.positions[i as usize]);
        let n = (b - a).cross(p - a).normalize_or_zero();
        let shade = 0.18 + 0.82 * n.dot(light).abs();
        let colour = Vec3::new(0.86, 0.78, 0.66) * shade;
        let [(sa, za), (sb, zb), (sp, zp)] = [project(a), project(b), project(p)];
        let area = edge(sa, sb, sp);
        if area.abs() < 1e-12 {
            continue;
        }
        let min = sa.min(sb).min(sp).floor().max(Vec2::ZERO);
        let max = sa.max(sb).max(sp).ceil().min(Vec2::splat(s as f32 - 1.0));
        if min.x > max.x || min.y > max.y {
            continue;
        }
        // The blocks of the grid the bounds touch, sampled at their centres.
        let (bx0, by0) = (min.x as usize / step, min.y as usize / step);
        let (bx1, by1) = (max.x as usize / step, max.y as usize / step);
        let samples = ((bx1 - bx0 + 1) * (by1 - by0 + 1)) as u64;
        work += samples;
        for by in by0..=by1 {
            for bx in bx0..=bx1 {
                let (x, y) = (bx * step, by * step);
                let half = step as f32 * 0.5;
                let q = Vec2::new(x as f32 + half, y as f32 + half);
                let (w0, w1, w2) = (
                    edge(sb, sp, q) / area,
                    edge(sp, sa, q) / area,
                    edge(sa, sb, q) / area,
                );
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let z = w0 * za + w1 * zb + w2 * zp;
                // A block is tested at its first pixel and, when nearer, filled whole: its
                // pixels count as work.
                if z >= depth[y * s + x] {
                    continue;
                }
                let rgb = [to8(colour.x), to8(colour.y), to8(colour.z)];
                let (x1, y1) = ((x + step).min(s), (y + step).min(s));
                for py in y..y1 {
                    for px in x..x1 {
                        let k = py * s + px;
                        depth[k] = z;
                        rgba[k * 4..k * 4 + 3].copy_from_slice(&rgb);
                    }
                }
                let filled = ((x1 - x) * (y1 - y)) as u64;
                work += filled;
            }
        }
    }
    (rgba, work)
}

fn edge(a: Vec2, b: Vec2, p: Vec2) -> f32 {
    (b - a).perp_dot(p - a)
}

fn to8(x: f32) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

fn bounds(points: &[Vec3]) -> Option<(Vec3, Vec3)> {
    let first = *points.first()?;
    Some(
        points
            .iter()
            .fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p))),
    )
}
