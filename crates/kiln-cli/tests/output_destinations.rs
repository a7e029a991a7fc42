//! Every file a command writes must be a regular file or absent: a FIFO or a link to a
//! device named as (or standing at) an output path is refused, naming the path, and left as
//! it was (issue 37, item 1: `render --save-state /dev/full` replaced the machine's
//! `/dev/full` with a regular file and printed "saved").
#![cfg(unix)]

use std::path::Path;

mod support;
use support::*;

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

/// How a special file is made at a path.
type Make = fn(&Path);

/// The kinds of special file, with how each is made and how the refusal names it.
fn specials() -> [(Make, &'static str); 2] {
    [
        (mkfifo, "it is a FIFO"),
        (link_to_dev_null, "it is a symbolic link to a device"),
    ]
}

/// Still a FIFO, or still a link to `/dev/null`.
fn untouched(path: &Path) {
    let m = std::fs::symlink_metadata(path).unwrap();
    assert!(!m.is_file(), "{} was replaced by a file", path.display());
    if m.is_symlink() {
        assert_eq!(std::fs::read_link(path).unwrap(), Path::new("/dev/null"));
    }
}

fn trails() -> String {
    examples().join("trails.json").to_str().unwrap().to_string()
}

#[test]
fn save_state_and_trace_json_naming_a_fifo_or_a_link_to_a_device_are_refused_before_rendering() {
    for flag in ["--save-state", "--trace-json"] {
        for (make, says) in specials() {
            let dir = tempfile::tempdir().unwrap();
            let target = dir.path().join("named");
            make(&target);
            let g = trails();
            let o = kiln_watchdog(
                &[
                    "render",
                    &g,
                    "--ticks",
                    "2",
                    "--out",
                    "o",
                    "-q",
                    flag,
                    target.to_str().unwrap(),
                ],
                dir.path(),
            );
            let (_, err) = text(&o);
            assert_eq!(o.status.code(), Some(1), "{flag}: {err}");
            assert!(err.contains(target.to_str().unwrap()), "{flag}: {err}");
            assert!(err.contains(says), "{flag}: {err}");
            untouched(&target);
            // Refused before anything was rendered.
            assert!(
                !dir.path().join("o").exists(),
                "{flag}: frames were written"
            );
        }
    }
}

#[test]
fn a_run_output_over_a_fifo_or_a_link_to_a_device_is_refused() {
    for (make, says) in specials() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("o");
        std::fs::create_dir(&out).unwrap();
        let target = out.join("clouds.png");
        make(&target);
        let g = examples().join("clouds.json");
        let o = kiln_watchdog(
            &[
                "run",
                g.to_str().unwrap(),
                "--out",
                "o",
                "--size",
                "16x16",
                "-q",
            ],
            dir.path(),
        );
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("clouds.png") && err.contains(says), "{err}");
        untouched(&target);
    }
}

#[test]
fn render_frames_manifests_and_animations_over_a_fifo_or_a_link_to_a_device_are_refused() {
    for name in ["trails_000.png", "kiln-render.json", "trails.gif"] {
        for (make, says) in specials() {
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("o");
            std::fs::create_dir(&out).unwrap();
            let target = out.join(name);
            make(&target);
            let g = trails();
            let o = kiln_watchdog(
                &["render", &g, "--ticks", "2", "--out", "o", "-q", "--gif"],
                dir.path(),
            );
            let (_, err) = text(&o);
            assert_eq!(o.status.code(), Some(1), "{name}: {err}");
            assert!(err.contains(name) && err.contains(says), "{name}: {err}");
            untouched(&target);
        }
    }
}

#[test]
fn run_refuses_a_trace_file_over_a_fifo_or_a_link_to_a_device_before_writing_outputs() {
    for (make, says) in specials() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("trace.json");
        make(&target);
        let g = examples().join("clouds.json");
        let o = kiln_watchdog(
            &[
                "run",
                g.to_str().unwrap(),
                "--out",
                "o",
                "--size",
                "16x16",
                "-q",
                "--trace-json",
                target.to_str().unwrap(),
            ],
            dir.path(),
        );
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(says), "{err}");
        untouched(&target);
        assert!(!dir.path().join("o").exists(), "outputs were written");
    }
}
