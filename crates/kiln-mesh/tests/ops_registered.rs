//! The mesh ops are registered once, documented, and run through an evaluator.

use kiln_core::prelude::*;
use kiln_mesh::Mesh;
use kiln_mesh::measure::{euler_characteristic, is_closed_manifold};

#[test]
fn mesh_ops_are_documented_and_distinct() {
    let mut reg = kiln_std::registry();
    let before = reg.len();
    kiln_mesh::register(&mut reg).expect("no id taken twice");
    assert!(reg.len() > before);
    for op in reg.iter().filter(|op| op.spec().id.starts_with("mesh.")) {
        let s = op.spec();
        assert!(!s.doc.is_empty(), "{} has no doc", s.id);
        assert!(s.inputs.iter().all(|p| !p.doc.is_empty()), "{}", s.id);
        assert!(s.params.iter().all(|p| !p.doc.is_empty()), "{}", s.id);
    }
    assert!(kiln_mesh::register(&mut reg).is_err());
}

#[test]
fn a_generator_cooks_in_a_graph_and_its_errors_name_the_node() {
    let mut g = Graph::new();
    g.add_node("ball", "mesh.icosphere").unwrap();
    let mut eval = LazyEvaluator::new(kiln_mesh::registry());
    let out = eval
        .evaluate(&g, &Request::new(["ball"]), &EvalContext::new())
        .unwrap();
    let m = out.get("ball").unwrap().as_heavy::<Mesh>().unwrap();
    assert_eq!(m.prims.len(), 320);
    assert!(is_closed_manifold(m));
    assert_eq!(euler_characteristic(m), 2);

    let mut g = Graph::new();
    g.add_node("huge", "mesh.grid").unwrap();
    g.set_param("huge", "cols", Value::Int(100_000)).unwrap();
    g.set_param("huge", "rows", Value::Int(100_000)).unwrap();
    let e = eval
        .evaluate(&g, &Request::new(["huge"]), &EvalContext::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("huge") && e.contains("MAX_POINTS"), "{e}");
}

#[test]
fn merge_all_unwired_is_an_empty_mesh() {
    // Several wires into its collective input are queued by the plan (design 013); the
    // graph-file test is in kiln-cli's mesh_examples.rs.
    let mut g = Graph::new();
    g.add_node("none", "mesh.merge_all").unwrap();
    let mut eval = LazyEvaluator::new(kiln_mesh::registry());
    let out = eval
        .evaluate(&g, &Request::new(["none"]), &EvalContext::new())
        .unwrap();
    let m = out.get("none").unwrap().as_heavy::<Mesh>().unwrap();
    assert_eq!((m.points.len(), m.prims.len()), (0, 0));
}
