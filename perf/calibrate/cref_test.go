package calibrate

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ropgen/ropgen/perf/profiles"
)

var (
	crefRounds = flag.Int("cref", 0, "TestCReference: run `N` interleaved rounds of the C reference (testdata/roofref.c) against the calibration's kernels")
	crefMiB    = flag.Int("cref-mib", 0, "TestCReference: array size in MiB (default: calibrate's DRAM array size)")
)

// TestCReference is the optional side-by-side comparison of issue 10: a C loop of AVX2 FMAs
// (gcc -O2 -march=native -fopenmp, 12 independent ymm accumulators on all cores), memcpy and
// an _mm256_stream_ps copy, against the calibration's own kernels, in interleaved rounds in
// one run (the machine is shared: only ratios measured side by side mean anything). It
// prints each ratio's median and range, and the ratio of the bests (the calibration keeps
// its best round as the ceiling). It is skipped unless -cref N is given, and when there is
// no C compiler:
//
//	go test ./perf/calibrate -run CReference -v -cref 5
func TestCReference(t *testing.T) {
	if *crefRounds <= 0 {
		t.Skip("the C reference comparison runs only on request: go test ./perf/calibrate -run CReference -v -cref 5")
	}
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc on PATH: the C reference comparison needs a C compiler with OpenMP")
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("the C reference uses AVX2 intrinsics: amd64 only")
	}
	bin := filepath.Join(t.TempDir(), "roofref")
	if out, err := exec.Command(cc, "-O2", "-march=native", "-fopenmp", "-o", bin, "testdata/roofref.c").CombinedOutput(); err != nil {
		t.Skipf("gcc cannot build the C reference (%v): %s", err, out)
	}
	workers := runtime.GOMAXPROCS(0)
	mib := *crefMiB
	if mib == 0 {
		mib = DefaultArrayMiB(profiles.HostCPU(), MemAvailable())
	}
	c := func(args ...string) float64 {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), fmt.Sprintf("OMP_NUM_THREADS=%d", workers), "OMP_PROC_BIND=false")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("roofref %v: %v", args, err)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		if err != nil {
			t.Fatalf("roofref %v printed %q", args, out)
		}
		return v
	}
	const fmaMS = 200
	var simd []fmaKernel
	iters := map[string]int{}
	for _, k := range kernels() {
		if k.name != "scalar" {
			simd = append(simd, k)
			iters[k.name+k.dtype] = itersFor(k, fmaDispatch)
		}
	}
	n := mib << 20 / 8
	a, b, cc3 := arrays(workers, n)
	ms := mixes()
	series := map[string][]float64{}
	t.Logf("%d workers, arrays of %d MiB, FMA runs of %d ms; each round runs every kernel once, C and Go alternating", workers, mib, fmaMS)
	for round := range *crefRounds {
		get := func(name string, v float64) { series[name] = append(series[name], v) }
		best := map[string]float64{}
		for _, dt := range []string{"fp32", "fp64"} {
			get("C fma"+dt[2:], c("fma"+dt[2:], strconv.Itoa(fmaMS)))
			for _, k := range simd {
				if k.dtype == dt {
					// Sustained, as the C loop runs: the calibration keeps its fastest
					// dispatch, printed apart.
					v, peak := fmaRate(workers, k, iters[k.name+k.dtype], int(fmaMS*time.Millisecond/fmaDispatch))
					get("Go "+k.name+" "+dt, v)
					get("Go "+k.name+" "+dt+" fastest dispatch", peak)
					best[dt] = max(best[dt], v)
				}
			}
			get("Go vector."+dt, best[dt])
		}
		get("C memcpy", c("memcpy", strconv.Itoa(mib)))
		get("C stream", c("stream", strconv.Itoa(mib)))
		env, envMix := 0.0, ""
		for _, mx := range ms {
			// As calibrate does: a warm pass is not needed, the arrays stay touched.
			r := timeMix(workers, mx, a, b, cc3)
			get("Go "+mx.name, r)
			if r > env {
				env, envMix = r, mx.name
			}
		}
		get("Go DRAM envelope", env)
		t.Logf("round %d: envelope mix %s", round+1, envMix)
	}
	ratio := func(x, y []float64) []float64 {
		var r []float64
		for i := range x {
			r = append(r, x[i]/y[i])
		}
		return r
	}
	var cBestCopy []float64
	for i := range series["C memcpy"] {
		cBestCopy = append(cBestCopy, max(series["C memcpy"][i], series["C stream"][i]))
	}
	show := func(name string, v []float64) {
		s := profiles.SpreadOf(append([]float64(nil), v...))
		t.Logf("%-34s median %.4g  range %.4g-%.4g  (n %d)", name, s.Median, s.Min, s.Max, s.N)
	}
	names := []string{"C fma32", "C fma64"}
	for _, k := range simd {
		names = append(names, "Go "+k.name+" "+k.dtype, "Go "+k.name+" "+k.dtype+" fastest dispatch")
	}
	names = append(names, "Go vector.fp32", "Go vector.fp64", "C memcpy", "C stream")
	for _, mx := range ms {
		names = append(names, "Go "+mx.name)
	}
	names = append(names, "Go DRAM envelope")
	for _, name := range names {
		show(name, series[name])
	}
	best := func(v []float64) float64 { return profiles.SpreadOf(append([]float64(nil), v...)).Max }
	show("ratio vector.fp32 / C fma32", ratio(series["Go vector.fp32"], series["C fma32"]))
	show("ratio vector.fp64 / C fma64", ratio(series["Go vector.fp64"], series["C fma64"]))
	if _, ok := series["Go avx2 fp32"]; ok {
		show("ratio avx2 fp32 / C fma32 (same ISA)", ratio(series["Go avx2 fp32"], series["C fma32"]))
	}
	show("ratio envelope / max(memcpy, stream)", ratio(series["Go DRAM envelope"], cBestCopy))
	show("ratio Go copy / C memcpy (same operation)", ratio(series["Go copy"], series["C memcpy"]))
	if _, ok := series["Go copy_nt"]; ok {
		show("ratio Go copy_nt / C stream (same kernel)", ratio(series["Go copy_nt"], series["C stream"]))
	}
	t.Logf("ratio of bests (the calibration keeps its best round): vector.fp32 %.3f (target >= 0.8), vector.fp64 %.3f, DRAM envelope %.3f (target >= 0.9)",
		best(series["Go vector.fp32"])/best(series["C fma32"]), best(series["Go vector.fp64"])/best(series["C fma64"]),
		best(series["Go DRAM envelope"])/best(cBestCopy))
}
