package render

import (
	"math"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/report"
)

// column is one field of a row in the machine-readable outputs. Exactly one of text, count
// and num is set; CSV and JSON both walk this table, so the two never disagree.
// The same tables describe a comparison's rows (compareColumns), over Delta.
type column[T any] struct {
	name  string
	text  func(*T) string
	count func(*T) int64
	num   func(*T) float64 // NaN is blank: "" in CSV, null in JSON
	// json, when set, is the cell's JSON value in place of text's string: a structured
	// value where JSON has a shape for it (a position is an object, as in every ropgen JSON).
	json func(*T) any
}

var columns = []column[report.Row]{
	{name: "device", text: func(r *report.Row) string { return r.Rec.Device }},
	{name: "impl", text: func(r *report.Row) string { return r.Rec.ImplName() }},
	{name: "op", text: func(r *report.Row) string { return r.Rec.Op }},
	{name: "workload", text: func(r *report.Row) string { return r.Rec.Workload }},
	{name: "dtype", text: func(r *report.Row) string { return r.Rec.DType }},
	{name: "roof", text: func(r *report.Row) string { return r.Rec.Roof }},
	{name: "flops", count: func(r *report.Row) int64 { return r.Rec.Flops }},
	{name: "bytes", count: func(r *report.Row) int64 { return r.Rec.Bytes }},
	{name: "seconds", num: func(r *report.Row) float64 { return measured(r.Rec.Seconds) }},
	{name: "min_seconds", num: func(r *report.Row) float64 { lo, _ := r.Rec.Spread(); return measured(lo) }},
	{name: "max_seconds", num: func(r *report.Row) float64 { _, hi := r.Rec.Spread(); return measured(hi) }},
	{name: "iters", count: func(r *report.Row) int64 { return int64(r.Rec.Iters) }},
	{name: "profile", text: func(r *report.Row) string { return profileName(r.Profile) }},
	{name: "memory_time", num: func(r *report.Row) float64 { return r.MemoryTime }},
	{name: "compute_time", num: func(r *report.Row) float64 { return r.ComputeTime }},
	{name: "sol_time", num: func(r *report.Row) float64 { return r.SOLTime }},
	{name: "efficiency", num: func(r *report.Row) float64 { return r.Efficiency }},
	{name: "efficiency_low", num: func(r *report.Row) float64 { return r.EffLow }},
	{name: "efficiency_high", num: func(r *report.Row) float64 { return r.EffHigh }},
	{name: "priced_roof", text: func(r *report.Row) string { return r.PricedRoof }},
	{name: "cache_level", text: func(r *report.Row) string { return r.CacheLevel }},
	{name: "cache_sol_time", num: func(r *report.Row) float64 { return r.CacheTime }},
	{name: "cache_efficiency", num: func(r *report.Row) float64 { return r.CacheEfficiency }},
	{name: "floor", num: func(r *report.Row) float64 { return r.Floor }},
	{name: "intensity", num: func(r *report.Row) float64 { return r.Intensity }},
	{name: "byte_rate", num: func(r *report.Row) float64 { return r.ByteRate }},
	{name: "flop_rate", num: func(r *report.Row) float64 { return r.FlopRate }},
	{name: "peak_byte_rate", num: func(r *report.Row) float64 { return r.PeakByteRate }},
	{name: "peak_flop_rate", num: func(r *report.Row) float64 { return r.PeakFlopRate }},
	{name: "ref_rate", num: func(r *report.Row) float64 { return r.RefRate }},
	{name: "ref_ratio", num: func(r *report.Row) float64 { return r.RefRatio }},
	{name: "machine", num: func(r *report.Row) float64 { return r.Machine }},
	{name: "probe", num: func(r *report.Row) float64 { return r.Probe }},
	{name: "judged_efficiency", num: func(r *report.Row) float64 { return r.Judged }},
	{name: "judged_low", num: func(r *report.Row) float64 { return r.JudgedLow }},
	{name: "judged_high", num: func(r *report.Row) float64 { return r.JudgedHigh }},
	{name: "past_low", num: func(r *report.Row) float64 { return pastCell(r, r.Past.Low) }},
	{name: "past_high", num: func(r *report.Row) float64 { return pastCell(r, r.Past.High) }},
	{name: "past_runs", num: func(r *report.Row) float64 { return pastCell(r, float64(r.Past.Runs)) }},
	{name: "bound", text: func(r *report.Row) string { return string(r.Bound) }},
	{name: "verdict", text: func(r *report.Row) string { return string(r.Verdict) }},
	{name: "unsure", text: func(r *report.Row) string { return r.Unsure }},
	{name: "note", text: func(r *report.Row) string { return r.Note }},
	{name: "pos", text: func(r *report.Row) string { return r.Rec.Pos.String() }, json: func(r *report.Row) any { return r.Rec.Pos }},
}

// finite maps a value that is not a finite number to blank: no NaN or Inf reaches an
// output. The profile's bounds keep every quotient finite; this is the last line.
func finite(v float64) float64 {
	if math.IsInf(v, 0) {
		return blank
	}
	return v
}

// measured maps "timed without device activity" (zero) to blank.
func measured(s float64) float64 {
	if s == 0 {
		return blank
	}
	return s
}

// pastCell is v, a bound of the row's past, or blank when the row has none.
func pastCell(r *report.Row, v float64) float64 {
	if r.Past.Runs == 0 {
		return blank
	}
	return v
}

func profileName(p *profiles.Profile) string {
	if p == nil {
		return ""
	}
	return p.Name
}
