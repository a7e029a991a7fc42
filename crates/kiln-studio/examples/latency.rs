//! Edit-to-preview latency of Kiln Studio (a benchmark, not a test): the marble example at
//! 256², 100 edits of its `mix` input sent over the WebSocket as the page sends them, each
//! timed from the message sent to the updated thumbnail of the graph's output fetched over
//! HTTP. Prints the median and the 95th percentile.
//!
//! `cargo run -p kiln-studio --example latency [--release]`

use serde_json::{Value as Json, json};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::{self, Message};

const EDITS: usize = 100;

fn registry() -> kiln_core::registry::Registry {
    let mut reg = kiln_image::registry();
    kiln_audio::register(&mut reg).expect("audio ops");
    kiln_mesh::register(&mut reg).expect("mesh ops");
    kiln_sim::register(&mut reg).expect("sim ops");
    reg
}

fn fetch(addr: SocketAddr, path: &str) -> usize {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_nodelay(true).expect("nodelay");
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut body = vec![];
    s.read_to_end(&mut body).expect("read");
    assert!(body.starts_with(b"HTTP/1.1 200"), "GET {path} failed");
    body.len()
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(examples.join("marble.json")).expect("marble.json");
    let path = dir.path().join("marble.json");
    std::fs::write(&path, text.replace("192", "256")).expect("write");
    let studio = kiln_studio::Studio::start(kiln_studio::StudioConfig::new(&path), registry())
        .expect("studio");
    let addr = studio.addr();
    // As a browser does, the client sends small messages at once (no Nagle delay).
    let tcp = TcpStream::connect(addr).expect("connect");
    tcp.set_nodelay(true).expect("nodelay");
    let (mut ws, _) = tungstenite::client(format!("ws://{addr}/ws"), tcp).expect("websocket");
    let next = |ws: &mut tungstenite::WebSocket<_>| -> Json {
        loop {
            if let Ok(Message::Text(t)) = ws.read() {
                return serde_json::from_str(t.as_str()).expect("json");
            }
        }
    };
    // The first cook.
    let mut version = 0;
    loop {
        let m = next(&mut ws);
        if m["type"] == "cooked" {
            version = m["version"].as_u64().unwrap_or(version);
            break;
        }
    }
    let mut total = vec![];
    let mut cook = vec![];
    for i in 0..EDITS {
        let mix = 0.2 + 0.3 * (i as f64 / EDITS as f64);
        let t0 = Instant::now();
        ws.send(Message::text(
            json!({"type": "set_param", "node": "mix", "param": "default", "value": mix})
                .to_string(),
        ))
        .expect("send");
        version += 1;
        let m = loop {
            let m = next(&mut ws);
            if m["type"] == "cooked" && m["version"].as_u64() == Some(version) {
                break m;
            }
        };
        let url = m["nodes"]["marble"]["ports"]["out"]["url"]
            .as_str()
            .expect("a thumbnail")
            .to_string();
        fetch(addr, &url);
        total.push(t0.elapsed());
        cook.push(Duration::from_secs_f64(
            m["report"]["ms"].as_f64().unwrap_or(0.0) / 1e3,
        ));
    }
    let stats = |v: &mut Vec<Duration>| {
        v.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        (ms(v[v.len() / 2]), ms(v[(v.len() * 95).div_ceil(100) - 1]))
    };
    let (m, p) = stats(&mut total);
    let (cm, cp) = stats(&mut cook);
    println!("marble 256², {EDITS} edits of `mix`, message sent -> thumbnail fetched:");
    println!(
        "  median {m:.1} ms, p95 {p:.1} ms (of which the cook: median {cm:.1} ms, p95 {cp:.1} ms)"
    );
}
