package opsbench

import (
	"strings"
	"testing"

	"github.com/ropgen/ropgen/ops"
)

func poolCase(op, label string, x [4]int, k, s, p int, dtype string) kcase {
	return poolCaseOpt(op, label, x, [2]int{k, k}, [2]int{s, s}, [2]int{p, p}, nil, dtype)
}

// poolCaseOpt is a pool case with [h, w] geometry and extra params (ceil_mode,
// count_include_pad, divisor_override). The output's shape is the op's own (ops' TestPoolOut
// ties it to the manifest's shape rule), so the case declares none.
func poolCaseOpt(op, label string, x [4]int, k, s, p [2]int, opts map[string]any, dtype string) kcase {
	ceil, _ := opts["ceil_mode"].(bool)
	params := map[string]any{"kernel_size": k[:], "stride": s[:], "padding": p[:], "ceil_mode": ceil}
	if op == "AvgPool2dFwd" {
		params["count_include_pad"], params["divisor_override"] = true, nil
	}
	for name, v := range opts {
		params[name] = v
	}
	return kcase{op: op, label: label,
		dims:   map[string]int{"N": x[0], "C": x[1], "H": x[2], "W": x[3]},
		shapes: map[string][]int{"x": x[:]},
		params: params, dtype: dtype, outputs: []string{"y"}}
}

func TestPool2dMatchesReference(t *testing.T) {
	for _, op := range []string{"AvgPool2dFwd", "MaxPool2dFwd"} {
		for _, k := range []kcase{
			poolCase(op, "2x2", [4]int{2, 8, 16, 16}, 2, 2, 0, "float32"),
			poolCase(op, "ragged-pad", [4]int{1, 4, 11, 9}, 3, 2, 1, "float16"),
			poolCase(op, "overlap", [4]int{1, 3, 10, 7}, 3, 1, 1, "float32"),
			poolCase(op, "stride-over-kernel", [4]int{1, 2, 9, 9}, 2, 3, 1, "bfloat16"),
			poolCase(op, "global", [4]int{2, 5, 7, 7}, 7, 7, 0, "float32"),
			poolCase(op, "two-cores", [4]int{4, 16, 64, 64}, 3, 2, 1, "float32"),
			poolCaseOpt(op, "rect", [4]int{2, 3, 13, 10}, [2]int{3, 2}, [2]int{2, 1}, [2]int{1, 0}, nil, "float32"),
			poolCaseOpt(op, "rect-wide", [4]int{1, 2, 7, 31}, [2]int{1, 5}, [2]int{1, 4}, [2]int{0, 2}, nil, "bfloat16"),
			poolCaseOpt(op, "ceil-overhang", [4]int{2, 5, 12, 10}, [2]int{3, 3}, [2]int{2, 2}, [2]int{1, 1},
				map[string]any{"ceil_mode": true}, "float32"),
			poolCaseOpt(op, "ceil-drop-last", [4]int{1, 4, 9, 4}, [2]int{3, 2}, [2]int{2, 3}, [2]int{1, 1},
				map[string]any{"ceil_mode": true}, "float32"),
			poolCaseOpt(op, "ceil-two-cores", [4]int{4, 16, 63, 65}, [2]int{3, 2}, [2]int{2, 2}, [2]int{1, 0},
				map[string]any{"ceil_mode": true}, "float32"),
		} {
			checkKernel(t, k)
		}
	}
	for _, opts := range []map[string]any{
		{"count_include_pad": false},
		{"count_include_pad": false, "ceil_mode": true},
		{"divisor_override": 5},
		{"divisor_override": -3, "ceil_mode": true},
	} {
		for _, k := range []kcase{
			poolCaseOpt("AvgPool2dFwd", "opts", [4]int{2, 3, 11, 9}, [2]int{3, 3}, [2]int{2, 2}, [2]int{1, 1}, opts, "float32"),
			poolCaseOpt("AvgPool2dFwd", "opts-rect", [4]int{1, 5, 12, 7}, [2]int{2, 3}, [2]int{3, 2}, [2]int{1, 1}, opts, "float16"),
		} {
			checkKernel(t, k)
		}
	}
}

func TestPool2dErrors(t *testing.T) {
	zero := 0
	for _, tc := range []struct {
		x       [4]int
		k, s, p [2]int
		div     *int
		dt      ops.DType
		want    string
	}{
		{[4]int{1, 1, 8, 8}, [2]int{3, 3}, [2]int{1, 1}, [2]int{2, 2}, nil, ops.Float32, "padding [2 2] must be between 0 and half the kernel size [3 3]"},
		{[4]int{1, 1, 8, 8}, [2]int{4, 1}, [2]int{1, 1}, [2]int{0, 1}, nil, ops.Float32, "padding [0 1] must be between 0 and half the kernel size [4 1]"},
		{[4]int{1, 1, 8, 8}, [2]int{3, 3}, [2]int{1, 0}, [2]int{1, 1}, nil, ops.Float32, "stride[1] is 0"},
		{[4]int{1, 1, 2, 8}, [2]int{5, 5}, [2]int{1, 1}, [2]int{1, 1}, nil, ops.Float32, "window (5) is larger than H padded"},
		{[4]int{1, 1, 8, 8}, [2]int{2, 2}, [2]int{2, 2}, [2]int{0, 0}, nil, ops.Int32, "dtype int32 not supported"},
	} {
		for name, mk := range map[string]func() error{
			"avg": func() error {
				_, err := ops.NewAvgPool2dFwd(tc.x, tc.k, tc.s, tc.p, false, true, tc.div, tc.dt)
				return err
			},
			"max": func() error { _, err := ops.NewMaxPool2dFwd(tc.x, tc.k, tc.s, tc.p, false, tc.dt); return err },
		} {
			if err := mk(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %+v: err = %v, want %q", name, tc, err, tc.want)
			}
		}
	}
	_, err := ops.NewAvgPool2dFwd([4]int{1, 1, 8, 8}, [2]int{2, 2}, [2]int{2, 2}, [2]int{0, 0}, false, true, &zero, ops.Float32)
	if err == nil || !strings.Contains(err.Error(), "divisor_override must not be 0") {
		t.Errorf("divisor_override 0: err = %v", err)
	}
	k := poolCaseOpt("MaxPool2dFwd", "bad-pair", [4]int{1, 1, 8, 8}, [2]int{2, 2}, [2]int{2, 2}, [2]int{0, 0}, nil, "float32")
	k.params["kernel_size"] = []int{2}
	if got := buildErr(t, k); !strings.Contains(got, "param kernel_size is [2]; it must be a pair [h, w]") {
		t.Errorf("one-element kernel_size: %s", got)
	}
}

func adaptiveCase(op, label string, x [4]int, out [2]int, dtype string) kcase {
	return kcase{op: op, label: label,
		dims:   map[string]int{"N": x[0], "C": x[1], "H": x[2], "W": x[3], "H_out": out[0], "W_out": out[1]},
		shapes: map[string][]int{"x": x[:], "y": {x[0], x[1], out[0], out[1]}},
		dtype:  dtype, outputs: []string{"y"}}
}

// TestAdaptivePoolMatchesReference: uniform and non-uniform bins, bins that repeat rows
// (H_out > H), global pooling, planes on both cores.
func TestAdaptivePoolMatchesReference(t *testing.T) {
	for _, op := range []string{"AdaptiveAvgPool2dFwd", "AdaptiveMaxPool2dFwd"} {
		for _, k := range []kcase{
			adaptiveCase(op, "uniform", [4]int{2, 3, 12, 8}, [2]int{3, 4}, "float32"),
			adaptiveCase(op, "non-uniform", [4]int{1, 5, 13, 11}, [2]int{5, 3}, "float32"),
			adaptiveCase(op, "repeat", [4]int{2, 2, 3, 4}, [2]int{7, 9}, "bfloat16"),
			adaptiveCase(op, "global", [4]int{3, 4, 9, 7}, [2]int{1, 1}, "float16"),
			adaptiveCase(op, "identity", [4]int{1, 2, 6, 5}, [2]int{6, 5}, "float32"),
			adaptiveCase(op, "two-cores", [4]int{4, 32, 60, 60}, [2]int{7, 6}, "float32"),
		} {
			checkKernel(t, k)
		}
	}
}
