//! Content keys of nodes whose params are not wired are what they were before every param
//! became a port (issue 29): `tests/data/cache-before-29` holds two graphs and the cache
//! directories the `kiln` of before that change filled cooking them at 32x32, and cooking
//! them again here takes every result from those caches and cooks nothing.

mod support;

use std::path::{Path, PathBuf};
use support::{kiln, text};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cache-before-29")
}

/// Copy the folder `from` into `to` (files and folders only).
fn copy_dir(from: &Path, to: &Path) {
    let mut stack = vec![(from.to_path_buf(), to.to_path_buf())];
    while let Some((a, b)) = stack.pop() {
        std::fs::create_dir_all(&b).unwrap();
        for e in std::fs::read_dir(&a).unwrap() {
            let e = e.unwrap();
            let target = b.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                stack.push((e.path(), target));
            } else {
                std::fs::copy(e.path(), target).unwrap();
            }
        }
    }
}

#[test]
fn a_cache_made_before_params_were_ports_still_hits() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&data(), dir.path());
    for graph in ["stone", "arithmetic"] {
        let cache = format!("{graph}-cache");
        let o = kiln(
            &[
                "run",
                &format!("{graph}.json"),
                "--cache",
                &cache,
                "--size",
                "32x32",
                "--out",
                &format!("out-{graph}"),
            ],
            dir.path(),
        );
        let (_, err) = text(&o);
        assert!(o.status.success(), "{graph}: {err}");
        let line = err
            .lines()
            .find(|l| l.starts_with("cache:"))
            .unwrap_or_else(|| panic!("{graph}: no cache line in {err}"));
        assert!(
            line.starts_with("cache: 0 nodes cooked,") && !line.contains(" 0 from cache"),
            "{graph}: {line}"
        );
    }
}
