package genfiles

import (
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	lines := func(n int, change map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := change[i]; ok {
				b.WriteString(s)
			} else {
				b.WriteString("l" + string(rune('a'+i-1)))
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"equal", "x\n", "x\n", ""},
		{"one line changed in the middle", lines(10, nil), lines(10, map[int]string{5: "X"}),
			"--- f\n+++ f (generated)\n@@ -2,7 +2,7 @@\n lb\n lc\n ld\n-le\n+X\n lf\n lg\n lh\n"},
		{"new file", "", "a\nb\n", "--- f\n+++ f (generated)\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"two distant changes make two hunks", lines(20, nil), lines(20, map[int]string{2: "X", 19: "Y"}),
			"--- f\n+++ f (generated)\n@@ -1,5 +1,5 @@\n la\n-lb\n+X\n lc\n ld\n le\n@@ -16,5 +16,5 @@\n lp\n lq\n lr\n-ls\n+Y\n lt\n"},
		{"a line removed", "a\nb\nc\n", "a\nc\n", "--- f\n+++ f (generated)\n@@ -1,3 +1,2 @@\n a\n-b\n c\n"},
	} {
		if got := unifiedDiff("f", tc.old, tc.new); got != tc.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tc.name, got, tc.want)
		}
	}
}
