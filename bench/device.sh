#!/bin/bash
# Builds, tests and benchmarks the CUDA backend on the GPU host (the `device` tool's machine).
#
#   cp -r /work/shared/device .devkit          # once, in the checkout (git-ignored)
#   (that is the kit of the GPU host: Check, an ICD file, Open MPI as root, nvcc on PATH)
#   device run, carry ['.devkit']:  bash bench/device.sh [steps...]
#
# Steps (default: all, in this order):
#   build     meson + ninja in build-dev (CUDA on, HIP/OpenCL off, werror off: other compilers)
#   test      gpu-backend-cuda (backend-level, bitwise against a serial reference)
#   tune      launch shapes of the generic kernel (bench_gpu tune)
#   skel      the RESULTS.md figures: 1000 iterations through stencil_skeleton (bench_gpu skel),
#             each case with its best shape from tune.log
#   sanitize  compute-sanitizer memcheck: the gpu test's quick subset, heat2d on 2 ranks
#   mpi       tests/mpi/test_skeleton on 2 ranks with STENCIL_BACKEND=cuda
#   ncu       Nsight Compute sections of the generic kernel (2d4-f32, 3d7-f32)
# Logs come back packed in $OUT/logs.tgz (or ./device-out); a summary is printed last.
set -u
cd "$(dirname "$0")/.."
# The device tool returns at most 8 files: logs go to $LOGS, packed into $OUT/logs.tgz at the end.
OUT=${OUT:-$PWD/device-out}
LOGS=$(mktemp -d)
mkdir -p "$OUT"
[ -f .devkit/env.sh ] && . .devkit/env.sh
B=build-dev
steps=${*:-build test tune skel sanitize mpi ncu copy}
summary=()

note() { summary+=("$*"); echo "== $*"; }

step_build() {
    nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version \
        --format=csv | tee "$LOGS/gpu.txt"
    nvcc --version | tail -2
    if [ ! -f $B/build.ninja ]; then
        meson setup $B -Dbuildtype=release -Dwerror=false -Dcuda=enabled -Dhip=disabled \
            -Dopencl=disabled -Dtests=enabled \
            "-Dmpiexec_args=['--allow-run-as-root','--oversubscribe']" >"$LOGS/setup.log" 2>&1 ||
            { tail -30 "$LOGS/setup.log"; note "build: meson setup FAILED"; return 1; }
    fi
    local targets="libstencil.so tests/gpu/test_gpu_backend tests/mpi/test_skeleton"
    targets+=" tests/mpi/test_errors"
    grep -q "bench_gpu" $B/build.ninja && targets+=" bench/gpu/bench_gpu"
    ninja -C $B $targets >"$LOGS/build.log" 2>&1 ||
        { tail -40 "$LOGS/build.log"; note "build: ninja FAILED"; return 1; }
    if [ ! -x $B/bench/gpu/bench_gpu ]; then # bench/meson.build may not list bench/gpu yet
        mkdir -p $B/bench/gpu
        nvcc -O3 -arch=sm_90 -Xcompiler -fno-exceptions,-fno-threadsafe-statics \
            -c bench/gpu/naive.cu -o $B/bench/gpu/naive.o &&
            mpicc -O2 -std=c99 -D_POSIX_C_SOURCE=200809L -Iinclude -Ilayout -Ibackends \
                bench/gpu/bench_gpu.c $B/bench/gpu/naive.o -o $B/bench/gpu/bench_gpu \
                -L$B -Wl,-rpath,$PWD/$B -lstencil $B/layout/libstencil_layout.a \
                -L/usr/local/cuda/lib64 -lcudart -lm >>"$LOGS/build.log" 2>&1 ||
            { tail -20 "$LOGS/build.log"; note "build: bench_gpu FAILED"; return 1; }
    fi
    ninja -C $B examples/heat2d >>"$LOGS/build.log" 2>&1 || echo "   (examples/heat2d not built)"
    note "build: ok"
}

step_test() {
    timeout 200 meson test -C $B --no-rebuild --print-errorlogs gpu-backend-cuda >"$LOGS/test-gpu.log" 2>&1
    local rc=$?
    grep -E "^ *[0-9]+/[0-9]+ |Checks|Ok:|Fail:" "$LOGS/test-gpu.log" | tail -8
    grep -E "Checks:" $B/meson-logs/testlog.txt | tail -3
    [ $rc = 0 ] && note "test gpu: ok" || { tail -40 "$LOGS/test-gpu.log"; note "test gpu: FAILED ($rc)"; }
}

step_mpi() {
    # tests/mpi's meson entries pin STENCIL_BACKEND=host: run the executable directly.
    local rc=0 r
    for n in 2; do
        STENCIL_BACKEND=cuda timeout 200 mpiexec --allow-run-as-root --oversubscribe -n $n \
            $B/tests/mpi/test_skeleton >"$LOGS/mpi-n$n.log" 2>&1
        r=$?
        echo "   test_skeleton -n $n (cuda): rc $r $(grep -E 'Checks' "$LOGS/mpi-n$n.log" | head -1)"
        [ $r = 0 ] || { rc=$r; tail -15 "$LOGS/mpi-n$n.log"; }
    done
    [ $rc = 0 ] && note "test_skeleton (cuda, 2 ranks on one GPU): ok" ||
        note "test_skeleton (cuda): FAILED"
}

step_sanitize() {
    # A subset of the gpu suite ("quick"), in one process (Check forks per test by default).
    local rc
    # --report-api-errors no: the errors test's deliberate 4 PiB cudaMalloc is not a finding.
    CK_FORK=no timeout 200 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
        $B/tests/gpu/test_gpu_backend cuda quick >"$LOGS/memcheck-gpu.log" 2>&1
    rc=$?
    grep -E "ERROR SUMMARY|Checks" "$LOGS/memcheck-gpu.log" | tail -3
    [ $rc = 0 ] && note "memcheck gpu suite (quick): clean" || note "memcheck gpu suite: rc $rc"
    # A small multi-rank run: 2 ranks (one GPU here), halos through host staging and peers.
    if [ -x $B/examples/heat2d ]; then
        STENCIL_BACKEND=cuda timeout 200 mpiexec --allow-run-as-root --oversubscribe -n 2 \
            compute-sanitizer --tool memcheck --error-exitcode 9 \
            $B/examples/heat2d -n 300 -i 20 -b cuda >"$LOGS/memcheck-heat2d.log" 2>&1
        rc=$?
        grep -E "ERROR SUMMARY|Gcells|diff|bad" "$LOGS/memcheck-heat2d.log" | tail -4
        [ $rc = 0 ] && note "memcheck heat2d 2 ranks (cuda): clean" || note "memcheck heat2d: rc $rc"
    fi
}

step_tune() {
    timeout 150 $B/bench/gpu/bench_gpu tune 60 2>&1 | tee "$LOGS/tune.log" | grep TUNE
    note "tune: see tune.log"
}

step_copy() {
    timeout 150 $B/bench/gpu/bench_gpu copy 2>&1 | tee "$LOGS/copy.log" | grep COPYPATH
    note "copy: see copy.log"
}

# Each case with the best shape of tune.log (the built-in defaults when there is none).
step_skel() {
    local c best
    for c in 2d4-f32 2d4-f64 3d7-f32 2d9nc-f32; do
        best=$(grep "^TUNE $c " "$LOGS/tune.log" 2>/dev/null | sort -g -k4 | tail -1 | awk '{print $3}')
        echo "   $c with STENCIL_GPU_TUNE=${best:-(defaults)}:" | tee -a "$LOGS/skel.log"
        STENCIL_GPU_TUNE=$best timeout 100 $B/bench/gpu/bench_gpu skel 1000 $c 2>&1 |
            tee -a "$LOGS/skel.log" | grep -E "RESULT|error"
    done
    while read -r l; do note "$l"; done < <(grep -E "RESULT|with STENCIL" "$LOGS/skel.log")
    note "$(grep COPY "$LOGS/skel.log" | head -1)"
}

# Nsight Compute speed-of-light of the generic kernel on 2d4-f32 and 3d7-f32 (best shapes).
step_ncu() {
    local c best
    for c in 2d4-f32 3d7-f32; do
        best=$(grep "^TUNE $c " "$LOGS/tune.log" 2>/dev/null | sort -g -k4 | tail -1 | awk '{print $3}')
        STENCIL_GPU_TUNE=$best timeout 120 ncu --clock-control none --launch-skip 4 \
            --launch-count 1 -k regex:k_stencil --section SpeedOfLight --section Occupancy \
            --section MemoryWorkloadAnalysis $B/bench/gpu/bench_gpu one $c 6 >"$LOGS/ncu-$c.log" 2>&1
        grep -E "DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Duration|Mem Busy|Max Bandwidth|L2 Cache Throughput|L1/TEX Cache Throughput" \
            "$LOGS/ncu-$c.log" | sed "s/^/   $c /"
    done
    note "ncu: see ncu-*.log"
}

for s in $steps; do
    t0=$(date +%s)
    "step_$s"
    echo "   ($s took $(($(date +%s) - t0)) s)"
    [ "$s" = build ] && [ ! -x $B/tests/gpu/test_gpu_backend ] && break
done
echo "================ summary"
printf '%s\n' "${summary[@]}" | tee "$LOGS/summary.txt"
tar czf "$OUT/logs.tgz" -C "$LOGS" . && rm -rf "$LOGS"
