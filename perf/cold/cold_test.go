package cold_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ropgen/ropgen/perf/cold"
)

// TestSample: a sample evicts first, then times the call, and the eviction is not timed.
func TestSample(t *testing.T) {
	var order []string
	_, err := cold.Sample(func() error { order = append(order, "call"); return nil }, func() { order = append(order, "evict") })
	if err != nil || strings.Join(order, " ") != "evict call" {
		t.Errorf("Sample: %v, err %v; want one eviction, then the call", order, err)
	}
	// An eviction of 50 ms before an empty call leaves a sample far below it.
	secs, err := cold.Sample(func() error { return nil }, func() { time.Sleep(50 * time.Millisecond) })
	if err != nil || secs >= 0.025 {
		t.Errorf("Sample with a 50 ms eviction: %v s, err %v; the eviction was timed", secs, err)
	}
	// A call that takes 20 ms is timed at 20 ms or more.
	secs, _ = cold.Sample(func() error { time.Sleep(20 * time.Millisecond); return nil }, func() {})
	if secs < 0.02 {
		t.Errorf("Sample of a 20 ms call: %v s", secs)
	}
}

// TestFlush: Flush keeps the data (odd sizes and offsets included) and works on the
// architectures that flush by address; Before with no buffers is the read alone.
func TestFlush(t *testing.T) {
	data := make([]byte, 3<<20+17)
	for i := range data {
		data[i] = byte(i)
	}
	bufs := [][]byte{data[5:], data[:1], nil}
	ev := cold.NewEvictor(1 << 20)
	if ev.Size() != 1<<20 {
		t.Errorf("Size %d", ev.Size())
	}
	ev.Before(bufs)()
	if !cold.Flush(bufs) && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") {
		t.Errorf("no flush on %s", runtime.GOARCH)
	}
	for i := range data {
		if data[i] != byte(i) {
			t.Fatalf("byte %d changed by the flush", i)
		}
	}
	if ev.Before(nil) == nil {
		t.Error("no eviction without buffers")
	}
}
