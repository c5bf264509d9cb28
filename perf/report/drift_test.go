package report

import (
	"math"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

// TestDriftCap checks issue 21's acceptance: a same-time reference 50% off the profile
// (either side) is never "within the profile's spread", however wide that spread was.
func TestDriftCap(t *testing.T) {
	p := reporttest.NoisyProfile(t)
	pr := NewPricer(p, nil, "")
	pr.PriceAll([]record.Record{
		reporttest.CopyRef("cpu: Test CPU", "a.txt", record.RefStart, 20e9), // -50%
		reporttest.CopyRef("cpu: Test CPU", "a.txt", record.RefEnd, 60e9),   // +50%
		reporttest.CopyRef("cpu: Test CPU", "a.txt", "end2", 35e9),          // -12.5%
	})
	ds := pr.Drifts()
	if len(ds) != 3 {
		t.Fatalf("drifts %+v", ds)
	}
	for i, d := range ds[:2] {
		if !d.Off || d.Tolerance != DriftCap || strings.Contains(d.String(), "within") || !strings.Contains(d.String(), "the cap") {
			t.Errorf("reference %d, %+.0f%% off: %+v\n%s", i, 100*(d.Rate/d.Ceiling-1), d, d)
		}
	}
	if ds[2].Off {
		t.Errorf("12.5%% off, under the cap, drifted: %s", ds[2])
	}
}

// TestDriftOtherDevice: this CPU's records priced against a GPU's profile (docs/using.md's
// last step) are a what-if, and the reference is no drift check.
func TestDriftOtherDevice(t *testing.T) {
	pr := NewPricer(reporttest.NoisyProfile(t), nil, "")
	pr.PriceAll([]record.Record{reporttest.CopyRef("cpu: Another CPU", "a.txt", record.RefEnd, 11e9), reporttest.Rec("hbm", 0, 1<<30, 1e-1)})
	ds := pr.Drifts()
	if len(ds) != 1 || ds[0].Off || !ds[0].OtherDevice || !strings.Contains(ds[0].String(), `on device "cpu: Another CPU", another device than profile cpu's ("cpu: Test CPU")`) ||
		strings.Contains(ds[0].String(), "within") || strings.Contains(ds[0].String(), "DRIFTED") {
		t.Errorf("drifts %+v\n%s", ds, ds[0])
	}
}

// TestDriftedRowsPriced: the rows of a run whose reference drifted are priced and marked
// (the rows of another run in the same report are not marked). A row without a same-time
// reference has its judged interval widened to every level the run's references put the
// machine at: one far below the line stays below, one the drift could carry across the line
// reads inconclusive with the reason. A memory-bound row with its own same-time reference
// is judged against it; the same-time check still convicts. With PriceDrifted nothing is
// widened.
func TestDriftedRowsPriced(t *testing.T) {
	row := func(file string, refRate, secs float64) record.Record {
		r := reporttest.Rec("hbm", 0, 1<<30, secs)
		r.Device, r.Pos, r.RefRate = "cpu: Test CPU", diag.Pos{File: file, Line: 2}, refRate
		return r
	}
	recs := []record.Record{
		reporttest.CopyRef("cpu: Test CPU", "drifted.txt", record.RefEnd, 20e9),
		reporttest.CopyRef("cpu: Test CPU", "steady.txt", record.RefEnd, 38e9),
		// 1 GiB on a 40 GB/s profile: SOL 26.8 ms.
		row("drifted.txt", 0, 1e-1), row("drifted.txt", 1e9, 1e-1), row("steady.txt", 0, 1e-1), row("drifted.txt", 0, 0.045),
	}
	for _, priceDrifted := range []bool{false, true} {
		pr := NewPricer(reporttest.NoisyProfile(t), nil, "")
		pr.PriceDrifted = priceDrifted
		rows := pr.PriceAll(recs)
		if len(rows) != 4 {
			t.Fatalf("%d rows", len(rows))
		}
		drifted, breach, steady, near := rows[0], rows[1], rows[2], rows[3]
		if steady.Drift != nil || Blank(steady.SOLTime) || steady.Verdict == None || steady.Unsure != "" {
			t.Errorf("the steady run's row: %+v", steady)
		}
		// 1 GiB in 0.1 s is 10.7 GB/s, 10.7x its same-time reference of 1 GB/s.
		if !breach.RefBreach || breach.Verdict != FormulaError || !strings.HasPrefix(breach.Note, "formula error") {
			t.Errorf("PriceDrifted %v: the same-time check did not judge the drifted row: %+v", priceDrifted, breach)
		}
		if priced := DriftedRows(rows); priced != 3 {
			t.Errorf("PriceDrifted %v: priced %d under drift, want 3", priceDrifted, priced)
		}
		if drifted.Drift == nil || Blank(drifted.SOLTime) || drifted.Verdict != Below ||
			!strings.HasPrefix(drifted.Note, "priced under drift: the run's copy reference at end ran -50% off the profile's copy median (tolerance 25%)") {
			t.Errorf("PriceDrifted %v: the drifted run's row: %+v", priceDrifted, drifted)
		}
		if !priceDrifted {
			// 26.8% on the profile, up to 53.7% if the machine ran at half the copy median.
			if math.Abs(drifted.JudgedHigh-2*drifted.Efficiency) > 1e-12 || !strings.Contains(drifted.Unsure, "copy references ran at 50.0%-100.0% of the profile's copy median") {
				t.Errorf("the drifted row's interval: %v [%v, %v], unsure %q", drifted.Judged, drifted.JudgedLow, drifted.JudgedHigh, drifted.Unsure)
			}
			// 59.7% on the profile, up to 119% at half speed: either side of the line.
			if near.Verdict != Inconclusive || !strings.Contains(near.Note, "inconclusive: its run's copy references ran at 50.0%-100.0%") {
				t.Errorf("the drifted row near the line: verdict %q, note %q", near.Verdict, near.Note)
			}
			if breach.Drift == nil || Blank(breach.Machine) ||
				!strings.Contains(breach.Note, "; priced under drift: the run's copy reference at end ran -50%") ||
				!strings.Contains(breach.Note, "its verdict judges it against its same-time reference (the machine at 2.9% of the calibration's best while it ran)") {
				t.Errorf("the drifted row with a same-time reference is not judged against it: %+v", breach)
			}
		} else if near.Verdict != Below || near.Unsure != "" {
			t.Errorf("PriceDrifted: the drifted row near the line: verdict %q, unsure %q", near.Verdict, near.Unsure)
		}
	}
}
