//! Leftover temporary files of processes that died while writing.
//!
//! Every temporary file this crate makes beside a destination is named
//! `.kiln-<pid>-<random><suffix>`: `<pid>` is the id of the process writing it, `<random>`
//! six letters and digits. A process that is killed (`kill -9`, a power cut) cannot remove
//! its files; [`remove_dead_leftovers`] removes them on a later run into the same folder.
//!
//! Only files that are certainly garbage are removed:
//!
//! * the name matches the pattern exactly, with one of the suffixes `.tmp` (a file being
//!   written, never renamed into place) or `.bak` (a hard-linked backup of a frame commit:
//!   the file it backs up was either still in place or already replaced by a whole new
//!   file);
//! * it is a regular file (not a folder, link or special file);
//! * the process it names is known not to be running: on Linux, `/proc/<pid>` is missing
//!   while `/proc` itself is mounted. Where liveness cannot be told (no `/proc`, another
//!   system), nothing is removed.
//!
//! Anything else stays: other names, folders, links, files of live processes (this one
//! included), and the backups that may be the only copy of a previous file (`.aside`, a file
//! renamed aside where hard links are not possible; `.kept`, a backup a failed rollback
//! kept).
//!
//! ```
//! use kiln_io::leftovers::leftover_pid;
//!
//! assert_eq!(leftover_pid(".kiln-4242-a1B2c3.tmp"), Some(4242));
//! assert_eq!(leftover_pid(".kiln-4242-a1B2c3.bak"), Some(4242));
//! assert_eq!(leftover_pid(".kiln-4242-a1B2c3.kept"), None);
//! assert_eq!(leftover_pid("frame.tmp"), None);
//! ```

use crate::files::{RANDOM_LEN, TEMP_PREFIX as PREFIX};
use std::path::{Path, PathBuf};

/// The suffixes of the temporary files that are garbage once their process is gone.
const SWEPT_SUFFIXES: [&str; 2] = [".tmp", ".bak"];

/// The pid in `name` if it is the name of a removable temporary file
/// (`.kiln-<pid>-<random>.tmp` or `.bak`); `None` for any other name.
pub fn leftover_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let stem = SWEPT_SUFFIXES
        .iter()
        .find_map(|suffix| rest.strip_suffix(suffix))?;
    let (pid, random) = stem.split_once('-')?;
    let digits_only = !pid.is_empty() && pid.len() <= 10 && pid.bytes().all(|b| b.is_ascii_digit());
    let random_ok = random.len() == RANDOM_LEN && random.bytes().all(|b| b.is_ascii_alphanumeric());
    if !digits_only || !random_ok {
        return None;
    }
    pid.parse().ok()
}

/// Whether process `pid` is running: `Some(true)` or `Some(false)` where that can be told,
/// `None` where it cannot.
pub fn process_alive(pid: u32) -> Option<bool> {
    if pid == std::process::id() {
        return Some(true);
    }
    if cfg!(target_os = "linux") && Path::new("/proc/self").exists() {
        return Some(std::fs::symlink_metadata(format!("/proc/{pid}")).is_ok());
    }
    None
}

/// Remove from the folder `dir` the temporary files of processes that are not running (see
/// the module docs for exactly which files); the paths removed. A missing folder has none.
/// Files that vanish meanwhile, or cannot be removed, are skipped: only listing the folder
/// can fail.
pub fn remove_dead_leftovers(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => return Err(e),
    };
    let mut removed = vec![];
    for entry in entries {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(leftover_pid) else {
            continue;
        };
        if process_alive(pid) != Some(false) {
            continue;
        }
        let path = entry.path();
        // A regular file, not followed through a link.
        let is_file = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
        if is_file && std::fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed.sort();
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_pattern_names_a_pid() {
        assert_eq!(leftover_pid(".kiln-1-abcdef.tmp"), Some(1));
        assert_eq!(leftover_pid(".kiln-99999-ABC123.bak"), Some(99999));
        for other in [
            ".kiln-abcdef.tmp",
            ".kiln--abcdef.tmp",
            ".kiln-12-abcde.tmp",
            ".kiln-12-abcdefg.tmp",
            ".kiln-12-abc$ef.tmp",
            ".kiln-12-abcdef.tmpx",
            ".kiln-12-abcdef.aside",
            ".kiln-12-abcdef.kept",
            ".kiln-1x-abcdef.tmp",
            ".kiln-99999999999-abcdef.tmp",
            "kiln-12-abcdef.tmp",
            "out.tmp",
            "",
        ] {
            assert_eq!(leftover_pid(other), None, "{other}");
        }
    }

    #[test]
    fn the_names_this_process_makes_carry_its_pid() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = crate::files::temp_for(&dir.path().join("x")).unwrap();
        let name = tmp
            .path()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        assert_eq!(leftover_pid(&name), Some(std::process::id()), "{name}");
        // This process is alive: its file stays.
        assert!(remove_dead_leftovers(dir.path()).unwrap().is_empty());
        assert!(tmp.path().exists());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn files_of_an_exited_process_go_and_nothing_else_does() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let me = std::process::id();
        let dir = tempfile::tempdir().unwrap();
        let put = |name: &str| std::fs::write(dir.path().join(name), b"x").unwrap();
        let garbage = [
            format!(".kiln-{dead}-aaaaaa.tmp"),
            format!(".kiln-{dead}-bbbbbb.bak"),
        ];
        let kept = [
            format!(".kiln-{me}-aaaaaa.tmp"),
            format!(".kiln-{dead}-cccccc.aside"),
            format!(".kiln-{dead}-dddddd.kept"),
            format!(".kiln-{dead}-eeeeee.txt"),
            "out.png".to_string(),
        ];
        for name in garbage.iter().chain(&kept) {
            put(name);
        }
        std::fs::create_dir(dir.path().join(format!(".kiln-{dead}-ffffff.tmp"))).unwrap();
        let removed = remove_dead_leftovers(dir.path()).unwrap();
        let mut expected: Vec<PathBuf> = garbage.iter().map(|n| dir.path().join(n)).collect();
        expected.sort();
        assert_eq!(removed, expected);
        for name in &kept {
            assert!(dir.path().join(name).exists(), "{name}");
        }
        assert!(dir.path().join(format!(".kiln-{dead}-ffffff.tmp")).is_dir());
    }
}
