#!/usr/bin/env bash
# Draws PNG plots from the JSON lines of bench/scaling.sh (gnuplot; python3 for the JSON).
#   bench/plot.sh bench/data/scaling-h200x2.jsonl bench/plots
set -euo pipefail
in=$1 out=${2:-bench/plots}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One data file per label: ranks, Gcells/s, efficiency against the 1-rank run of the same label.
python3 - "$in" "$tmp" <<'PY'
import json, sys, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows[r["label"]].append((r["ranks"], r["gcells_best"]))
base = {k: dict(v).get(1) for k, v in rows.items()}
for label, v in rows.items():
    b = base[label] or base.get(label.replace("-serialized", "").replace("-staged", ""))
    ref = base.get("strong-2d4") if label.startswith("strong-2d4") else b
    with open(f"{sys.argv[2]}/{label}.dat", "w") as f:
        for n, g in sorted(v):
            eff = g / (n * ref) if ref else 0
            f.write(f"{n} {g:.2f} {eff:.4f}\n")
PY
plot() { # file title ylabel column labels...
    local file=$1 title=$2 ylabel=$3 col=$4
    shift 4
    local cmd="" sep=""
    for l in "$@"; do
        [ -f "$tmp/$l.dat" ] || continue
        cmd+="$sep'$tmp/$l.dat' using 1:$col with linespoints lw 2 pt 7 title '$l'"
        sep=", "
    done
    gnuplot <<GP
set terminal pngcairo size 800,500 font ",11"
set output "$out/$file"
set title "$title"
set xlabel "GPUs (H200, one node)"
set ylabel "$ylabel"
set xtics 1
set grid
set key left bottom
plot $cmd
GP
}
plot scaling-2d4.png "2D 4-point fp32, 20480^2, 1000 iterations" "Gcells/s" 2 \
    strong-2d4 strong-2d4-serialized strong-2d4-staged weak-2d4
plot scaling-3d7.png "3D 7-point fp32, 1024^3, 200 iterations" "Gcells/s" 2 \
    strong-3d7-blocks strong-3d7-bands
plot efficiency.png "Scaling efficiency (Gcells/s over GPUs x one-GPU rate)" "efficiency" 3 \
    strong-2d4 weak-2d4 strong-3d7-blocks strong-3d7-bands strong-2d4-serialized
ls "$out"
