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

# The main job on this machine: regenerate, validate, then scripts/run.sh: calibrate the host
# when its profile is missing or from another boot, benchmark a quick subset of the catalog and
# the rows that can earn a verdict on the host (each run times a copy reference at its start
# and end, and beside every cold sample a compute probe and, for DRAM-sized rows, a same-time
# memory reference), recalibrate and measure again once when that copy reference drifted off
# the profile, then print the short summary; the full tables, the HTML page, the chart and
# every log go under $(OUT)/. A calibration the machine is too busy for is refused, tried once
# more, and then the run goes on against the earlier profile ($(OUT)/host.yaml, else the
# history's last quiet one of this boot), or without one against the refused measurement
# ($(OUT)/host-loaded.yaml, never $(OUT)/host.yaml), saying so: its
# verdicts come from the references timed beside the rows, "inconclusive" elsewhere. The run
# is added to the module's history (.ropgen/history.db), with its diff against the previous
# run of this device and the trend page $(OUT)/history.html. Exit 1 when a row breaches a
# theoretical ceiling or its same-time line (a formula error: docs/report.md, the physics
# check).
BIN = $(OUT)/bin
run: generate
	@mkdir -p $(BIN)
	@$(GO) build -o $(BIN)/ ./cmd/ropgen ./cmd/ropbench
	@$(BIN)/ropgen validate -v manifest > $(OUT)/validate.txt 2>&1 || { cat $(OUT)/validate.txt; exit 1; }
	@OUT='$(OUT)' scripts/run.sh

# All tests: formatting, vet, staticcheck where it is installed (on PATH or in GOPATH/bin;
# skipped with a message otherwise), the generated code is current (roofline code and the SIMD
# assembly), go test of every package but docs and those scripts/test-ops-levels.sh runs at
# every SIMD level (ops, internal/stream, internal/opsbench), every command example of the
# docs (go test -v ./docs, whose summary names each page's run and skipped blocks), the other
# architectures still build, the purego build (the Go loops, no assembly) vets where it
# differs and its kernel packages' tests pass, and the tests of ops and of its streaming kernels
# (internal/stream) once per SIMD level this machine runs, never from the test cache,
# with the count of tests each ran (scripts/test-ops-levels.sh:
# go, avx2 and avx512 on amd64; and the arm64 build's NEON kernels under qemu-user where
# qemu-aarch64-static is installed, skipped with a message otherwise), and make run's flow on a
# busy machine with stand-ins for the commands (scripts/run-test.sh), and the argument checks
# of the history acceptance script (scripts/history-acceptance-test.sh). The history store's
# tests run against SQLite and a throwaway PostgreSQL server that scripts/with-postgres.sh
# starts where PostgreSQL is installed (skipped with a message otherwise). The go test runs here
# skip the vet checks go test adds (-vet=off): go vet ./... ran every one of them, and more.
# The module graph (go mod download all: what go vet ./... and docs/docs_test.go fetch) is
# fetched while go vet ./... compiles: the network and the compiler overlap. After go vet
# ./... has compiled every dependency, the standard library's packages asm-check's generator
# needs among them (run beside it, the two compiled them twice), and ropgen generate -check
# has linked ropgen (the executable the later go runs of ./cmd/ropgen take from the build
# cache), the other checks share nothing that is still to be built, and much of their time
# is one process linking, a test waiting or a script running one command: they run side by side
# (TEST_JOBS at once), each one's output printed in one piece when it ends (--output-sync),
# and make test fails when any of them fails.
TEST_JOBS ?= 3
# make test's go commands and the tests they run collect garbage at 400% heap growth instead
# of 100%: most of make test is the compiler, which then spends less time in the collector
# (the machine has the memory), and no test depends on when the collector runs.
TEST_GOGC ?= 400
test: export GOGC = $(TEST_GOGC)
TEST_STEPS = test-purego test-docs test-go test-arm64 test-ops-levels asm-check test-staticcheck example harness test-scripts
test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	@echo "$(GO) vet ./...   # beside go mod download all"
	@$(GO) mod download all & dl=$$!; $(GO) vet ./...; status=$$?; \
	  wait $$dl || { echo "go mod download all failed"; exit 1; }; exit $$status
	$(GO) run ./cmd/ropgen generate -check
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target $(TEST_STEPS)

# make test's steps after go vet (make test runs them side by side).
.PHONY: $(TEST_STEPS)
test-staticcheck:
	@sc=$$(command -v staticcheck || echo "$$($(GO) env GOPATH)/bin/staticcheck"); \
	  if [ -x "$$sc" ]; then echo "staticcheck ./..."; "$$sc" ./... || exit 1; \
	  else echo "staticcheck not installed: skipped (go install honnef.co/go/tools/cmd/staticcheck@latest)"; fi
test-go:
	scripts/with-postgres.sh $(GO) test -vet=off $$($(GO) list ./... | grep -vE '^github.com/ropgen/ropgen/(docs|ops|internal/stream|internal/opsbench)$$')
test-docs:
	@echo "$(GO) test -vet=off -v ./docs   # every example of README.md and docs/*.md (docs/docs_test.go)"
	@out=$$($(GO) test -vet=off -v ./docs 2>&1); status=$$?; \
	  printf '%s\n' "$$out" | grep -vE '^(=== (RUN|PAUSE|CONT|NAME)|\s*--- PASS)'; exit $$status
# vet reads the packages' types, which compiling without optimization leaves the same: the
# standard library, compiled again for arm64, compiles faster so.
test-arm64:
	GOARCH=arm64 $(GO) vet -gcflags='all=-N -l' ./ops ./internal/asm/... ./internal/simd ./internal/stream
# The purego build vets the packages it can change (scripts/purego-packages.sh: those with
# purego files and their importers; every other package type-checks the same under both
# builds, and vetting it again would compile the standard library's crypto, modernc.org/sqlite,
# libc and pgx a second time for nothing), and its kernel packages' tests pass.
test-purego:
	@pkgs=$$(GO='$(GO)' scripts/purego-packages.sh) || exit 1; \
	  echo "$(GO) vet -tags purego $$(echo $$pkgs | sed 's,github.com/ropgen/ropgen/,./,g')"; \
	  $(GO) vet -tags purego $$pkgs && \
	  $(GO) test -vet=off -tags purego ./internal/asm/... ./internal/simd ./internal/stream
test-ops-levels:
	@GO='$(GO)' scripts/test-ops-levels.sh
test-scripts:
	@scripts/run-test.sh
	@scripts/history-acceptance-test.sh

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
# on the CPU (work list -> examples/pyharness/harness.py with numpy, then with PyTorch on the
# CPU -> records -> ropgen report, every row priced, both runs in one report never pooled;
# each skipped with a message without numpy or PyTorch), and the one-shot GPU
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
