#!/usr/bin/env bash
# Fresh Debian 12 to a running demo: install what is missing, build, run heat2d on 4 MPI ranks,
# and write a picture of the heat field to build/heat2d.png.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh
[ -d /usr/local/cuda/bin ] && export PATH=/usr/local/cuda/bin:$PATH
[ -f build/build.ninja ] || meson setup build
ninja -C build
mpiexec -n 4 build/examples/heat2d -n 1024 -i 200
# A smaller, longer run, so that the heat visibly spreads in the picture.
mpiexec -n 4 build/examples/heat2d -n 128 -i 1000 -o build/heat2d.png
echo "demo: wrote build/heat2d.png, the heat field after 1000 iterations (colour bar 0 to 1)"
