package report

import (
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

// Records of two implementations of one case are two rows, never one median of both; a
// record without impl is ropgen's own and pools with ropgen's.
func TestGroupNeverPoolsImplementations(t *testing.T) {
	mk := func(impl string, secs float64) record.Record {
		r := reporttest.Rec("vector.fp32", 0, 1<<20, secs)
		r.Impl = impl
		return r
	}
	recs := []record.Record{mk("", 1e-3), mk("torch", 9e-3), mk("ropgen", 2e-3), mk("torch", 8e-3), mk("ropgen", 3e-3)}
	rows := Group(recs)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2 (ropgen, torch)", len(rows))
	}
	if rows[0].ImplName() != "ropgen" || len(rows[0].Samples) != 3 || rows[0].Seconds != 2e-3 {
		t.Errorf("ropgen row: %s, %v, median %v; want its 3 samples, median 2ms", rows[0].ImplName(), rows[0].Samples, rows[0].Seconds)
	}
	if rows[1].ImplName() != "torch" || len(rows[1].Samples) != 2 || rows[1].Seconds != 8.5e-3 {
		t.Errorf("torch row: %s, %v, median %v; want its 2 samples, median 8.5ms", rows[1].ImplName(), rows[1].Samples, rows[1].Seconds)
	}
}

// A harness's ref.floor prices its own rows only: ropgen's rows keep the profile's floor.
func TestFloorIsPerImplementation(t *testing.T) {
	const torchFloor = 40 * reporttest.Floor
	// SOL time 2^-19 s: above the profile's floor (2^-20), below torch's.
	mk := func(impl, op string, secs float64) record.Record {
		r := reporttest.Rec("vector.fp32", 0, 1<<20, secs)
		r.Impl, r.Op = impl, op
		return r
	}
	recs := []record.Record{
		mk("torch", record.RefFloor, torchFloor),
		mk("torch", "Op", 1e-3),
		mk("", "Op", 1e-3),
	}
	p := NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	rows := p.PriceAll(recs)
	if rows[0].Verdict != LatencyBound || rows[0].Floor != torchFloor {
		t.Errorf("torch row: %s on floor %v, want latency-bound on its own floor %v", rows[0].Verdict, rows[0].Floor, torchFloor)
	}
	if rows[1].Verdict == LatencyBound || rows[1].Floor != reporttest.Floor {
		t.Errorf("ropgen row: %s on floor %v, want priced on the profile's floor %v", rows[1].Verdict, rows[1].Floor, reporttest.Floor)
	}
	if f, ok := p.Floor("Test Device", "numpy"); !ok || f != reporttest.Floor {
		t.Errorf("numpy's floor %v %v, want the profile's", f, ok)
	}
}
