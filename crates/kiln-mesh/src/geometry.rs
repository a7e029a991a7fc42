//! The geometry value: points, vertices, primitives, their attributes and groups.
//!
//! As in Houdini, a *point* is a position (and its point attributes), a *vertex* is one
//! corner of one primitive and refers to a point, and a *primitive* is a closed polygon or
//! an open polyline made of consecutive vertices. Two faces sharing an edge share its two
//! points but each has its own vertices, so a vertex attribute (a UV seam, a hard normal)
//! can differ on either side while the points stay welded.

use crate::attribute::{AttribClass, Attributes};
use crate::group::Groups;
use crate::packed::Packed;
use glam::Vec3;

/// What a primitive is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimKind {
    /// A closed polygon: its last vertex joins its first.
    Polygon,
    /// An open polyline through its vertices.
    Polyline,
}

/// A primitive: `count` consecutive vertices from `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Primitive {
    /// Index of its first vertex.
    pub start: u32,
    /// Number of vertices.
    pub count: u32,
    /// Polygon or polyline.
    pub kind: PrimKind,
}

impl Primitive {
    /// Its vertex indices.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.count) as usize
    }
}

/// A mesh: points, vertices, primitives, attributes on each class and on the whole, groups.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Mesh {
    /// Point positions (the attribute Houdini calls `P`).
    pub points: Vec<Vec3>,
    /// The point each vertex refers to.
    pub vertices: Vec<u32>,
    /// Primitives, each a run of consecutive vertices.
    pub prims: Vec<Primitive>,
    /// Point attributes (one value per point).
    pub point_attrs: Attributes,
    /// Vertex attributes (one value per vertex).
    pub vertex_attrs: Attributes,
    /// Primitive attributes (one value per primitive).
    pub prim_attrs: Attributes,
    /// Detail attributes (one value each).
    pub detail_attrs: Attributes,
    /// Named sets of points and of primitives.
    pub groups: Groups,
    /// Packed instances: shared source meshes placed by transforms, beside the geometry
    /// above (see [`crate::packed`]).
    pub packed: Vec<Packed>,
}

impl Mesh {
    /// An empty mesh.
    pub fn new() -> Mesh {
        Mesh::default()
    }

    /// Add a point, returning its index.
    pub fn add_point(&mut self, p: Vec3) -> u32 {
        self.points.push(p);
        (self.points.len() - 1) as u32
    }

    /// Add a primitive of kind `kind` through the points `pts` (one new vertex each),
    /// returning its index.
    pub fn add_prim(&mut self, kind: PrimKind, pts: &[u32]) -> u32 {
        let start = self.vertices.len() as u32;
        self.vertices.extend_from_slice(pts);
        self.prims.push(Primitive {
            start,
            count: pts.len() as u32,
            kind,
        });
        (self.prims.len() - 1) as u32
    }

    /// Add a closed polygon through `pts`.
    pub fn add_polygon(&mut self, pts: &[u32]) -> u32 {
        self.add_prim(PrimKind::Polygon, pts)
    }

    /// Add an open polyline through `pts`.
    pub fn add_polyline(&mut self, pts: &[u32]) -> u32 {
        self.add_prim(PrimKind::Polyline, pts)
    }

    /// The points of primitive `p`'s vertices, in order.
    pub fn prim_points(&self, p: usize) -> &[u32] {
        &self.vertices[self.prims[p].range()]
    }

    /// How many elements of `class` there are (1 for detail).
    pub fn count(&self, class: AttribClass) -> usize {
        match class {
            AttribClass::Point => self.points.len(),
            AttribClass::Vertex => self.vertices.len(),
            AttribClass::Primitive => self.prims.len(),
            AttribClass::Detail => 1,
        }
    }

    /// The attributes of `class`.
    pub fn attrs(&self, class: AttribClass) -> &Attributes {
        match class {
            AttribClass::Point => &self.point_attrs,
            AttribClass::Vertex => &self.vertex_attrs,
            AttribClass::Primitive => &self.prim_attrs,
            AttribClass::Detail => &self.detail_attrs,
        }
    }

    /// The attributes of `class`, to change.
    pub fn attrs_mut(&mut self, class: AttribClass) -> &mut Attributes {
        match class {
            AttribClass::Point => &mut self.point_attrs,
            AttribClass::Vertex => &mut self.vertex_attrs,
            AttribClass::Primitive => &mut self.prim_attrs,
            AttribClass::Detail => &mut self.detail_attrs,
        }
    }

    /// Whether every primitive is a polygon of three vertices.
    pub fn is_triangles(&self) -> bool {
        self.prims
            .iter()
            .all(|p| p.kind == PrimKind::Polygon && p.count == 3)
    }

    /// The polygons' vertices as triangles (a fan from each polygon's first vertex),
    /// as vertex indices; polylines give none.
    pub fn triangle_vertices(&self) -> Vec<[u32; 3]> {
        let mut out = Vec::with_capacity(self.vertices.len());
        for p in &self.prims {
            if p.kind != PrimKind::Polygon || p.count < 3 {
                continue;
            }
            for k in 1..p.count - 1 {
                out.push([p.start, p.start + k, p.start + k + 1]);
            }
        }
        out
    }

    /// The polygons as triangles of point indices (see [`Mesh::triangle_vertices`]).
    pub fn triangles(&self) -> Vec<[u32; 3]> {
        self.triangle_vertices()
            .into_iter()
            .map(|t| t.map(|v| self.vertices[v as usize]))
            .collect()
    }

    /// Whether the structure holds together: every vertex names a point, primitives tile
    /// the vertices in order, every attribute has one value per element of its class, and
    /// groups name elements that exist. Returns what is wrong.
    pub fn check(&self) -> Result<(), String> {
        let n = self.points.len() as u64;
        if let Some(v) = self.vertices.iter().find(|&&v| v as u64 >= n) {
            return Err(format!("a vertex names point {v} of {n}"));
        }
        let mut next = 0u64;
        for (i, p) in self.prims.iter().enumerate() {
            if p.start as u64 != next {
                return Err(format!(
                    "primitive {i} starts at vertex {}, not {next}",
                    p.start
                ));
            }
            next += p.count as u64;
        }
        if next != self.vertices.len() as u64 {
            return Err(format!(
                "the primitives hold {next} vertices of {}",
                self.vertices.len()
            ));
        }
        for class in AttribClass::ALL {
            for (name, v) in self.attrs(class).iter() {
                if v.len() != self.count(class) {
                    return Err(format!(
                        "{} attribute `{name}` has {} values for {} elements",
                        class.name(),
                        v.len(),
                        self.count(class)
                    ));
                }
            }
        }
        self.groups.check(self.points.len(), self.prims.len())?;
        for (k, p) in self.packed.iter().enumerate() {
            p.check().map_err(|e| format!("packed set {k}: {e}"))?;
        }
        Ok(())
    }

    /// How many packed instances the mesh holds, over every packed set.
    pub fn instance_count(&self) -> usize {
        self.packed.iter().map(|p| p.transforms.len()).sum()
    }
}
