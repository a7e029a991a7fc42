//! The file helpers every writer in this crate shares: temporary files beside their
//! destination (named `.kiln-<pid>-*`, with the permissions a plain `File::create` gives), the
//! check of a destination before anything is written for it, the folder of a path, and what
//! counts as a plain file name.
//!
//! Every file Kiln writes is staged under a temporary name and renamed over its destination,
//! and the only ways to stage one ([`stage`], [`temp_for`]) take the destination and check
//! it first ([`check_destination`]); [`persist`] checks it again just before the rename. A
//! destination must be absent or a regular file (a symbolic link to a regular file, or a
//! dangling one, is replaced as a link); a FIFO, a device, a socket, a link to one of these,
//! or a link into `/proc` (`/dev/stdout`, `/dev/fd/1`: a process's stream) is refused with
//! [`NotARegularFile`], and so is any path in `/proc` or `/sys`. Streams are refused, not
//! written in place: a rename would replace the machine's link, and writing in place would
//! give up the atomic write.

use crate::entry_file::kind_of;
use std::io::Write;
use std::path::{Path, PathBuf};
use tempfile::{Builder, NamedTempFile, TempPath};

/// A destination Kiln will not write: something other than a regular file is at the path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "refusing to write `{}`: it is {kind}; kiln writes only to a regular file or a path where nothing is",
    path.display()
)]
pub struct NotARegularFile {
    /// The destination.
    pub path: PathBuf,
    /// What is there (`a FIFO`, `a device`, `a socket`, `a symbolic link to a device`, ...).
    pub kind: String,
}

/// Whether `dest` may be written by renaming a file over it: nothing is there, a regular
/// file, or a symbolic link to a regular file, a folder or nothing (the rename replaces the
/// link itself). Refused: FIFOs, devices, sockets, links to them, links into `/proc` (a
/// process's streams, like `/dev/stdout`) and anything in `/proc` or `/sys`. Where the
/// path cannot be examined, it is allowed: the write itself will say why it fails.
pub fn check_destination(dest: &Path) -> Result<(), NotARegularFile> {
    let refuse = |kind: String| {
        Err(NotARegularFile {
            path: dest.to_path_buf(),
            kind,
        })
    };
    if let Ok(folder) = std::fs::canonicalize(folder_of(dest))
        && (folder.starts_with("/proc") || folder.starts_with("/sys"))
    {
        return refuse(format!("in `{}`, a system folder", folder.display()));
    }
    let Ok(meta) = std::fs::symlink_metadata(dest) else {
        return Ok(());
    };
    let t = meta.file_type();
    if t.is_file() || t.is_dir() {
        return Ok(());
    }
    if !t.is_symlink() {
        return refuse(kind_of(t).to_string());
    }
    if let Ok(to) = std::fs::read_link(dest)
        && to.starts_with("/proc")
    {
        return refuse(format!(
            "a symbolic link to `{}`, a process's stream",
            to.display()
        ));
    }
    match std::fs::metadata(dest) {
        // Dangling: the rename replaces the link.
        Err(_) => Ok(()),
        Ok(m) if m.is_file() || m.is_dir() => Ok(()),
        Ok(m) => refuse(format!("a symbolic link to {}", kind_of(m.file_type()))),
    }
}

/// A refusal as an I/O error, for the writers whose errors are I/O errors; [`refusal`]
/// takes it back out.
fn refused_io(r: NotARegularFile) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, r)
}

/// The [`NotARegularFile`] an I/O error of [`stage`], [`temp_for`] or [`persist`] carries,
/// or the error itself when it is another.
pub(crate) fn refusal(e: std::io::Error) -> Result<NotARegularFile, std::io::Error> {
    if e.get_ref().is_some_and(|r| r.is::<NotARegularFile>()) {
        let inner = e.into_inner().map(|b| b.downcast::<NotARegularFile>());
        if let Some(Ok(r)) = inner {
            return Ok(*r);
        }
        // Unreachable: the check above saw one.
        return Err(std::io::Error::other("a refused destination"));
    }
    Err(e)
}

/// Rename the staged file `tmp` over `dest`, after checking `dest` again (something may
/// have been put there since it was staged). On failure `tmp` is removed.
pub(crate) fn persist(tmp: TempPath, dest: &Path) -> std::io::Result<()> {
    check_destination(dest).map_err(refused_io)?;
    tmp.persist(dest).map_err(|e| e.error)
}

/// The folder `path` is in (`.` for a bare name).
pub(crate) fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// How many random characters a temporary name holds after the pid.
pub(crate) const RANDOM_LEN: usize = 6;

/// The start of every temporary name: `.kiln-`, then the pid (see [`crate::leftovers`],
/// which removes those of stopped processes).
pub(crate) const TEMP_PREFIX: &str = ".kiln-";

/// The start of every temporary name this process makes: `.kiln-<pid>-`.
fn temp_prefix() -> &'static str {
    static PREFIX: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PREFIX.get_or_init(|| format!("{TEMP_PREFIX}{}-", std::process::id()))
}

/// A builder for Kiln's temporary names: `.kiln-<pid>-<random><suffix>`, where `<pid>` is
/// this process's id and `<random>` is [`RANDOM_LEN`] letters and digits (see
/// [`crate::leftovers`] for why the pid is there).
pub(crate) fn kiln_temp(suffix: &str) -> Builder<'static, '_> {
    let mut b = Builder::new();
    b.prefix(temp_prefix())
        .rand_bytes(RANDOM_LEN)
        .suffix(suffix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // What a plain `File::create` would give (the umask applies), not tempfile's 0600.
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b
}

/// A new temporary file (`.tmp`) in `dir`.
fn temp_in(dir: &Path) -> std::io::Result<NamedTempFile> {
    kiln_temp(".tmp").tempfile_in(dir)
}

/// A new temporary file (`.tmp`) in the folder of `dest`, the file it will be renamed
/// over, once `dest` passed [`check_destination`] (else the error carries the refusal).
pub(crate) fn temp_for(dest: &Path) -> std::io::Result<NamedTempFile> {
    check_destination(dest).map_err(refused_io)?;
    temp_in(folder_of(dest))
}

/// Write `bytes` into a new temporary file in the folder of `dest`, flushed (and, with
/// `sync`, synced to the disk), once `dest` passed [`check_destination`]. The file is
/// removed when the returned path drops, unless persisted (see [`persist`]).
pub(crate) fn stage(dest: &Path, bytes: &[u8], sync: bool) -> std::io::Result<TempPath> {
    let mut tmp = temp_for(dest)?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    if sync {
        tmp.as_file().sync_all()?;
    }
    Ok(tmp.into_temp_path())
}

/// Whether `name` is a plain file name (no folders, nothing special).
pub(crate) fn is_file_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0', ':'])
        && !name.chars().any(|c| c.is_control())
}
