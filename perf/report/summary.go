package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ropgen/ropgen/perf/profiles"
)

// WriteSummary writes the short report a person reads first: for each profile that priced
// the rows, its ceilings with their spread (memory, the cache levels, the compute roofs),
// then per op the row with the best efficiency (its spread, bound and verdict), the verdict
// counts, the latency floor and the drift references. Latency-bound rows stand for their op
// only when it has no other priced row: their efficiency says nothing about the kernel, so
// such ops are named on one line rather than given a row each.
func WriteSummary(w io.Writer, p *Pricer, rows []Row) error {
	bw := bufio.NewWriter(w)
	seen := map[*profiles.Profile]bool{}
	for _, m := range p.Devices() {
		if m.Profile == nil {
			fmt.Fprintf(bw, "device %q: not priced: %v\n", m.Device, m.Err)
			continue
		}
		if seen[m.Profile] {
			continue
		}
		seen[m.Profile] = true
		writeCeilings(bw, m.Profile, p.Basis())
	}

	type best struct {
		row *Row
		n   int
	}
	var order []string
	bests := map[string]*best{}
	for i := range rows {
		r := &rows[i]
		b := bests[r.Rec.Op]
		if b == nil {
			b = &best{}
			bests[r.Rec.Op] = b
			order = append(order, r.Rec.Op)
		}
		b.n++
		if better(r, b.row) {
			b.row = r
		}
	}
	cells := [][]string{{"op", "rows", "best", "spread", "row", "bound", "verdict"}}
	var latency []string // ops with latency-bound rows only: one line for all of them
	for _, op := range order {
		b := bests[op]
		r := b.row
		if r.Verdict == LatencyBound {
			latency = append(latency, op)
			continue
		}
		cells = append(cells, []string{op, fmt.Sprint(b.n), percent(r.Efficiency), effSpread(r),
			r.Rec.Workload + "/" + r.Rec.DType, string(r.Bound), string(r.Verdict)})
	}
	fmt.Fprintln(bw, "per op, the row with the best efficiency:")
	writeAligned(bw, cells, []bool{false, true, true, true, false, false, false})
	if len(latency) > 0 {
		fmt.Fprintf(bw, "latency-bound rows only (SOL under the latency floor: no efficiency to judge): %s\n", strings.Join(latency, ", "))
	}
	bw.WriteString(Counts(rows).String() + "\n")
	writeReferences(bw, p, rows)
	return bw.Flush()
}

// better reports whether r is a better representative of its op than b: priced beats
// unpriced, not latency-bound beats latency-bound, then the higher efficiency.
func better(r, b *Row) bool {
	if b == nil {
		return true
	}
	rank := func(x *Row) int {
		switch {
		case Blank(x.Efficiency):
			return 0
		case x.Verdict == LatencyBound:
			return 1
		}
		return 2
	}
	if rank(r) != rank(b) {
		return rank(r) > rank(b)
	}
	return r.Efficiency > b.Efficiency
}

// writeCeilings writes a profile's ceilings on basis with their spread, one a line.
func writeCeilings(bw *bufio.Writer, prof *profiles.Profile, basis profiles.Basis) {
	fmt.Fprintf(bw, "profile %s (%s), %s ceilings", prof.Name, prof.Source, basis)
	if m := prof.Measured; !m.At.IsZero() {
		fmt.Fprintf(bw, "; measured %s, load average %.2f, %d cores", m.At.UTC().Format("2006-01-02 15:04 MST"), m.LoadAvg, m.Cores)
	}
	bw.WriteString("\n")
	var cells [][]string
	line := func(name string, c profiles.Ceiling, unit string) {
		v, ok := c.Value(basis)
		val := "none"
		if ok {
			val = Rate(v, unit)
		}
		spread := ""
		if s := c.Spread; s.Measured() {
			spread = fmt.Sprintf("spread %s .. %s (n=%d, %.1f%%)", Rate(s.Min, ""), Rate(s.Max, unit), s.N, 100*s.Rel())
		}
		theo := "theoretical " + Rate(c.Theoretical, unit)
		if c.Estimate {
			theo += " (estimate)"
		}
		cells = append(cells, []string{"  " + name, val, spread, theo})
	}
	line(MemoryName(prof)+" ("+profiles.HBMKey+")", prof.HBM, "B/s")
	for i := len(prof.Caches) - 1; i >= 0; i-- {
		c := prof.Caches[i]
		line(strings.ToUpper(c.Key)+" ("+SI(float64(c.Bytes), "B")+")", c.Ceiling, "B/s")
	}
	for _, k := range prof.Keys() {
		if k == profiles.HBMKey {
			continue
		}
		c, _ := prof.Roof(k)
		line(k, c, "FLOP/s")
	}
	writeAligned(bw, cells, []bool{false, true, false, false})
}
