"""Gray–Scott reference (Pearson 1993, as kiln-sim's gray_scott.rs documents it).

Run: `python3 gray_scott.py` from this folder (Python 3, NumPy); it writes
../fixtures/gray_scott.txt and the gray_scott_*.bin fields it names.

What it computes, from the documented model and not from Kiln's loop:

    u' = u + dt (du ∇²u − u v² + feed (1 − u))
    v' = v + dt (dv ∇²v + u v² − (feed + kill) v)

on a torus (np.roll wraps both axes), ∇² the 3 × 3 stencil of weight −1 at the centre,
0.2 at the four sides and 0.05 at the four corners, forward Euler. Arrays are (height,
width, channel) with channel 0 = u and 1 = v, row 0 at the top, as a kiln grid stores them.

The start fields and rate maps are made here (seeded NumPy), rounded to f32 and written,
so the Rust test feeds Kiln the very same floats. Rates given as numbers are rounded to
f32 too (the op reads them as f32). The reference then runs in float64; Kiln runs in
float32. The script also runs the same equations in float32 and reports the largest gap
(`float32_gap`), and the largest change that a wrong model would make (`sensitivity`):
the tolerance of the Rust test sits far above the first and far below the second.
"""

import numpy as np

from fixture import py_float, write_f32, write_text

W, H = 40, 28  # not square, so a transposed field cannot pass


def laplacian(a):
    """The documented 3 × 3 Laplacian of a 2D array on a torus."""
    r = lambda dy, dx: np.roll(a, (dy, dx), axis=(0, 1))
    sides = r(1, 0) + r(-1, 0) + r(0, 1) + r(0, -1)
    corners = r(1, 1) + r(1, -1) + r(-1, 1) + r(-1, -1)
    return 0.2 * sides + 0.05 * corners - a


def five_point(a):
    """A wrong stencil, for the sensitivity figure: the 5-point Laplacian."""
    r = lambda dy, dx: np.roll(a, (dy, dx), axis=(0, 1))
    return 0.25 * (r(1, 0) + r(-1, 0) + r(0, 1) + r(0, -1)) - a


def clamped(a):
    """The documented stencil with edges clamped instead of wrapped (also wrong)."""
    p = np.pad(a, 1, mode="edge")
    at = lambda dy, dx: p[1 + dy : 1 + dy + a.shape[0], 1 + dx : 1 + dx + a.shape[1]]
    sides = at(1, 0) + at(-1, 0) + at(0, 1) + at(0, -1)
    corners = at(1, 1) + at(1, -1) + at(-1, 1) + at(-1, -1)
    return 0.2 * sides + 0.05 * corners - a


def run(field, feed, kill, du, dv, dt, steps, lap=laplacian, dtype=np.float64):
    """`steps` Euler steps of `field` (H, W, 2); rates are numbers or (H, W) arrays."""
    u = field[..., 0].astype(dtype)
    v = field[..., 1].astype(dtype)
    feed, kill, du, dv, dt = (np.asarray(x, dtype=dtype) for x in (feed, kill, du, dv, dt))
    for _ in range(steps):
        uvv = u * v * v
        u, v = (
            u + dt * (du * lap(u) - uvv + feed * (1 - u)),
            v + dt * (dv * lap(v) + uvv - (feed + kill) * v),
        )
    return np.stack([u, v], axis=-1)


def start(rng):
    """u = 1, v = 0 but for square spots of u = 0.5, v = 0.25 (one across the corner, so
    the wrap matters), with a little noise; rounded to f32."""
    g = np.zeros((H, W, 2))
    g[..., 0] = 1.0
    for cx, cy, r in [(8, 9, 3), (27, 17, 4), (0, 0, 3), (35, 4, 2)]:
        ys = np.arange(cy - r, cy + r) % H
        xs = np.arange(cx - r, cx + r) % W
        g[np.ix_(ys, xs)] = [0.5, 0.25]
    g += rng.uniform(-0.01, 0.01, g.shape)
    g[..., 1] = np.clip(g[..., 1], 0, None)
    return g.astype(np.float32)


def f32(x):
    return np.float64(np.float32(x))


def case(name, field, rates, dt, substeps, ticks):
    """Fixture fields for `ticks` ticks of `substeps` steps each from `field`."""
    feed, kill, du, dv = rates
    out = [("case", name), ("width", W), ("height", H), ("dt", py_float(dt))]
    out.append(("initial", write_f32(f"gray_scott_{name}_start.bin", field)))
    for key, value in zip(["feed", "kill", "du", "dv"], rates):
        if np.ndim(value):
            out.append((key, "map " + write_f32(f"gray_scott_{name}_{key}.bin", value)))
        else:
            out.append((key, py_float(value)))
    out += [("substeps", substeps), ("ticks", ticks)]
    dt = f32(dt)
    state = field.astype(np.float64)
    gap = 0.0
    state32 = field.copy()
    for t in range(1, ticks + 1):
        state = run(state, feed, kill, du, dv, dt, substeps)
        state32 = run(state32, feed, kill, du, dv, dt, substeps, dtype=np.float32)
        gap = max(gap, float(np.abs(state32 - state).max()))
        out.append(("after", f"{t} " + write_f32(f"gray_scott_{name}_{t}.bin", state)))
    steps = substeps * ticks
    want = state
    wrong = {
        "feed+0.001": run(field, feed + 0.001, kill, du, dv, dt, steps),
        "kill+0.001": run(field, feed, kill + 0.001, du, dv, dt, steps),
        "du_dv_swapped": run(field, feed, kill, dv, du, dt, steps),
        "dt*1.01": run(field, feed, kill, du, dv, dt * 1.01, steps),
        "five_point_stencil": run(field, feed, kill, du, dv, dt, steps, lap=five_point),
        "clamped_edges": run(field, feed, kill, du, dv, dt, steps, lap=clamped),
        "one_step_fewer": run(field, feed, kill, du, dv, dt, steps - 1),
    }
    out.append(("float32_gap", py_float(gap)))
    for k, v in wrong.items():
        out.append(("sensitivity", f"{k} {py_float(np.abs(v - want).max())}"))
    out.append(("v_total", py_float(want[..., 1].sum())))
    return out


def main():
    rng = np.random.default_rng(16)
    a = start(rng)
    uniform = case(
        "uniform", a, tuple(f32(x) for x in (0.037, 0.06, 1.0, 0.5)), 1.0, 25, 4
    )
    b = start(rng)
    ys, xs = np.mgrid[0:H, 0:W]
    feed = (0.02 + 0.04 * xs / (W - 1)).astype(np.float32).astype(np.float64)
    kill = (0.055 + 0.01 * ys / (H - 1)).astype(np.float32).astype(np.float64)
    maps = case("maps", b, (feed, kill, f32(0.9), f32(0.45)), 0.8, 20, 3)
    single = case("one_step", a, tuple(f32(x) for x in (0.055, 0.062, 1.0, 0.5)), 1.0, 1, 1)
    write_text("gray_scott.txt", __doc__.split("\n\n")[0] + "\nWritten by tests/reference/gray_scott.py.", [uniform, maps, single])
    for c in (uniform, maps, single):
        print(c[0][1], [f for f in c if f[0] in ("float32_gap", "sensitivity")])


if __name__ == "__main__":
    main()
