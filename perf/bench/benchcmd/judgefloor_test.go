package benchcmd

import (
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
)

// TestJudgeFloor: -judge sizes by the floor make run gives (the history's) rather than the
// run's own, but never under a fifth of the run's own, nor under the profile's.
func TestJudgeFloor(t *testing.T) {
	prof := &profiles.Profile{LatencyFloor: 1e-6}
	start := func(f float64) []record.Record {
		return []record.Record{{Op: record.RefCopy, Seconds: 1}, {Op: record.RefFloor, Seconds: f}}
	}
	for _, c := range []struct {
		name       string
		run, given float64
		want       float64
	}{
		{"the run's own", 6e-6, 0, 6e-6},
		{"the profile's when larger", 0.5e-6, 0, 1e-6},
		{"the one given, below the run's", 6e-6, 4e-6, 4e-6},
		{"the one given, above the run's", 2e-6, 4e-6, 4e-6},
		{"a fifth of the run's when that is larger", 30e-6, 4e-6, 6e-6},
		{"the profile's over one given below it", 2e-6, 0.1e-6, 1e-6},
	} {
		if got := judgeFloor(prof, start(c.run), c.given); got != c.want {
			t.Errorf("%s: floor %g, want %g", c.name, got, c.want)
		}
	}
}
