#!/usr/bin/env bash
# make test's runs of the ops tests, one per SIMD level this machine can run, each a real run
# (-count=1: never a result from the test cache) with ROPGEN_SIMD naming its level, and the
# count of tests each ran: go, avx2 and avx512 on amd64 (a level the CPU lacks prints so and
# runs nothing: ops' TestMain), go and neon on arm64, go elsewhere. On another host, the
# arm64 build's tests (its NEON kernels) under qemu-user where qemu-aarch64-static is
# installed, and a message where it is not: correctness only, qemu says nothing of speed;
# without TestStreamForward, whose large rows test the non-temporal stores arm64 does not have
# and are slow under qemu (its ops run the kernels the other tests cover).
# Every level runs, a failed one prints its failures, and the script exits 1 if any failed.
set -uo pipefail
GO=${GO:-go}
failed=()

# level LABEL VAR=VALUE... -- GO-TEST-ARGS...: one run of go test -count=1 -v with the
# variables set, reported in one line (or its failures).
level() {
	local label=$1 vars=() out status start=$SECONDS
	shift
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	echo "${vars[*]} $GO test -count=1 $*"
	out=$(env "${vars[@]}" "$GO" test -count=1 -v "$@" 2>&1)
	status=$?
	if [ $status -ne 0 ]; then
		printf '%s\n' "$out" | grep -vE '^(=== (RUN|PAUSE|CONT|NAME)|\s*--- PASS)'
		failed+=("$label")
		return
	fi
	if none=$(printf '%s\n' "$out" | grep -m1 'no test runs at'); then
		echo "  $label: $none"
		return
	fi
	local top all skipped
	top=$(printf '%s\n' "$out" | grep -cE '^--- (PASS|SKIP)')
	all=$(printf '%s\n' "$out" | grep -cE '^\s*--- (PASS|SKIP)')
	skipped=$(printf '%s\n' "$out" | grep -cE '^--- SKIP')
	echo "  $label: $top tests run, $all with their subtests, $skipped of the tests skipped, in $((SECONDS - start))s"
}

case $("$GO" env GOARCH) in
amd64) levels="go avx2 avx512" ;;
arm64) levels="go neon" ;;
*) levels="go" ;;
esac
for l in $levels; do
	level "$("$GO" env GOARCH) ROPGEN_SIMD=$l" ROPGEN_SIMD=$l -- ./ops
done
if [ "$("$GO" env GOARCH)" != arm64 ]; then
	if command -v qemu-aarch64-static >/dev/null 2>&1; then
		level "arm64 under qemu-aarch64-static ROPGEN_SIMD=neon" GOARCH=arm64 ROPGEN_SIMD=neon -- \
			-exec qemu-aarch64-static -skip '^TestStreamForward$' ./ops
	else
		echo "skipping the arm64 ops tests (NEON kernels): qemu-aarch64-static not found (apt install qemu-user-static)"
	fi
fi
if [ ${#failed[@]} -ne 0 ]; then
	printf 'ops tests failed at: %s\n' "${failed[*]}"
	exit 1
fi
