package render

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/report"
)

// compareColumns are the fields of a compared row in the machine-readable outputs: its name,
// per run the median time, the number of records and their spread, the change (its ratio,
// p-value and whether it is significant), the efficiency and verdict per run, and why a row is
// unchanged when that is not plain. CSV and JSON both walk this table.
var compareColumns = []column[Delta]{
	{name: "op", text: func(d *Delta) string { return sampledOf(d).Op }},
	{name: "workload", text: func(d *Delta) string { return sampledOf(d).Workload }},
	{name: "dtype", text: func(d *Delta) string { return sampledOf(d).DType }},
	{name: "impl", text: func(d *Delta) string { return sampledOf(d).ImplName() }},
	{name: "change", text: func(d *Delta) string { return string(d.Change) }},
	{name: "significant", text: func(d *Delta) string { return strconv.FormatBool(significant(d)) }, json: func(d *Delta) any { return significant(d) }},
	{name: "old_seconds", num: func(d *Delta) float64 { return sampledSeconds(d.Old) }},
	{name: "new_seconds", num: func(d *Delta) float64 { return sampledSeconds(d.New) }},
	{name: "old_n", count: func(d *Delta) int64 { return sampleCount(d.Old) }},
	{name: "new_n", count: func(d *Delta) int64 { return sampleCount(d.New) }},
	{name: "old_spread", num: func(d *Delta) float64 { return sampledSpread(d.Old) }},
	{name: "new_spread", num: func(d *Delta) float64 { return sampledSpread(d.New) }},
	{name: "ratio", num: func(d *Delta) float64 { return d.Ratio }},
	{name: "delta", num: func(d *Delta) float64 { return d.Ratio - 1 }},
	{name: "p", num: func(d *Delta) float64 { return d.P }},
	{name: "old_efficiency", num: func(d *Delta) float64 { return rowEff(d.OldRow) }},
	{name: "new_efficiency", num: func(d *Delta) float64 { return rowEff(d.NewRow) }},
	{name: "efficiency_delta", num: func(d *Delta) float64 { return d.EffDelta }},
	{name: "old_verdict", text: func(d *Delta) string { return rowVerdict(d.OldRow) }},
	{name: "new_verdict", text: func(d *Delta) string { return rowVerdict(d.NewRow) }},
	{name: "why", text: func(d *Delta) string { return d.Why }},
	{name: "old_pos", text: func(d *Delta) string { return samplePos(d.Old).String() }, json: func(d *Delta) any { return posOrNull(d.Old) }},
	{name: "new_pos", text: func(d *Delta) string { return samplePos(d.New).String() }, json: func(d *Delta) any { return posOrNull(d.New) }},
}

func sampledOf(d *Delta) *report.Sampled {
	if d.New != nil {
		return d.New
	}
	return d.Old
}

// significant reports whether the comparison calls the row faster or slower.
func significant(d *Delta) bool { return d.Change == Faster || d.Change == Slower }

func sampledSeconds(s *report.Sampled) float64 {
	if s == nil {
		return blank
	}
	return measured(s.Seconds)
}

func sampleCount(s *report.Sampled) int64 {
	if s == nil {
		return 0
	}
	return int64(len(s.Samples))
}

// sampledSpread is (slowest - fastest) / median of a run's records of the row; blank for a
// row missing from the run.
func sampledSpread(s *report.Sampled) float64 {
	if s == nil {
		return blank
	}
	return s.RelSpread()
}

func rowEff(r *report.Row) float64 {
	if r == nil {
		return blank
	}
	return r.Efficiency
}

func rowVerdict(r *report.Row) string {
	if r == nil {
		return ""
	}
	return string(r.Verdict)
}

func samplePos(s *report.Sampled) diag.Pos {
	if s == nil {
		return diag.Pos{}
	}
	return s.Pos
}

// posOrNull is where a run's first record of the row was read, or null when the run lacks it.
func posOrNull(s *report.Sampled) any {
	if s == nil {
		return nil
	}
	return s.Pos
}

// WriteCompareCSV writes a comparison as CSV: a header line, then one line per row
// (compareColumns); blank cells are empty.
func WriteCompareCSV(w io.Writer, c *Comparison) error { return writeCSV(w, compareColumns, c.Deltas) }

// WriteCompareJSON writes a comparison as one JSON document: the basis, the test's options,
// the runs' typical shift, drift and the threshold it set, the counts, the summary line (which
// states the rule), and one object per row (compareColumns' names as keys, blank cells null).
func WriteCompareJSON(w io.Writer, basis profiles.Basis, c *Comparison) error {
	n := Tally(c.Deltas)
	head, err := json.Marshal(struct {
		Basis     profiles.Basis `json:"basis"`
		Alpha     float64        `json:"alpha"`
		MinEffect float64        `json:"min_effect"`
		NoiseZ    float64        `json:"noise_z"`
		Shift     *float64       `json:"shift"`
		Noise     *float64       `json:"noise"`
		Threshold float64        `json:"threshold"`
		Faster    int            `json:"faster"`
		Slower    int            `json:"slower"`
		Unchanged int            `json:"unchanged"`
		Added     int            `json:"added"`
		Removed   int            `json:"removed"`
		Summary   string         `json:"summary"`
	}{basis, c.Options.Alpha, c.Options.MinEffect, c.Options.NoiseZ, OrNull(c.Shift), OrNull(c.Noise), c.Threshold,
		n[Faster], n[Slower], n[Unchanged], n[Added], n[Removed], c.Summary()})
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	writeJSONRows(bw, head, compareColumns, c.Deltas)
	return bw.Flush()
}

// OrNull is v, or nil (JSON null) when it is blank or not finite: every JSON number of a
// comparison, here and in ropgen history diff.
func OrNull(v float64) *float64 {
	if v = finite(v); report.Blank(v) {
		return nil
	}
	return &v
}
