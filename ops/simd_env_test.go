package ops

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestMain runs no test when ROPGEN_SIMD names a level of this architecture that the CPU
// lacks: the kernels would run at the CPU's best, which its own run tests, so make test's
// loop over the levels says so and moves on instead of testing the best level twice.
func TestMain(m *testing.M) {
	if v := os.Getenv("ROPGEN_SIMD"); v != "" {
		if l, ok := simdNames[v]; ok && l > cpuSIMD {
			fmt.Printf("ROPGEN_SIMD=%s: this CPU's best level is %s, so no test runs at %s\n", v, simdName(cpuSIMD), v)
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

// TestSIMDEnv checks that the level in use is the one ROPGEN_SIMD asks for. simdLevel() reads
// the variable while the package initializes, before the go command's test log records the
// variables a test reads; reading it here, through os.Getenv, is what makes the test cache
// key a run on its value (TestSIMDEnvNotCached), so that `ROPGEN_SIMD=go go test ./ops` is a
// run of the Go loops, not the cached result of the default level's run.
func TestSIMDEnv(t *testing.T) {
	v := os.Getenv("ROPGEN_SIMD")
	now, best := SIMD()
	if _, ok := simdNames[v]; v != "" && !ok {
		names := make([]string, 0, len(simdNames))
		for n := range simdNames {
			names = append(names, n)
		}
		slices.Sort(names)
		t.Fatalf("ROPGEN_SIMD=%q is not a level of %s (%s): the tests would run at the CPU's best level", v, runtime.GOARCH, strings.Join(names, ", "))
	}
	if want := envSIMD(v); now != want {
		t.Fatalf("ROPGEN_SIMD=%q: the tests run at level %s, want %s", v, simdName(now), simdName(want))
	}
	t.Logf("ROPGEN_SIMD=%q: the tests run at level %s (the CPU's best: %s)", v, simdName(now), simdName(best))
}

// TestSIMDEnvNotCached runs TestSIMDEnv through go test twice, with ROPGEN_SIMD set to two
// levels, under a -run pattern no run has used before (so neither can come from an older
// run), and fails if the second run is served from the test cache: the result of one level
// standing for another's. A third run, the first one again, must come from the cache, or the
// cache is off (GOFLAGS=-count=1, GOCACHE=off) and the test cannot tell: it skips. It builds
// the test binary twice, so it runs once per make test: at the CPU's best level, which make
// test's loop over the levels runs once, and natively only.
func TestSIMDEnvNotCached(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test twice")
	}
	now, best := SIMD()
	if now != best {
		t.Skipf("runs at the CPU's best level only (%s), not at %s: once per make test", simdName(best), simdName(now))
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	host, err := exec.Command(gobin, "env", "GOHOSTARCH").Output()
	if err != nil {
		t.Fatalf("go env GOHOSTARCH: %v", err)
	}
	if h := strings.TrimSpace(string(host)); h != runtime.GOARCH {
		t.Skipf("this %s test binary runs on a %s host, under an emulator: the native run checks the cache", runtime.GOARCH, h)
	}
	nonce := make([]byte, 8)
	if _, err := rand.Read(nonce); err != nil {
		t.Fatal(err)
	}
	// TestSIMDEnv fails on a name that is not a level, so both values are levels' names.
	a, b := "go", simdName(best)
	if a == b {
		b = "" // no SIMD level here: the unset variable is the other run
	}
	pattern := "^(TestSIMDEnv|TestNoSuchTest" + hex.EncodeToString(nonce) + ")$"
	run := func(level string) string {
		t.Helper()
		cmd := exec.Command(gobin, "test", "-run", pattern, ".")
		env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "ROPGEN_SIMD=") })
		cmd.Env = append(env, "ROPGEN_SIMD="+level)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("ROPGEN_SIMD=%s go test -run %q .: %v\n%s", level, pattern, err, out)
		}
		return string(out)
	}
	if out := run(a); strings.Contains(out, "(cached)") {
		t.Fatalf("ROPGEN_SIMD=%s go test -run %q: cached on its first run:\n%s", a, pattern, out)
	}
	second := run(b)
	if !strings.Contains(run(a), "(cached)") {
		t.Skipf("the test cache is off (GOFLAGS=%q): a run cannot come from it", os.Getenv("GOFLAGS"))
	}
	if strings.Contains(second, "(cached)") {
		t.Fatalf("ROPGEN_SIMD=%q go test ./ops came from the cache of the ROPGEN_SIMD=%q run: the cache does not key on the level\n%s", b, a, second)
	}
}
