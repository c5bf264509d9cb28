package report

import (
	"bufio"
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ropgen/ropgen/perf/profiles"
)

// Chart geometry in SVG user units (pixels at 100%).
const (
	chartW, chartH = 1000, 680
	plotL, plotR   = 90, 960 // plot area, inside the axes
	plotT, plotB   = 60, 600
	fontSize       = 12
)

// maxLabelled bounds the points that get labels: placement checks each label against every
// one placed before, and past a few hundred a chart's labels are unreadable anyway.
const maxLabelled = 300

// style is how a point is drawn; points are coloured by verdict so the chart reads at a glance.
type style struct{ label, fill, stroke string }

// styles, in legend order; styleOf picks one.
var styles = []style{
	{"at ceiling (slowest sample >= 80%)", "#1a9850", "white"},
	{"below ceiling", "#2c7bb6", "white"},
	{"anomaly (slowest sample > 105%)", "#f28e2b", "white"},
	{"formula error", "#d7191c", "white"},
	{"latency-bound", "#969696", "white"},
	{"not priced: a ceiling is unknown", "white", "#2c7bb6"},
}

func styleOf(r *Row) int {
	switch r.Verdict {
	case AtCeiling:
		return 0
	case Anomaly:
		return 2
	case FormulaError:
		return 3
	case LatencyBound:
		return 4
	}
	if Blank(r.Efficiency) {
		return 5
	}
	return 1
}

// chartRoof is one flat roof drawn on the chart. Compute units whose ceilings print alike
// share it: drawn apart, they would be one line drawn twice, with two ridge labels stacked on
// one circle.
type chartRoof struct {
	keys   []string // the units it stands for, in the profile's order
	peak   float64
	dashed bool // theoretical only: drawn for reference because a plotted row uses it
	used   bool // a plotted row is priced on one of keys; a roof no point uses is drawn faint
}

func (rf *chartRoof) label() string {
	s := strings.Join(rf.keys, " = ") + " " + Rate(rf.peak, "FLOP/s")
	if rf.dashed {
		s += " (theoretical)"
	}
	return s
}

// Plottable reports whether a row has a point on a log-log roofline chart: it needs a
// profile, positive flops and bytes, and a measured time.
func Plottable(r *Row) bool {
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
			return rf.dashed == !ok && Rate(rf.peak, "") == Rate(peak, "")
		})
		if i < 0 {
			roofs = append(roofs, chartRoof{peak: peak, dashed: !ok})
			i = len(roofs) - 1
		}
		roofs[i].keys = append(roofs[i].keys, key)
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

// WriteSVG draws a log-log roofline chart of the rows priced against prof: x is arithmetic
// intensity (FLOP/byte), y is attained FLOP/s; the HBM slope, one flat roof per compute unit
// with a ceiling on the basis (units with equal ceilings share one), the ridge points, and
// one labelled point per plottable row, coloured by verdict. Roofs no point uses are drawn
// faint. Rows priced against another profile are an error: one chart has one set of roofs.
// It returns the number of points drawn.
func WriteSVG(w io.Writer, prof *profiles.Profile, basis profiles.Basis, rows []Row) (int, error) {
	hbm, ok := prof.Resolve(profiles.HBMKey, basis)
	if !ok {
		return 0, fmt.Errorf("chart: %s", prof.Why(profiles.HBMKey, basis))
	}
	var pts []*Row
	used := map[string]bool{}
	for i := range rows {
		r := &rows[i]
		if r.Profile != nil && r.Profile != prof {
			return 0, fmt.Errorf("chart: rows are priced against profiles %s and %s; one chart draws one profile's roofs", prof.Name, r.Profile.Name)
		}
		if Plottable(r) {
			pts = append(pts, r)
			used[cmp.Or(r.PricedRoof, r.Rec.Roof)] = true
		}
	}
	roofs, unmeasured := chartRoofs(prof, basis, used)

	// Axis ranges cover every point, ridge and roof, with room around them for labels, and
	// span at least two decades each.
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, r := range pts {
		xlo, xhi = min(xlo, r.Intensity), max(xhi, r.Intensity)
		ylo, yhi = min(ylo, r.FlopRate), max(yhi, r.FlopRate)
	}
	highest, lowest := math.Inf(-1), math.Inf(1)
	for _, rf := range roofs {
		ridge := rf.peak / hbm
		xlo, xhi = min(xlo, ridge), max(xhi, ridge)
		yhi = max(yhi, rf.peak)
		highest, lowest = max(highest, rf.peak), min(lowest, rf.peak)
	}
	// The memory slopes: the main memory's, then each cache level's from the largest to the
	// smallest (the cache-aware roofline's L3, L2, L1); a cache slope's ridge with the
	// highest roof is kept in range.
	slopes := []memSlope{{name: MemoryName(prof), bw: hbm, main: true}}
	for i := len(prof.Caches) - 1; i >= 0; i-- {
		c := prof.Caches[i]
		if v, ok := c.Value(basis); ok && v > 0 {
			slopes = append(slopes, memSlope{name: strings.ToUpper(c.Key), bw: v})
			if len(roofs) > 0 {
				xlo = min(xlo, highest/v)
			}
		}
	}
	if len(pts) == 0 && len(roofs) > 0 {
		ylo = lowest / 1e3 // three decades of slope below the lowest roof
	}
	if math.IsInf(xlo, 1) { // no roofs and no points: around 1 FLOP/byte
		xlo, xhi, ylo, yhi = 1, 1, hbm, hbm
	}
	lx0, lx1 := widen(math.Log10(xlo)-0.4, math.Log10(xhi)+0.6)
	ly0, ly1 := widen(math.Log10(ylo)-0.4, math.Log10(yhi)+0.35)
	px := func(x float64) float64 { return plotL + (math.Log10(x)-lx0)/(lx1-lx0)*(plotR-plotL) }
	py := func(y float64) float64 { return plotB - (math.Log10(y)-ly0)/(ly1-ly0)*(plotB-plotT) }
	xmin, xmax, ymin, ymax := math.Pow(10, lx0), math.Pow(10, lx1), math.Pow(10, ly0), math.Pow(10, ly1)

	s := &svg{w: bufio.NewWriter(w)}
	s.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="%d">`+"\n", chartW, chartH, chartW, chartH, fontSize)
	s.printf(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	s.text(chartW/2, 28, "middle", `font-size="17" font-weight="bold"`,
		fmt.Sprintf("Roofline: %s (%s), %s ceilings", prof.Name, prof.Device, basis))

	// Decade grid and tick labels.
	for e := math.Ceil(lx0); e <= lx1; e++ {
		x := px(math.Pow(10, e))
		s.printf(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e4e4e4"/>`+"\n", x, plotT, x, plotB)
		s.text(x, plotB+18, "middle", "", decade(e, false))
	}
	for e := math.Ceil(ly0); e <= ly1; e++ {
		y := py(math.Pow(10, e))
		s.printf(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e4e4e4"/>`+"\n", plotL, y, plotR, y)
		s.text(plotL-8, y+4, "end", "", decade(e, true))
	}
	s.printf(`<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>`+"\n", plotL, plotT, plotR-plotL, plotB-plotT)
	s.text((plotL+plotR)/2, plotB+42, "middle", "", "arithmetic intensity (FLOP/byte)")
	s.text(22, (plotT+plotB)/2, "middle", fmt.Sprintf(`transform="rotate(-90 22 %d)"`, (plotT+plotB)/2), "attained performance (FLOP/s)")

	l := &layout{}

	// The memory slopes y = bw·x, from the bottom or left edge up to the highest roof: the
	// cache levels' thin and purple under the main memory's.
	top := ymax
	if len(roofs) > 0 {
		top = highest
	}
	var slope []box
	for _, ms := range slices.Backward(slopes) {
		ms.x0, ms.x1 = max(xmin, ymin/ms.bw), min(xmax, top/ms.bw)
		stroke, sw, class := "#333", 2.5, "slope"
		if !ms.main {
			stroke, sw, class = cacheColour, 1.5, "slope cache"
		}
		s.printf(`<line class="%s" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%g"/>`+"\n", class, px(ms.x0), py(ms.bw*ms.x0), px(ms.x1), py(ms.bw*ms.x1), stroke, sw)
		ms.trace = trace(px(ms.x0), py(ms.bw*ms.x0), px(ms.x1), py(ms.bw*ms.x1), 0, 3)
		slope = append(slope, ms.trace...)
		slopes[slices.IndexFunc(slopes, func(o memSlope) bool { return o.name == ms.name })] = ms
	}

	// One flat roof per ceiling, from its ridge to the right edge, and the ridge point; the
	// faint ones first, so that a roof points use is drawn over them.
	for _, rf := range slices.Backward(roofs) {
		rx, y := px(rf.peak/hbm), py(rf.peak)
		stroke, sw, r := "#333", 2.5, 4.5
		if !rf.used {
			stroke, sw, r = "#b0b0b0", 1.5, 3.5
		}
		dash := ""
		if rf.dashed {
			dash = ` stroke-dasharray="7 5"`
		}
		s.printf(`<line class="%s" x1="%.1f" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="%g"%s/>`+"\n", rf.class(), rx, y, plotR, y, stroke, sw, dash)
		s.printf(`<circle class="ridge" cx="%.1f" cy="%.1f" r="%g" fill="white" stroke="%s" stroke-width="2"/>`+"\n", rx, y, r, stroke)
		l.marks = append(l.marks, box{rx, y - 2, plotR, y + 2}, box{rx - 5, y - 5, rx + 5, y + 5})
	}
	// Points are drawn last, on top, but no label may cover one.
	for _, r := range pts {
		l.marks = append(l.marks, box{px(r.Intensity) - 7, py(r.FlopRate) - 7, px(r.Intensity) + 7, py(r.FlopRate) + 7})
	}

	legend(s, l, pts, roofs, slope, len(slopes) > 1)

	// Each slope's label runs along it, rotated to its on-screen angle, a third of the way up
	// unless that spot is taken (the main memory's first). They are placed before the slopes
	// join the marks: each sits beside its slope by construction.
	for _, ms := range slopes {
		label := ms.name + " " + Rate(ms.bw, "B/s")
		x0, x1 := ms.x0, ms.x1
		ang := math.Atan2(py(ms.bw*x1)-py(ms.bw*x0), px(x1)-px(x0)) * 180 / math.Pi
		fracs := []float64{1.0 / 3, 1.0 / 4, 1.0 / 2, 1.0 / 6, 2.0 / 3}
		attrs := `font-weight="bold"`
		if !ms.main {
			fracs = []float64{3.0 / 4, 2.0 / 3, 5.0 / 6, 1.0 / 2, 1.0 / 3, 1.0 / 6}
			attrs = `fill="` + cacheColour + `"`
		}
		// Another slope's line may run close by (a cache level barely faster than DRAM): a
		// label must not sit on it. Above the line first, then below it.
		var others []box
		for _, o := range slopes {
			if o.name != ms.name {
				others = append(others, o.trace...)
			}
		}
		type spot struct{ f, dy float64 }
		var spots []spot
		for _, dy := range []float64{-8, 8 + fontSize} {
			for _, f := range fracs {
				spots = append(spots, spot{f, dy})
			}
		}
		for i, sp := range spots {
			lx := math.Pow(10, math.Log10(x0)+(math.Log10(x1)-math.Log10(x0))*sp.f)
			cx, cy := px(lx), py(ms.bw*lx)+sp.dy
			bs := textBoxes(cx, cy, "middle", fontSize, ms.main, ang, label)
			if slices.ContainsFunc(bs, func(b box) bool {
				return !inPlot(b) || l.hits(b, true) || slices.ContainsFunc(others, b.overlaps)
			}) {
				if i < len(spots)-1 || !ms.main {
					continue // the main memory's last spot is taken whatever covers it
				}
			}
			s.text(cx, cy, "middle", fmt.Sprintf(`%s transform="rotate(%.1f %.1f %.1f)"`, attrs, ang, cx, cy), label)
			l.texts = append(l.texts, bs...)
			break
		}
	}
	l.marks = append(l.marks, slope...)

	// Labels after all lines, so no label sits on a line drawn later: first each roof's, which
	// can slide along its line, then each ridge's, beside its circle.
	for _, rf := range roofs {
		rx, y := px(rf.peak/hbm), py(rf.peak)
		label, attrs := rf.label(), `font-weight="bold"`
		w := width(label) * boldWidth
		if !rf.used {
			attrs, w = `fill="#888"`, width(label)
		}
		// Beside its line: at the right end, left of the ridge at the roof's height (above
		// the slope, where no point can honestly be), or slid left along the line.
		beside := []box{{plotR - 6 - w, y - 2 - fontSize, plotR - 6, y - 2}, {plotR - 6 - w, y + 3, plotR - 6, y + 3 + fontSize}}
		for _, gap := range []float64{10, 20, 35} { // clear of the slope however steep
			beside = append(beside, box{rx - gap - w, y - fontSize/2, rx - gap, y + fontSize/2})
		}
		for _, shift := range []float64{0.25, 0.5, 0.75, 1} {
			right := plotR - 6 - shift*max(0, plotR-6-rx-w)
			beside = append(beside, box{right - w, y - 2 - fontSize, right, y - 2}, box{right - w, y + 3, right, y + 3 + fontSize})
		}
		// Failing that, stacked above and below at the right edge, row by row: one of them is
		// free of text, however many roofs crowd together.
		var stacked []box
		for k := 1.0; y-2-k*fontSize > plotT || y+3+k*fontSize < plotB; k++ {
			stacked = append(stacked, box{plotR - 6 - w, y - 2 - (k+1)*fontSize, plotR - 6, y - 2 - k*fontSize},
				box{plotR - 6 - w, y + 3 + k*fontSize, plotR - 6, y + 3 + (k+1)*fontSize})
		}
		b, _, ok := l.place(rx, y, beside, false, false)
		if !ok {
			b, _, ok = l.place(rx, y, stacked, false, false)
		}
		if !ok {
			b = beside[0]
		}
		l.draw(s, rx, y, b, false, "end", "roof", attrs, label)
	}

	var noRoom []string // ridges with no room for a label: the footnote gives them
	for _, rf := range roofs {
		ridge := rf.peak / hbm
		rx, y := px(ridge), py(rf.peak)
		label := "ridge " + intensity(ridge)
		w := width(label)
		// Above left first: above the slope and left of the flat roofs is where no point can
		// honestly be; then stacked higher there, then around the circle.
		cands := []box{
			{rx - 6 - w, y - 6 - fontSize, rx - 6, y - 6}, {rx + 6, y + 4, rx + 6 + w, y + 4 + fontSize},
			{rx + 6, y - 4 - fontSize, rx + 6 + w, y - 4}, {rx - 6 - w, y + 4, rx - 6, y + 4 + fontSize},
		}
		for k := 1.0; k <= 4; k++ {
			cands = append(cands, box{rx - 6 - w, y - 6 - (k+1)*fontSize, rx - 6, y - 6 - k*fontSize})
		}
		cands = append(cands, labelSpots(rx, y, w)...)
		b, lead, ok := l.place(rx, y, cands, false, true)
		if !ok {
			noRoom = append(noRoom, strings.Join(rf.keys, " = ")+" "+intensity(ridge))
			continue
		}
		attrs := `fill="#555"`
		if !rf.used {
			attrs = `fill="#999"`
		}
		l.draw(s, rx, y, b, lead, side(rx, b), "ridge", attrs, label)
	}

	// Points, then their labels, placed greedily where they overlap nothing drawn so far.
	labels := pointLabels(pts)
	unlabelled := 0
	for i, r := range pts {
		cx, cy := px(r.Intensity), py(r.FlopRate)
		st := styles[styleOf(r)]
		s.printf(`<circle class="point" cx="%.1f" cy="%.1f" r="5" fill="%s" stroke="%s" stroke-width="1.5"><title>%s</title></circle>`+"\n",
			cx, cy, st.fill, st.stroke, escape(tooltip(r)))
		if len(pts) > maxLabelled {
			continue
		}
		b, lead, ok := l.place(cx, cy, labelSpots(cx, cy, width(labels[i])), true, true)
		if !ok {
			unlabelled++ // the tooltip still names it; an unreadable pile of labels helps nobody
			continue
		}
		l.draw(s, cx, cy, b, lead, side(cx, b), "point-label", "", labels[i])
	}

	var foot []string
	if n := len(rows) - len(pts); n > 0 {
		foot = append(foot, fmt.Sprintf("%d of %d rows not plotted (zero flops or bytes, no time, or no profile)", n, len(rows)))
	}
	if len(pts) > maxLabelled {
		foot = append(foot, fmt.Sprintf("%d points, too many to label (at most %d): hover a point for its name", len(pts), maxLabelled))
	}
	if unlabelled > 0 {
		foot = append(foot, fmt.Sprintf("%d points left unlabelled for room: hover a point for its name", unlabelled))
	}
	if len(noRoom) > 0 {
		foot = append(foot, "no room to label the ridge of "+strings.Join(noRoom, "; "))
	}
	if len(unmeasured) > 0 {
		foot = append(foot, fmt.Sprintf("no %s ceiling, not drawn: %s", basis, strings.Join(unmeasured, ", ")))
	}
	for i, f := range foot {
		s.text(plotL, float64(plotB+62+16*i), "start", `fill="#555"`, f)
	}
	s.printf("</svg>\n")
	return len(pts), s.flush()
}

// memSlope is one memory roof drawn as a slope: the main memory's, or a cache level's.
type memSlope struct {
	name   string  // "DRAM", "HBM", "L3", ...
	bw     float64 // bytes/s on the basis
	main   bool    // the main memory's: the spec's roof, drawn bold
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

// legend draws a key to the point colours and roof line styles present, in the top left
// corner, or in the bottom right one when a line or a point would cross it there.
func legend(s *svg, l *layout, pts []*Row, roofs []chartRoof, slope []box, caches bool) {
	type entry struct {
		mark  string // SVG of the sample, with %.1f for its centre's x and y
		label string
	}
	var es []entry
	present := map[int]bool{}
	for _, r := range pts {
		present[styleOf(r)] = true
	}
	for i, st := range styles {
		if present[i] {
			es = append(es, entry{fmt.Sprintf(`<circle cx="%%.1f" cy="%%.1f" r="5" fill="%s" stroke="%s" stroke-width="1.5"/>`, st.fill, st.stroke), st.label})
		}
	}
	if slices.ContainsFunc(roofs, func(r chartRoof) bool { return r.dashed }) {
		es = append(es, entry{`<path d="M%.1f %.1fm-7 0h14" stroke="#333" stroke-width="2" stroke-dasharray="5 3"/>`, "roof never measured: theoretical, for reference"})
	}
	if slices.ContainsFunc(roofs, func(r chartRoof) bool { return !r.used }) {
		es = append(es, entry{`<path d="M%.1f %.1fm-7 0h14" stroke="#b0b0b0" stroke-width="1.5"/>`, "roof no plotted point uses"})
	}
	if caches {
		es = append(es, entry{`<path d="M%.1f %.1fm-7 5l14 -10" stroke="` + cacheColour + `" stroke-width="1.5"/>`, "cache level (cache-aware roofline; DRAM prices the SOL)"})
	}
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
		s.printf(e.mark+"\n", ox+8, y-4)
		s.text(ox+18, y, "start", "", e.label)
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
func pointLabels(pts []*Row) []string {
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

func tooltip(r *Row) string {
	eff := percent(r.Efficiency)
	if eff == "" {
		eff = "blank (" + r.Note + ")"
	}
	return fmt.Sprintf("%s/%s/%s on %s: %s, %s, intensity %.3g FLOP/B, efficiency %s %s",
		r.Rec.Op, r.Rec.Workload, r.Rec.DType, r.Rec.Roof, Rate(r.FlopRate, "FLOP/s"), Rate(r.ByteRate, "B/s"),
		r.Intensity, eff, r.Verdict)
}

// decade labels 10^e: plain for intensities ("0.01", "100"), SI-prefixed for rates ("10G").
func decade(e float64, prefixed bool) string {
	v := math.Pow(10, e)
	if !prefixed {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	s := SI(v, "")
	return strings.Replace(strings.Replace(s, ".00", "", 1), ".0", "", 1)
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
