//! The colour ramp nodes (`image.ramp`, `color.ramp`) driven through real graphs and the
//! lazy evaluator.

use kiln_core::context::EvalContext;
use kiln_core::eval::{EvalError, Evaluator, LazyEvaluator, Request};
use kiln_core::graph::Graph;
use kiln_core::value::Value;
use kiln_image::image::Image;
use std::sync::Arc;

fn evaluator() -> LazyEvaluator {
    LazyEvaluator::new(kiln_image::registry())
}

fn eval(g: &Graph, node: &str) -> Result<Value, EvalError> {
    let out = evaluator().evaluate(g, &Request::new([node]), &EvalContext::new())?;
    Ok(out.get(node).expect("requested output").clone())
}

fn image(v: &Value) -> &Image {
    v.as_heavy::<Image>()
        .unwrap_or_else(|| panic!("expected an image, got {v:?}"))
}

/// The port and message of a node error.
fn node_error(r: Result<Value, EvalError>) -> (Option<String>, String) {
    match r {
        Err(EvalError::Node { port, message, .. }) => (port, message),
        other => panic!("expected a node error, got {other:?}"),
    }
}

fn list(v: Vec<Value>) -> Value {
    Value::List(Arc::from(v))
}

fn stop(pos: f64, c: Value) -> Value {
    list(vec![Value::Float(pos), c])
}

fn fill(g: &mut Graph, id: &str, w: i64, h: i64, c: [f32; 4]) {
    g.add_node(id, "image.fill").unwrap();
    g.set_param(id, "width", w).unwrap();
    g.set_param(id, "height", h).unwrap();
    g.set_const(id, "color", Value::Color(c)).unwrap();
}

fn ramp_stops() -> Value {
    list(vec![
        stop(0.0, Value::str("#ff0000")),
        stop(1.0, Value::Color([0.0, 0.0, 1.0, 0.5])),
    ])
}

fn image_ramp_of(c: [f32; 4], stops: Value) -> Result<Value, EvalError> {
    let mut g = Graph::new();
    fill(&mut g, "f", 4, 3, c);
    g.add_node("r", "image.ramp").unwrap();
    g.set_const("r", "stops", stops).unwrap();
    g.wire("f.out", "r.image");
    eval(&g, "r")
}

fn color_ramp_at(t: f64, stops: Value) -> Result<Value, EvalError> {
    let mut g = Graph::new();
    g.add_node("r", "color.ramp").unwrap();
    g.set_const("r", "stops", stops).unwrap();
    g.set_const("r", "t", t).unwrap();
    eval(&g, "r")
}

fn close(a: [f32; 4], b: [f32; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
}

#[test]
fn ramp_endpoints_are_exact_and_midpoint_interpolates() {
    let red = [1.0, 0.0, 0.0, 1.0];
    let blue = [0.0, 0.0, 1.0, 0.5];
    // Image: black has luminance 0, white luminance 1 (rounded), grey 0.5 sits midway.
    let v = image_ramp_of([0.0, 0.0, 0.0, 1.0], ramp_stops()).unwrap();
    let img = image(&v);
    assert_eq!((img.width, img.height), (4, 3));
    assert!(img.pixels.iter().all(|p| *p == red), "{:?}", img.pixels[0]);
    let v = image_ramp_of([1.0, 1.0, 1.0, 1.0], ramp_stops()).unwrap();
    assert!(
        close(image(&v).pixels[0], blue),
        "{:?}",
        image(&v).pixels[0]
    );
    // Beyond the ends the colour clamps to the end colours exactly.
    let v = image_ramp_of([3.0, 3.0, 3.0, 1.0], ramp_stops()).unwrap();
    assert!(image(&v).pixels.iter().all(|p| *p == blue));
    let v = image_ramp_of([-1.0, -1.0, -1.0, 1.0], ramp_stops()).unwrap();
    assert!(image(&v).pixels.iter().all(|p| *p == red));
    let v = image_ramp_of([0.5, 0.5, 0.5, 1.0], ramp_stops()).unwrap();
    let mid = [0.5, 0.0, 0.5, 0.75];
    assert!(close(image(&v).pixels[5], mid), "{:?}", image(&v).pixels[5]);
    // Luminance weights: pure green is 0.7152 of the way.
    let v = image_ramp_of([0.0, 1.0, 0.0, 1.0], ramp_stops()).unwrap();
    let g = 0.7152f32;
    assert!(close(image(&v).pixels[0], [1.0 - g, 0.0, g, 1.0 - 0.5 * g]));

    // Scalar version, same code.
    assert_eq!(color_ramp_at(0.0, ramp_stops()).unwrap(), Value::Color(red));
    assert_eq!(
        color_ramp_at(1.0, ramp_stops()).unwrap(),
        Value::Color(blue)
    );
    assert_eq!(color_ramp_at(0.5, ramp_stops()).unwrap(), Value::Color(mid));
    assert_eq!(
        color_ramp_at(-2.0, ramp_stops()).unwrap(),
        Value::Color(red)
    );
}

#[test]
fn ramp_default_is_black_to_white() {
    let mut g = Graph::new();
    g.add_node("r", "color.ramp").unwrap();
    g.set_const("r", "t", 0.25).unwrap();
    assert_eq!(
        eval(&g, "r").unwrap(),
        Value::Color([0.25, 0.25, 0.25, 1.0])
    );
}

#[test]
fn unsorted_stops_are_sorted() {
    let unsorted = list(vec![
        stop(1.0, Value::Color([0.0, 0.0, 1.0, 0.5])),
        stop(0.5, Value::Vec3([0.0, 1.0, 0.0])),
        stop(0.0, Value::str("#ff0000")),
    ]);
    let sorted = list(vec![
        stop(0.0, Value::str("#ff0000")),
        stop(0.5, Value::Vec3([0.0, 1.0, 0.0])),
        stop(1.0, Value::Color([0.0, 0.0, 1.0, 0.5])),
    ]);
    for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
        assert_eq!(
            color_ramp_at(t, unsorted.clone()).unwrap(),
            color_ramp_at(t, sorted.clone()).unwrap(),
            "t = {t}"
        );
    }
    assert_eq!(
        color_ramp_at(0.25, unsorted.clone()).unwrap(),
        Value::Color([0.5, 0.5, 0.0, 1.0])
    );
    let a = image_ramp_of([0.3, 0.3, 0.3, 1.0], unsorted).unwrap();
    let b = image_ramp_of([0.3, 0.3, 0.3, 1.0], sorted).unwrap();
    assert_eq!(a.content_hash(), b.content_hash());
}

#[test]
fn malformed_stops_name_input_stops() {
    let short = list(vec![
        stop(0.0, Value::str("#000000")),
        list(vec![Value::Float(0.5)]),
    ]);
    let (port, msg) = node_error(image_ramp_of([0.0; 4], short));
    assert_eq!(port.as_deref(), Some("input `stops`"));
    assert!(msg.contains("stop #1"), "{msg}");

    let bad_pos = list(vec![
        stop(0.0, Value::str("#000000")),
        list(vec![Value::str("x"), Value::str("#ffffff")]),
    ]);
    let (port, msg) = node_error(color_ramp_at(0.5, bad_pos));
    assert_eq!(port.as_deref(), Some("input `stops`"));
    assert!(msg.contains("stop #1") && msg.contains("position"), "{msg}");

    let bad_colour = list(vec![stop(0.0, Value::str("blue"))]);
    let (port, msg) = node_error(color_ramp_at(0.5, bad_colour));
    assert_eq!(port.as_deref(), Some("input `stops`"));
    assert!(msg.contains("stop #0"), "{msg}");

    let (port, _) = node_error(color_ramp_at(0.5, list(vec![])));
    assert_eq!(port.as_deref(), Some("input `stops`"));
}
