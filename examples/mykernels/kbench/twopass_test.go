package kbench

import (
	"bytes"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/perf/bench"
	"github.com/ropgen/ropgen/perf/bench/benchcmd"

	"example.com/mykernels/kernels"
)

// testRegistry is Registry with the ops of testdata/twopass: the audit's child process (the
// test binary, TestMain) builds them too.
var testRegistry bench.Registry = withTwoPass{}

type withTwoPass struct{}

// twoPassBytes are the three formulas of testdata/twopass/ops.yaml for its one workload
// (512 × 1024 float32s), as a generated EvalRoofline would return them.
var twoPassBytes = map[string]int64{"AddFwd": 6291456, "AddThirdFwd": 2097152, "AddDoubleFwd": 12582912}

func (withTwoPass) Has(name string) bool {
	_, ok := twoPassBytes[name]
	return ok || Registry.Has(name)
}

func (withTwoPass) Build(c manifest.Case, opt bench.BuildOptions) (bench.Instance, error) {
	n, ok := twoPassBytes[c.Op]
	if !ok {
		return Registry.Build(c, opt)
	}
	b := &builder{c: c, opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, 2))}
	x, y := b.input("x"), b.input("y")
	z := b.output("z", x.Shape)
	op := &twoPassOp{bytes: n}
	in := &instance{op: op, outs: []*kernels.Tensor{z},
		run: func() error {
			copy(z.Data, x.Data) // the first pass: z = x
			for i, v := range y.Data {
				z.Data[i] += v // the second: z += y, over z again
			}
			return nil
		},
		ref: func(want []*kernels.Tensor) {
			for i := range want[0].Data {
				want[0].Data[i] = x.Data[i] + y.Data[i]
			}
		}}
	in.storage, in.shapes, in.tensors = b.storage, b.shapes, b.tensors
	return in, b.err
}

type twoPassOp struct{ bytes int64 }

func (o *twoPassOp) EvalRoofline() (int64, int64, error) { return 0, o.bytes, nil }
func (*twoPassOp) ComputeRoof() string                   { return "vector.fp32" }

// TestAuditTwoPass is the audit's rule on a kernel that moves more than the minimum: its
// correct formula (x, y read and z written once, the tensors' footprint) is a WARN naming
// the factor, exit 0, for z crosses memory twice; a third of it is an undercount and twice
// it an overcount, each a FAIL, exit 1. Skipped without valgrind and under -short.
func TestAuditTwoPass(t *testing.T) {
	if testing.Short() {
		t.Skip("six runs under valgrind; skipped with -short")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind is not installed: the cache simulation cannot run")
	}
	ratio := regexp.MustCompile(`(\d+\.\d+)\s+(PASS|WARN|FAIL|ERROR)\n`)
	for _, c := range []struct {
		op      string
		code    int
		verdict string
		lo, hi  float64
		note    string
	}{
		// Copy: x read, z written; add: z and y read, z written back: 4 tensors' worth of
		// lines against the formula's 3.
		{"AddFwd", 0, "WARN", 1.2, 1.45, "the extra traffic is the kernel's"},
		{"AddThirdFwd", 1, "FAIL", 3.6, 4.4, "(an undercount)"},
		{"AddDoubleFwd", 1, "FAIL", 0.6, 0.73, "(an overcount)"},
	} {
		code, out := auditTwoPass("-op", c.op)
		t.Logf("%s:\n%s", c.op, out)
		m := ratio.FindStringSubmatch(out)
		if code != c.code || m == nil || m[2] != c.verdict || !strings.Contains(out, c.note) {
			t.Errorf("%s: exit %d, want %d %s with %q:\n%s", c.op, code, c.code, c.verdict, c.note, out)
			continue
		}
		if r := parseFloat(m[1]); r < c.lo || r > c.hi {
			t.Errorf("%s: ratio %s, want within [%.2f, %.2f]:\n%s", c.op, m[1], c.lo, c.hi, out)
		}
	}
}

func auditTwoPass(args ...string) (int, string) {
	var out bytes.Buffer
	code := benchcmd.Main("kbench", testRegistry, append([]string{"audit", "-manifests", "testdata/twopass"}, args...), &out, &out)
	return code, out.String()
}

func parseFloat(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}
