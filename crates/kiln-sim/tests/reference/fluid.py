"""Stable fluids reference (Stam 1999, on the staggered torus kiln-sim's fluid.rs documents).

Run: `python3 fluid.py` from this folder (Python 3, NumPy); it writes ../fixtures/fluid.txt
and the fluid_*.bin fields it names.

A state is (height, width, 3): channel 0 the x velocity on each cell's right face (at
x + 1/2), 1 the y velocity on its lower face (at y + 1/2, y down), 2 the dye at its centre,
in cells per second on a torus. What it computes, from the method and not from Kiln's code:

* the divergence by backward differences, div = vx(x) − vx(x−1) + vy(y) − vy(y−1);
* the projection exactly, by FFT: solve L p = div with L the 5-point Laplacian (the
  composition of those backward differences with forward-difference gradients, whose
  eigenvalues on the torus are 2 cos(2π kx / W) + 2 cos(2π ky / H) − 4), then subtract
  the forward-difference gradient of p. The result's divergence is zero to rounding.
  Kiln solves the same equation by red-black Gauss–Seidel sweeps, so it converges to this.
* a step without sources (Stam's order as kiln documents it: project, advect, project):
  each quantity is traced back from where it lives by the velocity interpolated there,
  P' = P − dt u(P), and read bilinearly at P' (periodic).

Cases: `project` (a random field, one tick of `dt = 0`, which is projection twice and an
advection that moves nothing), and `vortex` (a field made divergence-free exactly from a
stream function at cell corners, carrying a blob of dye, run for 20 ticks). The script
writes the exact results in float64 (rounded to f32 in the files), its divergences and
dye masses, and how far wrong models land (`sensitivity`).
"""

import numpy as np

from fixture import py_float, write_f32, write_text

W, H = 24, 16


def divergence(s):
    vx, vy = s[..., 0], s[..., 1]
    return vx - np.roll(vx, 1, axis=1) + vy - np.roll(vy, 1, axis=0)


def project(s):
    """The exact discrete projection (see the module docs)."""
    div = divergence(s)
    ky = 2 * np.pi * np.fft.fftfreq(H)[:, None]
    kx = 2 * np.pi * np.fft.fftfreq(W)[None, :]
    eig = 2 * np.cos(kx) + 2 * np.cos(ky) - 4
    eig[0, 0] = 1.0
    ph = np.fft.fft2(div) / eig
    ph[0, 0] = 0.0
    p = np.real(np.fft.ifft2(ph))
    out = s.copy()
    out[..., 0] -= np.roll(p, -1, axis=1) - p
    out[..., 1] -= np.roll(p, -1, axis=0) - p
    return out


def sample(q, x, y):
    """`q` (H, W) read bilinearly at points (x, y) in its own index coordinates, wrapping."""
    x0, y0 = np.floor(x), np.floor(y)
    fx, fy = x - x0, y - y0
    x0 = x0.astype(int) % W
    y0 = y0.astype(int) % H
    x1, y1 = (x0 + 1) % W, (y0 + 1) % H
    return (q[y0, x0] * (1 - fx) + q[y0, x1] * fx) * (1 - fy) + (
        q[y1, x0] * (1 - fx) + q[y1, x1] * fx
    ) * fy


def velocity(s, px, py, stagger=0.5):
    """The velocity at points (px, py) in cells: vx lives at (i + 1/2, j), vy at (i, j + 1/2)."""
    return sample(s[..., 0], px - stagger, py), sample(s[..., 1], px, py - stagger)


def advect(s, dt, stagger=0.5):
    ys, xs = np.mgrid[0:H, 0:W].astype(float)
    out = np.empty_like(s)
    # Where each quantity lives, in cells: vx, vy, dye.
    for c, (px, py) in enumerate([(xs + stagger, ys), (xs, ys + stagger), (xs, ys)]):
        ux, uy = velocity(s, px, py, stagger)
        bx, by = px - dt * ux, py - dt * uy
        ox, oy = [(stagger, 0.0), (0.0, stagger), (0.0, 0.0)][c]
        out[..., c] = sample(s[..., c], bx - ox, by - oy)
    return out


def step(s, dt, stagger=0.5, last_projection=True):
    v = advect(project(s), dt, stagger)
    return project(v) if last_projection else v


def stream_field():
    """A smooth velocity from a stream function ψ at cell corners: vx = ψ(x, y) − ψ(x, y−1),
    vy = −(ψ(x, y) − ψ(x−1, y)), whose backward-difference divergence is exactly zero."""
    ys, xs = np.mgrid[0:H, 0:W].astype(float)
    psi = 5.0 * np.sin(2 * np.pi * (xs + 0.5) / W) * np.sin(2 * np.pi * (ys + 0.5) / H)
    psi += 1.5 * np.cos(4 * np.pi * (xs + 0.5) / W + 1.0)
    s = np.zeros((H, W, 3))
    s[..., 0] = psi - np.roll(psi, 1, axis=0)
    s[..., 1] = -(psi - np.roll(psi, 1, axis=1))
    s[..., 2] = np.exp(-((xs - 7.0) ** 2 + (ys - 8.0) ** 2) / 6.0)
    return s


def main():
    rng = np.random.default_rng(99)
    cases = []

    start = rng.uniform(-1, 1, (H, W, 3)).astype(np.float32)
    start[..., 2] = np.abs(start[..., 2])
    s = start.astype(np.float64)
    want = project(s)
    assert np.abs(divergence(want)).max() < 1e-12
    assert np.abs(project(want) - want).max() < 1e-12
    cases.append([
        ("case", "project"), ("width", W), ("height", H), ("dt", "0.0"), ("ticks", 1),
        ("initial", write_f32("fluid_project_start.bin", start)),
        ("after", "1 " + write_f32("fluid_project_1.bin", want)),
        ("max_divergence_before", py_float(np.abs(divergence(s)).max())),
        ("max_divergence_after", py_float(np.abs(divergence(want)).max())),
        ("dye_mass", py_float(s[..., 2].sum())),
        ("sensitivity", f"unprojected {py_float(np.abs(want - s).max())}"),
    ])

    start = stream_field().astype(np.float32)
    s = start.astype(np.float64)
    dt = float(np.float32(0.1))
    ticks = 20
    fields = [("case", "vortex"), ("width", W), ("height", H), ("dt", py_float(dt)),
              ("ticks", ticks), ("initial", write_f32("fluid_vortex_start.bin", start)),
              ("max_divergence_before", py_float(np.abs(divergence(s)).max())),
              ("max_speed", py_float(np.abs(s[..., :2]).max())),
              ("dye_mass_before", py_float(s[..., 2].sum()))]
    state = s
    for t in range(1, ticks + 1):
        state = step(state, dt)
        if t in (1, 5, 20):
            fields.append(("after", f"{t} " + write_f32(f"fluid_vortex_{t}.bin", state)))
    mass = state[..., 2].sum()
    fields.append(("dye_mass_after", py_float(mass)))
    fields.append(("max_divergence_after", py_float(np.abs(divergence(state)).max())))
    moved = np.abs(state[..., 2] - s[..., 2]).sum()
    fields.append(("dye_moved", py_float(moved)))
    wrong = {"forward_trace": lambda x: step(x, -dt), "collocated": lambda x: step(x, dt, 0.0),
             "dt*1.01": lambda x: step(x, dt * 1.01),
             "no_last_projection": lambda x: step(x, dt, last_projection=False)}
    for name, f in wrong.items():
        x = s
        for _ in range(ticks):
            x = f(x)
        fields.append(("sensitivity", f"{name} {py_float(np.abs(x - state).max())}"))
    cases.append(fields)
    write_text("fluid.txt", __doc__.split("\n\n")[0] + "\nWritten by tests/reference/fluid.py.", cases)
    for c in cases:
        print([f for f in c if f[0] not in ("initial", "after")])


if __name__ == "__main__":
    main()
