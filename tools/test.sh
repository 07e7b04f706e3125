#!/usr/bin/env bash
# The whole test suite, as CI runs it: unit, MPI (-n 1..4), OpenCL on PoCL, kgt, the CUDA and HIP
# builds (compile only: no GPU here), the public-header and format checks, a sanitizer build and
# a valgrind subset. Prints "N passed, N failed" last.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh || exit 1
[ -d /usr/local/cuda/bin ] && export PATH=/usr/local/cuda/bin:$PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
passed=0 failed=0
step() { # name, command...
    local name=$1; shift
    if "$@"; then passed=$((passed + 1)); echo "check: $name: ok"
    else failed=$((failed + 1)); echo "check: $name: FAILED"; fi
}
count_meson() { # add the build dir's test results to the totals
    local log=$1/meson-logs/testlog.json
    [ -f "$log" ] || return 0
    read -r p f < <(python3 -c 'import json,sys
p=f=0
for l in open(sys.argv[1]):
    r=json.loads(l)["result"]
    if r in ("OK","EXPECTEDFAIL"): p+=1
    elif r!="SKIP": f+=1
print(p,f)' "$log")
    passed=$((passed + p)); failed=$((failed + f))
}
header_check() {
    local inc; inc=$(pkg-config --cflags mpich)
    cc -std=c99 -pedantic -Wall -Wextra -Werror $inc -fsyntax-only -x c include/stencil.h &&
    c++ -std=c++11 -pedantic -Wall -Wextra -Werror $inc -fsyntax-only -x c++ include/stencil.h
}
# A backend whose compiler is installed must be built: meson only warns when it cannot compile
# (the HIP backend once stayed out of CI that way, unnoticed).
backends_built() {
    local ok=0
    if command -v hipcc >/dev/null && [ ! -e build-ci/backends/hip/gpu_backend_hip.o ]; then
        echo "hipcc is installed but the HIP backend was not built:"
        grep -h "HIP backend disabled" build-ci/meson-logs/meson-log.txt | tail -1
        ok=1
    fi
    if command -v nvcc >/dev/null && [ ! -e build-ci/backends/cuda/libsb_cuda.a ]; then
        echo "nvcc is installed but the CUDA backend was not built"
        ok=1
    fi
    return $ok
}
format_check() {
    git ls-files '*.c' '*.h' '*.cu' | grep -v '^tests/kgt/golden/' | xargs clang-format --dry-run --Werror
}
rm -rf build-ci build-asan
meson setup build-ci >/dev/null && ninja -C build-ci || { echo "0 passed, 1 failed"; exit 1; }
# Sanitizers: host backend only (PoCL and ASan do not mix). Built in the background at the lowest
# priority while the suite runs, on the processor time its tests leave (waits, the multinode
# fault case's time limit); tested after it.
asan_build() {
    nice -n 19 meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debug -Dopencl=disabled -Dcuda=disabled -Dhip=disabled >/dev/null &&
        nice -n 19 ninja -C build-asan >/dev/null
}
asan_build &
asan_pid=$!
meson test -C build-ci --no-suite gpu --print-errorlogs --num-processes 2
count_meson build-ci
[ -f build-ci/meson-logs/testlog.json ] && python3 -c 'import json,sys # skipped tests are not passed: name them, with the reason they gave
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r["result"]=="SKIP":
        why=[x for x in r.get("stdout","").splitlines() if x.startswith("SKIP")]
        print("skipped:", r["name"], "-", why[-1] if why else "no reason given")' \
    build-ci/meson-logs/testlog.json
step "GPU backends built where their compilers are" backends_built
step "public header -std=c99 -pedantic and C++" header_check
step "clang-format" format_check
# The sanitizer build's tests: the unit suite and MPI runs on 1 to 4 ranks (the 3- and 4-rank
# runs of the full suite are left to the plain build, for time).
if wait $asan_pid; then
    ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
        LSAN_OPTIONS=suppressions=$PWD/tools/lsan.supp:print_suppressions=0 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        meson test -C build-asan --print-errorlogs --num-processes 2 test_layout test_pattern test_ops \
        skeleton-n1 skeleton-n2 errors-n1 errors-n3 weights-n2 io-restart-n4 run-n1 run-n2 ooc-n2
else
    failed=$((failed + 1)); echo "check: sanitizer build: FAILED"
fi
count_meson build-asan
step "valgrind: heat2d on 2 ranks" mpiexec -n 2 valgrind -q --error-exitcode=9 \
    --suppressions=tools/valgrind.supp build-ci/examples/heat2d -n 64 -i 5
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
