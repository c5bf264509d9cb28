#!/usr/bin/env bash
# make test's runs of the ops tests and of the streaming kernels' (internal/stream), one per
# SIMD level this machine can run, each a real run
# (-count=1: never a result from the test cache) with ROPGEN_SIMD naming its level, and the
# count of tests each ran: go, avx2 and avx512 on amd64 (a level the CPU lacks prints so and
# runs nothing: ops' TestMain), go and neon on arm64, go elsewhere. At each level the CPU has,
# internal/opsbench's tests run too: every catalog op built from its manifest cases, kernel
# against reference (TestCatalogKernels and the hand-written cases). On another host, the
# arm64 build's tests (its NEON kernels) under qemu-user where qemu-aarch64-static is
# installed, and a message where it is not: correctness only, qemu says nothing of speed;
# without TestStreamForward, whose large rows test the non-temporal stores arm64 does not have
# and are slow under qemu (its ops run the kernels the other tests cover).
# Every level runs, a failed one prints its failures, and the script exits 1 if any failed
# (OPS_LEVEL_JOBS: how many run at once; the number of CPUs by default).
set -uo pipefail
GO=${GO:-go}
jobs=${OPS_LEVEL_JOBS:-$(nproc 2>/dev/null || echo 2)}
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
cd "$(dirname "$0")/../ops" || exit 1
kernels=../internal/stream # the streaming kernels and their level tests, relative to ops
asm=../internal/asm/f32     # the vector kernels' entry points and their raw kernels' tests
bench=../internal/opsbench  # the catalog built from the manifests, relative to ops

# Each architecture's test binary is built once (go test -c), and each run is that binary
# run in the package's directory, as go test runs it, with -test.count=1: no result from the
# test cache. The runs are independent and each runs its tests one at a time, so they run
# side by side, as many at once as there are CPUs, the longest (qemu's) first; each one's
# report is printed when all are done, the native levels first.
labels=() shows=() runs=()

# add LABEL SHOWN RUN: a run, its go test equivalent (printed) and the command it runs.
add() { labels+=("$1") shows+=("$2") runs+=("$3"); }

# report I: one line for run I, or its failures; returns 1 if it failed.
report() {
	local i=$1 out
	out=$(cat "$tmp/$i.out")
	echo "${shows[$i]}"
	if [ "$(cat "$tmp/$i.status")" -ne 0 ]; then
		printf '%s\n' "$out" | grep -vE '^(=== (RUN|PAUSE|CONT|NAME)|\s*--- PASS)'
		return 1
	fi
	if none=$(printf '%s\n' "$out" | grep -m1 'no test runs at'); then
		echo "  ${labels[$i]}: $none"
		return 0
	fi
	local top all skipped
	top=$(printf '%s\n' "$out" | grep -cE '^--- (PASS|SKIP)')
	all=$(printf '%s\n' "$out" | grep -cE '^\s*--- (PASS|SKIP)')
	skipped=$(printf '%s\n' "$out" | grep -cE '^--- SKIP')
	echo "  ${labels[$i]}: $top tests run, $all with their subtests, $skipped of the tests skipped, in $(cat "$tmp/$i.secs")s"
}

arch=$("$GO" env GOARCH)
qemu=
if [ "$arch" != arm64 ]; then
	if command -v qemu-aarch64-static >/dev/null 2>&1; then
		qemu=1
	else
		echo "skipping the arm64 ops tests (NEON kernels): qemu-aarch64-static not found (apt install qemu-user-static)"
	fi
fi
# One go test -c for the three packages, so that their compiles and links run side by side
# (-o DIR/ writes ops.test, stream.test and opsbench.test); without go test's vet checks
# (-vet=off): make test's go vet ./... ran every one of them, and more.
"$GO" test -c -vet=off -o "$tmp/" . "$kernels" "$bench" >"$tmp/build.out" 2>&1 &
native=$!
if [ -n "$qemu" ]; then
	{ GOARCH=arm64 "$GO" test -c -o "$tmp/ops-arm64.test" . &&
		GOARCH=arm64 "$GO" test -c -o "$tmp/f32-arm64.test" "$kernels" &&
		GOARCH=arm64 "$GO" test -c -o "$tmp/asm-arm64.test" "$asm" &&
		GOARCH=arm64 "$GO" test -c -o "$tmp/opsbench-arm64.test" "$bench"; } >"$tmp/build-arm64.out" 2>&1 &
	if ! wait $!; then
		cat "$tmp/build-arm64.out"
		exit 1
	fi
	# One run per package, so that the emulation, the longest by far, uses more CPUs where
	# there are: ops' tests and internal/opsbench's (every catalog op against its reference).
	qemu_go="GOARCH=arm64 ROPGEN_SIMD=neon $GO test -count=1 -exec qemu-aarch64-static"
	add "arm64 under qemu-aarch64-static ROPGEN_SIMD=neon" \
		"$qemu_go -skip '^TestStreamForward\$' ./ops" \
		"ROPGEN_SIMD=neon qemu-aarch64-static '$tmp/ops-arm64.test' -test.v -test.count=1 -test.timeout=10m -test.skip '^TestStreamForward\$'"
	add "arm64 under qemu-aarch64-static ROPGEN_SIMD=neon, internal/opsbench" \
		"$qemu_go ./internal/opsbench" \
		"cd '$bench' && ROPGEN_SIMD=neon qemu-aarch64-static '$tmp/opsbench-arm64.test' -test.v -test.count=1 -test.timeout=10m"
	add "arm64 under qemu-aarch64-static ROPGEN_SIMD=neon, internal/stream" \
		"$qemu_go ./internal/stream" \
		"cd '$kernels' && ROPGEN_SIMD=neon qemu-aarch64-static '$tmp/f32-arm64.test' -test.v -test.count=1 -test.timeout=10m"
	add "arm64 under qemu-aarch64-static ROPGEN_SIMD=neon, internal/asm/f32" \
		"$qemu_go ./internal/asm/f32" \
		"cd '$asm' && ROPGEN_SIMD=neon qemu-aarch64-static '$tmp/asm-arm64.test' -test.v -test.count=1 -test.timeout=10m"
fi
if ! wait $native; then
	cat "$tmp/build.out"
	exit 1
fi
case $arch in
amd64) levels="go avx2 avx512" ;;
arm64) levels="go neon" ;;
*) levels="go" ;;
esac
for l in $levels; do
	add "$arch ROPGEN_SIMD=$l" "ROPGEN_SIMD=$l $GO test -count=1 ./ops" \
		"ROPGEN_SIMD=$l '$tmp/ops.test' -test.v -test.count=1 -test.timeout=10m"
	add "$arch ROPGEN_SIMD=$l, internal/stream" "ROPGEN_SIMD=$l $GO test -count=1 ./internal/stream" \
		"cd '$kernels' && ROPGEN_SIMD=$l '$tmp/stream.test' -test.v -test.count=1 -test.timeout=10m"
	# ops' TestMain says whether the CPU has the level; internal/opsbench runs only where it does
	probe=$(ROPGEN_SIMD=$l "$tmp/ops.test" -test.run '^$' 2>&1)
	case $probe in
	*'no test runs at'*) ;;
	*) add "$arch ROPGEN_SIMD=$l, internal/opsbench" "ROPGEN_SIMD=$l $GO test -count=1 ./internal/opsbench" \
		"cd '$bench' && ROPGEN_SIMD=$l '$tmp/opsbench.test' -test.v -test.count=1 -test.timeout=10m" ;;
	esac
done

running=0
for i in "${!runs[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	(
		start=$SECONDS
		eval "${runs[$i]}" >"$tmp/$i.out" 2>&1
		echo $? >"$tmp/$i.status"
		echo $((SECONDS - start)) >"$tmp/$i.secs"
	) &
	running=$((running + 1))
done
wait
order=("${!runs[@]}")
if [ -n "$qemu" ]; then
	order=("${order[@]:4}" 0 1 2 3)
fi
failed=()
for i in "${order[@]}"; do
	report "$i" || failed+=("${labels[$i]}")
done
if [ ${#failed[@]} -ne 0 ]; then
	printf 'ops tests failed at: %s\n' "${failed[*]}"
	exit 1
fi
