#!/bin/bash
# The benchmark runner: named scenarios, JSON lines under $OUT (default ./bench-out), a summary
# table last. On the GPU host (the `device` tool), from a snapshot of committed code:
#
#   cp -r ../shared/device .devkit                      # once, git-ignored; carry it
#   bash bench/run.sh build rtctests kernels             # scenarios run in the order given
#
#   build      meson + ninja in build-run (CUDA, OpenCL through the ICD loader, tests)
#   rtctests   run-time kernels on the GPU: tests/mpi/test_skeleton with CUDA on 1 to 4 ranks
#              (stats must say rtc), with a small block shape (many tiles and walk chunks), with
#              STENCIL_RTC=fail (must fall back to the generic kernel, with the notice), with
#              NVIDIA OpenCL on 1 and 2 ranks; compute-sanitizer memcheck and racecheck of the
#              step kernels; test_rtc_compile
#   gpusuite   meson's suite gpu (the backend and kgt's CUDA kernels, also built with plain -O3)
#   kernels    one time step per launch, through stencil_skeleton on one GPU: the generic kernel
#              (STENCIL_RTC=0), the run-time kernel (default) and kgt's named kernel for each
#              case of KERNEL_CASES (default: every STENCILS.md stencil at its benchmark size)
#   shapes     the run-time kernel under block shapes SHAPES (STENCIL_RTC_SHAPE), SHAPE_CASES
#   sweep      the run-time kernel under the block shapes of each line of SWEEP_FILE
#              (default bench/sweep.txt: "stencil:size:iterations:type shape shape ...")
# The device tool returns at most 8 files: JSON lines stay in $OUT, logs are packed in logs.tgz.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/bench-out}
LOGS=$(mktemp -d)
mkdir -p "$OUT"
[ -f .devkit/env.sh ] && . .devkit/env.sh
B=${BUILD:-build-run}
MPI=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
[ -n "${OCL_ICD_FILENAMES:-}" ] && MPI+=(-x "OCL_ICD_FILENAMES=$OCL_ICD_FILENAMES")
summary=()
note() { summary+=("$*"); echo "== $*"; }

runlog() { # name timeout command...: runs, logs, notes the result
    local name=$1 t=$2
    shift 2
    timeout "$t" "$@" >"$LOGS/$name.log" 2>&1
    local rc=$?
    note "$name: $([ $rc = 0 ] && echo ok || echo "FAILED rc=$rc") $(grep -h 'Checks:' "$LOGS/$name.log" | tail -1)"
    [ $rc = 0 ] || tail -12 "$LOGS/$name.log"
}

scenario_build() {
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/gpu.txt"
    [ -f $B/build.ninja ] || meson setup $B -Dbuildtype=release -Dwerror=false -Dcuda=enabled \
        -Dhip=disabled -Dopencl=auto -Dtests=enabled \
        "-Dmpiexec_args=['--allow-run-as-root','--oversubscribe']" >"$LOGS/setup.log" 2>&1 ||
        { tail -30 "$LOGS/setup.log"; note "build: setup FAILED"; return 1; }
    ninja -C $B ${BUILD_TARGETS:-} >"$LOGS/build.log" 2>&1 ||
        { tail -30 "$LOGS/build.log"; note "build: FAILED"; return 1; }
    note "build: ok"
}

scenario_rtctests() {
    local ts=$B/tests/mpi/test_skeleton bk=$B/bench/stencil_bench
    for n in ${RTC_RANKS:-1 2 3 4}; do
        runlog skel-rtc-n$n 300 env STENCIL_BACKEND=cuda STENCIL_EXPECT_KERNEL=rtc \
            "${MPI[@]}" -n $n -x STENCIL_BACKEND -x STENCIL_EXPECT_KERNEL $ts
    done
    for n in 1 2; do
        runlog skel-nvocl-n$n 300 env STENCIL_BACKEND=opencl STENCIL_OPENCL_PLATFORM=NVIDIA \
            STENCIL_EXPECT_KERNEL=rtc "${MPI[@]}" -n $n -x STENCIL_BACKEND \
            -x STENCIL_OPENCL_PLATFORM -x STENCIL_EXPECT_KERNEL $ts
    done
    runlog skel-rtc-smallshape 300 env STENCIL_BACKEND=cuda STENCIL_EXPECT_KERNEL=rtc \
        STENCIL_RTC_SHAPE=32,2,2,3 "${MPI[@]}" -n 2 -x STENCIL_BACKEND -x STENCIL_EXPECT_KERNEL \
        -x STENCIL_RTC_SHAPE $ts
    runlog skel-rtc-fail 300 env STENCIL_BACKEND=cuda STENCIL_EXPECT_KERNEL=generic \
        STENCIL_RTC=fail "${MPI[@]}" -n 1 -x STENCIL_BACKEND -x STENCIL_EXPECT_KERNEL -x STENCIL_RTC $ts
    note "rtc-fail notice: $(grep -m1 'libstencil:' "$LOGS/skel-rtc-fail.log")"
    for tool in memcheck racecheck; do
        for c in "2d9 -n 517x1031" "2d5asym -n 300x700 -p blocks" "3d27 -n 41x67x70" \
            "3d-oct -n 33x35x90 -p blocks" "1d-wide -n 100003"; do
            local s=${c%% *}
            runlog $tool-$s 300 "${MPI[@]}" -n 2 compute-sanitizer --tool $tool --error-exitcode 9 \
                $bk -b cuda -S $c -i 3
        done
    done
    runlog rtc-compile 300 $B/tests/rtc/test_rtc_compile
}

scenario_gpusuite() {
    runlog gpu-suite 500 meson test -C $B --no-rebuild --suite gpu --print-errorlogs
    grep -E "^ *[0-9]+/[0-9]+ " "$LOGS/gpu-suite.log" | sed 's/^/   /'
}

# stencil size iterations [type]: one line per kernel into kernels.jsonl
kernel_case() {
    local s=$1 n=$2 i=$3 t=${4:-float} bk=$B/bench/stencil_bench_kgt
    "${MPI[@]}" -n 1 -x STENCIL_RTC=0 $bk --label generic -b cuda -S $s -n $n -i $i -t $t |
        tee -a "$OUT/kernels.jsonl"
    "${MPI[@]}" -n 1 $bk --label rtc -b cuda -S $s -n $n -i $i -t $t | tee -a "$OUT/kernels.jsonl"
    "${MPI[@]}" -n 1 -x STENCIL_FUSE=1 $bk --label kgt -b cuda -S $s -n $n -i $i -t $t -k $s |
        tee -a "$OUT/kernels.jsonl"
}

KERNEL_CASES_DEFAULT="2d4:20480x20480:1000 2d9:20480x20480:1000 2d9nc:16384x16384:500
2d5asym:16384x16384:500 2d-diag:16384x16384:500 3d7:1024x1024x1024:200 3d27:512x512x512:200
3d-oct:512x512x512:200 1d3:268435456:200 1d-wide:268435456:200 2d4:20480x20480:500:double
3d7:768x768x768:100:double"

scenario_kernels() {
    local c
    for c in ${KERNEL_CASES:-$KERNEL_CASES_DEFAULT}; do
        IFS=: read -r s n i t <<<"$c"
        kernel_case "$s" "$n" "$i" "${t:-float}"
    done
    note "kernels: $(wc -l <"$OUT/kernels.jsonl") runs"
}

scenario_shapes() {
    local c sh bk=$B/bench/stencil_bench
    for c in ${SHAPE_CASES:-2d4:20480x20480:500 3d7:1024x1024x1024:100 3d27:512x512x512:100}; do
        IFS=: read -r s n i t <<<"$c"
        for sh in ${SHAPES:-default}; do
            "${MPI[@]}" -n 1 -x STENCIL_RTC_SHAPE=$([ "$sh" = default ] && echo "" || echo "$sh") \
                $bk --label "shape $sh" -b cuda -S $s -n $n -i $i -t "${t:-float}" |
                tee -a "$OUT/shapes.jsonl"
        done
    done
    note "shapes: $(wc -l <"$OUT/shapes.jsonl") runs"
}

scenario_sweep() {
    local c sh s n i t bk=$B/bench/stencil_bench
    while read -r c shapes; do
        case "$c" in "" | "#"*) continue ;; esac
        IFS=: read -r s n i t <<<"$c"
        for sh in $shapes; do
            "${MPI[@]}" -n 1 -x STENCIL_RTC_SHAPE=$sh $bk --label "shape $sh" -b cuda -S $s -n $n \
                -i $i -t "${t:-float}" | tee -a "$OUT/shapes.jsonl"
        done
    done <"${SWEEP_FILE:-bench/sweep.txt}"
    note "sweep: $(wc -l <"$OUT/shapes.jsonl") runs"
}

for s in "$@"; do
    if declare -F "scenario_$s" >/dev/null; then "scenario_$s"; else note "unknown scenario $s"; fi
done
# Summary: the runs of this call, one line each.
for f in "$OUT"/kernels.jsonl "$OUT"/shapes.jsonl; do
    [ -f "$f" ] && python3 - "$f" <<'EOF'
import json, sys
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except ValueError: continue
    print("%-14s %-8s %-7s %-18s %-7s %8.1f Gcells/s  setup %.2f s  compile %.3f s" % (
        r["label"], r["stencil"], r["type"][0:6], "x".join(map(str, r["sizes"])), r["ran"],
        r["gcells_median"], r["t_setup"], r["t_compile"]))
EOF
done
tar -czf "$OUT/logs.tgz" -C "$LOGS" . 2>/dev/null
printf '%s\n' "${summary[@]}"
