//! Temporary files that killed kiln processes left in an output folder are removed by the
//! next `run`, `render` or `watch` into it, and nothing else is.
#![cfg(target_os = "linux")]

use std::path::Path;

mod support;
use support::*;

/// The pid of a process that has exited (and been waited for).
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// Plant leftovers in `dir`; the names that must go and the names that must stay.
fn plant(dir: &Path) -> (Vec<String>, Vec<String>) {
    std::fs::create_dir_all(dir).unwrap();
    let dead = dead_pid();
    let live = std::process::id();
    let gone = vec![
        format!(".kiln-{dead}-Ab12cd.tmp"),
        format!(".kiln-{dead}-xyz789.bak"),
    ];
    let kept = vec![
        // The test process is alive: its files are in use.
        format!(".kiln-{live}-Ab12cd.tmp"),
        // Not the pattern: another suffix, no pid, another random length, the user's own.
        format!(".kiln-{dead}-Ab12cd.aside"),
        ".kiln-Ab12cd.tmp".to_string(),
        format!(".kiln-{dead}-Ab12.tmp"),
        "notes.tmp".to_string(),
    ];
    for name in gone.iter().chain(&kept) {
        std::fs::write(dir.join(name), b"half a file").unwrap();
    }
    (gone, kept)
}

fn check(dir: &Path, gone: &[String], kept: &[String], o: &std::process::Output) {
    let (stdout, stderr) = text(o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    for name in gone {
        assert!(!dir.join(name).exists(), "{name} should be removed");
    }
    for name in kept {
        assert_eq!(
            std::fs::read(dir.join(name)).unwrap(),
            b"half a file",
            "{name} should stay"
        );
    }
    assert!(
        stderr.contains(&format!("removed {} temporary file(s)", gone.len())),
        "{stderr}"
    );
}

#[test]
fn run_removes_the_leftovers_of_dead_processes_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let (gone, kept) = plant(&out);
    let g = examples().join("arithmetic.json");
    let o = kiln(
        &["run", g.to_str().unwrap(), "--out", "o", "-q"],
        dir.path(),
    );
    check(&out, &gone, &kept, &o);
    assert!(out.join("length.json").exists());
}

#[test]
fn render_and_watch_remove_them_too() {
    let dir = tempfile::tempdir().unwrap();
    let trails = examples().join("trails.json");
    let out = dir.path().join("frames");
    let (gone, kept) = plant(&out);
    let o = kiln(
        &[
            "render",
            trails.to_str().unwrap(),
            "--ticks",
            "2",
            "--out",
            "frames",
            "-q",
        ],
        dir.path(),
    );
    check(&out, &gone, &kept, &o);

    let pluck = examples().join("pluck.json");
    let out = dir.path().join("audio");
    let (gone, kept) = plant(&out);
    let o = kiln(
        &[
            "render",
            pluck.to_str().unwrap(),
            "--seconds",
            "0.01",
            "--out",
            "audio",
            "-q",
        ],
        dir.path(),
    );
    check(&out, &gone, &kept, &o);

    let arithmetic = examples().join("arithmetic.json");
    let out = dir.path().join("live");
    let (gone, kept) = plant(&out);
    let o = kiln(
        &[
            "watch",
            arithmetic.to_str().unwrap(),
            "--out",
            "live",
            "--max-presents",
            "1",
        ],
        dir.path(),
    );
    check(&out, &gone, &kept, &o);
}
