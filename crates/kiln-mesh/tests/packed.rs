//! Packed instances: `mesh.copy_to_points` with `packed` holds one source and a transform
//! per copy; unpacking gives the same geometry as copying; the codec keeps them.

use glam::{Affine3A, Vec3};
use kiln_core::codec::HeavyCodec;
use kiln_core::prelude::*;
use kiln_mesh::edit::copy::copy_to_points;
use kiln_mesh::edit::packed::{pack_to_points, unpack};
use kiln_mesh::generate::*;
use kiln_mesh::{AttribValues, Mesh, MeshCodec};

fn targets() -> Mesh {
    let mut t = Mesh::new();
    for p in [
        Vec3::ZERO,
        Vec3::new(3.0, 0.0, 0.0),
        Vec3::new(0.0, 5.0, -2.0),
    ] {
        t.add_point(p);
    }
    t.point_attrs
        .insert("pscale", AttribValues::Float(vec![1.0, 2.0, 0.5]));
    t.point_attrs
        .insert("N", AttribValues::Vec3(vec![Vec3::Y, Vec3::X, Vec3::Z]));
    t
}

#[test]
fn packing_holds_a_transform_per_point_and_unpacks_to_the_copies() {
    let source = cube(Vec3::ONE);
    let t = targets();
    let packed = pack_to_points("p", &source, &t).unwrap();
    packed.check().unwrap();
    assert!(packed.points.is_empty() && packed.prims.is_empty());
    assert_eq!(packed.instance_count(), 3);
    assert_eq!(*packed.packed[0].source, source);
    // Instance 1: scaled by 2, +Y turned to +X, at (3, 0, 0): the source's corner
    // (0.5, 0.5, 0.5) scales to (1, 1, 1), turns to (1, -1, 1) (a quarter turn about -Z takes
    // Y to X and X to -Y) and moves to (4, -1, 1).
    let m = packed.packed[0].transforms[1];
    let corner = m.transform_point3(Vec3::splat(0.5));
    assert!(
        (corner - Vec3::new(4.0, -1.0, 1.0)).length() < 1e-5,
        "{corner}"
    );
    let copies = copy_to_points("c", &source, &t).unwrap();
    assert_eq!(unpack("u", &packed).unwrap(), copies);
}

#[test]
fn merged_and_encoded_packed_sets_survive() {
    let source = icosphere("s", 1.0, 1).unwrap();
    let packed = pack_to_points("p", &source, &targets()).unwrap();
    let ground = grid("g", glam::Vec2::splat(4.0), 2, 2).unwrap();
    let scene = kiln_mesh::edit::restructure::merge("m", &ground, &packed).unwrap();
    assert_eq!(scene.instance_count(), 3);
    assert_eq!(scene.prims.len(), ground.prims.len());
    let full = unpack("u", &scene).unwrap();
    assert_eq!(
        full.prims.len(),
        ground.prims.len() + 3 * source.prims.len()
    );
    // The codec keeps the packed sets, and the hash sees them.
    let v = scene.clone().into_value();
    let Value::Heavy(h) = &v else { unreachable!() };
    let mut bytes = Vec::new();
    MeshCodec.encode(h, &mut bytes).unwrap();
    let back = MeshCodec
        .decode(&mut kiln_core::codec::ByteReader::new(&bytes))
        .unwrap();
    assert_eq!(back.as_heavy::<Mesh>(), Some(&scene));
    let mut moved = scene.clone();
    moved.packed[0].transforms[0] = Affine3A::from_translation(Vec3::X);
    assert_ne!(moved.into_value().content_hash(), v.content_hash());
}

#[test]
fn the_op_packs_on_request() {
    let mut g = Graph::new();
    g.add_node("ball", "mesh.icosphere").unwrap();
    g.add_node("pts", "mesh.grid").unwrap();
    g.add_node("copy", "mesh.copy_to_points").unwrap();
    g.set_param("copy", "packed", Value::Bool(true)).unwrap();
    g.connect(PortRef::new("ball", "out"), PortRef::new("copy", "source"));
    g.connect(PortRef::new("pts", "out"), PortRef::new("copy", "target"));
    g.add_node("flat", "mesh.unpack").unwrap();
    g.connect(PortRef::new("copy", "out"), PortRef::new("flat", "mesh"));
    let mut eval = LazyEvaluator::new(kiln_mesh::registry());
    let out = eval
        .evaluate(
            &g,
            &Request::new(["ball", "pts", "copy", "flat"]),
            &EvalContext::new(),
        )
        .unwrap();
    let get = |n: &str| out.get(n).unwrap().as_heavy::<Mesh>().unwrap().clone();
    let (ball, pts, copy, flat) = (get("ball"), get("pts"), get("copy"), get("flat"));
    assert_eq!(copy.instance_count(), pts.points.len());
    assert_eq!(flat.prims.len(), pts.points.len() * ball.prims.len());
    assert!(flat.packed.is_empty());
}
