//! Curves: circle, line, and a smooth curve through given points.

use crate::geometry::Mesh;
use crate::limits::{LimitError, check_size};
use glam::Vec3;
use std::f32::consts::TAU;

/// A circle of `radius` in the XZ plane in `segments` sides: a polygon facing +Y when
/// `filled`, else a closed polyline (its first point repeated at the end).
pub fn circle(node: &str, radius: f32, segments: u32, filled: bool) -> Result<Mesh, LimitError> {
    let n = segments.max(3) as u64;
    check_size(node, n, 1, n + 1)?;
    let n = n as u32;
    let mut m = Mesh::new();
    for i in 0..n {
        let phi = TAU * i as f32 / n as f32;
        m.add_point(Vec3::new(phi.cos(), 0.0, -phi.sin()) * radius);
    }
    let mut pts: Vec<u32> = (0..n).collect();
    if filled {
        m.add_polygon(&pts);
    } else {
        pts.push(0);
        m.add_polyline(&pts);
    }
    Ok(m)
}

/// A polyline of `points` evenly spaced points from `start` to `end`.
pub fn line(node: &str, start: Vec3, end: Vec3, points: u32) -> Result<Mesh, LimitError> {
    let n = points.max(2) as u64;
    check_size(node, n, 1, n)?;
    let n = n as u32;
    let mut m = Mesh::new();
    for i in 0..n {
        m.add_point(start.lerp(end, i as f32 / (n - 1) as f32));
    }
    let pts: Vec<u32> = (0..n).collect();
    m.add_polyline(&pts);
    Ok(m)
}

/// A polyline through every one of `through` (a centripetal-free, uniform Catmull–Rom
/// spline), with `segments` pieces between two consecutive given points; the ends are held
/// by repeating the first and last point.
pub fn curve_through(node: &str, through: &[Vec3], segments: u32) -> Result<Mesh, LimitError> {
    let s = segments.max(1) as u64;
    let spans = through.len().saturating_sub(1) as u64;
    check_size(node, spans * s + 1, 1, spans * s + 1)?;
    let mut m = Mesh::new();
    if through.is_empty() {
        return Ok(m);
    }
    let at = |i: isize| through[i.clamp(0, through.len() as isize - 1) as usize];
    m.add_point(through[0]);
    for k in 0..spans as isize {
        let (p0, p1, p2, p3) = (at(k - 1), at(k), at(k + 1), at(k + 2));
        for j in 1..=s {
            let t = j as f32 / s as f32;
            let (t2, t3) = (t * t, t * t * t);
            let p = 0.5
                * (2.0 * p1
                    + (p2 - p0) * t
                    + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * t2
                    + (3.0 * p1 - p0 - 3.0 * p2 + p3) * t3);
            m.add_point(p);
        }
    }
    let pts: Vec<u32> = (0..m.points.len() as u32).collect();
    m.add_polyline(&pts);
    Ok(m)
}
