//! # kiln-studio
//!
//! Kiln Studio: a graph file drawn, edited and cooked live in a browser. [`Studio::start`]
//! serves, on a loopback address unless asked otherwise, a page (its HTML, script and style
//! embedded in the binary: no build step, no network) that draws the graph with its typed
//! ports and wires, a preview on every node, an inspector with a widget per param and
//! input, and a searchable list of ops; every edit made there is saved back to the graph
//! file atomically, and an edit made to the file by another program shows up in the page.
//!
//! The studio knows no domain: it is given the [`Registry`] to cook with, and makes its
//! previews through [`kiln_io::preview`].
//!
//! * [`project`]: the file under edit on disk, over kiln-doc's edit model
//!   ([`kiln_doc::edit`]: the edits the page sends, undo and redo, the house style), each
//!   change passed to the cook as the edit it was;
//! * [`cook`]: the cook thread over a [`kiln::Project`] and its [`kiln::Live`] state: only the
//!   newest version is cooked, a newer edit cancels the cook in progress; [`estimate`]: the
//!   time left in a long cook, from past timings of the same nodes;
//! * [`view`] and [`layout`]: what the page draws; [`previews`]: previews by content;
//!   [`audio`]: outputs fed by signals rendered for a stretch of sound;
//! * [`server`], [`guard`] and [`files`]: the routes, who may use them, which files.
#![deny(missing_docs)]

// The file: loading, the project it edits, the view drawn, the layout.
pub mod layout;
pub mod load;
pub mod project;
pub mod view;

// Cooking: the cook thread, estimates, previews, sound.
pub mod audio;
pub mod cook;
pub mod estimate;
pub mod previews;

// Serving: the server, its state, files, the request guard, errors.
pub mod error;
pub mod files;
pub mod guard;
pub mod server;
pub mod state;

pub use error::StudioError;

use kiln_core::registry::Registry;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What to serve, and where.
#[derive(Clone, Debug)]
pub struct StudioConfig {
    /// The graph file.
    pub graph: PathBuf,
    /// Where each cook's outputs are written (as `kiln watch` writes them), if anywhere.
    pub out: Option<PathBuf>,
    /// The colour space of the image outputs written into `out` (by default the graph
    /// file's `"color"` of each, else sRGB).
    pub out_colours: kiln::OutColours,
    /// The file format of the image outputs written into `out` (8-bit PNG by default).
    pub out_image: kiln_io::image_files::ImageFormat,
    /// The address to listen on (loopback by default).
    pub host: IpAddr,
    /// The port (0: any free one).
    pub port: u16,
    /// Folders searched for called graphs after the graph's own.
    pub libs: Vec<PathBuf>,
    /// How often the files are looked at for edits made elsewhere.
    pub poll: Duration,
}

impl StudioConfig {
    /// Serve `graph` on 127.0.0.1, port 0.
    pub fn new(graph: impl Into<PathBuf>) -> StudioConfig {
        StudioConfig {
            graph: graph.into(),
            out: None,
            out_colours: kiln::OutColours::default(),
            out_image: kiln_io::image_files::ImageFormat::Png8,
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            libs: vec![],
            poll: Duration::from_millis(250),
        }
    }
}

/// A running studio; dropping it stops the server.
pub struct Studio {
    addr: SocketAddr,
    runtime: Option<tokio::runtime::Runtime>,
    stop: Arc<AtomicBool>,
}

impl Studio {
    /// Open the graph file and serve it.
    pub fn start(config: StudioConfig, registry: Registry) -> Result<Studio, StudioError> {
        let graph = config.graph.canonicalize().map_err(|e| StudioError::Read {
            path: config.graph.clone(),
            message: e.to_string(),
        })?;
        let dir = graph
            .parent()
            .map_or_else(|| PathBuf::from("."), PathBuf::from);
        let out = match &config.out {
            Some(o) => {
                std::fs::create_dir_all(o).map_err(|e| StudioError::Read {
                    path: o.clone(),
                    message: format!("cannot create the output folder: {e}"),
                })?;
                Some(o.canonicalize().map_err(|e| StudioError::Read {
                    path: o.clone(),
                    message: e.to_string(),
                })?)
            }
            None => None,
        };
        let mut open = kiln::OpenOptions::new().registry(registry.clone());
        for l in &config.libs {
            open = open.lib(l);
        }
        let loader = load::Loader {
            registry,
            dir,
            libs: kiln_doc::assets::LibraryPath::with_env(&config.libs),
            open,
        };
        let check = |t: &str| loader.check(t);
        let project =
            project::Project::open(&graph, &check)?.with_registry(loader.registry.clone());
        let want = SocketAddr::new(config.host, config.port);
        let serve_err = |e: std::io::Error| StudioError::Serve {
            addr: want.to_string(),
            message: e.to_string(),
        };
        let listener = std::net::TcpListener::bind(want).map_err(serve_err)?;
        listener.set_nonblocking(true).map_err(serve_err)?;
        let addr = listener.local_addr().map_err(serve_err)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(serve_err)?;
        let shared = state::Shared::new(
            loader,
            project,
            guard::allowed_hosts(addr),
            out,
            config.out_colours.clone(),
            config.out_image,
        );
        let app = server::router(shared.clone());
        let listener = {
            let _guard = runtime.enter();
            tokio::net::TcpListener::from_std(listener).map_err(serve_err)?
        };
        // Small messages (an edit, a `cooked` event) go out at once, not after a delayed ACK.
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        runtime.spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                eprintln!("kiln studio: the server stopped: {e}");
            }
        });
        let stop = Arc::new(AtomicBool::new(false));
        {
            let stop = stop.clone();
            let poll = config.poll;
            std::thread::Builder::new()
                .name("kiln-studio-watch".into())
                .spawn(move || {
                    while !stop.load(Ordering::SeqCst) {
                        std::thread::sleep(poll);
                        shared.poll();
                    }
                })
                .map_err(serve_err)?;
        }
        Ok(Studio {
            addr,
            runtime: Some(runtime),
            stop,
        })
    }

    /// The address served.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's address, `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Serve until the process ends.
    pub fn wait(mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.block_on(std::future::pending::<()>());
        }
    }
}

impl Drop for Studio {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}
