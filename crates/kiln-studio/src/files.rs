//! The files the studio may serve: those under the graph's folder or the output folder, and
//! nothing else. A path with a `..`, a root or a drive is refused before the file system is
//! asked; what is left is resolved (symbolic links followed) and must still lie under its
//! folder.
//!
//! A served file is streamed by [`Reads::open`]: opened without blocking and checked as
//! opened (only a regular file is read, so a FIFO swapped in for a file cannot block the
//! read), then read in chunks of [`CHUNK_BYTES`] on a blocking thread of the runtime (never on
//! a worker of the server) into a channel of [`CHUNKS_AHEAD`] chunks, so a request holds a
//! few chunks whatever the file's size; at most [`MAX_CONCURRENT_READS`] files are read at
//! once, the others wait.

use kiln_io::input_file::InputFileError;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::{Semaphore, mpsc, oneshot};

/// The bytes read at a time from a served file.
pub const CHUNK_BYTES: usize = 64 << 10;

/// The chunks read ahead of the client: a request holds at most this many chunks and the one
/// being read.
pub const CHUNKS_AHEAD: usize = 4;

/// The most bytes of a file served.
pub const MAX_SERVED_BYTES: u64 = 256 << 20;

/// The most files the file route reads at once; a further request waits for one to end.
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
    permits: Arc<Semaphore>,
    now: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
}

impl Default for Reads {
    fn default() -> Self {
        Reads {
            permits: Arc::new(Semaphore::new(MAX_CONCURRENT_READS)),
            now: Arc::new(AtomicUsize::new(0)),
            most: Arc::new(AtomicUsize::new(0)),
        }
    }
}

/// A served file being read: its length, and its bytes as they come, chunk by chunk.
#[derive(Debug)]
pub struct Streamed {
    /// The file's length, as opened.
    pub len: u64,
    /// Its bytes, [`CHUNK_BYTES`] at a time; the channel closes after the last.
    pub chunks: mpsc::Receiver<std::io::Result<Vec<u8>>>,
}

impl Reads {
    /// The regular file at `path` (at most [`MAX_SERVED_BYTES`]), opened and streamed on a
    /// blocking thread once fewer than [`MAX_CONCURRENT_READS`] reads are under way; the read
    /// stops when the receiver is dropped (the client went away).
    pub async fn open(&self, path: PathBuf) -> Result<Streamed, ServeError> {
        let stopped = |path: &Path| ServeError::Stopped {
            path: path.to_path_buf(),
        };
        let Ok(permit) = self.permits.clone().acquire_owned().await else {
            return Err(stopped(&path));
        };
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        let (opened_tx, opened_rx) = oneshot::channel();
        let (tx, rx) = mpsc::channel(CHUNKS_AHEAD);
        let under_way = self.now.clone();
        let p = path.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            match kiln_io::input_file::open_regular(&p, MAX_SERVED_BYTES) {
                Err(e) => {
                    let _ = opened_tx.send(Err(e));
                }
                Ok((file, len)) => {
                    if opened_tx.send(Ok(len)).is_ok() {
                        stream_chunks(file.take(len), &tx);
                    }
                }
            }
            under_way.fetch_sub(1, Ordering::SeqCst);
        });
        match opened_rx.await {
            Ok(Ok(len)) => Ok(Streamed { len, chunks: rx }),
            Ok(Err(e)) => Err(e.into()),
            Err(_) => Err(stopped(&path)),
        }
    }

    /// The reads under way now.
    pub fn under_way(&self) -> usize {
        self.now.load(Ordering::SeqCst)
    }

    /// The most reads that were under way at once so far.
    pub fn most(&self) -> usize {
        self.most.load(Ordering::SeqCst)
    }
}

/// Send `file`'s bytes into `tx`, [`CHUNK_BYTES`] at a time, until its end, an error, or the
/// receiver is gone.
fn stream_chunks(mut file: impl Read, tx: &mpsc::Sender<std::io::Result<Vec<u8>>>) {
    loop {
        let mut chunk = vec![0u8; CHUNK_BYTES];
        let mut filled = 0;
        // Fill the chunk (a read may return less), or stop at the end.
        while filled < CHUNK_BYTES {
            match file.read(&mut chunk[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let _ = tx.blocking_send(Err(e));
                    return;
                }
            }
        }
        if filled == 0 {
            return;
        }
        chunk.truncate(filled);
        let last = filled < CHUNK_BYTES;
        if tx.blocking_send(Ok(chunk)).is_err() || last {
            return;
        }
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

    /// The whole file, as the route's client receives it.
    async fn read_all(reads: &Reads, path: PathBuf) -> Result<Vec<u8>, ServeError> {
        let mut f = reads.open(path.clone()).await?;
        let mut bytes = Vec::new();
        while let Some(chunk) = f.chunks.recv().await {
            match chunk {
                Ok(c) => bytes.extend_from_slice(&c),
                Err(source) => {
                    return Err(ServeError::Read(InputFileError::Io { path, source }));
                }
            }
        }
        Ok(bytes)
    }

    #[test]
    fn a_file_streams_in_chunks_and_a_client_gone_ends_its_read() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("a.bin");
        let bytes: Vec<u8> = (0..(CHUNK_BYTES * 3 + 100))
            .map(|i| (i % 251) as u8)
            .collect();
        std::fs::write(&path, &bytes).unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_time()
            .build()
            .unwrap();
        let reads = Reads::default();
        rt.block_on(async {
            let mut f = reads.open(path.clone()).await.unwrap();
            assert_eq!(f.len, bytes.len() as u64);
            let mut sizes = vec![];
            let mut back = vec![];
            while let Some(chunk) = f.chunks.recv().await {
                let chunk = chunk.unwrap();
                sizes.push(chunk.len());
                back.extend_from_slice(&chunk);
            }
            assert_eq!(sizes, [CHUNK_BYTES, CHUNK_BYTES, CHUNK_BYTES, 100]);
            assert_eq!(back, bytes);
            // A client that goes away after one chunk: the read ends, its permit returns.
            let mut f = reads.open(path.clone()).await.unwrap();
            assert!(f.chunks.recv().await.is_some());
            drop(f);
            // The reader thread notices at its next send; wait for it (10 s at most).
            for _ in 0..5000 {
                if reads.under_way() == 0 {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            }
            assert_eq!(reads.under_way(), 0);
            assert_eq!(reads.permits.available_permits(), MAX_CONCURRENT_READS);
        });
    }

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
                async move { read_all(&reads, path).await.map(|b| b.len()) }
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
                    tokio::spawn(async move { read_all(&reads, path).await.map(|b| b.len()) })
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
