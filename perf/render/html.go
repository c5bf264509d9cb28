package render

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/report"
)

// Meta is the context of a report: what a reader needs to know where its numbers came from.
type Meta struct {
	Command   string    // the command line that made the report
	Commit    string    // the source revision of the records ("" when unknown)
	Date      time.Time // when the report was made
	Files     []string  // the records files of the run
	BaseFiles []string  // the records files of the base run, when comparing
	AuditFile string    // the bytes audit's results the rows were marked from (-audit), "" when none
}

// Document is everything a report shows: the priced rows of a run, optionally their samples
// and a comparison against a base run, a chart, and where it all came from. WriteHTML and
// WriteMarkdown render it.
type Document struct {
	Meta
	Pricer *report.Pricer
	Rows   []report.Row
	// Sampled holds the grouped rows behind Rows, index by index (Rows[i] prices
	// Sampled[i].Record), for the spread column; nil when each row is one record.
	Sampled []report.Sampled
	// Comparison compares Rows against a base run; nil when there is none.
	Comparison *Comparison
	// Chart is an SVG roofline chart (WriteSVG) to inline; ChartNote says why there is none.
	Chart     []byte
	ChartNote string
}

//go:embed html.tmpl
var htmlTemplate string

var htmlPage = template.Must(template.New("report").Parse(htmlTemplate))

// htmlRow is one table row as the page shows it: display text and a sort key per cell (the
// key is empty for a blank cell, which sorts last).
type htmlRow struct {
	Op, Workload, DType, DTypeFull, Roof string
	Flops, Bytes, Time, Spread, N        cell
	SOL, Eff, Judged                     cell
	Bound, Verdict, Note, Pos            string
	// SpreadTitle gives the spread of a row's records' medians when it has several (its
	// cell's hover text); PosFull is where the record was read, Pos its file's base name
	// and line: a path as long as a CI workspace's would widen the table past the window.
	SpreadTitle, PosFull string
	Class                string
}

type cell struct{ Text, Key string }

func numCell(text string, v float64) cell {
	if report.Blank(v) {
		return cell{}
	}
	return cell{text, strconv.FormatFloat(v, 'g', 6, 64)}
}

// htmlBar is one zero-FLOP row in the bandwidth view.
type htmlBar struct {
	Name, Rate, Share, Verdict string
	Width                      float64 // bar length in percent of the view's scale
	Class                      string
}

// htmlUnplotted is the rows not on the roofline chart for one reason.
type htmlUnplotted struct {
	Why   string
	Names []string
}

type htmlDevice struct {
	Device, Profile, Source, Measured, HBM, Spread, Error string
	// Memory names the memory roof in the host's words (DRAM on a CPU); Compute lists the
	// compute roofs the same way, and says when a CPU has no matrix unit.
	Memory, Compute string
}

// htmlRanked is a row of the ranking by lost time (Rank).
type htmlRanked struct {
	N, Name, Time, SOL, Lost, Share, Eff, Judged, Samples, Verdict, Move, Class string
}

type htmlDelta struct {
	Name, Old, OldSpread, New, NewSpread, Delta, P, Eff, Verdict, Why string
	DeltaKey                                                          string
	Class                                                             string
	VerdictChanged                                                    bool
}

type htmlView struct {
	Title, Basis string
	Meta         Meta
	Date         string
	Devices      []htmlDevice
	Counts       string
	// Judged shows the rows table's judged column: a row's verdict reads its judged
	// efficiency (judgedDecides), as in the text table.
	Judged bool
	// AuditLine counts the ranked rows the bytes audit judged (AuditLine); "" without -audit.
	AuditLine       string
	Rows            []htmlRow
	Abbreviated     bool
	DTypeLegend     string
	Chart           template.HTML
	ChartNote       string
	Bars            []htmlBar
	BarScale        float64         // the percent of the ceiling at the right edge of the view
	BarCeiling      float64         // where 100% of the ceiling sits, in percent of the view
	Unplotted       []htmlUnplotted // the rows with no point on the roofline chart, by why
	UnplottedN      int
	Deltas          []htmlDelta
	CompareSummary  string
	CompareWarning  string
	VerdictsChanged int
	// Sides are the tally lines of several implementations set side by side (Sides.TallyLine);
	// none for one implementation.
	Sides       []string
	Verdicts    []string
	VerdictHelp string
	// Memory names the memory roof of the rows' profile in the host's words ("DRAM").
	Memory               string
	Ranked               []htmlRanked
	RankRule, RankLegend string
	// RankJudged shows the ranked table's judged column, as the text summary's, with
	// JudgedLegend under it.
	RankJudged   bool
	JudgedLegend string
	Tiny         int // the rows under the latency floor, counted apart
}

// verdictClass is a CSS class per verdict, matching the chart's colours.
func verdictClass(v report.Verdict, eff float64) string {
	switch v {
	case report.AtCeiling:
		return "v-ceiling"
	case report.AtLine, report.Inconclusive:
		return "v-line"
	case report.Anomaly:
		return "v-anomaly"
	case report.FormulaError:
		return "v-error"
	case report.LatencyBound:
		return "v-latency"
	}
	if report.Blank(eff) {
		return "v-unpriced"
	}
	return "v-below"
}

// VerdictCounts is the one-line verdict tally of a report (Counts).
func VerdictCounts(rows []report.Row) string { return Counts(rows).String() }

func (d *Document) view() (*htmlView, error) {
	v := &htmlView{Meta: d.Meta, Basis: string(d.Pricer.Basis()), Counts: VerdictCounts(d.Rows), DTypeLegend: report.DTypeLegend,
		ChartNote: d.ChartNote, Verdicts: []string{string(report.AtCeiling), string(report.AtLine), string(report.Inconclusive), string(report.Below), string(report.Anomaly), string(report.FormulaError), string(report.LatencyBound)},
		VerdictHelp: fmt.Sprintf("At ceiling when the median sample reaches %.0f%% of the SOL time (for a memory-bound row with a same-time reference, measured against the machine as that reference found it: the judged efficiency); "+
			"at the line when the judged efficiency's 99%% interval (from the row's samples paired with their reference calls) holds that line, so its samples cannot tell the side; "+
			"inconclusive when only what the run saw of the machine (a burst on its reference, a slower compute probe, a drifted run, a profile measured under load) puts the line inside that interval; "+
			"anomaly when even the slowest sample is above %.0f%% (the formula or the calibration is wrong); below otherwise; "+
			"latency-bound rows have a SOL time under the cold-call floor; "+
			"a formula error: the fastest sample implies a rate above a theoretical ceiling, or the median a byte rate above what the machine could have moved at the same time (the same-time reference, the streaming pattern timed between a DRAM-sized row's samples, times the envelope over that pattern's calibrated rate, widened by its spread). A rate check convicts no undercount: the bytes audit does (docs/audit.md).",
			100*report.AtCeilingMin, 100*report.AnomalyAbove)}
	if d.Sampled != nil && len(d.Sampled) != len(d.Rows) {
		return nil, fmt.Errorf("report: %d sampled rows for %d priced rows", len(d.Sampled), len(d.Rows))
	}
	if !d.Date.IsZero() {
		v.Date = d.Date.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	var names []string
	for _, m := range d.Pricer.Devices() {
		hd := htmlDevice{Device: m.Device}
		if m.Err != nil {
			hd.Error = NoProfileHelp(m.Device, m.Err)
		}
		if p := m.Profile; p != nil {
			hd.Profile, hd.Source = p.Name, p.Source
			hd.Measured = "not measured (datasheet values)"
			if !p.Measured.At.IsZero() {
				hd.Measured = p.Measured.At.UTC().Format("2006-01-02 15:04 UTC")
				if p.Measured.LoadAvg > 0 {
					hd.Measured += fmt.Sprintf(", load average %.2f", p.Measured.LoadAvg)
				}
			}
			if hbm, ok := p.Resolve(profiles.HBMKey, d.Pricer.Basis()); ok {
				hd.HBM = report.Rate(hbm, "B/s")
			}
			hd.Memory = report.MemoryName(p)
			if v.Memory == "" {
				v.Memory = hd.Memory
			}
			hd.Compute = computeRoofs(p, d.Pricer.Basis())
			if s := p.HBM.Spread; s.Measured() {
				hd.Spread = fmt.Sprintf("%s .. %s (±%.1f%%, n=%d)", report.Rate(s.Min, "B/s"), report.Rate(s.Max, "B/s"), 50*s.Rel(), s.N)
			}
			names = append(names, p.Name)
		}
		v.Devices = append(v.Devices, hd)
	}
	v.Title = "ropgen report"
	if len(names) > 0 {
		v.Title += ": " + strings.Join(names, ", ")
	}
	maxShare := 1.0
	for i := range d.Rows {
		r := &d.Rows[i]
		if r.Rec.Flops == 0 && r.Rec.Bytes > 0 && r.Rec.Seconds > 0 && !report.Blank(r.Bandwidth) {
			maxShare = max(maxShare, r.ByteRate/r.Bandwidth)
		}
	}
	v.BarScale = math.Ceil(maxShare*10) * 10 // percent, to the next 10% above the fastest
	v.BarCeiling = 100 * 100 / v.BarScale
	for i := range d.Rows {
		r := &d.Rows[i]
		hr := htmlRow{Op: r.Rec.Op, Workload: r.Rec.Workload, DType: report.ShortDType(r.Rec.DType), DTypeFull: r.Rec.DType,
			Roof: report.RoofName(r.Profile, r.Rec.Roof), Bound: string(r.Bound), Verdict: string(r.Verdict), Note: r.Note, Pos: r.Rec.Pos.String(),
			Class: verdictClass(r.Verdict, r.Efficiency)}
		if hr.DType != hr.DTypeFull {
			v.Abbreviated = true
		}
		hr.Flops = numCell(report.SI(float64(r.Rec.Flops), ""), float64(r.Rec.Flops))
		hr.Bytes = numCell(report.SI(float64(r.Rec.Bytes), "B"), float64(r.Rec.Bytes))
		hr.Time = numCell(report.SI(measured(r.Rec.Seconds), "s"), measured(r.Rec.Seconds))
		hr.SOL = numCell(report.SI(r.SOLTime, "s"), r.SOLTime)
		hr.Eff = numCell(report.Percent(r.Efficiency), r.Efficiency)
		if judgedDecides(r) {
			hr.Judged = numCell(judgedCell(r), r.Judged)
			v.Judged = true
		}
		hr.N = numCell("1", 1)
		hr.Spread = spreadCell(r)
		if d.Sampled != nil {
			s := &d.Sampled[i]
			hr.N = numCell(strconv.Itoa(len(s.Samples)), float64(len(s.Samples)))
			if len(s.Samples) > 1 {
				lo, hi := s.Range()
				records := fmt.Sprintf("±%.0f%% (%s .. %s)", 50*s.RelSpread(), report.SI(lo, "s"), report.SI(hi, "s"))
				hr.SpreadTitle = fmt.Sprintf("the %d records' medians: %s", len(s.Samples), records)
				if hr.Spread.Text == "" {
					hr.Spread = numCell(records, s.RelSpread())
				}
			}
		}
		if pos := r.Rec.Pos; pos.File != "" {
			hr.PosFull = pos.String()
			pos.File = filepath.Base(pos.File)
			hr.Pos = pos.String()
		}
		v.Rows = append(v.Rows, hr)

		if r.Rec.Flops == 0 && r.Rec.Bytes > 0 && r.Rec.Seconds > 0 && !report.Blank(r.Bandwidth) {
			share := r.ByteRate / r.Bandwidth
			v.Bars = append(v.Bars, htmlBar{Name: r.Rec.Op + "/" + r.Rec.Workload + "/" + report.ShortDType(r.Rec.DType),
				Rate: report.Rate(r.ByteRate, "B/s"), Share: fmt.Sprintf("%.1f%%", 100*share), Verdict: string(r.Verdict),
				Width: 100 * 100 * share / v.BarScale, Class: hr.Class})
		}
	}
	if v.Memory == "" {
		v.Memory = "memory"
	}
	ranked := Rank(d.Rows)
	lostAll := LostTotal(ranked)
	for i, k := range ranked {
		hk := htmlRanked{N: strconv.Itoa(i + 1), Name: report.ShortName(k.Rec.Op + "/" + k.Rec.Workload + "/" + k.Rec.DType),
			Time: report.SI(k.Rec.Seconds, "s"), SOL: report.SI(k.SOLTime, "s"), Lost: report.SI(k.Lost, "s"), Eff: report.Percent(k.Efficiency),
			Samples: effSpread(k.Row), Verdict: string(k.Verdict), Move: k.Move, Class: verdictClass(k.Verdict, k.Efficiency)}
		if lostAll > 0 && k.Lost > 0 {
			hk.Share = roundPercent(k.Lost / lostAll)
		}
		if judgedDecides(k.Row) {
			hk.Judged = judgedCell(k.Row)
			v.RankJudged = true
		}
		v.Ranked = append(v.Ranked, hk)
	}
	v.RankRule, v.RankLegend, v.JudgedLegend = RankRule, SummaryLegend, JudgedLegend
	v.AuditLine = AuditLine(ranked, d.AuditFile != "")
	v.Tiny = Counts(d.Rows).LatencyBound
	for _, g := range unplotted(d.Rows) {
		v.Unplotted = append(v.Unplotted, htmlUnplotted{Why: g.why, Names: g.names})
		v.UnplottedN += len(g.names)
	}
	if d.Chart != nil {
		v.Chart = template.HTML(stripXMLProlog(d.Chart))
	}
	if sd := SideBySide(d.Rows); sd != nil {
		for i := 1; i < len(sd.Impls); i++ {
			v.Sides = append(v.Sides, sd.TallyLine(i))
		}
	}
	if c := d.Comparison; c != nil {
		v.CompareSummary, v.CompareWarning = c.Summary(), c.Warning()
		for i := range c.Deltas {
			dl := &c.Deltas[i]
			hd := htmlDelta{Name: report.ShortName(dl.Name()), Old: sampledTime(dl.Old), OldSpread: spreadText(dl.Old),
				New: sampledTime(dl.New), NewSpread: spreadText(dl.New), Delta: deltaText(dl), P: pText(dl.P),
				Eff: effText(dl), Verdict: verdictText(dl), Why: dl.Why, VerdictChanged: dl.VerdictChanged()}
			if !report.Blank(dl.Ratio) {
				hd.DeltaKey = strconv.FormatFloat(dl.Ratio-1, 'g', 6, 64)
			}
			switch dl.Change {
			case Faster:
				hd.Class = "c-faster"
			case Slower:
				hd.Class = "c-slower"
			}
			if hd.VerdictChanged {
				v.VerdictsChanged++
			}
			v.Deltas = append(v.Deltas, hd)
		}
	}
	return v, nil
}

// spreadCell is a row's spread as the text table gives it (effSpread: the efficiency of its
// slowest and of its fastest sample, "82-87%"), or for a row with no efficiency the times of
// those samples, joined as effSpread joins its percentages; its key, for sorting, is their
// distance over the median time. Blank when the records give no slowest and fastest sample.
func spreadCell(r *report.Row) cell {
	lo, hi, med := r.Rec.MinSeconds, r.Rec.MaxSeconds, r.Rec.Seconds
	if lo <= 0 || hi <= 0 || med <= 0 {
		return cell{}
	}
	text := effSpread(r)
	if text == "" {
		text = report.SI(lo, "s") + "-" + report.SI(hi, "s")
	}
	return numCell(text, (hi-lo)/med)
}

// stripXMLProlog drops an XML declaration, which has no place inside an HTML document.
func stripXMLProlog(b []byte) string {
	s := string(bytes.TrimSpace(b))
	if strings.HasPrefix(s, "<?xml") {
		if i := strings.Index(s, "?>"); i >= 0 {
			s = strings.TrimSpace(s[i+2:])
		}
	}
	return s
}

// WriteHTML writes the report as one self-contained HTML page: no script, style or image
// from anywhere else, so it opens offline and can be attached to a ticket. It holds the run's
// metadata (devices, profiles with their calibration date and spread, records files, commit,
// date, command), the verdict counts, the comparison against a base run when there is one, the
// roofline chart with a tooltip per point, a bandwidth view of the zero-FLOP rows the chart
// cannot place, and every row in a table that sorts by any column and filters by text or
// verdict.
func WriteHTML(w io.Writer, d *Document) error {
	v, err := d.view()
	if err != nil {
		return err
	}
	return htmlPage.Execute(w, v)
}

// computeRoofs lists prof's compute roofs on basis in the host's words: each unit's name
// (RoofName) and ceiling, a CPU's cube roofs that are its vector pipes left out and said so.
func computeRoofs(prof *profiles.Profile, basis profiles.Basis) string {
	keys, aliased := report.ComputeKeys(prof)
	var parts []string
	for _, k := range keys {
		val := "none"
		if c, ok := prof.Resolve(k, basis); ok {
			val = report.Rate(c, profiles.RateUnit(k))
		}
		parts = append(parts, report.RoofName(prof, k)+" "+val)
	}
	s := strings.Join(parts, ", ")
	if aliased {
		s += "; " + NoMatrixLine
	}
	return s
}
