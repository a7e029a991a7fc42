//! Typed attributes: named arrays of values on one class of elements (points, vertices,
//! primitives) or a single value on the whole mesh (detail), as in Houdini and Blender.

use glam::{Vec2, Vec3, Vec4};
use std::collections::BTreeMap;

/// The class of elements an attribute is stored on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AttribClass {
    /// One value per point.
    Point,
    /// One value per vertex (a corner of a primitive).
    Vertex,
    /// One value per primitive.
    Primitive,
    /// One value for the whole mesh.
    Detail,
}

impl AttribClass {
    /// Every class, in storage order.
    pub const ALL: [AttribClass; 4] = [
        AttribClass::Point,
        AttribClass::Vertex,
        AttribClass::Primitive,
        AttribClass::Detail,
    ];

    /// The class's name in params and messages: `point`, `vertex`, `primitive`, `detail`.
    pub fn name(self) -> &'static str {
        match self {
            AttribClass::Point => "point",
            AttribClass::Vertex => "vertex",
            AttribClass::Primitive => "primitive",
            AttribClass::Detail => "detail",
        }
    }

    /// The class named `name` (see [`AttribClass::name`]; `prim` is also accepted).
    pub fn parse(name: &str) -> Option<AttribClass> {
        match name {
            "point" => Some(AttribClass::Point),
            "vertex" => Some(AttribClass::Vertex),
            "primitive" | "prim" => Some(AttribClass::Primitive),
            "detail" => Some(AttribClass::Detail),
            _ => None,
        }
    }
}

/// The values of one attribute, one per element of its class.
#[derive(Clone, Debug, PartialEq)]
pub enum AttribValues {
    /// Floats.
    Float(Vec<f32>),
    /// Integers.
    Int(Vec<i32>),
    /// 2-vectors (texture coordinates).
    Vec2(Vec<Vec2>),
    /// 3-vectors (normals, colours, velocities).
    Vec3(Vec<Vec3>),
    /// 4-vectors (orientations as quaternions, colours with alpha).
    Vec4(Vec<Vec4>),
}

/// One source element and its weight in a blended element (see [`AttribValues::blend`]).
pub type Weighted = (u32, f32);

impl AttribValues {
    /// How many elements hold a value.
    pub fn len(&self) -> usize {
        match self {
            AttribValues::Float(v) => v.len(),
            AttribValues::Int(v) => v.len(),
            AttribValues::Vec2(v) => v.len(),
            AttribValues::Vec3(v) => v.len(),
            AttribValues::Vec4(v) => v.len(),
        }
    }

    /// Whether no element holds a value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The type's name: `float`, `int`, `vec2`, `vec3`, `vec4`.
    pub fn type_name(&self) -> &'static str {
        match self {
            AttribValues::Float(_) => "float",
            AttribValues::Int(_) => "int",
            AttribValues::Vec2(_) => "vec2",
            AttribValues::Vec3(_) => "vec3",
            AttribValues::Vec4(_) => "vec4",
        }
    }

    /// Components per element (1 to 4).
    pub fn width(&self) -> usize {
        match self {
            AttribValues::Float(_) | AttribValues::Int(_) => 1,
            AttribValues::Vec2(_) => 2,
            AttribValues::Vec3(_) => 3,
            AttribValues::Vec4(_) => 4,
        }
    }

    /// Element `i` as four floats (missing components 0; ints converted).
    pub fn get4(&self, i: usize) -> Vec4 {
        match self {
            AttribValues::Float(v) => Vec4::new(v[i], 0.0, 0.0, 0.0),
            AttribValues::Int(v) => Vec4::new(v[i] as f32, 0.0, 0.0, 0.0),
            AttribValues::Vec2(v) => v[i].extend(0.0).extend(0.0),
            AttribValues::Vec3(v) => v[i].extend(0.0),
            AttribValues::Vec4(v) => v[i],
        }
    }

    /// Set element `i` from four floats (components past the width ignored, ints rounded).
    pub fn set4(&mut self, i: usize, x: Vec4) {
        match self {
            AttribValues::Float(v) => v[i] = x.x,
            AttribValues::Int(v) => v[i] = x.x.round() as i32,
            AttribValues::Vec2(v) => v[i] = x.truncate().truncate(),
            AttribValues::Vec3(v) => v[i] = x.truncate(),
            AttribValues::Vec4(v) => v[i] = x,
        }
    }

    /// An attribute of the same type holding `n` zeros.
    pub fn zeros_like(&self, n: usize) -> AttribValues {
        match self {
            AttribValues::Float(_) => AttribValues::Float(vec![0.0; n]),
            AttribValues::Int(_) => AttribValues::Int(vec![0; n]),
            AttribValues::Vec2(_) => AttribValues::Vec2(vec![Vec2::ZERO; n]),
            AttribValues::Vec3(_) => AttribValues::Vec3(vec![Vec3::ZERO; n]),
            AttribValues::Vec4(_) => AttribValues::Vec4(vec![Vec4::ZERO; n]),
        }
    }

    /// A new attribute whose element `j` blends the elements `sources[j]` of this one by
    /// their weights. Floats and vectors take the weighted sum; integers take the value of
    /// the heaviest source (ids and classes are not averaged).
    pub fn blend(&self, sources: &[&[Weighted]]) -> AttribValues {
        let mut out = self.zeros_like(sources.len());
        for (j, mix) in sources.iter().enumerate() {
            if let (AttribValues::Int(src), AttribValues::Int(dst)) = (self, &mut out) {
                let best = mix.iter().copied().fold(None::<Weighted>, |b, s| match b {
                    Some(b) if b.1 >= s.1 => Some(b),
                    _ => Some(s),
                });
                dst[j] = best.map_or(0, |(i, _)| src[i as usize]);
                continue;
            }
            let sum = mix
                .iter()
                .fold(Vec4::ZERO, |acc, &(i, w)| acc + self.get4(i as usize) * w);
            out.set4(j, sum);
        }
        out
    }

    /// A new attribute holding elements `indices` of this one, in that order.
    pub fn pick(&self, indices: &[u32]) -> AttribValues {
        fn take<T: Copy>(v: &[T], ix: &[u32]) -> Vec<T> {
            ix.iter().map(|&i| v[i as usize]).collect()
        }
        match self {
            AttribValues::Float(v) => AttribValues::Float(take(v, indices)),
            AttribValues::Int(v) => AttribValues::Int(take(v, indices)),
            AttribValues::Vec2(v) => AttribValues::Vec2(take(v, indices)),
            AttribValues::Vec3(v) => AttribValues::Vec3(take(v, indices)),
            AttribValues::Vec4(v) => AttribValues::Vec4(take(v, indices)),
        }
    }

    /// Append the elements of `other` (of the same type; another type appends zeros).
    pub fn append(&mut self, other: &AttribValues) {
        match (self, other) {
            (AttribValues::Float(a), AttribValues::Float(b)) => a.extend_from_slice(b),
            (AttribValues::Int(a), AttribValues::Int(b)) => a.extend_from_slice(b),
            (AttribValues::Vec2(a), AttribValues::Vec2(b)) => a.extend_from_slice(b),
            (AttribValues::Vec3(a), AttribValues::Vec3(b)) => a.extend_from_slice(b),
            (AttribValues::Vec4(a), AttribValues::Vec4(b)) => a.extend_from_slice(b),
            (a, b) => a.grow(a.len() + b.len()),
        }
    }

    /// Pad with zeros (or cut) to `n` elements.
    pub fn grow(&mut self, n: usize) {
        match self {
            AttribValues::Float(v) => v.resize(n, 0.0),
            AttribValues::Int(v) => v.resize(n, 0),
            AttribValues::Vec2(v) => v.resize(n, Vec2::ZERO),
            AttribValues::Vec3(v) => v.resize(n, Vec3::ZERO),
            AttribValues::Vec4(v) => v.resize(n, Vec4::ZERO),
        }
    }
}

/// The attributes of one class, by name (kept sorted, so iteration and hashing are stable).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Attributes {
    map: BTreeMap<String, AttribValues>,
}

impl Attributes {
    /// The attribute `name`.
    pub fn get(&self, name: &str) -> Option<&AttribValues> {
        self.map.get(name)
    }
    /// The attribute `name`, to change.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut AttribValues> {
        self.map.get_mut(name)
    }
    /// Set (or replace) the attribute `name`.
    pub fn insert(&mut self, name: impl Into<String>, values: AttribValues) {
        self.map.insert(name.into(), values);
    }
    /// Remove the attribute `name`, returning it.
    pub fn remove(&mut self, name: &str) -> Option<AttribValues> {
        self.map.remove(name)
    }
    /// Every attribute, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &AttribValues)> {
        self.map.iter().map(|(k, v)| (k.as_str(), v))
    }
    /// How many attributes there are.
    pub fn len(&self) -> usize {
        self.map.len()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
    /// The vec3 attribute `name`, when there is one of that type.
    pub fn vec3(&self, name: &str) -> Option<&[Vec3]> {
        match self.map.get(name) {
            Some(AttribValues::Vec3(v)) => Some(v),
            _ => None,
        }
    }
    /// The vec2 attribute `name`, when there is one of that type.
    pub fn vec2(&self, name: &str) -> Option<&[Vec2]> {
        match self.map.get(name) {
            Some(AttribValues::Vec2(v)) => Some(v),
            _ => None,
        }
    }
    /// The float attribute `name`, when there is one of that type.
    pub fn float(&self, name: &str) -> Option<&[f32]> {
        match self.map.get(name) {
            Some(AttribValues::Float(v)) => Some(v),
            _ => None,
        }
    }
    /// Every attribute blended through `sources` (see [`AttribValues::blend`]).
    pub fn blend(&self, sources: &[&[Weighted]]) -> Attributes {
        Attributes {
            map: self
                .map
                .iter()
                .map(|(k, v)| (k.clone(), v.blend(sources)))
                .collect(),
        }
    }
    /// Every attribute picked at `indices` (see [`AttribValues::pick`]).
    pub fn pick(&self, indices: &[u32]) -> Attributes {
        Attributes {
            map: self
                .map
                .iter()
                .map(|(k, v)| (k.clone(), v.pick(indices)))
                .collect(),
        }
    }
    /// Append `other`'s elements after this set's `own` elements: attributes only one side
    /// has are padded with zeros for the other side's elements.
    pub fn append(&mut self, own: usize, other: &Attributes, theirs: usize) {
        for (k, v) in &other.map {
            let mine = self
                .map
                .entry(k.clone())
                .or_insert_with(|| v.zeros_like(own));
            mine.append(v);
        }
        for v in self.map.values_mut() {
            v.grow(own + theirs);
        }
    }
}
