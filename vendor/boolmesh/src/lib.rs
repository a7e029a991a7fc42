//--- Copyright (C) 2025 Saki Komikado <komietty@gmail.com>,
//--- This Source Code Form is subject to the terms of the Mozilla Public License v.2.0.

#![allow(clippy::too_many_arguments)]
#![allow(clippy::cast_abs_to_unsigned)]
#![allow(unused_braces)]

mod boolean03;
mod boolean45;
mod common;
mod manifold;
mod simplification;
mod tests;
mod triangulation;
mod values;

use crate::boolean03::boolean03;
use crate::boolean45::boolean45;
use crate::common::*;
use crate::manifold::*;
use crate::simplification::simplify_topology;
use crate::triangulation::triangulate;
use crate::values::*;

pub use crate::common::{K_PRECISION, Mat3, Real, Vec2, Vec3, Vec4};

pub mod prelude {
    pub use crate::common::OpType;
    pub use crate::compute_boolean;
    pub use crate::manifold::Manifold;
}

pub trait Data:
    Clone
    + Send
    + Sync
    + std::fmt::Debug
    + PartialEq
    + Default
    + std::ops::Add<Output = Self>
    + std::ops::Mul<Real, Output = Self>
{
}
impl<T> Data for T where
    T: Clone
        + Send
        + Sync
        + std::fmt::Debug
        + PartialEq
        + Default
        + std::ops::Add<Output = T>
        + std::ops::Mul<Real, Output = T>
{
}

/// Kiln patch: the first half-edge of a face whose opposite is missing, does not point
/// back at it, or lies in a face that is partly removed (a face is three half-edges, all
/// present or all removed).
fn open_half_edge(hs: &[Half]) -> Option<usize> {
    let present = |i: usize| hs.get(i).is_some_and(|h| h.tail != usize::MAX);
    let whole = |i: usize| (0..3).all(|k| present(i - i % 3 + k));
    (0..hs.len()).find(|&i| {
        present(i)
            && !(whole(i) && present(hs[i].pair) && whole(hs[i].pair) && hs[hs[i].pair].pair == i)
    })
}

pub fn compute_boolean<S: Data>(
    mp: &Manifold<S>,
    mq: &Manifold<S>,
    op: OpType,
) -> Result<Manifold<S>, String> {
    let eps = mp.eps.max(mq.eps);
    let tol = mp.tol.max(mq.tol);

    let b03 = boolean03(mp, mq, &op);
    let mut b45 = boolean45(mp, mq, &b03, &op);
    let mut trg = triangulate(mp, mq, &b45, eps)?;
    let mut val = annotate(&mut trg.hs, &b45.ps, &trg.rs, mp, mq, eps);

    // Kiln patch: the simplification below walks the half-edges around each vertex and
    // assumes every half-edge of a face has an opposite that points back at it. On some
    // degenerate inputs (meshes that are closed but cut through themselves) the
    // triangulation leaves a half-edge without one, and the walk indexed past the list (a
    // panic). Such a result is refused here instead.
    if let Some(i) = open_half_edge(&trg.hs) {
        return Err(format!(
            "the result is not closed (half-edge {i} has no opposite): an input may cut \
             through itself"
        ));
    }

    simplify_topology(
        &mut trg.hs,
        &mut b45.ps,
        &mut trg.ns,
        &mut trg.rs,
        &mut val,
        b45.nv_from_p,
        b45.nv_from_q,
        eps,
    );

    cleanup_unused_verts(&mut b45.ps, &mut trg.hs);

    Manifold::new_impl(b45.ps, trg.hs, val, Some(eps), Some(tol))
}
