package opsbench

import (
	"os"
	"testing"

	"github.com/ropgen/ropgen/ops"
)

// TestSIMDLevel logs the kernels' SIMD level. It reads ROPGEN_SIMD, which package ops reads
// while it initializes, before the go command's test log records the variables a test
// reads: reading it in a test keys the test cache on it, so that `ROPGEN_SIMD=go go test
// ./internal/opsbench` checks the Go loops instead of replaying another level's result.
func TestSIMDLevel(t *testing.T) {
	now, best := ops.SIMD()
	t.Logf("ROPGEN_SIMD=%q: SIMD level %d (the CPU's best: %d)", os.Getenv("ROPGEN_SIMD"), now, best)
}
