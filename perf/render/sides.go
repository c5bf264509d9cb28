package render

import (
	"bufio"
	"fmt"
	"slices"

	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
)

// Sides is the report's rows of several implementations (record.Record.Impl) set side by
// side: one Side per device × op × workload × dtype, with each implementation's row. Rows of
// two implementations are never one row (report.Group); this is where they are compared.
type Sides struct {
	// Impls are the implementations, ropgen's own first when it is among them (the base of
	// every ratio), then in the order met.
	Impls []string
	Sides []Side
}

// Side is one case timed on several implementations.
type Side struct {
	// Rows holds, index by index with Sides.Impls, each implementation's row of the case;
	// nil where that implementation did not time it.
	Rows []*report.Row
}

// Ratio is one implementation's time over the base implementation's (Sides.Impls[0]) on
// one case: the ratio of the median times, and its range from the samples' spreads (the
// fastest over the base's slowest to the slowest over the base's fastest). Apart is true
// when the range does not hold 1: every sample of one was faster than every sample of the
// other. All NaN when either row is missing or has no time.
type Ratio struct {
	Ratio, Low, High float64
	Apart            bool
}

// SideBySide sets rows of several implementations side by side; nil when rows hold one
// implementation only.
func SideBySide(rows []report.Row) *Sides {
	var impls []string
	for i := range rows {
		if name := rows[i].Rec.ImplName(); !slices.Contains(impls, name) {
			impls = append(impls, name)
		}
	}
	if len(impls) < 2 {
		return nil
	}
	if i := slices.Index(impls, record.DefaultImpl); i > 0 {
		impls = append([]string{record.DefaultImpl}, slices.Delete(impls, i, i+1)...)
	}
	type caseKey struct {
		device string
		report.RowKey
	}
	index := map[caseKey]int{}
	s := &Sides{Impls: impls}
	for i := range rows {
		r := &rows[i]
		k := caseKey{r.Rec.Device, report.KeyOf(r.Rec)}
		j, ok := index[k]
		if !ok {
			j = len(s.Sides)
			index[k] = j
			s.Sides = append(s.Sides, Side{Rows: make([]*report.Row, len(impls))})
		}
		// A second row of one implementation (its counts or roof changed between records)
		// stays in the main table; the first is the one compared.
		if at := slices.Index(impls, r.Rec.ImplName()); s.Sides[j].Rows[at] == nil {
			s.Sides[j].Rows[at] = r
		}
	}
	return s
}

// severalImpls reports whether rows hold more than one implementation.
func severalImpls(rows []report.Row) bool {
	for i := range rows {
		if rows[i].Rec.ImplName() != rows[0].Rec.ImplName() {
			return true
		}
	}
	return false
}

// Case is the side's op/workload/dtype.
func (sd *Side) Case() *record.Record {
	for _, r := range sd.Rows {
		if r != nil {
			return r.Rec
		}
	}
	return nil
}

// RatioOf is implementation i's time over the base's on this case.
func (sd *Side) RatioOf(i int) Ratio {
	base, r := sd.Rows[0], sd.Rows[i]
	if base == nil || r == nil || base.Rec.Seconds <= 0 || r.Rec.Seconds <= 0 {
		return Ratio{blank, blank, blank, false}
	}
	bLo, bHi := base.Rec.Spread()
	lo, hi := r.Rec.Spread()
	q := Ratio{Ratio: r.Rec.Seconds / base.Rec.Seconds, Low: lo / bHi, High: hi / bLo}
	q.Apart = q.Low > 1 || q.High < 1
	return q
}

// Tally counts, for implementation i against the base, the cases in both, the cases where
// each was faster on every sample, and the rest.
func (s *Sides) Tally(i int) (both, baseFaster, faster, overlap int) {
	for j := range s.Sides {
		q := s.Sides[j].RatioOf(i)
		switch {
		case report.Blank(q.Ratio):
			continue
		case q.Apart && q.Ratio > 1:
			baseFaster++
		case q.Apart:
			faster++
		default:
			overlap++
		}
		both++
	}
	return both, baseFaster, faster, overlap
}

// TallyLine is Tally as a sentence.
func (s *Sides) TallyLine(i int) string {
	both, baseFaster, faster, overlap := s.Tally(i)
	return fmt.Sprintf("%s against %s: %s in both; %s faster on %d, %s faster on %d (every sample apart), %d whose samples overlap",
		s.Impls[i], s.Impls[0], plural(both, "case"), s.Impls[0], baseFaster, s.Impls[i], faster, overlap)
}

// ratioText is a ratio with its range of samples, as "Nx (LOW-HIGH)".
func ratioText(q Ratio) string {
	if report.Blank(q.Ratio) {
		return ""
	}
	return fmt.Sprintf("%sx (%s-%s)", report.Times(q.Ratio), report.Times(q.Low), report.Times(q.High))
}

// writeSides writes the side-by-side table: per case each implementation's time, efficiency
// and verdict, and each one's time over the base's.
func writeSides(bw *bufio.Writer, s *Sides) {
	fmt.Fprintf(bw, "\nimplementations side by side (%d): time over %s's is the ratio of medians, with its range from the samples' spreads\n", len(s.Impls), s.Impls[0])
	head := []string{"op", "workload", "dtype"}
	right := []bool{false, false, false}
	for i, impl := range s.Impls {
		head = append(head, impl+" time", impl+" eff", impl+" verdict")
		right = append(right, true, true, false)
		if i > 0 {
			head = append(head, impl+"/"+s.Impls[0])
			right = append(right, true)
		}
	}
	cells := [][]string{head}
	for j := range s.Sides {
		sd := &s.Sides[j]
		c := sd.Case()
		line := []string{c.Op, c.Workload, report.ShortDType(c.DType)}
		for i, r := range sd.Rows {
			if r == nil {
				line = append(line, "-", "", "")
			} else {
				line = append(line, report.SI(measured(r.Rec.Seconds), "s"), report.Percent(r.Efficiency), string(r.Verdict))
			}
			if i > 0 {
				line = append(line, ratioText(sd.RatioOf(i)))
			}
		}
		cells = append(cells, line)
	}
	writeAligned(bw, cells, right)
	for i := 1; i < len(s.Impls); i++ {
		fmt.Fprintln(bw, s.TallyLine(i))
	}
}
