package render

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/report"
)

// plot is one chart being drawn: what it shows, its scales, and the document and layout it
// is drawn into.
type plot struct {
	c     *Chart
	prof  *profiles.Profile
	basis profiles.Basis
	hbm   float64 // the memory ceiling on the basis

	pts                 []*report.Row // the plottable rows, in drawing order
	roofs               []chartRoof
	unmeasured          []string // compute roofs with no ceiling on the basis
	arrows              []chartArrow
	arrowsOff, onlyBase int
	achieved            []achievedPoint
	minimal, unaudited  []string
	slopes              []memSlope // the main memory's first, then the caches from L3 down
	highest, lowest     float64    // the highest and lowest compute roof

	lx0, lx1, ly0, ly1 float64 // the axes' ranges, log10
	xmin, xmax         float64 // the x range, in FLOP/byte
	ymin, ymax         float64 // the y range, in FLOP/s

	at, shown   [][2]float64 // each point's true position, and where its marker is drawn
	index       map[*report.Row]int
	shapeOf     []int
	shapeLegend []legendEntry

	s          *svg
	l          *layout
	slope      []box    // the boxes the slopes' lines cover
	noRoom     []string // ridges with no room for a label: the footnote gives them
	unlabelled int      // points left unlabelled for room
}

// newPlot selects what c shows: the plottable rows (priced points drawn over unpriced ones),
// the roofs they use, the arrows from a base run and the achieved intensities.
func newPlot(c *Chart) (*plot, error) {
	p := &plot{c: c, prof: c.Profile, basis: c.Basis}
	var ok bool
	if p.hbm, ok = p.prof.Resolve(profiles.HBMKey, p.basis); !ok {
		return nil, fmt.Errorf("chart: %s", p.prof.Why(profiles.HBMKey, p.basis))
	}
	used := map[string]bool{}
	for i := range c.Rows {
		r := &c.Rows[i]
		if r.Profile != nil && r.Profile != p.prof {
			return nil, fmt.Errorf("chart: rows are priced against profiles %s and %s; one chart draws one profile's roofs", p.prof.Name, r.Profile.Name)
		}
		if Plottable(r) {
			p.pts = append(p.pts, r)
			used[cmp.Or(r.PricedRoof, r.Rec.Roof)] = true
		}
	}
	// Priced points are drawn over unpriced ones: a hollow point never hides a verdict.
	slices.SortStableFunc(p.pts, func(a, b *report.Row) int { return cmp.Compare(drawRank(a), drawRank(b)) })
	p.roofs, p.unmeasured = chartRoofs(p.prof, p.basis, used)
	p.arrows, p.arrowsOff, p.onlyBase = chartArrows(c.Comparison, p.prof)
	p.achieved, p.minimal, p.unaudited = chartTraffic(c.Traffic, p.pts)
	return p, nil
}

// scale sets the axes' ranges: they cover every point, base point, achieved intensity, ridge
// and roof, with room around them for labels, and span at least two decades each. It also
// lists the memory slopes, whose ridges with the highest roof stay in range.
func (p *plot) scale() {
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, r := range p.pts {
		xlo, xhi = min(xlo, r.Intensity), max(xhi, r.Intensity)
		ylo, yhi = min(ylo, r.FlopRate), max(yhi, r.FlopRate)
	}
	for _, a := range p.arrows {
		xlo, xhi = min(xlo, a.old.Intensity), max(xhi, a.old.Intensity)
		ylo, yhi = min(ylo, a.old.FlopRate), max(yhi, a.old.FlopRate)
	}
	for _, a := range p.achieved {
		xlo, xhi = min(xlo, a.x), max(xhi, a.x)
	}
	p.highest, p.lowest = math.Inf(-1), math.Inf(1)
	for _, rf := range p.roofs {
		ridge := rf.peak / p.hbm
		xlo, xhi = min(xlo, ridge), max(xhi, ridge)
		yhi = max(yhi, rf.peak)
		p.highest, p.lowest = max(p.highest, rf.peak), min(p.lowest, rf.peak)
	}
	// The memory slopes: the main memory's, then each cache level's from the largest to the
	// smallest (the cache-aware roofline's L3, L2, L1); a cache slope's ridge with the
	// highest roof is kept in range.
	p.slopes = []memSlope{{name: report.MemoryName(p.prof), bw: p.hbm, main: true}}
	for i := len(p.prof.Caches) - 1; i >= 0; i-- {
		c := p.prof.Caches[i]
		if v, ok := c.Value(p.basis); ok && v > 0 {
			p.slopes = append(p.slopes, memSlope{name: strings.ToUpper(c.Key), bw: v})
			if len(p.roofs) > 0 {
				xlo = min(xlo, p.highest/v)
			}
		}
	}
	if len(p.pts) == 0 && len(p.roofs) > 0 {
		ylo = p.lowest / 1e3 // three decades of slope below the lowest roof
	}
	if math.IsInf(xlo, 1) { // no roofs and no points: around 1 FLOP/byte
		xlo, xhi, ylo, yhi = 1, 1, p.hbm, p.hbm
	}
	p.lx0, p.lx1 = widen(math.Log10(xlo)-0.4, math.Log10(xhi)+0.6)
	p.ly0, p.ly1 = widen(math.Log10(ylo)-0.4, math.Log10(yhi)+0.35)
	p.xmin, p.xmax, p.ymin, p.ymax = math.Pow(10, p.lx0), math.Pow(10, p.lx1), math.Pow(10, p.ly0), math.Pow(10, p.ly1)
}

// px and py map an intensity and a rate to the screen.
func (p *plot) px(x float64) float64 {
	return plotL + (math.Log10(x)-p.lx0)/(p.lx1-p.lx0)*(plotR-plotL)
}

func (p *plot) py(y float64) float64 {
	return plotB - (math.Log10(y)-p.ly0)/(p.ly1-p.ly0)*(plotB-plotT)
}

// placeMarkers sets where each point is, and where its marker is drawn: apart from the
// others; and each point's marker shape.
func (p *plot) placeMarkers() {
	p.at = make([][2]float64, len(p.pts))
	for i, r := range p.pts {
		p.at[i] = [2]float64{p.px(r.Intensity), p.py(r.FlopRate)}
	}
	p.shown = p.at
	if len(p.pts) <= maxFanned {
		p.shown = fanOut(p.at)
	}
	p.index = map[*report.Row]int{}
	for i, r := range p.pts {
		p.index[r] = i
	}
	p.shapeOf, p.shapeLegend = familyShapes(p.pts, p.c.Family)
}

// drawAxes draws the grid, a line at each 1, 2, ..., 9 × 10^e, bold at the decades; the
// decades labelled, and 2× and 5× too where a decade is wide enough for them; the frame and
// the axis titles.
func (p *plot) drawAxes() {
	s := p.s
	xDecade, yDecade := (plotR-plotL)/(p.lx1-p.lx0), (plotB-plotT)/(p.ly1-p.ly0)
	for _, t := range ticks(p.lx0, p.lx1, xDecade >= 110) {
		x := p.px(t.v)
		s.printf(`<line class="%s" x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`+"\n", t.class(), x, plotT, x, plotB, t.stroke())
		if t.labelled {
			s.text(x, plotB+18, "middle", `class="tick"`, t.plain())
		}
	}
	for _, t := range ticks(p.ly0, p.ly1, yDecade >= 70) {
		y := p.py(t.v)
		s.printf(`<line class="%s" x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>`+"\n", t.class(), plotL, y, plotR, y, t.stroke())
		if t.labelled {
			s.text(plotL-8, y+4, "end", `class="tick"`, t.rate("FLOP/s"))
		}
	}
	s.printf(`<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>`+"\n", plotL, plotT, plotR-plotL, plotB-plotT)
	s.text((plotL+plotR)/2, plotB+42, "middle", "", "arithmetic intensity (FLOP/byte)")
	s.text(18, (plotT+plotB)/2, "middle", fmt.Sprintf(`transform="rotate(-90 18 %d)"`, (plotT+plotB)/2), "attained performance (FLOP/s)")
}

// drawSlopes draws the memory slopes y = bw·x, from the bottom or left edge up to the highest
// roof: the cache levels' thin and purple under the main memory's.
func (p *plot) drawSlopes() {
	top := p.ymax
	if len(p.roofs) > 0 {
		top = p.highest
	}
	for i := len(p.slopes) - 1; i >= 0; i-- {
		ms := &p.slopes[i]
		ms.x0, ms.x1 = max(p.xmin, p.ymin/ms.bw), min(p.xmax, top/ms.bw)
		stroke, sw, class := "#333", 2.5, "slope"
		if !ms.main {
			stroke, sw, class = cacheColour, 1.5, "slope cache"
		}
		x0, y0, x1, y1 := p.px(ms.x0), p.py(ms.bw*ms.x0), p.px(ms.x1), p.py(ms.bw*ms.x1)
		p.s.printf(`<line class="%s" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%g"/>`+"\n", class, x0, y0, x1, y1, stroke, sw)
		ms.trace = trace(x0, y0, x1, y1, 0, 3)
		p.slope = append(p.slope, ms.trace...)
	}
}

// drawRoofs draws one flat roof per ceiling, from its ridge to the right edge, and the ridge
// point; the faint ones first, so that a roof points use is drawn over them.
func (p *plot) drawRoofs() {
	for _, rf := range slices.Backward(p.roofs) {
		rx, y := p.px(rf.peak/p.hbm), p.py(rf.peak)
		stroke, sw, r := "#333", 2.5, 4.5
		if !rf.used {
			stroke, sw, r = "#b0b0b0", 1.5, 3.5
		}
		dash := ""
		if rf.dashed {
			dash = ` stroke-dasharray="7 5"`
		}
		p.s.printf(`<line class="%s" x1="%.1f" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="%g"%s/>`+"\n", rf.class(), rx, y, plotR, y, stroke, sw, dash)
		p.s.printf(`<circle class="ridge" cx="%.1f" cy="%.1f" r="%g" fill="white" stroke="%s" stroke-width="2"/>`+"\n", rx, y, r, stroke)
		p.l.marks = append(p.l.marks, box{rx, y - 2, plotR, y + 2}, box{rx - 5, y - 5, rx + 5, y + 5})
	}
}

// markPoints marks where the points, the arrows, the base points, the achieved intensities
// and the leaders of fanned-out points will be drawn: they are drawn last, on top, but no
// label may cover them. It sets the arrows' and achieved intensities' screen positions.
func (p *plot) markPoints() {
	l := p.l
	for i := range p.pts {
		at, shown := p.at[i], p.shown[i]
		l.marks = append(l.marks, box{shown[0] - 7, shown[1] - 7, shown[0] + 7, shown[1] + 7})
		if moved(at, shown) {
			l.marks = append(l.marks, trace(at[0], at[1], shown[0], shown[1], 0, 1.5)...)
		}
	}
	for i := range p.arrows {
		a := &p.arrows[i]
		a.x0, a.y0 = p.px(a.old.Intensity), p.py(a.old.FlopRate)
		a.x1, a.y1 = p.shown[p.index[a.new]][0], p.shown[p.index[a.new]][1]
		l.marks = append(l.marks, box{a.x0 - 5, a.y0 - 5, a.x0 + 5, a.y0 + 5})
		l.marks = append(l.marks, trace(a.x0, a.y0, a.x1, a.y1, 0, 2)...)
	}
	for i := range p.achieved {
		a := &p.achieved[i]
		a.cx, a.cy = p.px(a.x), p.shown[p.index[a.r]][1]
		l.marks = append(l.marks, box{a.cx - 6, a.cy - 6, a.cx + 6, a.cy + 6})
		l.marks = append(l.marks, trace(a.cx, a.cy, p.shown[p.index[a.r]][0], a.cy, 0, 1.5)...)
	}
}

// labelSlope writes a slope's label along it, rotated to its on-screen angle, a third of the
// way up unless that spot is taken (the main memory's first), clear of the other slopes'
// lines.
func (p *plot) labelSlope(ms *memSlope) {
	label := ms.name + " " + report.Rate(ms.bw, "B/s")
	x0, x1 := ms.x0, ms.x1
	ang := math.Atan2(p.py(ms.bw*x1)-p.py(ms.bw*x0), p.px(x1)-p.px(x0)) * 180 / math.Pi
	attrs := `font-weight="bold"`
	if !ms.main {
		attrs = `fill="` + cacheColour + `"`
	}
	// Another slope's line may run close by (a cache level barely faster than DRAM): a
	// label must not sit on it.
	var others []box
	for _, o := range p.slopes {
		if o.name != ms.name {
			others = append(others, o.trace...)
		}
	}
	spots := slopeSpots(ms.main)
	for i, sp := range spots {
		lx := math.Pow(10, math.Log10(x0)+(math.Log10(x1)-math.Log10(x0))*sp.f)
		cx, cy := p.px(lx), p.py(ms.bw*lx)+sp.dy
		bs := textBoxes(cx, cy, "middle", fontSize, ms.main, ang, label)
		if slices.ContainsFunc(bs, func(b box) bool {
			return !inPlot(b) || p.l.hits(b, true) || slices.ContainsFunc(others, b.overlaps)
		}) {
			if i < len(spots)-1 || !ms.main {
				continue // the main memory's last spot is taken whatever covers it
			}
		}
		p.s.text(cx, cy, "middle", fmt.Sprintf(`%s transform="rotate(%.1f %.1f %.1f)"`, attrs, ang, cx, cy), label)
		p.l.texts = append(p.l.texts, bs...)
		return
	}
}

// slopeSpot is where a slope's label may go: a fraction f of the way up the slope (in log
// terms), dy above (negative) or below it.
type slopeSpot struct{ f, dy float64 }

// slopeSpots are the spots a slope's label tries, in order: above the line first, then below
// it; the main memory's also a little further off its line, for when points crowd along it.
func slopeSpots(main bool) []slopeSpot {
	fracs := []float64{1.0 / 3, 1.0 / 4, 1.0 / 2, 1.0 / 6, 2.0 / 3, 1.0 / 5, 2.0 / 5, 3.0 / 5, 1.0 / 8, 3.0 / 4, 1.0 / 10}
	dys := []float64{-8, 8 + fontSize}
	if main {
		dys = append(dys, -22, 22+fontSize)
	} else {
		fracs = []float64{3.0 / 4, 2.0 / 3, 5.0 / 6, 1.0 / 2, 1.0 / 3, 1.0 / 6}
	}
	var spots []slopeSpot
	for _, dy := range dys {
		for _, f := range fracs {
			spots = append(spots, slopeSpot{f, dy})
		}
	}
	return spots
}

// labelRoof writes a roof's label beside its line, where it can slide along it: at the right
// end, left of the ridge at the roof's height (above the slope, where no point can honestly
// be), or slid left along the line; failing that, stacked above and below at the right edge,
// row by row: one of them is free of text, however many roofs crowd together.
func (p *plot) labelRoof(rf *chartRoof) {
	rx, y := p.px(rf.peak/p.hbm), p.py(rf.peak)
	label, attrs := rf.label(), `font-weight="bold"`
	w := width(label) * boldWidth
	if !rf.used {
		attrs, w = `fill="#888"`, width(label)
	}
	beside := []box{{plotR - 6 - w, y - 2 - fontSize, plotR - 6, y - 2}, {plotR - 6 - w, y + 3, plotR - 6, y + 3 + fontSize}}
	for _, gap := range []float64{10, 20, 35} { // clear of the slope however steep
		beside = append(beside, box{rx - gap - w, y - fontSize/2, rx - gap, y + fontSize/2})
	}
	for _, shift := range []float64{0.25, 0.5, 0.75, 1} {
		right := plotR - 6 - shift*max(0, plotR-6-rx-w)
		beside = append(beside, box{right - w, y - 2 - fontSize, right, y - 2}, box{right - w, y + 3, right, y + 3 + fontSize})
	}
	var stacked []box
	for k := 1.0; y-2-k*fontSize > plotT || y+3+k*fontSize < plotB; k++ {
		stacked = append(stacked, box{plotR - 6 - w, y - 2 - (k+1)*fontSize, plotR - 6, y - 2 - k*fontSize},
			box{plotR - 6 - w, y + 3 + k*fontSize, plotR - 6, y + 3 + (k+1)*fontSize})
	}
	b, _, ok := p.l.place(rx, y, beside, false, false)
	if !ok {
		b, _, ok = p.l.place(rx, y, stacked, false, false)
	}
	if !ok {
		b = beside[0]
	}
	p.l.draw(p.s, rx, y, b, false, "end", "roof", attrs, label)
}

// labelRidges writes each ridge's label beside its circle: above left first (above the slope
// and left of the flat roofs is where no point can honestly be), then stacked higher there,
// then around the circle. A ridge with no room is left to the footnote (noRoom).
func (p *plot) labelRidges() {
	for _, rf := range p.roofs {
		ridge := rf.peak / p.hbm
		rx, y := p.px(ridge), p.py(rf.peak)
		label := "ridge " + intensity(ridge)
		w := width(label)
		cands := []box{
			{rx - 6 - w, y - 6 - fontSize, rx - 6, y - 6}, {rx + 6, y + 4, rx + 6 + w, y + 4 + fontSize},
			{rx + 6, y - 4 - fontSize, rx + 6 + w, y - 4}, {rx - 6 - w, y + 4, rx - 6, y + 4 + fontSize},
		}
		for k := 1.0; k <= 4; k++ {
			cands = append(cands, box{rx - 6 - w, y - 6 - (k+1)*fontSize, rx - 6, y - 6 - k*fontSize})
		}
		cands = append(cands, labelSpots(rx, y, w)...)
		b, lead, ok := p.l.place(rx, y, cands, false, true)
		if !ok {
			p.noRoom = append(p.noRoom, strings.Join(rf.names, " = ")+" "+intensity(ridge))
			continue
		}
		attrs := `fill="#555"`
		if !rf.used {
			attrs = `fill="#999"`
		}
		p.l.draw(p.s, rx, y, b, lead, side(rx, b), "ridge", attrs, label)
	}
}

// drawArrows draws the base run's points and their arrows, under everything of the new run:
// from the base point's edge to the new marker's, the head a filled triangle.
func (p *plot) drawArrows() {
	for _, a := range p.arrows {
		p.s.printf(`<circle class="base-point" cx="%.1f" cy="%.1f" r="3.5" fill="white" stroke="#888" stroke-width="1.2"><title>%s</title></circle>`+"\n",
			a.x0, a.y0, escape("base run: "+tooltip(a.old)))
		d := math.Hypot(a.x1-a.x0, a.y1-a.y0)
		if d < 12 {
			continue // the marker covers so short an arrow: the tooltip and the table give it
		}
		ux, uy := (a.x1-a.x0)/d, (a.y1-a.y0)/d
		x0, y0, x1, y1 := a.x0+ux*4, a.y0+uy*4, a.x1-ux*7, a.y1-uy*7
		p.s.printf(`<path class="arrow" d="M%.1f %.1fL%.1f %.1f" stroke="%s" stroke-width="1.5" fill="none"><title>%s</title></path>`+"\n",
			x0, y0, x1, y1, a.colour, escape(a.title))
		p.s.printf(`<path class="arrowhead" d="M%.1f %.1fL%.1f %.1fL%.1f %.1fz" fill="%s"/>`+"\n",
			x1, y1, x1-ux*7-uy*3.5, y1-uy*7+ux*3.5, x1-ux*7+uy*3.5, y1-uy*7-ux*3.5, a.colour)
	}
}

// drawAchieved draws the measured traffic: each achieved intensity at its point's height,
// linked to it.
func (p *plot) drawAchieved() {
	for _, a := range p.achieved {
		pt := p.shown[p.index[a.r]]
		p.s.printf(`<line class="traffic" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.2" stroke-dasharray="3 2"/>`+"\n",
			a.cx, a.cy, pt[0], pt[1], trafficColour)
		p.s.printf(`<path class="achieved" d="%s" fill="white" stroke="%s" stroke-width="1.5"><title>%s</title></path>`+"\n",
			shapes[1].path(a.cx, a.cy), trafficColour, escape(a.title()))
	}
}

// drawPoints draws the fanned-out points' leaders (from each true position, marked by a dot,
// to its marker), then the markers.
func (p *plot) drawPoints() {
	for i := range p.pts {
		if at, shown := p.at[i], p.shown[i]; moved(at, shown) {
			p.s.printf(`<line class="fan" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#777" stroke-width="1"/>`+"\n", at[0], at[1], shown[0], shown[1])
			p.s.printf(`<circle class="true-pos" cx="%.1f" cy="%.1f" r="1.8" fill="#333"/>`+"\n", at[0], at[1])
		}
	}
	for i, r := range p.pts {
		st := styles[styleOf(r)]
		p.s.printf(`<path class="point" d="%s" fill="%s" stroke="%s" stroke-width="1.5"><title>%s</title></path>`+"\n",
			shapes[p.shapeOf[i]].path(p.shown[i][0], p.shown[i][1]), st.fill, st.stroke, escape(tooltip(r)))
	}
}

// labelPoints places the labels greedily where they overlap nothing drawn so far: priced
// points first (drawn last, labelled first), then the achieved intensities' ratios. A point
// with no room is counted (unlabelled): its tooltip still names it, and an unreadable pile
// of labels helps nobody.
func (p *plot) labelPoints() {
	if len(p.pts) > maxLabelled {
		return
	}
	labels := pointLabels(p.pts)
	for i := len(p.pts) - 1; i >= 0; i-- {
		cx, cy := p.shown[i][0], p.shown[i][1]
		b, lead, ok := p.l.place(cx, cy, labelSpots(cx, cy, width(labels[i])), true, true)
		if !ok {
			p.unlabelled++
			continue
		}
		p.l.draw(p.s, cx, cy, b, lead, side(cx, b), "point-label", "", labels[i])
	}
	for _, a := range p.achieved {
		label := a.label()
		if b, lead, ok := p.l.place(a.cx, a.cy, labelSpots(a.cx, a.cy, width(label)), true, true); ok {
			p.l.draw(p.s, a.cx, a.cy, b, lead, side(a.cx, b), "achieved-label", `fill="`+trafficColour+`"`, label)
		}
	}
}

// footer is what goes below the plot, wrapped to its width: every row not plotted and why,
// the notes, then the run.
func (p *plot) footer() []footLine {
	var foot []footLine
	add := func(class, attrs, text string) {
		for _, ln := range wrap(text, plotR-plotL) {
			foot = append(foot, footLine{class, attrs, ln})
		}
	}
	if groups := unplotted(p.c.Rows); len(groups) > 0 {
		n := 0
		for _, g := range groups {
			n += len(g.names)
		}
		add("unplotted-head", `font-weight="bold"`, fmt.Sprintf("Not plotted: %d of %d rows", n, len(p.c.Rows)))
		for _, g := range groups {
			names := strings.Join(g.names[:min(len(g.names), maxFootNames)], ", ")
			if more := len(g.names) - maxFootNames; more > 0 {
				names += fmt.Sprintf(" and %d more (the table lists them)", more)
			}
			add("unplotted", "", g.why+": "+names)
		}
	}
	for _, n := range p.notes() {
		add("note", `fill="#555"`, n)
	}
	if p.c.Meta != nil {
		for _, m := range chartMeta(p.prof, p.basis, p.c.Meta) {
			add("meta", `fill="#777" font-size="11"`, m)
		}
	}
	return foot
}

// notes says what the chart leaves out or draws apart, and why.
func (p *plot) notes() []string {
	var notes []string
	if len(p.pts) > maxLabelled {
		notes = append(notes, fmt.Sprintf("%d points, too many to label (at most %d): hover a point for its name", len(p.pts), maxLabelled))
	}
	if len(p.pts) > maxFanned {
		notes = append(notes, fmt.Sprintf("%d points, too many to fan out (at most %d): points that cover one another are drawn where they are", len(p.pts), maxFanned))
	}
	if p.unlabelled > 0 {
		notes = append(notes, pointsN(p.unlabelled)+" left unlabelled for room: hover a point for its name")
	}
	if n := countMoved(p.at, p.shown); n > 0 {
		notes = append(notes, fmt.Sprintf("%d points fanned out from one another: a line joins each to its true position (the dot)", n))
	}
	if len(p.noRoom) > 0 {
		notes = append(notes, "no room to label the ridge of "+strings.Join(p.noRoom, "; "))
	}
	if n := cacheSizesNote(p.prof, p.slopes); n != "" {
		notes = append(notes, n)
	}
	if len(p.unmeasured) > 0 {
		notes = append(notes, fmt.Sprintf("no %s ceiling, not drawn: %s", p.basis, strings.Join(p.unmeasured, ", ")))
	}
	if p.arrowsOff > 0 {
		notes = append(notes, pointsN(p.arrowsOff)+" with no base point to draw an arrow from (not plottable in the base run, or priced there against another profile)")
	}
	if p.onlyBase > 0 {
		notes = append(notes, plural(p.onlyBase, "row")+" only in the base run: not drawn")
	}
	if len(p.minimal) > 0 {
		notes = append(notes, fmt.Sprintf("measured traffic within %.0f%% of the formula's bytes (achieved intensity on the point): %s", 100*minTrafficOff, strings.Join(p.minimal, ", ")))
	}
	if len(p.unaudited) > 0 {
		notes = append(notes, "measured traffic for rows not plotted: "+strings.Join(p.unaudited, ", "))
	}
	return notes
}
