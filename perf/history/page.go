package history

import (
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/perf/report"
)

//go:embed page.tmpl
var pageTemplate string

var pageTmpl = template.Must(template.New("page").Parse(pageTemplate))

// Page is the trend page of a history: per device, per op, each row's efficiency over the
// runs, and the regressions of the device's last diff.
type Page struct {
	Runs    int
	Latest  string
	Line    string
	Devices []*pageDevice
}

type pageDevice struct {
	Device string
	Runs   int
	Diff   *pageDiff
	Ops    []*pageOp
}

type pageDiff struct {
	Base, New, Summary string
	Rows               []pageRegression
}

type pageRegression struct {
	Name, Base, New, Change, Test, Why string
}

type pageOp struct {
	Op   string
	Rows []pageRow
}

type xy struct{ X, Y string }

type pageRow struct {
	Name, Eff, Time, Trend, Verdict, Class string
	W, H                                   int
	Points                                 string
	LineY                                  string
	Last                                   *xy
}

// Rows is the number of rows the page draws.
func (p *Page) Rows() int {
	n := 0
	for _, d := range p.Devices {
		for _, o := range d.Ops {
			n += len(o.Rows)
		}
	}
	return n
}

// WriteHTML writes the page: one file, no script, no server.
func (p *Page) WriteHTML(w io.Writer) error { return pageTmpl.Execute(w, p) }

// The sparkline's size in pixels: 2 px a run, at least 120 and at most 300 (a thousand runs).
const (
	sparkH    = 28
	sparkMinW = 120
	sparkMaxW = 300
)

// Page builds the trend page of the rows f selects.
func (s *Store) Page(ctx context.Context, f Filter) (*Page, error) {
	series, runs, err := s.Series(ctx, f)
	if err != nil {
		return nil, err
	}
	p := &Page{Runs: len(runs), Line: report.Percent(report.AtCeilingMin)}
	if len(runs) > 0 {
		last := runs[len(runs)-1]
		p.Latest = fmt.Sprintf("%s (run %d)", last.Time.UTC().Format("2006-01-02 15:04 UTC"), last.ID)
	}
	devices := map[string]*pageDevice{}
	for _, r := range runs {
		d := devices[r.Track()]
		if d == nil {
			d = &pageDevice{Device: r.Track()}
			devices[r.Track()] = d
			p.Devices = append(p.Devices, d)
		}
		d.Runs++
	}
	for i := range series {
		sr := &series[i]
		d := devices[sr.Device]
		var op *pageOp
		if n := len(d.Ops); n > 0 && d.Ops[n-1].Op == sr.Op {
			op = d.Ops[n-1]
		} else if j := slices.IndexFunc(d.Ops, func(o *pageOp) bool { return o.Op == sr.Op }); j >= 0 {
			op = d.Ops[j]
		} else {
			op = &pageOp{Op: sr.Op}
			d.Ops = append(d.Ops, op)
		}
		op.Rows = append(op.Rows, sparkRow(sr))
	}
	for _, d := range p.Devices {
		// The device's last two runs: what history diff with no run given compares.
		var a, b *Run
		for i := len(runs) - 1; i >= 0 && a == nil; i-- {
			if runs[i].Track() != d.Device {
				continue
			}
			if b == nil {
				b = &runs[i]
			} else {
				a = &runs[i]
			}
		}
		if a == nil {
			continue
		}
		diff, err := s.Diff(ctx, *a, *b, DefaultDiff)
		if err != nil {
			return nil, err
		}
		pd := &pageDiff{Base: fmt.Sprintf("run %d", a.ID), New: fmt.Sprintf("run %d", b.ID), Summary: diff.Comparison.Summary()}
		for _, r := range diff.Regressions() {
			if !f.row(&r.New.Record) {
				continue
			}
			pd.Rows = append(pd.Rows, pageRegression{Name: report.ShortName(r.Name()),
				Base: report.SI(r.Old.Seconds, "s"), New: report.SI(r.New.Seconds, "s"),
				Change: fmt.Sprintf("%+.1f%%", 100*(r.Ratio-1)), Test: r.Test, Why: r.Why})
		}
		d.Diff = pd
	}
	return p, nil
}

// sparkRow draws a row's efficiency over its runs, on a scale from 0 to the larger of 1 and
// its best, with the at-ceiling line.
func sparkRow(sr *Series) pageRow {
	last := sr.Points[len(sr.Points)-1]
	r := pageRow{Name: report.ShortName(sr.Name()), Eff: report.Percent(last.Efficiency), Time: report.SI(last.Seconds, "s"),
		Verdict: string(last.Verdict), Class: verdictClass(last.Verdict), H: sparkH}
	if r.Verdict == "" {
		r.Verdict = "unpriced"
	}
	if !report.Blank(sr.Trend) {
		r.Trend = fmt.Sprintf("%+.1f%%", 100*sr.Trend)
	}
	r.W = min(sparkMaxW, max(sparkMinW, 2*len(sr.Points)))
	top := 1.0
	for _, pt := range sr.Points {
		if !report.Blank(pt.Efficiency) && !math.IsInf(pt.Efficiency, 0) {
			top = max(top, pt.Efficiency)
		}
	}
	y := func(e float64) float64 { return float64(sparkH-2) - float64(sparkH-4)*e/top }
	dx := 0.0
	if len(sr.Points) > 1 {
		dx = float64(r.W-4) / float64(len(sr.Points)-1)
	}
	var b strings.Builder
	for i, pt := range sr.Points {
		if report.Blank(pt.Efficiency) || math.IsInf(pt.Efficiency, 0) {
			continue
		}
		x := 2 + dx*float64(i)
		fmt.Fprintf(&b, "%.1f,%.1f ", x, y(pt.Efficiency))
		r.Last = &xy{fmt.Sprintf("%.1f", x), fmt.Sprintf("%.1f", y(pt.Efficiency))}
	}
	r.Points = strings.TrimSpace(b.String())
	if r.Points != "" {
		r.LineY = fmt.Sprintf("%.1f", y(report.AtCeilingMin))
	}
	return r
}

// verdictClass is the badge colour of a verdict, as the report's page colours it.
func verdictClass(v report.Verdict) string {
	switch v {
	case report.AtCeiling:
		return "v-ceiling"
	case report.Below:
		return "v-below"
	case report.AtLine:
		return "v-line"
	case report.Anomaly:
		return "v-anomaly"
	case report.FormulaError:
		return "v-error"
	case report.None:
		return "v-none"
	}
	return ""
}
