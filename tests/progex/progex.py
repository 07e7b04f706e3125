#!/usr/bin/env python3
"""Runs one of the program examples (examples/grayscott.c, life.c, wave2d.c, heat3d_flux.c, and
channel.c, a linear stencil with a boundary per face) on 1 to 4 ranks, in float and double, in
bands and blocks, with 1 and forced 2 or 3 time steps per halo exchange, reads the fields it
wrote with -o (stencil_write's format) and compares them bitwise with an independent numpy
computation of the same program: every operation done separately in the element type, binary
operators left to right, as the arithmetic contract says (numpy contracts nothing into fused
multiply-adds).

    progex.py EXAMPLE MPIEXEC EXE DIR [MPIEXEC ARGS...]

With PROGEX_BACKEND=NAME the example runs on that backend (-b NAME). With PROGEX_PNG=1 (libstencil built with libpng), grayscott also writes its PNG of v (-g),
which must be a PNG file.
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:  # meson counts 77 as skipped
    print("progex: no numpy for this python (Debian: python3-numpy)")
    sys.exit(77)

SEED = 7


def random(index, seed):
    """examples/prog_example.h's prog_example_random, on an array of global indices."""
    m = np.uint64(0xFFFFFFFF)
    h = (index.astype(np.uint64) * np.uint64(2654435761)) & m
    h ^= np.uint64((seed * 40503) & 0xFFFFFFFF)
    h ^= h >> np.uint64(15)
    h = (h * np.uint64(2246822519)) & m
    h ^= h >> np.uint64(13)
    return (h >> np.uint64(8)).astype(np.float64) / 16777216.0


def grid(sizes):
    """The global index arrays g0, g1, ... and the row-major linear index."""
    g = np.indices(sizes)
    return g, np.ravel_multi_index(g, sizes)


def read_sten(path, dtype, sizes):
    with open(path, "rb") as f:
        head = f.read(128)
        assert head[:8] == b"STENCIL\0", path
        ndims = int.from_bytes(head[16:20], "little")
        file_sizes = tuple(int.from_bytes(head[32 + 8 * d : 40 + 8 * d], "little")
                           for d in range(ndims))
        assert file_sizes == tuple(sizes), (path, file_sizes, sizes)
        data = np.frombuffer(f.read(), dtype=np.dtype(dtype).newbyteorder("<"))
    assert data.size == np.prod(sizes), (path, data.size)
    return data.reshape(sizes).astype(dtype)


def shift(p, off):
    """The field read at offset off from a copy p padded by 1 on every side."""
    sl = tuple(slice(1 + o, p.shape[d] - 1 + o) for d, o in enumerate(off))
    return p[sl]


def mirror(a):
    return np.pad(a, 1, mode="symmetric")  # ghost -1 is cell 0


def periodic(a):
    return np.pad(a, 1, mode="wrap")


def vmin(a, b):
    return np.where(b < a, b, a)  # the language's min(a, b): b < a ? b : a


def lap2(p, a, c):
    """a[-1,0] + a[1,0] + a[0,-1] + a[0,1] - 4 * a, left to right."""
    s = ((shift(p, (-1, 0)) + shift(p, (1, 0))) + shift(p, (0, -1))) + shift(p, (0, 1))
    return s - c(4) * a


def grayscott(n, iters, dt):
    c = dt.type
    (g0, g1), lin = grid((n, n))
    mid, r = n // 2, n // 8 + 1
    inside = (np.abs(g0 - mid) < r) & (np.abs(g1 - mid) < r)
    u = np.where(inside, 0.5, 1.0).astype(dt)
    v = (np.where(inside, 0.25, 0.0) + 0.01 * random(lin, SEED)).astype(dt)
    Du, Dv, F, kk, step = c(0.16), c(0.08), c(0.035), c(0.065), c(1)
    for _ in range(iters):
        uvv = (u * v) * v
        lu, lv = lap2(periodic(u), u, c), lap2(periodic(v), v, c)
        un = u + step * (((Du * lu) - uvv) + (F * (c(1) - u)))
        vn = v + step * (((Dv * lv) + uvv) - ((F + kk) * v))
        u, v = un, vn
    return (n, n), {"u": u, "v": v}


def life(n, iters, dt):
    c = dt.type
    _, lin = grid((n, n))
    a = np.where(random(lin, SEED) < 0.3, 1.0, 0.0).astype(dt)
    offs = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
    for _ in range(iters):
        p = periodic(a)
        s = shift(p, offs[0])
        for o in offs[1:]:
            s = s + shift(p, o)
        alive = (s == c(3)) | ((a == c(1)) & (s == c(2)))
        a = np.where(alive, c(1), c(0))
    return (n, n), {"c": a}


def wave2d(n, iters, dt):
    c = dt.type
    sizes = (n, n + n // 2)
    (g0, g1), lin = grid(sizes)
    c2 = (np.where(g0 < n // 2, 0.1, 0.3) * (1.0 + 0.1 * random(lin, SEED))).astype(dt)
    u = np.zeros(sizes, dt)
    prev = np.zeros(sizes, dt)
    I, J = g0.astype(dt), g1.astype(dt)
    ni, nj, si, sj, w, amp = (c(sizes[0]), c(sizes[1]), c(sizes[0] // 3), c(sizes[1] // 2),
                              c(n // 8 + 1), c(1))
    edge = vmin(vmin(I, J), vmin((ni - c(1)) - I, (nj - c(1)) - J))
    damp = np.where(edge < w, c(1) - ((c(0.1) * (w - edge)) / w), c(1))
    for step in range(iters):
        t = c(step)
        lap = lap2(mirror(u), u, c)
        on = (I == si) & (J == sj) & (t < c(20))
        src = np.where(on, ((amp * t) * (c(20) - t)) / c(100), c(0))
        un = (damp * (((c(2) * u) - prev) + (c2 * lap))) + src
        prev, u = u, un
    return sizes, {"u": u, "c2": c2}


def heat3d_flux(n, iters, dt):
    c = dt.type
    sizes = (n, n + 1, n + 2)
    (g0, _, _), lin = grid(sizes)
    T = random(lin, SEED).astype(dt)
    kap = np.where(g0 < n // 2, 1.0, 0.1).astype(dt)
    pk = mirror(kap)
    units = [(-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1)]
    for step in range(iters):
        h = c(0.1) if step < iters // 2 else c(0.05)
        pt = mirror(T)
        f = [(shift(pk, o) + kap) * (shift(pt, o) - T) for o in units]
        total = ((((f[0] + f[1]) + f[2]) + f[3]) + f[4]) + f[5]
        T = T + ((h * c(0.5)) * total)
    return sizes, {"T": T, "kap": kap}


def channel(n, iters, dt):
    """A linear stencil (backends/backend.h's contract: the non-zero terms in row-major order,
    then the division), mirror faces across dimension 0, periodic along dimension 1."""
    c = dt.type
    sizes = (n, 2 * n)
    _, lin = grid(sizes)
    u = random(lin, SEED).astype(dt)
    for _ in range(iters):
        p = np.pad(np.pad(u, ((0, 0), (1, 1)), mode="wrap"), ((1, 1), (0, 0)), mode="symmetric")
        acc = shift(p, (-1, 0))
        acc = acc + c(2) * shift(p, (0, -1))
        acc = acc + c(3) * u
        acc = acc + shift(p, (0, 1))
        acc = acc + shift(p, (1, 0))
        u = acc / c(8)
    return sizes, {"u": u}


EXAMPLES = {  # name: (reference, size, iterations)
    "grayscott": (grayscott, 24, 30),
    "life": (life, 20, 40),
    "wave2d": (wave2d, 24, 60),
    "heat3d_flux": (heat3d_flux, 10, 20),
    "channel": (channel, 12, 40),
}

# (ranks, type, partition, time steps per exchange: options.steps, 1 or forced deeper halos)
RUNS = [(1, "float", "bands", 1), (3, "float", "blocks", 1), (1, "double", "blocks", 1),
        (3, "double", "bands", 1), (3, "float", "bands", 3), (2, "double", "blocks", 2),
        (4, "float", "blocks", 1),  # 2 x 2 (x 1): corners between ranks
        (4, "double", "blocks", 4), (1, "float", "bands", 4), (2, "float", "bands", 3)]


def main():
    name, mpiexec, exe, out = sys.argv[1:5]
    margs = sys.argv[5:]
    ref_fn, n, iters = EXAMPLES[name]
    os.makedirs(out, exist_ok=True)
    refs = {}
    for ranks, typ, part, steps in RUNS:
        dt = np.dtype(np.float32 if typ == "float" else np.float64)
        if typ not in refs:
            refs[typ] = ref_fn(n, iters, dt)
        sizes, want = refs[typ]
        prefix = os.path.join(out, "%s-n%d-%s-%s-t%d" % (name, ranks, typ, part, steps))
        cmd = [mpiexec] + margs + ["-n", str(ranks), exe, "-n", str(n), "-i", str(iters), "-s",
                                   str(SEED), "-f", typ, "-p", part, "-t", str(steps), "-o", prefix]
        if os.environ.get("PROGEX_BACKEND"):
            cmd += ["-b", os.environ["PROGEX_BACKEND"]]
        want_png = name == "grayscott" and os.environ.get("PROGEX_PNG") == "1"
        png = prefix + ".v.png" if want_png else None
        if png:
            cmd += ["-g", png]
        print(" ".join(cmd), flush=True)
        run = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, universal_newlines=True)
        print(run.stdout, end="", flush=True)
        said = [l for l in run.stdout.splitlines() if "steps per exchange" in l]
        want_said = "%s: steps per exchange %d (forced)" % (name, steps)
        if said != [want_said]:
            sys.exit("%s: expected the line %r, got %r" % (prefix, want_said, said))
        if png:
            with open(png, "rb") as f:
                assert f.read(8) == b"\x89PNG\r\n\x1a\n", png + " is not a PNG file"
            print("  %s: a PNG file" % png)
        for field, ref in want.items():
            got = read_sten(prefix + "." + field + ".sten", dt, sizes)
            bad = np.count_nonzero(got.view(np.uint8) != ref.view(np.uint8))
            if bad:
                diff = np.argwhere(got != ref)
                first = tuple(diff[0]) if len(diff) else None
                sys.exit("%s: field %s: %d bytes differ from numpy (first cell %s: %r vs %r)" %
                         (prefix, field, bad, first, got[first] if first else None,
                          ref[first] if first else None))
            print("  %s %s %s: bitwise equal to numpy" % (field, dt, sizes))


if __name__ == "__main__":
    main()
