#!/bin/sh
# The demo's picture: heat2d on 2 ranks writes its final field with -o; png_check verifies the
# signature, the size (io/README.md: a 64 x 64 grid is enlarged 4 times, 442 x 276 in all) and
# that the picture is not flat. Arguments: MPIEXEC HEAT2D PNG_CHECK OUT [mpiexec options...]
set -eu
mpiexec=$1 heat2d=$2 check=$3 out=$4
shift 4
rm -f "$out"
"$mpiexec" "$@" -n 2 "$heat2d" -n 64 -i 300 -o "$out"
"$check" "$out" 442 276 64
