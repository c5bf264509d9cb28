#!/bin/sh
# The Python harness's round trip on the CPU (make test): ropgen's work list of the catalog's
# small cpu-* rows -> harness.py with numpy -> records -> ropgen report against a test profile,
# which must price every row; test_harness.py checks the references first. Skipped with a message when no python3 with numpy is found.
# usage: examples/pyharness/roundtrip.sh OUTDIR   (from the repository root; GO, PYTHON optional)
set -eu
out=${1:?usage: roundtrip.sh OUTDIR}
GO=${GO:-go}
py=""
for p in ${PYTHON:-python3} /usr/bin/python3; do
	if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then
	echo "skipping the Python harness round trip (examples/pyharness): no python3 with numpy (apt install python3-numpy)"
	exit 0
fi
mkdir -p "$out"
# The numpy references against their definitions first (-B: no __pycache__ in the tree).
(cd examples/pyharness && "$py" -B test_harness.py) || { echo "examples/pyharness/test_harness.py failed"; exit 1; }
$GO run ./cmd/ropbench eval -json -workload '^cpu-' > "$out/work.jsonl" 2> "$out/eval.log" || { cat "$out/eval.log"; exit 1; }
# Small rows only, three samples each, a small flush buffer: a test of the seam, not a measurement.
"$py" examples/pyharness/harness.py --backend numpy -i "$out/work.jsonl" -o "$out/records.jsonl" \
	--samples 3 --warmup 1 --flush-mib 8 --max-bytes 4194304 2> "$out/harness.log" || { cat "$out/harness.log"; exit 1; }
$GO run ./cmd/ropgen report -profile examples/pyharness/testdata/cpu.yaml "$out/records.jsonl" > "$out/report.txt" 2>&1 ||
	{ cat "$out/report.txt"; exit 1; }
n=$(grep -c . "$out/records.jsonl")
summary=$(grep -E '^[0-9]+ rows: ' "$out/report.txt")
case $summary in
"$n rows: "*", 0 unpriced") ;;
*) echo "examples/pyharness: $n records, but the report says: $summary"; cat "$out/report.txt"; exit 1 ;;
esac
for op in CopyFwd AddFwd ReluFwd SiluFwd SoftmaxFwd RMSNormFwd LayerNormFwd GemmFwd; do
	grep -q "\"op\": \"$op\"" "$out/records.jsonl" || { echo "examples/pyharness: no record of $op"; cat "$out/harness.log"; exit 1; }
done
echo "examples/pyharness: $(tail -1 "$out/harness.log") with $py (numpy); ropgen report: $summary"
