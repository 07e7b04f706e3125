#!/usr/bin/env python3
"""Reads the HDF5 files of h5_prog_write (a two-field program, its checkpoint and its output)
with h5py, an independent reader, and compares every dataset bitwise with numpy's run of the
same program written here (the language's contract: as written, left to right, in the element
type, no fused multiply-adds); parses each XDMF sidecar and checks that it shows every field on
one grid with the right dimensions, precision and dataset paths.

    h5_prog_check.py DIR f|d N0 N1 K N
"""
import os
import sys
import xml.etree.ElementTree as ET

try:
    import h5py
    import numpy as np
except ImportError:  # meson counts 77 as skipped
    print("h5_prog_check: no h5py or numpy for this python (Debian: python3-h5py)")
    sys.exit(77)


def start(sizes, dt):
    i, j = np.indices(sizes)
    u = ((i * 37 + j * 101) % 64) / 64.0
    up = ((i * 11 + j * 7) % 16) / 64.0
    v = ((i * 53 + j * 29) % 32) / 128.0
    f = 0.02 + ((i + 2 * j) % 8) / 256.0
    return {"u": u.astype(dt), "u.prev": up.astype(dt), "v": v.astype(dt), "f": f.astype(dt)}


def at(a, d0, d1):
    """a[d0,d1] of the program, periodic: the value at (i + d0, j + d1)."""
    return np.roll(a, (-d0, -d1), axis=(0, 1))


def lap(a, c):
    return (((at(a, -1, 0) + at(a, 1, 0)) + at(a, 0, -1)) + at(a, 0, 1)) - c(4) * a


def step(s, c):
    u, up, v, f = s["u"], s["u.prev"], s["v"], s["f"]
    uvv = (u * v) * v
    un = (((u + c(0.16) * lap(u, c)) - uvv) + f * (c(1) - u)) + c(0.25) * (u - up)
    vn = ((v + c(0.08) * lap(v, c)) + uvv) - (f + c(0.06)) * v
    return {"u": un, "u.prev": u, "v": vn, "f": f}


def same(path, name, got, want):
    assert got.dtype == want.dtype and got.shape == want.shape, (path, name, got.dtype, got.shape)
    bad = np.count_nonzero(got.view(np.uint8) != want.view(np.uint8))
    assert bad == 0, "%s:/%s: %d bytes differ from numpy" % (path, name, bad)


def check_h5(path, want, names, iteration):
    with h5py.File(path, "r") as h:
        assert sorted(h.keys()) == sorted(names), (path, sorted(h.keys()))
        for name in names:
            d = h[name]
            same(path, name, d[...], want[name])
            assert int(d.attrs["iteration"]) == iteration, (path, name, d.attrs["iteration"])
            assert tuple(int(x) for x in d.attrs["sizes"]) == want[name].shape
    print("h5_prog_check: %s: %s bitwise equal to numpy at %d" % (path, ", ".join(names),
                                                                   iteration))


def check_xdmf(path, names, sizes, dt, iteration):
    xmf = path[: -len(".h5")] + ".xmf"
    grids = ET.parse(xmf).getroot().findall("./Domain/Grid")
    assert len(grids) == 1, xmf
    g = grids[0]
    dims = tuple(int(x) for x in g.find("Topology").get("Dimensions").split())
    assert dims == sizes and g.find("Topology").get("TopologyType") == "2DCoRectMesh", dims
    assert int(g.find("Time").get("Value")) == iteration
    seen = {}
    for a in g.findall("Attribute"):
        item = a.find("DataItem")
        assert tuple(int(x) for x in item.get("Dimensions").split()) == sizes, xmf
        assert item.get("Format") == "HDF" and int(item.get("Precision")) == dt.itemsize
        seen[a.get("Name")] = item.text.strip()
    base = os.path.basename(path)
    assert seen == {n: base + ":/" + n for n in names}, (xmf, seen)
    print("h5_prog_check: %s shows %s on one %s grid" % (xmf, ", ".join(sorted(seen)), sizes))


def main():
    out, typ = sys.argv[1], sys.argv[2]
    n0, n1, k, n = (int(x) for x in sys.argv[3:7])
    dt = np.dtype(np.float32 if typ == "f" else np.float64)
    c, sizes = dt.type, (n0, n1)
    s = start(sizes, dt)
    for _ in range(k):
        s = step(s, c)
    levels = ["f", "u", "u.prev", "v"]  # the checkpoint: every level, the coefficient too
    check_h5(os.path.join(out, "ck.h5"), s, levels, k)
    check_xdmf(os.path.join(out, "ck.h5"), levels, sizes, dt, k)
    for _ in range(n - k):
        s = step(s, c)
    fields = ["f", "u", "v"]  # the output callback's tiles: one per field
    for name in ("out.h5", "resumed.h5"):
        check_h5(os.path.join(out, name), s, fields, n)
        check_xdmf(os.path.join(out, name), fields, sizes, dt, n)


if __name__ == "__main__":
    main()
