#!/usr/bin/env bash
# HDF5 written by 4 ranks, read back by h5py: h5_check.sh MPIEXEC H5_WRITE CHECK.py DIR [MPIEXEC ARGS...]
set -eu
mpiexec=$1 writer=$2 check=$3 dir=$4
shift 4
py=${PYTHON:-/usr/bin/python3} # Debian's, where python3-h5py is
mkdir -p "$dir"
"$mpiexec" "$@" -n 4 "$writer" 3d7 d 5 "$dir/a.h5" "$dir/a.raw" 9 10 11
"$py" "$check" "$dir/a.h5" "$dir/a.raw" 5 9 10 11
"$mpiexec" "$@" -n 4 "$writer" 2d9 f 6 "$dir/b.h5" "$dir/b.raw" 23 19
"$py" "$check" "$dir/b.h5" "$dir/b.raw" 6 23 19
