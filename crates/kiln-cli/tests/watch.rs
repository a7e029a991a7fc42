//! `kiln watch`: presents once, then again at each save of the graph (or params) file,
//! recooking only what changed; a broken edit prints the error and keeps the last frame's
//! files. The tests wait on the command's output lines; the timeout is only a failsafe.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

mod support;
use support::*;

/// The failsafe: how long to wait for a line before giving up.
const FAILSAFE: Duration = Duration::from_secs(60);

/// A running `kiln watch`, its stdout lines arriving on a channel.
struct Watch {
    child: Child,
    lines: Receiver<String>,
}

impl Watch {
    fn start(args: &[&str], cwd: &Path) -> Watch {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
            .arg("watch")
            .args(args)
            .current_dir(cwd)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("kiln runs");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Watch { child, lines }
    }

    /// The next line of stdout.
    fn line(&self) -> String {
        self.lines
            .recv_timeout(FAILSAFE)
            .expect("kiln watch printed a line")
    }

    /// Wait for the process to exit (it does after --max-presents); its exit code.
    fn exit_code(mut self) -> Option<i32> {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(start.elapsed() < FAILSAFE, "kiln watch did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Replace `path` atomically, as an editor's save does.
fn save(path: &Path, text: &str) {
    let tmp = path.with_extension("saving");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// The number after `cooked ` in a present line.
fn cooked(line: &str) -> u64 {
    let rest = line
        .split("cooked ")
        .nth(1)
        .unwrap_or_else(|| panic!("no `cooked` in `{line}`"));
    rest.split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in `{line}`"))
}

fn names(dir: &Path) -> Vec<String> {
    files_in(dir).into_iter().map(|(n, _)| n).collect()
}

#[test]
fn watch_recooks_an_edit_and_keeps_the_last_frame_on_a_broken_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let original = std::fs::read_to_string(examples().join("marble.json")).unwrap();
    std::fs::write(d.join("graph.json"), &original).unwrap();
    let w = Watch::start(
        &[
            "graph.json",
            "--out",
            "out",
            "--max-presents",
            "3",
            "--poll-ms",
            "20",
        ],
        d,
    );

    let first = w.line();
    assert!(first.starts_with("frame 0:"), "{first}");
    assert!(first.contains("marble.png"), "{first}");
    let frame0 = std::fs::read(d.join("out/marble.png")).unwrap();
    // The same picture `kiln run` writes.
    let run = kiln(&["run", "graph.json", "--out", "run", "-q"], d);
    assert!(run.status.success(), "{:?}", text(&run));
    assert_eq!(std::fs::read(d.join("run/marble.png")).unwrap(), frame0);

    // Edit one param: only its cone recooks.
    let edited = original.replace("\"octaves\": 7", "\"octaves\": 5");
    assert_ne!(edited, original);
    save(&d.join("graph.json"), &edited);
    let second = w.line();
    assert!(second.starts_with("frame 1:"), "{second}");
    assert!(second.contains("graph.json changed"), "{second}");
    assert!(
        cooked(&second) < cooked(&first),
        "{first}\n{second}: the edit recooked everything"
    );
    let frame1 = std::fs::read(d.join("out/marble.png")).unwrap();
    assert_ne!(frame1, frame0, "the picture did not change");

    // A broken save: the error is reported, the last frame's file stays.
    save(
        &d.join("graph.json"),
        "{\n  \"kiln\": 1,\n  \"nodes\": {,}\n}\n",
    );
    let third = w.line();
    assert!(third.starts_with("error: "), "{third}");
    assert!(third.contains("graph.json"), "{third}");
    assert!(third.contains("line 3"), "{third}");
    assert!(third.contains("frame 1"), "{third}");
    assert_eq!(std::fs::read(d.join("out/marble.png")).unwrap(), frame1);
    assert_eq!(names(&d.join("out")), vec!["marble.png".to_string()]);
    // The last present failed: exit code 1.
    assert_eq!(w.exit_code(), Some(1));
}

/// A graph whose output fails when the `fail` input is true.
const RAISING: &str = r#"{
  "kiln": 1,
  "inputs": {
    "fail": {"type": "bool", "default": false},
    "x": {"type": "float", "default": 2.0}
  },
  "nodes": {
    "double": {"op": "math.mul", "inputs": {"a": "x.out", "b": 2.0}},
    "boom": {"op": "error.raise", "params": {"message": "kaboom"}, "inputs": {"value": "double.out", "when": "fail.out"}},
    "sq": {"op": "math.mul", "inputs": {"a": "x.out", "b": "x.out"}}
  },
  "outputs": {
    "result": "boom.out",
    "square": "sq.out"
  }
}
"#;

fn json_value(dir: &Path, name: &str) -> f64 {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap();
    v["value"].as_f64().unwrap()
}

#[test]
fn the_params_file_is_watched_and_a_failing_node_commits_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("g.json"), RAISING).unwrap();
    std::fs::write(d.join("p.json"), r#"{"x": 3}"#).unwrap();
    let w = Watch::start(
        &[
            "g.json",
            "--out",
            "out",
            "--params",
            "p.json",
            "--max-presents",
            "5",
            "--poll-ms",
            "20",
        ],
        d,
    );
    let out = d.join("out");
    let first = w.line();
    assert!(first.starts_with("frame 0:"), "{first}");
    assert_eq!(json_value(&out, "result.json"), 6.0);
    assert_eq!(json_value(&out, "square.json"), 9.0);

    // The node fails: neither output file changes (the frame is all or nothing).
    save(&d.join("p.json"), r#"{"x": 4, "fail": true}"#);
    let second = w.line();
    assert!(second.starts_with("error: "), "{second}");
    assert!(
        second.contains("node `boom`") && second.contains("kaboom"),
        "{second}"
    );
    assert!(second.contains("frame 0"), "{second}");
    assert_eq!(json_value(&out, "result.json"), 6.0);
    assert_eq!(json_value(&out, "square.json"), 9.0);

    // A params file that names nothing in the graph.
    save(&d.join("p.json"), r#"{"x": 4, "ghost.radius": 1}"#);
    let third = w.line();
    assert!(third.starts_with("error: "), "{third}");
    assert!(
        third.contains("p.json") && third.contains("no node `ghost`"),
        "{third}"
    );

    // Fixed: the next good save presents both outputs.
    save(&d.join("p.json"), r#"{"x": 4}"#);
    let fourth = w.line();
    assert!(fourth.starts_with("frame 1:"), "{fourth}");
    assert!(fourth.contains("p.json changed"), "{fourth}");
    assert_eq!(json_value(&out, "result.json"), 8.0);
    assert_eq!(json_value(&out, "square.json"), 16.0);

    // A save that changes nothing presents nothing; the next real change does.
    save(&d.join("p.json"), r#"{"x": 4}"#);
    save(&d.join("p.json"), r#"{"x": 5}"#);
    let fifth = w.line();
    assert!(fifth.starts_with("frame 2:"), "{fifth}");
    assert_eq!(json_value(&out, "square.json"), 25.0);
    assert_eq!(
        names(&out),
        vec!["result.json".to_string(), "square.json".to_string()]
    );
    assert_eq!(w.exit_code(), Some(0));
}

#[test]
fn a_graph_broken_from_the_start_presents_once_it_is_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("g.json"), "{ not json").unwrap();
    let w = Watch::start(
        &[
            "g.json",
            "--out",
            "out",
            "--max-presents",
            "2",
            "--poll-ms",
            "20",
        ],
        d,
    );
    let first = w.line();
    assert!(first.starts_with("error: "), "{first}");
    assert!(first.contains("nothing was written"), "{first}");
    assert!(names(&d.join("out")).is_empty());
    save(&d.join("g.json"), RAISING);
    let second = w.line();
    assert!(second.starts_with("frame 0:"), "{second}");
    assert_eq!(json_value(&d.join("out"), "square.json"), 4.0);
    assert_eq!(w.exit_code(), Some(0));
}

/// A `for` over `items` of a three-node body, and a plain node beside it.
fn for_graph(items: &str) -> String {
    format!(
        r#"{{"kiln": 1,
  "graphs": {{"body": {{
    "inputs": {{"item": {{"type": "float", "default": 0.0}}}},
    "nodes": {{"a": {{"op": "math.mul", "inputs": {{"a": "item", "b": 3.0}}}},
              "b": {{"op": "math.add", "inputs": {{"a": "a", "b": 1.0}}}},
              "c": {{"op": "math.mul", "inputs": {{"a": "b", "b": "b"}}}}}},
    "outputs": {{"out": "c"}}}}}},
  "nodes": {{"f": {{"op": "@body", "for": [{items}]}},
            "k": {{"op": "math.add", "inputs": {{"a": 1.0, "b": 2.0}}}}}},
  "outputs": {{"r": "f", "s": "k"}}
}}"#
    )
}

#[test]
fn an_edit_of_a_watched_document_patches_its_plan_and_cooks_its_cone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let items: Vec<String> = (0..40).map(|i| format!("{i}.0")).collect();
    std::fs::write(d.join("g.json"), for_graph(&items.join(", "))).unwrap();
    let w = Watch::start(
        &[
            "g.json",
            "--out",
            "out",
            "--max-presents",
            "3",
            "--poll-ms",
            "20",
        ],
        d,
    );
    let first = w.line();
    assert!(
        first.contains("plans: 1 made, 0 reused, 0 patched"),
        "{first}"
    );
    assert!(first.contains("for `f`: 40 copies, 40 cooked"), "{first}");

    // One item changed: said as an item edit, patched in the kept plan; one copy cooks.
    let mut edited = items.clone();
    edited[7] = "0.5".into();
    save(&d.join("g.json"), &for_graph(&edited.join(", ")));
    let second = w.line();
    assert!(
        second.contains("plans: 1 made, 1 reused, 1 patched"),
        "{second}"
    );
    // The copy's 3 nodes, 2 gathers and the output.
    assert_eq!(cooked(&second), 6, "{second}");
    assert!(
        second.contains("40 copies, 1 cooked, 39 reused"),
        "{second}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/r.json")).unwrap()).unwrap();
    // (0.5 × 3 + 1)² = 6.25; (8 × 3 + 1)² = 625.
    assert_eq!(v["value"][7].as_f64(), Some(6.25), "{v}");
    assert_eq!(v["value"][8].as_f64(), Some(625.0), "{v}");

    // A constant of the plain node: patched too, and no copy cooks.
    save(
        &d.join("g.json"),
        &for_graph(&edited.join(", ")).replace(r#""b": 2.0"#, r#""b": 5.0"#),
    );
    let third = w.line();
    assert!(third.contains("1 made, 2 reused, 2 patched"), "{third}");
    assert!(third.contains("40 copies, 0 cooked, 40 reused"), "{third}");
    assert!(cooked(&third) <= 2, "{third}");
    assert_eq!(json_value(&d.join("out"), "s.json"), 6.0);
    assert_eq!(w.exit_code(), Some(0));
}

#[test]
fn watch_options_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let o = kiln(
        &["watch", "g.json", "--out", "o", "--poll-ms", "0"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    let o = kiln(
        &["watch", "g.json", "--out", "o", "--max-presents", "0"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    let o = kiln(&["watch", "g.json"], dir.path());
    assert_eq!(o.status.code(), Some(2), "--out is required");
}

/// Ctrl-C (SIGINT) stops the loop between presents: exit 0, the last frame's files whole and
/// no temporary file left.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_between_presents_and_leaves_the_frame_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(examples().join("marble.json"), d.join("graph.json")).unwrap();
    let w = Watch::start(&["graph.json", "--out", "out", "--poll-ms", "20"], d);
    let first = w.line();
    assert!(first.starts_with("frame 0:"), "{first}");
    let frame0 = std::fs::read(d.join("out/marble.png")).unwrap();
    let pid = w.child.id().to_string();
    let sent = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(sent.success());
    assert_eq!(w.exit_code(), Some(0));
    assert_eq!(std::fs::read(d.join("out/marble.png")).unwrap(), frame0);
    assert_eq!(names(&d.join("out")), vec!["marble.png".to_string()]);
}

#[test]
fn an_edit_to_a_16k_square_fill_is_an_error_and_watch_goes_on() {
    // Once the edit that killed `kiln watch` (a 16384 x 16384 fill, 4 GiB of pixels): now
    // the pixel limit refuses it before any memory is taken, and the last frame stays.
    let fill = |side: u32| {
        format!(
            r#"{{"kiln": 1,
 "nodes": {{"f": {{"op": "image.fill", "params": {{"width": {side}, "height": {side}}}}}}},
 "outputs": {{"big": "f.out"}}}}
"#
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("graph.json"), fill(16)).unwrap();
    let w = Watch::start(
        &[
            "graph.json",
            "--out",
            "out",
            "--max-presents",
            "3",
            "--poll-ms",
            "20",
        ],
        d,
    );
    let first = w.line();
    assert!(first.starts_with("frame 0:"), "{first}");
    let frame0 = std::fs::read(d.join("out/big.png")).unwrap();
    save(&d.join("graph.json"), &fill(16384));
    let second = w.line();
    assert!(second.starts_with("error: "), "{second}");
    assert!(second.contains("at most 67108864 pixels"), "{second}");
    assert_eq!(std::fs::read(d.join("out/big.png")).unwrap(), frame0);
    // Still watching: a good edit presents again.
    save(&d.join("graph.json"), &fill(8));
    let third = w.line();
    assert!(third.starts_with("frame 1:"), "{third}");
    assert_eq!(w.exit_code(), Some(0));
}

#[test]
fn an_image_file_given_with_set_is_an_input_value_not_a_default() {
    // `kiln watch --set photo=@file.png` failed with "param `default`: expected one of:
    // name" for image, mesh and audio inputs, while `kiln run` took the same `--set`.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut img = image::RgbaImage::new(3, 2);
    for (x, _, px) in img.enumerate_pixels_mut() {
        *px = image::Rgba([if x == 0 { 255 } else { 0 }, 0, 0, 255]);
    }
    img.save(d.join("photo.png")).unwrap();
    std::fs::write(
        d.join("g.json"),
        r#"{"kiln": 1,
  "inputs": {"photo": {"type": "image"}},
  "nodes": {"inv": {"op": "image.invert", "inputs": {"image": "photo"}}},
  "outputs": {"inverted": "inv.out"}}"#,
    )
    .unwrap();
    let w = Watch::start(
        &[
            "g.json",
            "--out",
            "live",
            "--set",
            "photo=@photo.png",
            "--max-presents",
            "1",
        ],
        d,
    );
    let line = w.line();
    assert!(line.contains("cooked"), "{line}");
    assert_eq!(w.exit_code(), Some(0));
    let back = image::open(d.join("live/inverted.png")).unwrap().to_rgba8();
    assert_eq!(back.dimensions(), (3, 2));
    assert_eq!(back.get_pixel(0, 0).0, [0, 255, 255, 255]);
    assert_eq!(back.get_pixel(2, 1).0, [255, 255, 255, 255]);
}
