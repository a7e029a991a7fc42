//! The HTTP and WebSocket server: the page, the API and the previews (routes in
//! [`router`]), every request past the [`guard`](crate::guard).
//!
//! | route | what |
//! | --- | --- |
//! | `GET /` , `/app.js`, `/app.css` | the page (embedded in the binary) |
//! | `GET /api/state` | the graph view, its version, the last cook |
//! | `GET /api/ops` | every op with its docs, ports and params |
//! | `GET /preview/HASH.png` | a preview by content (cached for good by the browser) |
//! | `GET /files/graph/PATH`, `/files/out/PATH` | a file under the graph's or the output folder |
//! | `GET /ws` | the WebSocket: edits in, graph views, cooks and progress out |

use crate::state::Shared;
use axum::Router;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use kiln_doc::edit::FileEdit;
use serde_json::{Value as Json, json};
use std::sync::Arc;

/// The page.
const INDEX: &str = include_str!("../assets/index.html");
/// Its script.
const APP_JS: &str = include_str!("../assets/app.js");
/// Its style.
const APP_CSS: &str = include_str!("../assets/app.css");

/// The routes of the studio over `shared`.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { page(INDEX, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { page(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/app.css",
            get(|| async { page(APP_CSS, "text/css; charset=utf-8") }),
        )
        .route("/api/state", get(api_state))
        .route("/api/ops", get(api_ops))
        .route("/preview/{name}", get(preview))
        .route("/files/{root}/{*path}", get(file))
        .route("/ws", get(ws))
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .with_state(shared)
}

fn page(body: &'static str, mime: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, mime),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn guard(State(s): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    let h = req.headers();
    let text = |name: header::HeaderName| h.get(name).and_then(|v| v.to_str().ok());
    let fetch_site = text(header::HeaderName::from_static("sec-fetch-site"));
    if !crate::guard::allowed(
        text(header::HOST),
        text(header::ORIGIN),
        fetch_site,
        &s.hosts,
    ) {
        return (
            StatusCode::FORBIDDEN,
            "refused: the Host or Origin is not this studio's own address, or another site's page made the request\n",
        )
            .into_response();
    }
    next.run(req).await
}

async fn api_state(State(s): State<Arc<Shared>>) -> Response {
    let body = json!({"graph": s.graph_message(), "cooked": s.last_cook_json()});
    json_response(&body)
}

async fn api_ops(State(s): State<Arc<Shared>>) -> Response {
    json_response(&s.catalog)
}

fn json_response(v: &Json) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], v.to_string()).into_response()
}

async fn preview(State(s): State<Arc<Shared>>, UrlPath(name): UrlPath<String>) -> Response {
    match s.previews.get(&name) {
        Some(f) => (
            [
                (header::CONTENT_TYPE, f.mime),
                (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
            ],
            f.bytes.as_ref().clone(),
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "no such preview\n").into_response(),
    }
}

async fn file(
    State(s): State<Arc<Shared>>,
    UrlPath((root, path)): UrlPath<(String, String)>,
) -> Response {
    let base = match root.as_str() {
        "graph" => Some(s.dir.clone()),
        "out" => s.out.clone(),
        _ => None,
    };
    let Some(full) = base.and_then(|b| crate::files::confined(&b, &path)) else {
        return (
            StatusCode::FORBIDDEN,
            "refused: not a file under the graph's or the output folder\n",
        )
            .into_response();
    };
    // Opened without blocking and checked as opened, on a blocking thread, a few at once.
    let mime = crate::files::mime(&full);
    match s.file_reads.open(full).await {
        Ok(f) => {
            // The body is the file's chunks as they are read: a request holds a few chunks,
            // whatever the file's size.
            let chunks = futures_util::stream::unfold(f.chunks, |mut rx| async move {
                rx.recv().await.map(|chunk| (chunk, rx))
            });
            (
                [
                    (header::CONTENT_TYPE, mime.to_string()),
                    (header::CONTENT_LENGTH, f.len.to_string()),
                ],
                axum::body::Body::from_stream(chunks),
            )
                .into_response()
        }
        Err(e) => (StatusCode::NOT_FOUND, format!("{e}\n")).into_response(),
    }
}

async fn ws(
    State(s): State<Arc<Shared>>,
    _headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    upgrade.on_upgrade(move |socket| session(socket, s))
}

/// One page's WebSocket: the current state first, then every event, and its edits in.
async fn session(mut socket: WebSocket, s: Arc<Shared>) {
    let mut events = s.events.subscribe();
    let hello = s.graph_message().to_string();
    if socket.send(Message::Text(hello.into())).await.is_err() {
        return;
    }
    if let Some(c) = s.last_cook_text()
        && socket.send(Message::Text(c.into())).await.is_err()
    {
        return;
    }
    loop {
        tokio::select! {
            msg = socket.recv() => {
                let Some(Ok(msg)) = msg else { return };
                let Message::Text(text) = msg else { continue };
                if let Some(reply) = handle(&s, text.as_str()).await
                    && socket.send(Message::Text(reply.to_string().into())).await.is_err()
                {
                    return;
                }
            }
            ev = events.recv() => {
                match ev {
                    Ok(text) => {
                        if socket.send(Message::Text(text.into())).await.is_err() {
                            return;
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        // Too slow a reader: send the state as it is now instead.
                        let now = s.graph_message().to_string();
                        if socket.send(Message::Text(now.into())).await.is_err() {
                            return;
                        }
                    }
                    Err(_) => return,
                }
            }
        }
    }
}

/// A message from the page: an edit, `undo` or `redo`; the reply for the sender alone
/// (an error), if any.
async fn handle(s: &Arc<Shared>, text: &str) -> Option<Json> {
    let msg: Json = match serde_json::from_str(text) {
        Ok(m) => m,
        Err(e) => return Some(json!({"type": "error", "message": format!("not JSON: {e}")})),
    };
    let id = msg.get("id").cloned().unwrap_or(Json::Null);
    let kind = msg.get("type").and_then(Json::as_str).unwrap_or("");
    let s2 = s.clone();
    let result = match kind {
        "seek" => {
            let frame = msg.get("frame").and_then(Json::as_u64).unwrap_or(0);
            let fps = msg
                .get("fps")
                .and_then(Json::as_f64)
                .unwrap_or(crate::cook::DEFAULT_FPS);
            tokio::task::spawn_blocking(move || s2.seek(frame, fps)).await
        }
        "undo" | "redo" => {
            let redo = kind == "redo";
            tokio::task::spawn_blocking(move || s2.step(redo)).await
        }
        _ => match serde_json::from_value::<FileEdit>(msg.clone()) {
            Ok(edit) => tokio::task::spawn_blocking(move || s2.edit(&edit)).await,
            Err(e) => {
                return Some(json!({"type": "error", "id": id,
                    "message": format!("not an edit: {e}")}));
            }
        },
    };
    match result {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(json!({"type": "error", "id": id, "message": e.to_string()})),
        Err(e) => Some(json!({"type": "error", "id": id, "message": e.to_string()})),
    }
}
