//! Whether a headless Chromium is on this machine: the browser tests run with one and are
//! reported as ignored (by name) without one.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_chromium)");
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=KILN_CHROMIUM");
    let found = chromium().is_some();
    if found {
        println!("cargo::rustc-cfg=has_chromium");
    }
    // Look again when it is installed or removed.
    println!("cargo::rerun-if-changed=/usr/bin/chromium");
}

fn chromium() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("KILN_CHROMIUM") {
        return Some(p.into());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("chromium"))
        .find(|p| p.is_file())
}
