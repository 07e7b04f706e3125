#!/usr/bin/env python3
"""The JAX side of the scaling comparison: 2D 4-point Jacobi in the jnp.roll form (periodic: the
rolls wrap), rows sharded over the GPUs with NamedSharding (XLA exchanges the halos), STEPS time
steps per jitted call. One JSON line per run, its fields named as bench/stencil_bench's.

    python3 bench/jax_roll.py [-n 20480] [-i 1000] [-g GPUS] [--steps 10] [--weak] [--repeat 2]

Gcells/s = cells x iterations / seconds of the timed calls (after two untimed calls that compile
and warm up); --weak makes the grid n rows per GPU by n columns."""
import argparse
import json
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=20480)
    ap.add_argument("-i", "--iters", type=int, default=1000)
    ap.add_argument("-g", "--gpus", type=int, default=0)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--weak", action="store_true")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("-t", "--type", default="float32")
    ap.add_argument("--label", default="jax")
    a = ap.parse_args()
    devs = jax.devices()
    g = a.gpus or len(devs)
    mesh = Mesh(np.array(devs[:g]), ("rows",))
    sh = NamedSharding(mesh, PartitionSpec("rows", None))
    rows = a.n * g if a.weak else a.n
    dt = jnp.dtype(a.type)

    def step(u):
        s = jnp.roll(u, 1, 0) + jnp.roll(u, -1, 0) + jnp.roll(u, 1, 1) + jnp.roll(u, -1, 1)
        return s / jnp.asarray(4, dt)

    def steps(u):
        for _ in range(a.steps):
            u = step(u)
        return u

    run = jax.jit(steps, in_shardings=sh, out_shardings=sh, donate_argnums=0)
    init = jax.jit(lambda k: jax.random.uniform(k, (rows, a.n), dt), out_shardings=sh)
    u = init(jax.random.PRNGKey(1))
    for _ in range(2):
        u = run(u)
    u.block_until_ready()
    calls = max(1, a.iters // a.steps)
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        for _ in range(calls):
            u = run(u)
        u.block_until_ready()
        times.append(time.perf_counter() - t0)
    cells = rows * a.n
    rates = [cells * calls * a.steps / t / 1e9 for t in times]
    print(json.dumps({"label": a.label, "stencil": "2d4", "kernel": "jax-roll", "type": a.type,
                      "sizes": [rows, a.n], "ranks": g, "boundary": "periodic",
                      "backend": "jax " + jax.__version__, "device": devs[0].device_kind,
                      "iters": calls * a.steps, "weak": int(a.weak), "steps_per_call": a.steps,
                      "gcells_best": round(max(rates), 3), "gcells_runs": [round(r, 3) for r in rates],
                      "t_loop": round(min(times), 6)}), flush=True)


if __name__ == "__main__":
    main()
