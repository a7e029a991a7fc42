//! Meshes as files, each read back by an independent parser: the glb by the `gltf` crate
//! (accessor counts, min and max against the positions), the OBJ by `tobj`, PLY and STL by
//! their documented layouts; OBJ and glb also read back into meshes.

use glam::{Vec2, Vec3};
use kiln_io::mesh_files::{MeshFormat, decode_glb, decode_obj, encode_glb, encode_obj};
use kiln_mesh::generate::{cube, grid, uv_sphere};
use kiln_mesh::{AttribValues, Mesh};

/// A UV sphere with outward point normals and point texture coordinates.
fn ball() -> Mesh {
    let mut m = uv_sphere("s", 2.0, 6, 8).unwrap();
    let n: Vec<Vec3> = m.points.iter().map(|p| p.normalize()).collect();
    let uv: Vec<Vec2> = m.points.iter().map(|p| Vec2::new(p.x, p.y)).collect();
    m.point_attrs.insert("N", AttribValues::Vec3(n));
    m.point_attrs.insert("uv", AttribValues::Vec2(uv));
    m
}

fn triangle_count(m: &Mesh) -> usize {
    m.prims.iter().map(|p| p.count as usize - 2).sum()
}

#[test]
fn glb_parses_back_with_its_accessors_bounds_and_counts() {
    let m = ball();
    let bytes = encode_glb(&m).unwrap();
    let doc = gltf::Gltf::from_slice(&bytes).expect("a valid glb");
    let blob = doc.blob.as_deref().expect("a BIN chunk");
    assert_eq!(doc.meshes().count(), 1);
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|_| Some(blob));
    let pos: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
    // One glTF vertex per polygon corner.
    assert_eq!(pos.len(), m.vertices.len());
    let idx: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
    assert_eq!(idx.len(), 3 * triangle_count(&m));
    let acc = prim.get(&gltf::Semantic::Positions).unwrap();
    let (lo, hi) = m.points.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    let as_vec = |v: Option<gltf::json::Value>| -> Vec<f32> {
        v.unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect()
    };
    assert_eq!(as_vec(acc.min()), lo.to_array().to_vec());
    assert_eq!(as_vec(acc.max()), hi.to_array().to_vec());
    let normals: Vec<[f32; 3]> = reader.read_normals().unwrap().collect();
    for (p, n) in pos.iter().zip(&normals) {
        let (p, n) = (Vec3::from_array(*p), Vec3::from_array(*n));
        assert!((n.length() - 1.0).abs() < 1e-5);
        assert!(p.dot(n) > 0.0, "a normal points inward");
    }
    assert!(reader.read_tex_coords(0).is_some());
    // And back into a mesh: as many triangles, every position one of the mesh's points.
    let back = decode_glb(&bytes).unwrap();
    assert_eq!(back.prims.len(), triangle_count(&m));
    assert!(back.points.iter().all(|p| m.points.contains(p)));
}

#[test]
fn obj_reads_back_with_tobj_and_into_a_mesh() {
    let m = ball();
    let text = encode_obj(&m).expect("a small mesh fits");
    let opts = tobj::LoadOptions {
        single_index: false,
        triangulate: false,
        ..Default::default()
    };
    let (models, _) = tobj::load_obj_buf(&mut std::io::Cursor::new(&text), &opts, |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .unwrap();
    let tm = &models[0].mesh;
    assert_eq!(tm.positions.len(), 3 * m.points.len());
    assert_eq!(tm.indices.len(), m.vertices.len());
    assert_eq!(tm.normals.len(), 3 * m.points.len());
    assert_eq!(tm.texcoords.len(), 2 * m.points.len());
    let arities = if tm.face_arities.is_empty() {
        vec![3; tm.indices.len() / 3]
    } else {
        tm.face_arities.clone()
    };
    assert_eq!(arities.len(), m.prims.len());
    let back = decode_obj(&text).unwrap();
    assert_eq!(back.points, m.points);
    assert_eq!(back.vertices, m.vertices);
    let n = back.vertex_attrs.vec3("N").unwrap();
    for (v, n) in back.vertices.iter().zip(n) {
        assert!((m.points[*v as usize].normalize() - *n).length() < 1e-6);
    }
}

#[test]
fn ply_and_stl_follow_their_layouts() {
    let m = cube(Vec3::ONE);
    let ply = MeshFormat::Ply.encode(&m).unwrap();
    let end = ply.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
    let head = std::str::from_utf8(&ply[..end]).unwrap();
    assert!(
        head.contains("element vertex 8\n") && head.contains("element face 6\n"),
        "{head}"
    );
    // 8 points of 3 floats, 6 quads of a count byte and 4 ints.
    assert_eq!(ply.len() - end, 8 * 12 + 6 * (1 + 16));
    let stl = MeshFormat::Stl.encode(&m).unwrap();
    assert_eq!(stl.len(), 84 + 12 * 50);
    assert_eq!(u32::from_le_bytes(stl[80..84].try_into().unwrap()), 12);
    // Every facet normal points away from the centre, through its triangle.
    for t in stl[84..].chunks_exact(50) {
        let f = |k: usize| f32::from_le_bytes(t[k * 4..k * 4 + 4].try_into().unwrap());
        let n = Vec3::new(f(0), f(1), f(2));
        let a = Vec3::new(f(3), f(4), f(5));
        assert!((n.length() - 1.0).abs() < 1e-6 && n.dot(a) > 0.0);
    }
}

#[test]
fn previews_shade_the_mesh_over_the_background() {
    let rgba = kiln_io::mesh_files::render_preview(&cube(Vec3::ONE), 64);
    assert_eq!(rgba.len(), 64 * 64 * 4);
    let empty = kiln_io::mesh_files::render_preview(&Mesh::new(), 64);
    let centre = (32 * 64 + 32) * 4;
    assert_ne!(
        rgba[centre..centre + 3],
        empty[centre..centre + 3],
        "the centre is not drawn"
    );
    // Corners are background: the cube is framed inside.
    assert_eq!(rgba[..4], empty[..4]);
    // Three faces of a cube face the camera, lit differently: at least three shades.
    let mut shades: Vec<[u8; 3]> = rgba
        .chunks_exact(4)
        .zip(empty.chunks_exact(4))
        .filter(|(a, b)| a != b)
        .map(|(a, _)| [a[0], a[1], a[2]])
        .collect();
    shades.sort();
    shades.dedup();
    assert!(shades.len() >= 3, "{shades:?}");
}

#[test]
fn output_files_follow_the_formats_asked() {
    let dir = std::path::Path::new("out");
    let v = grid("g", Vec2::ONE, 2, 2).unwrap().into_value();
    let files = kiln_io::encode_output_files(dir, "ground", &v, &[]).unwrap();
    assert_eq!(files[0].0, dir.join("ground.glb"));
    let files =
        kiln_io::encode_output_files(dir, "ground", &v, &[MeshFormat::Obj, MeshFormat::Preview])
            .unwrap();
    let names: Vec<_> = files.iter().map(|f| f.0.clone()).collect();
    assert_eq!(
        names,
        [dir.join("ground.obj"), dir.join("ground.preview.png")]
    );
    let files = kiln_io::encode_output_files(dir, "ground", &v, &[MeshFormat::Preview]).unwrap();
    assert_eq!(files.len(), 2, "a preview alone keeps the glb");
    let e = kiln_io::encode_output_files(
        dir,
        "x",
        &kiln_core::value::Value::Float(1.0),
        &[MeshFormat::Obj],
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("output `x` is a float, not a mesh"),
        "{e}"
    );
}

#[test]
fn damaged_mesh_files_are_errors_not_panics() {
    let m = ball();
    let glb = encode_glb(&m).unwrap();
    for cut in (0..glb.len()).step_by(7) {
        let _ = decode_glb(&glb[..cut]);
    }
    let mut flipped = glb.clone();
    for i in (20..flipped.len()).step_by(13) {
        flipped[i] ^= 0x5a;
        let _ = decode_glb(&flipped);
        flipped[i] ^= 0x5a;
    }
    let obj = encode_obj(&m).expect("a small mesh fits");
    for cut in (0..obj.len()).step_by(11) {
        let _ = decode_obj(&obj[..cut]);
    }
    let bad = b"v 0 0 0\nf 1 2 3\n";
    assert!(decode_obj(bad).is_err(), "a face past the points");
}

#[test]
fn a_position_naming_a_missing_accessor_is_an_error_not_a_panic() {
    // Found by the `mesh_gltf` fuzz target: glTF's own validation indexed the accessors
    // with the POSITION attribute's number unchecked.
    let none =
        br#"{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}]}"#;
    let e = decode_glb(none).unwrap_err();
    assert!(
        e.contains("POSITION names accessor 0, but the file has 0"),
        "{e}"
    );
    let past = br#"{"asset":{"version":"2.0"},
        "accessors":[{"componentType":5126,"count":1,"type":"VEC3"}],
        "meshes":[{"primitives":[{"attributes":{"POSITION":3}}]}]}"#;
    let e = decode_glb(past).unwrap_err();
    assert!(
        e.contains("POSITION names accessor 3, but the file has 1"),
        "{e}"
    );
}

#[test]
fn a_mesh_without_triangles_writes_a_glb_that_reads_back_empty() {
    // Found by the `mesh_gltf` fuzz target: the file held a scene without nodes, which the
    // glTF reader refuses (`missing field nodes`).
    let mut lone_points = kiln_mesh::Mesh::new();
    lone_points.points.push(glam::Vec3::ZERO);
    for mesh in [kiln_mesh::Mesh::new(), lone_points] {
        let glb = encode_glb(&mesh).unwrap();
        let back = decode_glb(&glb).unwrap();
        assert!(back.points.is_empty() && back.prims.is_empty());
    }
}

#[test]
fn a_glb_length_shorter_than_its_header_is_an_error_not_a_panic() {
    // Found by the `mesh_gltf` fuzz target: glTF subtracted the header's 12 bytes from the
    // length unchecked.
    for length in [0u32, 11] {
        let mut glb = b"glTF".to_vec();
        glb.extend(2u32.to_le_bytes());
        glb.extend(length.to_le_bytes());
        glb.extend([0u8; 16]);
        let e = decode_glb(&glb).unwrap_err();
        assert!(e.contains(&format!("a length of {length} bytes")), "{e}");
    }
}

#[test]
fn a_bad_face_index_before_invalid_text_is_an_error_not_a_panic() {
    // Found by the `mesh_obj` fuzz target: the lines before a line that is not UTF-8 are
    // read (and their faces exported at the next object), so they are checked too.
    let mut obj = b"v 0 0 0\nf 1//-13 1 1\no b\n".to_vec();
    obj.extend([0xff, 0xfe, b'\n']);
    let e = decode_obj(&obj).unwrap_err();
    assert!(e.contains("normal -13"), "{e}");
}

#[test]
fn accessors_of_the_wrong_layout_or_past_their_view_are_errors_not_panics() {
    // Found by the `mesh_gltf` fuzz target: glTF's reader takes an accessor's layout on
    // trust (normals of two floats were read as three).
    let file = |accessors: &str| {
        format!(
            r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":48}}],
            "bufferViews":[{{"buffer":0,"byteLength":48}}],"accessors":[{accessors}],
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1}}}}]}}]}}"#
        )
    };
    let position = |count: u32| {
        format!(
            r#"{{"bufferView":0,"componentType":5126,"count":{count},"type":"VEC3","min":[0,0,0],"max":[1,1,1]}}"#
        )
    };
    let two_floats = r#"{"bufferView":0,"componentType":5126,"count":3,"type":"VEC2"}"#;
    let e = decode_glb(file(&format!("{},{two_floats}", position(3))).as_bytes()).unwrap_err();
    assert!(e.contains("accessor 1") && e.contains("not Vec3"), "{e}");
    let three_floats = r#"{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}"#;
    let e = decode_glb(file(&format!("{},{three_floats}", position(5))).as_bytes()).unwrap_err();
    assert!(e.contains("accessor 0") && e.contains("do not fit"), "{e}");
    let e = decode_glb(file(&format!("{},{three_floats}", position(0))).as_bytes()).unwrap_err();
    assert!(e.contains("no elements"), "{e}");
}

#[test]
fn a_mesh_with_a_point_at_infinity_is_refused_as_glb() {
    // Found by the `mesh_gltf` fuzz target: the bounds of such points were written as JSON
    // nulls, a file no reader takes.
    let mut m = Mesh::new();
    m.points = vec![Vec3::ZERO, Vec3::X, Vec3::new(0.0, f32::INFINITY, 0.0)];
    m.add_polygon(&[0, 1, 2]);
    let e = encode_glb(&m).unwrap_err();
    assert!(e.to_string().contains("point 2 is at"), "{e}");
    m.points[2] = Vec3::Y;
    assert!(decode_glb(&encode_glb(&m).unwrap()).is_ok());
}

/// Issue 37, item 10: the preview's cost is bounded whatever the mesh. A hundred thousand
/// copies of one large triangle drawn over one another took 42 s at 512 × 512 (each copy
/// visited its half of the picture); the preview now counts its samples and coarsens its
/// grid when a budget of `WORK_PER_PIXEL` a pixel is spent, so its work stays within ten
/// budgets (one a grid step, 1 to 64) and one sample a triangle — and the triangle is still
/// drawn. An ordinary mesh stays within the first budget: drawn exactly, pixel by pixel.
#[test]
fn a_preview_of_many_stacked_triangles_does_bounded_work_and_still_draws_them() {
    use kiln_io::mesh_files::{WORK_PER_PIXEL, render_preview_counted};
    let size = 64u32;
    let pixels = u64::from(size * size);
    let mut stacked = Mesh::new();
    for p in [
        Vec3::new(-1.0, -1.0, 0.0),
        Vec3::new(1.0, -1.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
    ] {
        stacked.add_point(p);
    }
    let copies = 100_000u64;
    for _ in 0..copies {
        stacked.add_polygon(&[0, 1, 2]);
    }
    let (rgba, work) = render_preview_counted(&stacked, size);
    // Seven grid steps (1, 2, 4, … 64), each spending at most its budget, plus the last
    // triangle's samples and fills (at most twice the picture), plus a sample a triangle.
    let bound = 7 * (WORK_PER_PIXEL + 2) * pixels + copies;
    assert!(work <= bound, "{work} samples, over {bound}");
    // Each copy visiting its bounds, as before, would have been 100,000 × half the picture.
    assert!(work < copies * pixels / 2 / 10);
    let empty = kiln_io::mesh_files::render_preview(&Mesh::new(), size);
    let centre = ((size / 2 * size + size / 2) * 4) as usize;
    assert_ne!(rgba[centre..centre + 3], empty[centre..centre + 3]);

    let sphere = uv_sphere("s", 1.0, 48, 24).unwrap();
    let (_, work) = render_preview_counted(&sphere, size);
    assert!(work < WORK_PER_PIXEL * pixels, "{work}");
}
