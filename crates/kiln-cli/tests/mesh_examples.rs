//! The mesh examples run through `kiln run` and are what their names say: the rock and
//! every part of the column are closed surfaces (Euler characteristic 2 each), the terrain
//! is one sheet over the noise (1), the scattered rocks are the terrain plus closed rocks
//! centred on points scattered over it. Every glb parses with the `gltf` crate, and passes the Khronos validator
//! (the `gltf-validator` npm package) with no errors when `KILN_GLTF_VALIDATOR` names the
//! folder it is installed in (`.ci/run` installs it).

mod support;

use kiln_mesh::Mesh;
use kiln_mesh::measure::{bounds, euler_characteristic, is_closed_manifold, volume};
use std::path::Path;
use support::{examples, kiln, text, validate};

/// Run `name` writing OBJ, glb and a preview; the mesh read back from the OBJ, and the glb.
fn run(name: &str, output: &str, dir: &Path) -> (Mesh, Vec<u8>) {
    let p = examples().join(format!("{name}.json"));
    let obj = format!("{output}.obj");
    let glb = format!("{output}.glb");
    let o = kiln(
        &[
            "run",
            p.to_str().unwrap(),
            "--out",
            "out",
            "-q",
            "--output",
            &obj,
            "--output",
            &glb,
            "--preview",
        ],
        dir,
    );
    assert!(o.status.success(), "{name}: {:?}", text(&o));
    let out = dir.join("out");
    let preview = std::fs::read(out.join(format!("{output}.preview.png"))).unwrap();
    assert_eq!(&preview[..8], b"\x89PNG\r\n\x1a\n");
    let mesh = kiln_io::mesh_files::decode_obj(&std::fs::read(out.join(&obj)).unwrap()).unwrap();
    let bytes = std::fs::read(out.join(&glb)).unwrap();
    check_glb(&bytes, &mesh, dir, &glb);
    (mesh, bytes)
}

/// The glb parses, holds the mesh's triangles, and its position bounds are the mesh's.
fn check_glb(bytes: &[u8], mesh: &Mesh, dir: &Path, name: &str) {
    let doc = gltf::Gltf::from_slice(bytes).expect("a valid glb");
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let tris: usize = mesh.prims.iter().map(|p| p.count as usize - 2).sum();
    assert_eq!(prim.indices().unwrap().count(), 3 * tris);
    let bb = prim.bounding_box();
    let (lo, hi) = bounds(mesh).unwrap();
    assert_eq!((bb.min, bb.max), (lo.to_array(), hi.to_array()));
    if let Ok(folder) = std::env::var("KILN_GLTF_VALIDATOR") {
        validate(&folder, dir, &dir.join("out").join(name));
    }
}

#[test]
fn the_rock_is_one_closed_lump() {
    let dir = tempfile::tempdir().unwrap();
    let (m, _) = run("rock", "rock", dir.path());
    assert!(is_closed_manifold(&m));
    assert_eq!(euler_characteristic(&m), 2);
    assert_eq!(m.prims.len(), 20 * 64);
    // Lumpy: the points are not all at one distance from the centre.
    let r: Vec<f32> = m.points.iter().map(|p| p.length()).collect();
    let (lo, hi) = r
        .iter()
        .fold((f32::MAX, 0f32), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(hi - lo > 0.2, "{lo}..{hi}");
    assert!(volume(&m) > 0.0);
}

#[test]
fn the_terrain_is_one_sheet_over_the_noise() {
    let dir = tempfile::tempdir().unwrap();
    let (m, _) = run("terrain", "terrain", dir.path());
    assert_eq!((m.points.len(), m.prims.len()), (40 * 40, 39 * 39));
    assert_eq!(euler_characteristic(&m), 1);
    let (lo, hi) = bounds(&m).unwrap();
    assert!(hi.y - lo.y > 1.0, "hardly any relief");
    assert!((hi.x - lo.x - 20.0).abs() < 1e-4);
}

#[test]
fn the_column_is_three_closed_solids_stacked() {
    let dir = tempfile::tempdir().unwrap();
    let (m, _) = run("column", "column", dir.path());
    assert!(is_closed_manifold(&m));
    assert_eq!(euler_characteristic(&m), 6, "plinth, shaft and abacus");
    let (lo, hi) = bounds(&m).unwrap();
    assert!(
        (lo.y + 0.3).abs() < 1e-5 && (hi.y - 4.33).abs() < 1e-4,
        "{lo} {hi}"
    );
}

#[test]
fn the_rocks_lie_scattered_on_the_terrain() {
    let dir = tempfile::tempdir().unwrap();
    let (m, _) = run("scattered_rocks", "scattered", dir.path());
    let ground = 31 * 31;
    let rocks = (m.prims.len() - ground) / 320;
    assert!((10..=30).contains(&rocks), "{rocks} rocks");
    assert_eq!((m.prims.len() - ground) % 320, 0);
    // The ground is a disk, every rock a sphere.
    assert_eq!(euler_characteristic(&m), 1 + 2 * rocks as i64);
}

#[test]
fn a_mesh_input_is_read_from_a_file_and_keyed_by_its_content() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    run("rock", "rock", cwd);
    std::fs::create_dir_all(cwd.join("elsewhere")).unwrap();
    std::fs::copy(cwd.join("out/rock.obj"), cwd.join("elsewhere/copy.obj")).unwrap();
    std::fs::write(
        cwd.join("lift.json"),
        r#"{"kiln": 1,
            "inputs": {"src": {"type": "mesh"}},
            "nodes": {"up": {"op": "mesh.transform", "inputs": {"mesh": "src.out", "translate": [0.0, 2.0, 0.0]}}},
            "outputs": {"lifted": "up.out"}}"#,
    )
    .unwrap();
    let go = |file: &str, out: &str| {
        let set = format!("src=@{file}");
        let o = kiln(
            &[
                "run",
                "lift.json",
                "--out",
                out,
                "--output",
                "lifted.obj",
                "--set",
                &set,
                "--cache",
                "c",
            ],
            cwd,
        );
        assert!(o.status.success(), "{:?}", text(&o));
        text(&o).1
    };
    go("out/rock.obj", "a");
    // The same content under another path: the transform comes from the cache.
    let second = go("elsewhere/copy.obj", "b");
    assert!(second.contains("0 nodes cooked"), "{second}");
    let a = std::fs::read(cwd.join("a/lifted.obj")).unwrap();
    assert_eq!(a, std::fs::read(cwd.join("b/lifted.obj")).unwrap());
    let lifted = kiln_io::mesh_files::decode_obj(&a).unwrap();
    let rock =
        kiln_io::mesh_files::decode_obj(&std::fs::read(cwd.join("out/rock.obj")).unwrap()).unwrap();
    for (p, q) in lifted.points.iter().zip(&rock.points) {
        assert!((*p - *q - glam::Vec3::Y * 2.0).length() < 1e-5);
    }
    // Text at a mesh input is refused with the form to use.
    let o = kiln(
        &["run", "lift.json", "--out", "x", "--set", "src=rock"],
        cwd,
    );
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("src=@path/to/file.obj"),
        "{:?}",
        text(&o)
    );
}

#[test]
fn packed_rocks_are_glb_nodes_sharing_one_mesh_and_expanded_in_obj() {
    let dir = tempfile::tempdir().unwrap();
    let graph = r#"{
      "kiln": 1,
      "nodes": {
        "ground": {"op": "mesh.grid", "params": {"cols": 4, "rows": 4}, "inputs": {"size": [8.0, 8.0]}},
        "spots": {"op": "mesh.scatter", "params": {"count": 12, "seed": 3}, "inputs": {"mesh": "ground.out"}},
        "ball": {"op": "mesh.icosphere", "params": {"level": 1}},
        "rocks": {"op": "mesh.copy_to_points", "params": {"packed": true}, "inputs": {"source": "ball.out", "target": "spots.out"}},
        "both": {"op": "mesh.merge", "inputs": {"a": "ground.out", "b": "rocks.out"}}
      },
      "outputs": {"scene": "both.out"}
    }"#;
    std::fs::write(dir.path().join("packed.json"), graph).unwrap();
    let o = kiln(
        &[
            "run",
            "packed.json",
            "--out",
            "out",
            "-q",
            "--output",
            "scene.glb",
            "--output",
            "scene.obj",
            "--preview",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let out = dir.path().join("out");
    let obj =
        kiln_io::mesh_files::decode_obj(&std::fs::read(out.join("scene.obj")).unwrap()).unwrap();
    // The OBJ holds the ground's 16 quads and 12 icospheres of 80 triangles each.
    assert_eq!(obj.prims.len(), 16 + 12 * 80);
    let bytes = std::fs::read(out.join("scene.glb")).unwrap();
    let doc = gltf::Gltf::from_slice(&bytes).expect("a valid glb");
    assert_eq!(doc.meshes().count(), 2);
    let nodes: Vec<_> = doc.nodes().collect();
    assert_eq!(nodes.len(), 1 + 12);
    let ball = nodes[1].mesh().unwrap().index();
    assert!(
        nodes[1..]
            .iter()
            .all(|n| n.mesh().map(|m| m.index()) == Some(ball))
    );
    // Every instance sits on the ground's plane (y = 0) within its extent.
    for n in &nodes[1..] {
        let (t, _, s) = n.transform().decomposed();
        assert!(
            t[1].abs() < 1e-5 && t[0].abs() <= 4.0 && t[2].abs() <= 4.0,
            "{t:?}"
        );
        assert_eq!(s, [1.0; 3]);
    }
    if let Ok(folder) = std::env::var("KILN_GLTF_VALIDATOR") {
        validate(&folder, dir.path(), &out.join("scene.glb"));
    }
}

#[test]
fn merge_all_queues_its_wires_by_source_id_whatever_the_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(
        cwd.join("pile.json"),
        r#"{"kiln": 1,
            "nodes": {
              "floor": {"op": "mesh.grid"},
              "ball": {"op": "mesh.icosphere"},
              "cube": {"op": "mesh.box"},
              "all": {"op": "mesh.merge_all",
                      "inputs": {"meshes": {"wires": ["floor.out", "ball.out", "cube.out"]}}}
            },
            "outputs": {"merged": "all.out", "b": "ball.out", "c": "cube.out", "f": "floor.out"}}"#,
    )
    .unwrap();
    let mut args = vec!["run", "pile.json", "--out", "out", "-q"];
    for o in ["merged.obj", "b.obj", "c.obj", "f.obj"] {
        args.extend(["--output", o]);
    }
    let o = kiln(&args, cwd);
    assert!(o.status.success(), "{:?}", text(&o));
    let read = |name: &str| {
        let bytes = std::fs::read(cwd.join("out").join(format!("{name}.obj"))).unwrap();
        kiln_io::mesh_files::decode_obj(&bytes).unwrap()
    };
    let all = read("merged");
    // Queued by source id: ball, cube, floor.
    let parts = [read("b"), read("c"), read("f")];
    let want: Vec<glam::Vec3> = parts.iter().flat_map(|m| m.points.clone()).collect();
    assert_eq!(all.points, want);
    let faces: usize = parts.iter().map(|m| m.prims.len()).sum();
    assert_eq!(all.prims.len(), faces);
    // Each part keeps its own topology: closed sphere and box (2 each), the open sheet (1).
    assert_eq!(euler_characteristic(&all), 2 + 2 + 1);
}
