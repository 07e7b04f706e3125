#!/usr/bin/env bash
# Fresh Debian 12 to a running demo: install what is missing, build, run heat2d on 4 MPI ranks.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh
[ -d /usr/local/cuda/bin ] && export PATH=/usr/local/cuda/bin:$PATH
[ -f build/build.ninja ] || meson setup build
ninja -C build
mpiexec -n 4 build/examples/heat2d -n 1024 -i 200
