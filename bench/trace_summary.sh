#!/usr/bin/env bash
# Sums up trace files of stencil_options.trace / STENCIL_TRACE / stencil_bench --trace PATH:
#   bench/trace_summary.sh [-s SKIP] PATH.*.jsonl
# One line per file (rank): iterations with an exchange, the mean microseconds per iteration of
# each phase, and the fraction of the exchange [border end, unpack end] that the inner update
# [inner start, inner end] covered (stencil_stats.exchange_hidden's definition). -s SKIP leaves
# out the first SKIP iterations (warm-up). awk only, so it runs wherever the benchmark ran.
set -euo pipefail
skip=0
if [ "${1:-}" = "-s" ]; then
    skip=$2
    shift 2
fi
[ $# -gt 0 ] || { echo "usage: $0 [-s SKIP] TRACE.RANK.jsonl..." >&2; exit 2; }
printf '%-28s %6s %9s %9s %9s %9s %9s %9s %7s\n' file iters border pack mpi unpack inner \
    exchange hidden
for f in "$@"; do
    awk -v skip="$skip" -v name="$(basename "$f")" '
    {
        gsub(/[{}"]/, "")
        delete v
        n = split($0, kv, ",")
        for (i = 1; i <= n; i++) { split(kv[i], p, ":"); v[p[1]] = p[2] + 0 }
        if (v["it"] < skip || !("unpack_end" in v)) next
        k++
        border += v["border_end"] - v["border_start"]
        pack += v["pack_end"] - v["border_end"]
        mpi += v["wait_end"] - v["send"]
        unpack += v["unpack_end"] - v["unpack_start"]
        inner += v["inner_end"] - v["inner_start"]
        lo = v["border_end"] > v["inner_start"] ? v["border_end"] : v["inner_start"]
        hi = v["unpack_end"] < v["inner_end"] ? v["unpack_end"] : v["inner_end"]
        len += v["unpack_end"] - v["border_end"]
        if (hi > lo) over += hi - lo
    }
    END {
        if (!k) { printf "%-28s %6d (no iteration with an exchange)\n", name, 0; exit }
        printf "%-28s %6d %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %7.4f\n", name, k, border / k,
               pack / k, mpi / k, unpack / k, inner / k, len / k, (len > 0 ? over / len : 0)
    }' "$f"
done
