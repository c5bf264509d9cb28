#!/usr/bin/env bash
# make harness's check of scripts/gpu/run.sh without a GPU: the dry run (plan, inputs, the
# profile writer on datasheet placeholders), then the writer on a sample calibration
# (testdata/calibrate.env), whose profile must validate and say what was measured, what was
# above the datasheet and what did not run; and an unknown device must be refused.
# usage: scripts/gpu/test.sh OUTDIR
set -euo pipefail
out=${1:?usage: scripts/gpu/test.sh OUTDIR}
out=$(mkdir -p "$out" && cd "$out" && pwd)
cd "$(dirname "$0")/../.."
bash scripts/gpu/run.sh --dry-run --out "$out/dry" > "$out/dry.log" 2>&1 || { cat "$out/dry.log"; exit 1; }
# The other runs take the tools the first one built (go run -exec cp, as a user's run does).
export ROPGEN_BIN=$out/dry/bin
bash scripts/gpu/run.sh --dry-run --out "$out/sample" --calibration scripts/gpu/testdata/calibrate.env > "$out/sample.log" 2>&1 ||
	{ cat "$out/sample.log"; exit 1; }
p=$out/sample/profile.yaml
for want in 'calibration: 0.8333  # best of 20 device copies' 'calibration: 0.7074  # best of 20: 7.0e14 (torch.matmul 8192^3 bf16' \
	'# not measured: sample: torch._scaled_mm failed' '# measured 7.1e13 (scripts/gpu/fma.cu: fmaf chains in registers): 1.0597 of the datasheet, above it' \
	'spread: {min: 3.8e12, median: 3.9e12, max: 4.0e12, n: 20}' 'driver: 0.0-sample'; do
	grep -qF -- "$want" "$p" || { echo "scripts/gpu/test.sh: $p has no line with: $want"; cat "$p"; exit 1; }
done
grep -qF 'fp32: 7.1e13 against the datasheet'"'"'s 67e12: 1.0597, ABOVE the datasheet' "$out/sample.log" ||
	{ echo "scripts/gpu/test.sh: the fp32 rate above the datasheet is not flagged"; cat "$out/sample.log"; exit 1; }
if bash scripts/gpu/run.sh --dry-run --out "$out/unknown" --device "NVIDIA NO SUCH GPU" > "$out/unknown.log" 2>&1 ||
	! grep -q 'no profile under perf/profiles has device "NVIDIA NO SUCH GPU"' "$out/unknown.log"; then
	echo "scripts/gpu/test.sh: an unknown device was not refused"; cat "$out/unknown.log"; exit 1
fi
echo "scripts/gpu/run.sh --dry-run: $(grep -c . "$out/dry/work.jsonl") GPU cases planned; the profile writer checked on placeholders and on a sample calibration"
