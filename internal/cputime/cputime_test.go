package cputime

import (
	"testing"
	"time"
)

// TestProcessAdvances: spinning for 50 ms of wall time uses CPU time that Process sees.
func TestProcessAdvances(t *testing.T) {
	before := Process()
	if before == 0 {
		t.Skip("no CPU time on this platform")
	}
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
	}
	if d := Process() - before; d <= 0 {
		t.Errorf("50 ms of spinning used %v of CPU time", d)
	}
}
