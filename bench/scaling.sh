#!/usr/bin/env bash
# Strong and weak scaling series on one node (issue 7), one JSON line per run in OUT/scaling.jsonl.
#   bench/scaling.sh BUILD_DIR OUT_DIR MAX_GPUS [BACKEND]
# Needs mpirun/mpiexec; Open MPI as root needs OMPI_ALLOW_RUN_AS_ROOT(=_CONFIRM)=1 (kit env.sh).
set -u
B=$1 O=$2 G=${3:-4} BK=${4:-cuda}
mkdir -p "$O"
MPI=$(command -v mpirun || command -v mpiexec)
run() { # label ranks args...
    local label=$1 n=$2
    shift 2
    "$MPI" -n "$n" --bind-to none "$B/bench/stencil_bench" --label "$label" -b "$BK" "$@" |
        tee -a "$O/scaling.jsonl"
}
counts=()
for n in 1 2 4 8; do [ "$n" -le "$G" ] && counts+=("$n"); done
for n in "${counts[@]}"; do
    run strong-2d4 "$n" -S 2d4 -n 20480x20480 -i 1000 --repeat 2
    run strong-2d4-serialized "$n" -S 2d4 -n 20480x20480 -i 1000 --serialize
    [ "$n" -gt 1 ] && run strong-2d4-staged "$n" -S 2d4 -n 20480x20480 -i 1000 --peer 0
    run weak-2d4 "$n" -S 2d4 -n 20480x20480 -i 1000 --weak
    run strong-3d7-blocks "$n" -S 3d7 -n 1024x1024x1024 -i 200 -p blocks
    run strong-3d7-bands "$n" -S 3d7 -n 1024x1024x1024 -i 200 -p bands
done
