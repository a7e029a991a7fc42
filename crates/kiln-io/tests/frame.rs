//! Frames committed as a group: a success replaces every file, a failure part-way leaves the
//! previous frame's files byte for byte, and no temporary or backup file is ever left.

use kiln_io::frame::{FrameError, commit_frame};
use std::path::Path;

/// Every entry of a folder, by name, with its bytes (`None` for a folder), sorted.
fn listing(dir: &Path) -> Vec<(String, Option<Vec<u8>>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let bytes = if e.file_type().unwrap().is_dir() {
                None
            } else {
                Some(std::fs::read(e.path()).unwrap())
            };
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    out.sort();
    out
}

fn no_temp_files(dir: &Path) {
    for (name, _) in listing(dir) {
        assert!(
            !name.starts_with(".kiln-"),
            "a temporary file was left: {name}"
        );
    }
}

fn frame(items: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
    items
        .iter()
        .map(|(n, b)| (n.to_string(), b.as_bytes().to_vec()))
        .collect()
}

fn file(name: &str, bytes: &str) -> (String, Option<Vec<u8>>) {
    (name.to_string(), Some(bytes.as_bytes().to_vec()))
}

#[test]
fn a_first_frame_creates_every_file() {
    let dir = tempfile::tempdir().unwrap();
    commit_frame(
        dir.path(),
        &frame(&[("a.png", "pixels"), ("b.json", "{}"), ("c.json", "[]")]),
    )
    .unwrap();
    assert_eq!(
        listing(dir.path()),
        vec![
            file("a.png", "pixels"),
            file("b.json", "{}"),
            file("c.json", "[]")
        ]
    );
}

#[test]
fn a_frame_replaces_every_file_and_leaves_others_alone() {
    let dir = tempfile::tempdir().unwrap();
    commit_frame(dir.path(), &frame(&[("a.png", "one"), ("b.json", "1")])).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    commit_frame(
        dir.path(),
        &frame(&[("a.png", "two, longer"), ("b.json", "2"), ("new.json", "n")]),
    )
    .unwrap();
    assert_eq!(
        listing(dir.path()),
        vec![
            file("a.png", "two, longer"),
            file("b.json", "2"),
            file("new.json", "n"),
            file("notes.txt", "mine"),
        ]
    );
    // An empty frame changes nothing.
    commit_frame(dir.path(), &[]).unwrap();
    assert_eq!(listing(dir.path()).len(), 4);
}

/// Previous frame: a.png, b.json, c.json. The new frame's third file cannot land: the first
/// two, already swapped in, go back.
#[test]
fn a_failure_mid_way_restores_the_previous_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    commit_frame(d, &frame(&[("a.png", "A1"), ("b.json", "B1")])).unwrap();
    // A folder where the frame's third file should go.
    std::fs::create_dir(d.join("c.json")).unwrap();
    std::fs::write(d.join("c.json").join("inside"), "x").unwrap();
    let before = listing(d);
    let err = commit_frame(
        d,
        &frame(&[("a.png", "A2"), ("b.json", "B2"), ("c.json", "C2")]),
    )
    .unwrap_err();
    assert!(
        matches!(&err, FrameError::IsFolder { path } if path.ends_with("c.json")),
        "{err}"
    );
    assert!(err.to_string().contains("c.json"), "{err}");
    assert_eq!(listing(d), before, "the previous frame is intact");
    assert_eq!(std::fs::read(d.join("c.json/inside")).unwrap(), b"x");
    no_temp_files(d);
}

/// The rename of the last file fails (its name is too long for the file system): the files
/// already replaced go back, the file the frame added is removed.
#[test]
fn a_failed_rename_rolls_back_replaced_and_added_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    commit_frame(d, &frame(&[("a.png", "A1"), ("b.json", "B1")])).unwrap();
    let before = listing(d);
    let long = format!("{}.json", "x".repeat(400));
    let err = commit_frame(
        d,
        &frame(&[
            ("a.png", "A2"),
            ("added.json", "new"),
            ("b.json", "B2"),
            (&long, "never"),
        ]),
    )
    .unwrap_err();
    assert!(
        matches!(
            &err,
            FrameError::Io {
                action: "replace",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(listing(d), before, "the previous frame is intact");
    no_temp_files(d);
    // The next good frame lands.
    commit_frame(d, &frame(&[("a.png", "A3"), ("b.json", "B3")])).unwrap();
    assert_eq!(listing(d), vec![file("a.png", "A3"), file("b.json", "B3")]);
}

#[test]
fn a_failure_on_a_first_frame_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("z.json")).unwrap();
    assert!(commit_frame(d, &frame(&[("a.png", "A"), ("z.json", "Z")])).is_err());
    assert_eq!(listing(d), vec![("z.json".to_string(), None)]);
}

#[test]
fn bad_and_duplicate_names_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for bad in ["", ".", "..", "sub/a.png", "a\\b", "c:x"] {
        let err = commit_frame(d, &frame(&[("ok.json", "1"), (bad, "2")])).unwrap_err();
        assert!(matches!(err, FrameError::BadName { .. }), "{bad:?}: {err}");
    }
    let err = commit_frame(d, &frame(&[("a.json", "1"), ("a.json", "2")])).unwrap_err();
    assert!(matches!(err, FrameError::Duplicate { .. }), "{err}");
    assert!(listing(d).is_empty());
}

#[test]
fn a_missing_folder_is_an_error_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let err = commit_frame(&missing, &frame(&[("a.json", "1")])).unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
    assert!(!missing.exists());
}
