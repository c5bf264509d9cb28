#!/usr/bin/env bash
# One shot on a machine with an NVIDIA GPU, nvcc, PyTorch and Nsight Compute (ncu), in under
# 8 minutes (each step has a time cap; the plan below says which):
#
#   1. calibrate: the HBM copy and the bf16, fp16 and fp8 Tensor Core peaks through PyTorch
#      (cuBLAS, compute-bound 8192^3 matmuls; scripts/gpu/calibrate.py), the fp32 FMA peak with
#      a small CUDA kernel (scripts/gpu/fma.cu, nvcc), each checked against the datasheet (the
#      builtin profile whose device is this GPU's name, perf/profiles/*.yaml);
#   2. write a profile YAML with the measured values (calibration = best / datasheet, and the
#      spread) and their provenance (date, device, driver, CUDA, PyTorch, command), and check it
#      with `ropgen roofline -ridge` (the profile schema and its rules);
#   3. time the catalog's GPU-sized workloads (every row not labelled cpu-*) with the Python
#      harness (examples/pyharness/harness.py: CUDA events, L2 flush, 10 samples), records out;
#   4. the Nsight Compute bytes audit (`ropgen audit`, docs/audit.md) of four cases;
#   5. print the priced report and the audit verdicts.
#
#   scripts/gpu/run.sh [--dry-run] [--out DIR] [--device NAME] [--calibration FILE]
#
# --dry-run needs no GPU and only bash and the Go tools: it prints the plan, checks every input
# (the scripts, the harness, the work list and the audited cases in it, the datasheet profile
# of --device, default "NVIDIA H200"), writes the profile from the datasheet figures with a
# placeholder calibration of 1 (so the writer and the schema are exercised), validates it, says
# which GPU tools are found, and exits 0 (make harness runs it). --calibration FILE takes the
# measurements from FILE (a calibrate.env an earlier run wrote under --out) instead of
# measuring: with --dry-run it rewrites a profile from a saved run, and make harness checks
# the writer on scripts/gpu/testdata/calibrate.env (a made-up sample, no device's figures). ROPGEN_BIN=DIR takes ropgen and
# ropbench from DIR instead of building them (a GPU machine without the Go module cache).
# Everything goes under --out (default out/gpu); nothing else is written.
set -euo pipefail

dry=0
out=out/gpu
device=""
calibration=""
cmdline="scripts/gpu/run.sh $*"
while [ $# -gt 0 ]; do
	case $1 in
	--dry-run) dry=1 ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	--device) device=${2:?--device needs a name}; shift ;;
	--calibration) calibration=${2:?--calibration needs a file}; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown argument $1 (usage: scripts/gpu/run.sh [--dry-run] [--out DIR] [--device NAME] [--calibration FILE])" >&2; exit 2 ;;
	esac
	shift
done

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
mkdir -p "$out"
start=$SECONDS
fail() { echo "run.sh: $*" >&2; exit 1; }
step() { printf '\n== %s (%ds elapsed)\n' "$*" $((SECONDS - start)); }

# The GPU-sized rows (labels not starting cpu-), the ops the harness has a reference for, and
# the audited cases: each moves ten times an H200's L2 or more, or writes almost nothing (the
# decode GEMM), so the output lines still dirty in L2 after the call (which ncu never counts)
# stay under the audit's 10% tolerance (docs/audit.md).
GPU_ROWS='^([^c]|c[^p]|cp[^u])'
HARNESS_OPS='CopyFwd|AddFwd|SubFwd|MulFwd|DivFwd|ReluFwd|SiluFwd|SigmoidFwd|TanhFwd|ExpFwd|GeluFwd|SoftmaxFwd|LogSoftmaxFwd|RMSNormFwd|LayerNormFwd|GemmFwd|BatchedGemmFwd|LinearFwd|SumFwd|MeanFwd|TransposeFwd'
AUDIT_CASES=(
	"MulFwd llama3-70b-prefill-8k-swiglu bfloat16"
	"SoftmaxFwd llama3-8b-prefill-2k-probs float32"
	"TanhFwd gemma2-9b-prefill-4k-softcap bfloat16"
	"GemmFwd llama3-8b-decode-oproj bfloat16"
)
# Time caps, seconds: the sum stays under 8 minutes with the build and the report.
CAP_CALIBRATE=150
CAP_HARNESS=150
CAP_AUDIT=120

step "plan"
cat <<EOF
  1. calibrate (cap ${CAP_CALIBRATE}s): HBM copy of 2 GiB; bf16, fp16, fp8 matmuls 8192^3 (cuBLAS via
     PyTorch); fp32 FMA kernel (nvcc scripts/gpu/fma.cu); each against the datasheet
  2. profile: $out/profile.yaml, checked with ropgen roofline -ridge
  3. harness (cap ${CAP_HARNESS}s): the GPU rows of the catalog (-workload '$GPU_ROWS') of the ops
     examples/pyharness knows -> $out/records.jsonl
  4. audit (cap ${CAP_AUDIT}s): ncu DRAM bytes of ${#AUDIT_CASES[@]} cases -> $out/audit.csv, ropgen audit
  5. report: ropgen report -profile $out/profile.yaml $out/records.jsonl; the audit verdicts
EOF

step "inputs"
for f in scripts/gpu/calibrate.py scripts/gpu/fma.cu examples/pyharness/harness.py; do
	[ -s "$f" ] || fail "missing $f"
done
if [ -n "${ROPGEN_BIN:-}" ]; then
	bin=$ROPGEN_BIN
else
	bin=$out/bin
	mkdir -p "$bin"
	# go run -exec cp: the go command keeps the executables go run links in its build cache
	# (go build does not), so another run of this script, make test's or the docs', links
	# neither again.
	for t in ropgen ropbench; do
		${GO:-go} run -exec cp ./cmd/$t "$bin/$t" || fail "go run -exec cp ./cmd/$t failed"
	done
fi
for t in ropgen ropbench; do [ -x "$bin/$t" ] || fail "no $bin/$t"; done
echo "  tools: $bin/ropgen, $bin/ropbench"
"$bin/ropbench" eval -json -workload "$GPU_ROWS" -op "$HARNESS_OPS" > "$out/work.jsonl" 2> "$out/eval.log" ||
	{ cat "$out/eval.log" >&2; fail "ropbench eval -json failed"; }
echo "  work list: $(grep -c . "$out/work.jsonl") GPU-sized cases -> $out/work.jsonl"
: > "$out/audit-work.jsonl"
for c in "${AUDIT_CASES[@]}"; do
	read -r op wl dt <<< "$c"
	line=$(grep -F "\"op\":\"$op\",\"workload\":\"$wl\",\"dtype\":\"$dt\"," "$out/work.jsonl" || true)
	[ -n "$line" ] || fail "audited case $op/$wl/$dt is not in the work list (a renamed workload?)"
	printf '%s\n' "$line" >> "$out/audit-work.jsonl"
done
echo "  audited cases: ${#AUDIT_CASES[@]}, each in the work list -> $out/audit-work.jsonl"

have() { command -v "$1" > /dev/null 2>&1; }
py=${PYTHON:-python3}
gpu_tools_ok=1
for t in nvidia-smi nvcc ncu "$py"; do
	if have "$t"; then echo "  found $t"; else echo "  missing $t"; gpu_tools_ok=0; fi
done
if have "$py"; then
	for f in examples/pyharness/harness.py scripts/gpu/calibrate.py; do
		"$py" -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f" || fail "$f does not parse"
	done
	echo "  $py parses examples/pyharness/harness.py and scripts/gpu/calibrate.py"
fi
if have "$py" && "$py" -c 'import torch' 2> /dev/null; then echo "  found PyTorch ($("$py" -c 'import torch; print(torch.__version__)'))"
else echo "  missing PyTorch for $py"; gpu_tools_ok=0; fi

if [ $dry = 0 ]; then
	[ $gpu_tools_ok = 1 ] || fail "a tool above is missing: this run needs nvidia-smi, nvcc, ncu and PyTorch (--dry-run checks without them)"
	"$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' || fail "PyTorch sees no CUDA device"
	[ -n "$device" ] || device=$("$py" -c 'import torch; print(torch.cuda.get_device_name(0))')
fi
[ -n "$device" ] || device="NVIDIA H200"

# The datasheet profile: the builtin one whose device field is this GPU's name.
datasheet=""
for f in perf/profiles/*.yaml; do
	if grep -qxF "device: \"$device\"" <(sed 's/ *#.*//' "$f"); then datasheet=$f; fi
done
[ -n "$datasheet" ] || fail "no profile under perf/profiles has device \"$device\": add one with the datasheet (theoretical) values first"
# theo SECTION KEY: the theoretical value of hbm (KEY "") or SECTION.KEY (cube bf16) in $datasheet.
theo() {
	awk -v sec="$1" -v key="$2" '
		/^[a-z_]+:/ { top = $1; sub(":", "", top); sub2 = ""; next }
		/^  [a-z0-9_]+:/ { sub2 = $1; sub(":", "", sub2) }
		$1 == "theoretical:" && top == sec && ((key == "" && sub2 == "theoretical") || sub2 == key || (key == "" && sub2 == "")) { print $2; exit }
	' "$datasheet"
}
declare -A THEO
for k in hbm: cube:bf16 cube:fp16 cube:fp8 cube:tf32 cube:fp64 vector:fp32 vector:fp64; do
	THEO[$k]=$(theo "${k%%:*}" "${k#*:}")
done
for k in hbm: cube:bf16 cube:fp16 cube:fp8 vector:fp32; do
	[ -n "${THEO[$k]}" ] || fail "$datasheet has no theoretical value for ${k%:}"
done
echo "  datasheet: $datasheet (hbm ${THEO[hbm:]} B/s, bf16 ${THEO[cube:bf16]}, fp16 ${THEO[cube:fp16]}, fp8 ${THEO[cube:fp8]}, fp32 ${THEO[vector:fp32]} FLOP/s)"

# ---- 1. calibrate ----------------------------------------------------------------------------
if [ -n "$calibration" ]; then
	step "1. calibrate: the measurements of $calibration"
	[ -s "$calibration" ] || fail "--calibration $calibration: no such file, or empty"
	# shellcheck disable=SC1090
	. "$calibration"
	for k in hbm bf16 fp16 fp8 fp32; do
		s=${k}_skip mx=${k}_max
		[ -n "${!s:-}" ] || [ -n "${!mx:-}" ] || fail "--calibration $calibration: no ${k}_max (nor ${k}_skip)"
	done
elif [ $dry = 1 ]; then
	step "1. calibrate: dry run, datasheet figures stand in for the measurements (calibration 1)"
	driver_version="(dry run)" cuda_version="(dry run)" torch_version="(dry run)"
	for m in hbm:hbm: bf16:cube:bf16 fp16:cube:fp16 fp8:cube:fp8 fp32:vector:fp32; do
		v=${THEO[${m#*:}]}
		printf -v "${m%%:*}_min" %s "$v"; printf -v "${m%%:*}_median" %s "$v"; printf -v "${m%%:*}_max" %s "$v"
		printf -v "${m%%:*}_n" %s 1
	done
	if have nvcc; then
		nvcc -O3 -o "$out/fma" scripts/gpu/fma.cu && echo "  nvcc compiled scripts/gpu/fma.cu" || fail "nvcc cannot compile scripts/gpu/fma.cu"
	else
		echo "  nvcc not found: scripts/gpu/fma.cu not compiled"
	fi
else
	step "1. calibrate"
	timeout $CAP_CALIBRATE "$py" scripts/gpu/calibrate.py > "$out/calibrate.env" || fail "calibrate.py failed (or ran past ${CAP_CALIBRATE}s)"
	nvcc -O3 -arch=native -o "$out/fma" scripts/gpu/fma.cu || fail "nvcc cannot compile scripts/gpu/fma.cu"
	timeout 60 "$out/fma" >> "$out/calibrate.env" || fail "the fp32 FMA kernel failed"
	# shellcheck disable=SC1091
	. "$out/calibrate.env"
	cat "$out/calibrate.env" | sed 's/^/  /'
fi

# ratio MEASURED THEORETICAL: measured / theoretical, 4 digits.
ratio() { awk -v m="$1" -v t="$2" 'BEGIN { printf "%.4f", m / t }'; }
verdict() {
	awk -v r="$1" 'BEGIN {
		if (r > 1.0) print "ABOVE the datasheet: not written as a calibration (a boost clock, or a wrong datasheet figure)";
		else if (r < 0.5) print "under half the datasheet: throttled, another job, or too small a size; check before trusting it";
		else print "ok" }'
}

# ---- 2. the profile ----------------------------------------------------------------------------
step "2. profile $out/profile.yaml"
prof=$out/profile.yaml
ceiling() { # INDENT NAME THEORETICAL KEY(measured prefix) COMMENT
	local ind=$1 name=$2 t=$3 m=$4 what=$5
	printf '%s%s:\n%s  theoretical: %s  # from %s\n' "$ind" "$name" "$ind" "$t" "$datasheet"
	if [ -z "$m" ]; then printf '%s  # not measured\n' "$ind"; return; fi
	local skip=${m}_skip
	if [ -n "${!skip:-}" ]; then printf '%s  # not measured: %s\n' "$ind" "${!skip}"; return; fi
	local mx=${m}_max md=${m}_median mn=${m}_min n=${m}_n
	local r; r=$(ratio "${!mx}" "$t")
	if awk -v r="$r" 'BEGIN { exit !(r > 1.0) }'; then
		printf '%s  # measured %s (%s): %s of the datasheet, above it, so no calibration is written\n' "$ind" "${!mx}" "$what" "$r"
		return
	fi
	printf '%s  calibration: %s  # best of %s: %s (%s)\n' "$ind" "$r" "${!n}" "${!mx}" "$what"
	printf '%s  spread: {min: %s, median: %s, max: %s, n: %s}\n' "$ind" "${!mn}" "${!md}" "${!mx}" "${!n}"
}
{
	echo "# yaml-language-server: \$schema=../../perf/profiles/profile.schema.json"
	if [ -n "$calibration" ]; then echo "# $device, measured by scripts/gpu/run.sh (the measurements of $calibration)"
	elif [ $dry = 1 ]; then echo "# $device: scripts/gpu/run.sh --dry-run: NOT MEASURED, datasheet figures as placeholders"
	else echo "# $device, measured by scripts/gpu/run.sh"; fi
	echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); driver: ${driver_version:-?}; CUDA: ${cuda_version:-?}; PyTorch: ${torch_version:-?}"
	echo "# command: $cmdline"
	echo "# theoretical values: $datasheet (data sheet); calibration = the best repetition / theoretical."
	echo "device: \"$device\""
	echo "measured:"
	echo "  at: \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\""
	echo "hbm:"
	echo "  theoretical: ${THEO[hbm:]}  # from $datasheet"
	r=$(ratio "$hbm_max" "${THEO[hbm:]}")
	if awk -v r="$r" 'BEGIN { exit !(r > 1.0) }'; then
		echo "  # measured copy $hbm_max B/s: above the datasheet, so no calibration is written"
	else
		echo "  calibration: $r  # best of $hbm_n device copies of 2 GiB (read + write): $hbm_max B/s"
		echo "  spread: {min: $hbm_min, median: $hbm_median, max: $hbm_max, n: $hbm_n}"
		echo "  calibration_mixes:"
		echo "    copy: $r"
	fi
	echo "cube:"
	ceiling "  " bf16 "${THEO[cube:bf16]}" bf16 "torch.matmul 8192^3 bf16, cuBLAS"
	ceiling "  " fp16 "${THEO[cube:fp16]}" fp16 "torch.matmul 8192^3 fp16, cuBLAS"
	ceiling "  " fp8 "${THEO[cube:fp8]}" fp8 "torch._scaled_mm 8192^3 float8_e4m3fn, cuBLASLt"
	[ -z "${THEO[cube:tf32]}" ] || ceiling "  " tf32 "${THEO[cube:tf32]}" "" ""
	[ -z "${THEO[cube:fp64]}" ] || ceiling "  " fp64 "${THEO[cube:fp64]}" "" ""
	echo "vector:"
	ceiling "  " fp32 "${THEO[vector:fp32]}" fp32 "scripts/gpu/fma.cu: fmaf chains in registers"
	[ -z "${THEO[vector:fp64]}" ] || ceiling "  " fp64 "${THEO[vector:fp64]}" "" ""
} > "$prof"
"$bin/ropgen" roofline -ridge -profile "$prof" > "$out/ridge.txt" 2>&1 || { cat "$out/ridge.txt" >&2; fail "$prof does not validate"; }
sed 's/^/  /' "$out/ridge.txt"
for m in hbm:hbm: bf16:cube:bf16 fp16:cube:fp16 fp8:cube:fp8 fp32:vector:fp32; do
	key=${m%%:*} skip=${m%%:*}_skip mx=${m%%:*}_max
	if [ -n "${!skip:-}" ]; then echo "  $key: not measured (${!skip})"; continue; fi
	r=$(ratio "${!mx}" "${THEO[${m#*:}]}")
	echo "  $key: ${!mx} against the datasheet's ${THEO[${m#*:}]}: $r, $(verdict "$r")"
done

if [ $dry = 1 ]; then
	step "dry run done: the plan, the inputs and the profile writer check out; steps 3-5 need the GPU"
	exit 0
fi

# ---- 3. the harness ----------------------------------------------------------------------------
step "3. harness on the GPU rows"
timeout $CAP_HARNESS "$py" examples/pyharness/harness.py --backend torch -i "$out/work.jsonl" -o "$out/records.jsonl" \
	--device "$device" 2> "$out/harness.log" || { tail -20 "$out/harness.log" >&2; fail "the harness failed (or ran past ${CAP_HARNESS}s)"; }
tail -1 "$out/harness.log" | sed 's/^/  /'

# ---- 4. the audit ------------------------------------------------------------------------------
step "4. Nsight Compute bytes audit"
include=()
: > "$out/audit-records.jsonl"
for c in "${AUDIT_CASES[@]}"; do
	read -r op wl dt <<< "$c"
	include+=(--nvtx-include "$op:$wl:$dt/")
	grep -F "\"op\": \"$op\", \"workload\": \"$wl\", \"dtype\": \"$dt\"," "$out/records.jsonl" >> "$out/audit-records.jsonl" ||
		fail "no record of the audited case $op/$wl/$dt (see $out/harness.log)"
done
timeout $CAP_AUDIT ncu --nvtx "${include[@]}" --print-nvtx-rename kernel --cache-control all --clock-control base \
	--metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --page raw --print-units base --log-file "$out/audit.csv" \
	"$py" examples/pyharness/harness.py --backend torch --audit -i "$out/audit-work.jsonl" > "$out/ncu.log" 2>&1 ||
	{ tail -20 "$out/ncu.log" >&2; fail "ncu failed (or ran past ${CAP_AUDIT}s)"; }

# ---- 5. the report -----------------------------------------------------------------------------
step "5. the priced report ($out/report.txt) and the audit ($out/audit.txt)"
"$bin/ropgen" report -profile "$prof" "$out/records.jsonl" > "$out/report.txt" 2>&1 || true
cat "$out/report.txt"
status=0
# The work list gives every tensor's shape, so the footprint that tells an undercount from a
# kernel's own traffic is whole for the elementwise outputs the manifest rows do not state.
"$bin/ropgen" audit -records "$out/audit-records.jsonl" -ncu "$out/audit.csv" -work "$out/audit-work.jsonl" > "$out/audit.txt" 2>&1 || status=$?
cat "$out/audit.txt"
step "done: profile $prof, records $out/records.jsonl, audit $out/audit.txt"
exit $status
