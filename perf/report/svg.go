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

	"ropgen/perf/profiles"
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
	{"at ceiling (>= 80%)", "#1a9850", "white"},
	{"below ceiling", "#2c7bb6", "white"},
	{"anomaly (> 105%)", "#f28e2b", "white"},
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

// chartRoof is one compute roof drawn on the chart.
type chartRoof struct {
	key    string
	peak   float64
	dashed bool // theoretical only: drawn for reference because a plotted row uses it
}

// Plottable reports whether a row has a point on a log-log roofline chart: it needs a
// profile, positive flops and bytes, and a measured time.
func Plottable(r *Row) bool {
	return r.Profile != nil && r.Rec.Flops > 0 && r.Rec.Bytes > 0 && r.Rec.Seconds > 0
}

// WriteSVG draws a log-log roofline chart of the rows priced against prof: x is arithmetic
// intensity (FLOP/byte), y is attained FLOP/s; the HBM slope, one flat roof per compute unit
// with a ceiling on the basis, the ridge points, and one labelled point per plottable row,
// coloured by verdict. Rows priced against another profile are an error: one chart has one
// set of roofs. It returns the number of points drawn.
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
			used[r.Rec.Roof] = true
		}
	}
	var roofs []chartRoof
	var unmeasured []string
	for _, key := range prof.Keys()[1:] {
		if v, ok := prof.Resolve(key, basis); ok {
			roofs = append(roofs, chartRoof{key: key, peak: v})
		} else if c, _ := prof.Roof(key); used[key] {
			roofs = append(roofs, chartRoof{key: key, peak: c.Theoretical, dashed: true})
		} else {
			unmeasured = append(unmeasured, key)
		}
	}
	slices.SortFunc(roofs, func(a, b chartRoof) int { return cmp.Compare(b.peak, a.peak) })

	// Axis ranges cover every point, ridge and roof, with room around them for labels, and
	// span at least two decades each.
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, r := range pts {
		xlo, xhi = min(xlo, r.Intensity), max(xhi, r.Intensity)
		ylo, yhi = min(ylo, r.FlopRate), max(yhi, r.FlopRate)
	}
	for _, rf := range roofs {
		ridge := rf.peak / hbm
		xlo, xhi = min(xlo, ridge), max(xhi, ridge)
		yhi = max(yhi, rf.peak)
	}
	if len(pts) == 0 && len(roofs) > 0 {
		ylo = roofs[len(roofs)-1].peak / 1e3 // three decades of slope below the lowest roof
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

	// Boxes already taken: every label is placed where it overlaps none of them.
	var taken []box

	// The memory slope y = hbm·x, from the bottom or left edge up to the highest ridge.
	top := ymax
	if len(roofs) > 0 {
		top = roofs[0].peak
	}
	x0 := max(xmin, ymin/hbm)
	x1 := min(xmax, top/hbm)
	s.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333" stroke-width="2.5"/>`+"\n", px(x0), py(hbm*x0), px(x1), py(hbm*x1))
	for t := 0.0; t <= 1; t += 0.01 { // the slope as a chain of small boxes, so labels avoid crossing it
		x := px(x0) + t*(px(x1)-px(x0))
		y := py(hbm*x0) + t*(py(hbm*x1)-py(hbm*x0))
		taken = append(taken, box{x - 3, y - 3, x + 3, y + 3})
	}
	{
		// Label along the slope, a third of the way up, rotated to its on-screen angle.
		lx := math.Pow(10, math.Log10(x0)+(math.Log10(x1)-math.Log10(x0))/3)
		ang := math.Atan2(py(hbm*x1)-py(hbm*x0), px(x1)-px(x0)) * 180 / math.Pi
		cx, cy := px(lx), py(hbm*lx)
		s.text(cx, cy-8, "middle", fmt.Sprintf(`font-weight="bold" transform="rotate(%.1f %.1f %.1f)"`, ang, cx, cy-8),
			"HBM "+siRate(hbm, "B/s"))
		taken = append(taken, box{cx - 60, cy - 45, cx + 50, cy})
	}

	// One flat roof per compute unit, from its ridge to the right edge, and the ridge point.
	for _, rf := range roofs {
		ridge := rf.peak / hbm
		rx, y := px(ridge), py(rf.peak)
		dash := ""
		if rf.dashed {
			dash = ` stroke-dasharray="7 5"`
		}
		s.printf(`<line x1="%.1f" y1="%.1f" x2="%d" y2="%.1f" stroke="#333" stroke-width="2.5"%s/>`+"\n", rx, y, plotR, y, dash)
		s.printf(`<circle class="ridge" cx="%.1f" cy="%.1f" r="4.5" fill="white" stroke="#333" stroke-width="2"/>`+"\n", rx, y)
		taken = append(taken, box{rx, y - 2, plotR, y + 2}, box{rx - 5, y - 5, rx + 5, y + 5})
	}
	// Points are drawn last, on top, but no label may cover one.
	for _, r := range pts {
		taken = append(taken, box{px(r.Intensity) - 7, py(r.FlopRate) - 7, px(r.Intensity) + 7, py(r.FlopRate) + 7})
	}

	// Labels after all lines, so no label sits on a line drawn later: first each ridge's,
	// beside its circle, then each roof's, which can slide along its line.
	for _, rf := range roofs {
		ridge := rf.peak / hbm
		rx, y := px(ridge), py(rf.peak)
		label := "ridge " + strconv.FormatFloat(ridge, 'g', 3, 64) + " FLOP/B"
		w := width(label)
		s.boxed(placeOr([]box{
			// Above left first: above the slope and left of the flat roofs is where no point
			// can honestly be.
			{rx - 6 - w, y - 4 - fontSize, rx - 6, y - 4}, {rx + 6, y + 4, rx + 6 + w, y + 4 + fontSize},
			{rx - 6 - w, y + 4, rx - 6, y + 4 + fontSize}, {rx + 6, y - 4 - fontSize, rx + 6 + w, y - 4},
			{rx + 6, y + 4 + fontSize, rx + 6 + w, y + 4 + 2*fontSize}, {rx - 6 - w, y - 4 - 2*fontSize, rx - 6, y - 4 - fontSize},
		}, &taken), `fill="#555"`, label)
	}

	for _, rf := range roofs {
		rx, y := px(rf.peak/hbm), py(rf.peak)
		label := rf.key + " " + siRate(rf.peak, "FLOP/s")
		if rf.dashed {
			label += " (theoretical)"
		}
		w := width(label) * boldWidth
		var cands []box
		for _, shift := range []float64{0, 0.25, 0.5, 0.75} {
			right := plotR - 6 - shift*max(0, plotR-6-rx-w)
			cands = append(cands, box{right - w, y - 2 - fontSize, right, y - 2}, box{right - w, y + 3, right, y + 3 + fontSize})
		}
		for _, lift := range []float64{1, 2} { // stacked higher, clear of a ridge circle under a long label
			cands = append(cands, box{plotR - 6 - w, y - 2 - (1+lift)*fontSize, plotR - 6, y - 2 - lift*fontSize})
		}
		s.boxed(placeOr(cands, &taken), `font-weight="bold"`, label)
	}
	// Legend: only the styles present, in the top left corner.
	present := map[int]bool{}
	for _, r := range pts {
		present[styleOf(r)] = true
	}
	ly := float64(plotT + 18)
	for i, st := range styles {
		if !present[i] {
			continue
		}
		s.printf(`<circle cx="%d" cy="%.1f" r="5" fill="%s" stroke="%s" stroke-width="1.5"/>`+"\n", plotL+16, ly-4, st.fill, st.stroke)
		s.text(plotL+26, ly, "start", "", st.label)
		taken = append(taken, box{plotL + 8, ly - 14, plotL + 26 + width(st.label), ly + 4})
		ly += 18
	}
	if slices.ContainsFunc(roofs, func(r chartRoof) bool { return r.dashed }) {
		const label = "roof never measured: theoretical, for reference"
		s.printf(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#333" stroke-width="2" stroke-dasharray="5 3"/>`+"\n", plotL+8, ly-4, plotL+22, ly-4)
		s.text(plotL+26, ly, "start", "", label)
		taken = append(taken, box{plotL + 8, ly - 14, plotL + 26 + width(label), ly + 4})
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
		b, ok := free(labelSpots(cx, cy, width(labels[i])), taken)
		if !ok {
			unlabelled++ // the tooltip still names it; an unreadable pile of labels helps nobody
			continue
		}
		taken = append(taken, b)
		if my := (b.y0 + b.y1) / 2; math.Abs(my-cy) > 8 && (b.x0 > cx || b.x1 < cx) {
			// Displaced to one side: a leader line ties it to its point.
			lx := b.x0
			if b.x1 < cx {
				lx = b.x1
			}
			s.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#aaa"/>`+"\n", cx, cy, lx, my)
		}
		s.boxed(b, "", labels[i])
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
	if len(unmeasured) > 0 {
		foot = append(foot, fmt.Sprintf("no %s ceiling, not drawn: %s", basis, strings.Join(unmeasured, ", ")))
	}
	for i, f := range foot {
		s.text(plotL, float64(plotB+62+16*i), "start", `fill="#555"`, f)
	}
	s.printf("</svg>\n")
	return len(pts), s.flush()
}

// box is an axis-aligned rectangle in SVG coordinates.
type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// labelSpots lists where a label of width w may go next to the point (cx, cy), best first:
// right, left, centred below or above, then right and left at growing vertical offsets.
func labelSpots(cx, cy, w float64) []box {
	bs := []box{
		{cx + 8, cy - fontSize/2, cx + 8 + w, cy + fontSize/2}, {cx - 8 - w, cy - fontSize/2, cx - 8, cy + fontSize/2},
		{cx - w/2, cy + 7, cx + w/2, cy + 7 + fontSize}, {cx - w/2, cy - 7 - fontSize, cx + w/2, cy - 7},
	}
	for _, dy := range []float64{14, -14, 28, -28, 42, -42, 56, -56, 70, -70} {
		y1 := cy + dy + fontSize/2
		bs = append(bs, box{cx + 8, y1 - fontSize, cx + 8 + w, y1}, box{cx - 8 - w, y1 - fontSize, cx - 8, y1})
	}
	return bs
}

// free returns the first candidate inside the plot area that overlaps no taken box.
func free(cands, taken []box) (box, bool) {
	for _, b := range cands {
		if b.x0 < plotL+2 || b.x1 > plotR-2 || b.y0 < plotT+2 || b.y1 > plotB-2 {
			continue
		}
		if !slices.ContainsFunc(taken, b.overlaps) {
			return b, true
		}
	}
	return box{}, false
}

// placeOr takes the first free candidate, or the first candidate when none is free (a roof
// or ridge always keeps its label), and marks it taken.
func placeOr(cands []box, taken *[]box) box {
	b, ok := free(cands, *taken)
	if !ok {
		b = cands[0]
	}
	*taken = append(*taken, b)
	return b
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
// several points.
func pointLabels(pts []*Row) []string {
	n := map[string]int{}
	for _, r := range pts {
		n[r.Rec.Op+"/"+r.Rec.Workload]++
	}
	labels := make([]string, len(pts))
	for i, r := range pts {
		labels[i] = r.Rec.Op + "/" + r.Rec.Workload
		if n[labels[i]] > 1 {
			labels[i] += " " + r.Rec.DType
		}
	}
	return labels
}

func tooltip(r *Row) string {
	eff := percent(r.Efficiency)
	if eff == "" {
		eff = "blank (" + r.Note + ")"
	}
	return fmt.Sprintf("%s/%s/%s on %s: %s, %s, intensity %.3g FLOP/B, efficiency %s %s",
		r.Rec.Op, r.Rec.Workload, r.Rec.DType, r.Rec.Roof, siRate(r.FlopRate, "FLOP/s"), siRate(r.ByteRate, "B/s"),
		r.Intensity, eff, r.Verdict)
}

// decade labels 10^e: plain for intensities ("0.01", "100"), SI-prefixed for rates ("10G").
func decade(e float64, prefixed bool) string {
	v := math.Pow(10, e)
	if !prefixed {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	s := si(v, "")
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

// boxed writes text left-aligned in a label box.
func (s *svg) boxed(b box, attrs, text string) {
	s.text(b.x0, b.y1-2, "start", attrs, text)
}

func (s *svg) flush() error {
	if s.err != nil {
		return s.err
	}
	return s.w.Flush()
}
