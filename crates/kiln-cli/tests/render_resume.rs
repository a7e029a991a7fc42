//! `kiln render --ticks N` records its whole ticks in a manifest, and `--resume` continues a
//! killed render: killed at random moments (50 times, seeded), every tick the manifest names
//! is whole (each of its files holds the bytes of an uninterrupted render), nothing else is
//! there but the files of the one tick being written and temporary files, the temporary
//! files of a killed run are gone once the next run has got further, and the resume that
//! finally runs to the end leaves exactly the files of an uninterrupted render.

use kiln_io::render_manifest::{MANIFEST_NAME, RenderManifest, parse_manifest};
use kiln_io::render_state::STATE_NAME;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod support;
use support::*;

const TICKS: &str = "150";

fn trails() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/trails.json")
}

fn render_args<'a>(graph: &'a str, out: &'a str) -> Vec<&'a str> {
    vec!["render", graph, "--ticks", TICKS, "--out", out, "-q"]
}

/// A small deterministic generator (splitmix64), so the kill moments are the same every run.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The frame files of a folder (everything but the manifest), by name.
fn frames(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files_in(dir)
        .into_iter()
        .filter(|(n, _)| n != MANIFEST_NAME)
        .collect()
}

/// Every tick the manifest in `work` names as whole has each of its files, with the bytes
/// `reference` has for it. Returns the number of whole ticks (0 without a manifest).
fn check_whole_ticks(work: &Path, reference: &[(String, Vec<u8>)]) -> u64 {
    let Ok(bytes) = std::fs::read(work.join(MANIFEST_NAME)) else {
        return 0;
    };
    let m = parse_manifest(&bytes).expect("the manifest is always whole");
    for t in 0..m.whole {
        for name in m.files_of(t) {
            let want = reference
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap_or_else(|| panic!("{name} is not a file of the reference"));
            let got = std::fs::read(work.join(&name))
                .unwrap_or_else(|e| panic!("tick {t} is listed whole but {name}: {e}"));
            assert!(got == want.1, "tick {t}: {name} differs from the reference");
        }
    }
    m.whole
}

/// The names in `work` besides the manifest, the latch state and the files of its `whole`
/// ticks: each must be a file of tick `whole` (written, its tick not yet recorded) or a
/// temporary file (`.kiln-<pid>-...`), whose names are returned. `all` is the manifest of
/// an uninterrupted render, which names the files of every tick.
fn others_after_kill(work: &Path, whole: u64, all: &RenderManifest) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(work) else {
        return vec![];
    };
    let kept: Vec<String> = (0..whole).flat_map(|t| all.files_of(t)).collect();
    let in_flight = if whole < all.whole {
        all.files_of(whole)
    } else {
        vec![]
    };
    let mut temporary = vec![];
    for e in dir {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if name == MANIFEST_NAME || name == STATE_NAME || kept.contains(&name) {
            continue;
        }
        if name.starts_with(".kiln-") {
            temporary.push(name);
        } else {
            assert!(
                in_flight.contains(&name),
                "{name} is there after {whole} whole ticks: neither whole nor being written"
            );
        }
    }
    temporary
}

#[test]
fn a_render_killed_50_times_resumes_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let graph = trails();
    let graph = graph.to_str().unwrap();
    let o = kiln(&render_args(graph, "reference"), dir.path());
    assert!(o.status.success(), "{:?}", text(&o));
    let reference = frames(&dir.path().join("reference"));
    assert_eq!(reference.len(), 150);
    let all =
        parse_manifest(&std::fs::read(dir.path().join("reference").join(MANIFEST_NAME)).unwrap())
            .unwrap();
    assert_eq!(all.whole, 150);

    let work = dir.path().join("work");
    let mut seed = 0x5EED_0011u64;
    let mut whole_seen = vec![];
    let mut temporary_left: Vec<String> = vec![];
    for round in 0..50 {
        let mut args = render_args(graph, "work");
        if round > 0 {
            args.push("--resume");
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
            .args(&args)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(next(&mut seed) % 300));
        let _ = child.kill();
        let status = child.wait().unwrap();
        let whole = check_whole_ticks(&work, &reference);
        let temporary = others_after_kill(&work, whole, &all);
        // A run that wrote a tick had started: it removed what the killed run left.
        if whole > whole_seen.last().copied().unwrap_or(0) {
            for name in &temporary_left {
                assert!(
                    !temporary.contains(name),
                    "round {round}: {name} of a killed run is still there"
                );
            }
        }
        temporary_left = temporary;
        whole_seen.push(whole);
        // A run that finished before the kill must have finished whole.
        if status.success() {
            assert_eq!(
                whole, 150,
                "round {round}: exited 0 with {whole} whole ticks"
            );
        }
    }
    eprintln!("whole ticks after each kill: {whole_seen:?}");
    // The kills stopped renders part way, and the resumes got further over the rounds.
    assert!(
        whole_seen.iter().any(|&w| w > 0 && w < 150),
        "{whole_seen:?}"
    );
    assert!(
        whole_seen.windows(2).all(|w| w[1] >= w[0]),
        "{whole_seen:?}"
    );

    let o = kiln(
        &[render_args(graph, "work"), vec!["--resume"]].concat(),
        dir.path(),
    );
    assert!(o.status.success(), "{:?}", text(&o));
    assert_eq!(check_whole_ticks(&work, &reference), 150);
    // Exactly the reference's files: nothing half written, no temporary file left.
    assert_eq!(frames(&work), reference);
}

#[test]
fn a_resume_of_another_render_is_refused_and_one_without_a_manifest_starts_over() {
    let dir = tempfile::tempdir().unwrap();
    let graph = trails();
    let graph = graph.to_str().unwrap();
    let o = kiln(
        &["render", graph, "--ticks", "3", "--out", "o", "-q"],
        dir.path(),
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let o = kiln(
        &[
            "render", graph, "--ticks", "3", "--out", "o", "-q", "--resume", "--seed", "4",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).1.contains("another graph or other settings"),
        "{:?}",
        text(&o)
    );
    let o = kiln(
        &[
            "render", graph, "--ticks", "3", "--out", "o", "-q", "--resume",
        ],
        dir.path(),
    );
    assert!(text(&o).0.contains("already whole"), "{:?}", text(&o));
    let o = kiln(
        &[
            "render", graph, "--ticks", "3", "--out", "fresh", "-q", "--resume",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(text(&o).1.contains("starting at tick 0"), "{:?}", text(&o));
    assert_eq!(
        frames(&dir.path().join("fresh")),
        frames(&dir.path().join("o"))
    );
}
