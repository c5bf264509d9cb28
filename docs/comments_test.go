package docs_test

import (
	"bufio"
	"bytes"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Comments say why; measurements live in docs/history.md. These patterns are the part of
// that rule a machine can hold: a date, a number with a unit of a measured rate or time, a
// "1.3x faster", a run's conditions (its load average, "the 2-core VM") and a was/now
// story in figures ("0.72 became 0.83").
var (
	commentDateRE = regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b`)
	// measuredRE is a number, or a range of them, followed by the unit of a measured rate,
	// time or speed-up.
	measuredRE = regexp.MustCompile(`(?i)\d(?:[\d.,]*\d)?(?:\s*[-–]\s*\d(?:[\d.,]*\d)?)?\s*` +
		`(?:[kMGTP]?i?B/s\b|[kMGTP]?FLOP/s\b|GFLOPS\b|ns/op\b|B/op\b|allocs/op\b|` +
		`(?:ns|µs|us|ms)\b|x\s+(?:faster|slower)\b|×\s*(?:faster|slower)\b|%\s+(?:faster|slower)\b|times\s+(?:faster|slower)\b)` +
		// or a ratio from a run: "read 1.47x it", "0.52 of the C copy limit", "0.8 of the time"
		`|\d\.\d+\s*(?:x\b|×)|\b\d\.\d+ of (?:the |a |its )?(?:C |two-core )?(?:copy|limit|envelope|time|read)`)
	// runRE is a run's conditions: the load it ran under, the machine it ran on.
	runRE = regexp.MustCompile(`(?i)\bload(?: average)? (?:of )?~?\d+(?:\.\d+)?(?:\s*[-–]\s*\d+(?:\.\d+)?)?(?:[\s,;:.)]|$)|` +
		`\b\d+-core (?:VM|host|machine)\b|` +
		`\bon (?:our|the reference) (?:VM|host|machine)\b|\bthe (?:reference|development) (?:VM|host)\b`)
	// storyRE is a was/now story told in figures: "became 0.83", "0.56x -> 0.94x", "went
	// from 6".
	storyRE = regexp.MustCompile(`(?i)\bbecame\s+~?\d|\d[x×%]?\s*(?:->|→)\s*~?\d|\bwent from\s+~?\d`)
)

// commentAllowed lists the comment lines that match a pattern and are no measurement: each
// is a path (relative to the root, slash-separated) and a piece of the line, with the reason
// it stays. A path ending in "*" allows every path it begins, and an empty text every line.
// An entry whose path is gone (a file moved) matches its text in any file. An entry that no
// comment matches is logged as stale (go test -v shows it: remove it), not failed, so that
// a change that rewrites an allowed comment elsewhere does not break this test; a pending
// one (a rewrite under way) is not even logged.
var commentAllowed = []struct {
	path, text, why string
	pending         bool
}{
	{"cmd/ropcompare/roofs.go", "dispatches of 2 ms", "a design value: the C side dispatches as calibrate's fmaDispatch does", false},
	{"cmd/ropcompare/main.go", "[-sample 20ms]", "the usage line: the flag's default", false},
	{"perf/calibrate/units_amd64.s", "1.0 x 1.0 in fp16", "the kernel's arithmetic", false},
	{"perf/render/compare.go", "1.4826 ×", "the constant that makes the MAD a standard deviation", false},
	{"perf/render/svg_marks.go", `"5e18 FLOP/s"`, "an example of the tick labels", false},
	{"perf/report/units.go", `"12.3µs"`, "an example of the formatter's output", false},
	{"perf/report/units.go", `"4.30 TB/s"`, "an example of the formatter's output", false},
	{"perf/report/price.go", "100.4 GB/s over 100 GB/s", "an example of the formatter's output", false},
	{"perf/report/price.go", "(1.2 ms of SOL in 1.5 ms)", "an example of decimal rounding, not a run", false},
	{"perf/render/svg_marks.go", `"200 GFLOP/s", "1 TFLOP/s"`, "an example of the tick labels", false},
	{"perf/bench/run.go", `("12.3µs")`, "an example of the formatter's output", false},
}

// TestCommentsSayWhy scans every comment of the repository's non-test Go and assembly files
// (generated ones too: their comments come from their generators) for a date, a measured
// figure or a run's conditions outside commentAllowed. Such a figure belongs in the commit
// message or in docs/history.md with the command that reproduces it; the comment keeps the
// reason it justified.
func TestCommentsSayWhy(t *testing.T) {
	r, err := root()
	if err != nil {
		t.Fatal(err)
	}
	used := make([]bool, len(commentAllowed))
	files := 0
	err = filepath.WalkDir(r, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != r && (strings.HasPrefix(d.Name(), ".") || d.Name() == "out" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if strings.HasSuffix(name, "_test.go") || (filepath.Ext(name) != ".go" && filepath.Ext(name) != ".s") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r, path)
		rel = filepath.ToSlash(rel)
		files++
		for _, f := range measuredComments(rel, src) {
			i := allowedAt(r, rel, f.text)
			if i >= 0 {
				used[i] = true
				continue
			}
			t.Errorf("%s:%d: %s in a comment: %q\n\tcomments say why; the figure goes in the commit message or docs/history.md (with its command and host), or, if it is no measurement, into commentAllowed with the reason", rel, f.line, f.what, f.text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go and assembly files found under %s", files, r)
	}
	for i, ok := range used {
		if !ok && !commentAllowed[i].pending {
			a := commentAllowed[i]
			t.Logf("commentAllowed: %s %q matches no comment any more: remove it", a.path, a.text)
		}
	}
}

func allowedAt(r, rel, text string) int {
	for i, a := range commentAllowed {
		prefix, ok := strings.CutSuffix(a.path, "*")
		switch {
		case ok && !strings.HasPrefix(rel, prefix):
			continue
		case !ok && rel != a.path:
			if _, err := os.Stat(filepath.Join(r, filepath.FromSlash(a.path))); err == nil || a.text == "" {
				continue // the file is there (or the entry is a whole file's): only it matches
			}
		}
		if a.text == "" || strings.Contains(text, a.text) {
			return i
		}
	}
	return -1
}

// finding is one comment line that matches a pattern.
type finding struct {
	line int
	what string // "a date", "a measured figure", "a run's conditions", "a was/now story"
	text string // the comment line
}

// measuredComments returns the comment lines of a Go or assembly source that match a
// pattern, one finding a line. A Go file is read with go/scanner (so a string literal is no
// comment); an assembly file's comments are what follows "//" on a line.
func measuredComments(name string, src []byte) []finding {
	var out []finding
	check := func(line int, text string) {
		switch {
		case commentDateRE.MatchString(text):
			out = append(out, finding{line, "a date", strings.TrimSpace(text)})
		case measuredRE.MatchString(text):
			out = append(out, finding{line, "a measured figure", strings.TrimSpace(text)})
		case runRE.MatchString(text):
			out = append(out, finding{line, "a run's conditions", strings.TrimSpace(text)})
		case storyRE.MatchString(text):
			out = append(out, finding{line, "a was/now story", strings.TrimSpace(text)})
		}
	}
	if strings.HasSuffix(name, ".s") {
		sc := bufio.NewScanner(bytes.NewReader(src))
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			if _, c, ok := strings.Cut(sc.Text(), "//"); ok {
				check(n, c)
			}
		}
		return out
	}
	fset := token.NewFileSet()
	file := fset.AddFile(name, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok != token.COMMENT {
			continue
		}
		line := fset.Position(pos).Line
		for i, l := range strings.Split(lit, "\n") {
			check(line+i, l)
		}
	}
}

// TestCommentsSayWhyCatches plants what the rule forbids, and what it allows, in sources
// the scanner reads as the repository's.
func TestCommentsSayWhyCatches(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string // want: "" for no finding
	}{
		{"a.go", "package a\n\n// kept the loop: it moved 12.5 GB/s\nvar x = 1\n", "a measured figure"},
		{"a.go", "package a\n\n/* one thread (116-122 GFLOP/s) beat two */\n", "a measured figure"},
		{"a.go", "package a\n\n// GEMM halves took 333-353 µs in a row\n", "a measured figure"},
		{"a.go", "package a\n\n// the new kernel is 1.25x faster\n", "a measured figure"},
		{"a.go", "package a\n\n// two test binaries: 0.72-0.76 of the copy became 0.83-0.86\n", "a measured figure"},
		{"a.go", "package a\n\n// a correct sample read 1.45x it\n", "a measured figure"},
		{"a.go", "package a\n\n// measured 2026-12-01\n", "a date"},
		{"a.go", "package a\n\n// at load 20 the pair was not stable\n", "a run's conditions"},
		{"a.go", "package a\n\n// on the 2-core VM it lost\n", "a run's conditions"},
		{"a.go", "package a\n\n// a load 4K-aliasing the streamed stores\n", ""},
		{"a.go", "package a\n\n// layer_norm's pass became 0.73 of it\n", "a was/now story"},
		{"a.go", "package a\n\n// GEMM 256³ 0.56 -> 0.94 of OpenBLAS\n", "a was/now story"},
		{"a.s", "TEXT ·f(SB), $0\n\tRET // 0.83-0.86 of the copy: 27.6 GB/s\n", "a measured figure"},
		{"a.go", "package a\n\nvar s = \"12.5 GB/s\" // the unit's name\n", ""},
		{"a.go", "package a\n\n// a 4 KiB alias; VFMADD231PS has a latency of 4 cycles\n", ""},
		{"a.go", "package a\n\n// at most 32 MiB of tensors, grains of 64Ki elements\n", ""},
	} {
		got := measuredComments(tc.name, []byte(tc.src))
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%q: found %v, want nothing", tc.src, got)
		case tc.want != "" && (len(got) != 1 || got[0].what != tc.want):
			t.Errorf("%q: found %v, want one %s", tc.src, got, tc.want)
		}
	}
}

// pageRunRE is what marks a dated run on a reference page: a date, a clock time in UTC, or
// the load average it ran under.
var pageRunRE = regexp.MustCompile(`(?i)\b20\d\d-\d\d-\d\d\b|\b\d\d:\d\d UTC\b|\bload average (?:of )?~?\d|\bat load \d`)

// pageRunAllowed are the lines of the pages that match pageRunRE and record no run.
var pageRunAllowed = []struct{ page, text, why string }{
	{"docs/validate.md", "a bare `2024-01-01`", "a YAML timestamp the validator refuses, not a run"},
}

// TestDatedRunsInHistory keeps dated runs on one page: README.md and docs/*.md other than
// docs/history.md (the performance history, each run with its command and host) name no
// date, UTC time or load average of a run.
func TestDatedRunsInHistory(t *testing.T) {
	r, err := root()
	if err != nil {
		t.Fatal(err)
	}
	used := make([]bool, len(pageRunAllowed))
	for _, name := range pages(t) {
		if name == "docs/history.md" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(r, name))
		if err != nil {
			t.Fatal(err)
		}
	lines:
		for n, line := range strings.Split(string(data), "\n") {
			if !pageRunRE.MatchString(line) {
				continue
			}
			for i, a := range pageRunAllowed {
				if a.page == name && strings.Contains(line, a.text) {
					used[i] = true
					continue lines
				}
			}
			t.Errorf("%s:%d: a dated run on a reference page: %q\n\tmove it to docs/history.md with its command and host, and show a pattern or the reason here", name, n+1, strings.TrimSpace(line))
		}
	}
	for i, ok := range used {
		if !ok {
			t.Logf("pageRunAllowed: %s %q matches no line any more: remove it", pageRunAllowed[i].page, pageRunAllowed[i].text)
		}
	}
}
