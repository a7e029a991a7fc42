"""Mass–spring reference (a lattice of unit masses and Hooke springs, Störmer–Verlet), as
kiln-sim's cloth.rs documents its cloth.

Run: `python3 cloth.py` from this folder (Python 3, NumPy); it writes ../fixtures/cloth.txt
and the cloth_*.bin positions it names.

What it computes, from the definition and not from Kiln's loop: a `w` × `h` lattice hanging
in the x-y plane (top row at y = 0, centred on x = 0, spacing s, at rest), its two top
corners pinned. Springs join each point to its neighbours right and down (rest s), along
both diagonals (rest s √2) and two apart right and down (rest 2 s); each spring is listed
once and pulls both its ends by k (|d| − rest) d / |d|. Gravity g acts on every free point;
there is no damping. Störmer–Verlet: x' = 2 x − x_prev + a dt², pinned points stay.

Energy per unit mass, as cloth.rs defines it: kinetic ½ |(x − x_prev) / dt|², spring
½ k (|d| − rest)² per spring, gravitational −g · x. The scheme is symplectic, so this energy
oscillates about its start instead of drifting; the script checks that on its own run and
writes the energy of every tick, the positions at some ticks (float64 reference, rounded to
f32), the float32 gap of the same run in float32, and how far wrong models land.
"""

import numpy as np

from fixture import py_float, write_f32, write_text

W, H, S = 7, 5, np.float32(0.1)
K, G = 2000.0, np.array([0.0, -9.81, 0.0])
TICK_DT, SUBSTEPS, TICKS = 1.0 / 32.0, 16, 30  # dt per substep 1/512, exact in binary


def lattice():
    i, j = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    pos = np.stack([(i - np.float32((W - 1) / 2)) * S, -j * S, np.zeros_like(i)], axis=-1)
    pinned = np.zeros((H, W), dtype=bool)
    pinned[0, 0] = pinned[0, W - 1] = True
    return pos.reshape(-1, 3), pinned.reshape(-1)


def springs():
    """(a, b, rest) of every spring once."""
    out = []
    for j in range(H):
        for i in range(W):
            for di, dj, rest in [(1, 0, 1.0), (0, 1, 1.0), (1, 1, np.sqrt(2)), (-1, 1, np.sqrt(2)),
                                 (2, 0, 2.0), (0, 2, 2.0)]:
                ni, nj = i + di, j + dj
                if 0 <= ni < W and 0 <= nj < H:
                    out.append((j * W + i, nj * W + ni, rest))
    a, b, rest = map(np.array, zip(*out))
    # Rest lengths as Kiln reads them: the f32 factor times the f32 spacing.
    return a, b, (rest.astype(np.float32) * S).astype(np.float64)


def accel(x, sp, k, g):
    a, b, rest = sp
    d = x[b] - x[a]
    n = np.linalg.norm(d, axis=1)
    f = (k * (n - rest) / n)[:, None] * d
    acc = np.tile(g, (len(x), 1)).astype(x.dtype)
    np.add.at(acc, a, f)
    np.add.at(acc, b, -f)
    return acc


def energy(x, prev, sp, k, g, dt):
    a, b, rest = sp
    v = (x - prev) / dt
    n = np.linalg.norm(x[b] - x[a], axis=1)
    return 0.5 * (v * v).sum() + 0.5 * k * ((n - rest) ** 2).sum() - (x @ g).sum()


def run(k=K, g=G, dt=TICK_DT / SUBSTEPS, substeps=SUBSTEPS, dtype=np.float64, keep=()):
    x0, pinned = lattice()
    sp = springs()
    x, prev = x0.astype(dtype), x0.astype(dtype)
    g, k, dt = np.asarray(g, dtype), dtype(k), dtype(dt)
    energies, kept = [energy(x, prev, sp, K, G, TICK_DT / SUBSTEPS)], {}
    for t in range(1, TICKS + 1):
        for _ in range(substeps):
            nxt = 2 * x - prev + accel(x, sp, k, g) * dt * dt
            nxt[pinned] = x[pinned]
            x, prev = nxt, x
        energies.append(energy(x.astype(float), prev.astype(float), sp, K, G, TICK_DT / SUBSTEPS))
        if t in keep:
            kept[t] = x.copy()
    return x, energies, kept


def main():
    keep = (1, 10, 30)
    x, energies, kept = run(keep=keep)
    x32, _, _ = run(dtype=np.float32)
    e0 = energies[0]
    swing = max(energies) - min(energies)
    # The scale of the motion: gravity's work on the points as they sag.
    sag = float((lattice()[0][:, 1] - x[:, 1]).max())
    scale = 9.81 * sag * W * H
    assert swing < 0.05 * scale, (swing, scale)
    assert sag > 0.05, sag
    fields = [("case", "corners"), ("width", W), ("height", H), ("spacing", py_float(S)),
              ("pins", "corners"), ("stiffness", py_float(K)), ("damping", "0.0"),
              ("gravity", " ".join(py_float(c) for c in G)), ("dt", py_float(TICK_DT)),
              ("substeps", SUBSTEPS), ("ticks", TICKS),
              ("energy", " ".join(py_float(e) for e in energies)),
              ("energy_scale", py_float(scale)), ("sag", py_float(sag)),
              ("float32_gap", py_float(np.abs(x32 - x).max()))]
    for t, pos in kept.items():
        fields.append(("positions", f"{t} " + write_f32(f"cloth_corners_{t}.bin", pos)))
    wrong = {"stiffness*1.01": run(k=K * 1.01)[0], "gravity*1.01": run(g=G * 1.01)[0],
             "dt*1.01": run(dt=TICK_DT / SUBSTEPS * 1.01)[0]}
    for name, y in wrong.items():
        fields.append(("sensitivity", f"{name} {py_float(np.abs(y - x).max())}"))
    write_text("cloth.txt", __doc__.split("\n\n")[0] + "\nWritten by tests/reference/cloth.py.", [fields])
    print([f for f in fields if f[0] not in ("energy", "positions")], "energy", e0, "swing", swing)


if __name__ == "__main__":
    main()
