package gen

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"sync"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/internal/parallel"
	"github.com/ropgen/ropgen/manifest"
)

// preludeSrc declares, for the type check, exactly what the generated code declares for
// formulas: the number constraint and the tensor view (roofrt/core.go), and every helper's
// signature, with a body that only panics (the real bodies import packages; the check never
// runs code).
var preludeSrc = sync.OnceValue(func() string {
	rs := loadRuntime()
	var b strings.Builder
	b.WriteString("package roofcheck\n\n")
	b.Write(rs.body("core.go"))
	for _, h := range Helpers {
		if h.Builtin {
			continue
		}
		fd := *rs.helpers[h.Name]
		fd.Body, fd.Doc, fd.Name = nil, nil, ast.NewIdent(h.Name) // formulas call it by its formula name
		printer.Fprint(&b, rs.fset, &fd)
		b.WriteString(" { panic(0) }\n")
	}
	return b.String()
})

// typeCheck checks every formula of models with go/types, in scopes that declare exactly the
// names the gate allows with their real types, and records each var's type. The ops are
// checked in runs of typeCheckRun, in parallel: one run over a whole large catalog grew
// faster than the catalog (the checker's maps), and the prelude is small.
func typeCheck(models []*opModel) diag.Findings {
	n := (len(models) + typeCheckRun - 1) / typeCheckRun
	out := make([]diag.Findings, n)
	parallel.For(n, func(i int) {
		out[i] = typeCheckRunOf(models[i*typeCheckRun : min((i+1)*typeCheckRun, len(models))])
	})
	return slices.Concat(out...)
}

// typeCheckRun is how many ops one go/types run checks.
const typeCheckRun = 500

// oneLine puts a formula on one line, byte for byte: a line break becomes a space.
var oneLine = strings.NewReplacer("\n", " ", "\r", " ")

// typeCheckRunOf checks one run of ops. They go into one source file, one function each, so
// the prelude is parsed and checked once per run.
func typeCheckRunOf(models []*opModel) diag.Findings {
	var fs diag.Findings
	var src bytes.Buffer
	src.WriteString(preludeSrc())
	line := strings.Count(src.String(), "\n") + 1
	type placed struct {
		m      *opModel
		f      *formula
		prefix int
	}
	lines := map[int]placed{}
	funcs := map[int]*opModel{} // line of each op's func declaration
	for _, m := range models {
		params, pfs := checkParams(m)
		fs = append(fs, pfs...)
		funcs[line] = m
		fmt.Fprintf(&src, "func _(%s) {\n", strings.Join(params, ", "))
		line++
		put := func(f *formula, prefix string) {
			lines[line] = placed{m, f, len(prefix)}
			// A formula over several lines (a YAML block) goes on one line here, byte for
			// byte: a line break becomes a space, so offsets stay the formula's.
			src.WriteString(prefix)
			oneLine.WriteString(&src, f.src.Value)
			src.WriteByte('\n')
			line++
		}
		var names []string
		for _, v := range m.vars {
			put(v, "\t"+v.name+" := ")
			names = append(names, v.name)
		}
		put(m.flops, "\tvar _ int = ")
		put(m.bytes, "\tvar _ int = ")
		if len(names) > 0 {
			fmt.Fprintf(&src, "\t_ = []any{%s}\n", strings.Join(names, ", "))
			line++
		}
		src.WriteString("}\n")
		line++
	}

	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "roofcheck.go", src.Bytes(), 0)
	if err != nil {
		// The gate parsed each formula alone; this is a generator bug, not an input error.
		return append(fs, diag.Finding{Msg: "type check source does not parse (a generator bug): " + err.Error()})
	}
	// Sized for about one typed expression per 4 bytes of formula source: the map grows
	// less often (its growth was a large share of the check's allocations).
	info := &types.Info{Types: make(map[ast.Expr]types.TypeAndValue, src.Len()/4)}
	conf := types.Config{Error: func(err error) {
		var te types.Error
		if !errors.As(err, &te) {
			return
		}
		p := fset.Position(te.Pos)
		pl, ok := lines[p.Line]
		if !ok || p.Column-1 < pl.prefix {
			fs = append(fs, diag.Finding{Msg: "type check (a generator bug): " + te.Msg})
			return
		}
		fs = append(fs, diag.Finding{Pos: pl.f.src.At(p.Column - 1 - pl.prefix), Op: pl.m.op.Name, Field: pl.f.field, Msg: te.Msg})
	}}
	conf.Check("roofcheck", fset, []*ast.File{file}, info)
	// Hand each formula its typed expression: the right-hand side on the formula's line.
	ast.Inspect(file, func(n ast.Node) bool {
		var rhs ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			rhs = n.Rhs[0]
		case *ast.ValueSpec:
			rhs = n.Values[0]
		default:
			return true
		}
		if pl, ok := lines[fset.Position(rhs.Pos()).Line]; ok {
			pl.f.typed = &typedFormula{expr: rhs, info: info, fset: fset, src: src.Bytes()}
		}
		return false
	})
	if len(fs) == 0 {
		for _, pl := range lines {
			fs = append(fs, refuseConstants(pl.m, pl.f, func(p token.Pos) diag.Pos {
				return pl.f.src.At(fset.Position(p).Column - 1 - pl.prefix)
			})...)
		}
	}
	return fs
}

// refuseConstants reports what the type check lets through but must always fail: a
// division helper by a constant zero, log2 or clog2 of a constant below 1, and flops or
// bytes that are a negative constant.
func refuseConstants(m *opModel, f *formula, at func(token.Pos) diag.Pos) diag.Findings {
	var fs diag.Findings
	info := f.typed.info
	constant := func(e ast.Expr) (int64, bool) {
		tv := info.Types[e]
		if tv.Value == nil {
			return 0, false
		}
		v, exact := constantInt64(tv)
		return v, exact
	}
	add := func(p token.Pos, format string, args ...any) {
		fs = append(fs, diag.Finding{Pos: at(p), Op: m.op.Name, Field: f.field, Msg: fmt.Sprintf(format, args...)})
	}
	if f.layer == ArithLayer {
		if v, ok := constant(f.typed.expr); ok && v < 0 {
			add(f.typed.expr.Pos(), "%s is the constant %d; FLOPs and bytes cannot be negative", f.name, v)
		}
	}
	ast.Inspect(f.typed.expr, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		id, _ := call.Fun.(*ast.Ident)
		if id == nil {
			return true
		}
		switch id.Name {
		case "floordiv", "cdiv", "floormod":
			if len(call.Args) == 2 {
				if v, ok := constant(call.Args[1]); ok && v == 0 {
					add(call.Args[1].Pos(), "%s by the constant 0 always fails (division by zero)", id.Name)
				}
			}
		case "log2", "clog2":
			if len(call.Args) == 1 {
				if v, ok := constant(call.Args[0]); ok && v < 1 {
					add(call.Args[0].Pos(), "%s of the constant %d always fails; it needs a value >= 1", id.Name, v)
				}
			}
		}
		return true
	})
	return fs
}

// checkParams returns the parameter list of m's check function: every name its formulas may
// read, with its type.
func checkParams(m *opModel) ([]string, diag.Findings) {
	var fs diag.Findings
	op := m.op
	var params []string
	for _, d := range m.dims {
		params = append(params, d+" int")
	}
	for _, p := range op.Params {
		t := p.Type.Value
		if !manifest.ValidParamType(t) {
			fs = append(fs, diag.Finding{Pos: p.Type.Pos, Op: op.Name, Field: "signature.params." + p.Name + ".type",
				Msg: fmt.Sprintf("unknown param type %q (known: %s)", p.Type.Value, strings.Join(manifest.ParamTypes, ", "))})
			continue
		}
		params = append(params, p.Name+" "+t)
	}
	for _, t := range op.Inputs {
		if t.Optional {
			params = append(params, t.Name+" []int")
		} else {
			params = append(params, t.Name+" rooflineTensor")
		}
	}
	return append(params, elemBytes+" int"), fs
}
