#!/usr/bin/env bash
# The verdict acceptance check (docs/report.md, "How far a verdict repeats"): N consecutive
# `make clean && make run`, each a fresh calibration, and how far their verdicts agree.
#
#   N=5 scripts/ceilings-acceptance.sh                      quiet runs (default N=3)
#   BUSY=1 N=2 QUIET=/tmp/ceilings.XXXX scripts/ceilings-acceptance.sh
#       one core kept busy by another process the whole time; with QUIET, the work
#       directory of an earlier quiet series, every busy verdict is checked against it
#   AGAIN=/tmp/ceilings.YYYY QUIET=/tmp/ceilings.XXXX scripts/ceilings-acceptance.sh
#       no runs: the summary of an earlier series again (against QUIET when given)
#   HISTORY=fresh N=5 scripts/ceilings-acceptance.sh
#       the runs keep their history in a new database of the work directory (ROPGEN_DB),
#       not in the module's: the first run has no past, as on a new machine
#
# make run judges the line over the history's earlier runs too (report -history), so each run
# line says how many runs of the history it saw.
#
# Per run: make run's exit status and time, which profile priced it (out/host.yaml; on a
# machine too busy to calibrate, the history's earlier profile out/host-earlier.yaml, or the
# measurement refused under load, out/host-loaded.yaml, which must never become
# out/host.yaml), anomalies and formula errors over every row, the verdict of every judged
# row (the rows of make run's chart.txt), and a copy of the catalog whose AddFwd bytes are
# doubled, timed and priced against the run's profile: it must be a formula error every time.
# The run's line shows the margin of the same-time physics check: the doubled AddFwd's
# implied rate over its same-time reference (ref_ratio; the line is report.SameTimeLine),
# and the highest such ratio among the run's correct rows.
#
# Then, over the runs: per judged row its verdicts; the rows that kept one verdict in every
# run; the flips (a row "at ceiling" in one run and "below" in another: what must never
# happen); the row-cells left unpriced; and with QUIET, the busy verdicts that contradict a
# quiet one (at ceiling against below, either way).
#
# Needs jq. Writes only under a temporary directory, which it prints and keeps.
set -u
N=${N:-3}
command -v jq > /dev/null || { echo "scripts/ceilings-acceptance.sh needs jq (Debian: apt-get install jq)"; exit 2; }
top=$(git rev-parse --show-toplevel) || exit 2
cd "$top" || exit 2

# series: N runs into a new work directory, one line each (also kept in $work/runs.txt).
series() {

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

# rows FILE.json: one line per priced row, "op/workload/dtype<TAB>verdict<TAB>judged<TAB>ref_ratio".
rows() { jq -r '.rows[] | [.op + "/" + .workload + "/" + .dtype, .verdict, (.judged_efficiency // "-" | tostring), (.ref_ratio // "-" | tostring)] | @tsv' "$1"; }

for i in $(seq 1 "$N"); do
	out=$work/run$i
	start=$(date +%s)
	load0=$(cut -d' ' -f1 /proc/loadavg 2> /dev/null)
	make clean OUT="$out" > /dev/null
	make run OUT="$out" > "$work/run$i.log" 2>&1
	rc=$?
	# The profile make run priced against: the host's, else the history's earlier one, else
	# the refused measurement.
	profile=$out/host.yaml
	[ -s "$profile" ] || profile=$out/host-earlier.yaml
	[ -s "$profile" ] || profile=$out/host-loaded.yaml
	refused=no
	[ -s "$out/host-loaded.yaml" ] && refused=yes
	loaded=no
	grep -q '^  refused:' "$profile" 2> /dev/null && loaded=yes
	# A refused measurement must never be left where the next run takes the host's profile.
	leaked=no
	grep -q '^  refused:' "$out/host.yaml" 2> /dev/null && leaked=YES
	# As make run's summary prices them: the run's records together, judged over the
	# history's earlier runs too (the run itself, added already, is not its own past).
	"$out/bin/ropgen" report -json -history -profile "$profile" "$out/quick.txt" "$out/chart.txt" > "$out/all.json" 2> /dev/null
	# The judged rows are the chart's.
	"$out/bin/ropgen" report -json -profile "$profile" "$out/chart.txt" 2> /dev/null |
		jq --slurpfile all "$out/all.json" '{rows: [.rows[] | . as $c | $all[0].rows[] | select(.op == $c.op and .workload == $c.workload and .dtype == $c.dtype)]}' > "$out/chart.json"
	anomalies=$(jq '[.rows[] | select(.verdict == "anomaly")] | length' "$out/all.json")
	errors=$(jq '[.rows[] | select(.verdict == "formula error")] | length' "$out/all.json")
	rows "$out/chart.json" | sort > "$out/judged.tsv"
	(cd "$dbl" && "$work/doubled-bin/ropbench" run -judge "$profile" -op '^AddFwd$' -workload '^cpu-large$' -samples 15 -max-samples 120 -o "$out/add2x.txt" 2> /dev/null)
	"$out/bin/ropgen" report -profile "$profile" "$out/add2x.txt" > "$out/add2x-report.txt" 2>&1
	caught=$?
	kept=$("$out/bin/ropgen" history runs -json 2> /dev/null | wc -l)
	"$out/bin/ropgen" report -json -profile "$profile" "$out/add2x.txt" > "$out/add2x.json" 2> /dev/null
	doubled=$(jq -r '[.rows[] | .ref_ratio // empty] | max // "none"' "$out/add2x.json")
	highest=$(jq -r '[.rows[] | select(.ref_ratio != null) | {r: .ref_ratio, n: (.op + "/" + .workload)}] | max_by(.r) // {r: "none", n: ""} | "\(.r) \(.n)"' "$out/all.json")
	echo "run $i: make run exit $rc, $(($(date +%s) - start)) s (load average $load0 before, $(cut -d' ' -f1 /proc/loadavg 2> /dev/null) after), profile $(basename "$profile") (calibration refused: $refused; profile measured under load: $loaded; refused profile left as host.yaml: $leaked), $anomalies anomalies, $errors formula errors; doubled AddFwd: report exit $caught ($(grep -c 'formula error' "$out/add2x-report.txt") formula-error lines), implied/reference $doubled; correct rows' highest $highest; history: $kept runs, this one included"
done
}

if [ -n "${AGAIN:-}" ]; then
	work=$AGAIN
	N=$(ls -d "$work"/run*/ | wc -l)
	echo "work directory: $work (again: $N runs)"
	cat "$work/runs.txt"
else
	work=$(mktemp -d /tmp/ceilings.XXXXXX)
	if [ "${HISTORY:-module}" = fresh ]; then
		export ROPGEN_DB=$work/history.db
	fi
	echo "work directory: $work (BUSY=${BUSY:-0}, N=$N, HISTORY=${HISTORY:-module}, commit $(git rev-parse --short HEAD))"
	series | tee "$work/runs.txt"
fi

echo
echo "verdicts of the judged rows (row: count x verdict over $N runs; judged efficiency min-max):"
cat "$work"/run*/judged.tsv | awk -F'\t' '
	{ v[$1] = v[$1] ? v[$1] "," $2 : $2
	  if ($3 != "-") { if (!($1 in lo) || $3 < lo[$1]) lo[$1] = $3; if (!($1 in hi) || $3 > hi[$1]) hi[$1] = $3 } }
	END { for (r in v) {
		n = split(v[r], a, ","); delete c; s = ""
		for (k = 1; k <= n; k++) c[a[k] == "" ? "unpriced" : a[k]]++
		for (x in c) s = s (s ? ", " : "") c[x] " x " x
		printf "%s: %s; judged %s\n", r, s, (r in lo) ? sprintf("%.0f-%.0f%%", 100*lo[r], 100*hi[r]) : "none" } }' | sort

echo
cat "$work"/run*/judged.tsv | awk -F'\t' -v runs="$N" '
	{ cells++; if ($2 == "") unpriced++; seen[$1]++; key = $1 SUBSEP $2; if (!(key in has)) { has[key] = 1; kinds[$1]++ }
	  if ($2 == "at ceiling") at[$1] = 1; if ($2 == "below") below[$1] = 1 }
	END { rows = 0; kept = 0; flips = 0; list = ""
		for (r in seen) { rows++; if (kinds[r] == 1 && seen[r] == runs) kept++; if ((r in at) && (r in below)) { flips++; list = list " " r } }
		printf "agreement over %d runs: %d of %d judged rows kept one verdict in every run (%.0f%%); %d at-ceiling/below flips%s; %d of %d row-cells unpriced (%.1f%%)\n",
			runs, kept, rows, rows ? 100 * kept / rows : 0, flips, flips ? ":" list : "", unpriced, cells, cells ? 100 * unpriced / cells : 0
		decisive = 0; for (r in seen) if ((r in at) || (r in below)) decisive++
		printf "rows with an at-ceiling or below verdict in some run: %d of %d\n", decisive, rows }'

if [ -n "${QUIET:-}" ]; then
	echo
	# Every quiet verdict that is at ceiling or below, per row; a busy run contradicts it by the
	# other one.
	cat "$QUIET"/run*/judged.tsv | awk -F'\t' '$2 == "at ceiling" || $2 == "below" { print $1 "\t" $2 }' | sort -u > "$work/quiet-verdicts.tsv"
	cat "$work"/run*/judged.tsv | awk -F'\t' '
		NR == FNR { q[$1] = q[$1] "|" $2; next }
		$2 == "at ceiling" || $2 == "below" { decisive++
			other = ($2 == "at ceiling") ? "below" : "at ceiling"
			if (index(q[$1], "|" other)) { bad++; list = list "\n  " $1 ": " $2 " here, " other " in a quiet run" } }
		{ cells++ }
		END { printf "against the quiet series in %s: %d of %d busy row-cells got at ceiling or below; %d contradict a quiet verdict%s\n", q_dir, decisive, cells, bad, list }' \
		q_dir="$QUIET" "$work/quiet-verdicts.tsv" -
fi
