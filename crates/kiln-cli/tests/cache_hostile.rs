//! A cache directory or blob folder holding what kiln never wrote (FIFOs, links to
//! `/dev/zero`) is refused or recomputed, never waited on; `kiln cache du` and `trim`, and
//! `--cache-max`, keep a cache within a budget.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Output;

mod support;
use support::*;

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

/// The entry files of a cache directory (`v1/<shard>/<name>.kv`), sorted.
fn entries(cache: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for shard in std::fs::read_dir(cache.join("v1")).unwrap() {
        for f in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|e| e == "kv") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn run_cached(cwd: &Path, out: &str, extra: &[&str]) -> Output {
    let g = examples().join("arithmetic.json");
    let mut args = vec![
        "run",
        g.to_str().unwrap(),
        "--out",
        out,
        "--cache",
        "c",
        "-q",
    ];
    args.extend_from_slice(extra);
    kiln_watchdog(&args, cwd)
}

/// Replace every entry of the cache in `cwd/c` with `make`, run again, and check the run
/// recomputed every entry and wrote the bytes of the first run.
fn every_entry_replaced_by(make: impl Fn(&Path)) {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let first = run_cached(cwd, "o1", &[]);
    assert!(first.status.success(), "{:?}", text(&first));
    let found = entries(&cwd.join("c"));
    assert!(!found.is_empty());
    for e in &found {
        std::fs::remove_file(e).unwrap();
        make(e);
    }
    let second = run_cached(cwd, "o2", &[]);
    let (stdout, stderr) = text(&second);
    assert!(second.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(&format!("{} damaged", found.len())),
        "{stderr}"
    );
    assert!(stderr.contains("0 from cache"), "{stderr}");
    assert_eq!(files_in(&cwd.join("o1")), files_in(&cwd.join("o2")));
    // Each special file was replaced by a real entry.
    for e in &found {
        assert!(std::fs::symlink_metadata(e).unwrap().is_file(), "{e:?}");
    }
}

#[test]
fn fifos_in_place_of_cache_entries_are_recomputed() {
    every_entry_replaced_by(mkfifo);
}

#[test]
fn links_to_dev_zero_in_place_of_cache_entries_are_recomputed() {
    every_entry_replaced_by(|p| std::os::unix::fs::symlink("/dev/zero", p).unwrap());
}

#[test]
fn an_intact_entry_holding_a_value_of_the_wrong_type_is_recomputed() {
    // Each entry rewritten whole (its key, a right checksum) around the string "hello",
    // where the nodes of the graph make numbers, vectors and booleans.
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let first = run_cached(cwd, "o1", &[]);
    assert!(first.status.success(), "{:?}", text(&first));
    let hello = kiln_io::encode_value(
        &kiln_core::value::Value::str("hello"),
        &kiln_core::registry::Registry::new(),
    )
    .unwrap();
    let found = entries(&cwd.join("c"));
    assert!(!found.is_empty());
    for e in &found {
        let bytes = std::fs::read(e).unwrap();
        let key = u128::from_le_bytes(bytes[32..48].try_into().unwrap());
        let key = kiln_core::key::Key(key);
        let forged = kiln_io::cache::encode_entry(key, &hello);
        assert!(kiln_io::cache::check_entry(key, &forged).is_ok());
        std::fs::write(e, forged).unwrap();
    }
    let second = run_cached(cwd, "o2", &[]);
    let (stdout, stderr) = text(&second);
    assert!(second.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("0 from cache"), "{stderr}");
    // The files of the first run, not "hello".
    assert_eq!(files_in(&cwd.join("o1")), files_in(&cwd.join("o2")));
}

#[test]
fn a_fifo_or_dev_zero_in_place_of_a_blob_is_a_load_error() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let src = examples().join("clouds.json");
    let o = kiln(
        &[
            "bake",
            src.to_str().unwrap(),
            "--freeze",
            "--seed",
            "7",
            "--out",
            "b.json",
        ],
        cwd,
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let blobs: Vec<PathBuf> = std::fs::read_dir(cwd.join("b.blobs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(blobs.len(), 1);
    let blob = &blobs[0];
    let name = blob.file_name().unwrap().to_string_lossy().into_owned();
    for (make, kind) in [
        (&mkfifo as &dyn Fn(&Path), "a FIFO"),
        (
            &|p: &Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap(),
            "a device",
        ),
    ] {
        std::fs::remove_file(blob).unwrap();
        make(blob);
        let o = kiln_watchdog(&["run", "b.json", "--out", "o", "-q"], cwd);
        let (_, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(&name), "{stderr}");
        assert!(
            stderr.contains(&format!("not a regular file (it is {kind})")),
            "{stderr}"
        );
        assert!(!cwd.join("o").exists());
    }
}

/// The `N entries, B bytes` of `kiln cache du`.
fn du(cwd: &Path) -> (u64, u64) {
    let o = kiln(&["cache", "du", "c"], cwd);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    let words: Vec<&str> = stdout.split_whitespace().collect();
    let before = |w: &str| -> u64 {
        let i = words.iter().position(|x| x.starts_with(w)).unwrap();
        words[i - 1].parse().unwrap()
    };
    (before("entries"), before("bytes"))
}

#[test]
fn du_counts_entries_and_trim_removes_the_oldest() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let first = run_cached(cwd, "o", &[]);
    assert!(first.status.success(), "{:?}", text(&first));
    let found = entries(&cwd.join("c"));
    let sizes: Vec<u64> = found
        .iter()
        .map(|e| std::fs::metadata(e).unwrap().len())
        .collect();
    assert_eq!(du(cwd), (found.len() as u64, sizes.iter().sum()));
    // The last entry in path order is made the newest; a budget of its size keeps only it.
    let newest = found.last().unwrap();
    for (i, e) in found.iter().enumerate() {
        let f = std::fs::File::options().write(true).open(e).unwrap();
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000 + i as u64);
        f.set_modified(t).unwrap();
    }
    let budget = sizes.last().unwrap().to_string();
    let o = kiln(&["cache", "trim", "c", "--max", &budget], cwd);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stdout.contains(&format!("removed {} entries", found.len() - 1)),
        "{stdout}"
    );
    assert_eq!(entries(&cwd.join("c")), vec![newest.clone()]);
    assert_eq!(du(cwd), (1, *sizes.last().unwrap()));

    let o = kiln(&["cache", "trim", "c", "--max", "lots"], cwd);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("500M"), "{:?}", text(&o));
    let o = kiln(&["cache", "du", "missing"], cwd);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("`missing` is not a cache directory"));
}

#[test]
fn cache_max_trims_after_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let o = run_cached(cwd, "o", &["--cache-max", "0"]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("cache: removed"), "{stderr}");
    assert!(entries(&cwd.join("c")).is_empty());
    assert!(cwd.join("o/length.json").exists());
    // A budget that holds everything removes nothing.
    let o = run_cached(cwd, "o", &["--cache-max", "1G"]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(text(&o).1.contains("cache: removed 0 entries"));
    assert!(!entries(&cwd.join("c")).is_empty());
    // Without --cache it is refused.
    let g = examples().join("arithmetic.json");
    let o = kiln(
        &[
            "run",
            g.to_str().unwrap(),
            "--out",
            "o",
            "--cache-max",
            "1G",
        ],
        cwd,
    );
    assert_eq!(o.status.code(), Some(2));

    let trails = examples().join("trails.json");
    let o = kiln_watchdog(
        &[
            "render",
            trails.to_str().unwrap(),
            "--ticks",
            "2",
            "--out",
            "f",
            "--cache",
            "rc",
            "--cache-max",
            "0",
            "-q",
        ],
        cwd,
    );
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(entries(&cwd.join("rc")).is_empty());
}
