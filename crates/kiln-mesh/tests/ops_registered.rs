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

#[test]
fn a_boolean_whose_result_is_not_closed_is_an_error_not_a_panic() {
    // Found by the `evaluate` fuzz target: an icosphere with every face extruded (closed,
    // but cutting through itself), displaced by noise, united with the same extrusion
    // undisplaced: boolmesh's triangulation left a half-edge without an opposite and its
    // simplification indexed past its list. It is refused now
    // (vendor/boolmesh/KILN-PATCH.md, patch 3).
    let mut g = Graph::new();
    g.add_node("ball", "mesh.icosphere").unwrap();
    for id in ["out1", "out2"] {
        g.add_node(id, "mesh.extrude").unwrap();
        g.wire("ball.out", &format!("{id}.mesh"));
    }
    g.add_node("bumpy", "mesh.displace").unwrap();
    g.set_param("bumpy", "octaves", Value::Int(2)).unwrap();
    g.wire("out1.out", "bumpy.mesh");
    g.add_node("cut", "mesh.boolean").unwrap();
    g.wire("bumpy.out", "cut.a");
    g.wire("out2.out", "cut.b");
    let mut eval = LazyEvaluator::new(kiln_mesh::registry());
    let out = eval
        .evaluate(
            &g,
            &Request::new(["cut"]).with_errors(ErrorPolicy::Propagate),
            &EvalContext::new(),
        )
        .unwrap();
    let failure = out
        .failures
        .iter()
        .find(|f| f.op == "mesh.boolean")
        .unwrap_or_else(|| panic!("the boolean did not fail: {:?}", out.failures));
    let said = failure.error.to_string();
    assert!(
        !matches!(failure.error, EvalError::Panic { .. }) && said.contains("not closed"),
        "{said}"
    );
}

/// A scatter cancelled from its own progress report ends as cancelled, not after all its
/// tries: the op reports node progress and reads the cancel token while it works.
#[test]
fn a_scatter_reports_node_progress_and_a_cancel_stops_it() {
    use kiln_core::context::{CancelToken, Progress, ProgressSink};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let mut g = Graph::new();
    g.add_node("plane", "mesh.grid").unwrap();
    g.add_node("dust", "mesh.scatter").unwrap();
    g.set_param("dust", "count", Value::Int(1_000_000)).unwrap();
    g.set_const("dust", "min_distance", Value::Float(1e-5))
        .unwrap();
    g.wire("plane.out", "dust.mesh");
    let token = CancelToken::new();
    let reports = Arc::new(AtomicUsize::new(0));
    let (t, r) = (token.clone(), reports.clone());
    let sink = Arc::new(move |p: &Progress<'_>| {
        if p.node == Some("dust") && p.node_fraction.is_some() {
            r.fetch_add(1, Ordering::SeqCst);
            t.cancel();
        }
    }) as Arc<dyn ProgressSink>;
    let mut ctx = EvalContext::new();
    ctx.cancel = token;
    ctx.progress = Some(sink);
    let mut eval = LazyEvaluator::new(kiln_mesh::registry());
    let e = eval
        .evaluate(&g, &Request::new(["dust"]), &ctx)
        .unwrap_err();
    assert!(matches!(e, EvalError::Cancelled), "{e:?}");
    assert_eq!(
        reports.load(Ordering::SeqCst),
        1,
        "stopped at its first report"
    );
}
