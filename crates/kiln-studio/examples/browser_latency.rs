//! Edit-to-preview latency of Kiln Studio measured in the browser (a benchmark, not a test):
//! starts the studio on the marble example at 256² and runs `tests/browser/latency.mjs`
//! (playwright-core, from the folder `KILN_PLAYWRIGHT` names, driving Debian's Chromium),
//! which types 100 edits of `mix` and times each from the page's WebSocket message to the
//! output's new thumbnail loaded in the page. Prints the median and the 95th percentile.
//!
//! `KILN_PLAYWRIGHT=target/npm-playwright cargo run --release -p kiln-studio --example browser_latency`

use std::path::Path;
use std::process::{Command, ExitCode};

fn registry() -> kiln_core::registry::Registry {
    let mut reg = kiln_image::registry();
    kiln_audio::register(&mut reg).expect("audio ops");
    kiln_mesh::register(&mut reg).expect("mesh ops");
    kiln_sim::register(&mut reg).expect("sim ops");
    reg
}

fn main() -> ExitCode {
    let dir = tempfile::tempdir().expect("temp dir");
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(here.join("../../examples/marble.json")).expect("marble");
    let path = dir.path().join("marble.json");
    std::fs::write(&path, text.replace("192", "256")).expect("write");
    let studio = kiln_studio::Studio::start(kiln_studio::StudioConfig::new(&path), registry())
        .expect("studio");
    let shots = dir.path().join("screenshots");
    std::fs::create_dir_all(&shots).expect("screenshots folder");
    let status = Command::new("node")
        .arg(here.join("tests/browser/latency.mjs"))
        .arg(studio.url())
        .arg(&path)
        .arg(&shots)
        .status()
        .expect("node runs");
    if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
