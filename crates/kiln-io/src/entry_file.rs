//! Reading an entry file (a cache entry or a blob, both in the format of [`crate::cache`])
//! without trusting what is at its path.
//!
//! * Only a regular file is opened: a FIFO (which would block the open), a device
//!   (`/dev/zero` reads forever), a socket or a folder is refused from its metadata, before
//!   any open. Cache entries refuse symbolic links too (the cache never makes one); blobs may
//!   be links to a regular file.
//! * Once open, the handle is checked again (a regular file, and on Unix the same file that
//!   was checked), so a swap between the check and the open is caught.
//! * The read is bounded by the header: the file's size must be the header plus the payload
//!   length the header declares, and at most one byte more than that is ever read, so a file
//!   that grows meanwhile is caught rather than followed.

use std::fs::{File, FileType, Metadata};
use std::io::Read;
use std::path::Path;

/// The first 8 bytes of every entry file (`01` is the format version).
pub const MAGIC: [u8; 8] = *b"KILNCV01";

/// The size of an entry file's header (magic, length, checksum, key).
pub const HEADER_LEN: usize = 48;

/// Whether an entry file may be a symbolic link (to a regular file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// A link is refused, whatever it points to.
    Refuse,
    /// A link is followed; what it points to must be a regular file.
    Follow,
}

/// Why an entry file could not be read.
#[derive(Debug)]
pub enum EntryReadError {
    /// Nothing is at the path.
    Missing,
    /// Something other than a regular file is at the path (the text says what: "a FIFO").
    NotAFile(&'static str),
    /// The file is not an entry of the size its header declares, or changed while read.
    Damaged(String),
    /// Reading failed.
    Io(std::io::Error),
}

impl std::fmt::Display for EntryReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EntryReadError::Missing => f.write_str("not found"),
            EntryReadError::NotAFile(kind) => write!(f, "not a regular file (it is {kind})"),
            EntryReadError::Damaged(m) => f.write_str(m),
            EntryReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

fn io(e: std::io::Error) -> EntryReadError {
    if e.kind() == std::io::ErrorKind::NotFound {
        EntryReadError::Missing
    } else {
        EntryReadError::Io(e)
    }
}

/// What kind of thing `t` is, for an error ("a FIFO").
pub fn kind_of(t: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a folder"
    } else if t.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Whether `a` and `b` are the metadata of the same file (always, where that cannot be told).
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        true
    }
}

/// The bytes of the entry file at `path` (header and payload), read as the module docs say.
/// The magic and the payload length are checked here; the checksum and key are the caller's
/// ([`check_entry`](crate::cache::check_entry)).
pub fn read_entry_file(path: &Path, links: Links) -> Result<Vec<u8>, EntryReadError> {
    let checked = match links {
        Links::Refuse => std::fs::symlink_metadata(path),
        Links::Follow => std::fs::metadata(path),
    }
    .map_err(io)?;
    if !checked.file_type().is_file() {
        return Err(EntryReadError::NotAFile(kind_of(checked.file_type())));
    }
    let mut file = File::open(path).map_err(io)?;
    let opened = file.metadata().map_err(io)?;
    if !opened.file_type().is_file() {
        return Err(EntryReadError::NotAFile(kind_of(opened.file_type())));
    }
    if !same_file(&checked, &opened) {
        return Err(EntryReadError::Damaged(
            "the file was replaced while being opened".into(),
        ));
    }
    let size = opened.len();
    let mut header = [0u8; HEADER_LEN];
    if size < HEADER_LEN as u64 {
        return Err(EntryReadError::Damaged(format!(
            "the file is {size} bytes, shorter than the {HEADER_LEN}-byte header"
        )));
    }
    file.read_exact(&mut header).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => {
            EntryReadError::Damaged("the file shrank while being read".into())
        }
        _ => io(e),
    })?;
    if header[..8] != MAGIC {
        return Err(EntryReadError::Damaged(
            "not a kiln cache entry (bad magic)".into(),
        ));
    }
    let mut len_bytes = [0u8; 8];
    len_bytes.copy_from_slice(&header[8..16]);
    let declared = u64::from_le_bytes(len_bytes);
    let payload_size = size - HEADER_LEN as u64;
    if declared != payload_size {
        return Err(EntryReadError::Damaged(format!(
            "the header says {declared} payload bytes, the file has {payload_size}"
        )));
    }
    let total = usize::try_from(size)
        .map_err(|_| EntryReadError::Damaged(format!("the file is too large ({size} bytes)")))?;
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(total).map_err(|_| {
        EntryReadError::Io(std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!("no memory for a {size}-byte entry"),
        ))
    })?;
    bytes.extend_from_slice(&header);
    // One byte more than declared: a file that grew is caught, not followed.
    file.take(declared + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() != total {
        return Err(EntryReadError::Damaged(
            "the file changed size while being read".into(),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::encode_entry;
    use kiln_core::key::Key;

    #[test]
    fn an_intact_entry_reads_whole_and_a_wrong_length_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("e.kv");
        let entry = encode_entry(Key(3), b"payload");
        std::fs::write(&path, &entry).unwrap();
        assert_eq!(read_entry_file(&path, Links::Refuse).unwrap(), entry);
        let mut longer = entry.clone();
        longer.push(0);
        std::fs::write(&path, &longer).unwrap();
        let e = read_entry_file(&path, Links::Refuse).unwrap_err();
        assert!(e.to_string().contains("says 7 payload bytes"), "{e}");
        std::fs::write(&path, b"short").unwrap();
        assert!(matches!(
            read_entry_file(&path, Links::Refuse),
            Err(EntryReadError::Damaged(_))
        ));
        assert!(matches!(
            read_entry_file(&dir.path().join("none.kv"), Links::Refuse),
            Err(EntryReadError::Missing)
        ));
    }

    #[cfg(unix)]
    #[test]
    fn links_and_special_files_are_refused_before_any_open() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.kv");
        std::fs::write(&real, encode_entry(Key(1), b"x")).unwrap();
        let link = dir.path().join("link.kv");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let e = read_entry_file(&link, Links::Refuse).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (it is a symbolic link)");
        assert!(read_entry_file(&link, Links::Follow).is_ok());
        let zero = dir.path().join("zero.kv");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let e = read_entry_file(&zero, Links::Follow).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (it is a device)");
        let e = read_entry_file(dir.path(), Links::Follow).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (it is a folder)");
    }
}
