# ropgen. Needs only Go: every tool below is fetched through the Go module proxy.
GO ?= go
OUT ?= out
# The quick subset's small rows are timed cold and are latency- or cache-dominated. The chart
# and its report take memory-bound ops on their cpu-large rows (larger than the last-level
# cache, so they stream from DRAM and can earn a verdict) and GEMM on a compute-bound shape.
CHART_OPS ?= CopyFwd|ReluFwd|SiluFwd|AddFwd|SoftmaxFwd|RMSNormFwd|SumFwd|TransposeFwd|GemmFwd

.PHONY: run test generate check asm-check bench compare fuzz clean

# The main job on this machine: regenerate, validate, calibrate the host (cached after the
# first run), benchmark a quick subset of the catalog, then print the SOL report and write
# the roofline chart.
run: generate
	$(GO) run ./cmd/ropgen validate -v manifest
	@mkdir -p $(OUT)
	@test -s $(OUT)/host.yaml || $(GO) run ./cmd/ropgen calibrate -o $(OUT)/host.yaml
	$(GO) run ./cmd/ropbench run -quick -o $(OUT)/quick.txt
	$(GO) run ./cmd/ropbench run -workload '^cpu-(large|256)$$' -op '$(CHART_OPS)' -samples 3 -max-time 300ms -o $(OUT)/chart.txt
	$(GO) run ./cmd/ropgen report -profile $(OUT)/host.yaml $(OUT)/quick.txt
	$(GO) run ./cmd/ropgen report -profile $(OUT)/host.yaml -svg $(OUT)/roofline.svg $(OUT)/chart.txt
	@echo "chart: $(OUT)/roofline.svg"

# All tests: formatting, vet, the generated code is current (roofline code and the SIMD
# assembly), go test, the ops package again on its Go loops only (ROPGEN_SIMD=go: the
# fallback of a CPU without AVX2), and the other architectures still build.
test: asm-check
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run ./cmd/ropgen generate -check
	$(GO) test ./...
	ROPGEN_SIMD=go $(GO) test ./ops
	GOARCH=arm64 $(GO) vet ./ops

# The checked-in ops/simd_amd64.s and its declarations are what ops/internal/asmgen (its own
# module, so that ops does not depend on avo) writes now. The first line names the output
# paths, so it is left out of the comparison.
asm-check:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	  (cd ops/internal/asmgen && $(GO) run . -out $$tmp/simd_amd64.s -stubs $$tmp/simd_amd64_decl.go -pkg ops) && \
	  for f in simd_amd64.s simd_amd64_decl.go; do \
	    tail -n +2 $$tmp/$$f >$$tmp/want; tail -n +2 ops/$$f >$$tmp/have; \
	    if ! cmp -s $$tmp/want $$tmp/have; then \
	      echo "ops/$$f is stale: run go generate ./ops"; exit 1; fi; done

generate:
	$(GO) generate ./...

# Benchmarks named in the issues; compare runs with benchstat.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# The kernels against their peers, measured side by side in interleaved rounds: the C
# limits (FMA loop, read, copy) and numpy/OpenBLAS on the same shapes (cmd/ropcompare, rows
# in cmd/ropcompare/cases.go). Optional peers: skipped with a message without numpy or cc.
compare:
	$(GO) run ./cmd/ropcompare $(COMPARE_FLAGS)

# A short fuzzing session per fuzz target.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzGate -fuzztime 30s ./gen
	$(GO) test -run '^$$' -fuzz FuzzLoad -fuzztime 30s ./manifest

clean:
	rm -rf $(OUT)
