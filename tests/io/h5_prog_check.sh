#!/usr/bin/env bash
# A program's HDF5 files written by 2 ranks, read back by h5py and compared with numpy:
# h5_prog_check.sh MPIEXEC H5_PROG_WRITE CHECK.py DIR [MPIEXEC ARGS...]
set -eu
mpiexec=$1 writer=$2 check=$3 dir=$4
shift 4
py=${PYTHON:-/usr/bin/python3} # Debian's, where python3-h5py is
"$py" -c 'import h5py, numpy' 2>/dev/null || { echo "no h5py or numpy: skipped"; exit 77; }
# d twice: the second output finds its first field in out.h5 and makes the file anew.
for t in d f d; do
    [ "$t" = f ] && rm -rf "$dir/d" "$dir/f"
    mkdir -p "$dir/$t"
    "$mpiexec" "$@" -n 2 "$writer" $t 21 17 4 9 "$dir/$t"
    "$py" "$check" "$dir/$t" $t 21 17 4 9
done
