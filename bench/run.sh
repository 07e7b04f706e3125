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
#              step kernels (RTC_TOOLS, RTC_SANITIZE="case;case": stencil_bench arguments);
#              test_rtc_compile
#   gpusuite   meson's suite gpu (the backend and kgt's CUDA kernels, also built with plain -O3),
#              or the tests GPU_TESTS names
#   kernels    one time step per launch (STENCIL_FUSE=1), through stencil_skeleton on one GPU: the
#              generic kernel (STENCIL_RTC=0), the run-time kernel and kgt's named kernel for each
#              case of KERNEL_CASES (default: every docs/STENCILS.md stencil at its benchmark size)
#   shapes     the run-time kernel under block shapes SHAPES (STENCIL_RTC_SHAPE), SHAPE_CASES
#   sweep      the run-time kernel under the block shapes of each line of SWEEP_FILE (required;
#              lines "stencil:size:iterations:type shape shape ...", the word default for the
#              kernel's own shape; earlier sweep files are in git history, docs/performance-notes.md),
#              STENCIL_FUSE passed on where set, SWEEP_REPEAT runs each
#   tests      suite gpu; test_skeleton with CUDA and with NVIDIA OpenCL on 1 and 2 GPUs
#   cudatests  the CUDA part of tests;  ocltests  the NVIDIA OpenCL part (+ its backend suite)
#   peer       test_skeleton on PEER_RANKS (3 4) ranks sharing the GPUs, CUDA peer path forced
#   sanitize   compute-sanitizer memcheck and racecheck of 2-rank CUDA runs
#   scaling    strong and weak series on 1..SCALING_GPUS (2) GPUs, kgt's 2d4 kernel and JAX beside
#              (bench/scaling.sh, bench/jax_roll.py; SCALING_JAX=0 leaves JAX out)
#   trace      per-iteration phase traces of the strong 2D case, peer/staged, serialized
#   opencl     NVIDIA OpenCL, 2D 4-point 20480^2 on 1 and 2 GPUs, overlapped and serialized
#   oclcopy    OpenCL halo copies rect vs pack;  oclwg  work-group widths (bench_ocl)
#   poclwalk   PoCL alone with each walk of the generic OpenCL kernel
#   mixed      one job of a CUDA rank, an NVIDIA OpenCL rank and a PoCL rank: solo rates, equal,
#              balanced and auto-calibrated shares (MIXED_* variables, see scenario_mixed)
#   mixwarm    balanced 3-rank jobs of 3 runs each (cold and warm), PoCL weighted MIXWARM_POCL
#   mixdiag    where the mixed job loses: 2-rank jobs, the 3-rank job, traced runs
#   kgtfuse    one vs two time steps per launch, generic and kgt, 2D stencils (+ memcheck)
#   kgtstream  the streaming kernels' tests, then kgtfuse's runs for KGTSTREAM_SET
#   fusegpus   2D 4-point with kgt's kernel on 2 GPUs, one vs two steps per exchange
#   steps      T steps per exchange on one GPU: automatic and forced T (STEPS_CASES, STEPS_T),
#              test_steps on CUDA and NVIDIA OpenCL
#   steps2     T steps per exchange on 1 and 2 GPUs (automatic T, and T = 1 on 2), the 2048^2
#              strong-scaling case traced, test_steps with CUDA on 2 and 4 ranks
#   ooc        out-of-core runs on one GPU against in-core ones (OOC_CASES, OOC_T; Gray-Scott at
#              OOC_PROG_LIMITS), test_ooc on the GPU
#   oocbig     a periodic 2D grid larger than the GPU (OOCBIG_N, default 110000^2 fp32: two arrays of
#              48.4 GB), out of core automatically, every cell checked (bench/ooc_big.c)
#   progs      programs: the tests PROG_TESTS (build-relative paths) with CUDA and NVIDIA OpenCL on
#              1 and 2 ranks; Gray-Scott fp32 8192^2 and the wave equation fp32 16384^2
#              (bench/prog_bench, bench/progs/) on both, 2d4 and 3d7 defaults in the same call;
#              PROG_SHAPES="bx,by,cy ..." also runs both programs on CUDA in each kernel shape
#              (STENCIL_PROG_SHAPE, labels gs-cuda-BX,BY,CY), PROG_ONLY=1 runs the programs alone
#   progfinal  the programs' tables on one card (rates, out of core, sanitizers, CUDA tests)
#   progcarry  programs in core and out of core (parallelogram chunks), memcheck, test_prog_ooc
#   vfuse      the fused program kernels by vector rows against the tiles (VFUSE_T, default "2 4";
#              VFUSE_SHAPES "v,nt,h ...", default six shapes)
#   rtcfuse    the run-time two-step kernels: test_skeleton (CUDA, automatic and forced steps),
#              memcheck, and the default against one step and kgt's two-step kernel
#   named      default options, kernel NULL against kgt's named kernel of the same stencil
#              (NAMED_CASES, default the kernels scenario's cases), then test_kgt_skel with CUDA
#              on 1 and 2 ranks (named and generic bitwise against the host) (named.jsonl)
#   table      issue 45's table on one GPU: for each case of TABLE_CASES (default: every case of the
#              issue, "stencil:size:iterations:type:target"), the default (automatic T, kernel
#              NULL), T = 1 forced and each forced T from 2 to max(4, the default's T) (TABLE_T
#              replaces that list) with the streaming kernels of T levels wherever kgt has them
#              (STENCIL_RTC_DEPTH=T), TABLE_REPEAT (1) runs each, into table.jsonl; the summary gives
#              per case the default's rate and T, T = 1, the best forced T, whether the default is
#              within 2% of it, and the target
# The device tool returns at most 8 files: JSON lines stay in $OUT, logs are packed in logs.tgz.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/bench-out}
LOGS=$(mktemp -d)
mkdir -p "$OUT"
[ -f .devkit/env.sh ] && . .devkit/env.sh
B=${BUILD:-build-run}
export POCL_MAX_PTHREAD_COUNT=${POCL_MAX_PTHREAD_COUNT:-8} # PoCL ranks of the mixed jobs
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
    local cases=("2d9 -n 517x1031" "2d5asym -n 300x700 -p blocks" "3d27 -n 41x67x70"
        "3d-oct -n 33x35x90 -p blocks" "1d-wide -n 100003")
    [ -n "${RTC_SANITIZE:-}" ] && IFS=';' read -ra cases <<<"$RTC_SANITIZE"
    for tool in ${RTC_TOOLS:-memcheck racecheck}; do
        for c in "${cases[@]}"; do
            local s=${c%% *}
            runlog $tool-$s 300 "${MPI[@]}" -n 2 compute-sanitizer --tool $tool --error-exitcode 9 \
                $bk -b cuda -S $c -i 3
        done
    done
    runlog rtc-compile 300 $B/tests/rtc/test_rtc_compile
}

scenario_gpusuite() {
    # GPU_TESTS: test names to run instead of the whole suite (gpu-backend-cuda alone took 262 s
    # of the suite's 360 on an H200; the kgt tests kgt-cuda-n1 ... about 16 s each)
    runlog gpu-suite 500 meson test -C $B --no-rebuild --suite gpu --print-errorlogs ${GPU_TESTS:-}
    grep -E "^ *[0-9]+/[0-9]+ " "$LOGS/gpu-suite.log" | sed 's/^/   /'
}

# stencil size iterations [type]: one line per kernel into kernels.jsonl
kernel_case() {
    local s=$1 n=$2 i=$3 t=${4:-float} bk=$B/bench/stencil_bench_kgt
    "${MPI[@]}" -n 1 -x STENCIL_RTC=0 -x STENCIL_FUSE=1 $bk --label generic -b cuda -S $s -n $n \
        -i $i -t $t | tee -a "$OUT/kernels.jsonl"
    "${MPI[@]}" -n 1 -x STENCIL_FUSE=1 $bk --label rtc -b cuda -S $s -n $n -i $i -t $t |
        tee -a "$OUT/kernels.jsonl"
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
            "${MPI[@]}" -n 1 -x STENCIL_RTC_SHAPE=${sh#default} ${STENCIL_FUSE:+-x STENCIL_FUSE} $bk \
                --label "shape $sh" -b cuda -S $s -n $n -i $i -t "${t:-float}" \
                ${SWEEP_REPEAT:+--repeat $SWEEP_REPEAT} </dev/null |
                tee -a "$OUT/shapes.jsonl" # mpirun reads stdin
        done
    done <"${SWEEP_FILE:?sweep: set SWEEP_FILE}"
    note "sweep: $(wc -l <"$OUT/shapes.jsonl") runs"
}

# ---- Correctness on the GPU host (CUDA and NVIDIA OpenCL; 2 GPUs for the 2-rank runs) ----

skel_ranks() { # backend ranks...: tests/mpi/test_skeleton with that backend on each rank count
    local bk=$1 n
    shift
    for n in "$@"; do
        if [ "$bk" = cuda ]; then
            runlog skel-cuda-n$n 300 env STENCIL_BACKEND=cuda "${MPI[@]}" -n $n \
                -x STENCIL_BACKEND $B/tests/mpi/test_skeleton
        else
            runlog skel-nvocl-n$n 300 env STENCIL_BACKEND=opencl STENCIL_OPENCL_PLATFORM=NVIDIA \
                "${MPI[@]}" -n $n -x STENCIL_BACKEND -x STENCIL_OPENCL_PLATFORM $B/tests/mpi/test_skeleton
        fi
    done
}

scenario_tests() { # suite gpu; test_skeleton with CUDA and with NVIDIA OpenCL on 1 and 2 GPUs
    scenario_gpusuite
    skel_ranks cuda 1 2
    skel_ranks opencl 1 2
}

scenario_cudatests() { # the CUDA part of tests
    scenario_gpusuite
    skel_ranks cuda 1 2
}

scenario_ocltests() { # NVIDIA OpenCL: the backend suite on the first GPU, test_skeleton on 1, 2
    [ -x $B/tests/opencl/test_opencl ] &&
        runlog opencl-backend 300 env STENCIL_OPENCL_PLATFORM=NVIDIA $B/tests/opencl/test_opencl
    skel_ranks opencl 1 2
}

scenario_peer() { # test_skeleton on PEER_RANKS ranks (ranks share GPUs), CUDA peer path forced
    local n
    for n in ${PEER_RANKS:-3 4}; do
        runlog skel-cuda-peer-n$n 300 env STENCIL_BACKEND=cuda STENCIL_PEER=1 "${MPI[@]}" -n $n \
            -x STENCIL_BACKEND -x STENCIL_PEER $B/tests/mpi/test_skeleton
    done
}

scenario_sanitize() { # compute-sanitizer memcheck and racecheck of 2-rank CUDA runs
    local tool
    for tool in memcheck racecheck; do
        runlog sanitizer-$tool 300 "${MPI[@]}" -n 2 compute-sanitizer --tool $tool \
            --error-exitcode 7 $B/examples/heat2d -b cuda -n 512 -i 20
    done
    runlog sanitizer-memcheck-3d 300 "${MPI[@]}" -n 2 compute-sanitizer --tool memcheck \
        --error-exitcode 7 $B/bench/stencil_bench -b cuda -S 3d27 -n 64x64x64 -i 10 -p blocks
}

# ---- Several GPUs of one node ----

scenario_scaling() { # strong and weak series on 1..SCALING_GPUS GPUs (bench/scaling.sh)
    timeout "${SCALING_TIMEOUT:-280}" bash bench/scaling.sh $B "$OUT" "${SCALING_GPUS:-2}" \
        "${SCALING_BACKEND:-cuda}" >"$LOGS/scaling.log" 2>&1
    note "scaling: rc $? ($(wc -l <"$OUT/scaling.jsonl") runs)"
}

scenario_trace() { # phase traces of the strong 2D case on TRACE_RANKS GPUs; untraced beside
    local n=${TRACE_RANKS:-2} app=(-b cuda -S 2d4 -n 20480x20480 -i 1000) v tag
    for v in "--peer 1" "--peer 1 --serialize" "--peer 0" "--peer 0 --serialize"; do
        tag=${v// /}
        # shellcheck disable=SC2086
        "${MPI[@]}" -n $n $B/bench/stencil_bench --label "untraced$tag" "${app[@]}" $v --repeat 2 |
            tee -a "$OUT/trace.jsonl"
        # shellcheck disable=SC2086
        "${MPI[@]}" -n $n $B/bench/stencil_bench --label "traced$tag" "${app[@]}" $v \
            --trace "$LOGS/tr$tag" | tee -a "$OUT/trace.jsonl"
        echo "-- $v" >>"$OUT/trace-summary.txt"
        bash bench/trace_summary.sh -s 10 "$LOGS/tr$tag".*.jsonl >>"$OUT/trace-summary.txt"
    done
    cat "$OUT/trace-summary.txt"
    note "trace: $(wc -l <"$OUT/trace.jsonl") runs, per-phase means in trace-summary.txt"
}

# ---- OpenCL ----

scenario_opencl() { # NVIDIA OpenCL, 2D 4-point fp32 20480^2 x 1000 on 1 and 2 GPUs (+ serialized)
    local n s
    for n in 1 2; do
        for s in "" --serialize; do
            STENCIL_OPENCL_PLATFORM=NVIDIA timeout 200 "${MPI[@]}" -n $n \
                -x STENCIL_OPENCL_PLATFORM $B/bench/stencil_bench --label nvocl-2d4$s -b opencl \
                -S 2d4 -n 20480x20480 -i 1000 $s --repeat 2 | tee -a "$OUT/opencl.jsonl"
        done
    done
    note "opencl: $(wc -l <"$OUT/opencl.jsonl") runs"
}

scenario_oclcopy() { # OpenCL halo copies, rect vs pack (bench_ocl copy), OCL_PLATFORM (NVIDIA)
    local p=STENCIL_OPENCL_PLATFORM=${OCL_PLATFORM:-NVIDIA}
    {
        env $p $B/bench/opencl/bench_ocl copy 2d4 20480 2 200
        env $p $B/bench/opencl/bench_ocl copy 3d27 512 2 50
    } 2>&1 | tee "$OUT/oclcopy.txt"
    note "oclcopy: $(grep -c '^copy' "$OUT/oclcopy.txt") lines in oclcopy.txt"
}

scenario_oclwg() { # work-group width of the generic OpenCL kernel (STENCIL_OPENCL_WG)
    local wg p=STENCIL_OPENCL_PLATFORM=${OCL_PLATFORM:-NVIDIA}
    for wg in 64 128 256 512 1024; do
        env $p STENCIL_OPENCL_WG=$wg $B/bench/opencl/bench_ocl update 2d4 20480 200
        env $p STENCIL_OPENCL_WG=$wg $B/bench/opencl/bench_ocl update 3d7 512 100
    done 2>&1 | tee "$OUT/oclwg.txt"
    note "oclwg: see oclwg.txt"
}

scenario_poclwalk() { # PoCL alone on the CPU with each walk of the generic OpenCL kernel
    local w
    for w in 1 4 8; do
        STENCIL_OPENCL_WALK=$w STENCIL_OPENCL_PLATFORM=Portable "${MPI[@]}" -n 1 \
            -x STENCIL_OPENCL_WALK -x STENCIL_OPENCL_PLATFORM $B/bench/stencil_bench \
            --label "pocl-walk$w" -b opencl -S 2d4 -n 20480x20480 -i 5 --repeat 2 |
            tee -a "$OUT/poclwalk.jsonl"
    done
    note "poclwalk: $(wc -l <"$OUT/poclwalk.jsonl") runs"
}

# ---- Mixed backends in one job: CUDA on GPU 0, NVIDIA OpenCL on GPU 1, PoCL on the CPU ----
# MIXED_PIN=1: each rank on its own physical cores, the PoCL rank on POCL_MAX_PTHREAD_COUNT + 1.

pin_cpus() {
    PIN0=() PIN1=() PIN2=()
    [ "${MIXED_PIN:-0}" = 1 ] || return 0
    local cores=() c id first sorted n=$((POCL_MAX_PTHREAD_COUNT + 1))
    for c in /sys/devices/system/cpu/cpu[0-9]*; do
        id=${c##*cpu}
        first=$(sed 's/[-,].*//' "$c/topology/thread_siblings_list")
        [ "$first" = "$id" ] && taskset -c "$id" true 2>/dev/null && cores+=("$id")
    done
    mapfile -t sorted < <(printf '%s\n' "${cores[@]}" | sort -n)
    if [ ${#sorted[@]} -lt $((n + 2)) ]; then
        echo "pinning: off, ${#sorted[@]} physical cores < $((n + 2))" | tee -a "$OUT/pin.txt"
        return 0
    fi
    PIN0=(taskset -c "${sorted[0]}") PIN1=(taskset -c "${sorted[1]}")
    PIN2=(taskset -c "$(IFS=,; echo "${sorted[*]:2:$n}")")
    echo "pinning: ${PIN0[*]} / ${PIN1[*]} / ${PIN2[*]}" | tee -a "$OUT/pin.txt"
}

mixed() { # label weight0 weight1 weight2 [iterations]
    local app=($B/bench/stencil_bench --label "$1" -S 2d4 -n ${MIXED_N:-8192x8192}
        -i ${5:-${MIXED_I:-200}} --repeat ${MIXED_RUNS:-1})
    timeout 300 "${MPI[@]}" -n 1 env STENCIL_VERBOSE=1 STENCIL_BACKEND=cuda STENCIL_DEVICE=0 \
        STENCIL_WEIGHT=$2 "${PIN0[@]}" "${app[@]}" : \
        -n 1 env OCL_ICD_FILENAMES="${OCL_ICD_FILENAMES:-}" STENCIL_BACKEND=opencl \
        STENCIL_OPENCL_PLATFORM=NVIDIA STENCIL_DEVICE=1 STENCIL_WEIGHT=$3 "${PIN1[@]}" "${app[@]}" : \
        -n 1 env STENCIL_BACKEND=opencl STENCIL_OPENCL_PLATFORM=Portable STENCIL_WEIGHT=$4 \
        "${PIN2[@]}" "${app[@]}" | tee -a "$OUT/mixed.jsonl"
}

# The rate (gcells_best) of line LINE (from 0) of the JSON lines in FILE.
rate() {
    python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readlines()[int(sys.argv[2])])["gcells_best"])' "$1" "$2"
}

solo_runs() { # file grid iters pocl-grid pocl-iters: the three devices alone, one line each
    local f=$1 app=(-S 2d4 -n $2 -i $3 --repeat 2)
    "${MPI[@]}" -n 1 "${PIN0[@]}" $B/bench/stencil_bench --label solo-cuda -b cuda "${app[@]}" |
        tee -a "$f"
    STENCIL_OPENCL_PLATFORM=NVIDIA STENCIL_DEVICE=1 "${MPI[@]}" -n 1 -x STENCIL_OPENCL_PLATFORM \
        -x STENCIL_DEVICE "${PIN1[@]}" $B/bench/stencil_bench --label solo-nvocl -b opencl \
        "${app[@]}" | tee -a "$f"
    STENCIL_OPENCL_PLATFORM=Portable "${MPI[@]}" -n 1 -x STENCIL_OPENCL_PLATFORM "${PIN2[@]}" \
        $B/bench/stencil_bench --label solo-pocl -b opencl -S 2d4 -n "$4" -i "$5" | tee -a "$f"
}

# Solo rates, then equal, balanced (weights = solo rates) and auto-calibrated shares. MIXED_N,
# MIXED_I, MIXED_EQUAL_I, MIXED_REPEAT, MIXED_PIN, MIXED_RUNS (--repeat); MIXED_POCL_N and
# MIXED_POCL_I: PoCL's solo size and iterations (PoCL allocates at most 2 GiB there).
scenario_mixed() {
    local f=$OUT/mixed.jsonl w0 w1 w2 _
    rm -f "$f"
    pin_cpus
    solo_runs "$f" ${MIXED_N:-8192x8192} ${MIXED_I:-200} ${MIXED_POCL_N:-${MIXED_N:-8192x8192}} \
        ${MIXED_POCL_I:-5}
    w0=$(rate "$f" 0) w1=$(rate "$f" 1) w2=$(rate "$f" 2)
    mixed equal 1 1 1 "${MIXED_EQUAL_I:-}" # a third of the grid on the CPU: fewer iterations
    for _ in $(seq "${MIXED_REPEAT:-1}"); do # same-command runs vary: MIXED_REPEAT of each
        mixed balanced "$w0" "$w1" "$w2"
        mixed auto auto auto auto
    done
    note "mixed: $(wc -l <"$f") runs (solo $w0 / $w1 / $w2 Gcells/s)"
}

# Balanced jobs of 3 runs each (a cold first run and two warm ones), the GPU ranks weighted 465
# and 460, PoCL by each of MIXWARM_POCL, two jobs per weight.
scenario_mixwarm() {
    local w
    rm -f "$OUT/mixed.jsonl"
    PIN0=() PIN1=() PIN2=()
    for w in ${MIXWARM_POCL:-2.75 1.2}; do
        MIXED_RUNS=3 mixed "balanced-pocl$w" 465 460 "$w"
        MIXED_RUNS=3 mixed "balanced-pocl$w" 465 460 "$w"
    done
    note "mixwarm: $(wc -l <"$OUT/mixed.jsonl") jobs"
}

job() { # label trace(0/1) BACKEND:PLATFORM:DEVICE:WEIGHT...
    local label=$1 tr=$2 cmd=() sep=() spec b p d w
    shift 2
    local app=($B/bench/stencil_bench --label "$label" -S 2d4 -n ${MIXED_N:-32768x32768}
        -i ${MIXED_I:-300})
    [ "$tr" = 1 ] && app+=(--trace "$LOGS/tr-$label")
    for spec in "$@"; do
        IFS=: read -r b p d w <<<"$spec"
        cmd+=("${sep[@]}" -n 1 env OCL_ICD_FILENAMES="${OCL_ICD_FILENAMES:-}" STENCIL_BACKEND=$b
            STENCIL_OPENCL_PLATFORM=$p STENCIL_DEVICE=$d STENCIL_WEIGHT=$w "${app[@]}")
        sep=(:)
    done
    timeout 300 "${MPI[@]}" "${cmd[@]}" | tee -a "$OUT/mixdiag.jsonl"
    [ "$tr" = 1 ] && bash bench/trace_summary.sh -s 10 "$LOGS/tr-$label".*.jsonl |
        sed "s/^/$label /" >>"$OUT/mixdiag-trace.txt"
}

# Where a mixed job loses against the sum of its solo rates: 2-rank jobs (CUDA + NVIDIA OpenCL,
# CUDA x2, NVIDIA OpenCL x2), the 3-rank balanced job, and traced runs of the first and last.
scenario_mixdiag() {
    local f=$OUT/mixdiag.jsonl w0 w1 w2 _
    rm -f "$f" "$OUT/mixdiag-trace.txt"
    pin_cpus
    solo_runs "$f" ${MIXED_N:-32768x32768} ${MIXED_I:-300} ${MIXED_POCL_N:-16384x16384} 5
    w0=$(rate "$f" 0) w1=$(rate "$f" 1) w2=$(rate "$f" 2)
    for _ in 1 2; do
        job cuda-nvocl 0 cuda:-:0:$w0 opencl:NVIDIA:1:$w1
        job cuda-cuda 0 cuda:-:0:1 cuda:-:1:1
        job nvocl-nvocl 0 opencl:NVIDIA:0:1 opencl:NVIDIA:1:1
        job mixed-bal 0 cuda:-:0:$w0 opencl:NVIDIA:1:$w1 opencl:Portable:0:$w2
    done
    job cuda-nvocl-tr 1 cuda:-:0:$w0 opencl:NVIDIA:1:$w1
    job mixed-bal-tr 1 cuda:-:0:$w0 opencl:NVIDIA:1:$w1 opencl:Portable:0:$w2
    cat "$OUT/mixdiag-trace.txt"
    note "mixdiag: $(wc -l <"$f") runs (solo $w0 / $w1 / $w2 Gcells/s)"
}

# ---- kgt's named kernels: one and two time steps per launch ----

# bench stencil n i: the generic kernel (STENCIL_RTC=0) and kgt's, one and two steps per launch
fuse_runs() {
    local bk=$1 st=$2 n=$3 i=$4 rep=(--repeat "${FUSE_REPEAT:-1}") k f
    for k in "" "-k $st"; do
        for f in 1 2; do
            # shellcheck disable=SC2086
            "${MPI[@]}" -n 1 -x STENCIL_FUSE=$f -x STENCIL_RTC=$([ -z "$k" ] && echo 0 || echo 1) \
                "$bk" --label "fuse$f" -b cuda -S "$st" -n "$n" -i "$i" $k "${rep[@]}" |
                tee -a "$OUT/kgtfuse.jsonl"
        done
    done
}

# Memcheck of the two-step kernels, then one vs two steps per launch for the 2D stencils;
# FUSE_RANKS > 1 adds 2D 4-point on that many GPUs.
scenario_kgtfuse() {
    local bk=$B/bench/stencil_bench_kgt s f r=${FUSE_RANKS:-1}
    runlog fused-memcheck 600 compute-sanitizer --tool memcheck --error-exitcode 9 \
        "${MPI[@]}" -n 2 $B/tests/kgt/test_kgt_skel_cuda
    runlog fused-memcheck-direct 300 compute-sanitizer --tool memcheck --error-exitcode 9 \
        $B/tests/kgt/test_kgt_fused
    for s in 2d4 2d5asym; do # the generic kernel's two-step path, whole tiles and edges
        runlog fused-memcheck-generic-$s 300 env STENCIL_FUSE=2 compute-sanitizer --tool memcheck \
            --error-exitcode 9 $bk -b cuda -S $s -n 1001x1001 -i 5
    done
    fuse_runs $bk 2d4 32768x32768 500
    for s in 2d9 2d-diag 2d9nc 2d5asym; do fuse_runs $bk $s 16384x16384 500; done
    if [ "$r" -gt 1 ]; then
        for f in 1 2; do
            "${MPI[@]}" -n "$r" -x STENCIL_FUSE=$f $bk --label "fuse$f-n$r" -b cuda -S 2d4 \
                -n 32768x32768 -i 500 -k 2d4 | tee -a "$OUT/kgtfuse.jsonl"
        done
    fi
    note "kgtfuse: $(wc -l <"$OUT/kgtfuse.jsonl") runs"
}

# The streaming kernels' tests (test_kgt_fused, also under memcheck; test_kgt_skel_cuda on 1 and 2
# ranks), then one vs two steps per launch for KGTSTREAM_SET.
scenario_kgtstream() {
    local bk=$B/bench/stencil_bench_kgt s n
    runlog kgt-fused 300 $B/tests/kgt/test_kgt_fused
    runlog kgt-fused-memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 9 \
        $B/tests/kgt/test_kgt_fused
    for n in 1 2; do runlog kgt-skel-n$n 300 "${MPI[@]}" -n $n $B/tests/kgt/test_kgt_skel_cuda; done
    for s in ${KGTSTREAM_SET:-2d9nc 2d4 2d5asym}; do
        n=16384x16384
        [ "$s" = 2d4 ] && n=32768x32768
        fuse_runs $bk $s $n 500
    done
    note "kgtstream: $(wc -l <"$OUT/kgtfuse.jsonl") runs"
}

# 2D 4-point 32768^2 with kgt's kernel on 2 GPUs, one vs two steps per exchange, peer path and
# host-staged (FUSE_REPEAT repeats), after kgt-cuda-n2 on the two GPUs.
scenario_fusegpus() {
    local bk=$B/bench/stencil_bench_kgt p f
    runlog kgt-cuda-n2-2gpu 300 meson test -C $B --no-rebuild kgt-cuda-n2 --print-errorlogs
    for p in 1 0; do
        for f in 1 2; do
            "${MPI[@]}" -n 2 -x STENCIL_FUSE=$f $bk --label "fuse$f-n2" -b cuda -S 2d4 \
                -n 32768x32768 -i 500 -k 2d4 --peer $p --repeat "${FUSE_REPEAT:-1}" |
                tee -a "$OUT/fusegpus.jsonl"
        done
    done
    note "fusegpus: $(wc -l <"$OUT/fusegpus.jsonl") runs"
}

# The run-time two-step kernels (2D star stencils, kernel NULL): test_skeleton with CUDA on 1 and 2
# ranks by default (automatic steps) and with two steps forced, memcheck of odd boxes, then the
# default against one step per exchange and kgt's named two-step kernel (kernels.jsonl).
scenario_rtcfuse() {
    local ts=$B/tests/mpi/test_skeleton bk=$B/bench/stencil_bench_kgt n c s f
    for n in 1 2; do
        for f in 0 2; do
            runlog skel-rtc-fuse$f-n$n 300 env STENCIL_BACKEND=cuda STENCIL_EXPECT_KERNEL=rtc \
                STENCIL_FUSE=$f "${MPI[@]}" -n $n -x STENCIL_BACKEND -x STENCIL_EXPECT_KERNEL \
                -x STENCIL_FUSE $ts
        done
    done
    for c in "2d9nc -n 517x1031" "2d5asym -n 300x700 -p blocks" "2d4 -n 1001x999 --periodic"; do
        runlog memcheck-fuse-${c%% *} 300 "${MPI[@]}" -n 2 -x STENCIL_FUSE=2 compute-sanitizer \
            --tool memcheck --error-exitcode 9 $bk -b cuda -S $c -i 5
    done
    for c in ${RTCFUSE_CASES:-2d4:20480x20480:1000 2d9nc:16384x16384:500 2d5asym:16384x16384:500 \
        2d4:20480x20480:500:double}; do
        IFS=: read -r s n i t <<<"$c"
        for f in 0 1; do
            "${MPI[@]}" -n 1 -x STENCIL_FUSE=$f $bk --label "rtc fuse$f" -b cuda -S $s -n $n -i $i \
                -t "${t:-float}" | tee -a "$OUT/kernels.jsonl"
        done
        "${MPI[@]}" -n 1 -x STENCIL_FUSE=2 $bk --label "kgt fuse2" -b cuda -S $s -n $n -i $i \
            -t "${t:-float}" -k $s | tee -a "$OUT/kernels.jsonl"
    done
}

# name test: an MPI test with CUDA on 1 and 2 ranks and with NVIDIA OpenCL on 1.
scenario_named() {
    local c s n i t bk=$B/bench/stencil_bench_kgt r
    for r in 1 2; do
        runlog kgtskel-cuda-n$r 600 "${MPI[@]}" -n $r $B/tests/kgt/test_kgt_skel_cuda
    done
    for c in ${NAMED_CASES:-$KERNEL_CASES_DEFAULT}; do
        IFS=: read -r s n i t <<<"$c"
        "${MPI[@]}" -n 1 $bk --label default -b cuda -S $s -n $n -i $i -t "${t:-float}" |
            tee -a "$OUT/named.jsonl"
        "${MPI[@]}" -n 1 $bk --label named -b cuda -S $s -n $n -i $i -t "${t:-float}" -k $s |
            tee -a "$OUT/named.jsonl"
    done
}

gpu_mpi_test() {
    local n
    for n in 1 2; do
        runlog $1-cuda-n$n 600 env STENCIL_BACKEND=cuda "${MPI[@]}" -n $n -x STENCIL_BACKEND $2
    done
    runlog $1-nvocl-n1 600 env STENCIL_BACKEND=opencl STENCIL_OPENCL_PLATFORM=NVIDIA \
        "${MPI[@]}" -n 1 -x STENCIL_BACKEND -x STENCIL_OPENCL_PLATFORM $2
}

# T time steps per exchange on one GPU: each case of STEPS_CASES with the default options (the
# automatic T) and with T forced to each of STEPS_T, and test_steps with CUDA on 1 and 2 ranks and
# NVIDIA OpenCL on 1 (STEPS_TESTS=0 skips them) (steps.jsonl). STEPS_SHAPES: shapes of the 3D
# streaming kernels (STENCIL_RTC_STREAM3, "ny,by"; default: theirs) to run every case under.
# Issue 45's cases: stencil:size:iterations:type:target (Gcells/s on one H200; the default must
# reach it and come within 2% of the best forced T).
TABLE_CASES_DEFAULT="2d4:20480x20480:1000:float:1554 2d9:20480x20480:1000:float:930
2d9nc:16384x16384:500:float:827 3d7:1024x1024x1024:200:float:666 3d27:512x512x512:200:float:550
3d-oct:512x512x512:200:float:650 3d13:512x512x512:200:float:550 3d19:512x512x512:200:float:550
2d17:16384x16384:500:float:750 2d-asym:16384x16384:500:float:900 2d25:16384x16384:500:float:700
1d3:268435456:200:float:1000 3d7:768x768x768:100:double:400"

# T target stencil size iterations type: one run into table.jsonl; a forced T >= 2 with the
# streaming kernels of T levels wherever kgt has them (STENCIL_RTC_DEPTH), whatever its model says
table_run() {
    "${MPI[@]}" -n 1 -x STENCIL_FUSE=$1 $([ "$1" -ge 2 ] && echo "-x STENCIL_RTC_DEPTH=$1") \
        $B/bench/stencil_bench --label "T=$1 target=$2" -b cuda -S $3 -n $4 -i $5 -t $6 \
        --repeat "${TABLE_REPEAT:-1}" </dev/null | tee -a "$OUT/table.jsonl"
}

scenario_table() {
    local c s n i t g f d
    for c in ${TABLE_CASES:-$TABLE_CASES_DEFAULT}; do
        IFS=: read -r s n i t g <<<"$c"
        table_run 0 "${g:-0}" $s $n $i "${t:-float}"
        d=$(tail -1 "$OUT/table.jsonl" | sed -n 's/.*"steps":\([0-9]*\).*/\1/p')
        [ "${d:-0}" -gt 4 ] || d=4
        for f in 1 ${TABLE_T:-$(seq 2 "$d")}; do table_run $f "${g:-0}" $s $n $i "${t:-float}"; done
    done
    note "table: $(wc -l <"$OUT/table.jsonl") runs"
}

scenario_steps() {
    local bk=$B/bench/stencil_bench c s n i t f sh
    [ "${STEPS_TESTS:-1}" = 1 ] && gpu_mpi_test steps $B/tests/mpi/test_steps
    for sh in ${STEPS_SHAPES:-default}; do
        for c in ${STEPS_CASES:-2d4:20480x20480:1000 2d9:20480x20480:1000 3d7:1024x1024x1024:200 \
            2d4:20480x20480:500:double 2d9nc:16384x16384:500}; do
            IFS=: read -r s n i t <<<"$c"
            for f in 0 ${STEPS_T:-1 2 3 4}; do
                "${MPI[@]}" -n 1 -x STENCIL_FUSE=$f \
                    -x STENCIL_RTC_STREAM3=$([ "$sh" = default ] || echo "$sh") $bk \
                    --label "T=$f$([ "$sh" = default ] || echo " s3 $sh")" -b cuda -S $s -n $n \
                    -i $i -t "${t:-float}" | tee -a "$OUT/steps.jsonl"
            done
        done
    done
}

# T steps per exchange on two GPUs (issue 18's must-shows 2 and 3): each case of STEPS_CASES on 1
# and 2 GPUs with the automatic T, and on 2 GPUs with T = 1 (the messages per rank drop T-fold),
# each run STEPS2_REPEAT times (1), and with STEPS2_TRACE=1 once more on 2 GPUs traced,
# then the strong-scaling case STEPS2_STRONG (2D 4-point 2048^2 x 10000) on 2 GPUs, automatic T and
# T = 1, untraced (best of 3) and traced (per-pass phase means in steps2-trace.txt); test_steps
# with CUDA on 2 and 4 ranks over the two GPUs (STEPS_TESTS=0 skips it) (steps2.jsonl).
scenario_steps2() {
    local bk=$B/bench/stencil_bench c s n i t f r
    if [ "${STEPS_TESTS:-1}" = 1 ]; then
        for r in 2 4; do
            runlog steps-cuda-n$r 600 env STENCIL_BACKEND=cuda "${MPI[@]}" -n $r \
                -x STENCIL_BACKEND $B/tests/mpi/test_steps
        done
    fi
    for c in ${STEPS_CASES:-2d4:20480x20480:1000 2d9:20480x20480:1000 3d7:1024x1024x1024:200 \
        2d4:20480x20480:500:double 2d9nc:16384x16384:500}; do
        IFS=: read -r s n i t <<<"$c"
        for r in "1 0" "2 0" "2 1"; do
            set -- $r
            "${MPI[@]}" -n $1 -x STENCIL_FUSE=$2 $bk --label "n$1 T=$2" -b cuda -S $s -n $n -i $i \
                -t "${t:-float}" --repeat "${STEPS2_REPEAT:-1}" | tee -a "$OUT/steps2.jsonl"
        done
        [ "${STEPS2_TRACE:-0}" = 1 ] || continue
        "${MPI[@]}" -n 2 $bk --label "n2 traced" -b cuda -S $s -n $n -i $i -t "${t:-float}" \
            --trace "$LOGS/c$s$t" >>"$OUT/steps2-traced.jsonl"
        echo "-- $c on 2 GPUs, automatic T" >>"$OUT/steps2-trace.txt"
        bash bench/trace_summary.sh -s 5 "$LOGS/c$s$t".*.jsonl >>"$OUT/steps2-trace.txt"
    done
    IFS=: read -r s n i <<<"${STEPS2_STRONG:-2d4:2048x2048:10000}"
    for f in 0 1; do
        "${MPI[@]}" -n 2 -x STENCIL_FUSE=$f $bk --label "strong T=$f" -b cuda -S $s -n $n -i $i \
            --repeat 3 | tee -a "$OUT/steps2.jsonl"
        "${MPI[@]}" -n 2 -x STENCIL_FUSE=$f $bk --label "strong traced T=$f" -b cuda -S $s -n $n \
            -i $i --trace "$LOGS/st$f" | tee -a "$OUT/steps2.jsonl"
        echo "-- T=$f (a line per rank; microseconds per pass of T steps)" >>"$OUT/steps2-trace.txt"
        bash bench/trace_summary.sh -s 100 "$LOGS/st$f".*.jsonl >>"$OUT/steps2-trace.txt"
    done
    cat "$OUT/steps2-trace.txt"
    note "steps2: $(wc -l <"$OUT/steps2.jsonl") runs"
}

# Out-of-core runs on one GPU: each case of OOC_CASES in core (default options), then out of core
# with the device memory limited to a third of what the in-core run holds, T automatic (0) and
# each T of OOC_T, plus test_ooc with CUDA on 1 and 2 ranks and NVIDIA OpenCL on 1 (ooc.jsonl).
scenario_ooc() {
    local bk=$B/bench/stencil_bench c s n i t lim f
    gpu_mpi_test ooc $B/tests/mpi/test_ooc
    for c in ${OOC_CASES:-2d4:20480x20480:1000:1120M 3d7:768x768x768:300:1200M}; do
        IFS=: read -r s n i lim <<<"$c"
        "${MPI[@]}" -n 1 $bk --label "in-core" -b cuda -S $s -n $n -i $i | tee -a "$OUT/ooc.jsonl"
        for f in ${OOC_T:-0}; do
            "${MPI[@]}" -n 1 -x STENCIL_OOC=on -x STENCIL_DEVICE_MEMORY=$lim -x STENCIL_FUSE=$f $bk \
                --label "ooc $lim fuse$f" -b cuda -S $s -n $n -i $i | tee -a "$OUT/ooc.jsonl"
        done
    done
    # A two-field program: Gray-Scott in core and at a third of its device memory (and more).
    local pb=$B/bench/prog_bench g="-f bench/progs/grayscott.stencil -n 8192x8192 -i 2000"
    "${MPI[@]}" -n 1 $pb -b cuda $g --label "gs in-core" | tee -a "$OUT/ooc.jsonl"
    for lim in ${OOC_PROG_LIMITS:-358000000 1000000000}; do
        "${MPI[@]}" -n 1 $pb -b cuda $g --ooc $lim --label "gs ooc $lim" | tee -a "$OUT/ooc.jsonl"
    done
}

# A grid whose two arrays exceed the GPU's memory (an 80 GB H100: 110000^2 fp32), out of core
# without any limit or option, every cell compared with a tiled P x P run (oocbig.jsonl); the
# host's free memory before and after, since the host copies take most of it.
scenario_oocbig() {
    free -g | tee "$LOGS/oocbig-free.log"
    nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv | tee -a "$LOGS/oocbig-free.log"
    runlog oocbig 560 "${MPI[@]}" -n 1 $B/bench/ooc_big -n ${OOCBIG_N:-110000} -P ${OOCBIG_P:-1000} \
        -i ${OOCBIG_I:-300} -b cuda
    grep -h '^{' "$LOGS/oocbig.log" | tee -a "$OUT/oocbig.jsonl"
    free -g | tee -a "$LOGS/oocbig-free.log"
}

best_of() { # FILE.jsonl: each run's label and best rate
    python3 - "$1" <<'EOF2'
import json, sys
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except ValueError: continue
    print("  %-22s %8.1f Gcells/s (best of runs)" % (r.get("label", "?"), r["gcells_best"]))
EOF2
}

scenario_progs() { # programs: PROG_TESTS on CUDA and NVIDIA OpenCL; Gray-Scott and the wave rates
    local pb=$B/bench/prog_bench sb=$B/bench/stencil_bench t n
    for t in ${PROG_TESTS:-}; do
        for n in 1 2; do
            runlog prog-cuda-$(basename $t)-n$n 300 env STENCIL_BACKEND=cuda "${MPI[@]}" -n $n \
                -x STENCIL_BACKEND $B/$t
            runlog prog-nvocl-$(basename $t)-n$n 300 env STENCIL_BACKEND=opencl \
                STENCIL_OPENCL_PLATFORM=NVIDIA "${MPI[@]}" -n $n -x STENCIL_BACKEND \
                -x STENCIL_OPENCL_PLATFORM -x OCL_ICD_FILENAMES=libpocl.so.2:libnvidia-opencl.so.1 $B/$t
        done
    done
    for bk in cuda opencl; do
        runlog prog-gs-$bk 300 env STENCIL_OPENCL_PLATFORM=NVIDIA $pb -b $bk \
            -f bench/progs/grayscott.stencil -n 8192x8192 -i 2000 --repeat 3 --label gs-$bk
        runlog prog-wave-$bk 300 env STENCIL_OPENCL_PLATFORM=NVIDIA $pb -b $bk \
            -f bench/progs/wave.stencil -n 16384x16384 -i 500 --repeat 3 --label wave-$bk
    done
    for sh in ${PROG_SHAPES:-}; do # the program kernel's shapes (STENCIL_PROG_SHAPE)
        runlog prog-gs-cuda-$sh 300 env STENCIL_PROG_SHAPE=$sh $pb -b cuda \
            -f bench/progs/grayscott.stencil -n 8192x8192 -i 2000 --repeat 3 --label gs-cuda-$sh
        runlog prog-wave-cuda-$sh 300 env STENCIL_PROG_SHAPE=$sh $pb -b cuda \
            -f bench/progs/wave.stencil -n 16384x16384 -i 500 --repeat 3 --label wave-cuda-$sh
    done
    if [ "${PROG_ONLY:-0}" != 1 ]; then
        runlog prog-2d4 300 $sb -b cuda -S 2d4 -n 20480x20480 -i 1000 --repeat 3 --label lin-2d4
        runlog prog-3d7 300 $sb -b cuda -S 3d7 -n 1024x1024x1024 -i 200 --repeat 3 --label lin-3d7
    fi
    grep -h '^{' "$LOGS"/prog-gs-*.log "$LOGS"/prog-wave-*.log "$LOGS"/prog-2d4.log \
        "$LOGS"/prog-3d7.log >"$OUT/progs.jsonl" 2>/dev/null
    note "progs: $(wc -l <"$OUT/progs.jsonl") runs"
    best_of "$OUT/progs.jsonl"
}

# The fused program kernels by vector rows (kgt/prog_vfuse.c) against the tiles (vfuse.jsonl):
# Gray-Scott and the wave equation at each forced T of VFUSE_T, tiles (STENCIL_PROG_VFUSE=0),
# the plan, and each shape of VFUSE_SHAPES ("v,nt,h"), then one step and the defaults; after the
# rates (so that a call cut short keeps them) progdev on CUDA (both fused kinds bitwise against
# the interpreter), test_prog_steps with CUDA on 1 and 2 ranks and a memcheck of Gray-Scott's pass
# at T = 4.
vfuse_run() { # label command...: one run, its JSON line kept in vfuse.jsonl at once
    local l=$1
    shift
    runlog vfuse-$l 300 "$@" --label $l
    grep -h '^{' "$LOGS/vfuse-$l.log" >>"$OUT/vfuse.jsonl"
}
scenario_vfuse() {
    local pb=$B/bench/prog_bench t sh g w n
    g="-f bench/progs/grayscott.stencil -n 8192x8192 -i 2000 --repeat 3"
    w="-f bench/progs/wave.stencil -n 16384x16384 -i 500 --repeat 3"
    for t in ${VFUSE_T:-2 4}; do
        for sh in 0 plan ${VFUSE_SHAPES:-1,128,64 2,128,64 4,128,64 2,256,64 2,128,32 2,128,128}; do
            local e=()
            [ "$sh" = plan ] || e=(env STENCIL_PROG_VFUSE=$sh)
            vfuse_run gs-$t-$sh "${e[@]}" $pb -b cuda $g -s $t
            vfuse_run wave-$t-$sh "${e[@]}" $pb -b cuda $w -s $t
        done
    done
    vfuse_run gs-1 $pb -b cuda $g -s 1
    vfuse_run wave-1 $pb -b cuda $w -s 1
    vfuse_run gs-default $pb -b cuda $g
    vfuse_run wave-default $pb -b cuda $w
    best_of "$OUT/vfuse.jsonl"
    runlog vfuse-progdev 600 $B/tests/progdev/test_progdev tests/kgt/prog/examples.stencil cuda \
        tests/rtc/prog_extra.stencil
    for n in 1 2; do
        runlog vfuse-prog-steps-n$n 300 env STENCIL_BACKEND=cuda "${MPI[@]}" -n $n \
            -x STENCIL_BACKEND $B/tests/prog/test_prog_steps
    done
    runlog vfuse-memcheck 600 compute-sanitizer --tool memcheck $pb -b cuda \
        -f bench/progs/grayscott.stencil -n 1000x1100 -i 12 -s 4
}

# The programs' tables on one card (progfinal.jsonl): Gray-Scott and the wave equation at T = 1..4
# forced, at T = 4 on tiles (STENCIL_PROG_VFUSE=0) and by default; out of core Gray-Scott at a third
# of its device memory and at 1000 MB, the wave equation at 1433 MB; then racecheck and memcheck
# of the vector-row pass, progdev, test_prog_steps and test_prog_ooc with CUDA.
scenario_progfinal() {
    local pb=$B/bench/prog_bench t g w
    g="-f bench/progs/grayscott.stencil -n 8192x8192 -i 2000 --repeat 3"
    w="-f bench/progs/wave.stencil -n 16384x16384 -i 500 --repeat 3"
    pf() { local l=$1; shift; runlog pf-$l 300 "$@" --label $l; grep -h '^{' "$LOGS/pf-$l.log" >>"$OUT/progfinal.jsonl"; }
    pf gs-default $pb -b cuda $g
    pf wave-default $pb -b cuda $w
    for t in 1 2 3 4; do
        pf gs-$t $pb -b cuda $g -s $t
        pf wave-$t $pb -b cuda $w -s $t
    done
    pf gs-4-tiles env STENCIL_PROG_VFUSE=0 $pb -b cuda $g -s 4
    pf wave-4-tiles env STENCIL_PROG_VFUSE=0 $pb -b cuda $w -s 4
    pf gs-ooc-358 $pb -b cuda $g --ooc 358000000
    pf gs-ooc-1000 $pb -b cuda $g --ooc 1000000000
    pf wave-ooc-1433 $pb -b cuda $w --ooc 1433000000
    best_of "$OUT/progfinal.jsonl"
    for tool in racecheck memcheck; do
        for f in grayscott wave; do
            runlog pf-$tool-$f 200 compute-sanitizer --tool $tool --error-exitcode 3 $pb -b cuda \
                -f bench/progs/$f.stencil -n 300x256 -i 9 -s 4
        done
    done
    runlog pf-progdev 300 $B/tests/progdev/test_progdev tests/kgt/prog/examples.stencil cuda \
        tests/rtc/prog_extra.stencil
    for tt in steps ooc; do
        runlog pf-prog-$tt 300 env STENCIL_BACKEND=cuda "${MPI[@]}" -n 1 -x STENCIL_BACKEND \
            $B/tests/prog/test_prog_$tt
    done
}

# Programs out of core by parallelogram chunks (progcarry.jsonl): Gray-Scott, the wave equation
# and 3D heat in core and out of core (a third of Gray-Scott's memory and 1000 MB, 1433 MB of the
# wave's, a third of heat3d's), with test_prog_ooc on CUDA and memcheck of a Gray-Scott sweep of
# many chunks after Gray-Scott's rows.
scenario_progcarry() {
    local pb=$B/bench/prog_bench g w h
    g="-f bench/progs/grayscott.stencil -n 8192x8192 -i 2000 --repeat 3"
    w="-f bench/progs/wave.stencil -n 16384x16384 -i 500 --repeat 3"
    h="-f bench/progs/heat3d.stencil -n 512x512x512 -i 200 --repeat 1"
    pc() { local l=$1; shift; runlog pc-$l 300 "$@" --label $l; grep -h '^{' "$LOGS/pc-$l.log" >>"$OUT/progcarry.jsonl"; }
    pc gs-default $pb -b cuda $g
    pc gs-ooc-358 $pb -b cuda $g --ooc 358000000
    pc gs-ooc-1000 $pb -b cuda $g --ooc 1000000000
    runlog pc-prog-ooc 300 env STENCIL_BACKEND=cuda "${MPI[@]}" -n 1 -x STENCIL_BACKEND \
        $B/tests/prog/test_prog_ooc
    runlog pc-memcheck-gs-ooc 200 compute-sanitizer --tool memcheck --error-exitcode 3 $pb -b cuda \
        -f bench/progs/grayscott.stencil -n 2000x256 -i 40 --ooc 1000000
    pc wave-default $pb -b cuda $w
    pc wave-ooc-1433 $pb -b cuda $w --ooc 1433000000
    pc heat3d-default $pb -b cuda $h
    pc heat3d-ooc-544 $pb -b cuda $h --ooc 544000000
    best_of "$OUT/progcarry.jsonl"
}

for s in "$@"; do
    if declare -F "scenario_$s" >/dev/null; then "scenario_$s"; else note "unknown scenario $s"; fi
done
# Summary: the runs of this call, one line each.
# T per exchange: the default (automatic T) beside one step (T=1) and the forced T of each case.
[ -f "$OUT/steps.jsonl" ] && python3 - "$OUT/steps.jsonl" <<'EOF'
import json, sys
cases = {}
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except ValueError: continue
    k = (r["stencil"], "x".join(map(str, r["sizes"])), r["type"])
    cases.setdefault(k, {})[r["label"]] = r
for (s, n, t), runs in cases.items():
    d = runs.get("T=0")
    line = "%-7s %-16s %-6s" % (s, n, t)
    if d: line += " default %7.1f (T=%d, %s)" % (d["gcells_median"], d["steps"], d["steps_why"])
    for f in sorted(x for x in runs if x != "T=0"):
        line += "  %s %7.1f" % (f, runs[f]["gcells_median"])
    print(line)
EOF
[ -f "$OUT/steps2.jsonl" ] && python3 - "$OUT/steps2.jsonl" <<'EOF'
import json, sys
runs = {}
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except ValueError: continue
    runs.setdefault((r["stencil"], "x".join(map(str, r["sizes"])), r["type"]), []).append(r)
for (s, n, t), rs in runs.items():
    one = [r for r in rs if r["label"] == "n1 T=0"]
    line = "%-7s %-16s %-6s" % (s, n, t)
    for r in rs:
        line += "  %s: %.1f (T=%d, %d msgs)" % (r["label"], r["gcells_median"], r["steps"], r["messages"])
    two = [r for r in rs if r["label"] == "n2 T=0"]
    if one and two: line += "  scaling %.3f" % (two[0]["gcells_median"] / one[0]["gcells_median"])
    print(line)
EOF
# Issue 45's table: the default (automatic T) against T = 1 and the best forced T, and the target.
[ -f "$OUT/table.jsonl" ] && python3 - "$OUT/table.jsonl" <<'EOF'
import json, sys
cases = {}
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except ValueError: continue
    f, g = r["label"].split()
    k = (r["stencil"], "x".join(map(str, r["sizes"])), r["type"], float(g.split("=")[1]))
    cases.setdefault(k, {})[int(f[2:])] = r
print("%-8s %-16s %-6s %16s %8s %15s %6s %7s %s" % ("case", "size", "type", "default (T)",
      "T=1", "best forced (T)", "auto", "target", "meets"))
for (s, n, t, g), runs in cases.items():
    d, one = runs.get(0), runs.get(1)
    forced = [(r["gcells_median"], f) for f, r in runs.items() if f >= 1]
    best = max(forced) if forced else (0, 0)
    rate = d["gcells_median"] if d else 0
    print("%-8s %-16s %-6s %9.1f (T=%d) %8.1f %8.1f (T=%d) %6s %7.0f %s" % (
        s, n, t, rate, d["steps"] if d else 0, one["gcells_median"] if one else 0, best[0],
        best[1], "ok" if rate >= 0.98 * best[0] else "LOSES", g, "yes" if rate >= g else "no"))
EOF
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
