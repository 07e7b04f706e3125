#!/usr/bin/env python3
"""Reads an HDF5 snapshot of libstencil with h5py (an independent reader) and compares it bitwise
with the serial reference (raw little-endian doubles, rounded to the file's element type); checks
its attributes and that its XDMF sidecar parses and describes it.

    h5_check.py OUT.h5 REF.raw ITERATIONS N0 [N1 [N2]]
"""
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np


def main():
    path, raw, iters = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sizes = tuple(int(s) for s in sys.argv[4:])
    with h5py.File(path, "r") as f:
        u = f["u"]
        data = u[...]
        assert data.shape == sizes, (data.shape, sizes)
        assert int(u.attrs["iteration"]) == iters, u.attrs["iteration"]
        assert tuple(int(s) for s in u.attrs["sizes"]) == sizes
    ref = np.fromfile(raw, dtype="<f8").reshape(sizes).astype(data.dtype)
    bad = np.count_nonzero(data.view(np.uint8) != ref.view(np.uint8))
    assert bad == 0, "%d bytes differ from the serial reference" % bad
    xmf = path[: -len(".h5")] + ".xmf"
    root = ET.parse(xmf).getroot()
    topo = root.find("./Domain/Grid/Topology")
    dims = tuple(int(s) for s in topo.get("Dimensions").split())
    assert dims == (sizes if len(sizes) > 1 else (1,) + sizes), dims
    item = root.find("./Domain/Grid/Attribute/DataItem")
    assert item.get("Format") == "HDF" and item.text.strip() == path.split("/")[-1] + ":/u"
    assert int(root.find("./Domain/Grid/Time").get("Value")) == iters
    print("h5_check: %s %s %s: bitwise equal to the reference, XDMF ok" % (path, data.dtype, sizes))


if __name__ == "__main__":
    main()
