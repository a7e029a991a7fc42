//! Writing result values to files, and values from the command line.

use kiln_core::value::{Value, ValueType};
use kiln_image::image::Image;
use kiln_io::values::{WriteError, parse_cli_value, write_atomic, write_output};
use std::path::Path;
use std::sync::Arc;

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn image_is_written_as_png_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut img = Image::filled(3, 2, [0.0, 0.0, 0.0, 1.0]);
    img.pixels[0] = [1.0, 0.5, 0.0, 1.0];
    img.pixels[4] = [2.0, -1.0, 0.25, 0.0]; // (1, 1): clamped
    let path = write_output(dir.path(), "picture", &img.into_value()).unwrap();
    assert_eq!(path, dir.path().join("picture.png"));
    let back = image::open(&path).unwrap().to_rgba8();
    assert_eq!(back.dimensions(), (3, 2));
    // Colour sRGB-encoded (0.5 → round(255 · (1.055 · 0.5^(1/2.4) − 0.055)) = 188, 0.25 →
    // 137), alpha linear.
    assert_eq!(back.get_pixel(0, 0).0, [255, 188, 0, 255]);
    assert_eq!(back.get_pixel(1, 1).0, [255, 0, 137, 0]);
    assert_eq!(back.get_pixel(2, 1).0, [0, 0, 0, 255]);
    assert_eq!(files_in(dir.path()), ["picture.png"]);
}

#[test]
fn plain_values_are_written_as_typed_json() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (Value::Float(1.5), r#"{"type": "float", "value": 1.5}"#),
        (Value::Float(2.0), r#"{"type": "float", "value": 2.0}"#),
        (Value::Int(-3), r#"{"type": "int", "value": -3}"#),
        (Value::Bool(true), r#"{"type": "bool", "value": true}"#),
        (
            Value::Vec3([1.0, 2.0, 3.0]),
            r#"{"type": "vec3", "value": [1.0, 2.0, 3.0]}"#,
        ),
        (
            Value::Color([1.0, 0.5, 0.0, 0.25]),
            r#"{"type": "color", "value": [1.0, 0.5, 0.0, 0.25]}"#,
        ),
        (
            Value::str("hi \"there\""),
            r#"{"type": "string", "value": "hi \"there\""}"#,
        ),
        (
            Value::Float(f64::INFINITY),
            r#"{"type": "float", "value": "inf"}"#,
        ),
        (
            Value::List(Arc::from(vec![Value::Int(1), Value::str("a")])),
            r#"{"type": "list", "value": [1, "a"]}"#,
        ),
    ];
    for (v, expected) in cases {
        let path = write_output(dir.path(), "v", &v).unwrap();
        assert_eq!(path, dir.path().join("v.json"));
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, format!("{expected}\n"));
        // Standard JSON, for other tools.
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["type"], v.type_name());
    }
    assert_eq!(files_in(dir.path()), ["v.json"]);
}

#[test]
fn values_without_a_file_form_are_errors_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let e = write_output(dir.path(), "e", &Value::Empty).unwrap_err();
    assert!(matches!(e, WriteError::Unsupported { .. }), "{e}");
    for bad in ["", "..", "a/b", "x\\y"] {
        let e = write_output(dir.path(), bad, &Value::Int(1)).unwrap_err();
        assert!(matches!(e, WriteError::BadName { .. }), "{e}");
    }
    // An inconsistent image (pixel count does not match the size).
    let img = Image {
        width: 4,
        height: 4,
        pixels: vec![[0.0; 4]; 3],
    };
    let e = write_output(dir.path(), "img", &img.into_value()).unwrap_err();
    assert!(matches!(e, WriteError::BadImage { .. }), "{e}");
    // A zero-sized image cannot be a PNG.
    let img = Image {
        width: 0,
        height: 0,
        pixels: vec![],
    };
    assert!(write_output(dir.path(), "img", &img.into_value()).is_err());
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );
}

#[test]
fn atomic_write_replaces_and_leaves_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.txt");
    write_atomic(&path, b"first").unwrap();
    write_atomic(&path, b"second").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"second");
    assert_eq!(files_in(dir.path()), ["out.txt"]);
    // Writing over a directory fails, leaving that directory and no temp file.
    std::fs::create_dir(dir.path().join("taken")).unwrap();
    std::fs::write(dir.path().join("taken").join("f"), b"x").unwrap();
    let e = write_atomic(&dir.path().join("taken"), b"data").unwrap_err();
    assert!(e.to_string().contains("taken"), "{e}");
    assert_eq!(files_in(dir.path()), ["out.txt", "taken"]);
    // A folder that does not exist: an error, nothing created.
    let e = write_atomic(&dir.path().join("nope").join("f"), b"x").unwrap_err();
    assert!(matches!(e, WriteError::Io { .. }));
    assert_eq!(files_in(dir.path()), ["out.txt", "taken"]);
}

#[cfg(unix)]
#[test]
fn atomic_write_gives_ordinary_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    write_atomic(&path, b"{}").unwrap();
    let plain = dir.path().join("plain");
    std::fs::write(&plain, b"{}").unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), mode(&plain));
}

#[test]
fn cli_values() {
    use ValueType as T;
    let ok = |s: &str, t: T| parse_cli_value(s, t).unwrap();
    assert_eq!(ok("1.5", T::Float), Value::Float(1.5));
    assert_eq!(ok(" 2 ", T::Float), Value::Float(2.0));
    assert_eq!(ok("-7", T::Int), Value::Int(-7));
    assert_eq!(ok("true", T::Bool), Value::Bool(true));
    assert_eq!(ok("false", T::Bool), Value::Bool(false));
    assert_eq!(ok("1,2", T::Vec2), Value::Vec2([1.0, 2.0]));
    assert_eq!(ok("1, 2.5, -3", T::Vec3), Value::Vec3([1.0, 2.5, -3.0]));
    assert_eq!(ok("0,0,0,1", T::Vec4), Value::Vec4([0.0, 0.0, 0.0, 1.0]));
    assert_eq!(ok("#ff0000", T::Color), Value::Color([1.0, 0.0, 0.0, 1.0]));
    assert_eq!(ok("#f00", T::Color), Value::Color([1.0, 0.0, 0.0, 1.0]));
    assert_eq!(ok("1,0.5,0", T::Color), Value::Color([1.0, 0.5, 0.0, 1.0]));
    assert_eq!(
        ok("1,0.5,0,0.25", T::Color),
        Value::Color([1.0, 0.5, 0.0, 0.25])
    );
    assert_eq!(
        ok(" raw text, with comma ", T::String),
        Value::str(" raw text, with comma ")
    );
    assert_eq!(ok("3", T::Any), Value::Int(3));
    assert_eq!(ok("3.5", T::Number), Value::Float(3.5));
    assert_eq!(ok("1,2,3", T::Any), Value::Vec3([1.0, 2.0, 3.0]));
    assert_eq!(ok("hello", T::Any), Value::str("hello"));
    assert_eq!(
        ok("1,x,true", T::List),
        Value::List(Arc::from(vec![
            Value::Int(1),
            Value::str("x"),
            Value::Bool(true)
        ]))
    );
    for (s, t, needle) in [
        ("abc", T::Float, "expected a float"),
        ("1.5", T::Int, "expected an integer"),
        ("yes", T::Bool, "true or false"),
        ("1,2,3", T::Vec2, "2 comma-separated"),
        ("1,x", T::Vec2, "expected a number"),
        ("#12", T::Color, "#rrggbb"),
        ("1,2", T::Color, "3 or 4"),
        ("word", T::Number, "expected a number"),
        ("x", T::Heavy("image"), "image"),
    ] {
        let e = parse_cli_value(s, t).unwrap_err();
        assert!(e.contains(needle), "{s} as {t}: {e}");
    }
}

#[test]
fn encode_output_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (path, bytes) =
        kiln_io::encode_output(dir.path(), "v", &kiln_core::value::Value::Float(1.5)).unwrap();
    assert_eq!(path, dir.path().join("v.json"));
    assert!(String::from_utf8(bytes).unwrap().contains("1.5"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    assert!(kiln_io::encode_output(dir.path(), "e", &kiln_core::value::Value::Empty).is_err());
}

#[test]
fn error_values_are_reported_with_their_node_and_write_nothing() {
    use kiln_core::eval::EvalError;
    let dir = tempfile::tempdir().unwrap();
    let node_error = |port: Option<&str>| {
        Value::Error(Arc::new(EvalError::Node {
            node: "div".into(),
            op: "math.div".into(),
            port: port.map(Into::into),
            message: "integer division by zero".into(),
        }))
    };
    let e = write_output(dir.path(), "ratio", &node_error(None)).unwrap_err();
    match &e {
        WriteError::Failed {
            name,
            node,
            message,
        } => {
            assert_eq!(name, "ratio");
            assert_eq!(node.as_deref(), Some("div"));
            assert_eq!(message, "integer division by zero");
        }
        other => panic!("expected Failed, got {other:?}"),
    }
    assert_eq!(
        e.to_string(),
        "output `ratio` is an error from node `div`: integer division by zero"
    );
    let e =
        kiln_io::encode_output(dir.path(), "ratio", &node_error(Some("input `b`"))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "output `ratio` is an error from node `div`: input `b`: integer division by zero"
    );
    let panic = Value::Error(Arc::new(EvalError::Panic {
        node: "p".into(),
        op: "x".into(),
        message: "oops".into(),
    }));
    let e = write_output(dir.path(), "out", &panic).unwrap_err();
    assert_eq!(
        e.to_string(),
        "output `out` is an error from node `p`: panicked: oops"
    );
    // An error that names no node.
    let cancelled = Value::Error(Arc::new(EvalError::Cancelled));
    let e = write_output(dir.path(), "out", &cancelled).unwrap_err();
    assert!(matches!(&e, WriteError::Failed { node: None, .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "output `out` is an error: evaluation cancelled"
    );
    // The output name is still checked first.
    let e = write_output(dir.path(), "a/b", &node_error(None)).unwrap_err();
    assert!(matches!(e, WriteError::BadName { .. }), "{e}");
    assert_eq!(kiln_io::values::value_json(&node_error(None)), None);
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );
}
