package opsbench

import (
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/ops"
	"github.com/ropgen/ropgen/perf/bench"
)

// matrixCases returns the catalog's cases of the named ops.
func matrixCases(t *testing.T, names ...string) []manifest.Case {
	_, cases := catalog(t)
	var all []manifest.Case
	for _, name := range names {
		if len(cases[name]) == 0 {
			t.Fatalf("op %s has no implemented workloads in the catalog", name)
		}
		all = append(all, cases[name]...)
	}
	return all
}

// inputNamed returns the instance's input named name, or nil.
func inputNamed(in *ops.Instance, name string) *ops.Tensor {
	for _, a := range in.Inputs {
		if a.Name == name {
			return a.T
		}
	}
	return nil
}

// TestContractionFlops checks the generated EvalRoofline of the matrix and pooling ops on
// every workload and dtype of the catalog against a count derived from the bound tensors
// instead of the manifest's dims: a contraction does one multiply-add (2 FLOPs) per output
// element per term of its reduction, whose length is read off an input's shape, plus one
// add per output element for a bias; a pool combines KH·KW taps per output, with KH·KW - 1
// compare-selects (max) or adds and one divide (avg).
func TestContractionFlops(t *testing.T) {
	for _, c := range matrixCases(t, "GemmFwd", "BatchedGemmFwd", "LinearFwd", "Conv2dFwd", "AvgPool2dFwd", "MaxPool2dFwd",
		"AdaptiveAvgPool2dFwd", "AdaptiveMaxPool2dFwd") {
		in, op, ok := buildMeta(t, c)
		if !ok {
			continue
		}
		out := int64(in.Outputs[0].T.Numel())
		var want int64
		switch c.Op {
		case "GemmFwd":
			want = 2 * out * int64(inputNamed(in, "a").Shape[1])
		case "BatchedGemmFwd":
			want = 2 * out * int64(inputNamed(in, "a").Shape[2])
		case "LinearFwd", "Conv2dFwd":
			w := inputNamed(in, "weight")
			want = 2 * out * int64(w.Numel()/w.Shape[0]) // one filter: C_in·KH·KW, or K
			if inputNamed(in, "bias") != nil {
				want += out
			}
		case "AdaptiveAvgPool2dFwd", "AdaptiveMaxPool2dFwd":
			// Every output's bin counted one by one: s FLOPs for the average, s - 1 for the max.
			x, y := inputNamed(in, "x").Shape, in.Outputs[0].T.Shape
			for oh := range y[2] {
				for ow := range y[3] {
					bh := (oh+1)*x[2]/y[2] - oh*x[2]/y[2]
					if (oh+1)*x[2]%y[2] != 0 {
						bh++
					}
					bw := (ow+1)*x[3]/y[3] - ow*x[3]/y[3]
					if (ow+1)*x[3]%y[3] != 0 {
						bw++
					}
					want += int64(bh * bw)
					if c.Op == "AdaptiveMaxPool2dFwd" {
						want--
					}
				}
			}
			want *= int64(x[0] * x[1])
		case "AvgPool2dFwd", "MaxPool2dFwd":
			k := c.Params["kernel_size"].([]int)
			taps := int64(k[0] * k[1])
			want = out * taps
			if c.Op == "MaxPool2dFwd" {
				want = out * (taps - 1)
			}
		}
		flops, _, err := op.EvalRoofline()
		if err != nil {
			t.Fatalf("%s %s: %v", c.Op, c.Label, err)
		}
		if flops != want {
			t.Errorf("%s %s %v: EvalRoofline flops = %d, independent count %d", c.Op, c.Label, c.DTypes, flops, want)
		}
	}
}

// TestContractionRoofs checks the compute roof of every matrix op case: the matrix unit at
// the dtype of the contraction (q's for attention), never an fp8 or vector roof; pools run
// on the vector unit of their dtype (the generated default).
func TestContractionRoofs(t *testing.T) {
	want := map[string]string{"float16": "cube.fp16", "bfloat16": "cube.bf16", "float32": "cube.fp32"}
	for _, c := range matrixCases(t, "GemmFwd", "BatchedGemmFwd", "LinearFwd", "Conv2dFwd", "AttentionFwd", "AvgPool2dFwd", "MaxPool2dFwd",
		"AdaptiveAvgPool2dFwd", "AdaptiveMaxPool2dFwd") {
		in, op, ok := buildMeta(t, c)
		if !ok {
			continue
		}
		first := in.Inputs[0]
		w := want[c.DTypes[first.Name]]
		if strings.HasSuffix(c.Op, "Pool2dFwd") {
			w = map[string]string{"float16": "vector.fp16", "bfloat16": "vector.bf16", "float32": "vector.fp32"}[c.DTypes[first.Name]]
		}
		if got := op.ComputeRoof(); got != w {
			t.Errorf("%s %s %v: ComputeRoof = %q, want %q", c.Op, c.Label, c.DTypes, got, w)
		}
	}
}

// catalogCase returns the catalog's case of op for the workload labelled label and dtype
// (the first input's).
func catalogCase(tb testing.TB, op, label, dtype string) manifest.Case {
	tb.Helper()
	cat, cases := catalog(tb)
	first := cat.Op(op).Inputs[0].Name
	for _, c := range cases[op] {
		if c.Label == label && c.DTypes[first] == dtype {
			return c
		}
	}
	tb.Fatalf("%s has no workload %s in %s", op, label, dtype)
	return manifest.Case{}
}

// benchCase builds a catalog case, checks kernel against reference (a fast wrong kernel is
// no kernel), and returns the instance with its roofline.
func benchCase(b *testing.B, op, label, dtype string) (in *ops.Instance, flops, bytes int64) {
	in, err := Build(catalogCase(b, op, label, dtype), bench.BuildOptions{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	if err := in.Check(); err != nil {
		b.Fatal(err)
	}
	if flops, bytes, err = in.Op.(ops.Op).EvalRoofline(); err != nil {
		b.Fatal(err)
	}
	return in, flops, bytes
}

// benchRate times run and reports GFLOP/s from the op's own roofline.
func benchRate(b *testing.B, flops int64, run func() error) {
	for b.Loop() {
		if err := run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(flops)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkContraction times the matrix ops on their CPU workloads of the catalog, the
// blocked two-core kernel ("kernel") next to the plain reference ("naive"), in GFLOP/s.
// Keep runs short: go test ./ops -run '^$' -bench Contraction -benchtime 3x
func BenchmarkContraction(b *testing.B) {
	for _, w := range []struct{ op, label string }{
		{"GemmFwd", "cpu-256"}, {"GemmFwd", "cpu-gemv"}, {"Conv2dFwd", "cpu-resnet-like"},
		{"Conv2dFwd", "cpu-grouped-dilated"}, {"Conv2dFwd", "cpu-depthwise"},
		{"AttentionFwd", "cpu-prefill-512"},
	} {
		b.Run(w.op+"/"+w.label+"/kernel", func(b *testing.B) {
			in, flops, _ := benchCase(b, w.op, w.label, "float32")
			benchRate(b, flops, in.Run)
		})
		b.Run(w.op+"/"+w.label+"/naive", func(b *testing.B) {
			in, flops, _ := benchCase(b, w.op, w.label, "float32")
			outs := make([]*ops.Tensor, len(in.Outputs))
			for i, o := range in.Outputs {
				outs[i] = o.T
			}
			benchRate(b, flops, func() error { return in.Reference(outs) })
		})
	}
}

func BenchmarkMaxPool2dFwd(b *testing.B) { benchVsCopy(b, "MaxPool2dFwd", "resnet50-b1-stem-maxpool") }

func BenchmarkAvgPool2dFwd(b *testing.B) {
	benchVsCopy(b, "AvgPool2dFwd", "densenet121-b32-transition1")
}

// Adaptive pools: global average pooling (ResNet-50's head), and 7 x 7 ROI max pooling of
// 14 x 14 crops.
func BenchmarkAdaptiveAvgPool2dFwd(b *testing.B) {
	benchVsCopy(b, "AdaptiveAvgPool2dFwd", "resnet50-b32-head")
}

func BenchmarkAdaptiveMaxPool2dFwd(b *testing.B) {
	benchVsCopy(b, "AdaptiveMaxPool2dFwd", "frcnn-512-roi-7x7")
}

// The same window in ceil mode without the padding in the divisor (ResNet-D's avg down):
// the per-window divisor is computed for every output.
func BenchmarkAvgPool2dFwdCeilExcludePad(b *testing.B) {
	benchVsCopy(b, "AvgPool2dFwd", "resnet50d-b32-layer2-avg-down")
}
