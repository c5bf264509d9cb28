package docs_test

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// modelSectionRE is a numbered heading of docs/model.md: "## 3. The compute roof" or
	// "### 3.2 Declared, never inferred".
	modelSectionRE = regexp.MustCompile(`^(?:## (\d+)\.|### (\d+\.\d+)) `)
	// modelCiteRE is a citation of it: "docs/model.md §3.2", "docs/model.md §7.2-7.3",
	// "docs/model.md §1, §5 and §6".
	modelCiteRE = regexp.MustCompile(`docs/model\.md §(\d+(?:\.\d+)?)((?:(?:-|, §| and §)\d+(?:\.\d+)?)*)`)
	moreCiteRE  = regexp.MustCompile(`\d+(?:\.\d+)?`)
)

// TestModelCitations checks that every citation of docs/model.md in the repository names a
// section the page has, so that renumbering the page, or citing a rule it does not state,
// fails here rather than sending a reader to nothing.
func TestModelCitations(t *testing.T) {
	r, err := root()
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(r, "docs", "model.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]bool{}
	for line := range strings.Lines(string(page)) {
		if m := modelSectionRE.FindStringSubmatch(line); m != nil {
			sections[m[1]+m[2]] = true
		}
	}
	if len(sections) < 10 {
		t.Fatalf("docs/model.md: only %d numbered sections found", len(sections))
	}
	cites := 0
	err = filepath.WalkDir(r, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != r && (strings.HasPrefix(d.Name(), ".") || d.Name() == "out") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".yaml", ".yml", ".json", ".py", ".sh", ".c", ".s":
		default:
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rel, _ := filepath.Rel(r, path)
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			for _, m := range modelCiteRE.FindAllStringSubmatch(sc.Text(), -1) {
				for _, sec := range append([]string{m[1]}, moreCiteRE.FindAllString(m[2], -1)...) {
					cites++
					if !sections[sec] {
						t.Errorf("%s:%d: cites docs/model.md §%s, which the page does not have", rel, n, sec)
					}
				}
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if cites == 0 {
		t.Error("no citation of docs/model.md found: the pattern no longer matches how code cites it")
	}
}
