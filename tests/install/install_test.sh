#!/bin/sh
# meson install into a temporary destdir, then build a program OUTSIDE the tree against the
# installed library through pkg-config alone, and run it under mpiexec -n 2: found through
# LD_LIBRARY_PATH, then through an rpath (README, "A first program").
# Arguments: BUILD_DIR PROG_C MPIEXEC [mpiexec options...]
set -eu
build=$1 src=$2 mpiexec=$3
shift 3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stencil-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
meson install -C "$build" --destdir "$root" --no-rebuild --quiet
pc=$(find "$root" -name stencil.pc | head -n 1)
[ -n "$pc" ] || { echo "install-test: no stencil.pc was installed"; exit 1; }
# The .pc file names the final prefix; point it into the destdir for this one build.
PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
prefix=$(pkg-config --variable=prefix stencil)
pc_cmd="pkg-config --define-variable=prefix=$root$prefix"
flags=$($pc_cmd --cflags --libs stencil)
libdir=$($pc_cmd --variable=libdir stencil)
case "$flags" in *"$root"*) ;; *) echo "install-test: flags miss the destdir: $flags"; exit 1;; esac
cp "$src" "$tmp/prog.c"
cd "$tmp"
echo "cc prog.c $flags"
# shellcheck disable=SC2086 # the flags are words
cc -std=c99 -Wall -Wextra -Werror prog.c -o prog $flags
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$mpiexec" "$@" -n 2 ./prog >out.txt
cat out.txt
grep -q '^install-test: OK' out.txt
# README's other way under a prefix the dynamic linker does not search: an rpath, no variable.
echo "cc prog.c $flags -Wl,-rpath,$libdir"
# shellcheck disable=SC2086 # the flags are words
cc -std=c99 -Wall -Wextra -Werror prog.c -o prog-rpath $flags -Wl,-rpath,"$libdir"
env -u LD_LIBRARY_PATH "$mpiexec" "$@" -n 2 ./prog-rpath >out-rpath.txt
grep -q '^install-test: OK' out-rpath.txt
