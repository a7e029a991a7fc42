//! Spheres: by latitude and longitude, and by subdividing an icosahedron.

use crate::geometry::Mesh;
use crate::limits::{LimitError, check_size};
use crate::measure::edge_key;
use glam::Vec3;
use std::collections::HashMap;
use std::f32::consts::{PI, TAU};

/// A sphere of `radius` with `rows` bands of latitude and `cols` of longitude (Y is the
/// axis): a point at each pole, triangles around the poles, quads between.
pub fn uv_sphere(node: &str, radius: f32, rows: u32, cols: u32) -> Result<Mesh, LimitError> {
    let (r, c) = (rows.max(2) as u64, cols.max(3) as u64);
    check_size(node, c * (r - 1) + 2, c * r, 4 * c * r)?;
    let (r, c) = (r as u32, c as u32);
    let mut m = Mesh::new();
    m.add_point(Vec3::Y * radius);
    for j in 1..r {
        let theta = PI * j as f32 / r as f32;
        for i in 0..c {
            let phi = TAU * i as f32 / c as f32;
            let d = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                -theta.sin() * phi.sin(),
            );
            m.add_point(d * radius);
        }
    }
    let south = m.add_point(-Vec3::Y * radius);
    let ring = |j: u32, i: u32| 1 + (j - 1) * c + i % c;
    for i in 0..c {
        m.add_polygon(&[0, ring(1, i), ring(1, i + 1)]);
    }
    for j in 1..r - 1 {
        for i in 0..c {
            m.add_polygon(&[
                ring(j, i),
                ring(j + 1, i),
                ring(j + 1, i + 1),
                ring(j, i + 1),
            ]);
        }
    }
    for i in 0..c {
        m.add_polygon(&[ring(r - 1, i), south, ring(r - 1, i + 1)]);
    }
    Ok(m)
}

/// The 12 points and 20 faces of a regular icosahedron on the unit sphere.
fn icosahedron() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let t = (1.0 + 5f32.sqrt()) / 2.0;
    let pts = [
        [-1.0, t, 0.0],
        [1.0, t, 0.0],
        [-1.0, -t, 0.0],
        [1.0, -t, 0.0],
        [0.0, -1.0, t],
        [0.0, 1.0, t],
        [0.0, -1.0, -t],
        [0.0, 1.0, -t],
        [t, 0.0, -1.0],
        [t, 0.0, 1.0],
        [-t, 0.0, -1.0],
        [-t, 0.0, 1.0],
    ]
    .map(|p| Vec3::from_array(p).normalize());
    let faces = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    (pts.to_vec(), faces)
}

/// A sphere of `radius` made by splitting each face of an icosahedron into four `level`
/// times and pushing the new points onto the sphere: 20 × 4^level triangles.
pub fn icosphere(node: &str, radius: f32, level: u32) -> Result<Mesh, LimitError> {
    let faces = 20u64.saturating_mul(4u64.saturating_pow(level));
    check_size(node, faces / 2 + 2, faces, faces.saturating_mul(3))?;
    let (mut pts, mut tris) = icosahedron();
    for _ in 0..level {
        let mut mid: HashMap<(u32, u32), u32> = HashMap::with_capacity(tris.len() * 3 / 2);
        let mut next = Vec::with_capacity(tris.len() * 4);
        for [a, b, c] in tris {
            let mut split = |x: u32, y: u32| {
                *mid.entry(edge_key(x, y)).or_insert_with(|| {
                    pts.push(((pts[x as usize] + pts[y as usize]) * 0.5).normalize());
                    (pts.len() - 1) as u32
                })
            };
            let (ab, bc, ca) = (split(a, b), split(b, c), split(c, a));
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        tris = next;
    }
    let mut m = Mesh::new();
    m.points = pts.into_iter().map(|p| p * radius).collect();
    for t in tris {
        m.add_polygon(&t);
    }
    Ok(m)
}
