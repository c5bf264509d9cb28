package manifest

import (
	"encoding/json"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// okEntry is a valid spec-only entry, %s its name.
const okEntry = `%s:
  family: f
  status: spec-only
  signature: {inputs: {x: {dtype: float32}}, outputs: {y: {dtype: float32}}}
  roofline: {flops: "0", bytes: "0"}
`

func entry(name string) string { return strings.Replace(okEntry, "%s", name, 1) }

// loadLines loads paths and returns the findings as strings, dir trimmed from them.
func loadLines(t *testing.T, dir string, paths ...string) []string {
	t.Helper()
	_, fs := testConfig.Load(paths...)
	var out []string
	for _, f := range fs {
		out = append(out, strings.ReplaceAll(f.String(), dir+string(filepath.Separator), ""))
	}
	return out
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantOne(t *testing.T, got []string, want string) {
	t.Helper()
	if len(got) != 1 || got[0] != want {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// A broken YAML document after the first is part of the file: it is reported, not dropped
// with the op in it.
func TestBrokenSecondDocument(t *testing.T) {
	dir := t.TempDir()
	for sep, want := range map[string]string{
		"---": "m.yaml:7:4: YAML syntax: did not find expected node content",
		"...": "m.yaml:7:4: YAML syntax: did not find expected <document start>",
	} {
		p := filepath.Join(dir, "m.yaml")
		writeFile(t, p, entry("A")+sep+"\nB: [\n")
		wantOne(t, loadLines(t, dir, p), want)
	}
}

// Tags are refused on mappings and lists as on scalars.
func TestTagsOnCollections(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.yaml")
	writeFile(t, p, "A: !custom {family: f}\nB:\n  workloads: !seq [1]\n")
	got := loadLines(t, dir, p)
	for _, want := range []string{"m.yaml:1:4: YAML tags (!custom) are not allowed in manifests", "m.yaml:3:14: YAML tags (!seq) are not allowed in manifests"} {
		if !slices.Contains(got, want) {
			t.Errorf("findings:\n%s\nwant among them: %s", strings.Join(got, "\n"), want)
		}
	}
}

// An op name is a Go type name: a Go keyword is refused by the schema.
func TestKeywordOpName(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.yaml")
	writeFile(t, p, entry("func")+entry("Type"))
	wantOne(t, loadLines(t, dir, p), "m.yaml:1:1: func: op name must not be a Go keyword: it names the op's Go type in package ops")
}

// TestSchemaKeywordsAreGos: the schema's list of refused op names is exactly Go's keywords.
func TestSchemaKeywordsAreGos(t *testing.T) {
	var sch struct {
		PropertyNames struct {
			AllOf []struct {
				Not struct{ Enum []string }
			}
		}
	}
	if err := json.Unmarshal(schemaJSON, &sch); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sch.PropertyNames.AllOf {
		got = append(got, s.Not.Enum...)
	}
	var want []string
	for tok := token.Token(0); tok < 200; tok++ {
		if tok.IsKeyword() {
			want = append(want, tok.String())
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("schema refuses op names %v; Go's keywords are %v", got, want)
	}
}

// A directory named x.yaml inside a manifest directory is not read as a manifest directory.
func TestDirectoryNamedYAML(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.yaml"), entry("A"))
	sub := filepath.Join(dir, "x.yaml")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(sub, "b.yaml"), entry("B"))
	cat, fs := testConfig.Load(dir)
	if len(fs) != 1 || !strings.Contains(fs[0].String(), "x.yaml: not a regular file (a directory)") {
		t.Errorf("findings:\n%v\nwant one: x.yaml is not a regular file", fs)
	}
	if cat.Op("B") != nil {
		t.Error("the op in x.yaml/b.yaml was loaded")
	}
}

// The same file named twice is one file, not an op defined twice.
func TestSameFileTwice(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.yaml")
	writeFile(t, p, entry("A"))
	t.Chdir(dir)
	cat, fs := testConfig.Load("a.yaml", "./a.yaml", ".")
	if len(fs) > 0 || len(cat.Ops) != 1 || len(cat.Files) != 1 {
		t.Errorf("%d ops in %d files, findings:\n%v; want 1 op in 1 file", len(cat.Ops), len(cat.Files), fs)
	}
}

// Non-regular files are refused before they are opened: a FIFO would block the reader, a
// device (/dev/zero) would never end.
func TestNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan []string, 1)
	paths := []string{fifo}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths = append(paths, "/dev/zero")
	}
	go func() { done <- loadLines(t, dir, paths...) }()
	select {
	case got := <-done:
		want := []string{"/dev/zero: not a regular file (a device): a manifest file is a plain file",
			"p.yaml: not a regular file (a named pipe): a manifest file is a plain file"}
		if len(paths) == 1 {
			want = want[1:]
		}
		if !slices.Equal(got, want) {
			t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Load blocked on a FIFO")
	}
}

// A file over the limit is refused from its size, without reading it: a sparse 3 GiB file
// costs no memory.
func TestHugeFileNotRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.yaml")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		f.Close()
		t.Skipf("no sparse file here: %v", err)
	}
	f.Close()
	wantOne(t, loadLines(t, dir, p), "big.yaml:1:1: file is 3072.0 MiB; a manifest file may be at most 4 MiB")
}

// A directory that cannot be read says why, not that it has no manifests.
func TestUnreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: every directory is readable")
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "m")
	if err := os.Mkdir(sub, 0o000); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(sub, 0o755)
	got := loadLines(t, dir, sub)
	if len(got) != 1 || !strings.Contains(got[0], "permission denied") {
		t.Errorf("findings:\n%s\nwant one saying permission denied", strings.Join(got, "\n"))
	}
}

// Messages say what is wrong with a dim or an int param: negative, zero, or too large for
// an int, never "not an integer" about an integer.
func TestIntegerMessages(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.yaml")
	writeFile(t, p, `A:
  family: f
  status: spec-only
  signature:
    inputs: {x: {dtype: float32, shape: "[M]"}, z: {dtype: float32}}
    outputs: {}
    params: {k: {type: int, default: 1}}
  workloads:
    - {M: 9223372036854775808, z_shape: [2, -1], dtypes: [float32]}
    - {M: -1, z_shape: [99999999999999999999], k: 9223372036854775808, dtypes: [float32]}
  roofline: {flops: "0", bytes: "0"}
`)
	got := loadLines(t, dir, p)
	want := []string{
		"m.yaml:9:11: A: workloads[0].M: a dim must be a positive integer, not 9223372036854775808: it does not fit in an int (64 bits)",
		"m.yaml:9:45: A: workloads[0].z_shape[1]: a dim must be a positive integer, not -1",
		"m.yaml:10:11: A: workloads[1].M: a dim must be a positive integer, not -1",
		"m.yaml:10:25: A: workloads[1].z_shape[0]: a dim must be a positive integer, not 99999999999999999999: it does not fit in an int (64 bits)",
		"m.yaml:10:51: A: workloads[1].k: must be of type int, not 9223372036854775808: it does not fit in an int (64 bits)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A []int param given an integer, as a Python manifest writes dim=-1 or kernel_size=3, is
// refused with the fix: the list, for either of PyTorch's readings (one element, or once per
// dimension). A float or a string is refused as before.
func TestScalarForListParam(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.yaml")
	writeFile(t, p, `A:
  family: f
  status: spec-only
  signature:
    inputs: {x: {dtype: float32}}
    outputs: {}
    params: {dim: {type: "[]int", default: -1}, kernel_size: {type: "[]int"}}
  workloads:
    - {x_shape: [2, 3], kernel_size: 3, dtypes: [float32]}
    - {x_shape: [2, 3], kernel_size: [3, 3], dim: 1.5, dtypes: [float32]}
  roofline: {flops: "0", bytes: "0"}
`)
	got := loadLines(t, dir, p)
	want := []string{
		"m.yaml:7:44: A: signature.params.dim.default: must be of type []int, not an integer (-1): write a list, [-1] if the integer is one element (PyTorch's dim=-1), or [-1, -1, ...] once per dimension if PyTorch repeats it (a square kernel_size=3 of a 2-d op is [3, 3])",
		"m.yaml:9:38: A: workloads[0].kernel_size: must be of type []int, not an integer (3): write a list, [3] if the integer is one element (PyTorch's dim=3), or [3, 3, ...] once per dimension if PyTorch repeats it (a square kernel_size=3 of a 2-d op is [3, 3])",
		"m.yaml:10:51: A: workloads[1].dim: must be of type []int, not a number (1.5)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Decode decodes the entries in parallel: the catalog keeps file and entry order, the first
// definition of a name wins, and the findings come in entry order, unsorted.
func TestDecodeKeepsOrder(t *testing.T) {
	var src [2]strings.Builder
	var want []string
	for i := range 40 {
		name := fmt.Sprintf("Op%02d", 39-i) // not sorted: order is the files'
		src[i/20].WriteString(entry(name))
		want = append(want, name)
	}
	src[1].WriteString(entry("Op39")) // defined in a.yaml first
	src[1].WriteString(strings.Replace(entry("Bad"), "status: spec-only", "status: done", 1))
	var files []*File
	for i, name := range []string{"a.yaml", "b.yaml"} {
		f, fs := Parse(name, []byte(src[i].String()))
		if len(fs) > 0 {
			t.Fatal(fs)
		}
		files = append(files, f)
	}
	cat, fs := Decode(files)
	var got []string
	for _, op := range cat.Ops {
		got = append(got, op.Name)
	}
	if !slices.Equal(got, want) { // Bad, which does not decode, is left out
		t.Errorf("ops %v\nwant %v", got, want)
	}
	if len(fs) != 2 || !strings.Contains(fs[0].String(), "Op39: op defined twice; first definition at a.yaml") || fs[1].Op != "Bad" {
		t.Errorf("findings:\n%v\nwant Op39 defined twice, then Bad's", fs)
	}
}
