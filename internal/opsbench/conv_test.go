package opsbench

import (
	"strings"
	"testing"

	"github.com/ropgen/ropgen/ops"
)

func convCase(label string, x, w [4]int, stride, padding int, bias bool, dtype string) kcase {
	return convCaseDG(label, x, w, stride, padding, 1, 1, bias, dtype)
}

// convCaseDG is convCase with dilation and groups; w is the weight's shape
// [C_out, C_in/groups, KH, KW].
func convCaseDG(label string, x, w [4]int, stride, padding, dilation, groups int, bias bool, dtype string) kcase {
	hOut := (x[2]+2*padding-dilation*(w[2]-1)-1)/stride + 1
	wOut := (x[3]+2*padding-dilation*(w[3]-1)-1)/stride + 1
	c := kcase{op: "Conv2dFwd", label: label,
		dims:   map[string]int{"N": x[0], "C_in": x[1], "H": x[2], "W": x[3], "C_out": w[0], "KH": w[2], "KW": w[3], "H_out": hOut, "W_out": wOut},
		shapes: map[string][]int{"x": x[:], "weight": w[:], "y": {x[0], w[0], hOut, wOut}},
		params: map[string]any{"stride": stride, "padding": padding, "dilation": dilation, "groups": groups},
		dtype:  dtype, outputs: []string{"y"}}
	if bias {
		c.shapes["bias"] = []int{w[0]}
	}
	return c
}

func TestConv2dMatchesReference(t *testing.T) {
	for _, k := range []kcase{
		convCase("3x3-bias", [4]int{1, 8, 16, 16}, [4]int{16, 8, 3, 3}, 1, 1, true, "float32"),
		convCase("ragged-stride2", [4]int{2, 3, 15, 13}, [4]int{8, 3, 5, 3}, 2, 1, false, "float32"),
		convCase("1x1-direct", [4]int{2, 16, 7, 5}, [4]int{24, 16, 1, 1}, 1, 0, true, "bfloat16"),
		convCase("1x1-stride2", [4]int{1, 16, 9, 9}, [4]int{8, 16, 1, 1}, 2, 0, false, "float32"),
		convCase("pad-exceeds-half", [4]int{1, 2, 4, 4}, [4]int{3, 2, 3, 3}, 3, 2, false, "float16"),
		convCase("stem-like", [4]int{1, 3, 32, 32}, [4]int{16, 3, 7, 7}, 2, 3, false, "float32"),
		// Dilation: stride 1 (the contiguous-run copy), stride 2, a window wider than the
		// image's padding on one side only.
		convCaseDG("dilated", [4]int{2, 3, 17, 19}, [4]int{5, 3, 3, 3}, 1, 2, 2, 1, true, "float32"),
		convCaseDG("dilated-stride2", [4]int{1, 4, 23, 15}, [4]int{6, 4, 3, 2}, 2, 1, 3, 1, false, "float32"),
		convCaseDG("dilated-rect", [4]int{1, 2, 11, 30}, [4]int{3, 2, 2, 5}, 1, 0, 4, 1, false, "bfloat16"),
		// Groups: several channels per group both ways, depthwise, depthwise with a
		// channel multiplier, grouped 1x1 (the direct path), grouped and dilated.
		convCaseDG("grouped", [4]int{2, 12, 9, 7}, [4]int{8, 3, 3, 3}, 1, 1, 1, 4, true, "float32"),
		convCaseDG("depthwise", [4]int{1, 7, 33, 31}, [4]int{7, 1, 3, 3}, 2, 1, 1, 7, true, "float32"),
		convCaseDG("depthwise-multiplier", [4]int{2, 5, 10, 9}, [4]int{10, 1, 5, 3}, 1, 2, 1, 5, false, "float16"),
		convCaseDG("grouped-1x1-direct", [4]int{2, 8, 6, 5}, [4]int{6, 4, 1, 1}, 1, 0, 1, 2, true, "float32"),
		convCaseDG("grouped-dilated", [4]int{1, 6, 40, 40}, [4]int{9, 2, 3, 3}, 1, 3, 3, 3, false, "float32"),
	} {
		checkKernel(t, k)
	}
}

func TestConv2dErrors(t *testing.T) {
	for _, tc := range []struct {
		x, w            [4]int
		stride, padding int
		dt              ops.DType
		want            string
	}{
		{[4]int{1, 3, 8, 8}, [4]int{4, 2, 3, 3}, 1, 0, ops.Float32, "has 2 input channels per group, x [1 3 8 8] with 1 groups has 3"},
		{[4]int{1, 3, 8, 8}, [4]int{4, 3, 3, 3}, 0, 0, ops.Float32, "stride is 0"},
		{[4]int{1, 3, 8, 8}, [4]int{4, 3, 3, 3}, 1, -1, ops.Float32, "padding is -1"},
		{[4]int{1, 3, 2, 8}, [4]int{4, 3, 5, 3}, 1, 1, ops.Float32, "window (5) is larger than H padded (2 + 2·1)"},
		{[4]int{1, 3, 8, 8}, [4]int{4, 3, 3, 0}, 1, 0, ops.Float32, "KW is 0"},
		{[4]int{1, 3, 8, 8}, [4]int{4, 3, 3, 3}, 1, 0, ops.Float8E4M3, "no matrix-unit roof"},
	} {
		_, err := ops.NewConv2dFwd(tc.x, tc.w, tc.stride, tc.padding, 1, 1, false, tc.dt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("x %v w %v stride %d padding %d %v: err = %v, want %q", tc.x, tc.w, tc.stride, tc.padding, tc.dt, err, tc.want)
		}
	}
	for _, tc := range []struct {
		w                [4]int
		dilation, groups int
		want             string
	}{
		{[4]int{4, 3, 3, 3}, 0, 1, "dilation is 0"},
		{[4]int{4, 1, 3, 3}, 1, 0, "groups is 0"},
		{[4]int{4, 1, 3, 3}, 1, 2, "groups 2 must divide C_in 3 and C_out 4"},
		{[4]int{6, 3, 3, 3}, 1, 3, "has 3 input channels per group, x [1 3 8 8] with 3 groups has 1"},
		{[4]int{4, 3, 3, 3}, 4, 1, "window (9) is larger than H padded (8 + 2·0)"},
	} {
		_, err := ops.NewConv2dFwd([4]int{1, 3, 8, 8}, tc.w, 1, 0, tc.dilation, tc.groups, false, ops.Float32)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("w %v dilation %d groups %d: err = %v, want %q", tc.w, tc.dilation, tc.groups, err, tc.want)
		}
	}
	// The builder rejects a manifest row whose H_out breaks the shape rule.
	k := convCase("bad-hout", [4]int{1, 2, 8, 8}, [4]int{2, 2, 3, 3}, 1, 1, false, "float32")
	k.dims["H_out"], k.shapes["y"] = 7, []int{1, 2, 7, 8}
	if got := buildErr(t, k); !strings.Contains(got, "the op computes shape [1 2 8 8], the manifest declares [1 2 7 8]") {
		t.Errorf("bad H_out: %s", got)
	}
}
