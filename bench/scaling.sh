#!/usr/bin/env bash
# Strong and weak scaling series on one node, one JSON line per run in OUT/scaling.jsonl: the
# library's defaults (kernel NULL), kgt's named 2d4 kernel (stencil_bench_kgt, where built), and
# JAX's jnp.roll form (bench/jax_roll.py, where jax imports; SCALING_JAX=0 leaves it out).
#   bench/scaling.sh BUILD_DIR OUT_DIR MAX_GPUS [BACKEND]
# Needs mpirun/mpiexec; Open MPI as root needs OMPI_ALLOW_RUN_AS_ROOT(=_CONFIRM)=1 (kit env.sh).
set -u
B=$1 O=$2 G=${3:-4} BK=${4:-cuda}
mkdir -p "$O"
MPI=$(command -v mpirun || command -v mpiexec)
run() { # label ranks args... (BIN: the benchmark program, default stencil_bench)
    local label=$1 n=$2
    shift 2
    "$MPI" -n "$n" --bind-to none "$B/bench/${BIN:-stencil_bench}" --label "$label" -b "$BK" "$@" |
        tee -a "$O/scaling.jsonl"
}
kgt() { # label ranks args...: kgt's named kernel of the stencil, where built
    [ -x "$B/bench/stencil_bench_kgt" ] || return 0
    BIN=stencil_bench_kgt run "$@"
}
jax_ok=0
[ "${SCALING_JAX:-1}" = 1 ] && python3 -c 'import jax' 2>/dev/null && jax_ok=1
jaxrun() { # label gpus args...
    local label=$1 g=$2
    shift 2
    [ $jax_ok = 1 ] || return 0
    python3 "$(dirname "$0")/jax_roll.py" --label "$label" -g "$g" "$@" | tee -a "$O/scaling.jsonl"
}
counts=()
for n in 1 2 4 8; do [ "$n" -le "$G" ] && counts+=("$n"); done
for n in "${counts[@]}"; do
    run strong-2d4 "$n" -S 2d4 -n 20480x20480 -i 1000 --repeat 2
    kgt strong-2d4-kgt "$n" -S 2d4 -n 20480x20480 -i 1000 --repeat 2 -k 2d4
    jaxrun strong-2d4-jax "$n" -n 20480 -i 1000
    run strong-2d4-serialized "$n" -S 2d4 -n 20480x20480 -i 1000 --serialize
    [ "$n" -gt 1 ] && run strong-2d4-staged "$n" -S 2d4 -n 20480x20480 -i 1000 --peer 0
    run weak-2d4 "$n" -S 2d4 -n 20480x20480 -i 1000 --weak
    [ "$n" -gt 1 ] && jaxrun weak-2d4-jax "$n" -n 20480 -i 1000 --weak
    run strong-3d7-blocks "$n" -S 3d7 -n 1024x1024x1024 -i 200 -p blocks
    run strong-3d7-bands "$n" -S 3d7 -n 1024x1024x1024 -i 200 -p bands
done
