package manifest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/diag"
	"go.yaml.in/yaml/v3"
)

// TestStrAt: an offset in a scalar's value maps to the byte of the source that holds it, in
// every scalar style; columns count bytes. Each value holds the marker Q once; the source
// holds it once too, where At must point.
func TestStrAt(t *testing.T) {
	for _, src := range []string{
		"k: M + Q\n",
		"k: \"M + Q\"\n",
		"k: 'M + Q'\n",
		"k: |-\n  M +\n    Q\n",
		"k: >-\n  M +\n  K + Q\n",
		"k: |\n\n  M\n\n  + Q\n",
		"k: \"M +\n  K + Q\"\n",
		"k: \"M \\\"+\\\" \\\n  Q\"\n",
		"k: \"M\\t+\\nQ\"\n",
		"k: 'it''s Q'\n",
		"k: M +\n  Q\n",
		"μμ: \"ψ + Q\"\n",
		"k: \"\\x41 + Q\"\n",
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		n := doc.Content[0].Content[1]
		d := &decoder{file: "t.yaml", src: newSource([]byte(src))}
		s := d.str(n)
		off := strings.IndexByte(s.Value, 'Q')
		i := bytes.IndexByte([]byte(src), 'Q')
		want := bytePos("t.yaml", []byte(src), i)
		if got := s.At(off); got != want {
			t.Errorf("%q (value %q): At(%d) = %v, want %v", src, s.Value, off, got, want)
		}
		first := len(s.Value) - len(strings.TrimLeft(s.Value, " \n"))
		if got, start := s.At(first), bytePos("t.yaml", []byte(src), bytes.IndexAny([]byte(src), "Mψi\\")); got != start {
			t.Errorf("%q: At(%d) = %v, want %v", src, first, got, start)
		}
	}
	// A Str built by hand (no source) keeps the single-line rule.
	if got := (Str{Value: "M + Q", Pos: bytePos("f", []byte("k: M"), 3)}).At(4); got.Col != 8 {
		t.Errorf("a Str without source: At(4) col %d, want 8", got.Col)
	}
}

// bytePos is the position of byte offset i: its line, and its byte column, counted from the
// start (the reference for source.pos).
func bytePos(file string, src []byte, i int) diag.Pos {
	i = min(i, len(src))
	line := 1 + bytes.Count(src[:i], []byte{'\n'})
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	return diag.Pos{File: file, Line: line, Col: i - start + 1}
}

// TestSourcePos: the line index gives every offset the position counting from the start
// gives, on every line, at both ends of the file and of each line.
func TestSourcePos(t *testing.T) {
	for _, src := range []string{"", "a", "\n", "ab\ncd\n\nψ\n", "k: 1\nj: 2"} {
		s := newSource([]byte(src))
		for i := 0; i <= len(src); i++ {
			if got, want := s.pos("f", i), bytePos("f", []byte(src), i); got != want {
				t.Errorf("%q: pos(%d) = %v, want %v", src, i, got, want)
			}
		}
	}
}
