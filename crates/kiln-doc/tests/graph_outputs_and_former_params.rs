//! Graph files: an output's `color` (`{"from": ..., "color": "data"}`) is kept in the
//! metadata and written back; a param an op has made an input since (`octaves`, `stops`)
//! loads as that input's constant; other params named like inputs stay params.

use kiln_core::value::Value;
use kiln_doc::graph_file::load_graph;
use kiln_io::image_files::ColorSpace;

const FILE: &str = r##"{"kiln": 1,
  "nodes": {
    "n": {"op": "image.noise", "params": {"octaves": 3, "seed": 2}},
    "r": {"op": "image.ramp", "params": {"stops": [[0.0, "#000000"], [1.0, "#ff8000"]]}, "inputs": {"image": "n.out"}}
  },
  "outputs": {"pic": "r.out", "height": {"from": "n.out", "color": "data"}, "shown": {"from": "n.out", "color": "srgb"}}}"##;

#[test]
fn output_colours_are_kept_and_written_back() {
    let reg = kiln_image::registry();
    let f = load_graph(FILE, &reg).unwrap();
    assert_eq!(
        f.meta.output_colors.iter().collect::<Vec<_>>(),
        [
            (&"height".to_string(), &ColorSpace::Data),
            (&"shown".to_string(), &ColorSpace::Srgb)
        ]
    );
    assert!(f.graph.node("height").is_some() && f.graph.node("pic").is_some());
    let text = f.to_json(&reg);
    assert!(
        text.contains(r#""height": {"from": "n.out", "color": "data"}"#),
        "{text}"
    );
    assert!(text.contains(r#""pic": "r.out""#), "{text}");
    let back = load_graph(&text, &reg).unwrap();
    assert_eq!(back.meta, f.meta);
    assert_eq!(back.to_json(&reg), text);
}

#[test]
fn bad_output_entries_are_errors_naming_the_output() {
    let reg = kiln_image::registry();
    for (entry, needle) in [
        (
            r#"{"from": "n.out", "color": "linear"}"#,
            "`color` must be one of srgb, data",
        ),
        (
            r#"{"from": "n.out", "color": 1}"#,
            "`color` must be a string",
        ),
        (r#"{"color": "data"}"#, "no `from`"),
        (
            r#"{"from": "n.out", "colour": "data"}"#,
            "unknown key `colour`",
        ),
        ("3", "must name a port"),
    ] {
        let text = format!(
            r#"{{"kiln": 1, "nodes": {{"n": {{"op": "image.noise"}}}}, "outputs": {{"o": {entry}}}}}"#
        );
        let e = load_graph(&text, &reg).unwrap_err().to_string();
        assert!(
            e.contains(needle) && e.contains("outputs.o"),
            "{entry}: {e}"
        );
    }
}

#[test]
fn former_params_load_as_input_constants() {
    let reg = kiln_image::registry();
    let f = load_graph(FILE, &reg).unwrap();
    let n = f.graph.node("n").unwrap();
    assert_eq!(n.consts.get("octaves"), Some(&Value::Int(3)));
    assert_eq!(n.params.get("octaves"), None);
    assert_eq!(n.params.get("seed"), Some(&Value::Int(2)));
    let r = f.graph.node("r").unwrap();
    let stops = r.consts.get("stops").and_then(Value::as_list).unwrap();
    assert_eq!(stops.len(), 2);
    assert!(kiln_core::validate::validate(&f.graph, &reg).is_empty());
    // Written back in the new form, which reads to the same graph.
    let text = f.to_json(&reg);
    let back = load_graph(&text, &reg).unwrap();
    assert_eq!(back.graph.node("r").unwrap().consts, r.consts);
    assert_eq!(back.graph.node("n").unwrap().consts, n.consts);
    // The constant given twice, as a param and under `inputs`: an error.
    let twice = r#"{"kiln": 1, "nodes": {"n": {"op": "image.noise", "params": {"octaves": 3}, "inputs": {"octaves": 4}}}}"#;
    let e = load_graph(twice, &reg).unwrap_err().to_string();
    assert!(e.contains("two constants"), "{e}");
    // A param named like an input that never was a param stays a param (validation says so).
    let other = r#"{"kiln": 1, "nodes": {"n": {"op": "image.noise", "params": {"scale": 2.0}}}}"#;
    let f = load_graph(other, &reg).unwrap();
    assert!(f.graph.node("n").unwrap().params.contains_key("scale"));
}
