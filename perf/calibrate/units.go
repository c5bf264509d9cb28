package calibrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/perf/profiles"
)

// The compute roofs a profile names (docs/model.md §3.4, §4): vector.<dtype> is the SIMD unit of
// the dtype, cube.<dtype> the unit an optimal matrix contraction in that dtype would use on this
// host, scalar.<dtype> one lane of the SIMD pipes. A CPU fills the matrix role with a matrix unit
// where it has one the OS enables (AMX tiles: bf16, int8), else with the SIMD unit of the dtype:
// AVX512-BF16 (VDPBF16PS) and AVX512-FP16 for the 16-bit types, AVX512-VNNI (VPDPBUSD) for int8
// (the instruction an int8 GEMM uses without AMX), the FMA pipes for fp32 and fp64 (no CPU has
// a matrix unit for them, and a float64 GEMM declares cube.fp64 as any other). A dtype with no kernel
// here gets no key of its own: the report prices it at the fp32 roof of the same role and quotes
// half_precision.
var (
	vectorDTypes = []string{"fp32", "fp64", "bf16", "fp16"}
	cubeDTypes   = []string{"fp32", "fp64", "bf16", "fp16", "int8"}
	scalarDTypes = []string{"fp32", "fp64"}
)

// RoofKeys are the compute roof keys r fills, in the profile's order.
func (r *Result) RoofKeys() []string {
	var keys []string
	for _, u := range []struct {
		unit string
		dts  []string
	}{{"vector", vectorDTypes}, {"cube", cubeDTypes}, {"scalar", scalarDTypes}} {
		for _, dt := range u.dts {
			if _, ok := r.Filler(u.unit + "." + dt); ok {
				keys = append(keys, u.unit+"."+dt)
			}
		}
	}
	return keys
}

// Filler returns the kernel whose measurement is the roof key ("vector.bf16", "cube.int8",
// "scalar.fp32"), and whether r has one: cube.<dtype> is the fastest matrix-unit kernel of
// the dtype, else the SIMD kernel of the dtype (int8 only in that role: VNNI's dot products
// are what an int8 contraction runs on, and no vector.int8 key prices anything). A 16-bit
// dtype whose own instructions are slower here than the fp32 pipes of the same role gets the
// fp32 kernel: an optimal kernel would convert (a shift for bf16) and compute in fp32, so a
// roof at the slower instructions would be one that legitimate code exceeds.
func (r *Result) Filler(key string) (ComputeResult, bool) {
	c, ok := r.own(key)
	unit, dt, _ := strings.Cut(key, ".")
	if ok && (dt == "bf16" || dt == "fp16") {
		if f, ok32 := r.own(unit + ".fp32"); ok32 && f.Rate.Max > c.Rate.Max {
			return f, true
		}
	}
	return c, ok
}

// own is the kernel of key's own dtype (Filler before the fp32 comparison).
func (r *Result) own(key string) (ComputeResult, bool) {
	unit, dt, _ := strings.Cut(key, ".")
	switch unit {
	case "scalar":
		return r.Best(dt, false)
	case "vector":
		if dt == "int8" {
			return ComputeResult{}, false
		}
		return r.Best(dt, true)
	case "cube":
		var best ComputeResult
		ok := false
		for _, c := range r.Compute {
			if c.DType == dt && c.Unit == "cube" && c.Rate.Max > best.Rate.Max {
				best, ok = c, true
			}
		}
		if ok {
			return best, true
		}
		return r.Best(dt, true)
	}
	return ComputeResult{}, false
}

// pricedRoofs are the compute roofs ops price against (all but the scalar ones), each
// kernel once under the first key it fills (cube.fp32 is vector.fp32's measurement, and so
// is cube.bf16 vector.bf16's without AMX), with the kernel that fills it.
func (r *Result) pricedRoofs() (keys []string, fillers []ComputeResult) {
	for _, key := range r.RoofKeys() {
		c, _ := r.Filler(key)
		if strings.HasPrefix(key, "scalar.") || slices.ContainsFunc(fillers, func(f ComputeResult) bool { return f.Kernel == c.Kernel && f.DType == c.DType }) {
			continue
		}
		keys, fillers = append(keys, key), append(fillers, c)
	}
	return keys, fillers
}

// fills reports whether kernel c is the measurement of one of r's roofs.
func (r *Result) fills(c ComputeResult) bool {
	for _, key := range r.RoofKeys() {
		if f, _ := r.Filler(key); f.Kernel == c.Kernel && f.DType == c.DType {
			return true
		}
	}
	return false
}

// ownDTypes are the 16-bit dtypes with roofs of their own here (not priced at fp32).
func (r *Result) ownDTypes() map[string]bool {
	own := map[string]bool{}
	for _, dt := range []string{"bf16", "fp16"} {
		_, own[dt] = r.Best(dt, true)
	}
	return own
}

// roofComment is the YAML comment after a roof's key: what kernel measured it and how.
func roofComment(c ComputeResult) string {
	if c.TileCycles > 0 {
		return fmt.Sprintf("%s kernel: %d accumulator tiles per goroutine; %s; a round is its fastest %v dispatch", c.Kernel, c.Accs, c.How, fmaDispatch)
	}
	s := fmt.Sprintf("%s kernel: %d independent multiply-add accumulators of %d lanes per goroutine, 2 FLOPs each", c.Kernel, c.Accs, c.Lanes)
	if c.How != "" {
		s += " (" + c.How + ")"
	}
	return s + fmt.Sprintf("; a round is its fastest %v dispatch", fmaDispatch)
}

// kernelCeiling is the theoretical value of kernel c's unit.
func kernelCeiling(cpu profiles.CPU, c ComputeResult) theoretical {
	if c.TileCycles > 0 {
		return computeCeilingOf(cpu, 2*float64(c.Lanes)/float64(c.TileCycles),
			fmt.Sprintf("%d multiply-adds a tile multiply (%s) / %d cycles a tile multiply (assumed: Intel's published AMX peak) x 2", c.Lanes, c.Kernel, c.TileCycles), c.Rate.Max)
	}
	return computeCeiling(cpu, c.Lanes, c.Kernel, c.Rate.Max)
}

// roofTheoretical is the theoretical value of the roof key that c fills (Filler), its note
// led by the hardware that fills the role where the key's name does not say it. Where the
// fp32 pipes fill a 16-bit key, the theoretical value is the larger of theirs and the
// dtype's own instructions': either path is legitimate code, and the physics check must
// accuse neither.
func (r *Result) roofTheoretical(key string, c ComputeResult) theoretical {
	cpu := r.CPU
	th := kernelCeiling(cpu, c)
	unit, dt, _ := strings.Cut(key, ".")
	if own, ok := r.own(key); ok && own.DType != c.DType {
		oth := kernelCeiling(cpu, own)
		role := fmt.Sprintf("filled by the fp32 pipes (the %s.fp32 kernel %s, best %.4g FLOP/s), faster on this host than the %s instructions (kernel %s, best %.4g): an optimal %s kernel converts to fp32 and computes there", unit, c.Kernel, c.Rate.Max, dt, own.Kernel, own.Rate.Max, dt)
		if oth.value > th.value {
			th.value = oth.value
			th.note = role + ". Theoretical: the larger of the two paths', the " + dt + " instructions': " + oth.note
		} else {
			th.note = role + ". Theoretical: the larger of the two paths', the fp32 pipes': " + th.note
		}
		return th
	}
	var role string
	switch {
	case unit == "cube" && c.Unit == "cube":
		role = fmt.Sprintf("matrix role filled by the matrix unit (%s %s)", c.Kernel, dt)
	case unit == "cube" && (dt == "fp32" || dt == "fp64"):
		role = fmt.Sprintf("matrix role filled by the %[1]s FMA pipes (the vector.%[1]s kernel): a CPU has no %[1]s matrix unit", dt)
	case unit == "cube":
		why := amxWhy
		if why == "" {
			why = "this calibration has no matrix-unit kernel for " + dt
		}
		role = fmt.Sprintf("matrix role filled by the %s SIMD unit (the vector kernel %s), not by a matrix unit: %s", dt, c.Kernel, why)
	case unit == "vector" && c.How != "":
		role = fmt.Sprintf("the %s SIMD unit (%s)", dt, c.Kernel)
	}
	if dt == "int8" {
		role += "; int8 multiply-adds are counted as 2 operations each, as FLOPs are"
	}
	if role != "" {
		th.note = role + ". Theoretical: " + th.note
	}
	return th
}
