//! Simulations written as meshes through lists of plain values: the grown tree's segments
//! as closed tubes (tree_mesh), the toppling stack's bodies as boxes placed by their poses
//! (stack_mesh), and particles emitted from an icosphere's points along its normals
//! (spores). Every glb parses with the `gltf` crate, is read back by kiln-io, and passes
//! the Khronos validator when `KILN_GLTF_VALIDATOR` names the folder it is installed in.

mod support;

use glam::Vec3;
use kiln_mesh::Mesh;
use kiln_mesh::measure::bounds;
use std::path::Path;
use support::{examples, kiln, text, validate};

fn render(cwd: &Path, example: &str, args: &[&str]) {
    let graph = examples().join(format!("{example}.json"));
    let mut all = vec!["render", graph.to_str().unwrap(), "-q", "--out", "o"];
    all.extend_from_slice(args);
    let o = kiln(&all, cwd);
    assert!(o.status.success(), "kiln {}: {:?}", all.join(" "), text(&o));
}

/// The glb at `path` (in the render folder of `dir`): it parses, its first primitive's
/// position bounds are the mesh's, the Khronos validator finds no error when
/// `KILN_GLTF_VALIDATOR` names its folder; and the mesh kiln-io reads back from it.
fn glb(dir: &Path, path: &Path) -> Mesh {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc = gltf::Gltf::from_slice(&bytes).expect("a valid glb");
    let mesh = kiln_io::mesh_files::decode_glb(&bytes).unwrap();
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let bb = prim.bounding_box();
    let (lo, hi) = bounds(&mesh).unwrap();
    assert_eq!((bb.min, bb.max), (lo.to_array(), hi.to_array()));
    if let Ok(folder) = std::env::var("KILN_GLTF_VALIDATOR") {
        validate(&folder, dir, path);
    }
    mesh
}

#[test]
fn the_grown_tree_is_written_as_tubes_around_its_branches() {
    let dir = tempfile::tempdir().unwrap();
    render(dir.path(), "tree_mesh", &["--ticks", "60"]);
    let (early, last) = (
        glb(dir.path(), &dir.path().join("o/tree_mesh_010.glb")),
        glb(dir.path(), &dir.path().join("o/tree_mesh_059.glb")),
    );
    // Six-sided capped tubes: 6 quads and 2 hexagons, 6 · 2 + 2 · 4 = 20 triangles each.
    for m in [&early, &last] {
        assert!(m.prims.len() % 20 == 0 && !m.prims.is_empty());
    }
    assert!(last.prims.len() > 4 * early.prims.len(), "it grew");
    let (lo, hi) = bounds(&last).unwrap();
    // In the XY plane, a tube radius (0.012) deep; rooted at the origin; its crown within
    // the attractors' disk (centre height 1.55, radius 0.9) and a tube radius.
    assert!(
        (lo.z + 0.012).abs() < 1e-4 && (hi.z - 0.012).abs() < 1e-4,
        "{lo} {hi}"
    );
    assert!((lo.y + 0.012).abs() < 0.02, "{lo}");
    assert!(hi.y > 1.5 && hi.y < 1.55 + 0.9 + 0.05, "{hi}");
    assert!(
        lo.x > -0.95 && hi.x < 0.95 && hi.x - lo.x > 0.8,
        "{lo} {hi}"
    );
}

#[test]
fn the_stack_is_written_as_boxes_that_stand_then_lie_on_the_ground() {
    let dir = tempfile::tempdir().unwrap();
    render(dir.path(), "stack_mesh", &["--ticks", "90", "--dt", "1/30"]);
    let boxes_of = |m: &Mesh| {
        let mut only = Mesh::new();
        // The ground is the quad at y = 0 (two triangles, first); boxes come after it.
        for t in m.triangles().iter().skip(2) {
            for &p in t {
                only.add_point(m.points[p as usize]);
            }
        }
        only
    };
    let first = glb(dir.path(), &dir.path().join("o/stack_mesh_000.glb"));
    let last = glb(dir.path(), &dir.path().join("o/stack_mesh_089.glb"));
    // The ground's two triangles and 12 boxes of 12.
    assert_eq!(first.prims.len(), 2 + 12 * 12);
    assert_eq!(last.prims.len(), 2 + 12 * 12);
    // Standing: twelve unit boxes turned about the vertical only reach 12 (1.001 apart).
    let (lo, hi) = bounds(&boxes_of(&first)).unwrap();
    assert!(lo.y > -0.01 && (hi.y - 12.012).abs() < 0.05, "{lo} {hi}");
    // Fallen: every box low on the ground (no lower than a small penetration), spread along x.
    let (lo, hi) = bounds(&boxes_of(&last)).unwrap();
    assert!(lo.y > -0.05 && hi.y < 4.0, "{lo} {hi}");
    assert!(hi.x - lo.x > 6.0, "{lo} {hi}");
}

/// Every array of three numbers in a JSON document, in order.
fn triples(j: &serde_json::Value) -> Vec<Vec3> {
    let mut out = vec![];
    let mut stack = vec![j];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Array(a) if a.len() == 3 && a.iter().all(|x| x.is_number()) => {
                let f = |i: usize| a[i].as_f64().unwrap() as f32;
                out.push(Vec3::new(f(0), f(1), f(2)));
            }
            serde_json::Value::Array(a) => stack.extend(a.iter().rev()),
            serde_json::Value::Object(o) => stack.extend(o.values().rev()),
            _ => {}
        }
    }
    out
}

#[test]
fn spores_leave_the_balls_surface_along_its_normals() {
    let dir = tempfile::tempdir().unwrap();
    render(dir.path(), "spores", &["--ticks", "3", "--dt", "1/30"]);
    let read = |t: usize| -> Vec<Vec3> {
        let path = dir.path().join(format!("o/spore_points_{t:03}.json"));
        let text = std::fs::read_to_string(&path).unwrap();
        triples(&serde_json::from_str(&text).unwrap())
    };
    // 600 a second for the node's dt of 0.0333 s: 19.98 a tick, the fraction carried over,
    // so ⌊19.98 k⌋ after k ticks.
    let dt = 0.0333f32;
    let made = |k: f64| (600.0 * 0.0333 * k).floor() as usize;
    let first = read(0);
    assert_eq!(first.len(), made(1.0));
    // One step after emission from the unit sphere along its (smooth, unit) normals at
    // speed 1.5: r = 1 + dt (1.5 − dt (drag · 1.5 + g)) ± the normals' deviation from
    // radial; the offset from the centre stays along the outward direction.
    let v = 1.5 + dt * (-0.8 * 1.5);
    for p in &first {
        let r = p.length();
        assert!((r - (1.0 + dt * v)).abs() < 0.01, "r = {r}");
    }
    // Later ticks hold the earlier particles, further out.
    let third = read(2);
    assert_eq!(third.len(), made(3.0));
    assert!(
        third[..first.len()]
            .iter()
            .all(|p| p.length() > 1.0 + 2.5 * dt * v)
    );
    assert!(dir.path().join("o/spores_000.png").exists());
}
