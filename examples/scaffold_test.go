package examples

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fileMarker names the file the next fenced block of docs/using.md is written to.
var fileMarker = regexp.MustCompile(`^<!-- file: (\S+) -->$`)

// script turns docs/using.md into one shell script: each ```sh block's lines as they are,
// each fenced block after a file marker as a here-document that writes that file, in page
// order. Other blocks (yaml or text without a marker) are prose.
func script(t *testing.T, doc string) string {
	t.Helper()
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	b.WriteString("set -ex\n")
	var file string
	in, run := false, false
	files, blocks := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !in && fileMarker.MatchString(line):
			file = fileMarker.FindStringSubmatch(line)[1]
		case !in && strings.HasPrefix(line, "```"):
			in = true
			run = line == "```sh"
			if file != "" {
				files++
				b.WriteString("mkdir -p " + filepath.Dir(file) + "\ncat > " + file + " <<'ROPGEN_DOC_EOF'\n")
			} else if run {
				blocks++
			}
		case in && line == "```":
			if file != "" {
				b.WriteString("ROPGEN_DOC_EOF\n")
			}
			in, run, file = false, false, ""
		case in && (run || file != ""):
			b.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if files < 5 || blocks < 5 {
		t.Fatalf("%s: %d files and %d sh blocks; the page lost its steps", doc, files, blocks)
	}
	return b.String()
}

// TestScaffoldFromDocs follows docs/using.md in a fresh directory, offline (the module cache
// and this checkout only): a new module with its own types gets ropgen as a tool, generates,
// builds, vets, evaluates every workload, predicts, runs and gets a priced report.
func TestScaffoldFromDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a new module and ropgen in it")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the page's steps")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", script(t, filepath.Join(root, "docs", "using.md")))
	cmd.Dir = dir
	// The page's steps run offline (GOPROXY=off): the new module's requirement on ropgen is
	// the replace, and the proxy here answers 403, not 404, for a path it does not hold
	// (github.com/ropgen/ropgen/cmd/ropgen), which go get takes as fatal. What the steps
	// fetch besides ropgen is ropgen's own module graph: `go mod tidy` there also resolves
	// the test dependencies of ropgen's dependencies (go-cmp, via x/tools), which a fresh
	// module cache lacks, so the graph is downloaded first, through the environment's proxy.
	dl := exec.Command("go", "mod", "download", "all")
	dl.Dir = root
	if out, err := dl.CombinedOutput(); err != nil {
		t.Fatalf("go mod download all in %s: %v\n%s", root, err, out)
	}
	cmd.Env = append(os.Environ(), "ROPGEN="+root, "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the steps of docs/using.md fail: %v\n%s", err, out)
	}
	log := string(out)
	for _, want := range []string{
		"2 ops (2 implemented, 0 spec-only) in 1 files",
		"5 cases evaluated: 5 clean, 0 failed",
		"ScaleFwd   prefill-hidden",
		"3 rows: ",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the steps' output lacks %q:\n%s", want, log)
		}
	}
	mod := filepath.Join(dir, "fastops")
	for _, f := range []string{"ropgen.yaml", "ops/zz_roofline.go", "records.txt"} {
		if _, err := os.Stat(filepath.Join(mod, f)); err != nil {
			t.Error(err)
		}
	}
	if out, err := exec.Command("gofmt", "-l", mod).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("the page's Go files are not gofmt'd: %v %s", err, out)
	}
}
