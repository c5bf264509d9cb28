// Package reporttest holds the fixtures that the tests of the pricing core (perf/report) and
// of its renderers (perf/render) share: a device profile whose ceilings are powers of two, its
// records, and a CPU profile whose copy ceiling is too noisy to set a drift tolerance.
package reporttest

import (
	"testing"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
)

// YAML is the test profile. Its ceilings are powers of two, so every ceiling and time priced
// on it is exact and a ratio of two of them is the correctly rounded quotient: 4/5 gives
// exactly the float64 0.8.
//
//	hbm:         theoretical 2^40 bytes a second, effective 2^39
//	vector.fp32: theoretical 2^42 FLOPs a second, effective 2^41
//	cube.fp16:   theoretical 2^46, never measured: no effective ceiling
//	latency floor 2^-20 seconds
const YAML = `
device: "Test Device"
hbm: {theoretical: 1099511627776, calibration: 0.5}
vector:
  fp32: {theoretical: 4398046511104, calibration: 0.5}
cube:
  fp16: {theoretical: 70368744177664}
latency_floor: 9.5367431640625e-07
`

// The test profile's ceilings and floor.
const (
	HBMEff   = 1 << 39
	HBMTheo  = 1 << 40
	VecEff   = 1 << 41
	VecTheo  = 1 << 42
	CubeTheo = 1 << 46
	Floor    = 1.0 / (1 << 20)
)

// Profile returns the test profile (YAML).
func Profile(t testing.TB) *profiles.Profile {
	t.Helper()
	p, err := profiles.Parse("test.yaml", []byte(YAML))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Rec returns a Test Device record; bytes·2^-39 is its memory time, flops·2^-41 its compute
// time on vector.fp32.
func Rec(roof string, flops, bytes int64, secs float64) record.Record {
	return record.Record{Device: "Test Device", Op: "Op", Workload: "w", DType: "float32", Roof: roof,
		Flops: flops, Bytes: bytes, Seconds: secs, Iters: 1}
}

// NoisyProfile is a CPU profile whose copy mix's own rounds are 95% apart (its median is
// the drift references' baseline): a tolerance
// that followed the spread would pass any reference. Its same-time line (report.SameTimeLine)
// is the envelope over copy_cold, 0.4 / 0.3, widened by copy_cold's spread of 10/30: about
// 1.78.
func NoisyProfile(t testing.TB) *profiles.Profile {
	t.Helper()
	p, err := profiles.Parse("cpu.yaml", []byte(`
device: "cpu: Test CPU"
hbm:
  theoretical: 100e9
  calibration: 0.4
  calibration_mixes: {copy: 0.4, copy_cold: 0.3}
  mix_spreads: {copy: {min: 10e9, median: 40e9, max: 48e9, n: 7}, copy_cold: {min: 25e9, median: 30e9, max: 35e9, n: 7}}
  spread: {min: 10e9, median: 20e9, max: 40e9, n: 7}
vector:
  fp32: {theoretical: 1e12, calibration: 1}
`))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// CopyRef is a drift reference (a ref.copy record) of device, read from file, timed when
// (record.RefStart, record.RefEnd) at rate bytes/s.
func CopyRef(device, file, when string, rate float64) record.Record {
	const bytes = 1 << 30
	return record.Record{Device: device, Op: record.RefCopy, Workload: when, DType: "float64", Roof: "hbm",
		Bytes: bytes, Seconds: bytes / rate, MinSeconds: bytes / rate, MaxSeconds: bytes / rate, Iters: 5,
		Pos: diag.Pos{File: file, Line: 1}}
}
