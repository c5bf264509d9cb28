package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/diag"
)

// ReadResult reads back what ropgen audit -json writes, and names a bad file's problem at
// its line and column.
func TestReadResult(t *testing.T) {
	dir := t.TempDir()
	res := Result{Rows: []Row{{Op: "SoftmaxFwd", Workload: "w", DType: "float32", Side: "total", Formula: 100, Measured: 200, Ratio: 2,
		Launches: 1, Verdict: Warn, Record: diag.Pos{File: "r.txt", Line: 3}}}}
	good := filepath.Join(dir, "audit.json")
	data, _ := json.MarshalIndent(res, "", "  ")
	os.WriteFile(good, data, 0o666)
	got, fs := ReadResult(good)
	if len(fs) != 0 || len(got.Rows) != 1 || got.Rows[0] != res.Rows[0] {
		t.Fatalf("ReadResult: %v, findings %v; want the row back", got, fs)
	}
	for _, c := range []struct{ text, want string }{
		{"{\n  \"rows\": [\n    {\"op\": \"X\", \"bytez\": 1}\n  ]\n}\n", "bad.json:3:17: not an audit (ropgen audit -json): json: unknown field"},
		{"{\n  \"rows\": [\n    {\"op\": 7}\n  ]\n}\n", "bad.json:3:"},
		{"{\"rows\": [\n{,}]}", "bad.json:2:2: not an audit"},
		{"", "bad.json:1:1: empty file"},
		{"{\"rows\": []}\n{\"rows\": []}\n", "bad.json:2:"},
	} {
		bad := filepath.Join(dir, "bad.json")
		os.WriteFile(bad, []byte(c.text), 0o666)
		_, fs := ReadResult(bad)
		if len(fs) != 1 || !strings.HasPrefix(strings.TrimPrefix(fs[0].String(), dir+"/"), c.want) {
			t.Errorf("%q: findings %v, want one starting %q", c.text, fs, c.want)
		}
	}
}
