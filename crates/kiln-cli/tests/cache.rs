//! `kiln run --cache DIR`: a second run cooks nothing and writes the same bytes; damaged
//! entries are recomputed (never returned) and repaired; two processes may share a cache.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;
use support::*;

/// The numbers of the `cache: C nodes cooked, H from cache, D damaged, ...` line.
fn cache_line(o: &Output) -> (u64, u64, u64) {
    let (out, err) = text(o);
    assert!(o.status.success(), "{out}\n{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("cache: "))
        .unwrap_or_else(|| panic!("no cache line in:\n{err}"));
    let number_before = |what: &str| -> u64 {
        let at = line
            .find(what)
            .unwrap_or_else(|| panic!("no `{what}` in `{line}`"));
        line[..at]
            .trim_end()
            .rsplit([' ', ','])
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no number before `{what}` in `{line}`"))
    };
    (
        number_before(" nodes cooked"),
        number_before(" from cache"),
        number_before(" damaged"),
    )
}

fn run_cached(graph: &Path, out: &str, cache: &str, cwd: &Path) -> Output {
    kiln(
        &[
            "run",
            graph.to_str().unwrap(),
            "--out",
            out,
            "--cache",
            cache,
            "-q",
        ],
        cwd,
    )
}

/// Every file under `dir`, recursively.
fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                todo.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

fn no_temp_files(dir: &Path) {
    for f in all_files(dir) {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        assert!(!name.starts_with(".kiln-"), "temporary file left: {f:?}");
    }
}

#[test]
fn a_second_run_cooks_nothing_and_writes_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let graph = examples().join("marble.json");

    let first = run_cached(&graph, "out1", "cache", d);
    let (cooked, _, damaged) = cache_line(&first);
    assert!(cooked > 0, "{:?}", text(&first));
    assert_eq!(damaged, 0);

    let second = run_cached(&graph, "out2", "cache", d);
    let (cooked, from_cache, damaged) = cache_line(&second);
    assert_eq!(cooked, 0, "{:?}", text(&second));
    assert!(from_cache > 0);
    assert_eq!(damaged, 0);
    assert_eq!(files_in(&d.join("out1")), files_in(&d.join("out2")));
    // And the same as a run without the cache.
    let plain = kiln(&["run", graph.to_str().unwrap(), "--out", "out0", "-q"], d);
    assert!(plain.status.success(), "{:?}", text(&plain));
    assert_eq!(files_in(&d.join("out0")), files_in(&d.join("out2")));
    no_temp_files(d);

    // Corrupt every entry: the third run recomputes, says so, writes the same bytes.
    let entries = all_files(&d.join("cache"));
    assert!(!entries.is_empty());
    for e in &entries {
        let mut bytes = std::fs::read(e).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x40;
        std::fs::write(e, bytes).unwrap();
    }
    let third = run_cached(&graph, "out3", "cache", d);
    let (cooked, _, damaged) = cache_line(&third);
    assert!(cooked > 0, "{:?}", text(&third));
    assert!(damaged > 0, "{:?}", text(&third));
    assert_eq!(files_in(&d.join("out1")), files_in(&d.join("out3")));

    // The cache was repaired: the fourth run cooks nothing again.
    let fourth = run_cached(&graph, "out4", "cache", d);
    let (cooked, _, damaged) = cache_line(&fourth);
    assert_eq!((cooked, damaged), (0, 0), "{:?}", text(&fourth));
    assert_eq!(files_in(&d.join("out1")), files_in(&d.join("out4")));
    no_temp_files(d);
}

#[test]
fn plain_values_and_the_incremental_evaluator_use_the_cache_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let graph = examples().join("arithmetic.json");
    let g = graph.to_str().unwrap();
    let args = |out: &str| {
        vec![
            "run",
            g,
            "--out",
            out,
            "--cache",
            "c",
            "--evaluator",
            "incremental",
            "--set",
            "x=6",
            "-q",
        ]
        .into_iter()
        .map(str::to_string)
        .collect::<Vec<_>>()
    };
    let run = |out: &str| {
        let a = args(out);
        kiln(&a.iter().map(String::as_str).collect::<Vec<_>>(), d)
    };
    let first = run("a");
    assert!(cache_line(&first).0 > 0);
    let second = run("b");
    assert_eq!(cache_line(&second).0, 0, "{:?}", text(&second));
    assert_eq!(files_in(&d.join("a")), files_in(&d.join("b")));
    // A different input value cooks its cone again.
    let other = kiln(
        &[
            "run", g, "--out", "c2", "--cache", "c", "--set", "x=7", "-q",
        ],
        d,
    );
    assert!(cache_line(&other).0 > 0);
}

#[test]
fn two_processes_share_a_cache_directory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let graph = examples().join("marble.json");
    let spawn = |out: &str| {
        Command::new(env!("CARGO_BIN_EXE_kiln"))
            .args([
                "run",
                graph.to_str().unwrap(),
                "--out",
                out,
                "--cache",
                "shared",
                "-q",
            ])
            .current_dir(d)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = spawn("a");
    let b = spawn("b");
    let a = a.wait_with_output().unwrap();
    let b = b.wait_with_output().unwrap();
    assert!(a.status.success(), "{:?}", text(&a));
    assert!(b.status.success(), "{:?}", text(&b));
    assert_eq!(files_in(&d.join("a")), files_in(&d.join("b")));
    no_temp_files(d);
    // What they left is intact: a third run cooks nothing.
    let c = run_cached(&graph, "c", "shared", d);
    assert_eq!(cache_line(&c).0, 0, "{:?}", text(&c));
    assert_eq!(files_in(&d.join("a")), files_in(&d.join("c")));
}

#[test]
fn a_cache_that_is_a_file_is_a_readable_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("not-a-dir"), "hello").unwrap();
    let graph = examples().join("arithmetic.json");
    let o = run_cached(&graph, "out", "not-a-dir", d);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("error: --cache: cannot open cache directory") && err.contains("not-a-dir"),
        "{err}"
    );
    assert!(!d.join("out").exists(), "nothing written");
    assert_eq!(std::fs::read(d.join("not-a-dir")).unwrap(), b"hello");
}

#[test]
fn every_evaluator_reads_and_fills_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let graph = examples().join("clouds.json");
    let run = |ev: &str, out: &str| {
        let o = kiln(
            &[
                "run",
                graph.to_str().unwrap(),
                "--out",
                out,
                "--cache",
                "c",
                "--evaluator",
                ev,
                "--stats",
            ],
            dir.path(),
        );
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{ev}: {err}");
        err
    };
    // The first run fills the cache; every other evaluator then finds everything there.
    let first = run("eager", "o0");
    assert!(!first.contains("cache: 0 nodes cooked"), "{first}");
    let png = std::fs::read(dir.path().join("o0/clouds.png")).unwrap();
    for (i, ev) in ["lazy", "compiled", "incremental", "eager"]
        .iter()
        .enumerate()
    {
        let out = format!("o{}", i + 1);
        let err = run(ev, &out);
        assert!(
            err.contains("cache: 0 nodes cooked"),
            "{ev} cooked again: {err}"
        );
        let again = std::fs::read(dir.path().join(&out).join("clouds.png")).unwrap();
        assert_eq!(again, png, "{ev}");
    }
}

#[test]
fn render_ticks_reuse_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let graph = examples().join("trails.json");
    let render = |out: &str| {
        kiln(
            &[
                "render",
                graph.to_str().unwrap(),
                "--ticks",
                "3",
                "--out",
                out,
                "--cache",
                "c",
                "-q",
            ],
            d,
        )
    };
    let first = render("a");
    assert!(cache_line(&first).0 > 0, "{:?}", text(&first));
    let second = render("b");
    assert_eq!(cache_line(&second).0, 0, "{:?}", text(&second));
    assert_eq!(files_in(&d.join("a")), files_in(&d.join("b")));
    let plain = kiln(
        &[
            "render",
            graph.to_str().unwrap(),
            "--ticks",
            "3",
            "--out",
            "p",
            "-q",
        ],
        d,
    );
    assert!(plain.status.success());
    assert_eq!(files_in(&d.join("a")), files_in(&d.join("p")));
}
