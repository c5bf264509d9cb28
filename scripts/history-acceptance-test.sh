#!/usr/bin/env bash
# The argument handling of scripts/history-acceptance.sh, which nothing else runs before the
# lead's quiet host: each bad call is refused with exit 2 and a message that names what is
# wrong, in a second, before anything is built, timed or started.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# run: a make run output directory with quick.txt, chart.txt (a ReluFwd row) and host.yaml.
run() {
	mkdir -p "$1"
	echo "BenchmarkRoofline/op=ReluFwd/workload=cpu-large/dtype=float32 15 0.002 sec/op" > "$1/chart.txt"
	echo "BenchmarkRoofline/op=ReluFwd/workload=cpu-small/dtype=float32 5 0.000004 sec/op" > "$1/quick.txt"
	echo "name: host" > "$1/host.yaml"
}
run "$tmp/a"
run "$tmp/b"
mkdir -p "$tmp/empty"

# expect WHAT PATTERN ARGS...: the script refuses ARGS with exit 2 and a message matching
# PATTERN, starting no server (PG_URL set: nothing would start one).
expect() {
	local what=$1 pattern=$2
	shift 2
	local out code
	out=$(PG_URL=postgres://unused@/x timeout 20 "$here/history-acceptance.sh" "$@" 2>&1)
	code=$?
	if [ $code != 2 ] || ! grep -qE -- "$pattern" <<< "$out"; then
		echo "FAIL: $what: exit $code, want 2 and /$pattern/:"
		sed 's/^/    /' <<< "$out"
		fail=1
	fi
}
expect "no arguments" "needs 2 or more run directories, got 0"
expect "one run" "needs 2 or more run directories, got 1" "$tmp/a"
expect "a missing directory" "$tmp/nope: no such directory" "$tmp/a" "$tmp/nope"
expect "a directory without records" "$tmp/empty: no quick.txt" "$tmp/a" "$tmp/empty"
rm "$tmp/b/host.yaml"
expect "a run without its profile" "$tmp/b: no host.yaml" "$tmp/a" "$tmp/b"
echo "name: host" > "$tmp/b/host-loaded.yaml"
SLOW_OP='Relu;rm' expect "an op name that is none" "SLOW_OP=Relu;rm: an op name" "$tmp/a" "$tmp/b"
SLOW_OP=GemmFwd expect "an op the chart does not time" "SLOW_OP=GemmFwd is no judged row of $tmp/b/chart.txt" "$tmp/a" "$tmp/b"
[ $fail = 0 ] && echo "scripts/history-acceptance.sh: its arguments are checked"
exit $fail
