//! A mesh's points as lists: `mesh.point_list` gives every point's position in order and,
//! after `mesh.normals`, each point's unit normal (on a sphere, the direction of the point).

use kiln_core::prelude::*;
use kiln_mesh::Mesh;

#[test]
fn a_spheres_points_and_normals_come_out_as_lists_of_vec3() {
    let mut g = Graph::new();
    g.add_node("ball", "mesh.icosphere").unwrap();
    g.set_param("ball", "level", Value::Int(1)).unwrap();
    g.add_node("smooth", "mesh.normals").unwrap();
    g.wire("ball.out", "smooth.mesh");
    g.add_node("bare", "mesh.point_list").unwrap();
    g.wire("ball.out", "bare.mesh");
    g.add_node("pts", "mesh.point_list").unwrap();
    g.wire("smooth.out", "pts.mesh");
    let mut eval = LazyEvaluator::new(kiln_mesh::registry());
    let out = eval
        .evaluate(
            &g,
            &Request::new(["ball", "pts.points", "pts.normals", "bare.normals"]),
            &EvalContext::new(),
        )
        .unwrap();
    let ball = out.get("ball").unwrap().as_heavy::<Mesh>().unwrap();
    // An icosahedron split once: 12 + 30 points.
    assert_eq!(ball.points.len(), 42);
    let points = out.get("pts.points").unwrap().as_list().unwrap();
    let normals = out.get("pts.normals").unwrap().as_list().unwrap();
    assert_eq!((points.len(), normals.len()), (42, 42));
    for (i, (p, n)) in points.iter().zip(normals).enumerate() {
        let (Value::Vec3(p), Value::Vec3(n)) = (p, n) else {
            panic!("not vec3")
        };
        let q = ball.points[i];
        assert_eq!(*p, [q.x as f64, q.y as f64, q.z as f64]);
        // A unit sphere: the smooth normal is close to the point's own direction.
        let dot: f64 = (0..3).map(|k| p[k] * n[k]).sum();
        let len: f64 = n.iter().map(|c| c * c).sum::<f64>().sqrt();
        assert!((len - 1.0).abs() < 1e-5 && dot > 0.98, "point {i}: {dot}");
    }
    // No point `N`: no normals.
    assert_eq!(out.get("bare.normals").unwrap().as_list().unwrap().len(), 0);
}
