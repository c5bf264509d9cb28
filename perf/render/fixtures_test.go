package render

import (
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
)

// The test profile uses powers of two, so every ceiling and time below is exact and a ratio
// of two of them is the correctly rounded quotient: 4/5 gives exactly the float64 0.8.
//
//	hbm:         theoretical 2^40 B/s, effective 2^39
//	vector.fp32: theoretical 2^42 FLOP/s, effective 2^41
//	cube.fp16:   theoretical 2^46, never measured: no effective ceiling
//	latency floor 2^-20 s (about 1 µs)
const testYAML = `
device: "Test Device"
hbm: {theoretical: 1099511627776, calibration: 0.5}
vector:
  fp32: {theoretical: 4398046511104, calibration: 0.5}
cube:
  fp16: {theoretical: 70368744177664}
latency_floor: 9.5367431640625e-07
`

const (
	hbmEff   = 1 << 39
	hbmTheo  = 1 << 40
	vecEff   = 1 << 41
	vecTheo  = 1 << 42
	cubeTheo = 1 << 46
	floor    = 1.0 / (1 << 20)
)

func testProfile(t testing.TB) *profiles.Profile {
	t.Helper()
	p, err := profiles.Parse("test.yaml", []byte(testYAML))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// rec returns a Test Device record; bytes·2^-39 is its memory time, flops·2^-41 its compute
// time on vector.fp32.
func rec(roof string, flops, bytes int64, secs float64) record.Record {
	return record.Record{Device: "Test Device", Op: "Op", Workload: "w", DType: "float32", Roof: roof,
		Flops: flops, Bytes: bytes, Seconds: secs, Iters: 1}
}

func price(t *testing.T, r record.Record) report.Row {
	t.Helper()
	return report.NewPricer(nil, []*profiles.Profile{testProfile(t)}, "").Price(&r)
}

func sampleRows(t *testing.T) (*report.Pricer, []report.Row) {
	recs := []record.Record{
		rec("vector.fp32", 1<<28, 1<<30, 1.0/(1<<8)),
		rec("cube.fp16", 1<<40, 1<<30, 1),
		rec("vector.fp32", 1<<60+1, 1<<30, 0), // a count only JSON keeps exactly
		rec("vector.fp32", 1<<30, 0, 1),
	}
	recs[1].Workload, recs[2].Workload, recs[3].Workload = "prefill, \"big\"", "decode", "empty"
	pr := report.NewPricer(nil, []*profiles.Profile{testProfile(t)}, "")
	return pr, pr.PriceAll(recs)
}
