//! The studio's HTTP and WebSocket API, driven as the page drives it.

mod common;

use common::*;
use serde_json::{Value as Json, json};

/// The nodes of examples/marble.json that depend on `fine` (its cone), by reading the file:
/// fine -> blend -> stretch -> veins -> clamped -> tinted -> marble.
const FINE_CONE: [&str; 7] = [
    "fine", "blend", "stretch", "veins", "clamped", "tinted", "marble",
];
/// The others.
const NOT_FINE_CONE: [&str; 4] = ["mix", "tint", "coarse", "colour"];

#[test]
fn the_page_and_the_state_load_and_every_node_cooks_once() {
    let (_d, path) = copy_example("marble.json");
    let s = studio(&path, None);
    let page = get(s.addr(), "/");
    assert_eq!(page.status, 200);
    assert!(String::from_utf8_lossy(&page.body).contains("<script src=\"/app.js\">"));
    assert_eq!(get(s.addr(), "/app.js").status, 200);
    let mut c = Client::connect(s.addr());
    let g = c.graph();
    let ids: Vec<&str> = g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "mix", "tint", "coarse", "fine", "blend", "stretch", "veins", "clamped", "colour",
            "tinted", "marble"
        ]
    );
    let cooked = c.cooked(1);
    assert_eq!(cooked["ok"], true, "{cooked}");
    for id in ids {
        assert_eq!(status(&cooked, id), "cooked", "{id}: {cooked}");
    }
    // The ops are listed with their docs and widgets.
    let ops = get(s.addr(), "/api/ops").json();
    let noise = ops
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == "image.noise")
        .unwrap();
    assert!(!noise["doc"].as_str().unwrap().is_empty());
    // `octaves` is a (wireable) input with its range, edited by a slider.
    let octaves = noise["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "octaves")
        .unwrap();
    assert_eq!(octaves["widget"]["kind"], "slider");
    // The state endpoint holds the same graph and the cook.
    let st = get(s.addr(), "/api/state").json();
    assert_eq!(st["graph"]["nodes"].as_array().unwrap().len(), 11);
    assert_eq!(st["cooked"]["ok"], true);
}

#[test]
fn a_param_edit_recooks_only_its_cone() {
    let (_d, path) = copy_example("marble.json");
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    let v = c.graph()["version"].as_u64().unwrap();
    c.cooked(v);
    c.send(json!({"type": "set_param", "node": "fine", "param": "octaves", "value": 3}));
    let cooked = c.cooked(v + 1);
    assert_eq!(cooked["ok"], true, "{cooked}");
    // The edit reached the session as the edit it was, not as a new document to compare.
    assert_eq!(cooked["change"], "edits", "{cooked}");
    for id in FINE_CONE {
        let st = status(&cooked, id);
        assert!(st == "cooked" || st == "cut_off", "{id} was {st}");
    }
    for id in NOT_FINE_CONE {
        assert_eq!(status(&cooked, id), "reused", "{id}");
    }
    // The report's counts: nothing outside the cone ran.
    let total = cooked["report"]["nodes"].as_u64().unwrap();
    let ran = cooked["report"]["cooked"].as_u64().unwrap();
    assert!(ran < total, "{cooked}");
    // The file holds the edit: as a param in the file, which loads as the constant of the
    // input `octaves` (a former param).
    let file = kiln_doc::load_graph(&std::fs::read_to_string(&path).unwrap(), &registry()).unwrap();
    assert_eq!(
        file.graph.node("fine").unwrap().consts.get("octaves"),
        Some(&kiln_core::value::Value::Int(3))
    );
}

#[test]
fn each_edit_reaches_the_cook_as_an_edit_and_an_undo_as_a_whole_document() {
    let (_d, path) = copy_example("marble.json");
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    let mut v = c.graph()["version"].as_u64().unwrap();
    assert_eq!(c.cooked(v)["change"], "new");
    let edits = [
        json!({"type": "add", "op": "image.gain", "at": [900, 40]}),
        json!({"type": "connect", "from": "tinted.out", "node": "gain1", "port": "image"}),
        json!({"type": "set_input", "node": "gain1", "port": "gain", "value": 2.5}),
        json!({"type": "connect", "from": "gain1", "node": "marble", "port": "value"}),
        json!({"type": "move", "node": "mix", "at": [10, 20]}),
        json!({"type": "delete", "node": "gain1"}),
    ];
    let mut previewed = false;
    let mut last = Json::Null;
    for (i, e) in edits.into_iter().enumerate() {
        c.send(e.clone());
        v += 1;
        last = c.cooked(v);
        // A node just added has no image yet: the graph waits for its wire.
        assert_eq!(last["ok"], i != 0, "{e}: {last}");
        assert_eq!(last["change"], "edits", "{e}: {last}");
        previewed |= last["nodes"].get("gain1").is_some();
    }
    // The added node was previewed while it stood, and went with its previews.
    assert!(previewed);
    assert!(last["nodes"].get("gain1").is_none(), "{last}");
    c.send(json!({"type": "undo"}));
    let cooked = c.cooked(v + 1);
    assert_eq!(cooked["change"], "whole", "{cooked}");
    assert!(cooked["nodes"].get("gain1").is_some(), "{cooked}");
}

#[test]
fn a_failing_value_shows_on_its_node_and_the_rest_still_cooks() {
    let (_d, path) = copy_example("marble.json");
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    let v = c.graph()["version"].as_u64().unwrap();
    c.cooked(v);
    // A negative width breaks the rule of image.noise's `width`.
    c.send(json!({"type": "set_param", "node": "fine", "param": "width", "value": -5}));
    let cooked = c.cooked(v + 1);
    let failed = &cooked["nodes"]["fine"];
    let shown = format!("{}{}", failed["error"], failed["errors"]);
    assert!(shown.contains("width"), "{cooked}");
    assert!(
        ["failed", "invalid"].contains(&failed["status"].as_str().unwrap()),
        "{cooked}"
    );
}

#[test]
fn undo_and_redo_round_trip_through_the_file() {
    let (_d, path) = copy_example("marble.json");
    let reg = registry();
    let original = kiln_doc::load_graph(&std::fs::read_to_string(&path).unwrap(), &reg).unwrap();
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    let v = c.graph()["version"].as_u64().unwrap();
    c.send(json!({"type": "set_param", "node": "coarse", "param": "seed", "value": 9}));
    let g = c.wait(30, |m| {
        m["type"] == "graph" && m["version"].as_u64() > Some(v)
    });
    assert_eq!(g["can_undo"], true);
    let edited = std::fs::read_to_string(&path).unwrap();
    c.send(json!({"type": "undo"}));
    let g = c.wait(30, |m| m["type"] == "graph" && m["reason"] == "undo");
    assert_eq!(g["can_redo"], true);
    let undone = kiln_doc::load_graph(&std::fs::read_to_string(&path).unwrap(), &reg).unwrap();
    assert_eq!(undone.graph, original.graph);
    c.send(json!({"type": "redo"}));
    c.wait(30, |m| m["type"] == "graph" && m["reason"] == "redo");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    // Nothing more to redo: the sender alone hears why.
    c.send(json!({"type": "redo", "id": 7}));
    let e = c.wait(30, |m| m["type"] == "error");
    assert_eq!(e["id"], 7);
    assert!(e["message"].as_str().unwrap().contains("nothing to redo"));
}

#[test]
fn structural_edits_save_the_expected_graph() {
    let (_d, path) = copy_example("marble.json");
    let reg = registry();
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    let v = c.graph()["version"].as_u64().unwrap();
    let edits = [
        json!({"type": "add", "op": "image.gain", "at": [900, 40]}),
        json!({"type": "connect", "from": "tinted.out", "node": "gain1", "port": "image"}),
        json!({"type": "set_input", "node": "gain1", "port": "gain", "value": 2.5}),
        json!({"type": "connect", "from": "gain1", "node": "marble", "port": "value"}),
        json!({"type": "delete", "node": "veins"}),
        json!({"type": "connect", "from": "stretch.out", "node": "clamped", "port": "image"}),
        json!({"type": "move", "node": "mix", "at": [10, 20]}),
    ];
    let n = edits.len() as u64;
    for e in edits {
        c.send(e);
    }
    c.wait(30, |m| {
        m["type"] == "graph" && m["version"].as_u64() == Some(v + n)
    });
    // The same changes made to the graph by hand.
    let text = std::fs::read_to_string(examples().join("marble.json")).unwrap();
    let mut expected = kiln_doc::load_graph(&text, &reg).unwrap().graph;
    expected.remove_node("veins").unwrap();
    expected.add_node("gain1", "image.gain").unwrap();
    expected.wire("tinted.out", "gain1.image");
    expected.set_const("gain1", "gain", 2.5).unwrap();
    expected
        .disconnect(&kiln_core::graph::PortRef::parse("marble.value"))
        .unwrap();
    expected.wire("gain1.out", "marble.value");
    expected.wire("stretch.out", "clamped.image");
    let saved_text = std::fs::read_to_string(&path).unwrap();
    let saved = kiln_doc::load_graph(&saved_text, &reg).unwrap();
    assert_eq!(
        kiln_doc::save_graph(&saved.graph, &reg),
        kiln_doc::save_graph(&expected, &reg)
    );
    assert_eq!(saved.meta.positions.get("mix"), Some(&[10, 20]));
    assert_eq!(saved.meta.positions.get("gain1"), Some(&[900, 40]));
    assert!(kiln_core::validate::validate(&saved.graph, &reg).is_empty());
    // An edit the file cannot hold is refused and the file is left as it was.
    c.send(
        json!({"type": "connect", "from": "ghost", "node": "gain1", "port": "image", "id": "x"}),
    );
    let e = c.wait(30, |m| m["type"] == "error");
    assert!(e["message"].as_str().unwrap().contains("ghost"), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), saved_text);
}

#[test]
fn an_edit_of_the_file_on_disk_reaches_the_page() {
    let (_d, path) = copy_example("marble.json");
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    let v = c.graph()["version"].as_u64().unwrap();
    c.cooked(v);
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replace("\"octaves\": 7", "\"octaves\": 2");
    assert_ne!(edited, text);
    std::fs::write(&path, edited).unwrap();
    let g = c.wait(30, |m| {
        m["type"] == "graph" && m["reason"] == "the file changed on disk"
    });
    let fine = g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "fine")
        .unwrap();
    let octaves = fine["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "octaves")
        .unwrap();
    assert_eq!(octaves["value"], 2);
    let cooked = c.cooked(g["version"].as_u64().unwrap());
    assert_eq!(status(&cooked, "fine"), "cooked");
    assert_eq!(status(&cooked, "coarse"), "reused");
    // A broken file is reported and edits wait until it is fixed.
    std::fs::write(&path, "{ not json").unwrap();
    let e = c.wait(30, |m| m["type"] == "file_error");
    assert!(e["message"].as_str().unwrap().contains("JSON"), "{e}");
    c.send(json!({"type": "set_param", "node": "fine", "param": "seed", "value": 4}));
    let e = c.wait(30, |m| m["type"] == "error");
    assert!(
        e["message"].as_str().unwrap().contains("does not load"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ not json");
}

#[test]
fn a_newer_edit_cancels_the_cook_in_progress() {
    // A noise big enough that cooking it takes a while; the first version is small.
    let text = r#"{
  "kiln": 1,
  "nodes": {
    "n": {"op": "image.noise", "params": {"height": 16, "octaves": 8, "seed": 1, "width": 16}}
  },
  "outputs": {
    "out": "n.out"
  }
}
"#;
    let (_d, path) = graph_file(text);
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    let v = c.graph()["version"].as_u64().unwrap();
    c.cooked(v);
    for (p, x) in [("width", 2048), ("height", 2048)] {
        c.send(json!({"type": "set_param", "node": "n", "param": p, "value": x}));
    }
    // Once the big version is cooking, a newer edit arrives.
    let cooking = c.wait(60, |m| {
        m["type"] == "cooking" && m["version"].as_u64() == Some(v + 2)
    });
    assert_eq!(cooking["version"], v + 2);
    c.send(json!({"type": "set_param", "node": "n", "param": "width", "value": 32}));
    let cancelled = c.wait(120, |m| m["type"] == "cancelled" || m["type"] == "cooked");
    assert_eq!(cancelled["type"], "cancelled", "{cancelled}");
    assert_eq!(cancelled["version"], v + 2);
    let cooked = c.cooked(v + 3);
    assert_eq!(cooked["version"], v + 3);
    assert_eq!(cooked["ok"], true);
    // The preview is of the newest version: 32 x 2048 fits 192 as 3 x 192.
    let p = &cooked["nodes"]["n"]["ports"]["out"];
    assert_eq!(
        (p["width"].as_u64(), p["height"].as_u64()),
        (Some(3), Some(192)),
        "{p}"
    );
}

#[test]
fn image_previews_are_pngs_of_the_size_announced() {
    let (_d, path) = copy_example("marble.json");
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    let cooked = c.cooked(1);
    // marble's images are 192 x 192: thumbnails of at most 192 keep that size.
    let p: &Json = &cooked["nodes"]["marble"]["ports"]["out"];
    assert_eq!(p["kind"], "image", "{cooked}");
    let r = get(s.addr(), p["url"].as_str().unwrap());
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("image/png"));
    assert!(r.header("cache-control").unwrap().contains("immutable"));
    let img = image::load_from_memory(&r.body).unwrap();
    assert_eq!((img.width(), img.height()), (192, 192));
    assert_eq!(
        (p["width"].as_u64(), p["height"].as_u64()),
        (Some(192), Some(192))
    );
    // A plain value is text.
    assert_eq!(cooked["nodes"]["mix"]["ports"]["out"]["text"], "0.35");
    assert_eq!(get(s.addr(), "/preview/nothing.png").status, 404);
}

#[test]
fn a_foreign_host_or_origin_is_refused() {
    let (_d, path) = copy_example("marble.json");
    let s = studio(&path, None);
    let a = s.addr();
    let own = a.to_string();
    let local = format!("localhost:{}", a.port());
    assert_eq!(get_with(a, "/api/state", &[("Host", &own)]).status, 200);
    assert_eq!(get_with(a, "/api/state", &[("Host", &local)]).status, 200);
    for headers in [
        vec![("Host", "evil.example")],
        vec![("Host", format!("evil.example:{}", a.port()).leak() as &str)],
        vec![],
        vec![("Host", own.as_str()), ("Origin", "http://evil.example")],
        vec![("Host", own.as_str()), ("Origin", "null")],
        // A plain GET of another origin's page (no Origin sent, but Sec-Fetch-Site).
        vec![("Host", own.as_str()), ("Sec-Fetch-Site", "cross-site")],
        vec![("Host", own.as_str()), ("Sec-Fetch-Site", "same-site")],
    ] {
        let r = get_with(a, "/api/state", &headers);
        assert_eq!(r.status, 403, "{headers:?}");
    }
    // A WebSocket upgrade from another site's page is refused too.
    let r = get_with(
        a,
        "/ws",
        &[
            ("Host", own.as_str()),
            ("Origin", "http://evil.example"),
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Version", "13"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ],
    );
    assert_eq!(r.status, 403);
}

#[test]
fn files_outside_the_graph_and_output_folders_are_refused() {
    let (d, path) = copy_example("marble.json");
    let out = d.path().join("out");
    std::fs::write(d.path().join("..").join("kiln-studio-secret.txt"), "secret").ok();
    let s = studio(&path, Some(&out));
    let mut c = Client::connect(s.addr());
    let cooked = c.cooked(1);
    // The cook's outputs land in the output folder, and can be fetched from it.
    assert_eq!(cooked["written"]["ok"], true, "{cooked}");
    let r = get(s.addr(), "/files/out/marble.png");
    assert_eq!(r.status, 200);
    assert_eq!(image::load_from_memory(&r.body).unwrap().width(), 192);
    assert_eq!(get(s.addr(), "/files/graph/marble.json").status, 200);
    for bad in [
        "/files/graph/../kiln-studio-secret.txt",
        "/files/graph/%2e%2e/kiln-studio-secret.txt",
        "/files/graph/..%2fkiln-studio-secret.txt",
        "/files/graph/%2fetc%2fpasswd",
        "/files/out/../marble.json",
        "/files/elsewhere/marble.json",
        "/files/graph/lib/..%2f..%2fkiln-studio-secret.txt",
    ] {
        let r = get(s.addr(), bad);
        assert!(r.status == 403 || r.status == 404, "{bad}: {}", r.status);
        assert!(
            !String::from_utf8_lossy(&r.body).contains("secret"),
            "{bad}"
        );
    }
}

#[test]
fn the_output_folder_codes_colour_as_the_file_and_the_config_ask() {
    // A grey of 0.5: sRGB-encoded round(255 (1.055 0.5^(1/2.4) - 0.055)) = 188, as data
    // round(255 0.5) = 128.
    let (d, path) = graph_file(
        r#"{"kiln": 1,
        "nodes": {"fill": {"op": "image.fill", "params": {"width": 2, "height": 2},
                           "inputs": {"color": [0.5, 0.5, 0.5, 1.0]}}},
        "outputs": {"pic": "fill.out", "mask": {"from": "fill.out", "color": "data"},
                    "height": "fill.out"}}"#,
    );
    let out = d.path().join("out");
    let mut config = kiln_studio::StudioConfig::new(&path);
    config.out = Some(out.clone());
    config
        .out_colours
        .named
        .insert("height".into(), kiln_io::image_files::ColorSpace::Data);
    let s = kiln_studio::Studio::start(config, registry()).unwrap();
    let mut c = Client::connect(s.addr());
    let cooked = c.cooked(1);
    assert_eq!(cooked["written"]["ok"], true, "{cooked}");
    let red = |name: &str| {
        image::open(out.join(name))
            .unwrap()
            .to_rgba8()
            .get_pixel(0, 0)
            .0[0]
    };
    assert_eq!(red("pic.png"), 188);
    assert_eq!(red("mask.png"), 128);
    assert_eq!(red("height.png"), 128);
}

#[test]
fn an_output_colour_is_drawn_edited_and_written() {
    // A grey of 0.5: sRGB-encoded 188, as data 128.
    let (d, path) = graph_file(
        r#"{"kiln": 1,
        "nodes": {"fill": {"op": "image.fill", "params": {"width": 2, "height": 2},
                           "inputs": {"color": [0.5, 0.5, 0.5, 1.0]}}},
        "outputs": {"pic": "fill.out"}}"#,
    );
    let out = d.path().join("out");
    let mut config = kiln_studio::StudioConfig::new(&path);
    config.out = Some(out.clone());
    let s = kiln_studio::Studio::start(config, registry()).unwrap();
    let mut c = Client::connect(s.addr());
    let g = c.graph();
    let pic = g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "pic")
        .unwrap();
    assert_eq!(pic["params"][0]["name"], "color", "{pic}");
    assert_eq!(pic["params"][0]["value"], "srgb");
    assert_eq!(
        pic["params"][0]["widget"]["options"],
        json!(["srgb", "data"])
    );
    let v = g["version"].as_u64().unwrap();
    c.cooked(v);
    let red = || {
        image::open(out.join("pic.png"))
            .unwrap()
            .to_rgba8()
            .get_pixel(0, 0)
            .0[0]
    };
    assert_eq!(red(), 188);
    c.send(json!({"type": "set_param", "node": "pic", "param": "color", "value": "data"}));
    let cooked = c.cooked(v + 1);
    assert_eq!(cooked["written"]["ok"], true, "{cooked}");
    assert_eq!(red(), 128);
    let file: Json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        file["outputs"]["pic"],
        json!({"from": "fill.out", "color": "data"})
    );
    // A space that is none is refused, and the file kept.
    c.send(json!({"type": "set_param", "node": "pic", "param": "color", "value": "linear"}));
    let refused = c.wait(30, |m| m["type"] == "error");
    assert!(refused.to_string().contains("srgb, data"), "{refused}");
    let again: Json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(again, file);
}

#[test]
fn the_output_folder_writes_images_in_the_format_the_config_asks() {
    // A grey of 0.5 and a number: at 16 bits the sRGB code is
    // round(65535 (1.055 0.5^(1/2.4) - 0.055)) = 48192; OpenEXR keeps the linear 0.5.
    let (d, path) = graph_file(
        r#"{"kiln": 1,
        "nodes": {"fill": {"op": "image.fill", "params": {"width": 2, "height": 2},
                           "inputs": {"color": [0.5, 0.5, 0.5, 1.0]}},
                  "add": {"op": "math.add", "inputs": {"a": 1.0, "b": 2.0}}},
        "outputs": {"pic": "fill.out", "n": "add.out"}}"#,
    );
    for (format, file) in [
        (kiln_io::image_files::ImageFormat::Png16, "pic.png"),
        (kiln_io::image_files::ImageFormat::ExrHalf, "pic.exr"),
    ] {
        let out = d.path().join(format!("out-{file}"));
        let mut config = kiln_studio::StudioConfig::new(&path);
        config.out = Some(out.clone());
        config.out_image = format;
        let s = kiln_studio::Studio::start(config, registry()).unwrap();
        let mut c = Client::connect(s.addr());
        let cooked = c.cooked(1);
        assert_eq!(cooked["written"]["ok"], true, "{cooked}");
        let img = image::open(out.join(file)).unwrap();
        if file.ends_with(".png") {
            assert_eq!(img.color(), image::ColorType::Rgba16);
            assert_eq!(img.to_rgba16().get_pixel(0, 0).0[0], 48192);
        } else {
            assert_eq!(img.to_rgba32f().get_pixel(1, 1).0, [0.5, 0.5, 0.5, 1.0]);
        }
        // What is no image is written as before.
        let n = std::fs::read_to_string(out.join("n.json")).unwrap();
        assert!(n.contains("\"value\": 3.0"), "{n}");
    }
}

#[test]
fn a_call_is_a_node_whose_body_is_sent_to_open() {
    let (_d, path) = copy_example("wall.json");
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    let g = c.graph();
    let rows = g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "rows")
        .unwrap();
    assert_eq!(rows["kind"], "call");
    assert_eq!(rows["call"]["scope"], "for");
    assert_eq!(rows["outputs"][0]["name"], "painted");
    let body = &g["bodies"]["row"];
    let inner: Vec<&str> = body["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    assert!(inner.contains(&"bricks"), "{inner:?}");
    assert!(g["bodies"]["lib/brick"]["nodes"].as_array().unwrap().len() > 20);
    let cooked = c.cooked(1);
    assert_eq!(cooked["ok"], true, "{cooked}");
    assert_eq!(cooked["nodes"]["rows"]["ports"]["painted"]["kind"], "image");
    // An edit of a file the graph calls reaches the page too.
    let brick = path.parent().unwrap().join("lib/brick.json");
    let t = std::fs::read_to_string(&brick)
        .unwrap()
        .replace("0.006", "0.02");
    std::fs::write(&brick, t).unwrap();
    let g = c.wait(30, |m| {
        m["type"] == "graph" && m["reason"] == "a called graph changed on disk"
    });
    let cooked = c.cooked(g["version"].as_u64().unwrap());
    assert_eq!(status(&cooked, "rows"), "cooked");
    assert_eq!(status(&cooked, "mortar"), "reused");
}

#[test]
fn an_audio_graph_renders_a_stretch_of_sound_as_a_wav() {
    let (_d, path) = copy_example("pluck.json");
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    let cooked = c.cooked(1);
    let p = &cooked["nodes"]["pluck"]["ports"]["out"];
    assert_eq!(p["kind"], "audio", "{cooked}");
    assert_eq!(
        p["peaks"].as_array().unwrap().len(),
        kiln_studio::audio::PEAKS
    );
    let r = get(s.addr(), p["url"].as_str().unwrap());
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("audio/wav"));
    let wav = hound::WavReader::new(std::io::Cursor::new(r.body)).unwrap();
    let spec = wav.spec();
    assert_eq!(
        (spec.channels, spec.sample_rate, spec.bits_per_sample),
        (1, 48_000, 16)
    );
    // Two seconds at 48 kHz.
    assert_eq!(wav.duration(), 96_000);
    // The signal feeding the output shows the same sound.
    assert_eq!(cooked["nodes"]["level"]["ports"]["out"]["url"], p["url"]);
}

#[test]
fn a_graph_with_latches_has_a_timeline_that_seeks_and_steps() {
    let (_d, path) = copy_example("life.json");
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    let g = c.graph();
    assert_eq!(g["animated"], true);
    let cooked = c.cooked(1);
    assert_eq!(cooked["ok"], true, "{cooked}");
    assert_eq!(cooked["frame"], 0);
    let first = cooked["nodes"]["life"]["ports"]["out"]["url"].clone();
    assert!(first.is_string(), "{cooked}");
    // Tick 30: a glider gun has fired once; the picture is not the first one.
    c.send(json!({"type": "seek", "frame": 30, "fps": 12}));
    let at30 = c.wait(120, |m| m["type"] == "cooked" && m["frame"] == 30);
    assert_eq!(at30["ok"], true, "{at30}");
    let url30 = at30["nodes"]["life"]["ports"]["out"]["url"].clone();
    assert_ne!(url30, first);
    // Stepping on and seeking back replay the same bits: the same content, the same URL.
    c.send(json!({"type": "seek", "frame": 31, "fps": 12}));
    c.wait(120, |m| m["type"] == "cooked" && m["frame"] == 31);
    c.send(json!({"type": "seek", "frame": 30, "fps": 12}));
    let again = c.wait(120, |m| m["type"] == "cooked" && m["frame"] == 30);
    assert_eq!(again["nodes"]["life"]["ports"]["out"]["url"], url30);
    c.send(json!({"type": "seek", "frame": 0, "fps": 12}));
    let back = c.wait(120, |m| m["type"] == "cooked" && m["frame"] == 0);
    assert_eq!(back["nodes"]["life"]["ports"]["out"]["url"], first);
    // Past the end or at no rate, the seek is refused.
    c.send(json!({"type": "seek", "frame": 10_000_000, "fps": 12}));
    assert!(
        c.wait(30, |m| m["type"] == "error")["message"]
            .as_str()
            .unwrap()
            .contains("end")
    );
}

#[test]
fn meshes_are_previewed_on_their_node_as_a_shaded_picture() {
    let (_d, path) = copy_example("rock.json");
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    let v = c.graph()["version"].as_u64().unwrap();
    let cooked = c.cooked(v);
    let mut urls = vec![];
    for id in ["ball", "lumps", "squash", "facets", "rock"] {
        let p = &cooked["nodes"][id]["ports"]["out"];
        assert_eq!(p["kind"], "image", "{id}: {p}");
        assert_eq!(p["type"], "mesh", "{id}: {p}");
        let r = get(s.addr(), p["url"].as_str().unwrap());
        assert_eq!(r.header("content-type"), Some("image/png"));
        let img = image::load_from_memory(&r.body).unwrap().to_rgba8();
        assert_eq!(
            (u64::from(img.width()), u64::from(img.height())),
            (p["width"].as_u64().unwrap(), p["height"].as_u64().unwrap())
        );
        // Shaded: more than a background and one flat colour.
        let mut colours: Vec<[u8; 4]> = img.pixels().map(|p| p.0).collect();
        colours.sort();
        colours.dedup();
        assert!(colours.len() > 8, "{id}: {} colours", colours.len());
        urls.push(p["url"].as_str().unwrap().to_string());
    }
    // The sphere and the rock pushed out of it are different pictures; the output shows the
    // picture of what feeds it.
    assert_ne!(urls[0], urls[3]);
    assert_eq!(urls[3], urls[4]);
    // An edit of the roughness changes the pictures downstream of it, not the sphere's.
    c.send(json!({"type": "set_param", "node": "roughness", "param": "default", "value": 0.6}));
    let after = c.cooked(v + 1);
    let url = |m: &Json, id: &str| m["nodes"][id]["ports"]["out"]["url"].clone();
    assert_eq!(url(&after, "ball"), url(&cooked, "ball"));
    assert_ne!(url(&after, "lumps"), url(&cooked, "lumps"));
    assert_ne!(url(&after, "rock"), url(&cooked, "rock"));
}

/// `GET path`, or why no whole answer came within 30 s (a hang detector, not a measure of
/// speed: a request here takes milliseconds).
fn try_get(addr: std::net::SocketAddr, path: &str) -> Result<u16, String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes())
        .map_err(|e| format!("send: {e}"))?;
    let mut raw = vec![];
    s.read_to_end(&mut raw)
        .map_err(|e| format!("no whole answer within 30 s: {e}"))?;
    let head = String::from_utf8_lossy(&raw);
    head.split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("not an HTTP answer: {head}"))
}

/// Issue 37, item 4: the file route checked the file type, then opened the file; a FIFO
/// renamed over the file in between blocked the open for ever inside a worker of the
/// server. A thread swaps a served file and a FIFO by renames while it is requested: every
/// request is answered (the file, or refused), and the server answers HTTP and the
/// WebSocket afterwards.
#[cfg(unix)]
#[test]
fn a_fifo_swapped_in_for_a_served_file_never_stops_the_server() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (d, path) = copy_example("marble.json");
    let dir = d.path().to_path_buf();
    let served = dir.join("data.txt");
    std::fs::write(&served, "served\n").unwrap();
    let fifo = dir.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let s = studio(&path, None);
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = std::thread::spawn({
        let stop = stop.clone();
        let (served, fifo) = (served.clone(), fifo.clone());
        let (kept, next) = (dir.join("kept.txt"), dir.join("next"));
        move || {
            std::fs::hard_link(&served, &kept).unwrap();
            let mut swaps = 0u64;
            while !stop.load(Ordering::SeqCst) {
                // Each rename replaces what is at the path at once: the FIFO over the file,
                // then the file over the FIFO (new names for the same two files).
                std::fs::hard_link(&fifo, &next).unwrap();
                std::fs::rename(&next, &served).unwrap();
                std::fs::hard_link(&kept, &next).unwrap();
                std::fs::rename(&next, &served).unwrap();
                swaps += 1;
            }
            swaps
        }
    });
    let mut answered = [0u64; 2];
    let mut failure = None;
    for _ in 0..1500 {
        match try_get(s.addr(), "/files/graph/data.txt") {
            Ok(200) => answered[0] += 1,
            Ok(_) => answered[1] += 1,
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    stop.store(true, Ordering::SeqCst);
    let swaps = swapper.join().unwrap();
    assert_eq!(
        failure, None,
        "a request hung while the file was swapped for a FIFO"
    );
    assert!(swaps > 0);
    // The server still answers: a file, the state and the WebSocket.
    assert_eq!(try_get(s.addr(), "/files/graph/marble.json"), Ok(200));
    assert_eq!(try_get(s.addr(), "/files/graph/data.txt"), Ok(200));
    assert_eq!(try_get(s.addr(), "/api/state"), Ok(200));
    let mut c = Client::connect(s.addr());
    assert!(c.graph()["nodes"].is_array());
    // The FIFO itself is refused, never opened for ever.
    let r = get(s.addr(), "/files/graph/fifo");
    assert_eq!(r.status, 404);
    assert!(
        String::from_utf8_lossy(&r.body).contains("FIFO"),
        "{answered:?}"
    );
}
