package kbench

import (
	"strings"
	"testing"
	"time"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/bench"
)

func cases(t *testing.T) []bench.Case {
	t.Helper()
	_, cs, err := bench.Load(manifest.Config{FormulasDir: "../formulas"}, "../manifest")
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestEvalClean: every workload of the catalog prices through the generated roofline.
func TestEvalClean(t *testing.T) {
	cs := cases(t)
	clean, fs := bench.Eval(Registry, cs)
	if len(fs) > 0 || clean != len(cs) || clean < 6 {
		t.Errorf("%d of %d clean: %v", clean, len(cs), fs)
	}
}

// TestWorkList: the work list (eval -json) shapes every input and output, since the
// registry is a bench.Shaper.
func TestWorkList(t *testing.T) {
	ws, fs := bench.WorkList(Registry, cases(t))
	if len(fs) > 0 || len(ws) < 6 {
		t.Fatalf("%d cases, findings %v", len(ws), fs)
	}
	for _, w := range ws {
		for _, x := range append(w.Inputs, w.Outputs...) {
			if x.Shape == nil {
				t.Errorf("%s/%s/%s: tensor %s has no shape", w.Op, w.Workload, w.DType, x.Name)
			}
		}
	}
}

// TestMeasure: the library checks a kernel and times it on this module's own types, and its
// records carry the generated counts.
func TestMeasure(t *testing.T) {
	var small []bench.Case
	for _, c := range cases(t) {
		if c.Case.Label == "cpu-small" {
			small = append(small, c)
		}
	}
	plans, err := bench.Plan(Registry, small, bench.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	opt := bench.Options{Count: 1, Samples: 2, MaxTime: 10 * time.Millisecond, Device: "cpu: test", Seed: 1}
	for _, p := range plans {
		res := bench.Measure(Registry, p, opt)
		if res.Err != nil || len(res.Records) != 1 || res.Records[0].Flops != p.Flops || p.Flops == 0 {
			t.Errorf("%s: %v, records %+v", p.Name(), res.Err, res.Records)
		}
	}
	// A kernel that disagrees with its reference is caught before it is timed.
	in, err := Registry.Build(small[0].Case, bench.BuildOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	in.(*instance).outs[0].Data[0] = 1e9
	in.(*instance).run = func() error { return nil }
	if err := in.Check(); err == nil || !strings.Contains(err.Error(), "element 0") {
		t.Errorf("a wrong output passes Check: %v", err)
	}
}

// TestBuffers: an instance names the memory of every tensor it made, so a cold sample
// flushes exactly the case's own lines.
func TestBuffers(t *testing.T) {
	for _, c := range cases(t) {
		if c.Case.Label != "cpu-small" {
			continue
		}
		in, err := Registry.Build(c.Case, bench.BuildOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, b := range in.(bench.Buffers).Buffers() {
			n += int64(len(b))
		}
		if n != in.Storage() || n == 0 {
			t.Errorf("%s: Buffers name %d bytes, Storage says %d", c.Name(), n, in.Storage())
		}
	}
}
