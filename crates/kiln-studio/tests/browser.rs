//! The page in a real headless Chromium: it draws every node, shows previews, and follows
//! edits. Without Chromium (see build.rs) these tests are reported as ignored, by name.
//! Screenshots of each step are kept in the target folder (`studio-screenshots/`).
//!
//! The `user_*` tests drive the page with real mouse and keyboard input through
//! playwright-core (the scripts in `tests/browser/`, run by `node`; the package is found in
//! the folder `KILN_PLAYWRIGHT` names, which `.ci/run` installs); without it they are
//! reported as ignored, by name.

mod common;

use common::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> PathBuf {
    std::env::var_os("KILN_CHROMIUM").map_or_else(|| PathBuf::from("chromium"), PathBuf::from)
}

/// Where the screenshots are kept.
fn artifacts() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("studio-screenshots");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn headless(extra: &[String], url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1600,900",
        "--virtual-time-budget=8000",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(format!("--user-data-dir={}", profile.path().display()));
    args.extend(extra.iter().cloned());
    args.push(url.to_string());
    let out = Command::new(chromium())
        .args(&args)
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The page's DOM once it has drawn.
fn dom(url: &str) -> String {
    headless(&["--dump-dom".into()], url)
}

fn screenshot(url: &str, name: &str) {
    let path = artifacts().join(name);
    headless(&[format!("--screenshot={}", path.display())], url);
    let img = image::open(&path).unwrap();
    assert_eq!((img.width(), img.height()), (1600, 900));
    println!("screenshot: {}", path.display());
}

/// The `href` of the preview drawn on node `id`.
fn preview_of(dom: &str, id: &str) -> Option<String> {
    let start = dom.find(&format!("data-id=\"{id}\""))?;
    let rest = &dom[start..];
    let end = rest[1..]
        .find("class=\"node ")
        .map_or(rest.len(), |e| e + 1);
    let node = &rest[..end];
    let at = node.find("class=\"preview\"")?;
    let href = node[at..].find("href=\"")? + at + 6;
    let len = node[href..].find('"')?;
    Some(node[href..href + len].to_string())
}

#[test]
#[cfg_attr(not(has_chromium), ignore = "chromium not found: browser test skipped")]
fn the_page_draws_every_node_with_its_preview_and_follows_edits() {
    let (_d, path) = copy_example("marble.json");
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    let v = c.graph()["version"].as_u64().unwrap();
    c.cooked(v);
    let url = s.url();
    let page = dom(&format!("{url}#node=fine"));
    let ids = [
        "mix", "tint", "coarse", "fine", "blend", "stretch", "veins", "clamped", "colour",
        "tinted", "marble",
    ];
    for id in ids {
        assert!(
            page.contains(&format!("data-id=\"{id}\"")),
            "{id} is not drawn"
        );
    }
    let before: Vec<Option<String>> = ids.iter().map(|id| preview_of(&page, id)).collect();
    for (id, p) in ids.iter().zip(&before) {
        if !["mix", "tint"].contains(id) {
            assert!(
                p.as_deref().is_some_and(|h| h.starts_with("/preview/")),
                "{id}: {p:?}"
            );
        }
    }
    // The inspector shows the selected node, with a slider for its octaves.
    assert!(
        page.contains("<h2>fine</h2>"),
        "the inspector does not show `fine`"
    );
    assert!(page.contains("type=\"range\""));
    // marble has no latch: its timeline stays hidden.
    assert!(
        page.contains("id=\"timeline\" class=\"timeline\" hidden"),
        "the timeline shows"
    );
    screenshot(&format!("{url}#node=fine"), "1-loaded.png");

    // A param edit: the previews of the cone change, the others stay.
    c.send(json!({"type": "set_param", "node": "fine", "param": "octaves", "value": 2}));
    c.cooked(v + 1);
    let page = dom(&url);
    for (id, old) in ids.iter().zip(&before) {
        let now = preview_of(&page, id);
        let in_cone = [
            "fine", "blend", "stretch", "veins", "clamped", "tinted", "marble",
        ]
        .contains(id);
        if in_cone {
            assert_ne!(&now, old, "{id} did not change");
        } else {
            assert_eq!(&now, old, "{id} changed");
        }
    }
    screenshot(&url, "2-edited.png");

    // A broken value: the error shows on its node and the last good preview stays.
    c.send(json!({"type": "set_param", "node": "coarse", "param": "width", "value": -3}));
    c.cooked(v + 2);
    let page = dom(&url);
    let coarse = &page[page.find("data-id=\"coarse\"").unwrap()..];
    let coarse = &coarse[..coarse[1..].find("class=\"node ").unwrap_or(coarse.len())];
    assert!(coarse.contains("error-text"), "no error on coarse");
    assert!(
        coarse.contains("width"),
        "the error does not name the param"
    );
    assert!(
        preview_of(&page, "coarse").is_some(),
        "the last good preview is gone"
    );
    screenshot(&url, "3-broken.png");
}

#[test]
#[cfg_attr(not(has_chromium), ignore = "chromium not found: browser test skipped")]
fn a_call_opens_to_show_its_body() {
    let (_d, path) = copy_example("wall.json");
    let s = studio(&path, None);
    let mut c = Client::connect(s.addr());
    c.cooked(1);
    let page = dom(&s.url());
    for id in ["size", "mortar", "rows", "wall"] {
        assert!(page.contains(&format!("data-id=\"{id}\"")), "{id}");
    }
    assert!(preview_of(&page, "rows").is_some());
    let body = dom(&format!("{}#open=row", s.url()));
    assert!(
        body.contains("data-id=\"bricks\""),
        "the body of `row` is not drawn"
    );
    assert!(body.contains("(read-only)"));
    screenshot(&format!("{}#open=row", s.url()), "4-call-body.png");
}

/// Run the Playwright script `tests/browser/{script}` against the studio at `url` on `file`;
/// its screenshots go to `studio-screenshots/{script}/`. Its output, once it passed.
fn playwright(script: &str, url: &str, file: &Path) -> String {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let shots = artifacts().join(script.trim_end_matches(".mjs"));
    std::fs::create_dir_all(&shots).unwrap();
    // The scripts use KILN_CHROMIUM when set, Debian's /usr/bin/chromium otherwise.
    let out = Command::new("node")
        .arg(here.join(script))
        .arg(url)
        .arg(file)
        .arg(&shots)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{script} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// What `kiln validate` checks: the file loads and its graph has no problem.
fn assert_validates(path: &Path) {
    let reg = registry();
    let text = std::fs::read_to_string(path).unwrap();
    let dir = path.parent().unwrap();
    let file = kiln_doc::graph_file::load_graph_in(&text, &reg, dir)
        .unwrap_or_else(|e| panic!("the saved file does not load: {e}\n{text}"));
    let diags = kiln_core::validate::validate(&file.graph, &reg);
    assert!(
        diags.is_empty(),
        "the saved file does not validate: {diags:?}\n{text}"
    );
}

fn file_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
#[cfg_attr(
    not(has_playwright),
    ignore = "chromium, node or playwright-core (KILN_PLAYWRIGHT) not found: browser test skipped"
)]
fn user_edits_a_param_with_its_slider_and_types_a_broken_value() {
    let (_d, path) = copy_example("marble.json");
    let s = studio(&path, None);
    playwright("edit.mjs", &s.url(), &path);
    // The file holds both edits, as the page made them.
    let f = file_json(&path);
    // `octaves` is an input (a former param): the inspector edits it as one.
    assert_eq!(f["nodes"]["fine"]["inputs"]["octaves"], 6);
    assert!(f["nodes"]["fine"]["params"].get("octaves").is_none());
    assert_eq!(f["nodes"]["coarse"]["params"]["width"], -3);
}

#[test]
#[cfg_attr(
    not(has_playwright),
    ignore = "chromium, node or playwright-core (KILN_PLAYWRIGHT) not found: browser test skipped"
)]
fn user_adds_a_node_drags_it_and_wires_it_and_the_file_validates() {
    let (_d, path) = copy_example("marble.json");
    let s = studio(&path, None);
    let out = playwright("structure.mjs", &s.url(), &path);
    let added = out
        .lines()
        .find_map(|l| l.strip_prefix("added: "))
        .expect("the script names the added node")
        .trim()
        .to_string();
    let f = file_json(&path);
    assert_eq!(f["nodes"][&added]["op"], "image.invert");
    assert_eq!(f["nodes"][&added]["inputs"]["image"], "stretch.out");
    assert!(
        f["editor"]["positions"][&added].is_array(),
        "no position for {added}"
    );
    assert_validates(&path);
}

#[test]
#[cfg_attr(
    not(has_playwright),
    ignore = "chromium, node or playwright-core (KILN_PLAYWRIGHT) not found: browser test skipped"
)]
fn user_picks_an_output_colour_space_from_its_list() {
    let (_d, path) = copy_example("marble.json");
    let s = studio(&path, None);
    playwright("colour.mjs", &s.url(), &path);
    let f = file_json(&path);
    assert_eq!(
        f["outputs"]["marble"],
        serde_json::json!({"from": "tinted.out", "color": "data"})
    );
    assert_validates(&path);
}

#[test]
#[cfg_attr(
    not(has_playwright),
    ignore = "chromium, node or playwright-core (KILN_PLAYWRIGHT) not found: browser test skipped"
)]
fn user_sees_an_edit_of_the_file_on_disk() {
    let (_d, path) = copy_example("marble.json");
    let s = studio(&path, None);
    playwright("disk.mjs", &s.url(), &path);
}

#[test]
#[cfg_attr(
    not(has_playwright),
    ignore = "chromium, node or playwright-core (KILN_PLAYWRIGHT) not found: browser test skipped"
)]
fn a_page_of_another_origin_cannot_drive_the_studio() {
    let (_d, path) = copy_example("marble.json");
    let s = studio(&path, None);
    playwright("origin.mjs", &s.url(), &path);
}

#[test]
#[cfg_attr(
    not(has_playwright),
    ignore = "chromium, node or playwright-core (KILN_PLAYWRIGHT) not found: browser test skipped"
)]
fn user_sees_meshes_previewed_on_their_nodes() {
    let (_d, path) = copy_example("rock.json");
    let s = studio(&path, None);
    playwright("mesh.mjs", &s.url(), &path);
}
