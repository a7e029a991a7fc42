//! The workloads of the `mesh` benchmark, each through Kiln beside the same work written
//! directly on plain vectors (the limit) and, for simplification, beside meshoptimizer
//! called directly (the peer):
//!
//! * `subdivide`: one level of Catmull–Clark on a grid of [`GRID`] × [`GRID`] quads
//!   (99,856 faces), then smooth point normals, through a graph
//!   (`input.mesh → mesh.subdivide → mesh.normals`) in a fresh lazy evaluator, beside
//!   [`limit_subdivide`] on a `Vec<[u32; 4]>` of quads.
//! * `simplify`: an icosphere of level 6 (81,920 triangles) to half, through
//!   `mesh.simplify`, beside `meshopt::simplify_decoder` on the same index list.
//! * `boolean`: the union of two overlapping icospheres of level 4 (5,120 triangles each),
//!   through `mesh.boolean`, beside `boolmesh::compute_boolean` called directly on the same
//!   triangles.
//! * `copy`: a box (6 quads) copied onto [`COPIES`] points, through
//!   `mesh.copy_to_points`, beside [`limit_copy`] (translate and scale per copy).

use glam::{Vec2, Vec3};
use kiln_core::prelude::*;
use kiln_mesh::Mesh;
use kiln_mesh::generate::{cube, grid, icosphere};
use std::collections::HashMap;

/// Quads along each side of the subdivided grid.
pub const GRID: u32 = 316;
/// Points copied onto in the `copy` workload.
pub const COPIES: usize = 100_000;

/// The registry the workloads run in.
pub fn registry() -> Registry {
    kiln_mesh::registry()
}

/// The input of `subdivide`: a gently waved grid (so normals differ from point to point).
pub fn wavy_grid() -> Mesh {
    let mut g = grid("g", Vec2::splat(10.0), GRID, GRID).unwrap_or_default();
    for p in &mut g.points {
        p.y = (p.x * 1.3).sin() * (p.z * 0.7).cos() * 0.4;
    }
    g.point_attrs = Default::default();
    g
}

/// A graph of one mesh input `m` through the ops `chain` (each `(op, params)`), the last
/// node requested as `out`.
pub fn chain_graph(chain: &[(&str, &[(&str, Value)])]) -> Graph {
    let mut g = Graph::new();
    let _ = g.add_node("m", kiln_mesh::INPUT_MESH_OP);
    let _ = g.set_param("m", "name", Value::str("m"));
    let mut prev = "m".to_string();
    for (i, (op, params)) in chain.iter().enumerate() {
        let id = if i + 1 == chain.len() {
            "out".to_string()
        } else {
            format!("n{i}")
        };
        let _ = g.add_node(id.as_str(), op);
        for (k, v) in params.iter() {
            let _ = g.set_param(&id, k, v.clone());
        }
        let input = if *op == "mesh.copy_to_points" {
            "source"
        } else {
            "mesh"
        };
        g.connect(
            PortRef::new(prev.as_str(), "out"),
            PortRef::new(id.as_str(), input),
        );
        prev = id;
    }
    g
}

/// Run `graph` on input mesh `m` in a fresh lazy evaluator; the mesh at `out`.
pub fn run_graph(
    reg: &Registry,
    graph: &Graph,
    m: &Value,
    extra: &[(&str, Value)],
) -> Option<Value> {
    let mut ctx = EvalContext::new();
    ctx.inputs.insert("m".into(), m.clone());
    for (k, v) in extra {
        ctx.inputs.insert((*k).into(), v.clone());
    }
    let mut eval = LazyEvaluator::new(reg.clone());
    let out = eval.evaluate(graph, &Request::new(["out"]), &ctx).ok()?;
    out.get("out").cloned()
}

/// Catmull–Clark on quads and smooth normals, written directly: the positions and unit
/// normals of the new points (original points, then face points, then edge points).
pub fn limit_subdivide(
    points: &[Vec3],
    quads: &[[u32; 4]],
) -> (Vec<Vec3>, Vec<[u32; 4]>, Vec<Vec3>) {
    let (v, f) = (points.len(), quads.len());
    let mut edge_of: HashMap<(u32, u32), u32> = HashMap::with_capacity(f * 2);
    let mut edges: Vec<[u32; 2]> = Vec::with_capacity(f * 2);
    let mut edge_faces: Vec<[u32; 2]> = Vec::with_capacity(f * 2);
    let mut corner_edge = vec![0u32; f * 4];
    for (fi, q) in quads.iter().enumerate() {
        for k in 0..4 {
            let (a, b) = (q[k], q[(k + 1) % 4]);
            let key = if a < b { (a, b) } else { (b, a) };
            let e = *edge_of.entry(key).or_insert_with(|| {
                edges.push([key.0, key.1]);
                edge_faces.push([u32::MAX; 2]);
                (edges.len() - 1) as u32
            });
            let s = &mut edge_faces[e as usize];
            if s[0] == u32::MAX {
                s[0] = fi as u32
            } else {
                s[1] = fi as u32
            }
            corner_edge[fi * 4 + k] = e;
        }
    }
    let centre: Vec<Vec3> = quads
        .iter()
        .map(|q| q.iter().map(|&i| points[i as usize]).sum::<Vec3>() * 0.25)
        .collect();
    let mut face_sum = vec![Vec3::ZERO; v];
    let mut face_n = vec![0u32; v];
    for (fi, q) in quads.iter().enumerate() {
        for &p in q {
            face_sum[p as usize] += centre[fi];
            face_n[p as usize] += 1;
        }
    }
    let mut mid_sum = vec![Vec3::ZERO; v];
    let mut valence = vec![0u32; v];
    let mut open_nb: Vec<Vec<u32>> = vec![Vec::new(); v];
    for (e, [a, b]) in edges.iter().enumerate() {
        let mid = (points[*a as usize] + points[*b as usize]) * 0.5;
        for (p, q) in [(*a, *b), (*b, *a)] {
            mid_sum[p as usize] += mid;
            valence[p as usize] += 1;
            if edge_faces[e][1] == u32::MAX {
                open_nb[p as usize].push(q);
            }
        }
    }
    let mut out = Vec::with_capacity(v + f + edges.len());
    for p in 0..v {
        let here = points[p];
        out.push(match open_nb[p].as_slice() {
            [] if valence[p] > 0 => {
                let n = valence[p] as f32;
                let fa = face_sum[p] / face_n[p] as f32;
                let r = mid_sum[p] / n;
                (fa + 2.0 * r + (n - 3.0) * here) / n
            }
            [a, b] => here * 0.75 + (points[*a as usize] + points[*b as usize]) * 0.125,
            _ => here,
        });
    }
    out.extend_from_slice(&centre);
    for (e, [a, b]) in edges.iter().enumerate() {
        let [f0, f1] = edge_faces[e];
        let ends = points[*a as usize] + points[*b as usize];
        out.push(if f1 == u32::MAX {
            ends * 0.5
        } else {
            (ends + centre[f0 as usize] + centre[f1 as usize]) * 0.25
        });
    }
    let ep = |e: u32| (v + f) as u32 + e;
    let mut faces = Vec::with_capacity(f * 4);
    for (fi, q) in quads.iter().enumerate() {
        for k in 0..4 {
            let prev = fi * 4 + (k + 3) % 4;
            faces.push([
                q[k],
                ep(corner_edge[fi * 4 + k]),
                (v + fi) as u32,
                ep(corner_edge[prev]),
            ]);
        }
    }
    let mut normals = vec![Vec3::ZERO; out.len()];
    for q in &faces {
        let mut n = Vec3::ZERO;
        for k in 0..4 {
            n += out[q[k] as usize].cross(out[q[(k + 1) % 4] as usize]);
        }
        q.iter().for_each(|&p| normals[p as usize] += n);
    }
    normals.iter_mut().for_each(|n| *n = n.normalize_or_zero());
    (out, faces, normals)
}

/// The quads of a mesh of quads.
pub fn quads_of(m: &Mesh) -> Vec<[u32; 4]> {
    (0..m.prims.len())
        .map(|f| {
            let p = m.prim_points(f);
            [p[0], p[1], p[2], p[3]]
        })
        .collect()
}

/// The input of `simplify`: an icosphere of level 6.
pub fn sphere() -> Mesh {
    icosphere("s", 1.0, 6).unwrap_or_default()
}

/// The inputs of `boolean`: two unit icospheres of level 4, the second moved by (0.7, 0.3, 0.2).
pub fn boolean_inputs() -> (Mesh, Mesh) {
    let a = icosphere("a", 1.0, 4).unwrap_or_default();
    let mut b = a.clone();
    b.points
        .iter_mut()
        .for_each(|p| *p += Vec3::new(0.7, 0.3, 0.2));
    (a, b)
}

/// The boolean peer called directly: the union of `a` and `b` as boolmesh manifolds; the
/// number of triangles.
pub fn boolmesh_union(a: &(Vec<f64>, Vec<usize>), b: &(Vec<f64>, Vec<usize>)) -> usize {
    use boolmesh::prelude::{Manifold, OpType, compute_boolean};
    let (Ok(ma), Ok(mb)) = (Manifold::new(&a.0, &a.1), Manifold::new(&b.0, &b.1)) else {
        return 0;
    };
    compute_boolean(&ma, &mb, OpType::Add).map_or(0, |r| r.hs.len() / 3)
}

/// A mesh's positions and triangle indices as boolmesh takes them.
pub fn boolmesh_arrays(m: &Mesh) -> (Vec<f64>, Vec<usize>) {
    (
        m.points
            .iter()
            .flat_map(|p| p.as_dvec3().to_array())
            .collect(),
        m.triangles()
            .into_iter()
            .flatten()
            .map(|i| i as usize)
            .collect(),
    )
}

/// The targets of `copy`: a 316 × 316 lattice with a `pscale` each.
pub fn copy_targets() -> Mesh {
    let mut m = Mesh::new();
    let side = (COPIES as f64).sqrt().ceil() as usize;
    let mut scale = Vec::with_capacity(COPIES);
    for i in 0..COPIES {
        m.add_point(Vec3::new((i % side) as f32, 0.0, (i / side) as f32));
        scale.push(0.25 + (i % 7) as f32 * 0.05);
    }
    m.point_attrs
        .insert("pscale", kiln_mesh::AttribValues::Float(scale));
    m
}

/// The box copied.
pub fn copy_source() -> Mesh {
    cube(Vec3::splat(0.5))
}

/// Copies written directly: each copy's points scaled by `pscale` and moved to its point,
/// its quads offset.
pub fn limit_copy(source: &Mesh, targets: &Mesh) -> (Vec<Vec3>, Vec<[u32; 4]>) {
    let scale = targets.point_attrs.float("pscale").unwrap_or(&[]);
    let quads = quads_of(source);
    let n = targets.points.len();
    let mut pts = Vec::with_capacity(n * source.points.len());
    let mut faces = Vec::with_capacity(n * quads.len());
    for (i, &t) in targets.points.iter().enumerate() {
        let s = scale.get(i).copied().unwrap_or(1.0);
        let base = pts.len() as u32;
        pts.extend(source.points.iter().map(|&p| p * s + t));
        faces.extend(quads.iter().map(|q| q.map(|k| k + base)));
    }
    (pts, faces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_does_what_the_graph_does() {
        let mut g = grid("g", Vec2::splat(2.0), 6, 5).unwrap();
        g.point_attrs = Default::default();
        for p in &mut g.points {
            p.y = p.x * p.z;
        }
        let reg = registry();
        let graph = chain_graph(&[
            ("mesh.subdivide", &[]),
            ("mesh.normals", &[("mode", Value::str("smooth"))]),
        ]);
        let out = run_graph(&reg, &graph, &g.clone().into_value(), &[]).unwrap();
        let k = out.as_heavy::<Mesh>().unwrap();
        let (pts, faces, normals) = limit_subdivide(&g.points, &quads_of(&g));
        assert_eq!((k.points.len(), k.prims.len()), (pts.len(), faces.len()));
        let n = k.point_attrs.vec3("N").unwrap();
        for i in 0..pts.len() {
            assert!((k.points[i] - pts[i]).length() < 1e-5);
            assert!((n[i] - normals[i]).length() < 1e-4);
        }
        let mut targets = copy_targets();
        targets.points.truncate(50);
        if let Some(kiln_mesh::AttribValues::Float(s)) = targets.point_attrs.get_mut("pscale") {
            s.truncate(50);
        }
        let copied = kiln_mesh::edit::copy::copy_to_points("c", &copy_source(), &targets).unwrap();
        let (cp, cf) = limit_copy(&copy_source(), &targets);
        assert_eq!(copied.prims.len(), cf.len());
        assert!(
            copied
                .points
                .iter()
                .zip(&cp)
                .all(|(a, b)| (*a - *b).length() < 1e-5)
        );
    }
}
