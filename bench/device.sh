#!/bin/bash
# Builds, tests and benchmarks the CUDA backend on the GPU host (the `device` tool's machine).
#
#   cp -r /work/shared/device .devkit          # once, in the checkout (git-ignored)
#   device run, carry ['.devkit']:  bash bench/device.sh [steps...]
#
# Steps (default: all, in this order):
#   build     meson + ninja in build-dev (CUDA on, HIP/OpenCL off, werror off: other compilers)
#   test      suite 'gpu' (backend-level, bitwise against a serial reference)
#   mpi       suite 'mpi' with STENCIL_BACKEND=cuda (ranks share the GPUs there are)
#   sanitize  compute-sanitizer memcheck: the gpu suite's copy and error tests, a 2-rank skeleton run
#   tune      launch shapes of the generic kernel (bench_gpu tune)
#   copy      halo copy paths (bench_gpu copy)
#   skel      the RESULTS.md figures: 1000 iterations through stencil_skeleton (bench_gpu skel)
# Logs go to $OUT (or ./device-out); a summary is printed last.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
[ -f .devkit/env.sh ] && . .devkit/env.sh
B=build-dev
steps=${*:-build test mpi sanitize tune copy skel}
summary=()

note() { summary+=("$*"); echo "== $*"; }

step_build() {
    nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version \
        --format=csv | tee "$OUT/gpu.txt"
    nvcc --version | tail -2
    if [ ! -f $B/build.ninja ]; then
        meson setup $B -Dbuildtype=release -Dwerror=false -Dcuda=enabled -Dhip=disabled \
            -Dopencl=disabled -Dtests=enabled \
            "-Dmpiexec_args=['--allow-run-as-root','--oversubscribe']" >"$OUT/setup.log" 2>&1 ||
            { tail -30 "$OUT/setup.log"; note "build: meson setup FAILED"; return 1; }
    fi
    local targets="libstencil.so tests/gpu/test_gpu_backend tests/mpi/test_skeleton"
    targets+=" tests/mpi/test_errors"
    grep -q "bench_gpu" $B/build.ninja && targets+=" bench/gpu/bench_gpu"
    ninja -C $B $targets >"$OUT/build.log" 2>&1 ||
        { tail -40 "$OUT/build.log"; note "build: ninja FAILED"; return 1; }
    if [ ! -x $B/bench/gpu/bench_gpu ]; then # bench/meson.build may not list bench/gpu yet
        mkdir -p $B/bench/gpu
        nvcc -O3 -arch=sm_90 -Xcompiler -fno-exceptions,-fno-threadsafe-statics \
            -c bench/gpu/naive.cu -o $B/bench/gpu/naive.o &&
            mpicc -O2 -std=c99 -D_POSIX_C_SOURCE=200809L -Iinclude -Ilayout -Ibackends \
                bench/gpu/bench_gpu.c $B/bench/gpu/naive.o -o $B/bench/gpu/bench_gpu \
                -L$B -Wl,-rpath,$PWD/$B -lstencil $B/layout/libstencil_layout.a \
                -L/usr/local/cuda/lib64 -lcudart -lm >>"$OUT/build.log" 2>&1 ||
            { tail -20 "$OUT/build.log"; note "build: bench_gpu FAILED"; return 1; }
    fi
    note "build: ok"
}

step_test() {
    timeout 240 meson test -C $B --no-rebuild --suite gpu --print-errorlogs >"$OUT/test-gpu.log" 2>&1
    local rc=$?
    grep -E "^ *[0-9]+/[0-9]+ |Checks|Ok:|Fail:" "$OUT/test-gpu.log" | tail -8
    grep -E "Checks:" $B/meson-logs/testlog.txt | tail -3
    [ $rc = 0 ] && note "test gpu: ok" || { tail -40 "$OUT/test-gpu.log"; note "test gpu: FAILED ($rc)"; }
}

step_mpi() {
    # tests/mpi's meson entries pin STENCIL_BACKEND=host: run the executables directly.
    local rc=0 r
    for exe in test_skeleton test_errors; do
        for n in 1 2 4; do
            STENCIL_BACKEND=cuda timeout 600 mpiexec --allow-run-as-root --oversubscribe -n $n \
                $B/tests/mpi/$exe >"$OUT/mpi-$exe-n$n.log" 2>&1
            r=$?
            echo "   $exe -n $n (cuda): rc $r $(grep -E 'Checks' "$OUT/mpi-$exe-n$n.log" | head -1)"
            [ $r = 0 ] || { rc=$r; tail -15 "$OUT/mpi-$exe-n$n.log"; }
        done
    done
    [ $rc = 0 ] && note "test mpi (cuda, 1/2/4 ranks on the GPUs there are): ok" ||
        note "test mpi (cuda): FAILED"
}

step_sanitize() {
    # A subset of the gpu suite ("quick"), in one process (Check forks per test by default).
    local rc
    for tool in memcheck racecheck; do
        CK_FORK=no timeout 400 compute-sanitizer --tool $tool --error-exitcode 9 \
            $B/tests/gpu/test_gpu_backend cuda quick >"$OUT/$tool-gpu.log" 2>&1
        rc=$?
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Checks" "$OUT/$tool-gpu.log" | tail -3
        [ $rc = 0 ] && note "$tool gpu suite (quick): clean" || note "$tool gpu suite: rc $rc"
    done
    STENCIL_BACKEND=cuda timeout 400 mpiexec --allow-run-as-root --oversubscribe -n 2 \
        compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/mpi/test_skeleton \
        >"$OUT/memcheck-mpi.log" 2>&1
    rc=$?
    grep -E "ERROR SUMMARY|Checks" "$OUT/memcheck-mpi.log" | tail -4
    [ $rc = 0 ] && note "memcheck 2-rank skeleton (cuda): clean" || note "memcheck 2-rank: rc $rc"
}

step_tune() {
    timeout 200 $B/bench/gpu/bench_gpu tune 100 2>&1 | tee "$OUT/tune.log" | grep TUNE
    note "tune: see tune.log"
}

step_copy() {
    timeout 150 $B/bench/gpu/bench_gpu copy 2>&1 | tee "$OUT/copy.log" | grep COPYPATH
    note "copy: see copy.log"
}

# Each case once with the built-in defaults and, when tune.log exists, once with its best shape.
step_skel() {
    local c best
    for c in 2d4-f32 2d4-f64 3d7-f32 2d9nc-f32; do
        timeout 120 $B/bench/gpu/bench_gpu skel 1000 $c 2>&1 | tee -a "$OUT/skel.log" |
            grep -E "RESULT|error"
        best=$(grep "^TUNE $c " "$OUT/tune.log" 2>/dev/null | sort -g -k4 | tail -1 | awk '{print $3}')
        [ -n "$best" ] || continue
        echo "   $c with STENCIL_GPU_TUNE=$best:" | tee -a "$OUT/skel.log"
        STENCIL_GPU_TUNE=$best timeout 120 $B/bench/gpu/bench_gpu skel 1000 $c 2>&1 |
            tee -a "$OUT/skel.log" | grep -E "RESULT|error"
    done
    while read -r l; do note "$l"; done < <(grep -E "RESULT|COPY|with STENCIL" "$OUT/skel.log")
}

for s in $steps; do
    t0=$(date +%s)
    "step_$s"
    echo "   ($s took $(($(date +%s) - t0)) s)"
    [ "$s" = build ] && [ ! -x $B/tests/gpu/test_gpu_backend ] && break
done
echo "================ summary"
printf '%s\n' "${summary[@]}"
