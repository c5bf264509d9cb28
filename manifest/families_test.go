package manifest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFamilies: the families read without validation are the validated catalog's, op for op,
// and a file that cannot be parsed is a finding while the other files' families still come
// back.
func TestFamilies(t *testing.T) {
	cat, fs := Load(".")
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	got, fs := Families(".")
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	if len(got) != len(cat.Ops) {
		t.Errorf("%d families for %d ops", len(got), len(cat.Ops))
	}
	for _, op := range cat.Ops {
		if got[op.Name] != op.Family.Value {
			t.Errorf("%s: family %q, want %q", op.Name, got[op.Name], op.Family.Value)
		}
	}
	dir := t.TempDir()
	bad, good := filepath.Join(dir, "bad.yaml"), filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(bad, []byte("A: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, []byte("B:\n  family: norm\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, fs = Families(bad, good)
	if len(fs) == 0 || got["B"] != "norm" {
		t.Errorf("families %v, findings %v: want B's family and a finding for bad.yaml", got, fs)
	}
}
