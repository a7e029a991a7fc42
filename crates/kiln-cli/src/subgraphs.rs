//! The graphs `kiln ops` lists beside the ops: those kiln-std ships and the `*.json` files of
//! the library folders (`--lib`, `KILN_PATH`), each with its ports, as a call would see them.

use kiln_core::registry::Registry;
use kiln_doc::document::Interface;
use std::path::PathBuf;

/// Print each callable graph whose name contains `filter`.
pub(crate) fn list_subgraphs(reg: &Registry, filter: Option<&str>, libs: &[PathBuf]) {
    let mut found: Vec<(String, String, Result<kiln_doc::GraphFile, String>)> = vec![];
    for (name, text) in kiln_std::library::GRAPHS {
        let file = kiln_doc::load_graph(text, reg).map_err(|e| e.to_string());
        found.push((name.to_string(), "kiln-std".into(), file));
    }
    for dir in kiln_doc::assets::LibraryPath::with_env(libs).dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if p.extension().is_some_and(|e| e == "json")
                && let Some(stem) = p.file_stem().and_then(|s| s.to_str())
            {
                let file = kiln_doc::read_graph(&p, reg).map_err(|e| e.to_string());
                found.push((stem.to_string(), p.display().to_string(), file));
            }
        }
    }
    for (name, origin, file) in found {
        if filter.is_some_and(|f| !name.contains(f)) {
            continue;
        }
        match file {
            Err(e) => crate::outln!("@{name} (graph, {origin}): cannot load: {e}"),
            Ok(file) => {
                crate::outln!("@{name} (graph, {origin})");
                if let Some(d) = &file.meta.description {
                    crate::outln!("    {d}");
                }
                let iface = Interface::of(&file.graph, reg);
                for i in &iface.inputs {
                    let default = i
                        .default
                        .as_ref()
                        .map(|d| format!("default {}", crate::report::show(d)))
                        .unwrap_or_else(|| "required".into());
                    let doc = file
                        .meta
                        .input_docs
                        .get(&i.name)
                        .cloned()
                        .unwrap_or_default();
                    crate::outln!("    in  {}: {} [{default}] — {doc}", i.name, i.ty);
                }
                for o in &iface.outputs {
                    crate::outln!("    out {}", o.name);
                }
            }
        }
    }
}
