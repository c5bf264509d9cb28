package bench

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/ropgen/ropgen/diag"
)

// Eval runs every case through its op's generated EvalRoofline and ComputeRoof, on a meta
// build from reg, as a run or a prediction would: a formula that fails on a real workload
// (a division by a zero dim, an index into an empty shape, an overflow) is found here, not
// by a harness the module writes. It returns the number of cases evaluated cleanly and a
// finding for each that is not, at its workload row's position: no builder, no generated
// methods, a build or EvalRoofline error, a panic (with the frame that raised it), negative
// counts. A case whose bytes formula counts less than its tensors' footprint (Undercount) is
// not clean either: its finding is at the bytes formula.
func Eval(reg Registry, cases []Case) (clean int, fs diag.Findings) {
	for _, c := range cases {
		p, err := evalOne(reg, c)
		if err != nil {
			fs = append(fs, evalFinding(c, err))
			continue
		}
		if f := Undercount(p); f != nil {
			fs = append(fs, *f)
			continue
		}
		clean++
	}
	return clean, fs.Sort()
}

// Undercount is the footprint check (docs/audit.md, "The footprint check"): it needs no
// measurement. The minimum-traffic rule reads every input once and writes every output
// once, so a formula that counts fewer bytes than the case's tensors take as stored, at
// their shapes and dtypes (manifest.Footprint), leaves out bytes any kernel must move. A
// tensor the signature marks partial (a gather's table, a paged cache) is left out of that
// floor, with its reason, and so is one whose shape neither the row nor the build states.
// Undercount returns the finding, at the op's bytes formula (or its func), or nil.
func Undercount(p Planned) *diag.Finding {
	if p.Op == nil {
		return nil
	}
	fp, err := p.Op.Footprint(p.Case.Case, p.Shapes)
	if err != nil {
		f := evalFinding(p.Case, fmt.Errorf("footprint: %w", err))
		return &f
	}
	if p.Bytes >= fp.Bytes {
		return nil
	}
	pos, field := rowPos(p.Case), fmt.Sprintf("workloads[%d]", p.Case.Case.Row)
	if r := p.Op.Roofline; r != nil {
		switch {
		case r.Bytes != nil:
			pos, field = r.Bytes.Pos, "roofline.bytes"
		case r.Func != nil:
			pos, field = r.Func.Pos, "roofline.func"
		}
	}
	return &diag.Finding{Pos: pos, Op: p.Case.Case.Op, Field: field, Msg: fmt.Sprintf(
		"%s %s (the row at %s): the formula counts %d bytes, %.3g of what its tensors take as stored (%s): an undercount, since every input is read and every output written at least once; a tensor the op touches only in part says so in its signature, partial: \"why\" (docs/format.md)",
		p.Case.Case.Label, p.DType, rowPos(p.Case), p.Bytes, float64(p.Bytes)/float64(fp.Bytes), fp)}
}

// evalFinding is the finding of a case that did not evaluate cleanly, at its row.
func evalFinding(c Case, err error) diag.Finding {
	return diag.Finding{Pos: rowPos(c), Op: c.Case.Op, Field: fmt.Sprintf("workloads[%d]", c.Case.Row),
		Msg: fmt.Sprintf("%s %s: %v", c.Case.Label, c.DType, err)}
}

// rowPos is the position of c's workload row, or of its op when the row has none (a -set row).
func rowPos(c Case) diag.Pos {
	if c.Op != nil && c.Case.Row < len(c.Op.Workloads) && c.Op.Workloads[c.Case.Row].Pos.File != "" {
		return c.Op.Workloads[c.Case.Row].Pos
	}
	if c.Op != nil {
		return c.Op.Pos
	}
	return diag.Pos{}
}

// evalOne is Eval of one case: its plan, or why it is not clean.
func evalOne(reg Registry, c Case) (p Planned, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v (%s)", r, panicFrame(debug.Stack()))
		}
	}()
	if !reg.Has(c.Case.Op) {
		return p, fmt.Errorf("%s", SkipNoBuilder)
	}
	in, err := reg.Build(c.Case, BuildOptions{Meta: true})
	if err != nil {
		return p, fmt.Errorf("build: %w", err)
	}
	op, ok := in.Op().(Op)
	if !ok {
		return p, fmt.Errorf("%s", SkipNotGenerated)
	}
	p = Planned{Case: c, Storage: in.Storage()}
	if p.Flops, p.Bytes, err = op.EvalRoofline(); err != nil {
		return p, fmt.Errorf("EvalRoofline: %w", err)
	}
	if p.Flops < 0 || p.Bytes < 0 {
		return p, fmt.Errorf("EvalRoofline: negative counts (flops %d, bytes %d)", p.Flops, p.Bytes)
	}
	if p.Roof = op.ComputeRoof(); p.Roof == "" {
		return p, fmt.Errorf("ComputeRoof is empty")
	}
	if sh, ok := in.(Shaper); ok {
		p.Shapes = sh.Shapes()
	}
	return p, nil
}

// panicFrame picks from a panicking goroutine's stack the first frame outside the runtime
// and this file: the generated or hand-written line that raised it.
func panicFrame(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i := 0; i+1 < len(lines); i++ {
		fn := strings.TrimSpace(lines[i])
		if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "runtime/") || strings.HasPrefix(fn, "panic(") || strings.HasPrefix(fn, "goroutine ") ||
			strings.Contains(fn, "perf/bench.") || strings.HasPrefix(fn, "/") || fn == "" {
			continue
		}
		loc := strings.TrimSpace(lines[i+1])
		if j := strings.LastIndex(loc, " +0x"); j > 0 {
			loc = loc[:j]
		}
		if j := strings.LastIndexByte(fn, '('); j > 0 && strings.HasSuffix(fn, ")") {
			fn = fn[:j] // the arguments
		}
		return fn + " at " + loc
	}
	return "no frame"
}
