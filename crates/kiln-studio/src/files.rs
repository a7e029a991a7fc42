//! The files the studio may serve: those under the graph's folder or the output folder, and
//! nothing else. A path with a `..`, a root or a drive is refused before the file system is
//! asked; what is left is resolved (symbolic links followed) and must still lie under its
//! folder.

use std::path::{Component, Path, PathBuf};

/// The most bytes of a file served.
pub const MAX_SERVED_BYTES: u64 = 256 << 20;

/// `rel` under `root`, if it stays there.
pub fn confined(root: &Path, rel: &str) -> Option<PathBuf> {
    if rel.is_empty() || rel.contains('\0') || rel.contains('\\') {
        return None;
    }
    let rel_path = Path::new(rel);
    if !rel_path
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let root = root.canonicalize().ok()?;
    let full = root.join(rel_path).canonicalize().ok()?;
    full.starts_with(&root).then_some(full)
}

/// The media type of a served file, by its extension.
pub fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("png") => "image/png",
        Some("json") => "application/json",
        Some("wav") => "audio/wav",
        Some("glb") => "model/gltf-binary",
        Some("gif") => "image/gif",
        Some("txt") | Some("md") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_leave_their_folder_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let inner = d.path().join("inner");
        std::fs::create_dir(&inner).unwrap();
        std::fs::write(inner.join("a.json"), "{}").unwrap();
        std::fs::write(d.path().join("secret.txt"), "x").unwrap();
        assert!(confined(&inner, "a.json").is_some());
        for bad in [
            "../secret.txt",
            "/etc/passwd",
            "a/../../secret.txt",
            "",
            "..",
            "./a.json",
        ] {
            assert_eq!(confined(&inner, bad), None, "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.path().join("secret.txt"), inner.join("link")).unwrap();
            assert_eq!(confined(&inner, "link"), None);
        }
    }
}
