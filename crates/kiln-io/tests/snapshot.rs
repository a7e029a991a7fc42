//! Snapshot files: bit-exact round trips, refused values, corrupted and foreign files.

use kiln_core::eval::EvalError;
use kiln_core::recurrence::Snapshot;
use kiln_core::value::Value;
use kiln_image::image::Image;
use kiln_io::snapshot::{
    SnapshotError, parse_snapshot, read_snapshot, snapshot_json, write_snapshot,
};
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::path::Path;
use std::sync::Arc;

/// Bit-for-bit equality of plain values (floats by their bits, NaN included).
fn bits_eq(a: &Value, b: &Value) -> bool {
    a.same_bits(b)
}

fn list(items: Vec<Value>) -> Value {
    Value::List(Arc::from(items))
}

fn snapshot(tick: u64, values: Vec<(&str, Value)>) -> Snapshot {
    Snapshot {
        tick,
        values: values
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    }
}

/// Through the text and through a file; every value must come back bit for bit (a NaN as
/// the canonical NaN).
fn assert_round_trip(s: &Snapshot) {
    let text = snapshot_json(s).unwrap();
    let back = parse_snapshot(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_same(s, &back, &text);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    write_snapshot(&path, s).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    let back = read_snapshot(&path).unwrap();
    assert_same(s, &back, &text);
    // Saving what was read gives the same bytes.
    assert_eq!(snapshot_json(&back).unwrap(), text);
}

fn assert_same(a: &Snapshot, b: &Snapshot, text: &str) {
    assert_eq!(a.tick, b.tick, "{text}");
    assert_eq!(
        a.values.keys().collect::<Vec<_>>(),
        b.values.keys().collect::<Vec<_>>(),
        "{text}"
    );
    for (k, v) in &a.values {
        assert!(
            bits_eq(&canonical(v), &b.values[k]),
            "latch {k}: {v:?} read back as {:?}\n{text}",
            b.values[k]
        );
    }
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

const FLOATS: [f64; 14] = [
    0.0,
    -0.0,
    1.0,
    -1.5,
    0.1,
    1.0 / 3.0,
    1e16,
    1e300,
    5e-324,
    f64::MIN_POSITIVE,
    f64::MAX,
    f64::MIN,
    f64::INFINITY,
    f64::NEG_INFINITY,
];

const CHANNELS: [f32; 12] = [
    0.0,
    -0.0,
    1.0,
    0.5,
    0.1,
    1.0 / 3.0,
    -2.5,
    1e-45, // the smallest subnormal f32
    f32::MIN_POSITIVE,
    f32::MAX,
    f32::INFINITY,
    f32::NEG_INFINITY,
];

#[test]
fn every_plain_value_type_round_trips_bit_for_bit() {
    let mut values: Vec<(String, Value)> = Vec::new();
    let mut add = |v: Value| values.push((format!("v{}", values.len()), v));
    for f in FLOATS.into_iter().chain([f64::NAN]) {
        add(Value::Float(f));
        add(Value::Vec2([f, -f]));
        add(Value::Vec3([f, 0.5, -f]));
        add(Value::Vec4([-f, f, 1.0, 0.0]));
        add(list(vec![Value::Float(f)]));
    }
    for i in [0, 1, -1, 42, i64::MIN, i64::MAX] {
        add(Value::Int(i));
    }
    add(Value::Bool(true));
    add(Value::Bool(false));
    for c in CHANNELS.into_iter().chain([f32::NAN]) {
        add(Value::Color([c, 0.0, 1.0, 1.0]));
        add(Value::Color([1.0, c, 0.0, c]));
        add(list(vec![Value::Color([c, c, c, 1.0])]));
    }
    add(Value::Color([1.0, 0.0, 0.0, 1.0]));
    add(Value::Color([1.0, 0.0, 0.0, 128.0 / 255.0]));
    for s in [
        "",
        "plain",
        "a.b",
        "#fff",
        "nan",
        "-inf",
        "q\"b\\n\n\t\u{1}\u{7f}\u{2028}é🎉",
    ] {
        add(Value::str(s));
        add(list(vec![Value::str(s)]));
    }
    add(Value::Empty);
    add(list(vec![]));
    add(list(vec![
        Value::Int(1),
        Value::Float(1.0),
        Value::Float(-0.0),
        Value::Bool(true),
        Value::Vec2([1.0, 2.0]),
        Value::Vec3([1.0, 2.0, 3.0]),
        Value::Vec4([1.0, 2.0, 3.0, 4.0]),
        Value::Color([0.1, 0.2, 0.3, 0.4]),
        Value::str("x"),
        Value::Empty,
        list(vec![list(vec![Value::Int(-7)]), list(vec![])]),
    ]));
    let s = Snapshot {
        tick: 12,
        values: values.into_iter().collect(),
    };
    assert_round_trip(&s);
}

#[test]
fn canonical_nan_is_exact_and_any_nan_stays_nan() {
    let odd_nan = f64::from_bits(0xfff8_0000_0000_0001);
    assert!(odd_nan.is_nan());
    let s = snapshot(
        0,
        vec![
            ("canon", Value::Float(f64::NAN)),
            ("odd", Value::Float(odd_nan)),
        ],
    );
    let back = parse_snapshot(&snapshot_json(&s).unwrap()).unwrap();
    match back.values["canon"] {
        Value::Float(f) => assert_eq!(f.to_bits(), f64::NAN.to_bits()),
        ref other => panic!("{other:?}"),
    }
    assert!(matches!(back.values["odd"], Value::Float(f) if f.is_nan()));
}

#[test]
fn ticks_and_latch_ids_round_trip() {
    for tick in [0, 1, i64::MAX as u64, i64::MAX as u64 + 1, u64::MAX] {
        assert_round_trip(&snapshot(tick, vec![("a", Value::Int(1))]));
    }
    assert_round_trip(&snapshot(
        5,
        vec![
            ("with.dot", Value::Int(1)),
            ("quo\"te", Value::Int(2)),
            ("ünï", Value::Int(3)),
            ("", Value::Int(4)),
        ],
    ));
    assert_round_trip(&Snapshot::default());
}

#[test]
fn the_file_format() {
    let s = snapshot(
        3,
        vec![
            ("acc", Value::Float(1.5)),
            ("pos", Value::Vec2([0.25, f64::NEG_INFINITY])),
        ],
    );
    assert_eq!(
        snapshot_json(&s).unwrap(),
        r#"{
  "kiln_snapshot": 1,
  "tick": 3,
  "latches": {
    "acc": {"type": "float", "value": 1.5},
    "pos": {"type": "vec2", "value": [0.25, "-inf"]}
  }
}
"#
    );
    // Hand-written files read too.
    let s = parse_snapshot(
        r##"{"kiln_snapshot": 1, "tick": 2, "latches": {"c": {"type": "color", "value": "#ff0000"}}}"##,
    )
    .unwrap();
    assert_eq!(s.tick, 2);
    assert_eq!(s.values["c"], Value::Color([1.0, 0.0, 0.0, 1.0]));
}

#[test]
fn heavy_values_are_refused_and_nothing_is_written() {
    let image = Image::filled(2, 2, [0.0, 0.0, 0.0, 1.0]).into_value();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");

    let s = snapshot(4, vec![("acc", Value::Int(1)), ("grid", image.clone())]);
    let e = write_snapshot(&path, &s).unwrap_err();
    assert_eq!(
        e.to_string(),
        "latch `grid` holds an image, which cannot be saved in a snapshot; replay from tick 0 instead"
    );
    assert_eq!(e.latch(), Some("grid"));
    assert!(matches!(
        &e,
        SnapshotError::Unsaveable { type_name, item: None, .. } if type_name == "image"
    ));
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );
    assert!(snapshot_json(&s).is_err());

    // Inside a list too.
    let s = snapshot(
        4,
        vec![(
            "frames",
            list(vec![Value::Int(0), list(vec![Value::Int(1), image])]),
        )],
    );
    let e = write_snapshot(&path, &s).unwrap_err();
    assert_eq!(
        e.to_string(),
        "latch `frames` holds a list whose item [1][1] is an image, which cannot be saved in a snapshot; replay from tick 0 instead"
    );
    assert!(files_in(dir.path()).is_empty());

    // An existing file is left untouched.
    let good = snapshot(1, vec![("acc", Value::Int(1))]);
    write_snapshot(&path, &good).unwrap();
    let before = std::fs::read(&path).unwrap();
    assert!(write_snapshot(&path, &s).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(files_in(dir.path()), ["state.json"]);
}

#[test]
fn error_values_are_refused() {
    let err = Value::Error(Arc::new(EvalError::Cancelled));
    let s = snapshot(0, vec![("x", err)]);
    let e = snapshot_json(&s).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.starts_with("latch `x` holds an error (evaluation cancelled), which cannot be saved"),
        "{msg}"
    );
    assert_eq!(e.latch(), Some("x"));
}

#[test]
fn truncated_files_are_errors_not_panics() {
    let mut s = snapshot(
        9,
        vec![
            ("a", Value::Float(-0.0)),
            (
                "b",
                list(vec![Value::Color([0.1, 0.2, 0.3, 0.4]), Value::str("é")]),
            ),
            ("c", Value::Vec3([1.0, f64::INFINITY, 3.0])),
        ],
    );
    s.values.insert("d".into(), Value::Int(i64::MIN));
    let text = snapshot_json(&s).unwrap();
    let trimmed = text.trim_end();
    for (cut, _) in trimmed.char_indices() {
        let e = parse_snapshot(&trimmed[..cut]);
        assert!(e.is_err(), "prefix of {cut} bytes parsed: {:?}", e);
    }
    // Truncated mid-way through a multi-byte character: not UTF-8.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.json");
    let at = text.find('é').unwrap() + 1;
    std::fs::write(&path, &text.as_bytes()[..at]).unwrap();
    let e = read_snapshot(&path).unwrap_err();
    let line = text[..at - 1].matches('\n').count() + 1;
    assert!(
        matches!(e, SnapshotError::NotUtf8 { line: l, .. } if l == line),
        "{e}"
    );

    // An empty file (a write cut short).
    std::fs::write(&path, "").unwrap();
    assert!(matches!(read_snapshot(&path), Err(SnapshotError::Empty)));
    // No file at all.
    let e = read_snapshot(&dir.path().join("missing.json")).unwrap_err();
    assert!(matches!(e, SnapshotError::Io { .. }), "{e}");
}

#[test]
fn parse_errors_give_line_and_column() {
    let text = "{\n  \"kiln_snapshot\": 1,\n  \"tick\": 3,,\n  \"latches\": {}\n}\n";
    match parse_snapshot(text).unwrap_err() {
        SnapshotError::Json { line, column, .. } => assert_eq!((line, column), (3, 13)),
        other => panic!("{other}"),
    }
    let e = parse_snapshot(text).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("invalid JSON in the snapshot at line 3, column 13"),
        "{e}"
    );
}

#[test]
fn wrong_versions_are_refused() {
    let with = |v: &str| format!(r#"{{"kiln_snapshot": {v}, "tick": 0, "latches": {{}}}}"#);
    let e = parse_snapshot(&with("2")).unwrap_err();
    assert!(
        matches!(&e, SnapshotError::UnsupportedVersion { found, .. } if found == "2"),
        "{e}"
    );
    assert!(e.to_string().contains("newer kiln"), "{e}");
    for v in ["0", "-1", "\"1\"", "1.0", "null", "99999999999999999999"] {
        let e = parse_snapshot(&with(v)).unwrap_err();
        assert!(
            matches!(e, SnapshotError::UnsupportedVersion { .. }),
            "{v}: {e}"
        );
    }
    let e = parse_snapshot(r#"{"tick": 0, "latches": {}}"#).unwrap_err();
    assert!(matches!(e, SnapshotError::MissingVersion { .. }), "{e}");
    let e = parse_snapshot(r#"{"kiln": 1, "nodes": {}}"#).unwrap_err();
    assert!(e.to_string().contains("graph file"), "{e}");
    assert!(parse_snapshot(&with("1")).is_ok());
}

#[test]
fn wrong_shapes_are_refused_naming_the_latch() {
    let cases = [
        ("[]", "must be a JSON object"),
        (r#"{"kiln_snapshot": 1, "latches": {}}"#, "no `tick`"),
        (r#"{"kiln_snapshot": 1, "tick": 0}"#, "no `latches`"),
        (
            r#"{"kiln_snapshot": 1, "tick": -1, "latches": {}}"#,
            "non-negative integer",
        ),
        (
            r#"{"kiln_snapshot": 1, "tick": 1.5, "latches": {}}"#,
            "non-negative integer",
        ),
        (
            r#"{"kiln_snapshot": 1, "tick": 0, "latches": []}"#,
            "must be a JSON object",
        ),
        (
            r#"{"kiln_snapshot": 1, "tick": 0, "latches": {}, "extra": 1}"#,
            "unexpected key `extra`",
        ),
        (
            r#"{"kiln_snapshot": 1, "tick": 0, "tick": 1, "latches": {}}"#,
            "`tick` appears twice",
        ),
    ];
    for (text, needle) in cases {
        let e = parse_snapshot(text).unwrap_err();
        assert!(matches!(e, SnapshotError::Shape { .. }), "{text}: {e}");
        assert!(e.to_string().contains(needle), "{text}: {e}");
    }

    let latch_cases = [
        (r#"{"acc": 1.5}"#, "must be a typed value"),
        (
            r#"{"acc": {"type": "vec3", "value": [1, 2]}}"#,
            "latches.acc.value",
        ),
        (
            r#"{"acc": {"type": "image", "value": 1}}"#,
            "unknown value type",
        ),
        (r#"{"acc": {"type": "int", "value": 1.5}}"#, "an integer"),
        (r#"{"acc": {"value": 1}}"#, "needs a `type`"),
    ];
    for (latches, needle) in latch_cases {
        let text = format!(r#"{{"kiln_snapshot": 1, "tick": 0, "latches": {latches}}}"#);
        let e = parse_snapshot(&text).unwrap_err();
        assert_eq!(e.latch(), Some("acc"), "{latches}: {e}");
        let msg = e.to_string();
        assert!(msg.starts_with("latch `acc`: "), "{msg}");
        assert!(msg.contains(needle), "{latches}: {msg}");
    }

    let dup = r#"{"kiln_snapshot": 1, "tick": 0, "latches": {"a": null, "a": null}}"#;
    let e = parse_snapshot(dup).unwrap_err();
    assert!(e.to_string().contains("key `a` appears twice"), "{e}");
}

fn arb_plain() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<f64>().prop_map(Value::Float),
        any::<i64>().prop_map(Value::Int),
        any::<bool>().prop_map(Value::Bool),
        any::<[f64; 2]>().prop_map(Value::Vec2),
        any::<[f64; 3]>().prop_map(Value::Vec3),
        any::<[f64; 4]>().prop_map(Value::Vec4),
        any::<[f32; 4]>().prop_map(Value::Color),
        ".{0,12}".prop_map(|s: String| Value::str(&s)),
        Just(Value::Empty),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop::collection::vec(inner, 0..6).prop_map(|v| Value::List(Arc::from(v)))
    })
}

/// Any NaN is read back as the canonical NaN; everything else must stay bit for bit.
fn canonical(v: &Value) -> Value {
    let f = |x: f64| if x.is_nan() { f64::NAN } else { x };
    let g = |x: f32| if x.is_nan() { f32::NAN } else { x };
    match v {
        Value::Float(x) => Value::Float(f(*x)),
        Value::Vec2(a) => Value::Vec2(a.map(f)),
        Value::Vec3(a) => Value::Vec3(a.map(f)),
        Value::Vec4(a) => Value::Vec4(a.map(f)),
        Value::Color(c) => Value::Color(c.map(g)),
        Value::List(items) => list(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(Config { cases: 512, ..Config::default() })]

    #[test]
    fn floats_and_ints_round_trip_bit_for_bit(
        f in any::<f64>(),
        bits in any::<u64>(),
        i in any::<i64>(),
        c in any::<[f32; 4]>(),
        tick in any::<u64>(),
    ) {
        let g = f64::from_bits(bits);
        let s = snapshot(tick, vec![
            ("f", Value::Float(f)),
            ("g", Value::Float(g)),
            ("i", Value::Int(i)),
            ("v", Value::Vec3([f, g, -f])),
            ("c", Value::Color(c)),
        ]);
        let text = snapshot_json(&s).unwrap();
        let back = parse_snapshot(&text).unwrap();
        prop_assert_eq!(back.tick, tick);
        for (k, v) in &s.values {
            let want = canonical(v);
            prop_assert!(bits_eq(&want, &back.values[k]), "{}: {:?} -> {:?}\n{}", k, v, back.values[k], text);
        }
    }

    #[test]
    fn plain_values_round_trip_bit_for_bit(values in prop::collection::btree_map(".{0,8}", arb_plain(), 0..6)) {
        let s = Snapshot { tick: 1, values };
        let text = snapshot_json(&s).unwrap();
        let back = parse_snapshot(&text).unwrap();
        prop_assert_eq!(back.values.len(), s.values.len());
        for (k, v) in &s.values {
            prop_assert!(bits_eq(&canonical(v), &back.values[k]), "{:?}: {:?} -> {:?}\n{}", k, v, back.values[k], text);
        }
        prop_assert_eq!(snapshot_json(&back).unwrap(), text);
    }

    #[test]
    fn corrupted_files_never_panic(pos in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<prop::sample::Index>()) {
        let s = snapshot(3, vec![
            ("a", Value::Float(0.1)),
            ("b", list(vec![Value::Vec2([1.0, -0.0]), Value::str("x")])),
            ("c", Value::Color([0.25, 0.5, 1.0, 0.75])),
        ]);
        let mut bytes = snapshot_json(&s).unwrap().into_bytes();
        let at = pos.index(bytes.len());
        bytes[at] = byte;
        bytes.truncate(cut.index(bytes.len() + 1));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        std::fs::write(&path, &bytes).unwrap();
        // Either an error or a snapshot; never a panic.
        let _ = read_snapshot(&path);
    }
}

/// A recurrent run saved to a file mid-way and resumed from it by another driver gives the
/// same bits as the run that went on.
#[test]
fn a_run_resumed_from_a_saved_snapshot_file_gives_the_same_bits() {
    use kiln_core::prelude::*;
    use kiln_core::recurrence::Recurrent;
    let reg = kiln_image::registry();
    let mut g = Graph::new();
    g.add_node("x0", "const").unwrap();
    g.set_param("x0", "value", 0.2).unwrap();
    g.add_node("x", "latch").unwrap();
    g.wire("x0.out", "x.init");
    g.add_node("om", "math.sub").unwrap();
    g.set_const("om", "a", 1.0).unwrap();
    g.wire("x.out", "om.b");
    g.add_node("rx", "math.mul").unwrap();
    g.set_const("rx", "a", 3.9).unwrap();
    g.wire("x.out", "rx.b");
    g.add_node("next", "math.mul").unwrap();
    g.wire("rx.out", "next.a");
    g.wire("om.out", "next.b");
    g.wire("next.out", "x.signal");
    let req = Request::new(["x"]);
    let ctx = EvalContext::new();
    let mut a = Recurrent::new(LazyEvaluator::new(reg.clone()), reg.clone());
    for _ in 0..17 {
        a.tick(&g, &req, &ctx).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    kiln_io::write_snapshot(&path, a.snapshot().unwrap()).unwrap();
    let mut b = Recurrent::new(
        CompiledEvaluator::new(reg.clone()).with_background(false),
        reg,
    );
    b.restore(kiln_io::read_snapshot(&path).unwrap());
    for t in 17..40 {
        let x = a.tick(&g, &req, &ctx).unwrap().values[0].1.clone();
        let y = b.tick(&g, &req, &ctx).unwrap().values[0].1.clone();
        assert!(x.same_bits(&y), "tick {t}: {x:?} vs {y:?}");
    }
}
