package genfiles

import (
	"fmt"
	"strings"
)

// unifiedDiff returns a unified diff (3 lines of context) turning old into new, or "" when
// they are equal. Lines are matched by a longest-common-subsequence table over the part
// between the common prefix and suffix: generated files change locally, so that part is small.
func unifiedDiff(path, old, new string) string {
	if old == new {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := diffLines(a[pre:len(a)-suf], b[pre:len(b)-suf])
	// Lay out every line as (kind, text) over the whole file, then cut hunks with context.
	var all []diffOp
	for _, l := range a[:pre] {
		all = append(all, diffOp{' ', l})
	}
	all = append(all, ops...)
	for _, l := range a[len(a)-suf:] {
		all = append(all, diffOp{' ', l})
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s (generated)\n", path, path)
	const ctx = 3
	for i := 0; i < len(all); {
		if all[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-ctx)
		end := i
		for j := i; j < len(all); j++ {
			if all[j].kind != ' ' {
				end = j
			} else if j-end > 2*ctx {
				break
			}
		}
		end = min(len(all), end+ctx+1)
		aStart, bStart, aLen, bLen := 1, 1, 0, 0
		for _, l := range all[:start] {
			if l.kind != '+' {
				aStart++
			}
			if l.kind != '-' {
				bStart++
			}
		}
		for _, l := range all[start:end] {
			if l.kind != '+' {
				aLen++
			}
			if l.kind != '-' {
				bLen++
			}
		}
		if aLen == 0 { // an empty range names the line before it, as diff -u does
			aStart--
		}
		if bLen == 0 {
			bStart--
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", aStart, aLen, bStart, bLen)
		for _, l := range all[start:end] {
			out.WriteByte(l.kind)
			out.WriteString(l.text)
			out.WriteByte('\n')
		}
		i = end
	}
	return out.String()
}

type diffOp struct {
	kind byte // ' ', '-', '+'
	text string
}

// diffLines is the classic LCS diff. Past a size limit it gives up matching and replaces
// the whole middle, which is still a correct (if verbose) diff.
func diffLines(a, b []string) []diffOp {
	var ops []diffOp
	if len(a)*len(b) > 4_000_000 {
		for _, l := range a {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, diffOp{'+', l})
		}
		return ops
	}
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	return ops
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
