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

// writeJSONRows writes items as `"rows":[...]]}`: one JSON object per item and line, the
// columns' names as keys, blank cells null; it closes the document head began.
func writeJSONRows[T any](bw *bufio.Writer, head []byte, cols []column[T], items []T) {
	bw.Write(head[:len(head)-1])
	bw.WriteString(`,"rows":[`)
	var b []byte
	for i := range items {
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n{"...)
		for j, c := range cols {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, c.name)
			b = append(b, ':')
			switch {
			case c.json != nil:
				s, _ := json.Marshal(c.json(&items[i]))
				b = append(b, s...)
			case c.text != nil:
				s, _ := json.Marshal(c.text(&items[i]))
				b = append(b, s...)
			case c.count != nil:
				b = strconv.AppendInt(b, c.count(&items[i]), 10)
			default:
				if v := finite(c.num(&items[i])); report.Blank(v) {
					b = append(b, "null"...)
				} else {
					b = strconv.AppendFloat(b, v, 'g', -1, 64)
				}
			}
		}
		b = append(b, '}')
		bw.Write(b)
	}
	bw.WriteString("\n]}\n")
}

// WriteJSON writes one JSON document: the basis, each device with the profile that priced it
// (or the reason none did), and the rows, one object per row with the CSV's columns as keys;
// blank cells are null. Rows of several implementations add "impls" and "side_by_side":
// per case, each implementation's time, efficiency and verdict and its time over the first
// implementation's (SideBySide).
func WriteJSON(w io.Writer, p *report.Pricer, rows []report.Row) error {
	bw := bufio.NewWriter(w)
	type dev struct {
		Device  string `json:"device"`
		Profile string `json:"profile,omitempty"`
		Source  string `json:"source,omitempty"`
		Error   string `json:"error,omitempty"`
	}
	var devs []dev
	for _, m := range p.Devices() {
		d := dev{Device: m.Device, Profile: profileName(m.Profile)}
		if m.Profile != nil {
			d.Source = m.Profile.Source
		}
		if m.Err != nil {
			d.Error = m.Err.Error()
		}
		devs = append(devs, d)
	}
	impls, sides := sidesJSON(SideBySide(rows))
	head, err := json.Marshal(struct {
		Basis   profiles.Basis `json:"basis"`
		Devices []dev          `json:"devices"`
		Impls   []string       `json:"impls,omitempty"`
		Sides   []sideJSON     `json:"side_by_side,omitempty"`
	}{p.Basis(), devs, impls, sides})
	if err != nil {
		return err
	}
	writeJSONRows(bw, head, columns, rows)
	return bw.Flush()
}

// sideJSON is one case of Sides in JSON: its row names, then one entry per implementation.
type sideJSON struct {
	Device   string         `json:"device"`
	Op       string         `json:"op"`
	Workload string         `json:"workload"`
	DType    string         `json:"dtype"`
	Impls    []sideImplJSON `json:"impls"`
}

// sideImplJSON is one implementation's row of a case; the ratio fields are its time over the
// first implementation's, absent on the first and where either has no time. Null
// efficiency: blank.
type sideImplJSON struct {
	Impl       string     `json:"impl"`
	Timed      bool       `json:"timed"`
	Seconds    float64    `json:"seconds,omitempty"`
	Efficiency *float64   `json:"efficiency"`
	Verdict    string     `json:"verdict,omitempty"`
	Pos        *diag.Pos  `json:"pos,omitempty"`
	Ratio      *ratioJSON `json:"time_ratio,omitempty"`
}

type ratioJSON struct {
	Ratio float64 `json:"ratio"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Apart bool    `json:"apart"`
}

func sidesJSON(s *Sides) ([]string, []sideJSON) {
	if s == nil {
		return nil, nil
	}
	out := make([]sideJSON, 0, len(s.Sides))
	for j := range s.Sides {
		sd := &s.Sides[j]
		c := sd.Case()
		o := sideJSON{Device: c.Device, Op: c.Op, Workload: c.Workload, DType: c.DType}
		for i, r := range sd.Rows {
			e := sideImplJSON{Impl: s.Impls[i]}
			if r != nil {
				e.Timed, e.Seconds, e.Verdict, e.Pos = true, r.Rec.Seconds, string(r.Verdict), &r.Rec.Pos
				if v := finite(r.Efficiency); !report.Blank(v) {
					e.Efficiency = &v
				}
			}
			if q := sd.RatioOf(i); i > 0 && !report.Blank(q.Ratio) {
				e.Ratio = &ratioJSON{q.Ratio, q.Low, q.High, q.Apart}
			}
			o.Impls = append(o.Impls, e)
		}
		out = append(out, o)
	}
	return s.Impls, out
}
