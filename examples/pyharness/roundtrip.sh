#!/bin/sh
# The Python harness's round trip on the CPU (make test): ropgen's work list of the catalog's
# small cpu-* rows -> harness.py with numpy -> records -> ropgen report against a test profile,
# which must price every row; test_harness.py checks the references first. Skipped with a
# message when no python3 with numpy is found. Where that python3 also has PyTorch, the same
# with PyTorch on the CPU, then one report of both runs, which must set the two
# implementations side by side and never pool them.
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
# Every record but the harness's cold-call floor (ref.floor) is a row, every row priced.
case $summary in
"$((n - 1)) rows: "*", 0 unpriced") ;;
*) echo "examples/pyharness: $n records, but the report says: $summary"; cat "$out/report.txt"; exit 1 ;;
esac
for op in CopyFwd AddFwd ReluFwd SiluFwd SoftmaxFwd RMSNormFwd LayerNormFwd GemmFwd; do
	grep -q "\"op\": \"$op\"" "$out/records.jsonl" || { echo "examples/pyharness: no record of $op"; cat "$out/harness.log"; exit 1; }
done
echo "examples/pyharness: $(tail -1 "$out/harness.log") with $py (numpy); ropgen report: $summary"
grep -q '"op": "ref.floor", .*' "$out/records.jsonl" || { echo "examples/pyharness: numpy: no ref.floor record"; exit 1; }

if ! "$py" -c 'import torch' 2>/dev/null; then
	echo "skipping the PyTorch CPU round trip (examples/pyharness): $py has no torch (apt install python3-torch)"
	exit 0
fi
"$py" examples/pyharness/harness.py --backend torch --cpu -i "$out/work.jsonl" -o "$out/torch.jsonl" \
	--samples 3 --warmup 1 --flush-mib 8 --max-bytes 4194304 2> "$out/torch.log" || { cat "$out/torch.log"; exit 1; }
$GO run ./cmd/ropgen report -profile examples/pyharness/testdata/cpu.yaml "$out/torch.jsonl" > "$out/torch.txt" 2>&1 ||
	{ cat "$out/torch.txt"; exit 1; }
n=$(grep -c . "$out/torch.jsonl")
summary=$(grep -E '^[0-9]+ rows: ' "$out/torch.txt")
# Every record but the floor is a row, every row priced.
case $summary in
"$((n - 1)) rows: "*", 0 unpriced") ;;
*) echo "examples/pyharness: torch: $n records, but the report says: $summary"; cat "$out/torch.txt"; exit 1 ;;
esac
for op in CopyFwd AddFwd ReluFwd SoftmaxFwd RMSNormFwd LayerNormFwd GemmFwd ConcatFwd CumsumFwd; do
	grep -q "\"op\": \"$op\"" "$out/torch.jsonl" || { echo "examples/pyharness: torch: no record of $op"; cat "$out/torch.log"; exit 1; }
done
# Its rows are judged against its own cold call, not ropgen's.
grep -q '^latency floor of torch .*(the cold call the run timed (ref.floor))' "$out/torch.txt" ||
	{ echo "examples/pyharness: torch: its rows are not priced on its own floor"; cat "$out/torch.txt"; exit 1; }
# Both runs in one report: two implementations of the same cases, side by side, never pooled.
$GO run ./cmd/ropgen report -profile examples/pyharness/testdata/cpu.yaml "$out/records.jsonl" "$out/torch.jsonl" > "$out/both.txt" 2>&1 ||
	{ cat "$out/both.txt"; exit 1; }
rows=$(grep -E '^[0-9]+ rows: ' "$out/both.txt" | cut -d' ' -f1)
want=$(($(grep -c . "$out/records.jsonl") + n - 2))
[ "$rows" = "$want" ] || { echo "examples/pyharness: numpy and torch together: $rows rows, want $want (one per record of each but the floors): rows pooled"; cat "$out/both.txt"; exit 1; }
grep -q '^torch against numpy: ' "$out/both.txt" ||
	{ echo "examples/pyharness: numpy and torch together: no side-by-side comparison"; cat "$out/both.txt"; exit 1; }
echo "examples/pyharness: $(tail -1 "$out/torch.log") with $py (torch on the CPU); together with numpy: $(grep '^torch against numpy: ' "$out/both.txt")"
