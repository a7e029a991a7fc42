//! Reading a file a user names as input (a graph file, a params file) without blocking on
//! it or reading it without bound: only a regular file (or a link to one) is opened, never a
//! FIFO or a device, and a file larger than a limit is refused from its size before it is
//! read ([`MAX_INPUT_BYTES`] for graph files).
//!
//! ```
//! use kiln_io::input_file::{InputFileError, read_input_file};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("g.json");
//! std::fs::write(&path, "{}").unwrap();
//! assert_eq!(read_input_file(&path, 16).unwrap(), b"{}");
//! let e = read_input_file(&path, 1).unwrap_err();
//! assert!(matches!(e, InputFileError::TooLarge { size: 2, limit: 1, .. }));
//! let e = read_input_file(dir.path(), 16).unwrap_err();
//! assert!(e.to_string().contains("it is a folder"), "{e}");
//! ```

use crate::entry_file::kind_of;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest graph file [`read_graph`](crate::read_graph) reads: 256 MiB.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Why an input file could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputFileError {
    /// Something other than a regular file is at the path.
    #[error(
        "`{}` is not a regular file (it is {kind}): kiln reads only regular files as input",
        path.display()
    )]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What is there ("a FIFO", "a device", "a folder").
        kind: &'static str,
    },
    /// The file is larger than the limit.
    #[error(
        "`{}` is {size} bytes, more than the limit of {limit} bytes ({} MiB) for an input file",
        path.display(),
        limit >> 20
    )]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// Its size (at least: a file that grew while read is not read further).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Reading failed.
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// The bytes of the file at `path`, if it is a regular file (links followed) of at most
/// `limit` bytes; never more than `limit + 1` bytes are read. The file is opened without
/// blocking and checked as opened ([`open_regular`]), so a FIFO put at the path after the
/// check cannot block the read.
pub fn read_input_file(path: &Path, limit: u64) -> Result<Vec<u8>, InputFileError> {
    let (file, len) = open_regular(path, limit)?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| InputFileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > limit {
        return Err(InputFileError::TooLarge {
            path: path.to_path_buf(),
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// The regular file at `path` (links followed), opened for reading, with its size, if that
/// is at most `limit` bytes.
///
/// The open never blocks: on Linux it asks for `O_NONBLOCK`, so a FIFO (or a device) put at
/// the path between a check and the open is opened at once instead of waiting for a writer,
/// and what was opened is then checked (`fstat` of the handle): anything but a regular file
/// is refused as [`InputFileError::NotAFile`]. On a regular file `O_NONBLOCK` changes
/// nothing: reads of it never wait. The path is looked at first as well, so a FIFO already
/// there is refused without being opened at all.
pub fn open_regular(path: &Path, limit: u64) -> Result<(std::fs::File, u64), InputFileError> {
    let io = |source| InputFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let not_a_file = |kind| InputFileError::NotAFile {
        path: path.to_path_buf(),
        kind,
    };
    let too_large = |size| InputFileError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit,
    };
    let checked = std::fs::metadata(path).map_err(io)?;
    if !checked.file_type().is_file() {
        return Err(not_a_file(kind_of(checked.file_type())));
    }
    if checked.len() > limit {
        return Err(too_large(checked.len()));
    }
    let file = open_nonblocking(path).map_err(io)?;
    let opened = file.metadata().map_err(io)?;
    if !opened.file_type().is_file() {
        return Err(not_a_file(kind_of(opened.file_type())));
    }
    if opened.len() > limit {
        return Err(too_large(opened.len()));
    }
    Ok((file, opened.len()))
}

/// `O_NONBLOCK` of Linux, written as a literal because `libc` is not a dependency of Kiln.
/// 0o4000 (2048) is its value on the architectures listed in the `cfg` (the generic value
/// of Linux's `fcntl.h`); mips and sparc use other values, so they (and every other system)
/// have none and take a plain open.
const O_NONBLOCK: Option<i32> = if cfg!(all(
    target_os = "linux",
    any(
        target_arch = "x86",
        target_arch = "x86_64",
        target_arch = "arm",
        target_arch = "aarch64",
        target_arch = "riscv32",
        target_arch = "riscv64",
        target_arch = "powerpc",
        target_arch = "powerpc64",
        target_arch = "s390x",
        target_arch = "loongarch64"
    )
)) {
    Some(0o4000)
} else {
    None
};

/// `path` opened for reading without waiting for a writer (a FIFO) or a device, where the
/// flag is known ([`O_NONBLOCK`]). Elsewhere the open is a plain one: the check of the path
/// before it and of the handle after it still refuse anything but a regular file, but a FIFO
/// swapped in between can block it.
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    if let Some(flag) = O_NONBLOCK {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(flag);
    }
    options.open(path)
}
