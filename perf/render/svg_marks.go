package render

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/report"
)

// trafficColour draws the achieved intensities of measured traffic and their links.
const trafficColour = "#b35806"

// drawRank orders points for drawing: unpriced (hollow) first, so that a priced point is
// never covered by one.
func drawRank(r *report.Row) int {
	if styleOf(r) == unpricedStyle {
		return 0
	}
	return 1
}

// unpricedStyle is the index in styles of a point with no efficiency.
const unpricedStyle = 7

// shape is a point marker: the SVG path of it centred on (x, y). Every path starts with
// "M x y", the centre, so a reader of the SVG finds where the point is.
type shape struct {
	name string
	path func(x, y float64) string
}

func pathAt(rel string) func(x, y float64) string {
	return func(x, y float64) string { return fmt.Sprintf("M%.1f %.1f%s", x, y, rel) }
}

// shapes, in the order families claim them; the last one is shared by the families left over.
var shapes = []shape{
	{"circle", pathAt("m-5 0a5 5 0 1 0 10 0a5 5 0 1 0 -10 0z")},
	{"square", pathAt("m-4.5 -4.5h9v9h-9z")},
	{"triangle", pathAt("m0 -6.5l6 10h-12z")},
	{"diamond", pathAt("m0 -6.5l6 6.5l-6 6.5l-6 -6.5z")},
	{"inverted triangle", pathAt("m0 6.5l6 -10h-12z")},
	{"cross", pathAt("m-2 -6h4v4h4v4h-4v4h-4v-4h-4v-4h4z")},
}

// familyShapes gives each point the marker shape of its op's family, when there are enough
// points for shapes to help and more than one family among them: the families with the most
// points first, each its own shape, those left over sharing the last. It returns the shape
// index per point and the legend entries.
func familyShapes(pts []*report.Row, family func(op string) string) ([]int, []legendEntry) {
	of := make([]int, len(pts))
	if family == nil || len(pts) < familyMarkersFrom {
		return of, nil
	}
	names := make([]string, len(pts))
	count := map[string]int{}
	for i, r := range pts {
		names[i] = cmp.Or(family(r.Rec.Op), "not in the catalog")
		count[names[i]]++
	}
	if len(count) < 2 {
		return of, nil
	}
	fams := make([]string, 0, len(count))
	for f := range count {
		fams = append(fams, f)
	}
	slices.SortFunc(fams, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	index := map[string]int{}
	for i, f := range fams {
		index[f] = min(i, len(shapes)-1)
	}
	for i := range pts {
		of[i] = index[names[i]]
	}
	var es []legendEntry
	for i, f := range fams {
		label := "family " + f
		if i == len(shapes)-1 && len(fams) > len(shapes) {
			label = "families " + strings.Join(fams[i:], ", ")
		} else if i >= len(shapes) {
			break
		}
		path := shapes[index[f]].path
		es = append(es, legendEntry{func(x, y float64) string {
			return fmt.Sprintf(`<path d="%s" fill="#ccc" stroke="#555" stroke-width="1"/>`, path(x, y))
		}, label})
	}
	return of, es
}

// fanOut returns where to draw markers whose true positions are at: a marker closer than
// coverGap to another (covering most of it) is moved, with the others of its cluster, onto a ring around the
// cluster's centre, in the points' order clockwise from the top, the ring grown until no
// marker on it covers one placed before. Deterministic: the same points give the same chart.
func fanOut(at [][2]float64) [][2]float64 {
	n := len(at)
	out := slices.Clone(at)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	root := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	// Sorted by x, a point need only be compared with those less than markerGap to its right.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(at[a][0], at[b][0]) })
	for k, i := range order {
		for _, j := range order[k+1:] {
			if at[j][0]-at[i][0] >= coverGap {
				break
			}
			if math.Hypot(at[i][0]-at[j][0], at[i][1]-at[j][1]) < coverGap {
				a, b := root(i), root(j)
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	members := map[int][]int{}
	var roots []int
	for i := range n {
		r := root(i)
		if len(members[r]) == 0 {
			roots = append(roots, r)
		}
		members[r] = append(members[r], i)
	}
	placed := make([]bool, n)
	for i := range n {
		placed[i] = len(members[root(i)]) == 1
	}
	for _, r := range roots {
		ms := members[r]
		if len(ms) < 2 {
			continue
		}
		var cx, cy float64
		for _, i := range ms {
			cx, cy = cx+at[i][0]/float64(len(ms)), cy+at[i][1]/float64(len(ms))
		}
		k := float64(len(ms))
		radius := max(markerGap, markerGap/(2*math.Sin(math.Pi/k)))
		for try := 0; ; try++ {
			clear := true
			for j, i := range ms {
				a := -math.Pi/2 + 2*math.Pi*float64(j)/k + float64(try)*math.Pi/(2*k)
				x := min(max(cx+radius*math.Cos(a), plotL+6), plotR-6)
				y := min(max(cy+radius*math.Sin(a), plotT+6), plotB-6)
				out[i] = [2]float64{x, y}
				for o := range n {
					if placed[o] && math.Hypot(out[o][0]-x, out[o][1]-y) < coverGap {
						clear = false
					}
				}
			}
			if clear || try == 8 {
				break
			}
			radius += markerGap / 2
		}
		for _, i := range ms {
			placed[i] = true
		}
	}
	return out
}

func moved(a, b [2]float64) bool { return math.Hypot(a[0]-b[0], a[1]-b[1]) > 0.5 }

func countMoved(at, shown [][2]float64) int {
	n := 0
	for i := range at {
		if moved(at[i], shown[i]) {
			n++
		}
	}
	return n
}

// chartArrow is one row's move from the base run to this one.
type chartArrow struct {
	old, new       *report.Row
	x0, y0, x1, y1 float64 // on screen: the base point, the new marker
	colour, title  string
}

// chartArrows returns an arrow per row plotted in both runs of a comparison; how many rows
// with a point have no base point to start from (not plottable in the base run, or priced
// there on another profile); and how many rows are in the base run only. A row with no point
// in this run is named below the plot already.
func chartArrows(c *Comparison, prof *profiles.Profile) (arrows []chartArrow, off, gone int) {
	if c == nil {
		return nil, 0, 0
	}
	for i := range c.Deltas {
		d := &c.Deltas[i]
		switch {
		case d.OldRow == nil || d.NewRow != nil && !Plottable(d.NewRow):
			continue
		case d.NewRow == nil:
			gone++
			continue
		case !Plottable(d.OldRow) || d.OldRow.Profile != prof:
			off++
			continue
		}
		colour := "#888"
		switch d.Change {
		case Faster:
			colour = "#1a7f37"
		case Slower:
			colour = "#cf222e"
		}
		title := fmt.Sprintf("%s: %s → %s", d.Name(), report.Rate(d.OldRow.FlopRate, "FLOP/s"), report.Rate(d.NewRow.FlopRate, "FLOP/s"))
		if t := deltaText(d); t != "" {
			title += ", time " + t
		}
		arrows = append(arrows, chartArrow{old: d.OldRow, new: d.NewRow, colour: colour, title: title})
	}
	return arrows, off, gone
}

// achievedPoint is a row's achieved intensity: its flops over the bytes an audit measured.
type achievedPoint struct {
	r      *report.Row
	x      float64 // flops / measured bytes
	ratio  float64 // measured bytes / formula bytes
	cx, cy float64
}

func (a *achievedPoint) label() string { return strconv.FormatFloat(a.ratio, 'f', 1, 64) + "× bytes" }

func (a *achievedPoint) title() string {
	return fmt.Sprintf("%s/%s/%s measured traffic: %s, %.2f× the formula's %s; achieved intensity %.3g FLOP/B (formula %.3g)",
		a.r.Rec.Op, a.r.Rec.Workload, a.r.Rec.DType, report.SI(float64(a.r.Rec.Bytes)*a.ratio, "B"), a.ratio,
		report.SI(float64(a.r.Rec.Bytes), "B"), a.x, a.r.Intensity)
}

// minTrafficOff is how far measured traffic must be from the formula's bytes (relative) for
// the chart to draw the achieved intensity apart: closer, its marker would sit on the point's.
const minTrafficOff = 0.05

// chartTraffic matches measured traffic to the plotted rows by op/workload/dtype: an achieved
// point per match off the formula by minTrafficOff or more, the names of the rows whose
// traffic is within it, and of the measurements no plotted row has.
func chartTraffic(ts []Traffic, pts []*report.Row) (out []achievedPoint, minimal, unmatched []string) {
	byKey := map[report.RowKey]*report.Row{}
	for _, r := range pts {
		byKey[report.KeyOf(r.Rec)] = r
	}
	for _, t := range ts {
		r, ok := byKey[report.RowKey{Op: t.Op, Workload: t.Workload, DType: t.DType}]
		if !ok || t.Bytes <= 0 {
			unmatched = append(unmatched, t.Op+"/"+t.Workload+"/"+report.ShortDType(t.DType))
			continue
		}
		a := achievedPoint{r: r, x: float64(r.Rec.Flops) / float64(t.Bytes), ratio: float64(t.Bytes) / float64(r.Rec.Bytes)}
		if math.Abs(a.ratio-1) < minTrafficOff {
			minimal = append(minimal, t.Op+"/"+t.Workload+"/"+report.ShortDType(t.DType))
			continue
		}
		out = append(out, a)
	}
	return out, minimal, unmatched
}

// tick is one grid line: m × 10^e.
type tick struct {
	m, e     int
	v        float64
	labelled bool
}

// ticks returns the grid lines between 10^lo and 10^hi: every 1..9 × 10^e, labelled at the
// decades, and at 2× and 5× too when more is set.
func ticks(lo, hi float64, more bool) []tick {
	var ts []tick
	for e := int(math.Floor(lo)); float64(e) <= hi; e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, float64(e))
			if l := math.Log10(v); l < lo || l > hi {
				continue
			}
			ts = append(ts, tick{m, e, v, m == 1 || more && (m == 2 || m == 5)})
		}
	}
	return ts
}

func (t tick) class() string {
	if t.m == 1 {
		return "grid"
	}
	return "grid minor"
}

func (t tick) stroke() string {
	if t.m == 1 {
		return "#dcdcdc"
	}
	return "#f0f0f0"
}

// plain labels an intensity tick: "0.05", "2", "100"; "1e+06" far from 1.
func (t tick) plain() string {
	if t.e < -4 || t.e > 5 {
		return strconv.Itoa(t.m) + "e" + strconv.Itoa(t.e)
	}
	return strconv.FormatFloat(t.v, 'f', max(0, -t.e), 64)
}

// rate labels a rate tick with its prefixed unit: "200 GFLOP/s", "1 TFLOP/s".
func (t tick) rate(unit string) string {
	scale, prefix, ok := report.PrefixOf(t.v)
	switch {
	case !ok:
		return strconv.FormatFloat(t.v, 'g', 3, 64) + " " + unit
	case t.v/scale >= 999.5: // past the largest prefix: "5e18 FLOP/s"
		return strconv.Itoa(t.m) + "e" + strconv.Itoa(t.e) + " " + unit
	}
	x := math.Round(t.v/scale*1000) / 1000
	return strconv.FormatFloat(x, 'g', -1, 64) + " " + prefix + unit
}

// unplottedGroup is the rows not plotted for one reason.
type unplottedGroup struct {
	why   string
	names []string
}

// WhyNotPlotted says why a row has no point on the roofline chart, "" when it has one.
func WhyNotPlotted(r *report.Row) string {
	switch {
	case r.Profile == nil:
		return "no profile for the device: unpriced"
	case r.Rec.Bytes <= 0:
		return report.NoteZeroBytes
	case r.Rec.Flops <= 0:
		return "zero FLOPs: no arithmetic intensity (the HTML report's bandwidth view shows their byte rates)"
	case r.Rec.Seconds <= 0:
		return "no measured time"
	}
	return ""
}

// unplotted groups the rows not plotted by why, in the order the reasons are first met, each
// row named op/workload/dtype (dtype abbreviated).
func unplotted(rows []report.Row) []unplottedGroup {
	var gs []unplottedGroup
	for i := range rows {
		why := WhyNotPlotted(&rows[i])
		if why == "" {
			continue
		}
		j := slices.IndexFunc(gs, func(g unplottedGroup) bool { return g.why == why })
		if j < 0 {
			gs = append(gs, unplottedGroup{why: why})
			j = len(gs) - 1
		}
		r := rows[i].Rec
		gs[j].names = append(gs[j].names, r.Op+"/"+r.Workload+"/"+report.ShortDType(r.DType))
	}
	return gs
}

// footLine is one line of text below the plot.
type footLine struct{ class, attrs, text string }

// wrap breaks text at spaces into lines no wider than w by the width estimate.
func wrap(text string, w float64) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && width(line+" "+word) > w {
			lines = append(lines, line)
			line = "    " + word // continuation lines are indented
			continue
		}
		if line == "" {
			line = word
		} else {
			line += " " + word
		}
	}
	return append(lines, line)
}

// chartMeta is the run the chart was drawn from, for its footer: the profile and when it was
// calibrated, the records files, the commit when known, and the date.
func chartMeta(prof *profiles.Profile, basis profiles.Basis, m *Meta) []string {
	cal := "not calibrated (datasheet values)"
	if !prof.Measured.At.IsZero() {
		cal = "calibrated " + prof.Measured.At.UTC().Format("2006-01-02 15:04 UTC")
	}
	lines := []string{fmt.Sprintf("profile %s (%s, %s), %s ceilings; records %s", prof.Name, prof.Device, cal, basis, strings.Join(m.Files, ", "))}
	if len(m.BaseFiles) > 0 {
		lines[0] += "; base " + strings.Join(m.BaseFiles, ", ")
	}
	var run []string
	if m.Commit != "" {
		run = append(run, "commit "+m.Commit)
	}
	if !m.Date.IsZero() {
		run = append(run, "drawn "+m.Date.UTC().Format(time.DateTime)+" UTC")
	}
	if len(run) > 0 {
		lines = append(lines, strings.Join(run, "; "))
	}
	return lines
}

func pointsN(n int) string {
	if n == 1 {
		return "1 point"
	}
	return fmt.Sprintf("%d points", n)
}
