package report

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

func TestGroup(t *testing.T) {
	a := reporttest.Rec("vector.fp32", 1, 64, 3e-6)
	b, c := a, a
	b.Seconds, c.Seconds = 1e-6, 2e-6
	other := a
	other.Bytes = 128 // changed counts: another row, never averaged in
	gs := Group([]record.Record{a, other, b, c})
	if len(gs) != 2 {
		t.Fatalf("%d rows, want 2", len(gs))
	}
	g := gs[0]
	if g.Seconds != 2e-6 || len(g.Samples) != 3 || g.Samples[0] != 3e-6 || gs[1].Bytes != 128 {
		t.Errorf("row: median %v samples %v; second row bytes %d", g.Seconds, g.Samples, gs[1].Bytes)
	}
	if lo, hi := g.Range(); lo != 1e-6 || hi != 3e-6 || math.Abs(g.RelSpread()-1) > 1e-12 {
		t.Errorf("range %v..%v rel %v", lo, hi, g.RelSpread())
	}
	even := Group([]record.Record{a, b})[0]
	if even.Seconds != 2e-6 {
		t.Errorf("median of two %v, want their mean", even.Seconds)
	}
}

func TestShortDType(t *testing.T) {
	for in, want := range map[string]string{
		"bfloat16":                               "bfloat16",
		"q=bfloat16,k=float8_e4m3,v=float8_e4m3": "q=bf16,k=f8e4m3,v=f8e4m3",
		"point=int32,x=float32":                  "point=i32,x=f32",
	} {
		if got := ShortDType(in); got != want {
			t.Errorf("ShortDType(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ShortName("AttnFwd/decode/q=float16,k=float8_e5m2"); got != "AttnFwd/decode/q=f16,k=f8e5m2" {
		t.Errorf("ShortName: %q", got)
	}
}

// TestPriceRunSetsReferencesAside: reference records price no row, so the rows and the
// sampled rows stay index for index (Compare and Document rely on it).
func TestPriceRunSetsReferencesAside(t *testing.T) {
	ref := reporttest.Rec("vector.fp32", 0, 1<<20, 1e-4)
	ref.Op, ref.Workload = record.RefCopy, "start"
	a := reporttest.Rec("vector.fp32", 1<<20, 1<<30, 1e-3)
	b := a
	b.Op = "B"
	p := NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	s, rows := PriceRun(p, []record.Record{ref, a, b, a, ref})
	if len(s) != 2 || len(rows) != 2 || rows[1].Rec != &s[1].Record || s[0].Op != "Op" || len(s[0].Samples) != 2 {
		t.Fatalf("%d sampled, %d rows: %+v", len(s), len(rows), s)
	}
}

// TestGroupZeroTime: a record of 0 s (no measured time) is no sample of its row. Taken as
// one, it halved a row's median and made its fastest sample 0 s, a formula error by an
// infinite rate.
func TestGroupZeroTime(t *testing.T) {
	zero := reporttest.Rec("vector.fp32", 1, 1<<30, 0)
	timed := reporttest.Rec("vector.fp32", 1, 1<<30, 4e-3)
	timed.MinSeconds, timed.MaxSeconds, timed.RefRate = 3e-3, 5e-3, 2e9
	for _, recs := range [][]record.Record{{timed, zero}, {zero, timed}, {zero, timed, zero}} {
		gs := Group(recs)
		if len(gs) != 1 {
			t.Fatalf("%d rows, want 1", len(gs))
		}
		g := gs[0]
		if g.Seconds != 4e-3 || len(g.Samples) != 1 || g.RefRate != 2e9 {
			t.Errorf("median %v samples %v ref %v; want the timed record's 4ms, alone, and its reference", g.Seconds, g.Samples, g.RefRate)
		}
		if lo, hi := g.Spread(); lo != 3e-3 || hi != 5e-3 {
			t.Errorf("spread %v..%v, want the timed record's 3ms..5ms", lo, hi)
		}
		p := NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
		if row := p.Price(&g.Record); row.Verdict != Below {
			t.Errorf("verdict %q (%s), want below", row.Verdict, row.Note)
		}
	}
	only := Group([]record.Record{zero, zero})[0]
	if only.Seconds != 0 || len(only.Samples) != 0 {
		t.Errorf("a row of untimed records: median %v samples %v, want 0 and none", only.Seconds, only.Samples)
	}
	if lo, hi := only.Range(); lo != 0 || hi != 0 {
		t.Errorf("range of no samples %v..%v", lo, hi)
	}
}

// TestPriceRunMemoryPerRecord: what a report keeps per record once its rows are priced (the
// grouped row and its price; the records read are garbage by then) is bounded, so that
// record.MaxRecords records fit the memory docs/report.md states. A field or a copy per row
// added without thought fails it.
func TestPriceRunMemoryPerRecord(t *testing.T) {
	const n = 1 << 14
	recs := make([]record.Record, n)
	for i := range recs {
		recs[i] = reporttest.Rec("vector.fp32", 1<<20, 1<<30, 1e-3)
		recs[i].Workload = fmt.Sprintf("w%07d", i)
		recs[i].MinSeconds, recs[i].MaxSeconds = 9e-4, 2e-3
	}
	p := NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := live()
	s, rows := PriceRun(p, recs)
	after := live()
	runtime.KeepAlive(recs)
	if per := (int64(after) - int64(before)) / n; per > maxBytesPerRow {
		t.Errorf("%d bytes kept per row, more than %d", per, maxBytesPerRow)
	}
	runtime.KeepAlive(s)
	runtime.KeepAlive(rows)
}

// maxBytesPerRow bounds what a priced row keeps: a Sampled (the record and its one sample)
// and a Row, with room for the allocator's size classes and a few more fields.
const maxBytesPerRow = 1024
