//! The files the studio may serve: those under the graph's folder or the output folder, and
//! nothing else. A path with a `..`, a root or a drive is refused before the file system is
//! asked; what is left is resolved (symbolic links followed) and must still lie under its
//! folder.
//!
//! A served file is read by [`Reads::read`]: opened without blocking and checked as opened
//! (only a regular file is read, so a FIFO swapped in for a file cannot block the read), on a
//! blocking thread of the runtime (never on a worker of the server), at most
//! [`MAX_CONCURRENT_READS`] at once.

use kiln_io::input_file::InputFileError;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::Semaphore;

/// The most bytes of a file served.
pub const MAX_SERVED_BYTES: u64 = 256 << 20;

/// The most files the file route reads at once; a further request waits for one to end. Each
/// read holds at most [`MAX_SERVED_BYTES`], so reads hold at most 1 GiB together.
pub const MAX_CONCURRENT_READS: usize = 4;

/// Why a served file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The file is not a regular file, is too large or could not be read.
    #[error(transparent)]
    Read(#[from] InputFileError),
    /// The read did not end (the server is stopping).
    #[error("the read of `{}` was stopped", path.display())]
    Stopped {
        /// The file.
        path: PathBuf,
    },
}

/// The file route's reads: at most [`MAX_CONCURRENT_READS`] at once.
#[derive(Debug)]
pub struct Reads {
    permits: Semaphore,
    now: AtomicUsize,
    most: AtomicUsize,
}

impl Default for Reads {
    fn default() -> Self {
        Reads {
            permits: Semaphore::new(MAX_CONCURRENT_READS),
            now: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
        }
    }
}

impl Reads {
    /// The bytes of the regular file at `path` (at most [`MAX_SERVED_BYTES`]), read on a
    /// blocking thread once fewer than [`MAX_CONCURRENT_READS`] reads are under way.
    pub async fn read(&self, path: PathBuf) -> Result<Vec<u8>, ServeError> {
        let stopped = |path: &Path| ServeError::Stopped {
            path: path.to_path_buf(),
        };
        let Ok(_permit) = self.permits.acquire().await else {
            return Err(stopped(&path));
        };
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        let p = path.clone();
        let read = tokio::task::spawn_blocking(move || {
            kiln_io::input_file::read_input_file(&p, MAX_SERVED_BYTES)
        })
        .await;
        self.now.fetch_sub(1, Ordering::SeqCst);
        match read {
            Ok(r) => Ok(r?),
            Err(_) => Err(stopped(&path)),
        }
    }

    /// The most reads that were under way at once so far.
    pub fn most(&self) -> usize {
        self.most.load(Ordering::SeqCst)
    }
}

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
    fn reads_past_the_cap_wait_for_one_to_end() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("a.bin");
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let reads = std::sync::Arc::new(Reads::default());
        rt.block_on(async {
            // Every permit taken: a read waits, whatever the time given.
            let held = reads
                .permits
                .acquire_many(MAX_CONCURRENT_READS as u32)
                .await
                .unwrap();
            let waiting = tokio::spawn({
                let reads = reads.clone();
                let path = path.clone();
                async move { reads.read(path).await.map(|b| b.len()) }
            });
            for _ in 0..100 {
                tokio::task::yield_now().await;
            }
            assert!(!waiting.is_finished());
            assert_eq!(reads.most(), 0);
            drop(held);
            assert_eq!(waiting.await.unwrap().unwrap(), 1 << 20);
            // Many at once: never more than the cap under way.
            let all: Vec<_> = (0..64)
                .map(|_| {
                    let reads = reads.clone();
                    let path = path.clone();
                    tokio::spawn(async move { reads.read(path).await.map(|b| b.len()) })
                })
                .collect();
            for t in all {
                assert_eq!(t.await.unwrap().unwrap(), 1 << 20);
            }
        });
        assert!((1..=MAX_CONCURRENT_READS).contains(&reads.most()));
    }

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
