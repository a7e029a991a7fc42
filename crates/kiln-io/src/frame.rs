//! Frames of files committed as a group: every file lands, or none does.
//!
//! [`commit_frame`] writes a frame's files (one per output, say) into a folder so that a
//! reader never sees a mix of two frames' files for long, and a failure leaves the previous
//! frame's files as they were:
//!
//! 1. **Stage**: every file is written (and flushed to the disk) under a temporary name in
//!    the folder (`.kiln-*.tmp`). A failure here changes nothing.
//! 2. **Swap**: file by file, the existing file (if any) is kept aside under a backup name
//!    (`.kiln-*.bak`: a hard link, so the file never goes missing; where the file system
//!    cannot link, the file is renamed aside as `.kiln-*.aside`), then the new file is
//!    renamed over it.
//! 3. **Rollback** on any failure in the swap: the files already swapped are put back from
//!    their backups (or removed, if the frame added them), the staged files are deleted.
//! 4. **Finish**: once every file is in place, the backups are deleted.
//!
//! No temporary or backup file is left behind, except in one case: if putting a previous
//! file back itself fails (the disk vanished mid-way), its backup is kept, never deleted
//! (renamed to `.kiln-*.kept` where it can be), and the error names it
//! ([`FrameError::Incomplete`]). A process killed mid-way leaves its staged and backup
//! files; their names carry its pid, so a later run can remove them safely
//! ([`crate::leftovers`]).
//!
//! ```
//! use kiln_io::frame::commit_frame;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let frame = |a: &str, b: &str| {
//!     vec![
//!         ("a.json".to_string(), a.as_bytes().to_vec()),
//!         ("b.json".to_string(), b.as_bytes().to_vec()),
//!     ]
//! };
//! commit_frame(dir.path(), &frame("1", "2")).unwrap();
//! commit_frame(dir.path(), &frame("3", "4")).unwrap();
//! assert_eq!(std::fs::read(dir.path().join("a.json")).unwrap(), b"3");
//! assert_eq!(std::fs::read(dir.path().join("b.json")).unwrap(), b"4");
//! assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
//! ```

use crate::files::{is_file_name, kiln_temp as builder};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use tempfile::TempPath;

/// Why a frame could not be committed. Except for [`FrameError::Incomplete`], the folder
/// holds exactly the files it held before the call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// A file name is empty, `.`, `..`, or holds a path separator, `:`, a NUL or a control
    /// character.
    #[error("`{name}` cannot be used as a file name in a frame")]
    BadName {
        /// The name.
        name: String,
    },
    /// Two files of the frame have the same name.
    #[error("the frame has two files named `{name}`")]
    Duplicate {
        /// The name.
        name: String,
    },
    /// A file of the frame would replace a folder.
    #[error("cannot replace `{}`: it is a folder", path.display())]
    IsFolder {
        /// The folder.
        path: PathBuf,
    },
    /// A file of the frame would replace a FIFO, a device, a socket or a link to one (or a
    /// process's stream): refused before anything was written.
    #[error(transparent)]
    NotARegularFile(#[from] crate::files::NotARegularFile),
    /// Writing, linking or renaming a file failed.
    #[error("cannot {action} `{}`: {source}", path.display())]
    Io {
        /// What was being done (`write`, `keep a backup of`, `replace`, ...).
        action: &'static str,
        /// The file concerned.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The commit failed and putting the previous files back failed too: some of the
    /// previous frame's files are only in their backups, which are kept.
    #[error(
        "{cause}; rolling back failed too ({}): the previous files are kept under the backup names",
        problems.join("; ")
    )]
    Incomplete {
        /// Why the commit failed.
        cause: Box<FrameError>,
        /// Each file that could not be restored, with its backup.
        problems: Vec<String>,
    },
}

/// Write `bytes` into a new temporary file beside `target`, flushed to the disk.
fn stage(target: &Path, bytes: &[u8]) -> std::io::Result<TempPath> {
    crate::files::stage(target, bytes, true)
}

/// An I/O error of staging or renaming `path` as a [`FrameError`]: a refused destination
/// as [`FrameError::NotARegularFile`].
fn io_error(action: &'static str, path: &Path, e: std::io::Error) -> FrameError {
    match crate::files::refusal(e) {
        Ok(r) => FrameError::NotARegularFile(r),
        Err(source) => FrameError::Io {
            action,
            path: path.to_path_buf(),
            source,
        },
    }
}

/// Keep the file at `target` under a new backup name in `dir`: a hard link if the file
/// system can make one, else the file renamed aside. `None` if there is no file.
fn back_up(dir: &Path, target: &Path) -> Result<Option<TempPath>, FrameError> {
    match std::fs::symlink_metadata(target) {
        // Nothing there (or nothing that can be seen: the rename in will say why).
        Err(_) => return Ok(None),
        Ok(m) if m.is_dir() => {
            return Err(FrameError::IsFolder {
                path: target.to_path_buf(),
            });
        }
        Ok(_) => {}
    }
    let linked = builder(".bak").make_in(dir, |p| std::fs::hard_link(target, p));
    match linked {
        Ok(f) => return Ok(Some(f.into_temp_path())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !exists(target) => {
            return Ok(None);
        }
        Err(_) => {}
    }
    // No hard links here: rename the file aside (it is missing until the new one lands).
    // `.aside`, not `.bak`: if the process dies now, this is the only copy of the file, so
    // the sweep of dead processes' leftovers must leave it.
    match builder(".aside").make_in(dir, |p| std::fs::rename(target, p)) {
        Ok(f) => Ok(Some(f.into_temp_path())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !exists(target) => Ok(None),
        Err(source) => Err(FrameError::Io {
            action: "keep a backup of",
            path: target.to_path_buf(),
            source,
        }),
    }
}

/// Whether anything (a file, folder or link, even a broken one) is at `p`.
fn exists(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok()
}

/// A file of the frame that was swapped in.
struct Swapped {
    target: PathBuf,
    /// The previous file, if there was one.
    backup: Option<TempPath>,
}

/// Put the swapped files back as they were (in reverse order); the descriptions of those
/// that could not be.
fn roll_back(swapped: Vec<Swapped>) -> Vec<String> {
    let mut problems = vec![];
    for s in swapped.into_iter().rev() {
        match s.backup {
            Some(backup) => {
                if let Err(e) = backup.persist(&s.target) {
                    // Keep the backup: it holds the only copy of the previous file. It is
                    // renamed out of the pattern that leftover sweeps remove, if it can be.
                    let kept = e.path.keep().ok().map(|p| keep_aside(&p));
                    problems.push(format!(
                        "cannot restore `{}`: {} (the previous file is at `{}`)",
                        s.target.display(),
                        e.error,
                        kept.map_or_else(|| "?".into(), |p| p.display().to_string())
                    ));
                }
            }
            None => {
                if let Err(e) = std::fs::remove_file(&s.target)
                    && e.kind() != std::io::ErrorKind::NotFound
                {
                    problems.push(format!(
                        "cannot remove the new file `{}`: {e}",
                        s.target.display()
                    ));
                }
            }
        }
    }
    problems
}

/// Rename a backup that must be kept to the same name with the suffix `.kept`, which the
/// sweep of leftovers never removes; where that fails, it stays where it is.
fn keep_aside(backup: &Path) -> PathBuf {
    let kept = backup.with_extension("kept");
    match std::fs::rename(backup, &kept) {
        Ok(()) => kept,
        Err(_) => backup.to_path_buf(),
    }
}

/// Write `files` (`(file name, bytes)`) into the folder `dir` as one frame: either every
/// file is replaced (or created), or, on any error, the folder keeps exactly the files it
/// had. No temporary file is left behind. See the module docs for how.
///
/// `dir` must exist. Names must be plain file names, each at most once; a name that is a
/// folder in `dir` is refused. Files of `dir` not named in `files` are not touched.
pub fn commit_frame(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), FrameError> {
    let mut seen = HashSet::new();
    for (name, _) in files {
        if !is_file_name(name) {
            return Err(FrameError::BadName { name: name.clone() });
        }
        if !seen.insert(name.as_str()) {
            return Err(FrameError::Duplicate { name: name.clone() });
        }
        // Before anything is written: every destination is a regular file or absent.
        crate::files::check_destination(&dir.join(name))?;
    }
    // 1. Stage every file (dropping a TempPath deletes its file).
    let mut staged = Vec::with_capacity(files.len());
    for (name, bytes) in files {
        let target = dir.join(name);
        let tmp = stage(&target, bytes).map_err(|e| io_error("write", &target, e))?;
        staged.push((target, tmp));
    }
    // 2. Swap them in, one by one, keeping what each replaces.
    let mut swapped: Vec<Swapped> = Vec::with_capacity(staged.len());
    let mut failure = None;
    for (target, tmp) in staged {
        let backup = match back_up(dir, &target) {
            Ok(b) => b,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        if let Err(e) = crate::files::persist(tmp, &target) {
            // The staged file is deleted when it drops.
            let cause = io_error("replace", &target, e);
            // This file's backup goes back too (a file renamed aside must return); with no
            // previous file there is nothing to undo.
            if backup.is_some() {
                swapped.push(Swapped { target, backup });
            }
            failure = Some(cause);
            break;
        }
        swapped.push(Swapped { target, backup });
    }
    // The staged files not reached were dropped with the loop's iterator: deleted.
    match failure {
        None => {
            // 4. Every file is in place: the backups are deleted as they drop.
            drop(swapped);
            Ok(())
        }
        Some(cause) => {
            // 3. Put back what was swapped.
            let problems = roll_back(swapped);
            if problems.is_empty() {
                Err(cause)
            } else {
                Err(FrameError::Incomplete {
                    cause: Box::new(cause),
                    problems,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        assert!(is_file_name("image.png"));
        for bad in ["", ".", "..", "a/b", "a\\b", "a\0", "c:x", "a\nb"] {
            assert!(!is_file_name(bad), "{bad:?}");
        }
    }
}
