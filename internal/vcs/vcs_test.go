package vcs

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOfRecords: the records' own commit line wins over the tree and the build, from the
// first file that has one; a line the benchmark format does not take for a configuration line
// names nothing.
func TestOfRecords(t *testing.T) {
	dir := t.TempDir()
	none, named := filepath.Join(dir, "none.txt"), filepath.Join(dir, "named.txt")
	if err := os.WriteFile(none, []byte("Commit: upper\nBenchmarkX 1 2 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(named, []byte("commit: abc123\nBenchmarkX 1 2 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := Of([]string{none, named}); c != (Commit{Rev: "abc123", From: FromRecords}) {
		t.Errorf("Of = %+v, want abc123 from the records", c)
	}
	if c := Of([]string{none}); c.From == FromRecords {
		t.Errorf("Of = %+v: no records name a commit", c)
	}
}
