package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

func price(t *testing.T, r record.Record) Row {
	t.Helper()
	return NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "").Price(&r)
}

func TestMetric(t *testing.T) {
	// Memory time 2^30 / 2^39 = 2^-9 s; compute time 2^38 / 2^41 = 2^-3... no: keep compute
	// below memory: 2^28 flops / 2^41 = 2^-13 s.
	r := price(t, reporttest.Rec("vector.fp32", 1<<28, 1<<30, 1.0/(1<<8)))
	if r.MemoryTime != 1.0/(1<<9) || r.ComputeTime != 1.0/(1<<13) || r.SOLTime != r.MemoryTime {
		t.Errorf("times: memory %v compute %v sol %v", r.MemoryTime, r.ComputeTime, r.SOLTime)
	}
	if r.Efficiency != 0.5 || r.Bound != Memory || r.Verdict != Below || r.Note != "" {
		t.Errorf("efficiency %v bound %q verdict %q note %q", r.Efficiency, r.Bound, r.Verdict, r.Note)
	}
	if r.Intensity != 0.25 || r.ByteRate != 1<<38 || r.FlopRate != 1<<36 {
		t.Errorf("intensity %v byte rate %v flop rate %v", r.Intensity, r.ByteRate, r.FlopRate)
	}
}

func TestBound(t *testing.T) {
	for _, c := range []struct {
		name         string
		flops, bytes int64
		want         Bound
	}{
		{"memory dominates", 1 << 30, 1 << 30, Memory},   // 2^-11 s compute < 2^-9 s memory
		{"compute dominates", 1 << 34, 1 << 30, Compute}, // 2^-7 s compute > 2^-9 s memory
		{"tie goes to compute", 1 << 32, 1 << 30, Compute},
		{"zero flops", 0, 1 << 30, Memory},
	} {
		r := price(t, reporttest.Rec("vector.fp32", c.flops, c.bytes, 1))
		if r.Bound != c.want || r.SOLTime != max(r.MemoryTime, r.ComputeTime) {
			t.Errorf("%s: bound %q (want %q), sol %v of memory %v compute %v", c.name, r.Bound, c.want, r.SOLTime, r.MemoryTime, r.ComputeTime)
		}
	}
}

func TestVerdictBoundaries(t *testing.T) {
	// Memory-bound rows: SOL time = bytes·2^-39, far above the latency floor.
	const unit = 1.0 / (1 << 11) // seconds
	for _, c := range []struct {
		name  string
		bytes int64   // SOL time = bytes/2^39
		secs  float64 // measured
		want  Verdict
	}{
		{"exactly 80%", 4 << 28, 5 * unit, AtCeiling},
		{"just under 80%", 4 << 28, 5 * unit * (1 + 1e-9), Below},
		{"100%", 4 << 28, 4 * unit, AtCeiling},
		{"exactly 105% is still at ceiling", 21 << 28, 20 * unit, AtCeiling},
		{"just over 105% is an anomaly", 21 << 28, 20 * unit * (1 - 1e-9), Anomaly},
		{"far below", 1 << 28, 50 * unit, Below},
	} {
		r := price(t, reporttest.Rec("vector.fp32", 0, c.bytes, c.secs))
		if r.Verdict != c.want {
			t.Errorf("%s: efficiency %.12f, verdict %q, want %q", c.name, r.Efficiency, r.Verdict, c.want)
		}
	}
	// Decimal inputs on the line in decimal are on it: 1.2 GB at 1 TB/s in 1.5 ms is 80%,
	// though the binary quotient is 0.7999999999999999.
	p := reporttest.Profile(t)
	p.HBM.Theoretical, p.HBM.Effective = 2e12, 1e12
	r := reporttest.Rec("vector.fp32", 0, 1_200_000_000, 1.5e-3)
	if row := NewPricer(p, nil, "").Price(&r); row.Verdict != AtCeiling {
		t.Errorf("decimal 80%%: efficiency %.17g, verdict %q", row.Efficiency, row.Verdict)
	}
	if AtCeilingMin != 0.80 || AnomalyAbove != 1.05 {
		t.Errorf("thresholds moved: %v %v (docs/model.md §5.1: 80%%, 105%%)", AtCeilingMin, AnomalyAbove)
	}
}

func TestLatencyBound(t *testing.T) {
	small := int64(1 << 16) // SOL time 2^-23 s, under the 2^-20 s floor
	for _, c := range []struct {
		name  string
		bytes int64
		secs  float64
		want  Verdict
	}{
		{"both under the floor", small, reporttest.Floor / 2, LatencyBound},
		// Efficiency 100%: the label takes precedence over an at-ceiling reading.
		{"both under, efficient", small, 1.0 / (1 << 23), LatencyBound},
		// A cold call pays the floor whatever the kernel: measured above it, the SOL time
		// under it still says no kernel could be judged against the model.
		{"measured above the floor", small, reporttest.Floor * 2, LatencyBound},
		{"SOL exactly at the floor is not below it", 1 << 19, reporttest.Floor * 2, Below},
		{"SOL above the floor", 1 << 30, 1, Below},
		{"a breach is not hidden by the floor", small, 1.0 / (1 << 26), FormulaError}, // 2^16 B in 2^-26 s = 2^42 B/s
	} {
		r := price(t, reporttest.Rec("vector.fp32", 0, c.bytes, c.secs))
		if r.Verdict != c.want {
			t.Errorf("%s: sol %v measured %v, verdict %q, want %q", c.name, r.SOLTime, c.secs, r.Verdict, c.want)
		}
		if c.want == LatencyBound && (Blank(r.Efficiency) || r.Floor != reporttest.Floor) {
			t.Errorf("%s: a latency-bound row keeps its efficiency for regression tracking and names its floor (%v)", c.name, r.Floor)
		}
	}
	// A profile with no latency floor never labels.
	p := reporttest.Profile(t)
	p.LatencyFloor = 0
	r := reporttest.Rec("vector.fp32", 0, small, 1.0/(1<<23))
	if got := NewPricer(p, nil, "").Price(&r); got.Verdict != AtCeiling {
		t.Errorf("no floor: verdict %q, want at ceiling (efficiency %v)", got.Verdict, got.Efficiency)
	}
}

// TestColdFloorReference: a run's ref.floor record replaces the profile's latency floor for
// the rows of its device, the largest of several wins, and references are not rows.
func TestColdFloorReference(t *testing.T) {
	ref := func(secs float64) record.Record {
		r := reporttest.Rec("hbm", 0, 64, secs)
		r.Op = record.RefFloor
		return r
	}
	mid := reporttest.Rec("vector.fp32", 0, 1<<20, 1.0/(1<<18)) // SOL 2^-19 s: above the profile's floor 2^-20
	recs := []record.Record{mid, ref(1.0 / (1 << 19) * 1.5), ref(1.0 / (1 << 21))}
	p := NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	rows := p.PriceAll(recs)
	if len(rows) != 1 || rows[0].Rec.Op != "Op" {
		t.Fatalf("rows %v: want the one catalog row", rows)
	}
	if f, ok := p.Floor("Test Device", record.DefaultImpl); !ok || f != 1.0/(1<<19)*1.5 {
		t.Errorf("floor %v, %v; want the largest ref.floor time", f, ok)
	}
	if rows[0].Verdict != LatencyBound {
		t.Errorf("verdict %q, want latency-bound under the run's own floor (SOL %v)", rows[0].Verdict, rows[0].SOLTime)
	}
	// Without the reference, the profile's floor prices it: not latency-bound.
	if got := price(t, mid); got.Verdict == LatencyBound {
		t.Errorf("without a ref.floor: verdict %q", got.Verdict)
	}
}

// TestSpreadVerdicts: "at ceiling" and "anomaly" need the whole spread on their side of the
// line; the physics check convicts on the fastest sample.
func TestSpreadVerdicts(t *testing.T) {
	const unit = 1.0 / (1 << 11)
	sol := 4 * unit // 4<<28 bytes at 2^39 B/s
	for _, c := range []struct {
		name           string
		lo, med, hi    float64 // sample times
		want           Verdict
		effLo, effHigh float64
	}{
		{"median at ceiling, slowest below: at ceiling", sol / 0.95, sol / 0.9, sol / 0.7, AtCeiling, 0.7, 0.95},
		{"median below, fastest at ceiling: below", sol / 0.95, sol / 0.79, sol / 0.7, Below, 0.7, 0.95},
		{"all at ceiling", sol / 1.02, sol / 0.95, sol / 0.85, AtCeiling, 0.85, 1.02},
		{"straddles 105%: at ceiling", sol / 1.2, sol / 1.1, sol / 0.9, AtCeiling, 0.9, 1.2},
		{"all above 105%", sol / 1.3, sol / 1.2, sol / 1.1, Anomaly, 1.1, 1.3},
	} {
		r := reporttest.Rec("vector.fp32", 0, 4<<28, c.med)
		r.MinSeconds, r.MaxSeconds = c.lo, c.hi
		row := price(t, r)
		if row.Verdict != c.want || math.Abs(row.EffLow-c.effLo) > 1e-9 || math.Abs(row.EffHigh-c.effHigh) > 1e-9 {
			t.Errorf("%s: verdict %q efficiency %.3f [%.3f, %.3f]; want %q [%.3f, %.3f]", c.name, row.Verdict, row.Efficiency, row.EffLow, row.EffHigh, c.want, c.effLo, c.effHigh)
		}
	}
	// The fastest sample implies 2^40.1 B/s, above the 2^40 theoretical ceiling, the median
	// 2^39.9: no call moves bytes faster than the hardware, so that one sample is the breach.
	r := reporttest.Rec("vector.fp32", 0, 1<<30, math.Pow(2, -9.9))
	r.MinSeconds, r.MaxSeconds = math.Pow(2, -10.1), math.Pow(2, -9.5)
	if row := price(t, r); row.Verdict != FormulaError || math.Abs(row.PeakByteRate/math.Pow(2, 40.1)-1) > 1e-12 ||
		!strings.Contains(row.Note, "of the test theoretical HBM ceiling (1.10 TB/s) by its fastest sample") {
		t.Errorf("the fastest sample above the theoretical ceiling: verdict %q note %q, peak rate %v", row.Verdict, row.Note, row.PeakByteRate)
	}
	// Every sample below it: no breach, however close.
	r.MinSeconds = math.Pow(2, -9.99)
	if row := price(t, r); row.Verdict == FormulaError {
		t.Errorf("every sample below the theoretical ceiling: verdict %q note %q", row.Verdict, row.Note)
	}
}

// TestCPURoofs: on a CPU profile a bf16 roof it has no ceiling for is priced at the fp32
// pipes with a note, the memory roof is called DRAM, and a row that fits a cache level gets
// that level's price beside the DRAM one.
func TestCPURoofs(t *testing.T) {
	p, err := profiles.Parse("cpu.yaml", []byte(`
device: "cpu: Test CPU"
hbm: {theoretical: 1099511627776, calibration: 0.5}
vector:
  fp32: {theoretical: 4398046511104, calibration: 0.5}
caches:
  l1: {theoretical: 17592186044416, calibration: 0.5, bytes: 32768}
  l2: {theoretical: 4398046511104, calibration: 0.5, bytes: 1048576}
`))
	if err != nil {
		t.Fatal(err)
	}
	r := record.Record{Device: "cpu: Test CPU", Op: "GemmFwd", Workload: "w", DType: "bfloat16", Roof: "cube.bf16",
		Flops: 1 << 30, Bytes: 1 << 19, Seconds: 1, Iters: 1}
	row := NewPricer(p, nil, "").Price(&r)
	if row.PricedRoof != "vector.fp32" || row.ComputeTime != 1.0/(1<<11) || !strings.Contains(row.Note, "cube.bf16 priced at vector.fp32") {
		t.Errorf("bf16 on a CPU: roof %q compute %v note %q", row.PricedRoof, row.ComputeTime, row.Note)
	}
	// A profile that says how its CPU computes bf16 (calibrate's half_precision) is quoted.
	ph, err := profiles.Parse("cpu.yaml", []byte(`
device: "cpu: Test CPU"
half_precision: "converted to fp32"
hbm: {theoretical: 1099511627776, calibration: 0.5}
vector:
  fp32: {theoretical: 4398046511104, calibration: 0.5}
`))
	if err != nil {
		t.Fatal(err)
	}
	if row := NewPricer(ph, nil, "").Price(&r); row.PricedRoof != "vector.fp32" || !strings.Contains(row.Note, "cube.bf16 priced at vector.fp32: converted to fp32") {
		t.Errorf("bf16 with half_precision: roof %q note %q", row.PricedRoof, row.Note)
	}
	// 2^19 bytes fit the 1 MiB L2, not the 32 KiB L1: priced at L2's 2^41 B/s.
	if row.CacheLevel != "l2" || row.CacheTime != max(1.0/(1<<22), row.ComputeTime) {
		t.Errorf("cache level %q time %v", row.CacheLevel, row.CacheTime)
	}
	big := r
	big.Bytes = 1 << 30
	if row := NewPricer(p, nil, "").Price(&big); row.CacheLevel != "" || !Blank(row.CacheTime) {
		t.Errorf("a row larger than every cache: level %q time %v", row.CacheLevel, row.CacheTime)
	}
	if MemoryName(p) != "DRAM" || MemoryName(reporttest.Profile(t)) != "HBM" {
		t.Errorf("memory names %q %q", MemoryName(p), MemoryName(reporttest.Profile(t)))
	}
	// A float64 matrix contraction declares cube.fp64 (docs/model.md §3.2); a CPU profile
	// without that key (calibrated before it was written) prices it at the SIMD unit of the
	// same dtype, never at another dtype's.
	p64, err := profiles.Parse("cpu.yaml", []byte(`
device: "cpu: Test CPU"
hbm: {theoretical: 1099511627776, calibration: 0.5}
vector:
  fp32: {theoretical: 4398046511104, calibration: 0.5}
  fp64: {theoretical: 2199023255552, calibration: 0.5}
cube:
  fp32: {theoretical: 4398046511104, calibration: 0.5}
`))
	if err != nil {
		t.Fatal(err)
	}
	r64 := r
	r64.DType, r64.Roof = "float64", "cube.fp64"
	if row := NewPricer(p64, nil, "").Price(&r64); row.PricedRoof != "vector.fp64" || row.ComputeTime != 1.0/(1<<10) || !strings.Contains(row.Note, "cube.fp64 priced at vector.fp64") {
		t.Errorf("fp64 matrix role on a CPU: roof %q compute %v note %q", row.PricedRoof, row.ComputeTime, row.Note)
	}
	// An accelerator profile keeps its own roofs: no substitution.
	gpu := reporttest.Rec("cube.bf16", 1<<30, 1<<30, 1)
	if row := price(t, gpu); row.PricedRoof != "cube.bf16" || !Blank(row.ComputeTime) {
		t.Errorf("accelerator: roof %q compute %v", row.PricedRoof, row.ComputeTime)
	}
}

// cells lists which SOL cells of a row hold a value, in a fixed order, for compact checks.
func cells(r Row) string {
	var b strings.Builder
	for _, c := range []struct {
		name string
		v    float64
	}{{"memory", r.MemoryTime}, {"compute", r.ComputeTime}, {"sol", r.SOLTime}, {"eff", r.Efficiency}, {"intensity", r.Intensity}} {
		if !Blank(c.v) {
			b.WriteString(c.name + " ")
		}
	}
	if r.Bound != Unknown {
		b.WriteString("bound ")
	}
	if r.Verdict != None {
		b.WriteString("verdict ")
	}
	return strings.TrimSpace(b.String())
}

func TestBlanks(t *testing.T) {
	uncalibrated := reporttest.Profile(t)
	uncalibrated.HBM.Calibration, uncalibrated.HBM.Effective = 0, 0
	for _, c := range []struct {
		name  string
		prof  *profiles.Profile // fixed profile; nil: match by device among the test profile
		r     record.Record
		cells string // the cells that hold a value
		note  string // a substring of the note
	}{
		{"no matching profile", nil, func() record.Record {
			r := reporttest.Rec("vector.fp32", 1, 1<<30, 1)
			r.Device = "Other GPU"
			return r
		}(),
			"", `no device profile matches "Other GPU"; available: test (Test Device)`},
		{"bytes zero", nil, reporttest.Rec("vector.fp32", 1<<30, 0, 1), "", NoteZeroBytes},
		{"no measured time", nil, reporttest.Rec("vector.fp32", 1<<30, 1<<30, 0), "memory compute sol intensity bound", NoteNoTime},
		{"roof never measured", nil, reporttest.Rec("cube.fp16", 1<<30, 1<<30, 1), "memory intensity", "cube.fp16 was never measured"},
		{"roof absent from profile", nil, reporttest.Rec("cube.bf16", 1<<30, 1<<30, 1), "memory intensity", "has no cube.bf16 ceiling"},
		{"zero flops need no ceiling", nil, reporttest.Rec("cube.bf16", 0, 1<<30, 1), "memory compute sol eff intensity bound verdict", ""},
		{"hbm never measured", uncalibrated, reporttest.Rec("vector.fp32", 1<<30, 1<<30, 1), "intensity", "hbm was never measured"},
	} {
		r := NewPricer(c.prof, []*profiles.Profile{reporttest.Profile(t)}, "").Price(&c.r)
		if got := cells(r); got != c.cells {
			t.Errorf("%s: cells with values %q, want %q", c.name, got, c.cells)
		}
		if !strings.Contains(r.Note, c.note) || (c.note == "") != (r.Note == "") {
			t.Errorf("%s: note %q, want one containing %q", c.name, r.Note, c.note)
		}
	}
}

func TestTheoreticalBasis(t *testing.T) {
	// On the theoretical basis the never-measured cube.fp16 prices the row.
	r := reporttest.Rec("cube.fp16", 1<<46, 1<<30, 2)
	row := NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, profiles.Theoretical).Price(&r)
	if row.ComputeTime != 1 || row.MemoryTime != 1.0/(1<<10) || row.Efficiency != 0.5 || row.Bound != Compute {
		t.Errorf("theoretical basis: %+v", row)
	}
}

func TestPhysicsCheck(t *testing.T) {
	for _, c := range []struct {
		name       string
		r          record.Record
		byteBreach bool
		flopBreach bool
	}{
		// 2^40 B/s exactly is the ceiling, not above it.
		{"byte rate at theoretical", reporttest.Rec("vector.fp32", 0, 1<<30, 1.0/(1<<10)), false, false},
		{"byte rate above theoretical", reporttest.Rec("vector.fp32", 0, 1<<31, 1.0/(1<<10)), true, false},
		// Between effective and theoretical: an anomaly, not a physics breach.
		{"byte rate above effective only", reporttest.Rec("vector.fp32", 0, 3<<28, 1.0/(1<<10)), false, false},
		{"flop rate above vector theoretical", reporttest.Rec("vector.fp32", 1<<33, 1, 1.0/(1<<10)), false, true},
		// A cube kernel priced on vector (the wrong roof key, docs/model.md §3.2) is caught.
		{"flop rate above a never-measured roof's theoretical", reporttest.Rec("cube.fp16", 1<<37, 1<<20, 1.0/(1<<10)), false, true},
		{"both, with zero bytes blanking the pricing", reporttest.Rec("vector.fp32", 1<<33, 0, 1.0/(1<<10)), false, true},
		{"no time, no check", reporttest.Rec("vector.fp32", 1<<50, 1<<50, 0), false, false},
	} {
		r := price(t, c.r)
		if r.ByteBreach != c.byteBreach || r.FlopBreach != c.flopBreach {
			t.Errorf("%s: breaches bytes %v flops %v, want %v %v", c.name, r.ByteBreach, r.FlopBreach, c.byteBreach, c.flopBreach)
		}
		breach := c.byteBreach || c.flopBreach
		if breach != (r.Verdict == FormulaError) || breach != strings.HasPrefix(r.Note, "formula error: implied") {
			t.Errorf("%s: verdict %q note %q", c.name, r.Verdict, r.Note)
		}
		if got := len(Breaches([]Row{r})); got != map[bool]int{true: 1}[breach] {
			t.Errorf("%s: Breaches lists %d rows", c.name, got)
		}
	}
}

func TestPricerCachesPerDevice(t *testing.T) {
	p := reporttest.Profile(t)
	recs := []record.Record{reporttest.Rec("vector.fp32", 1, 1, 1), reporttest.Rec("vector.fp32", 1, 1, 1), reporttest.Rec("cube.fp16", 1, 1, 1)}
	recs[1].Device = "Nope"
	pr := NewPricer(nil, []*profiles.Profile{p}, "")
	rows := pr.PriceAll(recs)
	ms := pr.Devices()
	if len(ms) != 2 || ms[0].Profile != p || ms[1].Err == nil || rows[1].Profile != nil || rows[2].Profile != p {
		t.Errorf("devices %+v", ms)
	}
	if rows[0].Rec != &recs[0] {
		t.Error("rows must point at their records")
	}
}

func TestSI(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0s", 1.2345e-5: "12.3µs", 999.96: "1.00ks", 4.3e12: "4.30Ts", 0.5: "500ms", 1: "1s", 1.5: "1.50s", 64: "64s", math.NaN(): "",
	} {
		if got := SI(v, "s"); got != want {
			t.Errorf("SI(%v) = %q, want %q", v, got, want)
		}
	}
	if got := Rate(4.3e12, "B/s"); got != "4.30 TB/s" {
		t.Errorf("siRate = %q", got)
	}
}

// BenchmarkPrice prices a million synthetic records spread over two devices (one without a
// profile) and four roof keys (one never measured, one absent), as the report does, with
// times at 10% to 100% efficiency. Target: under 2 s, i.e. 2000 ns/record.
func BenchmarkPrice(b *testing.B) {
	const n = 1_000_000
	p := reporttest.Profile(b)
	devices := []string{"Test Device", "Test Device", "Test Device", "Unknown"}
	roofs := []string{"vector.fp32", "cube.fp16", "cube.bf16", "vector.fp32"}
	recs := make([]record.Record, n)
	for i := range recs {
		flops, bytes := int64(i%1000+1)<<20, int64(i%333+1)<<20
		sol := max(float64(flops)/reporttest.VecEff, float64(bytes)/reporttest.HBMEff)
		recs[i] = record.Record{Device: devices[i%len(devices)], Op: "Op", Workload: "w", DType: "float32",
			Roof: roofs[i/7%len(roofs)], Flops: flops, Bytes: bytes, Seconds: sol / (float64(i%10+1) / 10), Iters: 10}
	}
	b.ResetTimer()
	for b.Loop() {
		pr := NewPricer(nil, []*profiles.Profile{p}, "")
		if rows := pr.PriceAll(recs); len(rows) != n {
			b.Fatal(len(rows))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/record")
}

// TestDrift: a copy reference within the profile's spread of its copy ceiling passes; one
// further off, on either side, is flagged with the advice to recalibrate.
func TestDrift(t *testing.T) {
	p, err := profiles.Parse("cpu.yaml", []byte(`
device: "cpu: Test CPU"
hbm:
  theoretical: 100e9
  calibration: 0.5
  calibration_mixes: {copy: 0.5}
  mix_spreads: {copy: {min: 45e9, median: 48e9, max: 50e9, n: 5}}
  spread: {min: 45e9, median: 48e9, max: 50e9, n: 5}
measured: {at: "2026-12-01T08:00:00Z", boot_id: "aaa"}
`))
	if err != nil {
		t.Fatal(err)
	}
	ref := func(when string, rate float64) record.Record {
		const bytes = 1 << 30
		return record.Record{Device: "cpu: Test CPU", Op: record.RefCopy, Workload: when, DType: "float64", Roof: "hbm",
			Bytes: bytes, Seconds: bytes / rate, MinSeconds: bytes / rate, MaxSeconds: bytes / rate, Iters: 5}
	}
	// The reference, a median, is compared with the copy mix's median round (48 GB/s), within
	// the profile's spread (50-45)/48 = 10.4%: 46 GB/s is within, 40 and 60 are not.
	recs := []record.Record{ref(record.RefStart, 46e9), ref(record.RefEnd, 40e9), ref("end2", 60e9)}
	pr := NewPricer(p, nil, "")
	if rows := pr.PriceAll(recs); len(rows) != 0 {
		t.Errorf("references priced as rows: %v", rows)
	}
	ds := pr.Drifts()
	if len(ds) != 3 || ds[0].Off || !ds[1].Off || !ds[2].Off || ds[0].Ceiling != 48e9 || ds[0].Of != "copy median" {
		t.Fatalf("drifts %+v", ds)
	}
	if !strings.Contains(ds[1].String(), "recalibrate") || strings.Contains(ds[0].String(), "recalibrate") {
		t.Errorf("lines:\n%s\n%s", ds[0], ds[1])
	}
	if StaleBoot(p, "aaa") != "" || !strings.Contains(StaleBoot(p, "bbb"), "another boot") || StaleBoot(p, "") != "" {
		t.Errorf("StaleBoot: %q %q", StaleBoot(p, "aaa"), StaleBoot(p, "bbb"))
	}
}

// TestGroupKeepsReferences: repeated records of a row are one row with the spread of all of
// them, while each reference record stays a measurement of its own run.
func TestGroupKeepsReferences(t *testing.T) {
	a, b := reporttest.Rec("vector.fp32", 1, 1<<20, 2e-3), reporttest.Rec("vector.fp32", 1, 1<<20, 4e-3)
	a.MinSeconds, a.MaxSeconds = 1e-3, 3e-3
	b.MinSeconds, b.MaxSeconds = 3.5e-3, 5e-3
	ref := reporttest.Rec("hbm", 0, 1<<30, 1e-1)
	ref.Op, ref.Workload = record.RefCopy, record.RefStart
	g := Group([]record.Record{a, ref, b, ref})
	if len(g) != 3 || g[1].Op != record.RefCopy || g[2].Op != record.RefCopy {
		t.Fatalf("groups %+v: want one row and two references", g)
	}
	if r := g[0]; r.Seconds != 3e-3 || r.MinSeconds != 1e-3 || r.MaxSeconds != 5e-3 || record.Check(r.Record) != nil {
		t.Errorf("row %+v: want the median 3 ms and the spread 1-5 ms of both records", r.Record)
	}
}

// sameTimeProfile is testProfile with the calibration's reference mixes: triad_cold (the
// reference's pattern) at 0.5 of the theoretical DRAM ceiling with a spread of 20% of its
// median, copy_cold at 0.4, the envelope (a warm mix) at 0.6. Its same-time line is
// 0.6 / 0.5 × 1.2 = 1.44. The spreads' medians are TestSameTimeCheck's reference, 250 GB/s,
// so its rows price without contention.
func sameTimeProfile(t *testing.T) *profiles.Profile {
	p := reporttest.Profile(t)
	p.HBM.Calibration = 0.6
	p.MixFractions = map[string]float64{"triad_cold": 0.5, "copy_cold": 0.4, "copy_nt": 0.6}
	p.MixSpreads = map[string]profiles.Spread{"triad_cold": {Min: 2.25e11, Median: 2.5e11, Max: 2.75e11, N: 7}, "copy_cold": {Min: 0.25e11, Median: 2.5e11, Max: 7.5e11, N: 7}}
	return p
}

// TestSameTimeLine: the line is derived from the profile (the envelope over the reference's
// pattern, widened by that pattern's spread, at most by sqrt(2): a stalled call in the
// calibration widens no further), whichever pattern ran faster in the calibration; over
// copy_cold on a profile that measured no triad_cold; and there is none without a
// reference mix.
func TestSameTimeLine(t *testing.T) {
	if line, ok := SameTimeLine(sameTimeProfile(t)); !ok || math.Abs(line-1.44) > 1e-12 {
		t.Errorf("SameTimeLine = %v, %v; want 1.44", line, ok)
	}
	p := sameTimeProfile(t)
	p.MixFractions["copy_cold"] = 0.55 // faster than the reference's pattern: no matter
	if line, ok := SameTimeLine(p); !ok || math.Abs(line-1.44) > 1e-12 {
		t.Errorf("SameTimeLine with copy_cold faster = %v, %v; want 1.44 (the reference's pattern is fixed)", line, ok)
	}
	delete(p.MixFractions, "triad_cold")
	delete(p.MixSpreads, "triad_cold")
	if line, ok := SameTimeLine(p); !ok || math.Abs(line-0.6/0.55*math.Sqrt2) > 1e-12 {
		t.Errorf("SameTimeLine without triad_cold = %v, %v; want %v (over copy_cold, its spread capped)", line, ok, 0.6/0.55*math.Sqrt2)
	}
	if line, ok := SameTimeLine(reporttest.Profile(t)); ok {
		t.Errorf("a profile without reference mixes has a line %v", line)
	}
}

// TestSameTimeCheck: measured beside the same same-time reference, a row whose formula
// doubles its bytes is a formula error while the correct row, at 1.1x the reference, is
// not; the line sits where the profile puts it (1.44); without a reference (a record from
// before it, or a row that fits in the cache), or on a profile that measured no reference mix,
// the doubled row is priced as before: under the theoretical ceiling, so no breach. Both rows
// are far below the theoretical ceiling: the reference alone convicts.
func TestSameTimeCheck(t *testing.T) {
	price := func(t *testing.T, r record.Record) Row {
		return NewPricer(nil, []*profiles.Profile{sameTimeProfile(t)}, "").Price(&r)
	}
	const secs = 1.0 / (1 << 8)
	correct, doubled := reporttest.Rec("vector.fp32", 1<<28, 1<<30, secs), reporttest.Rec("vector.fp32", 1<<28, 1<<31, secs)
	ref := float64(correct.Bytes) / secs / 1.1
	withRef := func(r record.Record) record.Record { r.RefRate = ref; return r }

	for _, c := range []struct {
		name      string
		r         record.Record
		breach    bool
		verdict   Verdict
		ratio     float64 // NaN: none
		notePrefx string
	}{
		{"correct, 1.1x its reference", withRef(correct), false, Below, 1.1, ""},
		{"doubled, 2.2x the same reference", withRef(doubled), true, FormulaError, 2.2, "formula error: implied 550 GB/s by its median sample is 2.20x the same-time reference (250 GB/s, the streaming pattern timed between its samples; the line is 1.44x"},
		{"just under the line", withRef(reporttest.Rec("vector.fp32", 1<<28, 1<<30, secs*1.1/1.43)), false, Below, 1.43, ""},
		{"just over the line", withRef(reporttest.Rec("vector.fp32", 1<<28, 1<<30, secs*1.1/1.45)), true, FormulaError, 1.45, "formula error"},
		{"correct, no reference", correct, false, Below, math.NaN(), ""},
		{"doubled, no reference", doubled, false, AtCeiling, math.NaN(), ""},
	} {
		row := price(t, c.r)
		if row.RefBreach != c.breach || row.Verdict != c.verdict || !strings.HasPrefix(row.Note, c.notePrefx) || (c.notePrefx == "") != (row.Note == "") {
			t.Errorf("%s: breach %v verdict %q note %q; want %v %q %q...", c.name, row.RefBreach, row.Verdict, row.Note, c.breach, c.verdict, c.notePrefx)
		}
		if math.IsNaN(c.ratio) != Blank(row.RefRatio) || (!math.IsNaN(c.ratio) && math.Abs(row.RefRatio-c.ratio) > 1e-12) || Blank(row.RefRate) != math.IsNaN(c.ratio) {
			t.Errorf("%s: ref %v ratio %v, want ratio %v", c.name, row.RefRate, row.RefRatio, c.ratio)
		}
		if row.ByteBreach || row.FlopBreach {
			t.Errorf("%s: the theoretical ceilings are breached; the test wants them far away", c.name)
		}
		if got := len(Breaches([]Row{row})); got != map[bool]int{true: 1}[c.breach] {
			t.Errorf("%s: Breaches lists %d rows", c.name, got)
		}
	}
	if row := NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "").Price(ptr(withRef(doubled))); row.RefBreach || row.RefLine != 0 {
		t.Errorf("no reference mix in the profile: breach %v line %v; want no check", row.RefBreach, row.RefLine)
	}
	// The reference adds a check and changes nothing else of a correct row's price.
	pr := NewPricer(nil, []*profiles.Profile{sameTimeProfile(t)}, "")
	ra, rb := withRef(correct), correct
	a, b := pr.Price(&ra), pr.Price(&rb)
	a.Rec, b.Rec = nil, nil
	a.RefRate, a.RefRatio, a.RefLine = b.RefRate, b.RefRatio, b.RefLine
	a.Machine, a.Judged = b.Machine, b.Judged // TestSameTimeVerdicts
	a.JudgedLow, a.JudgedHigh, a.Unsure = b.JudgedLow, b.JudgedHigh, b.Unsure
	if fmt.Sprintf("%v", a) != fmt.Sprintf("%v", b) {
		t.Errorf("a reference changed the price:\n%+v\n%+v", a, b)
	}
}

// TestSameTimeInterval: the same-time check convicts only when the row's implied rate is
// above the line across the reference's 99% interval; a row above it at the median only (a
// correct row on a busy machine, whose interval the load made wide) is no formula error but
// inconclusive, with the reason, and RefUnsure tells the benchmark to take more samples.
func TestSameTimeInterval(t *testing.T) {
	const secs = 1.0 / (1 << 8)
	r := reporttest.Rec("vector.fp32", 1<<28, 1<<31, secs) // 550 GB/s implied
	for _, c := range []struct {
		name          string
		ref, lo, hi   float64
		breach, maybe bool
		verdict       Verdict
	}{
		{"2.2x, interval 1.8-2.6x", 250e9, 210e9, 300e9, true, false, FormulaError},
		{"2.2x, interval 1.1-3.7x", 250e9, 150e9, 500e9, false, true, Inconclusive},
		{"the correct row: 1.1x, interval 0.92-1.31x", 250e9, 210e9, 300e9, false, false, ""},
	} {
		rec := r
		if c.verdict == "" {
			rec = reporttest.Rec("vector.fp32", 1<<28, 1<<30, secs)
		}
		rec.RefRate, rec.RefRateLow, rec.RefRateHigh = c.ref, c.lo, c.hi
		row := NewPricer(nil, []*profiles.Profile{sameTimeProfile(t)}, "").Price(&rec)
		if row.RefBreach != c.breach || row.RefUnsure != c.maybe || (c.verdict != "" && row.Verdict != c.verdict) ||
			c.maybe != strings.Contains(row.Note, "the physics check cannot tell a formula error from the load") {
			t.Errorf("%s: breach %v unsure %v verdict %q note %q; want %v %v %q", c.name, row.RefBreach, row.RefUnsure, row.Verdict, row.Note, c.breach, c.maybe, c.verdict)
		}
		if c.breach && !strings.Contains(row.Note, "and 1.83x its interval's high bound") {
			t.Errorf("%s: the breach note does not give the interval's bound: %q", c.name, row.Note)
		}
	}
}

// TestSameTimeVerdicts: a memory-bound row's verdict judges its efficiency against the
// machine as its same-time reference found it (the reference over the calibrated best of
// the same pattern), so the machine's bandwidth moving between the calibration and the run
// does not move the row across a line; the efficiency column stays the profile's.
func TestSameTimeVerdicts(t *testing.T) {
	p := reporttest.Profile(t)
	p.MixFractions = map[string]float64{"triad_cold": 0.5, "copy_cold": 0.4}
	p.MixSpreads = map[string]profiles.Spread{"triad_cold": {Min: 2e11, Median: 4e11, Max: 5e11, N: 9}, "copy_cold": {Min: 1e11, Median: 2e11, Max: 3e11, N: 9}}
	sol := 4.0 / (1 << 11) // 4<<28 bytes at the 2^39 B/s effective HBM ceiling
	for _, c := range []struct {
		name      string
		eff, ref  float64 // the row's efficiency on the profile, its same-time reference (B/s)
		roof      string
		flops     int64
		machine   float64 // NaN: none
		want      Verdict
		wantJudge float64
	}{
		{"slower machine: at ceiling", 0.72, 4e11, "vector.fp32", 0, 0.8, AtCeiling, 0.9},
		// The reference at its best, a quarter above its median: a row slowed less than a pure
		// stream reads 0.9 on the machine as the calibration typically found it.
		{"at the calibration's best", 0.72, 5e11, "vector.fp32", 0, 1, Inconclusive, 0.72},
		{"at the calibration's best, far below", 0.5, 5e11, "vector.fp32", 0, 1, Below, 0.5},
		{"faster than the best: no anomaly", 1.11, 5.5e11, "vector.fp32", 0, 1.1, AtCeiling, 1.11 / 1.1},
		{"faster than the best, still above", 1.3, 5.5e11, "vector.fp32", 0, 1.1, Anomaly, 1.3 / 1.1},
		// The factor lifts a typical call toward the best one; the anomaly line does not follow.
		{"slower machine: above the line is still an anomaly", 1.08, 4.5e11, "vector.fp32", 0, 0.9, Anomaly, 1.08 / 0.9},
		{"no reference", 0.72, 0, "vector.fp32", 0, math.NaN(), Below, 0.72},
		// Compute-bound: the memory system's state says nothing of the FMA pipes.
		{"compute-bound", 0.72, 3.2e11, "vector.fp32", 1 << 40, math.NaN(), Below, 0.72},
	} {
		r := reporttest.Rec(c.roof, c.flops, 4<<28, sol/c.eff)
		if c.flops > 0 {
			r.Seconds = float64(c.flops) / 2.199023255552e12 / c.eff
		}
		r.MinSeconds, r.MaxSeconds = r.Seconds, r.Seconds
		r.RefRate = c.ref
		row := NewPricer(p, nil, "").Price(&r)
		if math.IsNaN(c.machine) != Blank(row.Machine) || (!Blank(row.Machine) && math.Abs(row.Machine-c.machine) > 1e-9) ||
			math.Abs(row.Judged-c.wantJudge) > 1e-9 || row.Verdict != c.want || math.Abs(row.Efficiency-c.eff) > 1e-9 {
			t.Errorf("%s: machine %v judged %v efficiency %v verdict %q; want %v %v %v %q", c.name, row.Machine, row.Judged, row.Efficiency, row.Verdict, c.machine, c.wantJudge, c.eff, c.want)
		}
	}
	if f, ok := SameTimeFactor(p, 2e11); !ok || f != 0.4 {
		t.Errorf("SameTimeFactor = %v, %v", f, ok)
	}
	if _, ok := SameTimeFactor(reporttest.Profile(t), 2e11); ok {
		t.Error("a profile without reference patterns gives a factor")
	}
}

// TestAtTheLine: a row whose record carries its reference's interval reads "at the line"
// when the judged efficiency's interval (the efficiency at the interval's high and low
// reference rates) holds the at-ceiling line, whichever side its median is on; an interval
// clear of the line leaves the median's verdict, and a record without one reads as before.
func TestAtTheLine(t *testing.T) {
	p := reporttest.Profile(t)
	p.MixFractions = map[string]float64{"copy_cold": 0.5}
	// Its median round is its best, so the typical machine is the best one and only the
	// reference's interval widens the judged one.
	p.MixSpreads = map[string]profiles.Spread{"copy_cold": {Min: 2e11, Median: 5e11, Max: 5e11, N: 9}}
	sol := 4.0 / (1 << 11) // as in TestSameTimeVerdicts: the reference's best is 5e11 B/s
	for _, c := range []struct {
		name           string
		eff            float64 // on the profile; the reference runs at its best, so judged = eff
		lo, hi         float64 // the reference's interval, B/s
		want           Verdict
		wantLo, wantHi float64
	}{
		{"median above, interval holds the line", 0.81, 4.8e11, 5.2e11, AtLine, 0.81 / 1.04, 0.81 / 0.96},
		{"median below, interval holds the line", 0.79, 4.8e11, 5.2e11, AtLine, 0.79 / 1.04, 0.79 / 0.96},
		{"interval above the line", 0.9, 4.8e11, 5.2e11, AtCeiling, 0.9 / 1.04, 0.9 / 0.96},
		{"interval below the line", 0.7, 4.8e11, 5.2e11, Below, 0.7 / 1.04, 0.7 / 0.96},
		{"exactly on the line at its high end", 0.8 * 0.96, 4.8e11, 5.2e11, AtLine, 0.8 * 0.96 / 1.04, 0.8},
		{"no interval", 0.79, 0, 0, Below, math.NaN(), math.NaN()},
	} {
		r := reporttest.Rec("vector.fp32", 0, 4<<28, sol/c.eff)
		r.MinSeconds, r.MaxSeconds = r.Seconds, r.Seconds
		r.RefRate, r.RefRateLow, r.RefRateHigh = 5e11, c.lo, c.hi
		row := NewPricer(p, nil, "").Price(&r)
		near := func(a, b float64) bool {
			return math.IsNaN(a) == math.IsNaN(b) && (math.IsNaN(a) || math.Abs(a-b) < 1e-9)
		}
		if row.Verdict != c.want || !near(row.JudgedLow, c.wantLo) || !near(row.JudgedHigh, c.wantHi) {
			t.Errorf("%s: verdict %q, judged %v [%v, %v]; want %q [%v, %v]", c.name, row.Verdict, row.Judged, row.JudgedLow, row.JudgedHigh, c.want, c.wantLo, c.wantHi)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestContention: a same-time reference off the calibration's median of its pattern by more
// than the drift tolerance (the pattern's spread, or the reference's own interval, at most
// DriftCap) marks the row contended, and its judged interval then holds its efficiency on the
// profile too: a row with arithmetic in it that a burst slowed less than the reference reads
// inconclusive, not at ceiling; a row on one side at both ends keeps that side, and a row
// whose own interval holds the line reads at the line.
func TestContention(t *testing.T) {
	p := reporttest.Profile(t)
	p.MixFractions = map[string]float64{"copy_cold": 0.5}
	p.MixSpreads = map[string]profiles.Spread{"copy_cold": {Min: 4.5e11, Median: 5e11, Max: 5.5e11, N: 9}} // spread 20%
	sol := 4.0 / (1 << 11)
	for _, c := range []struct {
		name      string
		eff       float64 // on the profile
		ref       float64 // the same-time reference, B/s
		lo, hi    float64 // its interval (0: none)
		contended bool
		want      Verdict
	}{
		{"at the median", 0.75, 5e11, 0, 0, false, AtCeiling},
		{"15% below: within the spread", 0.75, 4.25e11, 0, 0, false, AtCeiling},
		{"30% below: the judged 94% is not to be trusted", 0.6, 3.5e11, 0, 0, true, Inconclusive},
		{"26% below, at ceiling either way", 0.805, 3.7e11, 0, 0, true, AtCeiling},
		{"30% below, below either way", 0.4, 3.5e11, 0, 0, true, Below},
		{"22% below, within its own wide interval", 0.6, 3.9e11, 3.5e11, 4.4e11, false, AtLine},
		{"22% below, narrow interval", 0.6, 3.9e11, 3.85e11, 3.95e11, true, Inconclusive},
		{"40% above: the faster machine lowers the judged figure", 0.9, 7e11, 0, 0, true, Inconclusive},
	} {
		r := reporttest.Rec("vector.fp32", 0, 4<<28, sol/c.eff)
		r.MinSeconds, r.MaxSeconds = r.Seconds, r.Seconds
		r.RefRate, r.RefRateLow, r.RefRateHigh = c.ref, c.lo, c.hi
		row := NewPricer(p, nil, "").Price(&r)
		if (row.Contention != nil) != c.contended || row.Verdict != c.want ||
			strings.Contains(row.Note, "priced under contention") != c.contended {
			t.Errorf("%s: contention %+v verdict %q judged %v [%v, %v] note %q; want contended %v, %q",
				c.name, row.Contention, row.Verdict, row.Judged, row.JudgedLow, row.JudgedHigh, row.Note, c.contended, c.want)
		}
		if c.contended && (row.JudgedLow > row.Efficiency || row.JudgedHigh < row.Efficiency ||
			row.JudgedLow > row.Judged || row.JudgedHigh < row.Judged ||
			math.Abs(row.Contention.Off-(c.ref/5e11-1)) > 1e-12) {
			t.Errorf("%s: judged %v [%v, %v] does not hold efficiency %v; off %v", c.name, row.Judged, row.JudgedLow, row.JudgedHigh, row.Efficiency, row.Contention.Off)
		}
	}
}

// TestProbeVerdicts: a compute-bound row with a compute probe is judged against it (the row
// over the machine as it computed then); a memory-bound row whose probe says, for certain,
// that the machine computed slower than calibrated has its interval widened by that and
// reads inconclusive where the widening crosses the line, with the reason; a probe at the
// calibrated rate widens nothing.
func TestProbeVerdicts(t *testing.T) {
	const best = reporttest.VecEff // the profile measured no spread: its effective is the best
	for _, c := range []struct {
		name             string
		flops, bytes     int64
		eff              float64 // on the profile
		probe, plo, phi  float64 // the probe's rate and interval as fractions of best (0: none)
		want             Verdict
		judged, jlo, jhi float64
		unsure           string
	}{
		{"compute-bound at half speed: at ceiling against its probe", 1 << 30, 1 << 10, 0.45, 0.5, 0.48, 0.52, AtCeiling, 0.9, 0.45 / 0.52, 0.45 / 0.48, ""},
		{"compute-bound, no probe: below", 1 << 30, 1 << 10, 0.45, 0, 0, 0, Below, 0.45, math.NaN(), math.NaN(), ""},
		{"compute-bound, the probe's interval holds the line", 1 << 30, 1 << 10, 0.4, 0.5, 0.45, 0.55, AtLine, 0.8, 0.4 / 0.55, 0.4 / 0.45, ""},
		{"compute-bound, judged above the roof: the probe was slowed more than the row", 1 << 30, 1 << 10, 0.45, 0.2, 0.19, 0.21, Inconclusive, 2.25, 0.45, 0.45 / 0.19, "is above the roof across its interval"},
		{"memory-bound, the machine computed slower", 1 << 20, 1 << 30, 0.7, 0.75, 0.7, 0.8, Inconclusive, 0.7, 0.7, 0.7 / 0.75, "the machine computed at 75.0% of its calibrated best"},
		{"memory-bound, far below even so", 1 << 20, 1 << 30, 0.3, 0.75, 0.7, 0.8, Below, 0.3, 0.3, 0.3 / 0.75, "the machine computed at 75.0%"},
		{"memory-bound, the probe at its best", 1 << 20, 1 << 30, 0.7, 1, 0.98, 1.01, Below, 0.7, math.NaN(), math.NaN(), ""},
	} {
		r := reporttest.Rec("vector.fp32", c.flops, c.bytes, 0)
		pr := reporttest.Profile(t)
		sol := max(float64(c.flops)/reporttest.VecEff, float64(c.bytes)/reporttest.HBMEff)
		r.Seconds = sol / c.eff
		r.MinSeconds, r.MaxSeconds = r.Seconds, r.Seconds
		if c.probe > 0 {
			r.ProbeRate, r.ProbeRateLow, r.ProbeRateHigh = c.probe*best, c.plo*best, c.phi*best
		}
		row := NewPricer(pr, nil, "").Price(&r)
		near := func(a, b float64) bool {
			return math.IsNaN(a) == math.IsNaN(b) && (math.IsNaN(a) || math.Abs(a-b) < 1e-9)
		}
		if row.Verdict != c.want || !near(row.Judged, c.judged) || !near(row.JudgedLow, c.jlo) || !near(row.JudgedHigh, c.jhi) ||
			!strings.Contains(row.Unsure, c.unsure) || (c.unsure == "") != (row.Unsure == "") {
			t.Errorf("%s: verdict %q judged %v [%v, %v] unsure %q note %q; want %q %v [%v, %v] unsure %q",
				c.name, row.Verdict, row.Judged, row.JudgedLow, row.JudgedHigh, row.Unsure, row.Note, c.want, c.judged, c.jlo, c.jhi, c.unsure)
		}
		if c.want == Inconclusive && !strings.Contains(row.Note, "inconclusive: ") {
			t.Errorf("%s: note %q does not say why it is inconclusive", c.name, row.Note)
		}
	}
}

// TestLoadedProfile: against a profile measured under load (measured.refused), a rate above
// its estimated theoretical ceilings is no formula error (the estimate rests on rounds the
// load slowed), a row with no reference timed in its own moments reads inconclusive, and a
// compute-bound row on the probe's roof keeps the verdict its probe gives; the same-time
// line still convicts.
func TestLoadedProfile(t *testing.T) {
	loaded, err := profiles.Parse("host-loaded.yaml", []byte(`
device: "Test Device"
measured: {at: "2026-12-01T08:00:00Z", refused: ["the DRAM envelope: the median round is 40% below the best"]}
hbm: {theoretical: 1099511627776, estimate: true, note: "1.75 x the best round", calibration: 0.5}
vector:
  fp32: {theoretical: 4398046511104, estimate: true, note: "1.25 x the best round", calibration: 0.5}
`))
	if err != nil {
		t.Fatal(err)
	}
	if !loaded.Measured.Loaded() || reporttest.Profile(t).Measured.Loaded() {
		t.Fatalf("Loaded: %v", loaded.Measured)
	}
	// 2^30 bytes in 2^-11 s is 2^41 B/s, twice the theoretical 2^40.
	fast := reporttest.Rec("vector.fp32", 0, 1<<30, 1.0/(1<<11))
	row := NewPricer(loaded, nil, "").Price(&fast)
	if row.ByteBreach || row.Verdict == FormulaError {
		t.Errorf("a loaded profile's estimate convicted a row: %+v", row)
	}
	if row = NewPricer(reporttest.Profile(t), nil, "").Price(&fast); !row.ByteBreach {
		t.Errorf("the accepted profile did not convict it: %+v", row)
	}
	slow := reporttest.Rec("vector.fp32", 0, 1<<30, 1)
	if row = NewPricer(loaded, nil, "").Price(&slow); row.Verdict != Inconclusive || !strings.Contains(row.Note, "measured under load") {
		t.Errorf("a row with no reference on a loaded profile: verdict %q note %q", row.Verdict, row.Note)
	}
	// A memory-bound row with a same-time reference: the widening's high end is its rate over
	// the reference (no pattern beats the envelope), so a row at 0.75x of it is below for
	// certain, though 0.75 widened by the drift cap would reach 0.94.
	st := reporttest.Profile(t)
	st.HBM.Calibration, st.HBM.Effective = 0.6, 0.6*(1<<40)
	st.MixFractions = map[string]float64{"copy_cold": 0.6}
	st.MixSpreads = map[string]profiles.Spread{"copy_cold": {Min: 6e11, Median: 6.3e11, Max: 0.6 * (1 << 40), N: 7}}
	st.Measured.Refused = []string{"the DRAM envelope: the median round is 40% below the best"}
	mem := reporttest.Rec("vector.fp32", 0, 1<<30, float64(1<<30)/(0.75*6.3e11))
	mem.RefRate = 6.3e11
	if row = NewPricer(st, nil, "").Price(&mem); row.Verdict != Below || math.Abs(row.JudgedHigh-0.75) > 1e-9 {
		t.Errorf("a memory-bound row at 0.75x its reference on a loaded profile: verdict %q judged %v [%v, %v]", row.Verdict, row.Judged, row.JudgedLow, row.JudgedHigh)
	}
	// A row whose reference was slowed by the load far more than the row (a read-only
	// reduction beside a triad stream whose dispatch waited on a shared core): at 0.52 of
	// the envelope, its reference at half its calibrated best, it judges at 1.04. Not slowed
	// at all, it reads 0.52: the loaded calibration's median round (0.63 of its best here)
	// says nothing of the quiet machine's typical state, so it must not lift that reading
	// to 0.83, and the row is no "at ceiling".
	wide := *st
	wide.MixSpreads = map[string]profiles.Spread{"copy_cold": {Min: 2e11, Median: 0.63 * 0.6 * (1 << 40), Max: 0.6 * (1 << 40), N: 7}}
	red := reporttest.Rec("vector.fp32", 0, 1<<30, float64(1<<30)/(0.52*0.6*(1<<40)))
	red.RefRate = 0.5 * 0.6 * (1 << 40)
	if row = NewPricer(&wide, nil, "").Price(&red); row.Verdict == AtCeiling || row.JudgedLow > 0.53 {
		t.Errorf("a row whose reference the load slowed more than the row, on a loaded profile: verdict %q judged %v [%v, %v]", row.Verdict, row.Judged, row.JudgedLow, row.JudgedHigh)
	}
	// A read-only row beside a triad reference that the load slowed more than the row (the
	// reference waits on its slowest worker), on a loaded profile whose envelope the load
	// slowed by more than the drift cap: at 0.91 of that envelope and 1.04x its reference
	// it reads at ceiling on both readings, yet the true ceiling may be as high as the
	// profile's theoretical one, where it reads 0.55: not "at ceiling".
	sum := reporttest.Rec("vector.fp32", 0, 1<<30, float64(1<<30)/(0.91*0.6*(1<<40)))
	sum.RefRate = 0.875 * 0.6 * (1 << 40)
	if row = NewPricer(st, nil, "").Price(&sum); row.Verdict == AtCeiling || row.JudgedLow > 0.56 {
		t.Errorf("a row 1.04x its reference at 0.91 of a loaded envelope: verdict %q judged %v [%v, %v] unsure %q", row.Verdict, row.Judged, row.JudgedLow, row.JudgedHigh, row.Unsure)
	}
	gemm := reporttest.Rec("vector.fp32", 1<<30, 1<<10, 1.0/(1<<11)/0.45)
	gemm.ProbeRate, gemm.ProbeRateLow, gemm.ProbeRateHigh = 0.5*reporttest.VecEff, 0.48*reporttest.VecEff, 0.52*reporttest.VecEff
	if row = NewPricer(loaded, nil, "").Price(&gemm); row.Verdict != AtCeiling || row.Unsure != "" {
		t.Errorf("a compute-bound row with its probe on a loaded profile: verdict %q judged %v unsure %q", row.Verdict, row.Judged, row.Unsure)
	}
	gemm.Seconds, gemm.MinSeconds, gemm.MaxSeconds = 1.0/(1<<11)/0.2, 0, 0
	if row = NewPricer(loaded, nil, "").Price(&gemm); row.Verdict != Below {
		t.Errorf("a slow compute-bound row with its probe on a loaded profile: verdict %q judged %v", row.Verdict, row.Judged)
	}
}

// TestMachineOff: how far a record's references sat from the calibration's typical machine
// is |ln| of the same-time reference over its pattern's calibrated median, or of the probe
// over the probe roof's median, the larger; 0 without either.
func TestMachineOff(t *testing.T) {
	p := sameTimeProfile(t) // triad_cold's median: 2.5e11
	c := p.Units[profiles.ProbeKey]
	c.Spread = profiles.Spread{Min: 0.9e12, Median: 1e12, Max: 1.1e12, N: 7}
	p.Units[profiles.ProbeKey] = c
	for _, tc := range []struct {
		name       string
		ref, probe float64
		want       float64
	}{
		{"typical", 2.5e11, 1e12, 0},
		{"reference at half", 1.25e11, 1e12, math.Ln2},
		{"reference at twice", 5e11, 0, math.Ln2},
		{"probe further off", 2e11, 0.25e12, 2 * math.Ln2},
		{"neither", 0, 0, 0},
	} {
		rec := reporttest.Rec("vector.fp32", 0, 1<<30, 1e-3)
		rec.RefRate, rec.ProbeRate = tc.ref, tc.probe
		if got := MachineOff(p, &rec); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: MachineOff = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPast: a row's earlier runs widen the interval that decides "at the line", so that a
// row read on both sides of the line from run to run is at it, in every run.
func TestPast(t *testing.T) {
	const unit = 1.0 / (1 << 11)
	at90 := reporttest.Rec("vector.fp32", 0, 9<<28, 10*unit)  // 90%
	at60 := reporttest.Rec("vector.fp32", 0, 6<<28, 10*unit)  // 60%
	other := reporttest.Rec("vector.fp32", 0, 6<<28, 10*unit) // an implementation's own row
	other.Impl = "torch"
	for _, c := range []struct {
		name string
		rec  record.Record
		past Past
		want Verdict
	}{
		{"no past", at90, Past{}, AtCeiling},
		{"past at ceiling too", at90, Past{Low: 0.85, High: 0.95, Runs: 4}, AtCeiling},
		{"a past run below", at90, Past{Low: 0.6, High: 0.95, Runs: 4}, AtLine},
		{"below, a past run at ceiling", at60, Past{Low: 0.55, High: 0.82, Runs: 2}, AtLine},
		{"below then and now", at60, Past{Low: 0.5, High: 0.7, Runs: 9}, Below},
		{"the history keeps ropgen's rows only", other, Past{Low: 0.5, High: 0.9, Runs: 9}, Below},
	} {
		p := NewPricer(reporttest.Profile(t), nil, "")
		var asked int
		p.Past = func(device string, key RowKey) (Past, bool) {
			asked++
			if key != KeyOf(&c.rec) || device != c.rec.Device {
				t.Errorf("%s: asked for %q %v", c.name, device, key)
			}
			return c.past, c.past.Runs > 0
		}
		row := p.Price(&c.rec)
		if row.Verdict != c.want {
			t.Errorf("%s: judged %.2f, past %+v: verdict %q, want %q (note %q)", c.name, row.Judged, c.past, row.Verdict, c.want, row.Note)
		}
		if c.want == AtLine && !strings.Contains(row.Note, "at the line over its runs") {
			t.Errorf("%s: the note does not say the runs put it at the line: %q", c.name, row.Note)
		}
		if c.rec.Impl != "" && asked > 0 {
			t.Errorf("%s: the history was asked for another implementation's row", c.name)
		}
	}
}

// TestGroupMostSamples: a row of records timed with same-time references is its records with
// the most samples (their references are their own moments'), the others counted and noted;
// records without references pool whatever their sample counts.
func TestGroupMostSamples(t *testing.T) {
	quick := reporttest.Rec("vector.fp32", 0, 4<<28, 0.004)
	quick.Iters, quick.RefRate, quick.ProbeRate = 5, 1e10, 1e11
	chart := quick
	chart.Iters, chart.Seconds, chart.RefRate = 15, 0.006, 2e10
	for _, order := range [][]record.Record{{quick, chart}, {chart, quick}} {
		s := Group(order)
		if len(s) != 1 || len(s[0].Samples) != 1 || s[0].Seconds != 0.006 || s[0].RefRate != 2e10 || s[0].Fewer != 1 {
			t.Fatalf("quick and chart records: %+v; want the chart's alone, the quick one counted", s)
		}
		_, rows := PriceRun(NewPricer(reporttest.Profile(t), nil, ""), order)
		if !strings.Contains(rows[0].Note, "1 record(s) of fewer samples left out") {
			t.Errorf("the row's note %q does not say a record was left out", rows[0].Note)
		}
	}
	warm1 := reporttest.Rec("vector.fp32", 0, 4<<28, 0.004)
	warm1.Iters = 5000
	warm2 := warm1
	warm2.Iters, warm2.Seconds = 6000, 0.005
	if s := Group([]record.Record{warm1, warm2}); len(s) != 1 || len(s[0].Samples) != 2 || s[0].Fewer != 0 {
		t.Errorf("warm records of two batch sizes: %+v; want both pooled", s)
	}
}

// TestContentionJudgedByPast: a row whose same-time reference ran far off its calibrated rate
// (a busy machine) is judged on its rate over that reference when that rate is within its
// quiet runs': the load slowed the reference and the row alike, and a row the machine's speed
// did not touch would have read far above them. A ratio outside them, or too few quiet runs,
// leaves it inconclusive.
func TestContentionJudgedByPast(t *testing.T) {
	p := reporttest.Profile(t)
	p.MixFractions = map[string]float64{"copy_cold": 0.5}
	p.MixSpreads = map[string]profiles.Spread{"copy_cold": {Min: 4.5e11, Median: 5e11, Max: 5.5e11, N: 9}}
	sol := 4.0 / (1 << 11)
	r := reporttest.Rec("vector.fp32", 0, 4<<28, sol/0.6)
	r.MinSeconds, r.MaxSeconds = r.Seconds, r.Seconds
	r.RefRate = 3.5e11 // 30% below the calibration's median: contended
	alone := NewPricer(p, nil, "").Price(&r)
	if alone.Contention == nil || alone.Verdict != Inconclusive {
		t.Fatalf("without a past: contention %v, verdict %q; want contended, inconclusive", alone.Contention, alone.Verdict)
	}
	ratio := alone.RefRatio
	checkPastVerdicts(t, p, &r, AtCeiling, []pastCase{
		{"its quiet runs' ratio", Past{Low: 0.9, High: 0.97, Runs: 5, RatioLow: ratio * 0.97, RatioHigh: ratio * 1.03, RatioRuns: 5}, AtCeiling},
		{"a ratio off its quiet runs'", Past{Low: 0.9, High: 0.97, Runs: 5, RatioLow: ratio * 1.1, RatioHigh: ratio * 1.2, RatioRuns: 5}, Inconclusive},
		{"too few quiet runs", Past{Low: 0.9, High: 0.97, Runs: 2, RatioLow: ratio * 0.97, RatioHigh: ratio * 1.03, RatioRuns: 2}, Inconclusive},
		{"its quiet runs below the line", Past{Low: 0.5, High: 0.6, Runs: 5, RatioLow: ratio * 0.97, RatioHigh: ratio * 1.03, RatioRuns: 5}, AtLine},
	})
}

// pastCase is one past a row is priced with, and the verdict it must get.
type pastCase struct {
	name string
	past Past
	want Verdict
}

// checkPastVerdicts prices r against p with each case's past and checks its verdict; a row
// that gets the verdict decided (its quiet runs' ratio carried it) must say why in its note.
func checkPastVerdicts(t *testing.T, p *profiles.Profile, r *record.Record, decided Verdict, cases []pastCase) {
	t.Helper()
	for _, c := range cases {
		pr := NewPricer(p, nil, "")
		pr.Past = func(string, RowKey) (Past, bool) { return c.past, true }
		row := pr.Price(r)
		if row.Verdict != c.want {
			t.Errorf("%s: verdict %q (judged %.2f [%.2f, %.2f], note %q); want %q", c.name, row.Verdict, row.Judged, row.JudgedLow, row.JudgedHigh, row.Note, c.want)
		}
		if c.want == decided && !strings.Contains(row.Note, "slowed the reference and the row alike") {
			t.Errorf("%s: the note does not say why: %q", c.name, row.Note)
		}
	}
}

// TestProbeJudgedByPast: a memory-bound row whose compute probe says the machine computed
// slower than calibrated keeps its judged verdict when its rate over its same-time reference
// is within its quiet runs' (the load slowed the reference and the row alike), and reads
// inconclusive without such a past or with a ratio outside it.
func TestProbeJudgedByPast(t *testing.T) {
	const best = reporttest.VecEff
	p := reporttest.Profile(t)
	p.MixFractions = map[string]float64{"copy_cold": 0.5}
	p.MixSpreads = map[string]profiles.Spread{"copy_cold": {Min: 4.5e11, Median: 5e11, Max: 5.5e11, N: 9}}
	sol := 4.0 / (1 << 11)
	r := reporttest.Rec("vector.fp32", 1<<20, 4<<28, sol/0.6)
	r.MinSeconds, r.MaxSeconds = r.Seconds, r.Seconds
	r.RefRate = 5e11 // at the calibration's median: no contention
	r.ProbeRate, r.ProbeRateLow, r.ProbeRateHigh = 0.6*best, 0.55*best, 0.65*best
	alone := NewPricer(p, nil, "").Price(&r)
	if alone.Contention != nil || alone.Verdict != Inconclusive || !strings.Contains(alone.Note, "the machine computed at 60.0%") {
		t.Fatalf("without a past: contention %v, verdict %q, note %q; want uncontended, inconclusive by the probe", alone.Contention, alone.Verdict, alone.Note)
	}
	ratio, j := alone.RefRatio, alone.Judged
	if reachesCeiling(j) {
		t.Fatalf("judged %v: the case needs a row below the line", j)
	}
	checkPastVerdicts(t, p, &r, Below, []pastCase{
		{"its quiet runs' ratio", Past{Low: j * 0.95, High: j * 1.05, Runs: 5, RatioLow: ratio * 0.97, RatioHigh: ratio * 1.03, RatioRuns: 5}, Below},
		{"a ratio off its quiet runs'", Past{Low: j * 0.95, High: j * 1.05, Runs: 5, RatioLow: ratio * 1.1, RatioHigh: ratio * 1.2, RatioRuns: 5}, Inconclusive},
		{"too few quiet runs", Past{Low: j * 0.95, High: j * 1.05, Runs: 2, RatioLow: ratio * 0.97, RatioHigh: ratio * 1.03, RatioRuns: 2}, Inconclusive},
	})
}
