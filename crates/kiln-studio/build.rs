//! Whether a headless Chromium is on this machine, and playwright-core (in the folder named
//! by `KILN_PLAYWRIGHT`, which `.ci/run` installs and sets) with `node` to drive it: the
//! browser tests run with them and are reported as ignored (by name) without them.

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_chromium)");
    println!("cargo::rustc-check-cfg=cfg(has_playwright)");
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=KILN_CHROMIUM");
    println!("cargo::rerun-if-env-changed=KILN_PLAYWRIGHT");
    let found = chromium().is_some();
    if found {
        println!("cargo::rustc-cfg=has_chromium");
    }
    if let Some(dir) = std::env::var_os("KILN_PLAYWRIGHT").map(PathBuf::from) {
        let package = dir.join("node_modules/playwright-core/package.json");
        println!("cargo::rerun-if-changed={}", package.display());
        if found && package.is_file() && on_path("node").is_some() {
            println!("cargo::rustc-cfg=has_playwright");
        }
    }
    // Look again when it is installed or removed.
    println!("cargo::rerun-if-changed=/usr/bin/chromium");
}

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("KILN_CHROMIUM") {
        return Some(p.into());
    }
    on_path("chromium")
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}
