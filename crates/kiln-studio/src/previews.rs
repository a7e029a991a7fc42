//! Previews by content: a heavy value's thumbnail is made once per content hash and served
//! at `/preview/HASH.png`, a URL that never changes meaning, so the browser caches it and a
//! node whose value did not change costs neither an encode nor a download.

use kiln_core::value::Value;
use kiln_io::preview::{Preview, preview};
use serde_json::{Value as Json, json};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// The longer side of a thumbnail, in pixels.
pub const THUMBNAIL_SIDE: u32 = 192;
/// The most bytes of previews kept (the oldest go first).
pub const MAX_PREVIEW_BYTES: usize = 256 << 20;

/// A preview file.
#[derive(Clone, Debug)]
pub struct PreviewFile {
    /// Its bytes.
    pub bytes: Arc<Vec<u8>>,
    /// Its media type.
    pub mime: &'static str,
}

#[derive(Default)]
struct Store {
    files: HashMap<String, PreviewFile>,
    order: VecDeque<String>,
    bytes: usize,
}

/// The previews made so far, by name (`HASH.png`).
#[derive(Default)]
pub struct Previews {
    store: Mutex<Store>,
}

impl Previews {
    /// The preview file named `name`, if it is kept.
    pub fn get(&self, name: &str) -> Option<PreviewFile> {
        self.store.lock().ok()?.files.get(name).cloned()
    }

    /// Keep `file` under `name` (dropping the oldest past the budget).
    pub fn put(&self, name: String, file: PreviewFile) {
        let Ok(mut s) = self.store.lock() else { return };
        if s.files.contains_key(&name) {
            return;
        }
        s.bytes += file.bytes.len();
        s.order.push_back(name.clone());
        s.files.insert(name, file);
        while s.bytes > MAX_PREVIEW_BYTES && s.order.len() > 1 {
            if let Some(old) = s.order.pop_front()
                && let Some(f) = s.files.remove(&old)
            {
                s.bytes -= f.bytes.len();
            }
        }
    }

    /// What the page shows for `value`: `{"kind": "image", "url", "width", "height"}`,
    /// `{"kind": "color", "hex", "text"}`, `{"kind": "text", "text"}`, or
    /// `{"kind": "none"}`.
    pub fn preview_json(&self, value: &Value) -> Json {
        if let Value::Heavy(h) = value {
            let name = format!("{}-{THUMBNAIL_SIDE}.png", h.content_hash().to_hex());
            if let Some(f) = self.get(&name)
                && let Some((w, hgt)) = png_size(&f.bytes)
            {
                return json!({"kind": "image", "url": format!("/preview/{name}"), "width": w,
                    "height": hgt, "type": h.type_name()});
            }
            return match preview(value, THUMBNAIL_SIDE) {
                Ok(Some(Preview::Png {
                    bytes,
                    width,
                    height,
                })) => {
                    self.put(
                        name.clone(),
                        PreviewFile {
                            bytes: Arc::new(bytes),
                            mime: "image/png",
                        },
                    );
                    json!({"kind": "image", "url": format!("/preview/{name}"), "width": width,
                        "height": height, "type": h.type_name()})
                }
                Ok(Some(Preview::Text(t))) => json!({"kind": "text", "text": t}),
                Ok(None) => json!({"kind": "none"}),
                Err(e) => json!({"error": e.to_string()}),
            };
        }
        if let Value::Color(_) = value {
            return json!({"kind": "color", "hex": crate::view::value_json(value),
            "text": preview(value, THUMBNAIL_SIDE).ok().flatten().map(|p| match p {
                Preview::Text(t) => t,
                Preview::Png { .. } => String::new(),
            })});
        }
        match preview(value, THUMBNAIL_SIDE) {
            Ok(Some(Preview::Text(t))) => json!({"kind": "text", "text": t}),
            Ok(Some(Preview::Png { .. })) | Ok(None) => json!({"kind": "none"}),
            Err(e) => json!({"error": e.to_string()}),
        }
    }
}

/// The width and height a PNG's header declares.
pub fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" {
        return None;
    }
    let w = u32::from_be_bytes(bytes[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(bytes[20..24].try_into().ok()?);
    Some((w, h))
}
