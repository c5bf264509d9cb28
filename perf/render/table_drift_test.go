package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
)

// noisyProfile is a CPU profile whose copy ceiling's own rounds are 150% apart (the drift
// tolerance is then the cap), as in perf/report's drift tests.
func noisyProfile(t *testing.T) *profiles.Profile {
	t.Helper()
	p, err := profiles.Parse("cpu.yaml", []byte(`
device: "cpu: Test CPU"
hbm:
  theoretical: 100e9
  calibration: 0.4
  calibration_mixes: {copy: 0.4, copy_cold: 0.3}
  mix_spreads: {copy: {min: 10e9, median: 20e9, max: 40e9, n: 7}, copy_cold: {min: 25e9, median: 30e9, max: 35e9, n: 7}}
  spread: {min: 10e9, median: 20e9, max: 40e9, n: 7}
vector:
  fp32: {theoretical: 1e12, calibration: 1}
`))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func copyRef(device, file, when string, rate float64) record.Record {
	const bytes = 1 << 30
	return record.Record{Device: device, Op: record.RefCopy, Workload: when, DType: "float64", Roof: "hbm",
		Bytes: bytes, Seconds: bytes / rate, MinSeconds: bytes / rate, MaxSeconds: bytes / rate, Iters: 5,
		Pos: diag.Pos{File: file, Line: 1}}
}

// TestTableDriftedRows: the table says how many rows a drifted run left unpriced, or with
// PriceDrifted how many it priced under drift.
func TestTableDriftedRows(t *testing.T) {
	row := func(file string) record.Record {
		r := rec("hbm", 0, 1<<30, 1e-1)
		r.Device, r.Pos = "cpu: Test CPU", diag.Pos{File: file, Line: 2}
		return r
	}
	recs := []record.Record{
		copyRef("cpu: Test CPU", "drifted.txt", record.RefEnd, 20e9),
		copyRef("cpu: Test CPU", "steady.txt", record.RefEnd, 38e9),
		row("drifted.txt"), row("drifted.txt"), row("steady.txt"),
	}
	for priceDrifted, want := range map[bool]string{
		false: "2 rows unpriced: their run's copy reference drifted",
		true:  "2 rows priced under drift",
	} {
		pr := report.NewPricer(noisyProfile(t), nil, "")
		pr.PriceDrifted = priceDrifted
		rows := pr.PriceAll(recs)
		var table bytes.Buffer
		if err := WriteTable(&table, pr, rows); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(table.String(), want) {
			t.Errorf("PriceDrifted %v: no %q in the table:\n%s", priceDrifted, want, table.String())
		}
	}
}
