# ropgen. Needs only Go: every tool below is fetched through the Go module proxy.
GO ?= go
OUT ?= out
# The quick subset's small rows are timed cold and are latency- or cache-dominated. The chart
# and its report take memory-bound ops on their cpu-large rows (larger than the last-level
# cache, so they stream from DRAM and can earn a verdict) and GEMM on a compute-bound shape.
CHART_OPS ?= CopyFwd|ReluFwd|SiluFwd|AddFwd|SoftmaxFwd|RMSNormFwd|SumFwd|TransposeFwd|GemmFwd

.PHONY: run test generate check bench fuzz clean

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

# All tests: formatting, vet, the generated code is current, go test, and the ops package
# again with its SIMD kernels (GOEXPERIMENT=simd builds ops/*_vec.go instead of the scalar paths).
test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run ./cmd/ropgen generate -check
	$(GO) test ./...
	GOEXPERIMENT=simd $(GO) test ./ops

generate:
	$(GO) generate ./...

# Benchmarks named in the issues; compare runs with benchstat.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# A short fuzzing session per fuzz target.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzGate -fuzztime 30s ./gen
	$(GO) test -run '^$$' -fuzz FuzzLoad -fuzztime 30s ./manifest

clean:
	rm -rf $(OUT)
