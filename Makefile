# ropgen. Needs only Go: every tool below is fetched through the Go module proxy.
GO ?= go
OUT ?= out
# The quick subset's small rows are timed cold and are mostly latency-bound: they are the
# regression rows, counted apart in the summary. The rows that can earn a verdict are chosen
# from the host profile (ropbench run -judge): per op, the cpu-* row with the smallest tensors
# whose speed-of-light time there is at least 10x the run's latency floor. They are the
# summary's ranked table and the chart. They take 15 samples, not the default 5, and up to 120
# while the 80% line is inside a row's interval: their verdicts read a median, and on a
# shared machine a median moves by a few percent from run to run, so a row that close to the
# line needs more samples to settle on one side, or reads "at the line" (docs/bench.md).

.PHONY: run test example harness generate check asm-check bench compare fuzz clean

# The main job on this machine: regenerate, validate, calibrate the host when its profile is
# missing or from another boot, benchmark a quick subset of the catalog and the rows that can
# earn a verdict on the host
# (each run times a copy reference at its start and end), recalibrate and measure again once
# when that reference drifted off the profile, then print the short summary; the full tables,
# the HTML page, the chart and every log go under $(OUT)/. The run is added to the module's
# history (.ropgen/history.db), with its diff against the previous run of this device and the
# trend page $(OUT)/history.html. Exit 1 when a row breaches a theoretical ceiling
# (a formula error: docs/report.md, the physics check).
PROFILE = $(OUT)/host.yaml
BIN = $(OUT)/bin
# A calibration the machine was too busy for is refused (exit 3, no profile written: docs/
# profiles.md): it is tried once more, then the run stops, having priced nothing with it.
CALIBRATE = echo "calibrating $(PROFILE) (log: $(OUT)/calibrate.log)" >&2; \
	$(BIN)/ropgen calibrate -o $(PROFILE) 2> $(OUT)/calibrate.log; status=$$?; \
	if [ $$status -eq 3 ]; then sed -n '/refused (attempt/,$$p' $(OUT)/calibrate.log >&2; \
	  mv $(OUT)/calibrate.log $(OUT)/calibrate-refused.log; \
	  echo "calibrating again, once (load average $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null); the refused log: $(OUT)/calibrate-refused.log)" >&2; \
	  $(BIN)/ropgen calibrate -o $(PROFILE) 2> $(OUT)/calibrate.log; status=$$?; \
	  if [ $$status -eq 3 ]; then sed -n '/refused (attempt/,$$p' $(OUT)/calibrate.log >&2; \
	    echo "make run: the calibration was refused twice (reasons above; load average $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)): this machine is too busy to measure its ceilings now, and nothing was priced. Run make run again when it is quieter." >&2; exit 1; fi; fi; \
	if [ $$status -ne 0 ]; then cat $(OUT)/calibrate.log; exit 1; fi
BENCHMARK = echo "benchmarking (logs: $(OUT)/quick.log, $(OUT)/chart.log)" >&2; \
	$(BIN)/ropbench run -quick -o $(OUT)/quick.txt 2> $(OUT)/quick.log || { tail -5 $(OUT)/quick.log; exit 1; }; \
	$(BIN)/ropbench run -judge $(PROFILE) -samples 15 -max-samples 120 -o $(OUT)/chart.txt 2> $(OUT)/chart.log || { tail -5 $(OUT)/chart.log; exit 1; }
run: generate
	@mkdir -p $(BIN)
	@$(GO) build -o $(BIN)/ ./cmd/ropgen ./cmd/ropbench
	@$(BIN)/ropgen validate -v manifest > $(OUT)/validate.txt 2>&1 || { cat $(OUT)/validate.txt; exit 1; }
	@if test -s $(PROFILE) && $(BIN)/ropgen report -check -profile $(PROFILE) > $(OUT)/check.txt; then :; else \
	  cat $(OUT)/check.txt 2>/dev/null >&2; $(CALIBRATE); fi
	@$(BENCHMARK)
	@if ! $(BIN)/ropgen report -check -profile $(PROFILE) $(OUT)/quick.txt $(OUT)/chart.txt > $(OUT)/check.txt; then \
	  cat $(OUT)/check.txt >&2; $(CALIBRATE); $(BENCHMARK); fi
	@$(BIN)/ropgen report -profile $(PROFILE) -o $(OUT)/quick-report.txt $(OUT)/quick.txt 2> /dev/null || true
	@$(BIN)/ropgen report -profile $(PROFILE) -o $(OUT)/chart-report.txt -svg $(OUT)/roofline.svg $(OUT)/chart.txt 2> /dev/null || true
	@$(BIN)/ropgen report -profile $(PROFILE) -html $(OUT)/report.html $(OUT)/quick.txt $(OUT)/chart.txt > /dev/null 2>&1 || true
	@$(BIN)/ropgen history add -profile $(PROFILE) $(OUT)/quick.txt $(OUT)/chart.txt > /dev/null 2> $(OUT)/history.log || cat $(OUT)/history.log >&2
	@$(BIN)/ropgen history diff > $(OUT)/history-diff.txt 2>&1; cat $(OUT)/history-diff.txt
	@$(BIN)/ropgen history page -o $(OUT)/history.html > /dev/null || true
	@$(BIN)/ropgen report -summary -profile $(PROFILE) $(OUT)/quick.txt $(OUT)/chart.txt; status=$$?; \
	  echo "full tables: $(OUT)/quick-report.txt (regression rows), $(OUT)/chart-report.txt (ranked rows); HTML page: $(OUT)/report.html; chart: $(OUT)/roofline.svg; profile: $(PROFILE)"; \
	  echo "history: every run is kept in .ropgen/history.db (ropgen history runs); the diff above is against the previous run of this device ($(OUT)/history-diff.txt); trend page: $(OUT)/history.html"; exit $$status

# All tests: formatting, vet, staticcheck where it is installed (on PATH or in GOPATH/bin;
# skipped with a message otherwise), the generated code is current (roofline code and the SIMD
# assembly), go test of every package but docs and those scripts/test-ops-levels.sh runs at
# every SIMD level (ops, internal/asm/f32, internal/opsbench), every command example of the
# docs (go test -v ./docs, whose summary names each page's run and skipped blocks), the other
# architectures still build, the purego build (the Go loops, no assembly) vets and its
# kernel package's tests pass, and the tests of ops and of its kernel package
# (internal/asm/f32) once per SIMD level this machine runs, never from the test cache,
# with the count of tests each ran (scripts/test-ops-levels.sh:
# go, avx2 and avx512 on amd64; and the arm64 build's NEON kernels under qemu-user where
# qemu-aarch64-static is installed, skipped with a message otherwise). The history store's
# tests run against SQLite and a throwaway PostgreSQL server that scripts/with-postgres.sh
# starts where PostgreSQL is installed (skipped with a message otherwise). The go test runs here
# skip the vet checks go test adds (-vet=off): go vet ./... ran every one of them, and more.
test: asm-check
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	@sc=$$(command -v staticcheck || echo "$$($(GO) env GOPATH)/bin/staticcheck"); \
	  if [ -x "$$sc" ]; then echo "staticcheck ./..."; "$$sc" ./... || exit 1; \
	  else echo "staticcheck not installed: skipped (go install honnef.co/go/tools/cmd/staticcheck@latest)"; fi
	$(GO) run ./cmd/ropgen generate -check
	scripts/with-postgres.sh $(GO) test -vet=off $$($(GO) list ./... | grep -vE '^github.com/ropgen/ropgen/(docs|ops|internal/asm/f32|internal/opsbench)$$')
	@echo "$(GO) test -vet=off -v ./docs   # every example of README.md and docs/*.md (docs/docs_test.go)"
	@out=$$($(GO) test -vet=off -v ./docs 2>&1); status=$$?; \
	  printf '%s\n' "$$out" | grep -vE '^(=== (RUN|PAUSE|CONT|NAME)|\s*--- PASS)'; exit $$status
	GOARCH=arm64 $(GO) vet ./ops ./internal/asm/...
	$(GO) vet -tags purego ./... && $(GO) test -tags purego ./internal/asm/...
	@GO='$(GO)' scripts/test-ops-levels.sh
	$(MAKE) --no-print-directory example
	$(MAKE) --no-print-directory harness

# The outside module of examples/mykernels (its own go.mod, replace to this tree, its own
# tensor and dtype types): ropgen used as another module uses it (docs/using.md). Its
# generated code is current, it builds, vets and tests, and every workload of its manifests
# prices through its generated EvalRoofline.
example:
	@cd examples/mykernels && $(GO) mod tidy -diff >/dev/null || \
	  { echo "examples/mykernels/go.mod does not follow ropgen's requirements: run go generate ./..."; exit 1; }
	cd examples/mykernels && $(GO) tool ropgen generate -check && $(GO) build ./... && \
	  $(GO) vet ./... && $(GO) test -vet=off ./... && $(GO) run ./cmd/kbench eval

# Teams whose kernels run elsewhere (docs/using.md): the Python reference harness's round trip
# on the CPU (work list -> examples/pyharness/harness.py with numpy -> records -> ropgen
# report, every row priced; skipped with a message without numpy), and the one-shot GPU
# script's dry run (scripts/gpu/test.sh: run.sh's plan, inputs and profile writer, no GPU needed).
harness:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && GO=$(GO) sh examples/pyharness/roundtrip.sh $$tmp/py && \
	  bash scripts/gpu/test.sh $$tmp/gpu

# The checked-in internal/asm/f32/simd_amd64.s and its declarations are what
# internal/asm/asmgen (its own module, so that neither f32 nor ops depends on avo) writes
# now. The first line names the output paths, so it is left out of the comparison.
asm-check:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	  (cd internal/asm/asmgen && $(GO) run . -out $$tmp/simd_amd64.s -stubs $$tmp/simd_amd64_decl.go -pkg f32) && \
	  for f in simd_amd64.s simd_amd64_decl.go; do \
	    tail -n +2 $$tmp/$$f >$$tmp/want; tail -n +2 internal/asm/f32/$$f >$$tmp/have; \
	    if ! cmp -s $$tmp/want $$tmp/have; then \
	      echo "internal/asm/f32/$$f is stale: run go generate ./internal/asm/f32"; exit 1; fi; done

generate:
	$(GO) generate ./...

# Benchmarks named in the issues; compare runs with benchstat.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# The kernels against their peers, measured side by side in interleaved rounds: the C
# limits (FMA loop, read, copy) and numpy/OpenBLAS on the same shapes (cmd/ropcompare, rows
# in cmd/ropcompare/cases.go), and the calibration's compute roofs against C intrinsics loops
# (FMA, dpbf16, fmadd_ph, AMX where present). Optional peers: skipped with a message without numpy or cc.
compare:
	$(GO) run ./cmd/ropcompare $(COMPARE_FLAGS)

# A short fuzzing session per fuzz target.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzGate -fuzztime 30s ./gen
	$(GO) test -run '^$$' -fuzz FuzzExact -fuzztime 30s ./gen/roofrt
	$(GO) test -run '^$$' -fuzz FuzzLoad -fuzztime 30s ./manifest

clean:
	rm -rf $(OUT)
