//! Shapes of revolution about the Y axis: cylinder, cone, torus.

use crate::geometry::Mesh;
use crate::limits::{LimitError, check_size};
use glam::Vec3;
use std::f32::consts::TAU;

fn around(i: u32, cols: u32) -> (f32, f32) {
    let phi = TAU * (i % cols) as f32 / cols as f32;
    (phi.cos(), -phi.sin())
}

/// A tube from radius `bottom` at y = −height/2 to `top` at +height/2, in `cols` sides and
/// `rows` bands, closed by an n-gon at each end (or a point, where a radius is zero).
fn tube(
    node: &str,
    bottom: f32,
    top: f32,
    height: f32,
    cols: u32,
    rows: u32,
) -> Result<Mesh, LimitError> {
    let (c, r) = (cols.max(3) as u64, rows.max(1) as u64);
    check_size(node, c * (r + 1), c * r + 2, 4 * c * r + 2 * c)?;
    let (c, r) = (c as u32, r as u32);
    let apex = top == 0.0;
    let mut m = Mesh::new();
    let last = if apex { r - 1 } else { r };
    for j in 0..=last {
        let t = j as f32 / r as f32;
        let rad = bottom + (top - bottom) * t;
        for i in 0..c {
            let (x, z) = around(i, c);
            m.add_point(Vec3::new(x * rad, (t - 0.5) * height, z * rad));
        }
    }
    let at = |j: u32, i: u32| j * c + i % c;
    for j in 0..last {
        for i in 0..c {
            m.add_polygon(&[at(j, i), at(j, i + 1), at(j + 1, i + 1), at(j + 1, i)]);
        }
    }
    if apex {
        let tip = m.add_point(Vec3::Y * height * 0.5);
        for i in 0..c {
            m.add_polygon(&[at(last, i), at(last, i + 1), tip]);
        }
    } else {
        let cap: Vec<u32> = (0..c).map(|i| at(last, i)).collect();
        m.add_polygon(&cap);
    }
    let base: Vec<u32> = (0..c).rev().map(|i| at(0, i)).collect();
    m.add_polygon(&base);
    Ok(m)
}

/// A closed cylinder of `radius` and `height`, centred on the origin.
pub fn cylinder(
    node: &str,
    radius: f32,
    height: f32,
    cols: u32,
    rows: u32,
) -> Result<Mesh, LimitError> {
    tube(node, radius, radius, height, cols, rows)
}

/// A closed cone with a base of `radius` at y = −height/2 and its tip at +height/2.
pub fn cone(
    node: &str,
    radius: f32,
    height: f32,
    cols: u32,
    rows: u32,
) -> Result<Mesh, LimitError> {
    tube(node, radius, 0.0, height, cols, rows)
}

/// A torus about the Y axis: the tube of radius `minor` swept around a circle of radius
/// `major`, in `cols` steps around the axis and `rows` around the tube.
pub fn torus(node: &str, major: f32, minor: f32, cols: u32, rows: u32) -> Result<Mesh, LimitError> {
    let (c, r) = (cols.max(3) as u64, rows.max(3) as u64);
    check_size(node, c * r, c * r, 4 * c * r)?;
    let (c, r) = (c as u32, r as u32);
    let mut m = Mesh::new();
    for i in 0..c {
        let (x, z) = around(i, c);
        for j in 0..r {
            let psi = TAU * j as f32 / r as f32;
            let rad = major + minor * psi.cos();
            m.add_point(Vec3::new(x * rad, minor * psi.sin(), z * rad));
        }
    }
    let at = |i: u32, j: u32| (i % c) * r + j % r;
    for i in 0..c {
        for j in 0..r {
            m.add_polygon(&[at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    Ok(m)
}
