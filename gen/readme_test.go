package gen

import (
	"os"
	"strings"
	"testing"
)

// TestHelperTableDocumented keeps the README's helper table identical to gen.Helpers.
func TestHelperTableDocumented(t *testing.T) {
	doc, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "<!-- helpers:begin -->\n")
	table, _, ok := strings.Cut(rest, "<!-- helpers:end -->")
	if !ok {
		t.Fatal("README.md lacks the helpers:begin/end markers")
	}
	if got, want := table, helperTable(); got != want {
		t.Errorf("README.md's helper table is out of date; it should read:\n%s", want)
	}
}

func helperTable() string {
	var b strings.Builder
	b.WriteString("| helper | layers | meaning |\n|---|---|---|\n")
	for _, h := range Helpers {
		var layers []string
		for _, l := range []Layer{VarsLayer, ArithLayer} {
			if h.Layers&l != 0 {
				layers = append(layers, l.String())
			}
		}
		b.WriteString("| `" + h.Name + "` | " + strings.Join(layers, ", ") + " | " + h.Meaning + " |\n")
	}
	return b.String()
}
