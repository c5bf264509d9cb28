package render

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/report"
)

// Chart geometry in SVG user units (pixels at 100%).
const (
	chartW, chartH = 1040, 680
	plotL, plotR   = 125, 1000 // plot area, inside the axes
	plotT, plotB   = 60, 600
	fontSize       = 12
)

// maxLabelled bounds the points that get labels: placement checks each label against every
// one placed before, and past a few hundred a chart's labels are unreadable anyway.
const maxLabelled = 300

// maxFanned bounds the points that fanOut moves apart: it compares each point with its
// neighbours and each ring of moved points with every point, and past a few thousand points
// a chart is a cloud in which no single point is read anyway. Beyond it points that cover
// one another are drawn where they are, and a note says so.
const maxFanned = 2000

// maxFootNames bounds the rows the footer names for one reason a row is not plotted; the
// table and the HTML report list them all.
const maxFootNames = 40

// style is how a point is drawn; points are coloured by verdict so the chart reads at a glance.
type style struct{ label, fill, stroke string }

// styles, in legend order; styleOf picks one.
var styles = []style{
	{"at ceiling (median >= 80%)", "#1a9850", "white"},
	{"below ceiling", "#2c7bb6", "white"},
	{"at the line (its 99% interval holds 80%)", "#7fbf7b", "white"},
	{"inconclusive (the machine it ran on was not the calibrated one)", "white", "#1a9850"},
	{"anomaly (slowest sample > 105%)", "#f28e2b", "white"},
	{"formula error", "#d7191c", "white"},
	{"latency-bound", "#969696", "white"},
	{"not priced: a ceiling is unknown", "white", "#2c7bb6"},
}

func styleOf(r *report.Row) int {
	switch r.Verdict {
	case report.AtCeiling:
		return 0
	case report.AtLine:
		return 2
	case report.Inconclusive:
		return 3
	case report.Anomaly:
		return 4
	case report.FormulaError:
		return 5
	case report.LatencyBound:
		return 6
	}
	if report.Blank(r.Efficiency) {
		return unpricedStyle
	}
	return 1
}

// chartRoof is one flat roof drawn on the chart. Compute units whose ceilings print alike
// share it: drawn apart, they would be one line drawn twice, with two ridge labels stacked on
// one circle.
type chartRoof struct {
	keys   []string // the units it stands for, in the profile's order
	names  []string // the keys in the host's words (RoofName), each once
	peak   float64
	dashed bool // theoretical only: drawn for reference because a plotted row uses it
	used   bool // a plotted row is priced on one of keys; a roof no point uses is drawn faint
}

func (rf *chartRoof) label() string {
	s := strings.Join(rf.names, " = ") + " " + report.Rate(rf.peak, "FLOP/s")
	if rf.dashed {
		s += " (theoretical)"
	}
	return s
}

// Plottable reports whether a row has a point on a log-log roofline chart: it needs a
// profile, positive flops and bytes, and a measured time.
func Plottable(r *report.Row) bool {
	return r.Profile != nil && r.Rec.Flops > 0 && r.Rec.Bytes > 0 && r.Rec.Seconds > 0
}

// chartRoofs returns the roofs to draw, the ones plotted points use first, then by ceiling,
// highest first: the order their labels claim room in. A unit with no ceiling on basis is
// drawn at its theoretical value when a plotted row uses it, else listed in unmeasured.
func chartRoofs(prof *profiles.Profile, basis profiles.Basis, used map[string]bool) (roofs []chartRoof, unmeasured []string) {
	for _, key := range prof.Keys()[1:] {
		peak, ok := prof.Resolve(key, basis)
		if !ok && !used[key] {
			unmeasured = append(unmeasured, key)
			continue
		}
		if !ok {
			c, _ := prof.Roof(key)
			peak = c.Theoretical
		}
		// Equal within the label's rounding is equal on the chart too: at three significant
		// digits the lines are less than a pixel apart.
		i := slices.IndexFunc(roofs, func(rf chartRoof) bool {
			return rf.dashed == !ok && report.Rate(rf.peak, "") == report.Rate(peak, "")
		})
		if i < 0 {
			roofs = append(roofs, chartRoof{peak: peak, dashed: !ok})
			i = len(roofs) - 1
		}
		roofs[i].keys = append(roofs[i].keys, key)
		if name := report.RoofName(prof, key); !slices.Contains(roofs[i].names, name) {
			roofs[i].names = append(roofs[i].names, name)
			slices.Sort(roofs[i].names)
		}
		roofs[i].used = roofs[i].used || used[key]
	}
	slices.SortStableFunc(roofs, func(a, b chartRoof) int {
		if a.used != b.used {
			if a.used {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.peak, a.peak)
	})
	return roofs, unmeasured
}

// Chart is what WriteSVG draws: the rows of a run priced against one profile, and what else
// is known about them.
type Chart struct {
	Profile *profiles.Profile
	Basis   profiles.Basis
	Rows    []report.Row
	// Meta, when set, is the run the footer names: records files, commit and date.
	Meta *Meta
	// Comparison, when set, compares Rows with a base run: each row plotted in both runs gets
	// an arrow from its base point to its new one.
	Comparison *Comparison
	// Traffic, when set, holds the bytes a bytes audit measured per row: each plotted row it
	// names also gets its achieved intensity (flops / measured bytes), linked to its point.
	Traffic []Traffic
	// Family, when set, names an op's family ("gemm", "norm"; "" when unknown): with many
	// points, each family gets a marker shape.
	Family func(op string) string
}

// Traffic is the traffic a bytes audit measured for one row: one call's bytes, the audit's
// total side (ropgen audit).
type Traffic struct {
	Op, Workload, DType string
	Bytes               int64
}

// coverGap is the distance between two markers' centres below which one covers most of the
// other (markers are 10-13 units across); markerGap is how far apart fanOut sets them.
const coverGap, markerGap = 7, 12

// familyMarkersFrom is the fewest points that get a marker shape per op family: below it the
// labels name every point anyway.
const familyMarkersFrom = 10

// WriteSVG draws a log-log roofline chart of the rows priced against c.Profile: x is
// arithmetic intensity (FLOP/byte), y is attained FLOP/s; the HBM slope, one flat roof per
// compute unit with a ceiling on the basis (units with equal ceilings share one), the ridge
// points, and one labelled point per plottable row, coloured by verdict, priced points over
// unpriced ones, points that would cover one another fanned out around their true position.
// Roofs no point uses are drawn faint. Below the plot it names every row not plotted and why,
// and the run (c.Meta). Rows priced against another profile are an error: one chart has one
// set of roofs. It returns the number of points drawn.
//
// It draws in layers, each step below one layer: what is drawn later is drawn over what
// came before, and each label is placed clear of everything drawn or marked before it.
func WriteSVG(w io.Writer, c *Chart) (int, error) {
	p, err := newPlot(c)
	if err != nil {
		return 0, err
	}
	p.scale()
	p.placeMarkers()
	var body bytes.Buffer
	p.s, p.l = &svg{w: bufio.NewWriter(&body)}, &layout{}
	p.s.text(chartW/2, 28, "middle", `font-size="17" font-weight="bold"`,
		fmt.Sprintf("Roofline: %s (%s), %s ceilings", p.prof.Name, p.prof.Device, p.basis))
	p.drawAxes()
	p.drawSlopes()
	p.drawRoofs()
	p.markPoints()
	legend(p.s, p.l, legendEntries(p.pts, p.roofs, len(p.slopes) > 1, p.shapeLegend, len(p.arrows) > 0, len(p.achieved) > 0), p.slope)
	// The slopes' labels are placed before the slopes join the marks: each sits beside its
	// slope by construction. Labels come after all lines, so no label sits on a line drawn
	// later.
	for i := range p.slopes {
		p.labelSlope(&p.slopes[i])
	}
	p.l.marks = append(p.l.marks, p.slope...)
	for i := range p.roofs {
		p.labelRoof(&p.roofs[i])
	}
	p.labelRidges()
	p.drawArrows()
	p.drawAchieved()
	p.drawPoints()
	p.labelPoints()
	foot := p.footer()
	for i, f := range foot {
		p.s.text(plotL, float64(plotB+64+16*i), "start", fmt.Sprintf(`class="%s" %s`, f.class, f.attrs), f.text)
	}
	if err := p.s.flush(); err != nil {
		return 0, err
	}
	height := max(chartH, plotB+64+16*len(foot))
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="%d">`+"\n", chartW, height, chartW, height, fontSize)
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	bw.Write(body.Bytes())
	fmt.Fprintf(bw, "</svg>\n")
	return len(p.pts), bw.Flush()
}

// memSlope is one memory roof drawn as a slope: the main memory's, or a cache level's.
type memSlope struct {
	name   string  // "DRAM", "HBM", "L3", ...
	bw     float64 // bytes/s on the basis
	main   bool    // the main memory's: the model's roof, drawn bold
	x0, x1 float64 // the intensities it is drawn between
	trace  []box   // the boxes its line covers on screen
}

// cacheColour draws the cache levels' slopes and labels.
const cacheColour = "#7b4fa6"

func (rf *chartRoof) class() string {
	if rf.used {
		return "roof"
	}
	return "roof unused"
}

// intensity formats a ridge point's arithmetic intensity.
func intensity(x float64) string {
	return strconv.FormatFloat(x, 'g', 3, 64) + " FLOP/B"
}

// legendEntry is one line of the legend: a sample mark centred on (x, y), and what it means.
type legendEntry struct {
	mark  func(x, y float64) string
	label string
}

// legendEntries lists the key to what the chart draws: the point colours present, the roof
// line styles, the cache slopes, the marker shapes of the op families, the arrows and the
// achieved intensities.
func legendEntries(pts []*report.Row, roofs []chartRoof, caches bool, families []legendEntry, arrows, achieved bool) []legendEntry {
	var es []legendEntry
	line := func(attrs string) func(x, y float64) string {
		return func(x, y float64) string { return fmt.Sprintf(`<path d="M%.1f %.1fm-7 0h14" %s/>`, x, y, attrs) }
	}
	present := map[int]bool{}
	for _, r := range pts {
		present[styleOf(r)] = true
	}
	for i, st := range styles {
		if present[i] {
			es = append(es, legendEntry{func(x, y float64) string {
				return fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="5" fill="%s" stroke="%s" stroke-width="1.5"/>`, x, y, st.fill, st.stroke)
			}, st.label})
		}
	}
	es = append(es, families...)
	if arrows {
		es = append(es, legendEntry{func(x, y float64) string {
			return fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="3" fill="white" stroke="#888"/><path d="M%.1f %.1fh10l-4 -3v6l4 -3" stroke="#cf222e" fill="#cf222e"/>`, x-6, y, x-3, y)
		}, "base run → this run (red: slower, green: faster, grey: unchanged)"})
	}
	if achieved {
		es = append(es, legendEntry{func(x, y float64) string {
			return fmt.Sprintf(`<path d="%s" fill="white" stroke="%s" stroke-width="1.5"/>`, shapes[1].path(x, y), trafficColour)
		}, "measured traffic: flops / audited bytes (formula point on the dashed line)"})
	}
	if slices.ContainsFunc(roofs, func(r chartRoof) bool { return r.dashed }) {
		es = append(es, legendEntry{line(`stroke="#333" stroke-width="2" stroke-dasharray="5 3"`), "roof never measured: theoretical, for reference"})
	}
	if slices.ContainsFunc(roofs, func(r chartRoof) bool { return !r.used }) {
		es = append(es, legendEntry{line(`stroke="#b0b0b0" stroke-width="1.5"`), "roof no plotted point uses"})
	}
	if caches {
		es = append(es, legendEntry{func(x, y float64) string {
			return fmt.Sprintf(`<path d="M%.1f %.1fm-7 5l14 -10" stroke="%s" stroke-width="1.5"/>`, x, y, cacheColour)
		}, "cache level (cache-aware roofline; DRAM prices the SOL)"})
	}
	return es
}

// legend draws the entries in the top left corner, or in the bottom right one when a line or
// a point would cross it there.
func legend(s *svg, l *layout, es []legendEntry, slope []box) {
	if len(es) == 0 {
		return
	}
	wide := 0.0
	for _, e := range es {
		wide = max(wide, width(e.label))
	}
	w, h := 18+wide, float64(18*len(es))
	ox, oy := float64(plotL+8), float64(plotT+4)
	if all := append(slices.Clone(l.marks), slope...); slices.ContainsFunc(all, box{ox, oy, ox + w, oy + h}.overlaps) {
		if bx, by := plotR-8-w, plotB-4-h; !slices.ContainsFunc(all, box{bx, by, bx + w, by + h}.overlaps) {
			ox, oy = bx, by
		}
	}
	for i, e := range es {
		y := oy + 14 + float64(18*i)
		s.printf("%s\n", e.mark(ox+8, y-4))
		s.text(ox+18, y, "start", `class="legend"`, e.label)
		l.texts = append(l.texts, textBoxes(ox+18, y, "start", fontSize, false, 0, e.label)...)
		l.marks = append(l.marks, box{ox, y - 10, ox + 16, y + 2})
	}
}

// box is an axis-aligned rectangle in SVG coordinates.
type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// cover returns the area of a that b covers.
func (a box) cover(b box) float64 {
	return max(0, min(a.x1, b.x1)-max(a.x0, b.x0)) * max(0, min(a.y1, b.y1)-max(a.y0, b.y0))
}

func inPlot(b box) bool {
	return b.x0 >= plotL+2 && b.x1 <= plotR-2 && b.y0 >= plotT+2 && b.y1 <= plotB-2
}

// layout is what the chart covers so far, so each label goes where it covers nothing.
type layout struct {
	texts []box // text: no label may overlap it
	marks []box // lines, circles and points: a label avoids them when it can
}

// hits reports whether b overlaps text, or with marks set, anything drawn.
func (l *layout) hits(b box, marks bool) bool {
	return slices.ContainsFunc(l.texts, b.overlaps) || marks && slices.ContainsFunc(l.marks, b.overlaps)
}

// place returns the first candidate inside the plot that overlaps nothing and whose leader
// line to (cx, cy), if leaders are drawn and it needs one, crosses nothing. Unless strict, it
// falls back to the candidate that overlaps no text and covers the least of the lines and
// points. lead reports whether the label needs a leader.
func (l *layout) place(cx, cy float64, cands []box, strict, leaders bool) (_ box, lead, ok bool) {
	best, least := -1, math.Inf(1)
	for i, b := range cands {
		if !inPlot(b) || l.hits(b, false) {
			continue
		}
		var chain []box
		if leaders {
			x, y, need := leaderEnd(cx, cy, b)
			if need {
				chain = trace(cx, cy, x, y, 10, 1.5)
			}
			if slices.ContainsFunc(chain, func(c box) bool { return l.hits(c, false) }) {
				continue // a leader never crosses text
			}
		}
		covered := 0.0
		for _, m := range l.marks {
			covered += b.cover(m)
			for _, c := range chain {
				covered += c.cover(m)
			}
		}
		if covered == 0 {
			return b, chain != nil, true
		}
		if !strict && covered < least {
			best, least = i, covered
		}
	}
	if best < 0 {
		return box{}, false, false
	}
	_, _, need := leaderEnd(cx, cy, cands[best])
	return cands[best], leaders && need, true
}

// draw writes a label in box b, aligned on anchor, with a leader from (cx, cy) when lead is
// set, and marks both as taken.
func (l *layout) draw(s *svg, cx, cy float64, b box, lead bool, anchor, class, attrs, text string) {
	if lead {
		x, y, _ := leaderEnd(cx, cy, b)
		d := math.Hypot(x-cx, y-cy)
		s.printf(`<line class="leader" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#aaa"/>`+"\n", cx+(x-cx)*6/d, cy+(y-cy)*6/d, x, y)
		l.marks = append(l.marks, trace(cx, cy, x, y, 10, 1.5)...)
	}
	l.texts = append(l.texts, b)
	x := map[string]float64{"start": b.x0, "middle": (b.x0 + b.x1) / 2, "end": b.x1}[anchor]
	s.text(x, b.y1-fontSize/6, anchor, fmt.Sprintf(`class="%s" %s`, class, attrs), text)
}

// side returns the text anchor that puts a label in box b flush against the mark at x, so
// that a width estimated wide leaves the gap at the far end.
func side(x float64, b box) string {
	switch {
	case b.x1 <= x:
		return "end"
	case b.x0 >= x:
		return "start"
	}
	return "middle"
}

// leaderEnd returns where a leader from the mark at (cx, cy) meets its label box b, and
// whether b sits far enough from the mark to need one.
func leaderEnd(cx, cy float64, b box) (x, y float64, need bool) {
	if b.x0 > cx || b.x1 < cx { // beside: to the middle of the near side
		x, y = b.x0, (b.y0+b.y1)/2
		if b.x1 < cx {
			x = b.x1
		}
	} else { // above or below: to the near edge
		x, y = cx, b.y0
		if b.y1 < cy {
			y = b.y1
		}
	}
	dx, dy := max(b.x0-cx, 0, cx-b.x1), max(b.y0-cy, 0, cy-b.y1)
	return x, y, math.Hypot(dx, dy) > 10
}

// trace returns boxes of half-size r every 3 units along the segment from (x0, y0) to
// (x1, y1), less its first skip units: a line as boxes, so that labels can avoid crossing it.
func trace(x0, y0, x1, y1, skip, r float64) []box {
	d := math.Hypot(x1-x0, y1-y0)
	var bs []box
	for t := skip; t <= d; t += 3 {
		x, y := x0+(x1-x0)*t/d, y0+(y1-y0)*t/d
		bs = append(bs, box{x - r, y - r, x + r, y + r})
	}
	return bs
}

// labelSpots lists where a label of width w may go next to the point (cx, cy), best first:
// right, left, centred below or above, the four diagonals, then right and left at growing
// vertical offsets.
func labelSpots(cx, cy, w float64) []box {
	bs := []box{
		{cx + 8, cy - fontSize/2, cx + 8 + w, cy + fontSize/2}, {cx - 8 - w, cy - fontSize/2, cx - 8, cy + fontSize/2},
		{cx - w/2, cy + 7, cx + w/2, cy + 7 + fontSize}, {cx - w/2, cy - 7 - fontSize, cx + w/2, cy - 7},
		{cx + 7, cy - 7 - fontSize, cx + 7 + w, cy - 7}, {cx + 7, cy + 7, cx + 7 + w, cy + 7 + fontSize},
		{cx - 7 - w, cy - 7 - fontSize, cx - 7, cy - 7}, {cx - 7 - w, cy + 7, cx - 7, cy + 7 + fontSize},
	}
	for _, dy := range []float64{14, -14, 28, -28, 42, -42, 56, -56, 70, -70} {
		y1 := cy + dy + fontSize/2
		bs = append(bs, box{cx + 8, y1 - fontSize, cx + 8 + w, y1}, box{cx - 8 - w, y1 - fontSize, cx - 8, y1})
	}
	return bs
}

// textBoxes returns what text drawn at (x, y), the baseline point its anchor names, at size
// fs covers, by the width estimate: one box, or for text rotated by deg degrees about (x, y),
// squares along it, since the upright box around slanted text covers much that it does not.
func textBoxes(x, y float64, anchor string, fs float64, bold bool, deg float64, text string) []box {
	w := width(text) * fs / fontSize
	if bold {
		w *= boldWidth
	}
	start := x
	switch anchor {
	case "middle":
		start -= w / 2
	case "end":
		start -= w
	}
	if deg == 0 {
		return []box{{start, y - fs*5/6, start + w, y + fs/6}}
	}
	sin, cos := math.Sincos(deg * math.Pi / 180)
	var bs []box
	for d := fs / 2; d < w; d += fs / 2 {
		// The point on the text's midline, d along it, rotated about (x, y).
		ux, uy := start+min(d, w-fs/2)-x, -fs/3
		mx, my := x+ux*cos-uy*sin, y+ux*sin+uy*cos
		bs = append(bs, box{mx - fs/2, my - fs/2, mx + fs/2, my + fs/2})
	}
	return bs
}

// widen returns the range [lo, hi] grown about its middle to at least two decades.
func widen(lo, hi float64) (float64, float64) {
	if d := 2 - (hi - lo); d > 0 {
		return lo - d/2, hi + d/2
	}
	return lo, hi
}

// width estimates the rendered width of text at the chart's font size.
// from the glyph classes of common sans-serif faces (Helvetica, Arial, DejaVu Sans), in ems,
// erring wide: a box too large costs a label a better spot, one too small lets text overlap.
func width(text string) float64 {
	em := 0.0
	for _, c := range text {
		switch {
		case strings.ContainsRune("il.,:;'|!", c):
			em += 0.32
		case strings.ContainsRune("fjtr/ ()[]-", c):
			em += 0.42
		case strings.ContainsRune("mwMW", c):
			em += 0.95
		case c >= 'A' && c <= 'Z':
			em += 0.74
		case c >= '0' && c <= '9':
			em += 0.65
		default:
			em += 0.62
		}
	}
	return em * fontSize
}

// boldWidth scales width for bold text.
const boldWidth = 1.1

// pointLabels names each point op/workload, adding the dtype where one op/workload pair has
// several points, then where the record was read where that is still not enough (the same
// benchmark in two record files).
func pointLabels(pts []*report.Row) []string {
	labels := make([]string, len(pts))
	for i, r := range pts {
		labels[i] = r.Rec.Op + "/" + r.Rec.Workload
	}
	tellApart(labels, func(i int) string { return " " + pts[i].Rec.DType })
	tellApart(labels, func(i int) string {
		if pos := pts[i].Rec.Pos.String(); pos != "" {
			return " (" + pos + ")"
		}
		return ""
	})
	return labels
}

// tellApart appends suffix(i) to each label that more than one point has.
func tellApart(labels []string, suffix func(i int) string) {
	n := map[string]int{}
	for _, l := range labels {
		n[l]++
	}
	for i, l := range labels {
		if n[l] > 1 {
			labels[i] += suffix(i)
		}
	}
}

func tooltip(r *report.Row) string {
	eff := report.Percent(r.Efficiency)
	if eff == "" {
		eff = "blank (" + r.Note + ")"
	}
	return fmt.Sprintf("%s/%s/%s on %s: %s, %s, intensity %.3g FLOP/B, efficiency %s %s",
		r.Rec.Op, r.Rec.Workload, r.Rec.DType, report.RoofName(r.Profile, r.Rec.Roof), report.Rate(r.FlopRate, "FLOP/s"), report.Rate(r.ByteRate, "B/s"),
		r.Intensity, eff, r.Verdict)
}

func escape(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// svg writes SVG text, keeping the first write error.
type svg struct {
	w   *bufio.Writer
	err error
}

func (s *svg) printf(format string, args ...any) {
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, format, args...)
	}
}

func (s *svg) text(x, y float64, anchor, attrs, text string) {
	s.printf(`<text x="%.1f" y="%.1f" text-anchor="%s" %s>%s</text>`+"\n", x, y, anchor, attrs, escape(text))
}

func (s *svg) flush() error {
	if s.err != nil {
		return s.err
	}
	return s.w.Flush()
}

// cacheSizesNote says on which working sets each drawn cache slope was measured (the sweep's
// largest size at the level's rate), and where the OS reports a level much larger than
// that, its size too: a working set between the two is not served at the slope's rate.
func cacheSizesNote(prof *profiles.Profile, slopes []memSlope) string {
	var sizes, larger []string
	for _, c := range prof.Caches {
		name := strings.ToUpper(c.Key)
		if c.Bytes <= 0 || !slices.ContainsFunc(slopes, func(m memSlope) bool { return m.name == name }) {
			continue
		}
		sizes = append(sizes, name+" "+report.SI(float64(c.Bytes), "B"))
		if c.SysBytes > 2*c.Bytes {
			larger = append(larger, name+" "+report.SI(float64(c.SysBytes), "B"))
		}
	}
	if len(sizes) == 0 {
		return ""
	}
	n := "cache slopes measured on working sets up to " + strings.Join(sizes, ", ")
	if len(larger) > 0 {
		n += "; the OS reports " + strings.Join(larger, ", ") + ": the sweep's rate fell below the slope past the measured size (see the profile's sys_bytes)"
	}
	return n
}
