package simd

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs no test when ROPGEN_SIMD names a level of this architecture that the CPU
// lacks: the kernels would run at the CPU's best, which its own run tests (as ops' TestMain;
// scripts/test-ops-levels.sh runs both packages once per level).
func TestMain(m *testing.M) {
	if v := os.Getenv("ROPGEN_SIMD"); v != "" {
		if l, ok := names[v]; ok && l > best {
			fmt.Printf("ROPGEN_SIMD=%s: this CPU's best level is %s, so no test runs at %s\n", v, Name(best), v)
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

// TestLevels checks the level's bounds and names: SetLevel caps at the CPU's best and
// restores, EnvLevel reads this architecture's names and takes the best for any other.
func TestLevels(t *testing.T) {
	if got := EnvLevel(os.Getenv("ROPGEN_SIMD")); Level() != got {
		t.Fatalf("level %d, want %d (ROPGEN_SIMD=%q)", Level(), got, os.Getenv("ROPGEN_SIMD"))
	}
	now := Level()
	restore := SetLevel(0)
	if Level() != Go {
		t.Errorf("SetLevel(0): level %d, want Go", Level())
	}
	SetLevel(AVX512 + 1)
	if Level() != Best() {
		t.Errorf("SetLevel(above the best): level %d, want %d", Level(), Best())
	}
	restore()
	if Level() != now {
		t.Errorf("restore: level %d, want %d", Level(), now)
	}
	for name, l := range Names() {
		if Name(l) != name {
			t.Errorf("Name(%d) = %q, want %q", l, Name(l), name)
		}
		if got := EnvLevel(name); got != min(l, Best()) {
			t.Errorf("EnvLevel(%q) = %d, want %d", name, got, min(l, Best()))
		}
	}
	for _, v := range []string{"", "sse9"} {
		if got := EnvLevel(v); got != Best() {
			t.Errorf("EnvLevel(%q) = %d, want the best, %d", v, got, Best())
		}
	}
}
