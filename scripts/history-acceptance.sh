#!/usr/bin/env bash
# The history's acceptance check (issue 39: "Done when"): K make-run output directories of one
# commit, each with quick.txt, chart.txt and the profile it was priced against (host.yaml, or
# host-loaded.yaml where the calibration was refused), then one more run with one judged
# kernel made 2x slower.
#
#   scripts/history-acceptance.sh RUN1 RUN2 [RUN3...]
#   SLOW_OP=AddFwd scripts/history-acceptance.sh /tmp/ceilings.XXXX/run*
#   OPS='^(ReluFwd|AddFwd|MulFwd)$' scripts/history-acceptance.sh RUN...   a subset timed (a trial)
#
# Into a new SQLite history and, where PostgreSQL can be started (scripts/with-postgres.sh, or
# PG_URL naming an empty database), a PostgreSQL one: it adds the K runs in the order given
# (history add -profile DIR/host.yaml DIR/quick.txt DIR/chart.txt, as make run does), and
# history diff of each consecutive pair must exit 0: runs of one commit are no regression.
# Then the slowed run: a copy of HEAD's tree (git archive) whose SLOW_OP (default ReluFwd)
# runs its Forward twice, timed as make run times its rows (ropbench run -quick, then
# ropbench run -judge PROFILE -samples 15 -max-samples 120, PROFILE the last directory's),
# added to both histories; history diff against the last of the K runs must exit 1 and name
# SLOW_OP's judged row (the chart's) among its regressions. OPS restricts both timings to
# the ops it matches, for a short trial; the K runs are used whole.
#
# Prints a line per diff and a summary; exit 0 when every check passed, 1 when one failed, 2
# on bad arguments or a build that failed. Needs jq. Writes only under a temporary
# directory, which it prints and keeps.
set -u
SLOW_OP=${SLOW_OP:-ReluFwd}
usage() {
	echo "usage: scripts/history-acceptance.sh RUNDIR RUNDIR [RUNDIR...]  (make run output directories: quick.txt, chart.txt, host.yaml)" >&2
	[ $# -gt 0 ] && echo "history-acceptance: $*" >&2
	exit 2
}
[ $# -ge 2 ] || usage "needs 2 or more run directories, got $#"
for d in "$@"; do
	[ -d "$d" ] || usage "$d: no such directory"
	for f in quick.txt chart.txt; do
		[ -s "$d/$f" ] || usage "$d: no $f (a make run output directory has quick.txt, chart.txt and host.yaml)"
	done
	[ -s "$d/host.yaml" ] || [ -s "$d/host-loaded.yaml" ] || usage "$d: no host.yaml (nor host-loaded.yaml): the profile the run was priced against"
done
case $SLOW_OP in
*[!A-Za-z0-9]* | "") usage "SLOW_OP=$SLOW_OP: an op name (ReluFwd, AddFwd, ...)" ;;
esac
grep -q "op=$SLOW_OP/" "${@: -1}/chart.txt" || usage "SLOW_OP=$SLOW_OP is no judged row of ${*: -1}/chart.txt: name an op the chart times"
command -v jq > /dev/null || { echo "history-acceptance needs jq (Debian: apt-get install jq)" >&2; exit 2; }
top=$(git rev-parse --show-toplevel) || exit 2

# PostgreSQL: a throwaway server, unless PG_URL names a database; a server the caller's
# ROPGEN_TEST_PG_URL names is someone's test server, not written to here.
if [ -z "${PG_URL:-}" ] && [ -z "${HISTORY_ACCEPTANCE_PG:-}" ] && [ -z "${ROPGEN_TEST_PG_URL:-}" ]; then
	export HISTORY_ACCEPTANCE_PG=1
	exec "$top/scripts/with-postgres.sh" "$0" "$@"
fi
pg=${PG_URL:-}
if [ -z "$pg" ] && [ -n "${HISTORY_ACCEPTANCE_PG:-}" ]; then
	pg=${ROPGEN_TEST_PG_URL:-}
fi

dirs=()
for d in "$@"; do dirs+=("$(cd "$d" && pwd)"); done
cd "$top" || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/history-acceptance.XXXXXX")
echo "work directory: $work (load average $(cut -d' ' -f1-3 /proc/loadavg 2> /dev/null))"
go build -o "$work/bin/" ./cmd/ropgen ./cmd/ropbench || { echo "cannot build ropgen" >&2; exit 2; }
ropgen=$work/bin/ropgen

# The slowed tree: SLOW_OP's Forward renamed forwardOnce, and a Forward that calls it twice.
slow=$work/slowed
mkdir -p "$slow" && git archive HEAD | tar -x -C "$slow"
file=$(grep -l "^func (op \*$SLOW_OP) Forward(" "$slow"/ops/*.go | head -1)
[ -n "$file" ] || { echo "no Forward method of $SLOW_OP in ops/" >&2; exit 2; }
params=$(sed -n "s/^func (op \*$SLOW_OP) Forward(\([^)]*\)) error {$/\1/p" "$file")
args=$(echo "$params" | tr ',' '\n' | awk '{print $1}' | paste -sd, - | sed 's/,/, /g')
sed -i "s/^func (op \*$SLOW_OP) Forward(/func (op *$SLOW_OP) forwardOnce(/" "$file"
cat >> "$file" << GO

// Forward runs the kernel twice: the 2x slower row of scripts/history-acceptance.sh, never
// part of the catalog.
func (op *$SLOW_OP) Forward($params) error {
	if err := op.forwardOnce($args); err != nil {
		return err
	}
	return op.forwardOnce($args)
}
GO
(cd "$slow" && go build -o "$work/slow-bin/" ./cmd/ropbench) || { echo "cannot build the slowed tree" >&2; exit 2; }

last=${dirs[${#dirs[@]}-1]}
profile=$last/host.yaml
[ -s "$profile" ] || profile=$last/host-loaded.yaml
only=()
[ -n "${OPS:-}" ] && only=(-op "$OPS")
mkdir -p "$work/slow-run"
echo "timing the slowed run ($SLOW_OP twice; load average $(cut -d' ' -f1-3 /proc/loadavg 2> /dev/null))"
"$work/slow-bin/ropbench" run -quick "${only[@]}" -o "$work/slow-run/quick.txt" 2> "$work/slow-run/quick.log" || { tail -5 "$work/slow-run/quick.log"; exit 2; }
"$work/slow-bin/ropbench" run -judge "$profile" "${only[@]}" -samples 15 -max-samples 120 -o "$work/slow-run/chart.txt" 2> "$work/slow-run/chart.log" || { tail -5 "$work/slow-run/chart.log"; exit 2; }
slowrows=$(grep -o "op=$SLOW_OP/workload=[^/]*/dtype=[^ ]*" "$work/slow-run/chart.txt" | sed 's/op=//; s/workload=//; s/dtype=//' | sort -u)
[ -n "$slowrows" ] || { echo "the slowed run's chart has no $SLOW_OP row (OPS=${OPS:-} leaves it out?)" >&2; exit 2; }

failed=0
results=()
# check NAME DSN: the K runs and the slowed one into DSN, and the diffs.
check() {
	local name=$1 db=$2 ids=() id d code i
	for d in "${dirs[@]}" "$work/slow-run"; do
		local p=$d/host.yaml
		[ -s "$p" ] || p=$d/host-loaded.yaml
		[ "$d" = "$work/slow-run" ] && p=$profile
		id=$("$ropgen" history add -db "$db" -profile "$p" "$d/quick.txt" "$d/chart.txt" 2> "$work/$name-add.log") || { cat "$work/$name-add.log" >&2; results+=("$name: history add of $d failed"); failed=1; return; }
		ids+=("$id")
	done
	for ((i = 1; i < ${#dirs[@]}; i++)); do
		"$ropgen" history diff -db "$db" "${ids[i-1]}" "${ids[i]}" > "$work/$name-diff-$i.txt" 2>&1
		code=$?
		if [ $code = 0 ]; then
			echo "$name: runs ${ids[i-1]} -> ${ids[i]} (one commit): exit 0, no regression: ok"
		else
			echo "$name: runs ${ids[i-1]} -> ${ids[i]} (one commit): exit $code: FAIL"
			grep -E "slower|Error|error" "$work/$name-diff-$i.txt" | head -5 | sed 's/^/    /'
			failed=1
			results+=("$name: runs ${ids[i-1]} -> ${ids[i]} of one commit: exit $code, want 0")
		fi
	done
	local a=${ids[${#ids[@]}-2]} b=${ids[${#ids[@]}-1]}
	"$ropgen" history diff -db "$db" -json "$a" "$b" > "$work/$name-diff-slow.json" 2> "$work/$name-diff-slow.err"
	code=$?
	local named
	named=$(jq -r '.rows[] | select(.regression) | .op + "/" + .workload + "/" + .dtype' "$work/$name-diff-slow.json" 2> /dev/null | sort)
	local hit=""
	for r in $slowrows; do
		grep -qxF "$r" <<< "$named" && hit="$hit $r"
	done
	if [ $code = 1 ] && [ -n "$hit" ]; then
		echo "$name: runs $a -> $b ($SLOW_OP 2x slower): exit 1, named:$hit: ok"
	else
		echo "$name: runs $a -> $b ($SLOW_OP 2x slower): exit $code, named: ${named:-none}: FAIL (want exit 1 naming $(echo $slowrows))"
		jq -r --arg op "$SLOW_OP" '.rows[] | select(.op == $op) | "    " + .op + "/" + .workload + ": " + .change + " (" + .test + ": " + .why + ")"' "$work/$name-diff-slow.json" 2> /dev/null
		failed=1
		results+=("$name: the slowed run: exit $code, named ${named:-none}")
	fi
	others=$(grep -vxF -f <(echo "$slowrows") <<< "$named" | grep -c .)
	[ "$others" -gt 0 ] && echo "$name: $others other row(s) named with it: $(grep -vxF -f <(echo "$slowrows") <<< "$named" | paste -sd' ' -)"
}

check SQLite "$work/history.db"
if [ -n "$pg" ]; then
	check PostgreSQL "$pg"
else
	echo "PostgreSQL: not checked (no server could be started: see above; or set PG_URL to an empty database)"
	results+=("PostgreSQL: not checked")
fi

echo
echo "summary: ${#dirs[@]} runs of one commit, then $SLOW_OP 2x slower (rows: $(echo $slowrows)); work directory $work"
if [ $failed = 0 ]; then
	stores="SQLite"
	[ -n "$pg" ] && stores="SQLite and PostgreSQL"
	echo "PASS: every pair of one commit is no regression, and the slowed row is named with exit 1, on $stores"
	for r in "${results[@]}"; do echo "  note: $r"; done
	exit 0
fi
echo "FAIL:"
for r in "${results[@]}"; do echo "  $r"; done
exit 1
