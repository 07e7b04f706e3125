#!/bin/bash
# Builds, tests and benchmarks the OpenCL backend with NVIDIA's OpenCL on the GPU host.
#
#   cp -r /work/shared/device .devkit          # once, in the checkout (git-ignored)
#   device run (2 GPUs for the mpi and skel steps), carry ['.devkit']:
#       bash bench/opencl_gpu.sh [steps...]
#
# Steps (default: all, in this order):
#   build   meson + ninja in build-ocl-gpu (OpenCL on, CUDA if it builds, werror off)
#   info    the OpenCL platforms and devices the ICD loader sees
#   test    suite 'opencl' (backend level, bitwise against a serial reference) on the first GPU
#   mpi     tests/mpi with STENCIL_BACKEND=opencl on 1 and 2 ranks (one GPU each)
#   copy    halo copies, rect vs pack (bench_ocl copy), 2D and 3D
#   wg      work-group width of the generic kernel (bench_ocl update, STENCIL_OPENCL_WG)
#   skel    bench/RESULTS.md figures: 2D 4-point fp32 20480^2, 1000 iterations through
#           stencil_skeleton on 1 and 2 GPUs, overlapped and serialized, and CUDA for the ratio
# Logs go to $OUT (or ./device-out); a summary is printed last.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
[ -f .devkit/env.sh ] && . .devkit/env.sh
export STENCIL_OPENCL_PLATFORM=${STENCIL_OPENCL_PLATFORM:-NVIDIA}
B=build-ocl-gpu
MPI=$(command -v mpirun || command -v mpiexec)
MPIARGS=(--allow-run-as-root --oversubscribe --bind-to none)
steps=${*:-build info test mpi copy wg skel}
summary=()

note() { summary+=("$*"); echo "== $*"; }

step_build() {
    if [ ! -f $B/build.ninja ]; then
        meson setup $B -Dbuildtype=release -Dwerror=false -Dopencl=enabled -Dcuda=auto \
            -Dhip=disabled -Dtests=enabled \
            "-Dmpiexec_args=['--allow-run-as-root','--oversubscribe']" >"$OUT/setup.log" 2>&1 ||
            { tail -30 "$OUT/setup.log"; note "build: meson setup FAILED"; return 1; }
    fi
    local t="libstencil.so tests/opencl/test_opencl tests/mpi/test_skeleton tests/mpi/test_errors"
    t+=" bench/stencil_bench"
    grep -q "bench/opencl/bench_ocl:" $B/build.ninja && t+=" bench/opencl/bench_ocl"
    ninja -C $B $t >"$OUT/build.log" 2>&1 ||
        { tail -40 "$OUT/build.log"; note "build: ninja FAILED"; return 1; }
    if [ ! -x $B/bench/opencl/bench_ocl ]; then # bench/meson.build may not list bench/opencl
        mkdir -p $B/bench/opencl
        mpicc -O2 -std=c99 -D_POSIX_C_SOURCE=200809L -Iinclude -Ilayout -Ibackends \
            -Ibackends/opencl -Itests/common bench/opencl/bench_ocl.c \
            $B/tests/common/libstencil_testcommon.a $B/layout/libstencil_layout.a \
            -o $B/bench/opencl/bench_ocl -L$B -Wl,-rpath,$PWD/$B -lstencil -lOpenCL -lm \
            >>"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; note "build: bench_ocl FAILED"; }
    fi
    note "build: ok$(grep -q 'backends/cuda' $B/build.ninja && echo ', with CUDA')"
}

step_info() {
    clinfo -l 2>&1 | tee "$OUT/clinfo.txt"
    nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version \
        --format=csv | tee "$OUT/gpu.txt"
}

step_test() {
    timeout 300 $B/tests/opencl/test_opencl >"$OUT/test-opencl.log" 2>&1
    local rc=$?
    grep -E "Checks|:F:|:E:" "$OUT/test-opencl.log" | head -20
    [ $rc = 0 ] && note "test opencl ($STENCIL_OPENCL_PLATFORM): ok" ||
        note "test opencl: FAILED ($rc)"
}

step_mpi() {
    local rc=0 r
    for exe in test_skeleton test_errors; do
        for n in 1 2; do
            STENCIL_BACKEND=opencl timeout 600 "$MPI" "${MPIARGS[@]}" -n $n $B/tests/mpi/$exe \
                >"$OUT/mpi-$exe-n$n.log" 2>&1
            r=$?
            echo "   $exe -n $n (opencl): rc $r $(grep -E 'Checks' "$OUT/mpi-$exe-n$n.log" | head -1)"
            [ $r = 0 ] || { rc=$r; tail -15 "$OUT/mpi-$exe-n$n.log"; }
        done
    done
    [ $rc = 0 ] && note "test mpi (opencl, 1 and 2 ranks): ok" || note "test mpi (opencl): FAILED"
}

step_copy() {
    {
        echo "# 2D 20480^2 on a 2x2 grid (columns are strided), rank 0, periodic"
        $B/bench/opencl/bench_ocl copy 2d4 20480 2 200
        echo "# 3D 512^3 on a 2x2x2 grid, 3d27 (26 neighbours)"
        $B/bench/opencl/bench_ocl copy 3d27 512 2 50
    } 2>&1 | tee "$OUT/copy.log"
    while read -r l; do note "$l"; done < <(grep "^copy" "$OUT/copy.log")
}

step_wg() {
    for wg in 64 128 256 512 1024; do
        STENCIL_OPENCL_WG=$wg $B/bench/opencl/bench_ocl update 2d4 20480 200
        STENCIL_OPENCL_WG=$wg $B/bench/opencl/bench_ocl update 3d7 512 100
    done 2>&1 | tee "$OUT/wg.log" | grep -v "^#"
    note "wg: see wg.log"
}

skel() { # label ranks backend args...
    local label=$1 n=$2 bk=$3
    shift 3
    timeout 300 "$MPI" "${MPIARGS[@]}" -n "$n" $B/bench/stencil_bench --label "$label" -b "$bk" \
        "$@" 2>&1 | tee -a "$OUT/skel.jsonl"
}

step_skel() {
    : >"$OUT/skel.jsonl"
    local a=(-S 2d4 -n 20480x20480 -i 1000 --repeat 3)
    skel opencl-1gpu 1 opencl "${a[@]}"
    skel opencl-2gpu 2 opencl "${a[@]}"
    skel opencl-2gpu-serialized 2 opencl "${a[@]}" --serialize
    skel opencl-2gpu-periodic 2 opencl "${a[@]}" --periodic
    if grep -q "backends/cuda" $B/build.ninja; then
        skel cuda-1gpu 1 cuda "${a[@]}"
        skel cuda-2gpu 2 cuda "${a[@]}"
    fi
    note "skel: one JSON line per run in skel.jsonl (Gcells/s, phases, exchange hidden)"
}

for s in $steps; do
    t0=$(date +%s)
    "step_$s"
    echo "   ($s took $(($(date +%s) - t0)) s)"
    [ "$s" = build ] && [ ! -x $B/tests/opencl/test_opencl ] && break
done
echo "================ summary"
printf '%s\n' "${summary[@]}"
