#!/bin/bash
# Issue 21, must-show 3: the cost of a convergence check (stencil_advance_norm) and of a
# checkpoint in a persistent run, 2D 4-point fp32 20480^2 on one GPU, every 100 and every 1000
# iterations (bench/run_cost.c says what each JSON line means). On committed code:
#
#   rm -rf build-rc21 && mkdir -p build-rc21/src && git archive HEAD | tar -x -C build-rc21/src
#   device run (kind nvidia-h200), carry ['.devkit', 'build-rc21']:
#       bash build-rc21/src/bench/run_cost.sh
#
# Prints the JSON lines and leaves them in $OUT/run_cost-h200.jsonl. Extra arguments go to
# run_cost (e.g. -b opencl, -k NAME, -T 5000). The checkpoint goes to $RUN_COST_FILE (default
# /tmp/run_cost.h5; the native format when the GPU host's build has no parallel HDF5, which the
# JSON's "file" field then shows as /tmp/run_cost.ck). Also prints the file system under it.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
[ -f .devkit/env.sh ] && . .devkit/env.sh
OUT=${OUT:-$PWD/device-out}
B=${B:-$src/../build-rc}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
if [ ! -f "$B/build.ninja" ]; then
    meson setup "$B" "$src" -Dbuildtype=release -Dwerror=false -Dcuda=enabled -Dhip=disabled \
        -Dopencl=disabled -Dtests=enabled \
        "-Dmpiexec_args=['--allow-run-as-root','--oversubscribe']" >"$OUT/run_cost-setup.log" 2>&1 ||
        { tail -30 "$OUT/run_cost-setup.log"; exit 1; }
fi
grep -i "hdf5" "$B/meson-logs/meson-log.txt" | tail -2
ninja -C "$B" bench/run_cost >/dev/null || exit 1
file=${RUN_COST_FILE:-/tmp/run_cost.h5}
df -h "$(dirname "$file")" | tail -1
mpiexec -n 1 "$B/bench/run_cost" -S 2d4 -t float -n 20480x20480 -b cuda \
    -T 2000 -E 100,1000 -R 3 -f "$file" --label "one H200, run_cost.sh" "$@" |
    tee "$OUT/run_cost-h200.jsonl"
