#!/bin/bash
# Everything that needs the GPU host with two GPUs (device kind nvidia-h200-x2), by steps:
#
#   cp -r ../shared/device .devkit     # once, git-ignored; carry ['.devkit'] in the device call
#   bash bench/device_x2.sh build tests sanitize      # first call
#   bash bench/device_x2.sh scaling opencl mixed kgt   # second call (the build is kept warm)
#
#   build     meson + ninja (CUDA, OpenCL through the ICD loader: NVIDIA and PoCL)
#   tests     suite gpu; tests/mpi skeleton+weights with CUDA on 1 and 2 GPUs; skeleton with
#             NVIDIA OpenCL on 1 and 2 GPUs
#   cudatests the CUDA part of tests only
#   sanitize  compute-sanitizer memcheck and racecheck on 2-rank CUDA runs
#   scaling   bench/scaling.sh on 1 and 2 GPUs (strong, weak, serialized, host-staged, 3D)
#   opencl    2D 4-point fp32 20480^2 x 1000 with NVIDIA OpenCL on 1 and 2 GPUs (+ serialized)
#   mixed     one job of a CUDA rank, an NVIDIA-OpenCL rank and a PoCL CPU rank: solo rates,
#             equal / balanced / auto shares (MIXED_N, MIXED_I, MIXED_EQUAL_I, MIXED_REPEAT,
#             MIXED_PIN; MIXED_POCL_N, MIXED_POCL_I: the PoCL solo size and iterations, since PoCL
#             allocates at most 2 GiB; MIXED_RUNS: runs of the skeleton per job, --repeat)
#   mixwarm   balanced 3-rank jobs of 3 runs each, PoCL weighted by MIXWARM_POCL: stalls when cold?
#   mixdiag   where the mixed job loses: solo rates, 2-rank jobs (CUDA+NVIDIA OpenCL, CUDA+CUDA
#             host-staged or peer as the library picks, NVIDIA OpenCL x2), the 3-rank balanced
#             job, and traced runs of the first and last (MIXED_N, MIXED_I)
#   kgt       generic vs kgt-specialized kernels on one GPU
#   kgtwalk   kgt kernels generated with other --walk values (KGT_WALKS), on one GPU
#   trace     per-iteration phase traces, 2D strong case on TRACE_RANKS GPUs (peer/staged, serialized)
#   poclwalk  PoCL alone with each walk of the generic OpenCL kernel
#   ncukgt    Nsight Compute sections of kgt kernels (KGT_NCU)
#   fused     two time steps in one kernel, a feasibility study (bench/gpu/fused.cu), one GPU
#   peer      tests/mpi/test_skeleton on 3 and 4 ranks (PEER_RANKS) with the CUDA peer path forced
#   kgtfuse   2D generic and kgt kernels, one vs two time steps per launch (options.fuse), one GPU
#             (kgt's default --fused auto: tile or streaming); FUSE_RANKS > 1 adds 2D 4-point on that many
#             GPUs; compute-sanitizer memcheck of the fused CUDA kernels (kgt-cuda-n2)
#   kgtstream test_kgt_fused (+ memcheck) and test_kgt_skel_cuda on 1 and 2 ranks, then one vs two
#             steps per launch, generic and kgt, for KGTSTREAM_SET (default 2d9nc 2d4 2d5asym)
#   fusegpus  kgt-cuda-n2 on 2 GPUs, then 2D 4-point 32768^2 with kgt's kernel on 2 GPUs, one
#             vs two steps per exchange, peer path and host-staged (FUSE_REPEAT repeats)
# JSON lines and logs go to $OUT; a summary is printed last.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
[ -f .devkit/env.sh ] && . .devkit/env.sh
export POCL_MAX_PTHREAD_COUNT=${POCL_MAX_PTHREAD_COUNT:-8}
B=build-x2
# The image's mpirun hands its ranks OCL_ICD_FILENAMES without the NVIDIA driver (seen
# 2026-11-22): pass the caller's value on, so ranks see NVIDIA OpenCL too.
MPI=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
[ -n "${OCL_ICD_FILENAMES:-}" ] && MPI+=(-x "OCL_ICD_FILENAMES=$OCL_ICD_FILENAMES")
summary=()
note() { summary+=("$*"); echo "== $*"; }

step_build() {
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/gpu.txt"
    nvidia-smi topo -m | head -5 >>"$OUT/gpu.txt"
    [ -f $B/build.ninja ] || meson setup $B -Dbuildtype=release -Dwerror=false -Dcuda=enabled \
        -Dhip=disabled -Dopencl=auto -Dtests=enabled \
        "-Dmpiexec_args=['--allow-run-as-root','--oversubscribe']" >"$OUT/setup.log" 2>&1 ||
        { tail -30 "$OUT/setup.log"; note "build: setup FAILED"; return 1; }
    grep -A4 "Backends" "$OUT/setup.log"
    # Only what the later steps run, when given (BUILD_TARGETS), to keep device time short.
    ninja -C $B ${BUILD_TARGETS:-} >"$OUT/build.log" 2>&1 ||
        { tail -30 "$OUT/build.log"; note "build: FAILED"; return 1; }
    note "build: ok"
}

runlog() { # name timeout command...: runs, logs, notes the result
    local name=$1 t=$2
    shift 2
    timeout "$t" "$@" >"$OUT/$name.log" 2>&1
    local rc=$?
    note "$name: $([ $rc = 0 ] && echo ok || echo "FAILED rc=$rc") $(grep -h 'Checks:' "$OUT/$name.log" | tail -1)"
    [ $rc = 0 ] || tail -12 "$OUT/$name.log"
}

step_tests() {
    runlog gpu-suite 300 meson test -C $B --no-rebuild --suite gpu --print-errorlogs
    for n in 1 2; do
        runlog skel-cuda-n$n 300 env STENCIL_BACKEND=cuda "${MPI[@]}" -n $n $B/tests/mpi/test_skeleton
        runlog skel-nvocl-n$n 300 env STENCIL_BACKEND=opencl STENCIL_OPENCL_PLATFORM=NVIDIA \
            "${MPI[@]}" -n $n $B/tests/mpi/test_skeleton
    done
}

step_cudatests() {
    runlog gpu-suite 300 meson test -C $B --no-rebuild --suite gpu --print-errorlogs
    for n in 1 2; do
        runlog skel-cuda-n$n 300 env STENCIL_BACKEND=cuda "${MPI[@]}" -n $n $B/tests/mpi/test_skeleton
    done
}

step_ocltests() {
    for n in 1 2; do
        runlog skel-nvocl-n$n 300 env STENCIL_BACKEND=opencl STENCIL_OPENCL_PLATFORM=NVIDIA \
            "${MPI[@]}" -n $n $B/tests/mpi/test_skeleton
    done
}

step_sanitize() {
    for tool in memcheck racecheck; do
        runlog sanitizer-$tool 300 "${MPI[@]}" -n 2 compute-sanitizer --tool $tool --error-exitcode 7 \
            $B/examples/heat2d -b cuda -n 512 -i 20
    done
    runlog sanitizer-memcheck-3d 300 "${MPI[@]}" -n 2 compute-sanitizer --tool memcheck \
        --error-exitcode 7 $B/bench/stencil_bench -b cuda -S 3d27 -n 64x64x64 -i 10 -p blocks
}

step_scaling() {
    timeout ${SCALING_TIMEOUT:-280} bash bench/scaling.sh $B "$OUT" 2 cuda >"$OUT/scaling.log" 2>&1
    note "scaling: rc $? ($(wc -l <"$OUT/scaling.jsonl") runs)"
}

step_ocldiag() {
    clinfo -l 2>&1 | head -20
    ls -la /tmp/icd /etc/OpenCL/vendors 2>&1 | head
    STENCIL_OPENCL_PLATFORM=NVIDIA $B/examples/heat2d -b opencl -n 256 -i 10 2>&1 |
        grep -v "^---\|^$" | tee "$OUT/ocldiag.log" | head -8
}

# NVIDIA OpenCL ran as a singleton but not under mpirun: find a launch that works, keep it.
step_oclmpi() {
    local v
    for v in "" "--mca opal_cuda_support 0" "--mca btl ^smcuda --mca pml ob1" \
        "-x OCL_ICD_VENDORS -x LD_LIBRARY_PATH"; do
        echo "-- mpirun $v"
        # shellcheck disable=SC2086
        if STENCIL_OPENCL_PLATFORM=NVIDIA timeout 60 "${MPI[@]}" $v -n 1 $B/examples/heat2d \
            -b opencl -n 256 -i 10 2>&1 | grep -v "^---" | tee -a "$OUT/oclmpi.log" | grep -q PASSED; then
            # shellcheck disable=SC2206
            MPI+=($v)
            note "oclmpi: NVIDIA OpenCL under mpirun works with '$v'"
            return 0
        fi
    done
    note "oclmpi: NVIDIA OpenCL fails under mpirun with every launch tried"
}

step_opencl() {
    for n in 1 2; do
        for s in "" --serialize; do
            STENCIL_OPENCL_PLATFORM=NVIDIA timeout 200 "${MPI[@]}" -n $n $B/bench/stencil_bench \
                --label nvocl-2d4$s -b opencl -S 2d4 -n 20480x20480 -i 1000 $s --repeat 2 |
                tee -a "$OUT/opencl.jsonl"
        done
    done
    note "opencl: $(wc -l <"$OUT/opencl.jsonl") runs"
}

# A 3-rank job: CUDA on GPU 0, NVIDIA OpenCL on GPU 1, PoCL on the CPU.
# MIXED_PIN=1: each rank on its own physical cores (one logical CPU per core, from sysfs), the
# PoCL rank on POCL_MAX_PTHREAD_COUNT + 1 of them, so its worker threads never share a core with
# the GPU ranks' spinning host threads or with each other. PIN0/PIN1/PIN2 are taskset prefixes.
pin_cpus() {
    PIN0=() PIN1=() PIN2=()
    [ "${MIXED_PIN:-0}" = 1 ] || return 0
    local cores=() c id first
    for c in /sys/devices/system/cpu/cpu[0-9]*; do
        id=${c##*cpu}
        first=$(sed 's/[-,].*//' "$c/topology/thread_siblings_list")
        [ "$first" = "$id" ] && taskset -c "$id" true 2>/dev/null && cores+=("$id")
    done
    local n=$((POCL_MAX_PTHREAD_COUNT + 1)) sorted
    sorted=($(printf '%s\n' "${cores[@]}" | sort -n))
    if [ ${#sorted[@]} -lt $((n + 2)) ]; then
        echo "pinning: off, ${#sorted[@]} physical cores < $((n + 2))" | tee -a "$OUT/pin.txt"
        return 0
    fi
    PIN0=(taskset -c "${sorted[0]}") PIN1=(taskset -c "${sorted[1]}")
    PIN2=(taskset -c "$(IFS=,; echo "${sorted[*]:2:$n}")")
    echo "pinning: ${PIN0[*]} / ${PIN1[*]} / ${PIN2[*]} (of ${#sorted[@]} physical cores)" | tee -a "$OUT/pin.txt"
}

mixed() { # label weight0 weight1 weight2 [iterations]
    local app=($B/bench/stencil_bench --label "$1" -S 2d4 -n ${MIXED_N:-8192x8192} -i ${5:-${MIXED_I:-200}}
        --repeat ${MIXED_RUNS:-1})
    timeout 300 "${MPI[@]}" -n 1 env STENCIL_VERBOSE=1 STENCIL_BACKEND=cuda STENCIL_DEVICE=0 STENCIL_WEIGHT=$2 \
        "${PIN0[@]}" "${app[@]}" : \
        -n 1 env OCL_ICD_FILENAMES="${OCL_ICD_FILENAMES:-}" STENCIL_BACKEND=opencl STENCIL_OPENCL_PLATFORM=NVIDIA STENCIL_DEVICE=1 \
        STENCIL_WEIGHT=$3 "${PIN1[@]}" "${app[@]}" : \
        -n 1 env STENCIL_BACKEND=opencl STENCIL_OPENCL_PLATFORM=Portable STENCIL_WEIGHT=$4 \
        "${PIN2[@]}" "${app[@]}" | tee -a "$OUT/mixed.jsonl"
}

# The rate (gcells_best) of line LINE (from 0) of the JSON lines in FILE.
rate() { python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readlines()[int(sys.argv[2])])["gcells_best"])' "$1" "$2"; }

# The three devices alone, one JSON line each into FILE: CUDA on GPU 0, NVIDIA OpenCL on GPU 1
# (GRID, ITERS), PoCL (POCL_GRID, POCL_ITERS); pinned as pin_cpus set PIN0..2.
solo_runs() { # file grid iters pocl-grid pocl-iters
    local f=$1 app=(-S 2d4 -n $2 -i $3 --repeat 2)
    "${MPI[@]}" -n 1 "${PIN0[@]}" $B/bench/stencil_bench --label solo-cuda -b cuda "${app[@]}" | tee -a "$f"
    STENCIL_OPENCL_PLATFORM=NVIDIA STENCIL_DEVICE=1 "${MPI[@]}" -n 1 "${PIN1[@]}" $B/bench/stencil_bench \
        --label solo-nvocl -b opencl "${app[@]}" | tee -a "$f"
    STENCIL_OPENCL_PLATFORM=Portable "${MPI[@]}" -n 1 "${PIN2[@]}" $B/bench/stencil_bench --label solo-pocl \
        -b opencl -S 2d4 -n "$4" -i "$5" | tee -a "$f"
}

step_mixed() {
    local f=$OUT/mixed.jsonl w0 w1 w2
    rm -f "$f"
    pin_cpus
    solo_runs "$f" ${MIXED_N:-8192x8192} ${MIXED_I:-200} ${MIXED_POCL_N:-${MIXED_N:-8192x8192}} \
        ${MIXED_POCL_I:-5}
    w0=$(rate "$f" 0) w1=$(rate "$f" 1) w2=$(rate "$f" 2)
    # Equal shares give the CPU rank a third of the grid: fewer iterations keep that run short.
    mixed equal 1 1 1 "${MIXED_EQUAL_I:-}"
    # Same-command runs vary (balanced 639-788 Gcells/s in one session): MIXED_REPEAT of each.
    for _ in $(seq "${MIXED_REPEAT:-1}"); do
        mixed balanced "$w0" "$w1" "$w2"
        mixed auto auto auto auto
    done
    note "mixed: $(wc -l <"$OUT/mixed.jsonl") runs (solo $w0 / $w1 / $w2 Gcells/s)"
}

# Does a balanced 3-rank job stall only while cold? MIXED_RUNS=3 skeleton runs per job, the PoCL
# rank weighted by each of MIXWARM_POCL (Gcells/s; the GPU ranks by 465 and 460), two jobs each;
# gcells_runs lists the runs in order.
step_mixwarm() {
    rm -f "$OUT/mixed.jsonl"
    local w
    for w in ${MIXWARM_POCL:-2.75 1.2}; do
        MIXED_RUNS=3 mixed "balanced-pocl$w" 465 460 "$w"
        MIXED_RUNS=3 mixed "balanced-pocl$w" 465 460 "$w"
    done
    note "mixwarm: $(wc -l <"$OUT/mixed.jsonl") jobs"
}

# Where the mixed job loses against the sum of the solo rates (issue 6). Ranks are given as
# BACKEND:PLATFORM:DEVICE:WEIGHT (PLATFORM NVIDIA or Portable for OpenCL, - otherwise).
job() { # label trace(0/1) rank-spec...
    local label=$1 tr=$2 cmd=() sep=() spec b p d w
    shift 2
    local app=($B/bench/stencil_bench --label "$label" -S 2d4 -n ${MIXED_N:-32768x32768}
        -i ${MIXED_I:-300})
    [ "$tr" = 1 ] && app+=(--trace "$OUT/tr-$label")
    for spec in "$@"; do
        IFS=: read -r b p d w <<<"$spec"
        cmd+=("${sep[@]}" -n 1 env OCL_ICD_FILENAMES="${OCL_ICD_FILENAMES:-}" STENCIL_BACKEND=$b
            STENCIL_OPENCL_PLATFORM=$p STENCIL_DEVICE=$d STENCIL_WEIGHT=$w "${app[@]}")
        sep=(:)
    done
    timeout 300 "${MPI[@]}" "${cmd[@]}" | tee -a "$OUT/mixdiag.jsonl"
    [ "$tr" = 1 ] && bash bench/trace_summary.sh -s 10 "$OUT/tr-$label".*.jsonl |
        sed "s/^/$label /" >>"$OUT/mixdiag-trace.txt"
}

step_mixdiag() {
    local f=$OUT/mixdiag.jsonl w0 w1 w2
    rm -f "$f" "$OUT/mixdiag-trace.txt"
    pin_cpus
    solo_runs "$f" ${MIXED_N:-32768x32768} ${MIXED_I:-300} ${MIXED_POCL_N:-16384x16384} 5
    w0=$(rate "$f" 0) w1=$(rate "$f" 1) w2=$(rate "$f" 2)
    for rep in 1 2; do
        job cuda-nvocl 0 cuda:-:0:$w0 opencl:NVIDIA:1:$w1
        job cuda-cuda 0 cuda:-:0:1 cuda:-:1:1
        job nvocl-nvocl 0 opencl:NVIDIA:0:1 opencl:NVIDIA:1:1
        job mixed-bal 0 cuda:-:0:$w0 opencl:NVIDIA:1:$w1 opencl:Portable:0:$w2
    done
    job cuda-nvocl-tr 1 cuda:-:0:$w0 opencl:NVIDIA:1:$w1
    job mixed-bal-tr 1 cuda:-:0:$w0 opencl:NVIDIA:1:$w1 opencl:Portable:0:$w2
    (cd "$OUT" && tar czf mixdiag-traces.tgz tr-*.jsonl && rm -f tr-*.jsonl)
    cat "$OUT/mixdiag-trace.txt"
    note "mixdiag: $(wc -l <"$OUT/mixdiag.jsonl") runs (solo $w0 / $w1 / $w2 Gcells/s)"
}

step_kgt() {
    local bk=$B/bench/stencil_bench_kgt
    for k in "" "-k 2d4"; do
        "${MPI[@]}" -n 1 $bk --label kgt -b cuda -S 2d4 -n 32768x32768 -i 500 $k | tee -a "$OUT/kgt.jsonl"
    done
    for s in 2d9 2d9nc 2d5asym 2d-diag; do
        for k in "" "-k $s"; do
            "${MPI[@]}" -n 1 $bk --label kgt -b cuda -S $s -n 16384x16384 -i 500 $k |
                tee -a "$OUT/kgt.jsonl"
        done
    done
    for s in 3d7 3d27; do
        for k in "" "-k $s"; do
            "${MPI[@]}" -n 1 $bk --label kgt -b cuda -S $s -n 512x512x512 -i 300 $k |
                tee -a "$OUT/kgt.jsonl"
        done
    done
    note "kgt: $(wc -l <"$OUT/kgt.jsonl") runs"
}

# Issue 5 feasibility study: two steps fused into one kernel (bench/gpu/fused.cu), one GPU,
# after a memcheck of every tile shape on a small odd-sized grid.
step_fused() {
    local bf=$B/bench/gpu/bench_fused
    for s in 2d4 2d9nc; do
        runlog fused-memcheck-$s 300 compute-sanitizer --tool memcheck --error-exitcode 9 $bf $s 1001 4
    done
    for s in 2d4 2d9nc; do
        for n in 16384 32768; do $bf $s $n 200 | tee -a "$OUT/fused.jsonl"; done
    done
    note "fused: $(wc -l <"$OUT/fused.jsonl") lines"
}

# The peer path with more ranks than GPUs (ranks share a device): every link on the peer path.
step_peer() {
    for n in ${PEER_RANKS:-3 4}; do
        runlog skel-cuda-peer-n$n 300 env STENCIL_BACKEND=cuda STENCIL_PEER=1 "${MPI[@]}" -n $n \
            $B/tests/mpi/test_skeleton
    done
}

# kgt --walk: the stencil set generated again with other walks and linked into the benchmark
# by hand (the build's own copy uses the default walk).
kgt_variant() { # walk dir
    # shellcheck disable=SC2086
    ${KGT_BIN:-$B/kgt/kgt} -t host,cuda -w "$1" ${KGT_EXTRA:-} -p kgt_set -o "$2" tests/kgt/stencil_set.stencil &&
        nvcc -O3 -fmad=false -arch=sm_90 -c "$2/kgt_set.cu" -o "$2/kcu.o" &&
        mpicc -O2 -std=c99 -DKGT_WITH_CUDA -Iinclude -c "$2/kgt_set.c" -o "$2/kc.o" &&
        mpicc -O2 -std=c99 -DBENCH_KGT -Iinclude -Itests/common -I"$2" bench/stencil_bench.c \
            "$2/kcu.o" "$2/kc.o" $B/tests/common/libstencil_testcommon.a -L$B -lstencil \
            -Wl,-rpath,"$PWD/$B" -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib -lcudart -lstdc++ -lm -o "$2/bench"
}

step_kgtwalk() {
    local w d
    for w in ${KGT_WALKS:-4 8 32}; do
        d=$(mktemp -d)
        kgt_variant "$w" "$d" >"$OUT/kgtwalk-build-$w.log" 2>&1 || { note "kgtwalk $w: build FAILED"; tail -5 "$OUT/kgtwalk-build-$w.log"; continue; }
        for s in 2d4 2d9nc 3d7 3d27; do
            case $s in 2d4) n=32768x32768 i=500 ;; 2d*) n=16384x16384 i=500 ;; *) n=512x512x512 i=300 ;; esac
            "${MPI[@]}" -n 1 "$d/bench" --label "${KGT_LABEL:-kgt}-walk$w" -b cuda -S $s -n $n -i $i -k $s |
                tee -a "$OUT/kgt.jsonl"
        done
    done
    note "kgtwalk: $(wc -l <"$OUT/kgt.jsonl") runs in kgt.jsonl"
}

# Generic and specialized kernels, each with one and with two steps per exchange (bench, stencil,
# n, i); labels fuse<steps>, kernel in the JSON line.
fuse_runs() {
    local bk=$1 st=$2 n=$3 i=$4 rep=(--repeat "${FUSE_REPEAT:-1}") k f
    for k in "" "-k $st"; do
        for f in 1 2; do
            # shellcheck disable=SC2086
            "${MPI[@]}" -n 1 -x STENCIL_FUSE=$f "$bk" --label "fuse$f" -b cuda -S "$st" -n "$n" \
                -i "$i" $k "${rep[@]}" | tee -a "$OUT/kgtfuse.jsonl"
        done
    done
}

step_kgtfuse() {
    local bk=$B/bench/stencil_bench_kgt s d
    runlog fused-memcheck 600 compute-sanitizer --tool memcheck --error-exitcode 9 \
        "${MPI[@]}" -n 2 $B/tests/kgt/test_kgt_skel_cuda
    runlog fused-memcheck-direct 300 compute-sanitizer --tool memcheck --error-exitcode 9 \
        $B/tests/kgt/test_kgt_fused
    for s in 2d4 2d5asym; do # the generic kernel's two-step path, whole tiles and edges
        runlog fused-memcheck-generic-$s 300 env STENCIL_FUSE=2 compute-sanitizer --tool memcheck \
            --error-exitcode 9 $B/bench/stencil_bench_kgt -b cuda -S $s -n 1001x1001 -i 5
    done
    fuse_runs $bk 2d4 32768x32768 500
    # 2d9nc and 2d5asym (radius-2 stars) have fused kernels by default: the streaming kernel
    for s in 2d9 2d-diag 2d9nc 2d5asym; do fuse_runs $bk $s 16384x16384 500; done
    local r=${FUSE_RANKS:-1}
    if [ "$r" -gt 1 ]; then
        for f in 1 2; do
            "${MPI[@]}" -n "$r" -x STENCIL_FUSE=$f $bk --label "fuse$f-n$r" -b cuda -S 2d4 \
                -n 32768x32768 -i 500 -k 2d4 | tee -a "$OUT/kgtfuse.jsonl"
        done
    fi
    note "kgtfuse: $(wc -l <"$OUT/kgtfuse.jsonl") runs"
}

# The streaming kernels' checks and figures on one GPU: test_kgt_fused (also under memcheck),
# test_kgt_skel_cuda on 1 and 2 ranks, then fuse_runs of KGTSTREAM_SET (FUSE_REPEAT repeats).
step_kgtstream() {
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

step_fusegpus() {
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

# Per-iteration phase traces (options.trace) of the strong 2D case on NGPU ranks, overlapped and
# serialized, for the peer path and host staging; the same runs untraced for the rate.
step_trace() {
    local n=${TRACE_RANKS:-2} app=(-b cuda -S 2d4 -n 20480x20480 -i 1000) v
    for v in "--peer 1" "--peer 1 --serialize" "--peer 0" "--peer 0 --serialize"; do
        local tag=${v// /}
        # shellcheck disable=SC2086
        "${MPI[@]}" -n $n $B/bench/stencil_bench --label "untraced$tag" "${app[@]}" $v --repeat 2 |
            tee -a "$OUT/trace.jsonl"
        # shellcheck disable=SC2086
        "${MPI[@]}" -n $n $B/bench/stencil_bench --label "traced$tag" "${app[@]}" $v \
            --trace "$OUT/tr$tag" | tee -a "$OUT/trace.jsonl"
        echo "-- $v" >>"$OUT/trace-summary.txt"
        bash bench/trace_summary.sh -s 10 "$OUT/tr$tag".*.jsonl >>"$OUT/trace-summary.txt"
    done
    (cd "$OUT" && tar czf traces.tgz tr--*.jsonl && rm -f tr--*.jsonl)
    note "trace: $(wc -l <"$OUT/trace.jsonl") runs"
    cat "$OUT/trace-summary.txt"
}

# PoCL alone on the CPU with each walk of the generic OpenCL kernel.
step_poclwalk() {
    local w
    for w in 1 4 8; do
        STENCIL_OPENCL_WALK=$w STENCIL_OPENCL_PLATFORM=Portable "${MPI[@]}" -n 1 \
            $B/bench/stencil_bench --label "pocl-walk$w" -b opencl -S 2d4 -n 20480x20480 -i 5 \
            --repeat 2 | tee -a "$OUT/poclwalk.jsonl"
    done
    note "poclwalk: $(wc -l <"$OUT/poclwalk.jsonl") runs"
}

# Nsight Compute on the kgt kernels (KGT_NCU: stencils), one launch each after warm-up.
step_ncukgt() {
    local s n
    for s in ${KGT_NCU:-2d4 2d9nc}; do
        case $s in 2d4) n=32768x32768 ;; 2d*) n=16384x16384 ;; *) n=512x512x512 ;; esac
        timeout 200 ncu --clock-control none --launch-skip 3 --launch-count 1 -k "regex:${s/-/_}_[kv]" \
            --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis \
            --section WarpStateStats --section LaunchStats \
            $B/bench/stencil_bench_kgt -b cuda -S $s -n $n -i 6 -k $s >"$OUT/ncu-$s.log" 2>&1
        note "ncu $s: rc $? $(grep -E 'Duration|DRAM Throughput|Registers Per|Achieved Occupancy' "$OUT/ncu-$s.log" | tr -s ' ' | tr '\n' ';')"
    done
}

for s in "$@"; do "step_$s"; done
tar czf "$OUT/logs.tgz" -C "$OUT" --exclude logs.tgz . 2>/dev/null
echo "================ summary"
printf '%s\n' "${summary[@]}"
