//! Meshes: Kiln's mesh ops beside the same work written directly and beside a peer crate,
//! in one run.
//!
//! The workloads are [`kiln_bench::mesh`]'s:
//!
//! * `subdivide`: Catmull–Clark (one level) and smooth normals of a 99,856-quad grid, through
//!   a graph in a fresh lazy evaluator (`kiln`) beside a hand-written loop on a `Vec` of
//!   quads (`limit`); reported in ns per input face; the goal is Kiln ≤ 1.5 × limit.
//! * `simplify`: an 81,920-triangle icosphere to half, through `mesh.simplify` (`kiln`)
//!   beside `meshopt::simplify_decoder` called directly (`meshopt`); Kiln's share is the
//!   graph, the fan triangulation and the compaction around the same call (goal ≤ 1.05 ×, the
//!   issue's goal for a peer called through Kiln).
//! * `boolean`: the union of two overlapping 5,120-triangle icospheres through
//!   `mesh.boolean` (`kiln`) beside `boolmesh::compute_boolean` called directly (`boolmesh`);
//!   goal ≤ 1.05 ×.
//! * `copy`: a box copied onto 100,000 points, through `mesh.copy_to_points` (`kiln`) beside
//!   a loop that scales and moves each copy (`limit`); ns per copy.
//!
//! Run: `cargo bench -p kiln-bench --bench mesh`. Criterion groups come first, then a
//! summary measured in the same process (median of interleaved repetitions, [`PLAN`]) that
//! prints each ratio and whether its goal was met. Before timing, each Kiln result is
//! checked against its limit or peer (same counts; the same positions within 1e-4).

use criterion::Criterion;
use kiln_bench::mesh::*;
use kiln_bench::summary::{Plan, bench_mode, loadavg, time_runs, verdict};
use kiln_core::prelude::*;
use kiln_mesh::Mesh;
use std::time::Duration;

/// 11 repetitions of about 300 ms (a run takes tens of milliseconds).
const PLAN: Plan = Plan {
    reps: 11,
    target: Duration::from_millis(300),
    max_runs: 1_000,
    probes: 2,
};

/// Positions and triangle indices as boolmesh takes them.
type BoolArrays = (Vec<f64>, Vec<usize>);

struct Work {
    reg: Registry,
    grid: Value,
    grid_points: Vec<glam::Vec3>,
    grid_quads: Vec<[u32; 4]>,
    subdivide: Graph,
    sphere: Value,
    sphere_points: Vec<[f32; 3]>,
    sphere_tris: Vec<u32>,
    simplify: Graph,
    bool_a: Value,
    bool_b: Value,
    bool_arrays: (BoolArrays, BoolArrays),
    boolean: Graph,
    source: Mesh,
    targets: Mesh,
    copy: Graph,
}

fn mesh_of(v: &Value) -> &Mesh {
    v.as_heavy::<Mesh>().expect("a mesh")
}

impl Work {
    fn new() -> Work {
        let g = wavy_grid();
        let s = sphere();
        let (ba, bb) = boolean_inputs();
        let mut boolean = Graph::new();
        for id in ["m", "b"] {
            boolean
                .add_node(id, kiln_mesh::INPUT_MESH_OP)
                .expect("node");
            boolean
                .set_param(id, "name", Value::str(id))
                .expect("param");
        }
        boolean.add_node("out", "mesh.boolean").expect("node");
        boolean.connect(PortRef::new("m", "out"), PortRef::new("out", "a"));
        boolean.connect(PortRef::new("b", "out"), PortRef::new("out", "b"));
        let mut copy = chain_graph(&[("mesh.copy_to_points", &[])]);
        copy.add_node("t", kiln_mesh::INPUT_MESH_OP).expect("node");
        copy.set_param("t", "name", Value::str("t")).expect("param");
        copy.connect(PortRef::new("t", "out"), PortRef::new("out", "target"));
        Work {
            reg: registry(),
            grid_points: g.points.clone(),
            grid_quads: quads_of(&g),
            grid: g.into_value(),
            subdivide: chain_graph(&[
                ("mesh.subdivide", &[]),
                ("mesh.normals", &[("mode", Value::str("smooth"))]),
            ]),
            sphere_points: s.points.iter().map(|p| p.to_array()).collect(),
            sphere_tris: s.triangles().into_iter().flatten().collect(),
            sphere: s.into_value(),
            simplify: chain_graph(&[("mesh.simplify", &[])]),
            bool_arrays: (boolmesh_arrays(&ba), boolmesh_arrays(&bb)),
            bool_a: ba.into_value(),
            bool_b: bb.into_value(),
            boolean,
            source: copy_source(),
            targets: copy_targets(),
            copy,
        }
    }
    fn kiln_subdivide(&self) -> Value {
        run_graph(&self.reg, &self.subdivide, &self.grid, &[]).expect("subdivides")
    }
    fn limit_subdivide(&self) -> usize {
        limit_subdivide(&self.grid_points, &self.grid_quads).1.len()
    }
    fn kiln_simplify(&self) -> Value {
        run_graph(&self.reg, &self.simplify, &self.sphere, &[]).expect("simplifies")
    }
    fn meshopt_simplify(&self) -> usize {
        let target = self.sphere_tris.len() / 3 / 2;
        kiln_mesh::edit::simplify::simplify_indices(
            &self.sphere_points,
            &self.sphere_tris,
            target,
            0.01,
        )
        .len()
    }
    fn kiln_boolean(&self) -> Value {
        let b = [("b", self.bool_b.clone())];
        run_graph(&self.reg, &self.boolean, &self.bool_a, &b).expect("unites")
    }
    fn boolmesh_boolean(&self) -> usize {
        boolmesh_union(&self.bool_arrays.0, &self.bool_arrays.1)
    }
    fn kiln_copy(&self) -> Value {
        let t = [("t", self.targets.clone().into_value())];
        run_graph(&self.reg, &self.copy, &self.source.clone().into_value(), &t).expect("copies")
    }
    fn limit_copy(&self) -> usize {
        limit_copy(&self.source, &self.targets).1.len()
    }

    /// Each Kiln result against its limit or peer.
    fn check(&self) {
        let k = self.kiln_subdivide();
        let (pts, faces, normals) = limit_subdivide(&self.grid_points, &self.grid_quads);
        let m = mesh_of(&k);
        assert_eq!((m.points.len(), m.prims.len()), (pts.len(), faces.len()));
        let n = m.point_attrs.vec3("N").expect("normals");
        for i in 0..pts.len() {
            assert!((m.points[i] - pts[i]).length() < 1e-4, "point {i}");
            // Points agree within 1e-4 on faces about 0.03 wide, so a face's direction (and
            // a point's normal) may turn by up to about 1e-4 / 0.03.
            assert!(
                (n[i] - normals[i]).length() < 5e-3,
                "normal {i}: {} vs {} at {}",
                n[i],
                normals[i],
                pts[i]
            );
        }
        let s = self.kiln_simplify();
        assert_eq!(mesh_of(&s).prims.len() * 3, self.meshopt_simplify());
        let u = self.kiln_boolean();
        assert_eq!(mesh_of(&u).prims.len(), self.boolmesh_boolean());
        let c = self.kiln_copy();
        let (cp, cf) = limit_copy(&self.source, &self.targets);
        let m = mesh_of(&c);
        assert_eq!(m.prims.len(), cf.len());
        assert!(
            m.points
                .iter()
                .zip(&cp)
                .all(|(a, b)| (*a - *b).length() < 1e-4)
        );
    }
}

type Run<'a> = Box<dyn Fn(u64) -> Duration + 'a>;

fn variants(w: &Work) -> Vec<(&'static str, &'static str, Run<'_>)> {
    vec![
        (
            "subdivide",
            "kiln",
            Box::new(move |n| time_runs(n, || w.kiln_subdivide())),
        ),
        (
            "subdivide",
            "limit",
            Box::new(move |n| time_runs(n, || w.limit_subdivide())),
        ),
        (
            "simplify",
            "kiln",
            Box::new(move |n| time_runs(n, || w.kiln_simplify())),
        ),
        (
            "simplify",
            "meshopt",
            Box::new(move |n| time_runs(n, || w.meshopt_simplify())),
        ),
        (
            "boolean",
            "kiln",
            Box::new(move |n| time_runs(n, || w.kiln_boolean())),
        ),
        (
            "boolean",
            "boolmesh",
            Box::new(move |n| time_runs(n, || w.boolmesh_boolean())),
        ),
        (
            "copy",
            "kiln",
            Box::new(move |n| time_runs(n, || w.kiln_copy())),
        ),
        (
            "copy",
            "limit",
            Box::new(move |n| time_runs(n, || w.limit_copy())),
        ),
    ]
}

fn summary(w: &Work, vs: &[(&'static str, &'static str, Run<'_>)]) {
    let load_start = loadavg();
    let m = PLAN.medians(vs.len(), |i, n| (vs[i].2)(n));
    w.check();
    PLAN.print_opening(&load_start, "");
    println!(
        "| workload | Kiln ms | other ms | Kiln / other | Kiln ns per item | goal | verdict |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|");
    let rows = [
        (
            "subdivide + normals vs limit",
            0,
            1,
            w.grid_quads.len(),
            1.5,
        ),
        ("simplify vs meshopt", 2, 3, w.sphere_tris.len() / 3, 1.05),
        ("boolean vs boolmesh", 4, 5, 2 * 5120, 1.05),
        ("copy to points vs limit", 6, 7, w.targets.points.len(), 1.5),
    ];
    for (name, k, o, items, goal) in rows {
        let ratio = m[k] / m[o];
        println!(
            "| {name} | {:.2} | {:.2} | {ratio:.2} | {:.1} | ≤ {goal} | {} |",
            m[k] / 1e6,
            m[o] / 1e6,
            m[k] / items as f64,
            verdict(ratio <= goal)
        );
    }
    println!();
}

fn main() {
    let w = Work::new();
    w.check();
    let vs = variants(&w);
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    for workload in ["subdivide", "simplify", "boolean", "copy"] {
        let mut g = c.benchmark_group(format!("mesh_{workload}"));
        for (_, who, run) in vs.iter().filter(|v| v.0 == workload) {
            g.bench_function(*who, |b| b.iter_custom(run));
        }
        g.finish();
    }
    c.final_summary();
    if bench_mode() {
        summary(&w, &vs);
    }
}
