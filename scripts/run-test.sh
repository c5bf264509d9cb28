#!/usr/bin/env bash
# The flow of scripts/run.sh (make run) on a busy machine, with stand-ins for ropgen and
# ropbench that say what a busy machine says (calibrate refuses: exit 3, the refused
# measurement written to -loaded), so that it runs in a second: the run goes on, prices
# against the earlier profile or the refused measurement, never writes that one as
# out/host.yaml, exits 0 with its summary, and 1 only for a formula error.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# setup DIR: a fresh OUT with the stand-ins. Their behaviour is read from files in DIR:
# refuse (calibrate refuses), drift (report -check on records exits 3), summary-exit.
setup() {
	mkdir -p "$1/bin"
	cat > "$1/bin/ropgen" <<'SH'
#!/usr/bin/env bash
dir=$(dirname "$(dirname "$0")")
echo "ropgen $*" >> "$dir/calls"
case $1 in
calibrate)
	shift
	while [ $# -gt 0 ]; do case $1 in -o) o=$2; shift ;; -loaded) l=$2; shift ;; esac; shift; done
	if [ -e "$dir/refuse" ]; then
		echo "ropgen calibrate: refused (attempt 2; -budget 1m30s): no profile written:" >&2
		echo "  the DRAM envelope: the median round is 40% below the best" >&2
		printf 'measured:\n  refused:\n    - "busy"\n' > "$l"
		exit 3
	fi
	echo "accepted $(date +%s%N)" > "$o"
	;;
history)
	# history profile: the history's earlier profile where the case put one ($dir/earlier).
	if [ "$2" = profile ]; then
		[ -e "$dir/earlier" ] || exit 3
		cp "$dir/earlier" "$4"
	fi
	;;
report)
	if [ "$2" = -check ]; then
		[ -s "$4" ] || exit 3
		[ $# -gt 4 ] && [ -e "$dir/drift" ] && { echo "copy reference at end: DRIFTED"; exit 3; }
		exit 0
	fi
	case " $* " in *" -summary "*) echo "summary of $*"; exit "$(cat "$dir/summary-exit" 2> /dev/null || echo 0)" ;; esac
	;;
esac
exit 0
SH
	cat > "$1/bin/ropbench" <<'SH'
#!/usr/bin/env bash
dir=$(dirname "$(dirname "$0")")
echo "ropbench $*" >> "$dir/calls"
while [ $# -gt 0 ]; do case $1 in -o) echo records > "$2"; shift ;; esac; shift; done
SH
	chmod +x "$1/bin/ropgen" "$1/bin/ropbench"
}

# check NAME WANT-EXIT OUT: runs scripts/run.sh on OUT and checks its exit status.
check() {
	OUT=$3 "$here/run.sh" > "$3/stdout" 2> "$3/stderr"
	local got=$?
	if [ "$got" != "$2" ]; then
		echo "FAIL $1: exit $got, want $2"; cat "$3/stderr"; fail=1
	fi
}
expect() { # NAME CONDITION-DESCRIPTION COMMAND...
	local name=$1 what=$2
	shift 2
	if ! "$@"; then echo "FAIL $name: $what"; fail=1; fi
}

# A busy machine and no earlier profile: two refused calibrations, then the refused
# measurement prices the run; out/host.yaml is never written.
o=$tmp/fresh && setup "$o" && touch "$o/refuse"
check "no earlier profile" 0 "$o"
expect "no earlier profile" "calibrated twice" [ "$(grep -c '^ropgen calibrate' "$o/calls")" = 2 ]
expect "no earlier profile" "host.yaml written" [ ! -e "$o/host.yaml" ]
expect "no earlier profile" "the summary is not priced against host-loaded.yaml" grep -q "^summary of report -summary -history -profile $o/host-loaded.yaml" "$o/stdout"
expect "no earlier profile" "the run does not say so" grep -q "priced against the refused measurement" "$o/stderr"
expect "no earlier profile" "the run is not kept with the refused measurement" grep -q "^ropgen history add -profile $o/host-loaded.yaml" "$o/calls"

# A busy machine, no out/host.yaml (make clean), and a quiet profile of this boot in the
# history: the run is priced against it, and kept in the history with the refused
# measurement, so that no verdict's past reads it.
o=$tmp/history && setup "$o" && touch "$o/refuse" && echo "accepted from the history" > "$o/earlier"
check "the history's profile" 0 "$o"
expect "the history's profile" "host.yaml written" [ ! -e "$o/host.yaml" ]
expect "the history's profile" "the summary is not priced against host-earlier.yaml" grep -q "^summary of report -summary -history -profile $o/host-earlier.yaml" "$o/stdout"
expect "the history's profile" "the run does not say so" grep -q "this host's earlier profile from the history" "$o/stderr"
expect "the history's profile" "the run is not kept with the refused measurement" grep -q "^ropgen history add -profile $o/host-loaded.yaml" "$o/calls"

# An earlier profile, a drifted run, a busy machine: the recalibration is refused twice and
# the run is priced against the earlier profile, which stays as it was.
o=$tmp/earlier && setup "$o" && echo "accepted earlier" > "$o/host.yaml" && touch "$o/refuse" "$o/drift"
check "earlier profile, drift" 0 "$o"
expect "earlier profile, drift" "the earlier profile changed" grep -qx "accepted earlier" "$o/host.yaml"
expect "earlier profile, drift" "benchmarked again after a refused recalibration" [ "$(grep -c '^ropbench run -quick' "$o/calls")" = 1 ]
expect "earlier profile, drift" "the summary is not priced against host.yaml" grep -q "^summary of report -summary -history -profile $o/host.yaml" "$o/stdout"
expect "earlier profile, drift" "a refused measurement left as host-new.yaml" [ ! -e "$o/host-new.yaml" ]

# A quiet machine: calibrated once, no loaded profile left from an earlier busy run.
o=$tmp/quiet && setup "$o" && printf 'measured:\n  refused: ["old"]\n' > "$o/host-loaded.yaml"
check "quiet" 0 "$o"
expect "quiet" "no host.yaml" [ -s "$o/host.yaml" ]
expect "quiet" "an earlier refused measurement was kept" [ ! -e "$o/host-loaded.yaml" ]
expect "quiet" "the run is not added to the history with its profile" grep -q "^ropgen history add -profile $o/host.yaml $o/quick.txt $o/chart.txt" "$o/calls"

# Rows left unpriced (report exit 4) do not fail the run; a formula error (exit 1) does.
o=$tmp/unpriced && setup "$o" && echo 4 > "$o/summary-exit"
check "unpriced rows" 0 "$o"
o=$tmp/error && setup "$o" && echo 1 > "$o/summary-exit"
check "formula error" 1 "$o"

[ $fail = 0 ] && echo "scripts/run-test.sh: make run's flow on a busy machine: 6 cases passed"
exit $fail
