package report

import (
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
)

// TestRoofNames: a CPU's cube roofs are named for the hardware that fills them: the vector
// pipes (a profile from before the notes said, or one whose note names the SIMD unit), the
// matrix unit where its note says one fills it; a GPU's keys stay as they are.
func TestRoofNames(t *testing.T) {
	parse := func(y string) *profiles.Profile {
		p, err := profiles.Parse("host.yaml", []byte(y))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	cpu := parse(`
device: "cpu: Test"
hbm: {theoretical: 1.0e+10, calibration: 0.5}
vector:
  fp32: {theoretical: 1.0e+11, calibration: 0.5}
  bf16: {theoretical: 2.0e+11, calibration: 0.5}
cube:
  fp32: {theoretical: 1.0e+11, calibration: 0.5, note: "matrix role filled by the fp32 FMA pipes (the vector.fp32 kernel): a CPU has no fp32 matrix unit"}
  bf16: {theoretical: 2.0e+12, calibration: 0.5, note: "matrix role filled by the matrix unit (amx_bf16 bf16). Theoretical: ..."}
  int8: {theoretical: 7.0e+11, calibration: 0.5, note: "matrix role filled by the int8 SIMD unit (the vector kernel vnni), not by a matrix unit"}
`)
	gpu := parse("device: \"Test GPU\"\nhbm: {theoretical: 1.0e+12, calibration: 0.5}\ncube:\n  bf16: {theoretical: 1.0e+15, calibration: 0.5}\n")
	for _, c := range []struct {
		prof      *profiles.Profile
		key, want string
	}{
		{cpu, "cube.fp32", "vector.fp32"}, {cpu, "cube.bf16", "matrix.bf16"}, {cpu, "cube.int8", "vector.int8"},
		{cpu, "cube.fp16", "vector.fp16"}, {cpu, "vector.fp32", "vector.fp32"}, {gpu, "cube.bf16", "cube.bf16"},
	} {
		if got := RoofName(c.prof, c.key); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.prof.Device, c.key, got, c.want)
		}
	}
	// cube.fp32 is named by vector.fp32 already; cube.int8 has no vector key to stand for it.
	if keys, aliased := ComputeKeys(cpu); strings.Join(keys, " ") != "cube.bf16 cube.int8 vector.bf16 vector.fp32" || !aliased {
		t.Errorf("ComputeKeys: %q, %v", keys, aliased)
	}
	if !HasMatrixUnit(cpu) || !HasMatrixUnit(gpu) {
		t.Error("HasMatrixUnit: the AMX CPU and the GPU have one")
	}
}
