//! Wireable values: the `octaves` of the fractal noises and the `stops` of the ramps are inputs,
//! so a graph input (or any node) can drive them. A wired value gives the bits of the same
//! value set as a constant, fused or not; a wired value out of range is refused when the node
//! runs, naming the node and the port.

use kiln_core::prelude::*;
use kiln_image::fuse::fuse;
use kiln_image::image::Image;
use std::sync::Arc;

fn bits(img: &Image) -> Vec<u32> {
    img.pixels
        .as_flattened()
        .iter()
        .map(|c| c.to_bits())
        .collect()
}

fn eval(g: &Graph, id: &str, inputs: &[(&str, Value)]) -> Result<Image, EvalError> {
    let mut ev = LazyEvaluator::new(kiln_image::registry());
    let mut ctx = EvalContext::new();
    for (k, v) in inputs {
        ctx.inputs.insert(k.to_string(), v.clone());
    }
    let out = ev.evaluate(g, &Request::new([id]), &ctx)?;
    Ok(out
        .get(id)
        .and_then(|v| v.as_heavy::<Image>())
        .expect("an image")
        .clone())
}

/// A graph input `name` of op `op` (`input.int`, `input.list`, ...).
fn graph_input(g: &mut Graph, name: &str, op: &str, default: Value) {
    g.add_node(name, op).unwrap();
    g.set_param(name, "name", Value::str(name)).unwrap();
    g.set_param(name, "default", default).unwrap();
}

/// A small noise generator of `op`, its octaves wired from the graph input `oct` when
/// `wired`, or set to `octaves` as a constant.
fn noise(op: &str, wired: bool, octaves: i64) -> Graph {
    let mut g = Graph::new();
    g.add_node("n", op).unwrap();
    g.set_param("n", "width", 24i64).unwrap();
    g.set_param("n", "height", 16i64).unwrap();
    if wired {
        graph_input(&mut g, "oct", "input.int", Value::Int(2));
        g.wire("oct.out", "n.octaves");
    } else {
        g.set_const("n", "octaves", octaves).unwrap();
    }
    g
}

const NOISES: [&str; 3] = ["image.noise", "image.fractal", "image.domain_warp"];

#[test]
fn wired_octaves_give_the_bits_of_constant_octaves() {
    for op in NOISES {
        let wired = noise(op, true, 0);
        for octaves in [1i64, 3, 6] {
            let from_input = eval(&wired, "n", &[("oct", Value::Int(octaves))]).unwrap();
            let constant = eval(&noise(op, false, octaves), "n", &[]).unwrap();
            assert_eq!(
                bits(&from_input),
                bits(&constant),
                "{op} at {octaves} octaves"
            );
        }
        // The input's value changes the picture.
        let one = eval(&wired, "n", &[("oct", Value::Int(1))]).unwrap();
        let six = eval(&wired, "n", &[("oct", Value::Int(6))]).unwrap();
        assert_ne!(bits(&one), bits(&six), "{op}");
        // Unset, the graph input's default (2) drives it.
        let default = eval(&wired, "n", &[]).unwrap();
        let two = eval(&noise(op, false, 2), "n", &[]).unwrap();
        assert_eq!(bits(&default), bits(&two), "{op}");
    }
}

fn node_error(e: EvalError) -> (String, Option<String>, String) {
    match e {
        EvalError::Node {
            node,
            port,
            message,
            ..
        } => (node.to_string(), port, message),
        other => panic!("expected a node error, found {other:?}"),
    }
}

#[test]
fn wired_octaves_out_of_range_name_the_node_and_port() {
    for op in NOISES {
        let g = noise(op, true, 0);
        for bad in [0i64, 17] {
            let e = eval(&g, "n", &[("oct", Value::Int(bad))]).unwrap_err();
            let (node, port, msg) = node_error(e);
            assert_eq!(node, "n", "{op}");
            assert_eq!(port.as_deref(), Some("input `octaves`"), "{op}: {msg}");
            assert!(
                msg.contains("1 to 16") || msg.contains("1..=16"),
                "{op}: {msg}"
            );
        }
    }
}

fn stop(pos: f64, c: &str) -> Value {
    Value::List(Arc::from(vec![Value::Float(pos), Value::str(c)]))
}

fn stops(list: Vec<Value>) -> Value {
    Value::List(Arc::from(list))
}

/// fractal → gain → ramp, the octaves and the stops wired from graph inputs when `wired`.
fn chain(wired: bool, octaves: i64, ramp: &Value) -> Graph {
    let mut g = noise("image.fractal", wired, octaves);
    g.add_node("gain", "image.gain").unwrap();
    g.set_const("gain", "gain", 1.3).unwrap();
    g.wire("n.out", "gain.image");
    g.add_node("ramp", "image.ramp").unwrap();
    g.wire("gain.out", "ramp.image");
    if wired {
        graph_input(&mut g, "palette", "input.list", stops(vec![]));
        g.wire("palette.out", "ramp.stops");
    } else {
        g.set_const("ramp", "stops", ramp.clone()).unwrap();
    }
    g
}

#[test]
fn wired_stops_and_octaves_fuse_to_the_same_bits() {
    let ramp = stops(vec![
        stop(0.0, "#102030"),
        stop(0.4, "#c08040"),
        stop(1.0, "#ffffff"),
    ]);
    let inputs = [("oct", Value::Int(5)), ("palette", ramp.clone())];
    let reg = kiln_image::registry();
    let wired = chain(true, 0, &ramp);
    let constant = chain(false, 5, &ramp);
    let a = eval(&wired, "ramp", &inputs).unwrap();
    let b = eval(&constant, "ramp", &[]).unwrap();
    assert_eq!(bits(&a), bits(&b));
    let (fused, report) = fuse(&wired, &reg, &["ramp"]);
    assert_eq!(report.groups.len(), 1, "{report:?}");
    assert_eq!(report.groups[0].1.len(), 3, "{report:?}");
    assert!(
        validate(&fused, &reg).is_empty(),
        "{:?}",
        validate(&fused, &reg)
    );
    let c = eval(&fused, "ramp", &inputs).unwrap();
    assert_eq!(bits(&a), bits(&c));
    // Other stops through the same wire: another picture.
    let grey = stops(vec![stop(0.0, "#000000"), stop(1.0, "#808080")]);
    let d = eval(&fused, "ramp", &[("oct", Value::Int(5)), ("palette", grey)]).unwrap();
    assert_ne!(bits(&a), bits(&d));
}

#[test]
fn fused_members_check_their_wired_values() {
    let ramp = stops(vec![stop(0.0, "#000000")]);
    let reg = kiln_image::registry();
    let (fused, _) = fuse(&chain(true, 0, &ramp), &reg, &["ramp"]);
    let e = eval(
        &fused,
        "ramp",
        &[("oct", Value::Int(40)), ("palette", ramp.clone())],
    )
    .unwrap_err();
    let (node, _, msg) = node_error(e);
    assert_eq!(node, "ramp");
    assert!(
        msg.contains("image.fractal") && msg.contains("`octaves`"),
        "{msg}"
    );
    let e = eval(
        &fused,
        "ramp",
        &[("oct", Value::Int(3)), ("palette", stops(vec![]))],
    )
    .unwrap_err();
    let (_, _, msg) = node_error(e);
    assert!(
        msg.contains("image.ramp") && msg.contains("`stops`"),
        "{msg}"
    );
}

#[test]
fn constant_octaves_and_stops_are_checked_by_validation() {
    let reg = kiln_image::registry();
    let mut g = noise("image.fractal", false, 30);
    g.add_node("ramp", "image.ramp").unwrap();
    g.wire("n.out", "ramp.image");
    g.set_const("ramp", "stops", stops(vec![])).unwrap();
    let found: Vec<String> = validate(&g, &reg).iter().map(|d| d.to_string()).collect();
    assert!(found.iter().any(|d| d.contains("octaves")), "{found:?}");
    assert!(found.iter().any(|d| d.contains("stops")), "{found:?}");
}
