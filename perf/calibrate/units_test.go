package calibrate

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
)

// TestRenderedUnits: the low-precision kernels fill their vector keys and, without a matrix
// unit, the matrix role of their dtype too, each note saying which hardware fills it; int8
// has only the matrix role; a matrix-unit kernel takes the role from the SIMD one, with a
// theoretical value from its tile rate; a host with none of them has none of those keys.
func TestRenderedUnits(t *testing.T) {
	load := func(r *Result) (*profiles.Profile, []byte) {
		t.Helper()
		text := Render(r)
		p, err := profiles.Parse("host.yaml", text)
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		return p, text
	}
	eff := func(p *profiles.Profile, key string) float64 {
		t.Helper()
		v, ok := p.Resolve(key, profiles.Effective)
		if !ok {
			t.Errorf("%s: %s", key, p.Why(key, profiles.Effective))
		}
		return v
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6*want {
			t.Errorf("%s = %g, want %g", what, got, want)
		}
	}

	spread := func(med float64) profiles.Spread {
		return profiles.Spread{Min: 0.95 * med, Median: med, Max: 1.03 * med, N: 7}
	}
	plain, _ := load(testResult())
	for _, key := range []string{"vector.bf16", "vector.fp16", "cube.bf16", "cube.fp16", "cube.int8"} {
		if _, ok := plain.Roof(key); ok {
			t.Errorf("a host without the unit has %s", key)
		}
	}

	r := testResult()
	r.CPU.MaxMHz = 3000
	r.Compute = append(r.Compute,
		ComputeResult{Kernel: "avx512bf16", DType: "bf16", Lanes: 32, Accs: 12, Unit: "vector", How: "VDPBF16PS zmm", Rate: spread(150e9)},
		ComputeResult{Kernel: "avx512fp16", DType: "fp16", Lanes: 32, Accs: 12, Unit: "vector", How: "VFMADD231PH zmm", Rate: spread(200e9)},
		ComputeResult{Kernel: "avx512vnni", DType: "int8", Lanes: 64, Accs: 12, Unit: "vector", How: "VPDPBUSD zmm", Rate: spread(400e9)})
	p, text := load(r)
	for key, want := range map[string]float64{"vector.bf16": 150e9, "cube.bf16": 150e9, "vector.fp16": 200e9, "cube.fp16": 200e9, "cube.int8": 400e9, "cube.fp32": 110e9, "vector.fp32": 110e9} {
		near(key, eff(p, key), want*1.03)
	}
	if _, ok := p.Roof("vector.int8"); ok {
		t.Error("vector.int8 written: no op prices against it")
	}
	for key, want := range map[string]string{
		"cube.bf16":   "matrix role filled by the bf16 SIMD unit (the vector kernel avx512bf16), not by a matrix unit",
		"cube.fp16":   "matrix role filled by the fp16 SIMD unit (the vector kernel avx512fp16)",
		"cube.int8":   "int8 multiply-adds are counted as 2 operations each",
		"cube.fp32":   "matrix role filled by the fp32 FMA pipes",
		"cube.fp64":   "matrix role filled by the fp64 FMA pipes (the vector.fp64 kernel): a CPU has no fp64 matrix unit",
		"vector.bf16": "the bf16 SIMD unit (avx512bf16)",
	} {
		if c, _ := p.Roof(key); !strings.Contains(c.Note, want) {
			t.Errorf("%s note %q, want it to say %q", key, c.Note, want)
		}
	}
	// 2 cores x 3000 MHz x 32 pairs x 2 pipes x 2
	if c, _ := p.Roof("cube.bf16"); c.Theoretical != 2*3000e6*32*2*2 {
		t.Errorf("cube.bf16 theoretical %g", c.Theoretical)
	}
	if bytes.Contains(text, []byte("half_precision:")) || bytes.Contains(text, []byte("also measured: avx512bf16")) {
		t.Errorf("bf16 and fp16 have roofs, yet the profile says how they are priced at fp32, or calls their kernel an extra:\n%s", text)
	}

	// bf16 dot products slower than the fp32 pipes (as VDPBF16PS ran at half the FMA rate on
	// a Xeon model 207 VM): the bf16 roofs are the fp32 pipes', which an optimal bf16 kernel
	// would use, the theoretical value the larger of the two paths'.
	slow := *r
	slow.Compute = slices.Clone(r.Compute)
	for i := range slow.Compute {
		if slow.Compute[i].DType == "bf16" {
			slow.Compute[i].Rate = spread(55e9)
		}
	}
	ps, slowText := load(&slow)
	for _, key := range []string{"vector.bf16", "cube.bf16"} {
		near(key+" at the fp32 pipes", eff(ps, key), 110e9*1.03)
		if c, _ := ps.Roof(key); !strings.Contains(c.Note, "filled by the fp32 pipes") || !strings.Contains(c.Note, "faster on this host than the bf16 instructions (kernel avx512bf16") || c.Theoretical != 2*3000e6*32*2*2 {
			t.Errorf("%s: %+v", key, c)
		}
	}
	near("vector.fp16 keeps its own", eff(ps, "vector.fp16"), 200e9*1.03)
	if !bytes.Contains(slowText, []byte("also measured: avx512bf16 bf16")) {
		t.Error("the slower bf16 kernel is not listed as also measured")
	}

	r.Compute = append(r.Compute, ComputeResult{Kernel: "amx", DType: "bf16", Lanes: 8192, Accs: 4, Unit: "cube", How: "TDPBF16PS", TileCycles: 16, Rate: spread(2e12)})
	p, _ = load(r)
	near("cube.bf16 on AMX", eff(p, "cube.bf16"), 2e12*1.03)
	near("vector.bf16 beside AMX", eff(p, "vector.bf16"), 150e9*1.03)
	// 2 cores x 3000 MHz x 8192 multiply-adds / 16 cycles x 2
	if c, _ := p.Roof("cube.bf16"); c.Theoretical != 2*3000e6*8192/16*2 || !strings.Contains(c.Note, "matrix role filled by the matrix unit (amx bf16)") {
		t.Errorf("cube.bf16 on AMX: %+v", c)
	}
}
