//! The layering of the workspace is a test: each crate may depend only on the crates of
//! the layers beneath it (`docs/architecture.md`, "What each crate must not know"). The
//! dependency graph is read from `cargo metadata`, so a forbidden dependency added to any
//! `Cargo.toml` fails here.

use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;

/// Which workspace crates each workspace crate may depend on (normal and build
/// dependencies; tests may reach further, through dev-dependencies).
fn allowed() -> BTreeMap<&'static str, &'static [&'static str]> {
    // macros ← core ← std ← domains ← io ← doc ← lower ← kiln (the Project API) ← front
    // ends: each layer may use every crate before it in this order.
    static ORDER: [&str; 11] = [
        "kiln-macros",
        "kiln-core",
        "kiln-std",
        "kiln-image",
        "kiln-audio",
        "kiln-mesh",
        "kiln-sim",
        "kiln-io",
        "kiln-doc",
        "kiln-lower",
        "kiln",
    ];
    let beneath = |krate: &str| -> &'static [&'static str] {
        let at = ORDER
            .iter()
            .position(|c| *c == krate)
            .unwrap_or(ORDER.len());
        &ORDER[..at]
    };
    static CLI: [&str; 11] = [
        "kiln-core",
        "kiln-std",
        "kiln-image",
        "kiln-audio",
        "kiln-mesh",
        "kiln-sim",
        "kiln-io",
        "kiln-doc",
        "kiln-lower",
        "kiln",
        "kiln-studio",
    ];
    BTreeMap::from([
        // The `#[op]` attribute knows no Kiln crate: it only writes code naming kiln_core.
        ("kiln-macros", beneath("kiln-macros")),
        // The engine knows no domain, format or document.
        ("kiln-core", beneath("kiln-core")),
        // The standard nodes sit on the engine alone.
        ("kiln-std", beneath("kiln-std")),
        // Domains sit on the engine and the standard nodes; meshes and simulations read
        // images, the domain everything is looked at through.
        ("kiln-image", beneath("kiln-image")),
        ("kiln-audio", &["kiln-core", "kiln-std"][..]),
        ("kiln-mesh", &["kiln-core", "kiln-std", "kiln-image"][..]),
        ("kiln-sim", &["kiln-core", "kiln-std", "kiln-image"][..]),
        // Files of values sit on the domains.
        ("kiln-io", beneath("kiln-io")),
        // The edit model (graph-file text, documents, calls, edits) sits on the files.
        ("kiln-doc", beneath("kiln-doc")),
        // Lowering writes documents out into flat graphs; it knows no front end.
        ("kiln-lower", beneath("kiln-lower")),
        // The Project API sits on lowering, documents, files and domains.
        ("kiln", beneath("kiln")),
        // Front ends: the studio knows no domain; the command knows everything beneath it.
        (
            "kiln-studio",
            &["kiln-core", "kiln-io", "kiln-doc", "kiln-lower", "kiln"][..],
        ),
        ("kiln-cli", &CLI[..]),
        // Benchmarks measure the engine, the domains and lowering; no front end.
        ("kiln-bench", beneath("kiln")),
    ])
}

/// Every forbidden dependency of `metadata` (the JSON of `cargo metadata --no-deps`), as
/// `from -> to` lines; a workspace crate missing from the table is reported too.
fn violations(metadata: &Value) -> Vec<String> {
    let allowed = allowed();
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    let members: Vec<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut found = vec![];
    for p in &packages {
        let Some(name) = p["name"].as_str() else {
            continue;
        };
        let Some(ok) = allowed.get(name) else {
            found.push(format!("{name}: not in the layering table"));
            continue;
        };
        for d in p["dependencies"].as_array().into_iter().flatten() {
            let to = d["name"].as_str().unwrap_or_default();
            let dev = d["kind"].as_str() == Some("dev");
            if members.contains(&to) && !dev && !ok.contains(&to) {
                found.push(format!("{name} -> {to}"));
            }
        }
    }
    found
}

fn metadata() -> Value {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata gives JSON")
}

#[test]
fn every_crate_depends_only_on_the_layers_beneath_it() {
    let m = metadata();
    let found = violations(&m);
    assert!(found.is_empty(), "forbidden dependencies: {found:#?}");
    // Every crate of the table is in the workspace (a renamed crate updates the table).
    let names: Vec<&str> = m["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["name"].as_str())
        .collect();
    for name in allowed().keys() {
        assert!(names.contains(name), "{name} is not in the workspace");
    }
}

#[test]
fn a_forbidden_dependency_is_found() {
    let mut m = metadata();
    let packages = m["packages"].as_array_mut().expect("packages");
    let core = packages
        .iter_mut()
        .find(|p| p["name"] == "kiln-core")
        .expect("kiln-core");
    core["dependencies"]
        .as_array_mut()
        .expect("dependencies")
        .push(serde_json::json!({"name": "kiln-io", "kind": null}));
    let studio = packages
        .iter_mut()
        .find(|p| p["name"] == "kiln-studio")
        .expect("kiln-studio");
    studio["dependencies"]
        .as_array_mut()
        .expect("dependencies")
        .push(serde_json::json!({"name": "kiln-image", "kind": null}));
    assert_eq!(
        violations(&m),
        ["kiln-core -> kiln-io", "kiln-studio -> kiln-image"]
    );
}

#[test]
fn the_patched_boolmesh_is_a_dependency_of_kiln_mesh_not_a_workspace_patch() {
    // A `[patch]` applies only inside this workspace; a crate that depends on Kiln would get
    // crates.io's boolmesh, whose booleans are not deterministic. kiln-mesh names the patched
    // copy itself, by path (for path dependents) and by version (for published ones).
    let m = metadata();
    let mesh = m["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "kiln-mesh")
        .expect("kiln-mesh");
    let dep = mesh["dependencies"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|d| d["rename"] == "boolmesh" || d["name"] == "boolmesh")
        .expect("kiln-mesh depends on boolmesh");
    assert_eq!(dep["name"], "kiln-boolmesh", "{dep}");
    assert_eq!(dep["req"], "^0.2.2", "{dep}");
    let path = dep["path"].as_str().expect("a path dependency");
    assert!(path.ends_with("vendor/boolmesh"), "{path}");
    let root = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml"))
        .expect("the root manifest");
    assert!(
        !root.contains("[patch"),
        "no workspace patch of a dependency"
    );
}

#[test]
fn the_engine_holds_no_document_lowering_or_dsp() {
    // kiln-core is the engine and only the engine: documents, lowering, flow, the step
    // solver, curves and sessions are kiln-lower's; the resampler's DSP is kiln-audio's.
    let core = concat!(env!("CARGO_MANIFEST_DIR"), "/../kiln-core/src");
    let lib = std::fs::read_to_string(format!("{core}/lib.rs")).expect("kiln-core's lib.rs");
    for m in ["doc", "lower", "flow", "solver", "anim", "session"] {
        assert!(
            !lib.contains(&format!("mod {m};")),
            "kiln-core declares `{m}`"
        );
        assert!(
            !std::path::Path::new(&format!("{core}/{m}")).exists(),
            "kiln-core has a `{m}` folder"
        );
    }
    let mut stack = vec![std::path::PathBuf::from(core)];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("a source folder").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).expect("a source file");
                assert!(
                    !text.contains("struct Resampler") && !text.contains("fn kernel_row"),
                    "{} holds resampler DSP",
                    p.display()
                );
            }
        }
    }
}

#[test]
fn graph_text_is_read_in_one_crate() {
    // kiln-doc holds the one reader and writer of graph files; neither the files beneath it
    // nor lowering above it holds another.
    let crates = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    for (krate, m) in [
        ("kiln-io", "graph_file"),
        ("kiln-io", "assets"),
        ("kiln-lower", "doc"),
        ("kiln-lower", "graph_file"),
    ] {
        let lib = std::fs::read_to_string(format!("{crates}/{krate}/src/lib.rs")).expect("lib.rs");
        assert!(
            !lib.contains(&format!("mod {m};")),
            "{krate} declares `{m}`"
        );
    }
    let doc = std::fs::read_to_string(format!("{crates}/kiln-doc/src/lib.rs")).expect("lib.rs");
    for m in ["document", "graph_file", "assets", "edit"] {
        assert!(
            doc.contains(&format!("pub mod {m};")),
            "kiln-doc lacks `{m}`"
        );
    }
}
