//! A cache directory that holds what the cache never wrote: FIFOs, links to devices,
//! entries that grew. Each is refused without blocking or reading past its header, counted as
//! damaged and replaced. And the size budget: usage and trimming, oldest first.
#![cfg(unix)]

use kiln_core::cache::Backing;
use kiln_core::key::Key;
use kiln_core::value::Value;
use kiln_io::cache::{DiskCache, budget};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, SystemTime};

/// Run `f` on another thread; fail the test if it has not returned within 20 s (a hang).
fn within_watchdog<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("the cache blocked on a special file")
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

fn open(dir: &Path) -> DiskCache {
    DiskCache::open(dir, &kiln_image::registry()).unwrap()
}

/// Put something at the entry path of `key` with `make`, then load and save through it.
fn refused_then_repaired(make: impl FnOnce(&Path)) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let path = open(&root).entry_path(Key(42));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    make(&path);
    let (loaded, stats) = within_watchdog(move || {
        let cache = open(&root);
        let loaded = cache.load(Key(42));
        cache.save(Key(42), &Value::Float(2.5));
        let again = open(&root).load(Key(42));
        (
            loaded.is_some() || again != Some(Value::Float(2.5)),
            cache.stats(),
        )
    });
    assert!(
        !loaded,
        "a special file was returned, or the entry was not repaired"
    );
    assert!(stats.corrupt >= 1, "{stats:?}");
    assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
}

#[test]
fn a_fifo_in_place_of_an_entry_is_damaged_not_waited_for() {
    refused_then_repaired(mkfifo);
}

#[test]
fn a_link_to_dev_zero_is_refused_and_replaced_by_the_entry() {
    refused_then_repaired(|p| std::os::unix::fs::symlink("/dev/zero", p).unwrap());
    assert!(Path::new("/dev/zero").exists());
}

#[test]
fn an_entry_longer_than_its_header_says_is_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let cache = open(dir.path());
    cache.save(Key(7), &Value::Int(3));
    let path = cache.entry_path(Key(7));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(&[0; 4096]);
    std::fs::write(&path, bytes).unwrap();
    assert_eq!(cache.load(Key(7)), None);
    assert_eq!(cache.stats().corrupt, 1);
    assert!(!path.exists());
}

/// Set the modification time of `path` to `secs` after the epoch.
fn set_age(path: &Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
        .unwrap();
}

#[test]
fn trim_removes_the_oldest_entries_until_the_rest_fit() {
    let dir = tempfile::tempdir().unwrap();
    let cache = open(dir.path());
    // Ages out of key order: key 3 is the oldest, then 1, then 2.
    for (key, age) in [(1u128, 2_000), (2, 3_000), (3, 1_000)] {
        cache.save(Key(key), &Value::Int(key as i64));
        set_age(&cache.entry_path(Key(key)), age);
    }
    // Something that is not an entry stays whatever its age.
    let shard = cache.entry_path(Key(1)).parent().unwrap().to_path_buf();
    std::fs::write(shard.join("notes.txt"), b"mine").unwrap();
    let one = std::fs::metadata(cache.entry_path(Key(1))).unwrap().len();
    let usage = budget::disk_usage(dir.path()).unwrap();
    assert_eq!(usage.entries, 3);
    assert_eq!(usage.bytes, 3 * one, "same-sized entries");

    // Room for one and a half entries: the two oldest go.
    let report = budget::trim(dir.path(), one + one / 2).unwrap();
    assert_eq!(report.removed.entries, 2);
    assert_eq!(report.removed.bytes, 2 * one);
    assert_eq!(report.left.entries, 1);
    assert!(!cache.entry_path(Key(3)).exists());
    assert!(!cache.entry_path(Key(1)).exists());
    assert!(cache.entry_path(Key(2)).exists());
    assert!(shard.join("notes.txt").exists());
    // Already under budget: nothing more goes.
    assert_eq!(budget::trim(dir.path(), one).unwrap().removed.entries, 0);
    assert_eq!(budget::disk_usage(dir.path()).unwrap().entries, 1);
}
