package render

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"

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
// blank cells are null.
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
	head, err := json.Marshal(struct {
		Basis   profiles.Basis `json:"basis"`
		Devices []dev          `json:"devices"`
	}{p.Basis(), devs})
	if err != nil {
		return err
	}
	writeJSONRows(bw, head, columns, rows)
	return bw.Flush()
}
