//! Sizes are checked before memory is taken: an image over the pixel limit, a sample rate
//! over the stream's limit, a delay line over the memory budget or beyond what the allocator
//! can give each end the command with exit code 1 and a message naming the node, the size
//! and the limit, under a 4 GB address-space limit (`prlimit --as`) too: never an abort.

use std::path::Path;
use std::process::{Command, Output};

mod support;
use support::*;

const HUGE_FILL: &str = r#"{"kiln": 1,
 "nodes": {"f": {"op": "image.fill", "params": {"width": 16384, "height": 16384}}},
 "outputs": {"big": "f.out"}}"#;

const FILL_8K: &str = r#"{"kiln": 1,
 "nodes": {"f": {"op": "image.fill", "params": {"width": 8192, "height": 8192}}},
 "outputs": {"big": "f.out"}}"#;

const LONG_ECHO: &str = r#"{"kiln": 1,
 "nodes": {
  "tone": {"op": "osc.sine"},
  "d": {"op": "delay", "params": {"time": 600.0}, "inputs": {"in": "tone.out"}}
 },
 "outputs": {"late": "d.out"}}"#;

/// Run `kiln args` under a 4 GB address-space limit; `None` when `prlimit` is missing.
fn kiln_limited(args: &[&str], cwd: &Path) -> Option<Output> {
    let out = Command::new("prlimit")
        .arg("--as=4000000000")
        .arg(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .current_dir(cwd)
        .output();
    match out {
        Ok(o) => Some(o),
        Err(e) => {
            eprintln!("skipped: prlimit cannot run ({e})");
            None
        }
    }
}

/// The command ended with exit code 1 (not a signal) and a message holding every `want`.
fn failed_cleanly(o: &Output, want: &[&str]) {
    let (_, err) = text(o);
    assert_eq!(o.status.code(), Some(1), "{:?}: {err}", o.status);
    for w in want {
        assert!(err.contains(w), "`{w}` missing from: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

fn setup(name: &str, graph: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), graph).unwrap();
    dir
}

#[test]
fn a_16k_square_fill_is_refused_by_the_pixel_limit_before_any_memory() {
    let dir = setup("g.json", HUGE_FILL);
    let Some(o) = kiln_limited(&["run", "g.json", "--out", "o"], dir.path()) else {
        return;
    };
    failed_cleanly(
        &o,
        &[
            "node `f` (image.fill)",
            "16384 x 16384 = 268435456 pixels",
            "at most 67108864 pixels",
        ],
    );
    assert!(!dir.path().join("o").join("big.png").exists());
}

#[test]
fn a_sample_rate_of_4_ghz_is_refused() {
    let dir = setup("g.json", LONG_ECHO);
    let args = [
        "render",
        "g.json",
        "--seconds",
        "0.0001",
        "--rate",
        "4000000000",
        "--out",
        "o",
    ];
    let Some(o) = kiln_limited(&args, dir.path()) else {
        return;
    };
    failed_cleanly(&o, &["at most 10000000 Hz", "4000000000 Hz"]);
}

#[test]
fn a_delay_line_the_address_space_cannot_hold_is_the_nodes_error() {
    let dir = setup("g.json", LONG_ECHO);
    // 600 s at 10 MHz: 6e9 samples, 48 GB. The budget is set above it, so the reservation
    // itself meets the 4 GB address-space limit.
    let args = [
        "render",
        "g.json",
        "--seconds",
        "0.0001",
        "--rate",
        "10000000",
        "--out",
        "o",
        "--memory-limit",
        "1T",
    ];
    let Some(o) = kiln_limited(&args, dir.path()) else {
        return;
    };
    failed_cleanly(
        &o,
        &[
            "node `d` (delay)",
            "6000000000 samples",
            "48000000000 bytes",
            "could not be reserved",
        ],
    );
    assert!(!dir.path().join("o").join("late.wav").exists());
}

#[test]
fn a_delay_line_over_the_budget_is_the_nodes_error() {
    let dir = setup("g.json", LONG_ECHO);
    let o = kiln(
        &[
            "render",
            "g.json",
            "--seconds",
            "0.0001",
            "--rate",
            "10000000",
            "--out",
            "o",
            "--memory-limit",
            "1G",
        ],
        dir.path(),
    );
    failed_cleanly(
        &o,
        &[
            "node `d` (delay)",
            "48000000000 bytes",
            "memory limit of 1073741824 bytes",
        ],
    );
}

#[test]
fn an_image_over_the_budget_is_the_nodes_error_and_nothing_is_written() {
    let dir = setup("g.json", FILL_8K);
    let o = kiln(
        &["run", "g.json", "--out", "o", "--memory-limit", "256M"],
        dir.path(),
    );
    failed_cleanly(
        &o,
        &[
            "node `f` (image.fill)",
            "8192 x 8192 pixels needs 1073741824 bytes",
            "memory limit of 268435456 bytes",
        ],
    );
    assert!(!dir.path().join("o").join("big.png").exists());
}

#[test]
fn drone_at_4_ghz_is_refused_under_the_address_limit() {
    let dir = tempfile::tempdir().unwrap();
    let drone = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/drone.json");
    let args = [
        "render",
        drone.to_str().unwrap(),
        "--seconds",
        "0.0001",
        "--rate",
        "4000000000",
        "--out",
        "o",
    ];
    let Some(o) = kiln_limited(&args, dir.path()) else {
        return;
    };
    failed_cleanly(&o, &["at most 10000000 Hz", "4000000000 Hz"]);
}

const GRID_3000: &str = r#"{"kiln": 1,
 "nodes": {"plane": {"op": "mesh.grid", "params": {"cols": 3000, "rows": 3000}}},
 "outputs": {"floor": "plane.out"}}"#;

/// Issue 37, item 3: a mesh whose file would not fit is refused by name, never an abort. A
/// grid of 3000 × 3000 quads (9,006,001 points, 36 million corners) as glb holds about
/// 3.4 GB at once; under a 2 GB address space the default budget is 1.5 GB.
#[test]
fn a_mesh_too_large_to_write_under_the_address_space_is_refused_by_name() {
    let dir = setup("g.json", GRID_3000);
    let out = Command::new("prlimit")
        .arg("--as=2000000000")
        .arg(env!("CARGO_BIN_EXE_kiln"))
        .args(["run", "g.json", "--out", "o"])
        .current_dir(dir.path())
        .output();
    let Ok(o) = out else {
        eprintln!("skipped: prlimit cannot run");
        return;
    };
    failed_cleanly(
        &o,
        &[
            "output `floor`",
            "glb",
            "9006001 points",
            "memory limit of 1500000000 bytes",
            "nothing was written",
        ],
    );
    assert!(!dir.path().join("o").join("floor.glb").exists());
}
