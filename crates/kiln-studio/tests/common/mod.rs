//! What the studio's tests share: the every-domain registry, a studio on a copy of an
//! example, a raw HTTP client (so the tests choose the Host and Origin headers) and a
//! WebSocket client that waits for a message of a kind.
#![allow(dead_code)]

use kiln_core::registry::Registry;
use kiln_studio::{Studio, StudioConfig};
use serde_json::Value as Json;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::{self, Message, stream::MaybeTlsStream};

/// Every op the `kiln` command knows (the studio is given its registry).
pub fn registry() -> Registry {
    let mut reg = kiln_image::registry();
    kiln_audio::register(&mut reg).unwrap();
    kiln_mesh::register(&mut reg).unwrap();
    kiln_sim::register(&mut reg).unwrap();
    reg
}

/// The examples folder.
pub fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// A folder holding a copy of example `name` (and the examples' `lib` folder).
pub fn copy_example(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = examples();
    std::fs::copy(src.join(name), dir.path().join(name)).unwrap();
    std::fs::create_dir(dir.path().join("lib")).unwrap();
    for e in std::fs::read_dir(src.join("lib")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.path().join("lib").join(e.file_name())).unwrap();
    }
    let path = dir.path().join(name);
    (dir, path)
}

/// A folder holding `text` as `graph.json`.
pub fn graph_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("graph.json");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// A studio on `path`, polling the file every 50 ms.
pub fn studio(path: &Path, out: Option<&Path>) -> Studio {
    let mut c = StudioConfig::new(path);
    c.poll = Duration::from_millis(50);
    c.out = out.map(Path::to_path_buf);
    Studio::start(c, registry()).unwrap()
}

/// An HTTP response.
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> Json {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// `GET path` with these headers (`Host` first; none added).
pub fn get_with(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Response {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut req = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = vec![];
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut body = raw[split + 4..].to_vec();
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Response {
        status,
        headers,
        body,
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = vec![];
    loop {
        let Some(nl) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(std::str::from_utf8(&b[..nl]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[nl + 2..nl + 2 + size]);
        b = &b[nl + 2 + size + 2..];
    }
}

/// `GET path` as a page of the studio would send it.
pub fn get(addr: SocketAddr, path: &str) -> Response {
    let host = addr.to_string();
    get_with(addr, path, &[("Host", &host)])
}

/// A WebSocket client of the studio.
pub struct Client {
    socket: tungstenite::WebSocket<MaybeTlsStream<TcpStream>>,
    /// Every message received, in order.
    pub seen: Vec<Json>,
}

impl Client {
    pub fn connect(addr: SocketAddr) -> Client {
        let (socket, _) = tungstenite::connect(format!("ws://{addr}/ws")).unwrap();
        if let MaybeTlsStream::Plain(s) = socket.get_ref() {
            s.set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
        }
        Client {
            socket,
            seen: vec![],
        }
    }

    pub fn send(&mut self, msg: Json) {
        self.socket.send(Message::text(msg.to_string())).unwrap();
    }

    /// The next message for which `pred` holds (within `secs` seconds).
    pub fn wait(&mut self, secs: u64, pred: impl Fn(&Json) -> bool) -> Json {
        let end = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < end {
            match self.socket.read() {
                Ok(Message::Text(t)) => {
                    let j: Json = serde_json::from_str(t.as_str()).unwrap();
                    self.seen.push(j.clone());
                    if pred(&j) {
                        return j;
                    }
                }
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => panic!("websocket: {e}"),
            }
        }
        panic!(
            "no such message within {secs} s; seen: {:#?}",
            self.seen
                .iter()
                .map(|m| m["type"].clone())
                .collect::<Vec<_>>()
        );
    }

    /// The next `cooked` message (of a version at least `version`).
    pub fn cooked(&mut self, version: u64) -> Json {
        self.wait(120, |m| {
            m["type"] == "cooked" && m["version"].as_u64() >= Some(version)
        })
    }

    /// The next `graph` message.
    pub fn graph(&mut self) -> Json {
        self.wait(30, |m| m["type"] == "graph")
    }
}

/// The status of `node` in a `cooked` message.
pub fn status<'a>(cooked: &'a Json, node: &str) -> &'a str {
    cooked["nodes"][node]["status"].as_str().unwrap_or("absent")
}
