//! Issue 37, item 10: the file route streams a served file in chunks, so many clients
//! downloading a large file at once hold a few chunks each, not the file. One test in its
//! own binary, since it reads the process's resident memory.

mod common;

use common::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// `GET path` read to its end and thrown away as it comes: the bytes received.
fn download(addr: std::net::SocketAddr, path: &str) -> u64 {
    let mut s = TcpStream::connect(addr).expect("the studio answers");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut buf = vec![0u8; 16 << 10];
    let mut total = 0u64;
    loop {
        match s.read(&mut buf) {
            Ok(0) => return total,
            Ok(n) => total += n as u64,
            Err(e) => panic!("the download stopped: {e}"),
        }
    }
}

#[test]
fn concurrent_downloads_of_a_large_file_hold_a_few_chunks_each() {
    let (dir, path) = copy_example("marble.json");
    let size: u64 = 48 << 20;
    std::fs::write(dir.path().join("big.bin"), vec![7u8; size as usize]).unwrap();
    let s = studio(&path, None);
    let addr = s.addr();
    // Warm up (the server's threads and buffers), then measure from here.
    assert!(download(addr, "/files/graph/big.bin") >= size);
    let base = kiln_core::memory::resident().expect("Linux says what is resident");
    let peak = Arc::new(AtomicU64::new(base));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, done) = (peak.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                if let Some(r) = kiln_core::memory::resident() {
                    peak.fetch_max(r, Ordering::SeqCst);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    let clients: Vec<_> = (0..12)
        .map(|_| std::thread::spawn(move || download(addr, "/files/graph/big.bin")))
        .collect();
    for c in clients {
        // The head and the whole file.
        assert!(c.join().unwrap() >= size);
    }
    done.store(true, Ordering::SeqCst);
    sampler.join().unwrap();
    let grew = peak.load(Ordering::SeqCst).saturating_sub(base);
    // Twelve clients, at most four files read at once: reading them whole held 4 × 48 MB;
    // streamed, each read holds a few 64 KB chunks.
    assert!(grew < 48 << 20, "resident memory grew by {grew} bytes");
}
