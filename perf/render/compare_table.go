package render

import (
	"bufio"
	"fmt"
	"io"

	"github.com/ropgen/ropgen/perf/report"
)

// WriteCompare writes a comparison as an aligned table: per row the base and new median time
// with their spread, the time change and its p-value, the efficiency before and after, the
// verdict (old → new when it changed), then the Summary line and the drift Warning.
func WriteCompare(w io.Writer, c *Comparison) error {
	bw := bufio.NewWriter(w)
	ds := c.Deltas
	head := []string{"row", "base", "±", "new", "±", "Δ time", "p", "eff", "verdict", "why"}
	right := []bool{false, true, true, true, true, true, true, false, false, false}
	cells := [][]string{head}
	for i := range ds {
		d := &ds[i]
		name := report.ShortName(d.Name())
		if c.Impls != "" {
			name = sampledOf(d).ImplName() + ": " + name // the runs timed different implementations
		}
		cells = append(cells, []string{
			name, sampledTime(d.Old), spreadText(d.Old), sampledTime(d.New), spreadText(d.New),
			deltaText(d), pText(d.P), effText(d), verdictText(d), d.Why,
		})
	}
	writeAligned(bw, cells, right)
	fmt.Fprintln(bw, c.Summary())
	if w := c.Warning(); w != "" {
		fmt.Fprintln(bw, "note:", w)
	}
	return bw.Flush()
}

func sampledTime(s *report.Sampled) string {
	if s == nil {
		return "-"
	}
	return report.SI(measured(s.Seconds), "s")
}

// spreadText is a row's spread as ±half its range over the median, the way benchstat prints
// it; blank for one sample.
func spreadText(s *report.Sampled) string {
	if s == nil || len(s.Samples) < 2 {
		return ""
	}
	if r := s.RelSpread(); !report.Blank(r) {
		return fmt.Sprintf("%.0f%%", 100*r/2)
	}
	return ""
}

func deltaText(d *Delta) string {
	switch {
	case d.Change == Added || d.Change == Removed:
		return string(d.Change)
	case report.Blank(d.Ratio):
		return ""
	case d.Change == Unchanged:
		return fmt.Sprintf("~ (%+.1f%%)", 100*(d.Ratio-1))
	}
	return fmt.Sprintf("%+.1f%%", 100*(d.Ratio-1))
}

func pText(p float64) string {
	if report.Blank(p) {
		return ""
	}
	return fmt.Sprintf("%.3f", p)
}

func effText(d *Delta) string {
	o, n := "", ""
	if d.OldRow != nil {
		o = report.Percent(d.OldRow.Efficiency)
	}
	if d.NewRow != nil {
		n = report.Percent(d.NewRow.Efficiency)
	}
	if o == "" && n == "" {
		return ""
	}
	return orDash(o) + " → " + orDash(n)
}

func verdictText(d *Delta) string {
	switch {
	case d.VerdictChanged():
		return orDash(string(d.OldRow.Verdict)) + " → " + orDash(string(d.NewRow.Verdict))
	case d.NewRow != nil:
		return string(d.NewRow.Verdict)
	}
	return string(d.OldRow.Verdict)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
