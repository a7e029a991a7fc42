//! The file helpers every writer in this crate shares: temporary files beside their
//! destination (named `.kiln-<pid>-*`, with the permissions a plain `File::create` gives), the
//! folder of a path, and what counts as a plain file name.

use std::io::Write;
use std::path::Path;
use tempfile::{Builder, NamedTempFile, TempPath};

/// The folder `path` is in (`.` for a bare name).
pub(crate) fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// How many random characters a temporary name holds after the pid.
pub(crate) const RANDOM_LEN: usize = 6;

/// The start of every temporary name this process makes: `.kiln-<pid>-`.
fn temp_prefix() -> &'static str {
    static PREFIX: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PREFIX.get_or_init(|| format!("{}{}-", crate::leftovers::PREFIX, std::process::id()))
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
pub(crate) fn temp_in(dir: &Path) -> std::io::Result<NamedTempFile> {
    kiln_temp(".tmp").tempfile_in(dir)
}

/// Write `bytes` into a new temporary file in `dir`, flushed (and, with `sync`, synced to
/// the disk). The file is removed when the returned path drops, unless persisted.
pub(crate) fn stage(dir: &Path, bytes: &[u8], sync: bool) -> std::io::Result<TempPath> {
    let mut tmp = temp_in(dir)?;
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
