package opsbench

import (
	"testing"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/ops"
	"github.com/ropgen/ropgen/perf/bench"
)

// TestRank0InputIsBound: a rank-0 input (x_shape: []) binds an empty shape, which is a bound
// shape, not an unbound one, so EvalRoofline prices the one element instead of failing with
// "input x is not bound" (ops' TestBindShapeRank0 holds bindShape to it).
func TestRank0InputIsBound(t *testing.T) {
	c := manifest.Case{Op: "ReluFwd", Label: "rank0", Shapes: map[string][]int{"x": {}, "y": {}},
		Params: map[string]any{}, DTypes: map[string]string{"x": "float32", "y": "float32"}}
	for _, meta := range []bool{false, true} {
		in, err := Build(c, bench.BuildOptions{Seed: 1, Meta: meta})
		if err != nil {
			t.Fatalf("meta=%t: Build: %v", meta, err)
		}
		flops, bytes, err := in.Op.(ops.Op).EvalRoofline()
		if err != nil {
			t.Fatalf("meta=%t: EvalRoofline: %v", meta, err)
		}
		if bytes != 8 { // one float32 read, one written
			t.Errorf("meta=%t: rank-0 ReluFwd moves %d bytes (flops %d), want 8", meta, bytes, flops)
		}
	}
}
