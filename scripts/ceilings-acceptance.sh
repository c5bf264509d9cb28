#!/usr/bin/env bash
# The ceilings acceptance check: N consecutive `make clean && make run` (each recalibrates the
# host). With BUSY=1 another process keeps one core busy: calibrate must then refuse and
# make run must stop without pricing (the run's line says so), so the verdict counts below
# come from the quiet default. After each run it counts anomalies and
# formula errors over every row, records the verdict of each memory-bound cpu-large row, and
# prices a copy of the catalog whose AddFwd bytes are doubled against that run's profile:
# that copy must be reported as a formula error (exit 1) every time. Each run's line shows
# the margins of the same-time physics check (docs/report.md): the doubled AddFwd's implied
# rate over its same-time reference (a formula error above the profile's line,
# report.SameTimeLine, which the report prints), and the highest such ratio among the run's
# correct rows (which must stay below it).
#
#   N=10 scripts/ceilings-acceptance.sh      (default N=3; each run takes minutes)
#   BUSY=1 N=1 scripts/ceilings-acceptance.sh   (one core kept busy: the calibration refuses)
#
# Writes only under a temporary directory, which it prints and keeps (delete it by hand).
set -u
N=${N:-3}
top=$(git rev-parse --show-toplevel) || exit 2
cd "$top" || exit 2
work=$(mktemp -d /tmp/ceilings.XXXXXX)
echo "work directory: $work"

# The doubled catalog: the same tree with AddFwd priced by a formula that counts its bytes twice.
dbl=$work/doubled
mkdir -p "$dbl" && git archive HEAD | tar -x -C "$dbl"
cat >> "$dbl/perf/formulas/elementwise.go" <<'GO'

// BinaryDoubled is Binary with its bytes counted twice: the planted formula error of the
// ceilings acceptance check (scripts/ceilings-acceptance.sh), never part of the catalog.
func BinaryDoubled(op BinaryOp) (flops, bytes int64, err error) {
	flops, bytes, err = Binary(op)
	return flops, 2 * bytes, err
}
GO
awk 'BEGIN{inadd=0} /^AddFwd:/{inadd=1} /^[A-Za-z]/&&!/^AddFwd:/{inadd=0}
     { if (inadd && $0 ~ /func: "formulas.Binary"/) { sub(/formulas.Binary/, "formulas.BinaryDoubled"); inadd=0 } print }' \
  "$top/manifest/elementwise.yaml" > "$dbl/manifest/elementwise.yaml"
(cd "$dbl" && go generate ./ops && go build -o "$work/doubled-bin/" ./cmd/ropbench) || { echo "cannot build the doubled catalog"; exit 2; }

if [ "${BUSY:-0}" = 1 ]; then
	( while :; do :; done ) & busy=$!
	trap 'kill $busy 2>/dev/null' EXIT
fi

for i in $(seq 1 "$N"); do
	out=$work/run$i
	start=$(date +%s)
	make clean OUT="$out" >/dev/null
	make run OUT="$out" > "$work/run$i.log" 2>&1
	rc=$?
	"$out/bin/ropgen" report -json -profile "$out/host.yaml" "$out/quick.txt" "$out/chart.txt" > "$out/all.json" 2>/dev/null
	anomalies=$(grep -c '"verdict":"anomaly"' "$out/all.json")
	errors=$(grep -c '"verdict":"formula error"' "$out/all.json")
	# op, efficiency, machine factor (null: no same-time reference), judged efficiency and its
	# interval (null: none), verdict
	sed -n 's/.*"op":"\([A-Za-z0-9]*\)","workload":"cpu-large",.*"efficiency":\([0-9.e+-]*\),.*"machine":\([0-9.e+-]*\|null\),"judged_efficiency":\([0-9.e+-]*\),"judged_low":\([0-9.e+-]*\|null\),"judged_high":\([0-9.e+-]*\|null\),"bound":"memory-bound","verdict":"\([^"]*\)".*/\1 \2 \3 \4 \5 \6 \7/p' \
		"$out/all.json" | sort > "$out/judged.txt"
	awk '{v=$7; for (i=8; i<=NF; i++) v=v" "$i; print $1, v}' "$out/judged.txt" > "$out/verdicts.txt"
	(cd "$dbl" && "$work/doubled-bin/ropbench" run -op '^AddFwd$' -workload '^cpu-large$' -samples 15 -o "$out/add2x.txt" 2>/dev/null)
	"$out/bin/ropgen" report -profile "$out/host.yaml" "$out/add2x.txt" > "$out/add2x-report.txt" 2>&1
	caught=$?
	"$out/bin/ropgen" report -json -profile "$out/host.yaml" "$out/add2x.txt" > "$out/add2x.json" 2>/dev/null
	# ref_ratio: the row's implied rate (median sample) over its same-time reference.
	ratios() { sed -n 's/.*"op":"\([A-Za-z0-9]*\)","workload":"\([^"]*\)".*"ref_ratio":\([0-9.e+-]*\),.*/\3 \1\/\2/p' "$1" | sort -g; }
	doubled=$(ratios "$out/add2x.json" | tail -1)
	highest=$(ratios "$out/all.json" | tail -1)
	echo "run $i: make run exit $rc, $(( $(date +%s) - start )) s, $anomalies anomalies, $errors formula errors; doubled AddFwd: report exit $caught ($(grep -c 'formula error' "$out/add2x-report.txt") formula-error lines), implied/reference ${doubled%% *}; correct rows' highest ${highest:-none}"
done

echo "verdicts of the memory-bound cpu-large rows (op: verdict counts over $N runs):"
cat "$work"/run*/verdicts.txt | sort | uniq -c | awk '{v=$3; for (i=4; i<=NF; i++) v=v" "$i; print $2": "$1" x "v}' | sort
echo "judged efficiency and machine factor of each memory-bound cpu-large row (op: min-max over $N runs):"
cat "$work"/run*/judged.txt | awk '
	{ op=$1; j=$4; m=$3
	  if (!(op in jlo) || j < jlo[op]) jlo[op]=j; if (!(op in jhi) || j > jhi[op]) jhi[op]=j
	  if (m != "null") { if (!(op in mlo) || m < mlo[op]) mlo[op]=m; if (!(op in mhi) || m > mhi[op]) mhi[op]=m } }
	END { for (op in jlo) printf "%s: judged %.0f-%.0f%%, machine %s\n", op, 100*jlo[op], 100*jhi[op],
	      (op in mlo) ? sprintf("%.2f-%.2f", mlo[op], mhi[op]) : "none" }' | sort
