//! `render --resume` checks the manifest against the render's settings and the files on
//! disk (issue 37, item 8): a manifest claiming more ticks than asked is refused (it made a
//! 30-tick resume replay for ever), and frames deleted after a finished render are made
//! again, with the bytes they had.

use kiln_io::render_manifest::{MANIFEST_NAME, parse_manifest};
use std::path::Path;

mod support;
use support::*;

fn trails() -> String {
    examples().join("trails.json").to_str().unwrap().to_string()
}

fn render(dir: &Path, resume: bool) -> std::process::Output {
    let g = trails();
    let mut args = vec!["render", g.as_str(), "--ticks", "30", "--out", "o", "-q"];
    if resume {
        args.push("--resume");
    }
    kiln_watchdog(&args, dir)
}

/// Rewrite the manifest's JSON with `edit`.
fn edit_manifest(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.join("o").join(MANIFEST_NAME);
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut m);
    std::fs::write(&path, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
}

#[test]
fn a_manifest_claiming_more_ticks_than_asked_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let o = render(dir.path(), false);
    assert!(o.status.success(), "{:?}", text(&o));
    edit_manifest(dir.path(), |m| {
        m["ticks"] = serde_json::json!(u64::MAX);
        m["whole"] = serde_json::json!(u64::MAX);
    });
    let o = render(dir.path(), true);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(MANIFEST_NAME), "{err}");
    assert!(
        err.contains(&u64::MAX.to_string()) && err.contains("30"),
        "{err}"
    );
}

#[test]
fn a_manifest_naming_frame_files_outside_the_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let o = render(dir.path(), false);
    assert!(o.status.success(), "{:?}", text(&o));
    edit_manifest(dir.path(), |m| {
        m["files"] = serde_json::json!(["../elsewhere_{tick}.png"]);
    });
    let o = render(dir.path(), true);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("../elsewhere_{tick}.png"), "{err}");
}

#[test]
fn frames_deleted_after_a_finished_render_are_made_again_by_resume() {
    let dir = tempfile::tempdir().unwrap();
    let o = render(dir.path(), false);
    assert!(o.status.success(), "{:?}", text(&o));
    let out = dir.path().join("o");
    let before = frames_in(&out);
    assert_eq!(before.len(), 30);
    let m = parse_manifest(&std::fs::read(out.join(MANIFEST_NAME)).unwrap()).unwrap();
    assert_eq!(m.whole, 30);
    let deleted: Vec<String> = [5, 20].iter().flat_map(|&t| m.files_of(t)).collect();
    for name in &deleted {
        std::fs::remove_file(out.join(name)).unwrap();
    }
    let o = render(dir.path(), true);
    let (stdout, err) = text(&o);
    assert!(o.status.success(), "{stdout}\n{err}");
    assert!(err.contains(&deleted[0]), "{err}");
    assert_eq!(
        frames_in(&out),
        before,
        "the frames are made again, bit for bit"
    );
    let m = parse_manifest(&std::fs::read(out.join(MANIFEST_NAME)).unwrap()).unwrap();
    assert_eq!(m.whole, 30);
    // A resume of the whole render again has nothing to do.
    let o = render(dir.path(), true);
    assert!(text(&o).0.contains("already whole"), "{:?}", text(&o));
}

/// A render killed after its last tick landed but before it took its state file away left
/// `kiln-render.state` in the folder; resuming it found every tick whole and returned,
/// leaving the state file for good (seen once in `render_resume.rs`'s fifty kills). The
/// resume of a whole render takes it away.
#[test]
fn resuming_a_whole_render_takes_a_left_state_file_away() {
    let dir = tempfile::tempdir().unwrap();
    let o = render(dir.path(), false);
    assert!(o.status.success(), "{:?}", text(&o));
    let state = dir.path().join("o").join("kiln-render.state");
    assert!(!state.exists());
    std::fs::write(&state, b"left by a killed run").unwrap();
    let o = render(dir.path(), true);
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(text(&o).0.contains("already whole"), "{:?}", text(&o));
    assert!(!state.exists(), "the state file is still there");
}
