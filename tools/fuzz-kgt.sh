#!/usr/bin/env bash
# Builds the libFuzzer target for kgt's parser with clang (ASan + UBSan) and runs it over the
# seed corpus (every description file in the tree). Crashes are written to build-fuzz/.
#   tools/fuzz-kgt.sh [RUNS]      default 1000000 runs
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
out=build-fuzz
mkdir -p "$out/corpus"
clang -g -O1 -std=c99 -D_POSIX_C_SOURCE=200809L -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -Ikgt tests/fuzz/fuzz_kgt_parse.c kgt/parse.c kgt/parse_lex.c \
    kgt/parse_points.c kgt/parse_prog.c kgt/prog_lex.c kgt/prog_expr.c kgt/prog_parse.c \
    kgt/prog_analyse.c -lm \
    -o "$out/fuzz_kgt_parse"
cp tests/kgt/*.stencil tests/kgt/bad/*.stencil examples/kernels/*.stencil tests/fuzz/regress/* \
    tests/kgt/prog/*.stencil "$out/corpus/" 2>/dev/null || true
"$out/fuzz_kgt_parse" -runs="$runs" -max_len=4096 -artifact_prefix="$out/" "$out/corpus" \
    tests/fuzz/regress 2>&1 | tail -n 15
