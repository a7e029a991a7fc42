//! Frame ranges (issue 31, item 1): `kiln render --start A --end B [--every K]` writes ticks
//! A to B (every Kth) with the names and bytes those ticks have in one render from tick 0,
//! replaying the ticks before A or continuing from a saved state.

mod support;

use std::path::Path;
use support::{examples, files_in, kiln, text};

fn render(cwd: &Path, args: &[&str]) {
    let trails = examples().join("trails.json");
    let mut all = vec!["render", trails.to_str().unwrap(), "-q", "--size", "32x32"];
    all.extend(args);
    let o = kiln(&all, cwd);
    assert!(o.status.success(), "{all:?}: {:?}", text(&o));
}

/// The frames in `dir` (the manifest left out).
fn frames(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files_in(dir)
        .into_iter()
        .filter(|(n, _)| n.ends_with(".png"))
        .collect()
}

#[test]
fn a_range_is_those_ticks_of_one_long_render_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    render(cwd, &["--ticks", "200", "--out", "all"]);
    let all = frames(&cwd.join("all"));
    assert_eq!(all.len(), 200);

    render(cwd, &["--start", "100", "--end", "199", "--out", "range"]);
    let range = frames(&cwd.join("range"));
    assert_eq!(range.as_slice(), &all[100..], "ticks 100 to 199");

    render(
        cwd,
        &[
            "--start", "7", "--end", "40", "--every", "11", "--out", "every",
        ],
    );
    let every = frames(&cwd.join("every"));
    let want: Vec<_> = [7, 18, 29, 40].iter().map(|&t| all[t].clone()).collect();
    assert_eq!(every, want, "ticks 7, 18, 29 and 40");
}

#[test]
fn a_range_continues_from_a_saved_state() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    render(cwd, &["--ticks", "30", "--out", "all"]);
    let all = frames(&cwd.join("all"));
    render(
        cwd,
        &["--ticks", "10", "--out", "head", "--save-state", "s.state"],
    );
    render(
        cwd,
        &[
            "--load-state",
            "s.state",
            "--start",
            "12",
            "--end",
            "29",
            "--every",
            "2",
            "--out",
            "tail",
        ],
    );
    let tail = frames(&cwd.join("tail"));
    let want: Vec<_> = (12..30).step_by(2).map(|t| all[t].clone()).collect();
    assert_eq!(tail, want);
}

#[test]
fn a_start_past_the_end_or_before_the_saved_state_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let trails = examples().join("trails.json");
    let trails = trails.to_str().unwrap();
    let o = kiln(
        &[
            "render", trails, "--start", "9", "--end", "5", "--out", "x", "-q",
        ],
        cwd,
    );
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("--start 9 is past the last tick, 5"),
        "{:?}",
        text(&o)
    );
    render(
        cwd,
        &["--ticks", "10", "--out", "head", "--save-state", "s.state"],
    );
    let o = kiln(
        &[
            "render",
            trails,
            "--load-state",
            "s.state",
            "--start",
            "4",
            "--end",
            "12",
            "--out",
            "y",
            "-q",
            "--size",
            "32x32",
        ],
        cwd,
    );
    assert!(!o.status.success());
    assert!(text(&o).1.contains("past --start 4"), "{:?}", text(&o));
    let o = kiln(
        &[
            "render", trails, "--start", "2", "--end", "5", "--resume", "--out", "z",
        ],
        cwd,
    );
    assert!(
        !o.status.success(),
        "--start and --resume do not go together"
    );
}
