//! A path Kiln writes must be a regular file or absent: a FIFO, a device or a link to one is
//! refused before anything is written, through every writer (atomic writes, frames of
//! files, render manifests, WAV streams; traces, written by the `kiln` crate, in kiln-cli's
//! test of the same name), the thing at the path left as it was and
//! the error naming the path. (Issue 37, item 1: `--save-state /dev/full` used to replace
//! the machine's `/dev/full` with a regular file.)
#![cfg(unix)]

use kiln_core::cache::Backing;
use kiln_io::render_manifest::{MANIFEST_NAME, RenderManifest, write_manifest};
use kiln_io::{FrameError, WavError, WavFormat, WavStream, WriteError, commit_frame, write_atomic};
use std::path::{Path, PathBuf};

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

fn link_to_dev_null(path: &Path) {
    std::os::unix::fs::symlink("/dev/null", path).unwrap();
}

/// What is at `path`, to compare before and after: its type and, for a link, its target.
fn what_is_at(path: &Path) -> (String, Option<PathBuf>) {
    let m = std::fs::symlink_metadata(path).expect("still there");
    (
        format!("{:?}", m.file_type()),
        std::fs::read_link(path).ok(),
    )
}

/// The names in `dir` (the special file, and nothing staged left behind).
fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// How a special file is made at a path.
type Make = fn(&Path);

/// Each kind of special destination, by how it is made.
fn specials() -> [(&'static str, Make); 2] {
    [
        ("a FIFO", mkfifo),
        ("a symbolic link to a device", link_to_dev_null),
    ]
}

/// Put a special file at `name` in a new folder, call `write` on its path, and check that
/// the write was refused naming the path, and that the folder holds the same things.
fn refused(name: &str, write: impl Fn(&Path) -> String) {
    for (kind, make) in specials() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        make(&path);
        let before = (what_is_at(&path), names_in(dir.path()));
        let e = write(&path);
        assert!(e.contains(&path.display().to_string()), "{kind}: {e}");
        assert!(e.contains(kind), "{kind}: {e}");
        assert_eq!((what_is_at(&path), names_in(dir.path())), before, "{kind}");
    }
    assert!(Path::new("/dev/null").exists());
}

#[test]
fn an_atomic_write_over_a_fifo_or_a_link_to_a_device_is_refused() {
    refused("state.json", |p| {
        let e = write_atomic(p, b"{}").unwrap_err();
        assert!(matches!(e, WriteError::NotARegularFile(_)), "{e:?}");
        e.to_string()
    });
}

#[test]
fn a_frame_with_a_file_over_a_fifo_or_a_link_to_a_device_writes_none_of_its_files() {
    refused("b.png", |p| {
        let dir = p.parent().unwrap();
        let files = vec![
            ("a.json".to_string(), b"1".to_vec()),
            ("b.png".to_string(), b"2".to_vec()),
        ];
        let e = commit_frame(dir, &files).unwrap_err();
        assert!(matches!(e, FrameError::NotARegularFile(_)), "{e:?}");
        e.to_string()
    });
}

#[test]
fn a_render_manifest_over_a_fifo_or_a_link_to_a_device_is_refused() {
    refused(MANIFEST_NAME, |p| {
        let m = RenderManifest {
            kiln_render: 1,
            render: "0".repeat(32),
            ticks: 3,
            whole: 1,
            files: vec!["a_{tick}.png".into()],
            tick_digits: 1,
        };
        write_manifest(p.parent().unwrap(), &m)
            .unwrap_err()
            .to_string()
    });
}

#[test]
fn a_wav_stream_over_a_fifo_or_a_link_to_a_device_is_refused_before_it_starts() {
    refused("sound.wav", |p| {
        let e = WavStream::create(p, 1, 48_000, WavFormat::Float32).unwrap_err();
        assert!(
            matches!(e, WavError::Write(WriteError::NotARegularFile(_))),
            "{e:?}"
        );
        e.to_string()
    });
}

#[test]
fn a_staged_wav_is_not_renamed_over_a_fifo_put_there_since() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("late.wav");
    let mut s = WavStream::create(&path, 1, 48_000, WavFormat::Float32).unwrap();
    s.write(&[&[0.0, 0.5][..]]).unwrap();
    let staged = s.finish().unwrap();
    mkfifo(&path);
    let e = staged.commit().unwrap_err().to_string();
    assert!(e.contains("a FIFO") && e.contains("late.wav"), "{e}");
    assert_eq!(names_in(dir.path()), ["late.wav"]);
    assert!(!std::fs::symlink_metadata(&path).unwrap().is_file());
}

#[test]
fn a_link_to_a_process_stream_is_refused_and_regular_files_and_links_to_them_are_written() {
    let dir = tempfile::tempdir().unwrap();
    // A link to a process's stream (as `/dev/stdout` is), whatever the stream is.
    let out = dir.path().join("out.json");
    std::os::unix::fs::symlink("/proc/self/fd/1", &out).unwrap();
    let e = write_atomic(&out, b"{}").unwrap_err().to_string();
    assert!(
        e.contains("out.json") && e.contains("/proc/self/fd/1"),
        "{e}"
    );
    assert!(std::fs::symlink_metadata(&out).unwrap().is_symlink());
    // A regular file is replaced; a link to one is replaced by the file (as before).
    let plain = dir.path().join("plain.json");
    std::fs::write(&plain, "old").unwrap();
    write_atomic(&plain, b"new").unwrap();
    assert_eq!(std::fs::read(&plain).unwrap(), b"new");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&plain, &link).unwrap();
    write_atomic(&link, b"via link").unwrap();
    assert_eq!(std::fs::read(&link).unwrap(), b"via link");
    assert_eq!(std::fs::read(&plain).unwrap(), b"new");
    // Nothing at the path: written.
    write_atomic(&dir.path().join("new.json"), b"1").unwrap();
}

#[test]
fn a_cache_entry_path_holding_a_fifo_is_repaired_by_removing_the_name_not_writing_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let reg = kiln_image::registry();
    let cache = kiln_io::DiskCache::open(dir.path(), &reg).unwrap();
    let key = kiln_core::key::Key(9);
    let path = cache.entry_path(key);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    mkfifo(&path);
    cache.save(key, &kiln_core::value::Value::Float(1.5));
    assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
    assert_eq!(cache.load(key), Some(kiln_core::value::Value::Float(1.5)));
}
