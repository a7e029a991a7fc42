//! The operations against first principles: volumes and areas by the divergence theorem,
//! topology by Euler's formula, normals of convex solids pointing outward, determinism per
//! seed, minimum distances measured pairwise.

use glam::{Affine3A, Quat, Vec2, Vec3, Vec4};
use kiln_mesh::edit::attrib::{promote, random};
use kiln_mesh::edit::copy::copy_to_points;
use kiln_mesh::edit::extrude::{Extrude, extrude};
use kiln_mesh::edit::{deform, from_image, normals, restructure, scatter, uv};
use kiln_mesh::generate::*;
use kiln_mesh::measure::*;
use kiln_mesh::{AttribClass, AttribValues, Mesh};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

#[test]
fn smooth_normals_of_a_sphere_are_unit_and_point_out() {
    let mut m = icosphere("s", 3.0, 3).unwrap();
    normals::set_smooth(&mut m);
    let n = m.point_attrs.vec3("N").unwrap();
    for (p, n) in m.points.iter().zip(n) {
        assert!((n.length() - 1.0).abs() < 1e-5);
        assert!(p.normalize().dot(*n) > 0.999, "not radial");
    }
}

#[test]
fn flat_and_angle_normals_on_a_cube() {
    let mut flat = cube(Vec3::ONE);
    normals::set_by_angle(&mut flat, None);
    let n = flat.vertex_attrs.vec3("N").unwrap();
    for (f, p) in flat.prims.iter().enumerate() {
        let c = polygon_centre(&flat, f);
        for v in p.range() {
            // The face normal is the axis its centre lies on.
            assert!((n[v] - c * 2.0).length() < 1e-6);
        }
    }
    let mut sharp = cube(Vec3::ONE);
    normals::set_by_angle(&mut sharp, Some(30f32.to_radians()));
    assert_eq!(
        sharp.vertex_attrs, flat.vertex_attrs,
        "90° edges stay hard under 30°"
    );
    let mut soft = cube(Vec3::ONE);
    normals::set_by_angle(&mut soft, Some(100f32.to_radians()));
    for (v, n) in soft.vertex_attrs.vec3("N").unwrap().iter().enumerate() {
        let p = soft.points[soft.vertices[v] as usize];
        assert!(
            (*n - p.normalize()).length() < 1e-5,
            "a corner is the mean of three faces"
        );
    }
}

#[test]
fn transforms_scale_volume_by_the_determinant() {
    let mut m = icosphere("s", 1.0, 2).unwrap();
    normals::set_smooth(&mut m);
    let v0 = volume(&m);
    let rot = Quat::from_euler(glam::EulerRot::XYZ, 0.3, 1.1, -0.4);
    deform::transform(
        &mut m,
        Affine3A::from_scale_rotation_translation(Vec3::new(2.0, 3.0, 4.0), rot, Vec3::X * 5.0),
    );
    assert!(close(volume(&m), v0 * 24.0, 1e-4));
    let centre = Vec3::X * 5.0;
    for (p, n) in m.points.iter().zip(m.point_attrs.vec3("N").unwrap()) {
        assert!((n.length() - 1.0).abs() < 1e-5 && (*p - centre).dot(*n) > 0.0);
    }
}

#[test]
fn displacement_is_seeded_and_keeps_topology() {
    let base = icosphere("s", 1.0, 3).unwrap();
    let run = |seed| {
        let mut m = base.clone();
        deform::displace(&mut m, 0.3, 2.0, 4, seed);
        m
    };
    assert_eq!(run(1).points, run(1).points);
    assert_ne!(run(1).points, run(2).points);
    let m = run(1);
    assert!(is_closed_manifold(&m) && euler_characteristic(&m) == 2);
    let moved = m
        .points
        .iter()
        .zip(&base.points)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0, f32::max);
    assert!(moved > 0.01 && moved < 0.3 * 2.0, "{moved}");
    let mut still = base.clone();
    deform::displace(&mut still, 0.0, 2.0, 4, 1);
    assert_eq!(still.points, base.points);
}

#[test]
fn bend_twist_and_taper_do_what_they_say() {
    let tall = cylinder("c", 0.5, 4.0, 12, 8).unwrap();
    let mut t = tall.clone();
    deform::twist(&mut t, 1.0);
    for (a, b) in t.points.iter().zip(&tall.points) {
        assert!((a.y - b.y).abs() < 1e-6);
        assert!((Vec2::new(a.x, a.z).length() - Vec2::new(b.x, b.z).length()).abs() < 1e-5);
    }
    // The caps turn rigidly: the same area.
    let cap = |m: &Mesh| polygon_normal(m, m.prims.len() - 1);
    assert!((cap(&t) - cap(&tall)).length() < 1e-5);
    let mut p = tall.clone();
    deform::taper(&mut p, 0.5);
    let top = p
        .points
        .iter()
        .filter(|q| (q.y - 2.0).abs() < 1e-6)
        .map(|q| Vec2::new(q.x, q.z).length());
    top.for_each(|r| assert!((r - 0.25).abs() < 1e-5));
    let mut b = tall.clone();
    deform::bend(&mut b, std::f32::consts::FRAC_PI_2);
    // A quarter turn: the top ring ends up lying on its side, facing +X.
    let top_centre: Vec3 = (0..12).map(|i| b.points[8 * 12 + i]).sum::<Vec3>() / 12.0;
    let r = 4.0 / std::f32::consts::FRAC_PI_2;
    assert!(
        (top_centre - Vec3::new(r, -2.0 + r, 0.0)).length() < 1e-3,
        "{top_centre}"
    );
}

#[test]
fn extrusions_stay_closed_and_add_their_volume() {
    let c = cube(Vec3::ONE);
    let all = vec![true; 6];
    let s = Extrude {
        distance: 0.5,
        inset: 0.2,
        keep_back: false,
    };
    let m = extrude("e", &c, &all, s).unwrap();
    assert_eq!(m.prims.len(), 6 * 5);
    assert!(is_closed_manifold(&m) && euler_characteristic(&m) == 2);
    let mut one = vec![false; 6];
    one[3] = true;
    let s = Extrude {
        distance: 0.5,
        inset: 0.0,
        keep_back: false,
    };
    let m = extrude("e", &c, &one, s).unwrap();
    assert!(close(volume(&m), 1.5, 1e-6));
    assert_eq!(m.groups.prims["extrude_front"].len(), 1);
    assert_eq!(m.groups.prims["extrude_side"].len(), 4);
    // A lone profile with its back kept becomes a prism: base area × height.
    let disk = circle("c", 1.0, 16, true).unwrap();
    let s = Extrude {
        distance: 2.0,
        inset: 0.0,
        keep_back: true,
    };
    let prism = extrude("e", &disk, &[true], s).unwrap();
    assert!(is_closed_manifold(&prism) && euler_characteristic(&prism) == 2);
    assert!(close(volume(&prism), area(&disk) * 2.0, 1e-5));
}

#[test]
fn triangulate_reverse_merge_and_fuse() {
    let c = cube(Vec3::ONE);
    let t = restructure::triangulate(&c);
    assert!(t.is_triangles() && t.prims.len() == 12);
    assert!(close(area(&t), 6.0, 1e-6) && is_closed_manifold(&t));
    assert!(close(volume(&restructure::reverse(&c)), -1.0, 1e-6));
    let mut a = c.clone();
    a.point_attrs.insert("w", AttribValues::Float(vec![1.0; 8]));
    let m = restructure::merge("m", &a, &c).unwrap();
    assert_eq!((m.points.len(), m.prims.len()), (16, 12));
    assert_eq!(m.point_attrs.float("w").unwrap()[8..], [0.0; 8]);
    m.check().unwrap();
    // Two cubes in the same place fuse to one set of eight points.
    let f = restructure::fuse(&m, 1e-4);
    assert_eq!(f.points.len(), 8);
    f.check().unwrap();
    // Unwelded faces of a grid weld back into the grid's topology.
    let g = grid("g", Vec2::ONE, 3, 3).unwrap();
    let mut loose = Mesh::new();
    for fi in 0..g.prims.len() {
        let pts: Vec<u32> = g
            .prim_points(fi)
            .iter()
            .map(|&p| loose.add_point(g.points[p as usize]))
            .collect();
        loose.add_polygon(&pts);
    }
    let welded = restructure::fuse(&loose, 1e-4);
    assert_eq!(welded.points.len(), 16);
    assert_eq!(euler_characteristic(&welded), 1);
}

/// Found by the `evaluate` fuzz target: points so far out that their cell is past `i32`
/// overflowed the cell of a neighbour (a panic with overflow checks, a wrong cell without).
#[test]
fn points_past_the_cells_of_i32_fuse_without_overflow() {
    let mut m = Mesh::new();
    let far = [
        Vec3::new(3e38, -3e38, 1e30),
        Vec3::new(3e38, -3e38, 1e30),
        Vec3::new(f32::MAX, 0.0, 0.0),
        Vec3::new(0.0, 0.0, 0.0),
    ];
    let pts: Vec<u32> = far.iter().map(|&p| m.add_point(p)).collect();
    m.add_polygon(&pts);
    let f = restructure::fuse(&m, 1e-3);
    // The two equal far points are one; the others stay.
    assert_eq!(f.points.len(), 3);
    f.check().unwrap();
}

#[test]
fn uvs_fit_the_bounds() {
    let mut g = grid("g", Vec2::new(4.0, 2.0), 4, 2).unwrap();
    uv::planar(&mut g, 1);
    let t = g.point_attrs.vec2("uv").unwrap();
    assert!(
        t.iter()
            .all(|t| (0.0..=1.0).contains(&t.x) && (0.0..=1.0).contains(&t.y))
    );
    assert_eq!(t[0], Vec2::ZERO);
    let mut s = uv_sphere("s", 1.0, 8, 8).unwrap();
    uv::spherical(&mut s);
    assert!(
        (s.point_attrs.vec2("uv").unwrap()[0].y - 1.0).abs() < 1e-6,
        "the north pole is v = 1"
    );
    let mut b = cube(Vec3::ONE);
    uv::cube(&mut b);
    assert_eq!(b.vertex_attrs.vec2("uv").unwrap().len(), 24);
}

#[test]
fn attributes_randomise_per_seed_and_promote_by_averaging() {
    let mut c = cube(Vec3::ONE);
    let a = random("float", 8, Vec4::splat(2.0), Vec4::splat(3.0), 9).unwrap();
    assert_eq!(
        a,
        random("float", 8, Vec4::splat(2.0), Vec4::splat(3.0), 9).unwrap()
    );
    assert_ne!(
        a,
        random("float", 8, Vec4::splat(2.0), Vec4::splat(3.0), 10).unwrap()
    );
    let AttribValues::Float(v) = &a else {
        unreachable!()
    };
    assert!(v.iter().all(|x| (2.0..3.0).contains(x)));
    let x: Vec<f32> = c.points.iter().map(|p| p.x).collect();
    c.point_attrs.insert("x", AttribValues::Float(x));
    promote(&mut c, "x", AttribClass::Point, AttribClass::Primitive).unwrap();
    let by_face = c.prim_attrs.float("x").unwrap();
    // −x face, +x face, then the four faces the x axis crosses (mean 0).
    assert_eq!(by_face, [-0.5, 0.5, 0.0, 0.0, 0.0, 0.0]);
    promote(&mut c, "x", AttribClass::Primitive, AttribClass::Detail).unwrap();
    assert_eq!(c.detail_attrs.float("x").unwrap(), [0.0]);
}

#[test]
fn sampling_an_image_reads_the_pixel_under_each_point() {
    let mut img = kiln_image::image::Image::filled(2, 1, [1.0, 0.0, 0.0, 1.0]);
    img.pixels[1] = [0.0, 0.0, 1.0, 1.0];
    let mut g = grid("g", Vec2::ONE, 1, 1).unwrap();
    from_image::sample_onto_points(&mut g, &img, "Cd");
    let cd = g.point_attrs.vec3("Cd").unwrap();
    for (p, c) in g.points.iter().zip(cd) {
        let want = if p.x < 0.0 { Vec3::X } else { Vec3::Z };
        assert_eq!(*c, want);
    }
}

#[test]
fn scatter_on_a_surface_past_the_cells_of_i32_keeps_its_distance_without_overflow() {
    // A square 3e38 wide, far out: its cells of 1e-6 are past i32, saturated at the edge.
    let mut g = grid("g", Vec2::splat(1.0), 1, 1).unwrap();
    deform::transform(
        &mut g,
        Affine3A::from_scale(Vec3::splat(1e38)) * Affine3A::from_translation(Vec3::X * 2.0),
    );
    let s = scatter::scatter("s", &g, 20, 1, 1e-6).unwrap();
    assert_eq!(s.points.len(), 20);
    for (i, p) in s.points.iter().enumerate() {
        for q in &s.points[..i] {
            assert!(p.distance(*q) >= 1e-6);
        }
    }
}

#[test]
fn scatter_is_seeded_area_weighted_and_keeps_its_distance() {
    let g = grid("g", Vec2::splat(4.0), 8, 8).unwrap();
    let a = scatter::scatter("s", &g, 200, 5, 0.15).unwrap();
    assert_eq!(
        a.points,
        scatter::scatter("s", &g, 200, 5, 0.15).unwrap().points
    );
    assert_ne!(
        a.points,
        scatter::scatter("s", &g, 200, 6, 0.15).unwrap().points
    );
    assert_eq!(a.points.len(), 200);
    for (i, p) in a.points.iter().enumerate() {
        assert!(p.y == 0.0 && p.x.abs() <= 2.0 && p.z.abs() <= 2.0);
        for q in &a.points[..i] {
            assert!(p.distance(*q) >= 0.15);
        }
    }
    // Two squares of areas 1 and 9: about nine points in ten land on the larger.
    let mut two = grid("a", Vec2::ONE, 1, 1).unwrap();
    let mut big = grid("b", Vec2::splat(3.0), 1, 1).unwrap();
    deform::transform(&mut big, Affine3A::from_translation(Vec3::X * 10.0));
    two = restructure::merge("m", &two, &big).unwrap();
    let s = scatter::scatter("s", &two, 4000, 1, 0.0).unwrap();
    let on_big = s.points.iter().filter(|p| p.x > 5.0).count() as f64 / 4000.0;
    assert!((on_big - 0.9).abs() < 0.02, "{on_big}");
}

#[test]
fn copies_follow_position_normal_and_scale() {
    let rock = icosphere("r", 1.0, 1).unwrap();
    let mut pts = Mesh::new();
    for p in [Vec3::ZERO, Vec3::X * 10.0, Vec3::Z * 10.0] {
        pts.add_point(p);
    }
    pts.point_attrs
        .insert("pscale", AttribValues::Float(vec![1.0, 2.0, 0.5]));
    pts.point_attrs
        .insert("N", AttribValues::Vec3(vec![Vec3::Y, Vec3::X, -Vec3::Z]));
    let m = copy_to_points("c", &rock, &pts).unwrap();
    assert_eq!(m.prims.len(), 3 * rock.prims.len());
    assert!(is_closed_manifold(&m));
    let v = volume(&rock);
    assert!(close(volume(&m), v * (1.0 + 8.0 + 0.125), 1e-5));
    // A line along +Y copied onto a point whose N is +X lies along +X.
    let stick = line("l", Vec3::ZERO, Vec3::Y, 2).unwrap();
    let laid = copy_to_points("c", &stick, &pts).unwrap();
    assert!((laid.points[3] - Vec3::new(12.0, 0.0, 0.0)).length() < 1e-5);
    assert_eq!(
        laid.prim_attrs.get("copy"),
        Some(&AttribValues::Int(vec![0, 1, 2]))
    );
}

#[test]
fn simplification_keeps_the_shape_with_fewer_triangles() {
    let ball = icosphere("s", 1.0, 4).unwrap();
    let s = kiln_mesh::edit::simplify::simplify(&ball, 0.25, 0.05);
    assert!(s.prims.len() <= ball.prims.len() / 3, "{}", s.prims.len());
    assert!(s.prims.len() >= 20);
    assert!(is_closed_manifold(&s) && euler_characteristic(&s) == 2);
    // Still a unit ball: the volume within a few percent, every point on the sphere.
    assert!(close(volume(&s), volume(&ball), 0.08), "{}", volume(&s));
    assert!(s.points.iter().all(|p| (p.length() - 1.0).abs() < 1e-5));
    s.check().unwrap();
}

#[test]
fn booleans_of_two_boxes_are_closed_with_the_volumes_of_set_algebra() {
    use kiln_mesh::edit::boolean::{BooleanOp, boolean};
    let a = cube(Vec3::splat(2.0));
    let mut b = cube(Vec3::splat(2.0));
    deform::transform(&mut b, Affine3A::from_translation(Vec3::new(1.0, 1.0, 1.0)));
    // Two boxes of volume 8 overlapping in a unit cube.
    for (op, want) in [
        (BooleanOp::Union, 15.0),
        (BooleanOp::Difference, 7.0),
        (BooleanOp::Intersection, 1.0),
    ] {
        let r = boolean(&a, &b, op).unwrap();
        assert!(is_closed_manifold(&r), "{op:?} is not closed");
        assert_eq!(euler_characteristic(&r), 2, "{op:?}");
        assert!(close(volume(&r), want, 1e-5), "{op:?}: {}", volume(&r));
    }
    let open = grid("g", Vec2::ONE, 2, 2).unwrap();
    let e = boolean(&a, &open, BooleanOp::Union).unwrap_err();
    assert!(e.to_string().contains("input `b`"), "{e}");
}

#[test]
fn merging_a_list_equals_merging_in_pairs_and_keeps_groups_sorted() {
    let a = cube(Vec3::ONE);
    let mut b = grid("g", Vec2::ONE, 2, 2).unwrap();
    b.groups.set(AttribClass::Primitive, "top", vec![1, 3]);
    let mut c = cube(Vec3::splat(2.0));
    c.groups.set(AttribClass::Primitive, "top", vec![0]);
    let pairs = restructure::merge("m", &restructure::merge("m", &a, &b).unwrap(), &c).unwrap();
    let all = restructure::merge_all("m", &[&a, &b, &c]).unwrap();
    assert_eq!(all, pairs);
    // Cube (6 faces), grid (4), cube (6): the group is b's faces 1 and 3 shifted by 6 and
    // c's face 0 shifted by 10.
    assert_eq!(all.groups.prims["top"], [7, 9, 10]);
    assert_eq!((all.points.len(), all.prims.len()), (8 + 9 + 8, 6 + 4 + 6));
    all.check().unwrap();
    assert_eq!(restructure::merge_all("m", &[]).unwrap(), Mesh::new());
    assert_eq!(restructure::merge_all("m", &[&a]).unwrap(), a);
}

#[test]
fn merging_a_list_past_the_limit_fails_before_copying() {
    let big = grid("g", Vec2::ONE, 1000, 1000).unwrap();
    let many: Vec<&Mesh> = std::iter::repeat_n(&big, 60).collect();
    let e = restructure::merge_all("pile", &many).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("pile") && msg.contains("MAX_"), "{msg}");
}

#[test]
fn a_boolean_gives_the_same_bits_every_time() {
    // boolmesh walked randomly seeded hash maps and broke ties in its ear clipping by
    // memory address; the fuzzer found a box and a tapered box whose union was triangulated
    // differently from call to call (vendor/boolmesh/KILN-PATCH.md). An empty result (a box
    // minus itself) is an empty mesh.
    use kiln_mesh::edit::boolean::{BooleanOp, boolean};
    let a = cube(Vec3::ONE);
    let mut tapered = a.clone();
    deform::taper(&mut tapered, 0.5);
    let mut shifted = icosphere("s", 1.0, 2).unwrap();
    deform::transform(
        &mut shifted,
        Affine3A::from_translation(Vec3::new(0.4, 0.3, 0.2)),
    );
    let ball = icosphere("b", 1.0, 2).unwrap();
    let mut carried = ball.clone();
    carried.point_attrs.insert(
        "w",
        AttribValues::Float((0..carried.points.len()).map(|i| i as f32).collect()),
    );
    for (pair, (x, y)) in [
        (&a, &a),
        (&tapered, &a),
        (&ball, &shifted),
        (&carried, &shifted),
    ]
    .into_iter()
    .enumerate()
    {
        for op in [
            BooleanOp::Union,
            BooleanOp::Difference,
            BooleanOp::Intersection,
        ] {
            let first = boolean(x, y, op).unwrap();
            for _ in 0..6 {
                assert_eq!(boolean(x, y, op).unwrap(), first, "pair {pair}, {op:?}");
            }
        }
    }
}

#[test]
fn a_boolean_with_nothing_left_is_an_empty_mesh() {
    use kiln_mesh::edit::boolean::{BooleanOp, boolean};
    let a = cube(Vec3::ONE);
    let mut far = a.clone();
    deform::transform(
        &mut far,
        Affine3A::from_translation(Vec3::new(5.0, 0.0, 0.0)),
    );
    for (x, y, op) in [
        (&a, &a, BooleanOp::Difference),
        (&a, &far, BooleanOp::Intersection),
    ] {
        let r = boolean(x, y, op).unwrap();
        assert_eq!((r.points.len(), r.prims.len()), (0, 0), "{op:?}");
    }
}

/// Issue 37, item 10: a long scatter reports its progress and stops when asked. Two hundred
/// thousand points a tiny distance apart take several steps of `STEP_EVERY` tries; the
/// fractions rise within 0..=1, and answering `true` stops it with no mesh.
#[test]
fn a_long_scatter_reports_progress_and_stops_when_asked() {
    use kiln_mesh::edit::scatter::{STEP_EVERY, ScatterError, scatter_with};
    let g = kiln_mesh::generate::grid("g", glam::Vec2::splat(100.0), 10, 10).unwrap();
    let count = 200_000u32;
    let mut seen = vec![];
    let m = scatter_with("s", &g, (count, 3, 1e-4), &mut |f| {
        seen.push(f);
        false
    })
    .unwrap();
    assert_eq!(m.points.len(), count as usize);
    assert_eq!(seen.len() as u64, count as u64 / STEP_EVERY);
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert!(seen.iter().all(|f| (0.0..=1.0).contains(f)), "{seen:?}");
    let mut calls = 0;
    let e = scatter_with("s", &g, (count, 3, 1e-4), &mut |_| {
        calls += 1;
        calls == 2
    })
    .unwrap_err();
    assert!(matches!(e, ScatterError::Stopped), "{e:?}");
    assert_eq!(calls, 2);
}
