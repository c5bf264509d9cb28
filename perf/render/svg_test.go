package render

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

// chart is what a test reads back from a WriteSVG document.
type chart struct {
	texts   []chartText
	circles map[string][][3]float64 // by class: centre and radius
	lines   map[string][][4]float64 // by class
	paths   map[string][][2]float64 // by class: where each path starts
	svg     string
}

type chartText struct {
	class, text string
	boxes       []box // by the chart's own width estimate
}

// parseChart reads an SVG document written by WriteSVG as XML, and estimates the box of each
// text from its attributes alone, as a reader would: position, anchor, size, weight,
// rotation.
func parseChart(t *testing.T, data []byte) *chart {
	t.Helper()
	c := &chart{circles: map[string][][3]float64{}, lines: map[string][][4]float64{}, paths: map[string][][2]float64{}, svg: string(data)}
	dec := xml.NewDecoder(bytes.NewReader(data))
	rotate := regexp.MustCompile(`^rotate\(([-0-9.]+) ([-0-9.]+) ([-0-9.]+)\)$`)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return c
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		a := map[string]string{"text-anchor": "start", "font-size": strconv.Itoa(fontSize)}
		for _, at := range se.Attr {
			a[at.Name.Local] = at.Value
		}
		num := func(k string) float64 {
			v, err := strconv.ParseFloat(a[k], 64)
			if err != nil {
				t.Fatalf("<%s %s=%q>: %v", se.Name.Local, k, a[k], err)
			}
			return v
		}
		switch se.Name.Local {
		case "path":
			// A marker's path starts at its centre: "M x y".
			var x, y float64
			if _, err := fmt.Sscanf(a["d"], "M%g %g", &x, &y); err != nil {
				t.Fatalf("<path d=%q>: %v", a["d"], err)
			}
			c.paths[a["class"]] = append(c.paths[a["class"]], [2]float64{x, y})
			if a["class"] == "point" {
				c.circles["point"] = append(c.circles["point"], [3]float64{x, y, 5})
			}
		case "circle":
			c.circles[a["class"]] = append(c.circles[a["class"]], [3]float64{num("cx"), num("cy"), num("r")})
		case "line":
			c.lines[a["class"]] = append(c.lines[a["class"]], [4]float64{num("x1"), num("y1"), num("x2"), num("y2")})
		case "text":
			var body string
			if err := dec.DecodeElement(&body, &se); err != nil {
				t.Fatal(err)
			}
			deg := 0.0
			if tr := a["transform"]; tr != "" {
				m := rotate.FindStringSubmatch(tr)
				if m == nil {
					t.Fatalf("text %q: transform %q is not a rotation", body, tr)
				}
				deg, _ = strconv.ParseFloat(m[1], 64)
				if cx, _ := strconv.ParseFloat(m[2], 64); cx != num("x") {
					t.Fatalf("text %q: transform %q is not a rotation about its anchor", body, tr)
				}
				if cy, _ := strconv.ParseFloat(m[3], 64); cy != num("y") {
					t.Fatalf("text %q: transform %q is not a rotation about its anchor", body, tr)
				}
			}
			c.texts = append(c.texts, chartText{a["class"], body,
				textBoxes(num("x"), num("y"), a["text-anchor"], num("font-size"), a["font-weight"] == "bold", deg, body)})
		}
	}
}

// of returns the texts of a class.
func (c *chart) of(class string) []string {
	var s []string
	for _, t := range c.texts {
		if t.class == class {
			s = append(s, t.text)
		}
	}
	return s
}

// joined is the texts of a class as one line: the lines of a wrapped note joined again.
func (c *chart) joined(class string) string {
	return strings.Join(strings.Fields(strings.Join(c.of(class), " ")), " ")
}

// checkLayout fails the test where two texts overlap, a point label (or with all set, any
// text) covers a point or a ridge circle, or a leader line crosses a text or a point. Roof
// and ridge labels are never dropped, so where roofs crowd they may cover a circle.
func (c *chart) checkLayout(t *testing.T, all bool) {
	t.Helper()
	for i, a := range c.texts {
		for _, b := range c.texts[i+1:] {
			for _, ab := range a.boxes {
				for _, bb := range b.boxes {
					if ab.overlaps(bb) {
						t.Errorf("texts overlap: %q at %v and %q at %v", a.text, ab, b.text, bb)
					}
				}
			}
		}
		for _, class := range []string{"point", "ridge"} {
			for _, p := range c.circles[class] {
				if !all && a.class != "point-label" {
					continue
				}
				for _, ab := range a.boxes {
					if ab.overlaps(box{p[0] - p[2], p[1] - p[2], p[0] + p[2], p[1] + p[2]}) {
						t.Errorf("text %q at %v covers the %s at (%g, %g)", a.text, ab, class, p[0], p[1])
					}
				}
			}
		}
	}
	for _, ln := range c.lines["leader"] {
		d := math.Hypot(ln[2]-ln[0], ln[3]-ln[1])
		for s := 0.0; s <= d; s++ {
			x, y := ln[0]+(ln[2]-ln[0])*s/d, ln[1]+(ln[3]-ln[1])*s/d
			for _, a := range c.texts {
				for _, b := range a.boxes {
					if x > b.x0+0.5 && x < b.x1-0.5 && y > b.y0+0.5 && y < b.y1-0.5 {
						t.Errorf("leader %v crosses text %q", ln, a.text)
					}
				}
			}
			for _, p := range c.circles["point"] {
				if math.Hypot(x-p[0], y-p[1]) < p[2] {
					t.Errorf("leader %v crosses the point at (%g, %g)", ln, p[0], p[1])
				}
			}
		}
	}
}

// unlabelled returns the count the footnote gives of points left unlabelled for room.
func (c *chart) unlabelled() int {
	m := regexp.MustCompile(`(\d+) points? left unlabelled`).FindStringSubmatch(c.svg)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func writeChart(t *testing.T, prof *profiles.Profile, basis profiles.Basis, recs []record.Record) *chart {
	t.Helper()
	rows := report.NewPricer(prof, nil, basis).PriceAll(recs)
	var buf bytes.Buffer
	n, err := WriteSVG(&buf, &Chart{Profile: prof, Basis: basis, Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	c := parseChart(t, buf.Bytes())
	if len(c.circles["point"]) != n {
		t.Errorf("WriteSVG returned %d points, drew %d", n, len(c.circles["point"]))
	}
	return c
}

func TestSVG(t *testing.T) {
	pr, rows := sampleRows(t)
	// Rows 0 and 1 are plottable (flops, bytes and time); row 2 has no time, row 3 no bytes.
	var buf bytes.Buffer
	n, err := WriteSVG(&buf, &Chart{Profile: pr.Devices()[0].Profile, Basis: pr.Basis(), Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	c := parseChart(t, buf.Bytes())
	if n != 2 || len(c.circles["point"]) != 2 {
		t.Errorf("points: returned %d, drew %d, want 2", n, len(c.circles["point"]))
	}
	// vector.fp32 is measured; cube.fp16 is not, but a plotted row uses it: drawn dashed.
	if len(c.circles["ridge"]) != 2 || !strings.Contains(c.svg, "cube.fp16 70.4 TFLOP/s (theoretical)") {
		t.Errorf("ridges: %d, want 2\n%s", len(c.circles["ridge"]), c.svg)
	}
	// Each row not plotted is named, with why.
	if got, want := c.of("unplotted"), []string{"no measured time: Op/decode/float32", report.NoteZeroBytes + ": Op/empty/float32"}; !slices.Equal(got, want) ||
		!slices.Contains(c.of("unplotted-head"), "Not plotted: 2 of 4 rows") || !strings.Contains(c.svg, "prefill, &#34;big&#34;") {
		t.Errorf("unplotted rows %q, want %q, or the escaped label is missing:\n%s", got, want, c.svg)
	}
	// Ticks carry their unit, at 2x and 5x too when the decades are wide.
	for _, want := range []string{"1 TFLOP/s", "2 TFLOP/s", "500 GFLOP/s", "100 TFLOP/s", "0.2", "1", "1000"} {
		if !slices.Contains(c.of("tick"), want) {
			t.Errorf("no tick %q in %q", want, c.of("tick"))
		}
	}
	c.checkLayout(t, true)

	// Rows of another profile cannot share the chart.
	other := reporttest.Profile(t)
	rows[0].Profile = other
	if _, err := WriteSVG(io.Discard, &Chart{Profile: pr.Devices()[0].Profile, Basis: pr.Basis(), Rows: rows}); err == nil {
		t.Error("WriteSVG drew rows of two profiles on one chart")
	}
}

// hostLike is a CPU profile as ropgen calibrate writes one: cube.fp32 carries the same numbers
// as vector.fp32, and vector.fp64 is one no record below uses. vector.bf16 differs from
// vector.fp32 in the fourth digit only (merged), vector.fp16 in the second (not merged).
const hostLike = `
device: "cpu: Test"
hbm: {theoretical: 4.042693e+10, calibration: 0.666667}
vector:
  fp32: {theoretical: 3.018624e+11, calibration: 0.0625}
  bf16: {theoretical: 3.0190e+11, calibration: 0.0625}
  fp16: {theoretical: 3.1e+11, calibration: 0.0625}
  fp64: {theoretical: 1.124995e+11, calibration: 0.125}
cube:
  fp32: {theoretical: 3.018624e+11, calibration: 0.0625}
`

func TestSVGMergesEqualRoofs(t *testing.T) {
	prof, err := profiles.Parse("host.yaml", []byte(hostLike))
	if err != nil {
		t.Fatal(err)
	}
	recs := []record.Record{
		{Op: "Gemm", Workload: "w", DType: "float32", Roof: "cube.fp32", Flops: 1 << 30, Bytes: 1 << 24, Seconds: 0.1},
		{Op: "Add", Workload: "w", DType: "float32", Roof: "vector.fp32", Flops: 1 << 20, Bytes: 1 << 24, Seconds: 0.01},
		{Op: "Add", Workload: "w", DType: "float16", Roof: "vector.fp16", Flops: 1 << 20, Bytes: 1 << 24, Seconds: 0.01},
	}
	c := writeChart(t, prof, profiles.Effective, recs)
	roofs, ridges := c.of("roof"), c.of("ridge")
	slices.Sort(roofs)
	want := []string{"vector.bf16 = vector.fp32 18.9 GFLOP/s", "vector.fp16 19.4 GFLOP/s", "vector.fp64 14.1 GFLOP/s"}
	if fmt.Sprint(roofs) != fmt.Sprint(want) {
		t.Errorf("roof labels %q, want %q", roofs, want)
	}
	// One ridge circle and one label per line, each label once.
	if len(c.circles["ridge"]) != 3 || len(ridges) != 3 || ridges[0] == ridges[1] || ridges[1] == ridges[2] {
		t.Errorf("%d ridge circles, labels %q; want 3 and 3 distinct", len(c.circles["ridge"]), ridges)
	}
	// The roofs points use are solid; vector.fp64 faint, and the legend says so.
	if len(c.lines["roof"]) != 2 || len(c.lines["roof unused"]) != 1 || !strings.Contains(c.svg, "roof no plotted point uses") {
		t.Errorf("roof lines %d used, %d unused; want 2 and 1", len(c.lines["roof"]), len(c.lines["roof unused"]))
	}
	c.checkLayout(t, true)
}

// Two runs of one benchmark are told apart by where they were read.
func TestPointLabels(t *testing.T) {
	rows := []report.Row{
		{Rec: &record.Record{Op: "Gemm", Workload: "w", DType: "float32", Pos: diag.Pos{File: "a.txt", Line: 4}}},
		{Rec: &record.Record{Op: "Gemm", Workload: "w", DType: "float32", Pos: diag.Pos{File: "b.txt", Line: 9}}},
		{Rec: &record.Record{Op: "Gemm", Workload: "w", DType: "float16"}},
		{Rec: &record.Record{Op: "Add", Workload: "w", DType: "float16"}},
	}
	pts := []*report.Row{&rows[0], &rows[1], &rows[2], &rows[3]}
	got := fmt.Sprint(pointLabels(pts))
	if want := "[Gemm/w float32 (a.txt:4) Gemm/w float32 (b.txt:9) Gemm/w float16 Add/w]"; got != want {
		t.Errorf("labels %s, want %s", got, want)
	}
}

// crowd returns n records of the test profile's device on the given roofs, spread over four
// decades of intensity at 5% to 100% efficiency, with names of varied length.
func crowd(n int, roofs []string, ceiling func(roof string) float64) []record.Record {
	rng := rand.New(rand.NewPCG(1, 2))
	recs := make([]record.Record, n)
	for i := range recs {
		roof := roofs[i%len(roofs)]
		bytes := int64(1 << (20 + rng.IntN(10)))
		flops := int64(float64(bytes) * math.Pow(10, rng.Float64()*4-1.5))
		sol := max(float64(bytes)/reporttest.HBMEff, float64(flops)/ceiling(roof))
		recs[i] = record.Record{Device: "Test Device", Op: strings.Repeat("Op", 1+i%4) + strconv.Itoa(i), Workload: "w",
			DType: "float32", Roof: roof, Flops: flops, Bytes: bytes, Seconds: sol / (0.05 + 0.95*rng.Float64()), Iters: 1}
	}
	return recs
}

func TestSVGCrowdedLayout(t *testing.T) {
	prof := reporttest.Profile(t)
	c := writeChart(t, prof, profiles.Effective, crowd(100, []string{"vector.fp32", "cube.fp16"}, func(roof string) float64 {
		if roof == "cube.fp16" {
			return reporttest.CubeTheo
		}
		return reporttest.VecEff
	}))
	labelled, unlabelled := len(c.of("point-label")), c.unlabelled()
	if labelled+unlabelled != 100 || unlabelled == 0 || labelled < 20 {
		t.Errorf("%d points labelled, %d counted unlabelled; want 100 in all, some of each", labelled, unlabelled)
	}
	c.checkLayout(t, true)
}

// Many roofs a few percent apart: their lines are pixels apart, so labels must stack.
func TestSVGManyRoofsLayout(t *testing.T) {
	var y strings.Builder
	y.WriteString("device: \"Test Device\"\nhbm: {theoretical: 1099511627776, calibration: 0.5}\nvector:\n")
	var roofs []string
	for i, dt := range []string{"fp32", "fp16", "bf16", "int8", "fp8", "fp64", "tf32"} {
		fmt.Fprintf(&y, "  %s: {theoretical: %g, calibration: 0.5}\n", dt, 4.4e12*(1+0.04*float64(i)))
		if i%2 == 0 {
			roofs = append(roofs, "vector."+dt)
		}
	}
	prof, err := profiles.Parse("many.yaml", []byte(y.String()))
	if err != nil {
		t.Fatal(err)
	}
	c := writeChart(t, prof, profiles.Effective, crowd(40, roofs, func(string) float64 { return 2.2e12 }))
	// Every roof keeps its label, and its ridge is labelled beside its circle or named in
	// the footnote.
	footnoted := 0
	if m := regexp.MustCompile(`no room to label the ridge of ([^<]*)`).FindStringSubmatch(c.svg); m != nil {
		footnoted = len(strings.Split(m[1], "; "))
	}
	if len(c.of("roof")) != 7 || len(c.of("ridge"))+footnoted != 7 {
		t.Errorf("roof labels %q, ridge labels %q, %d ridges in the footnote", c.of("roof"), c.of("ridge"), footnoted)
	}
	c.checkLayout(t, false)
}

// cpuProfile is a host profile with the cache levels and both compute roofs of issue 10: the
// chart draws DRAM, L3, L2 and L1 as slopes and the SIMD and scalar FMA peaks as flat roofs.
const cpuProfile = `
device: "cpu: Test"
hbm: {theoretical: 4.0e+10, calibration: 0.5}
vector:
  fp32: {theoretical: 4.0e+11, calibration: 0.5}
scalar:
  fp32: {theoretical: 2.0e+10, calibration: 0.5}
caches:
  l1: {theoretical: 1.6e+12, calibration: 0.5, bytes: 49152}
  l2: {theoretical: 4.0e+11, calibration: 0.5, bytes: 2097152}
  l3: {theoretical: 1.0e+11, calibration: 0.5, bytes: 503316480}
`

// TestSVGCacheSizesNote: the chart says on which working sets each cache slope was measured,
// and where the OS reports a level much larger than that, its size.
func TestSVGCacheSizesNote(t *testing.T) {
	text := strings.Replace(cpuProfile, "bytes: 503316480}", "bytes: 67108864, sys_bytes: 272629760}", 1)
	prof, err := profiles.Parse("host.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := prof.Cache("l3"); c.SysBytes != 272629760 {
		t.Errorf("sys_bytes loaded as %d", c.SysBytes)
	}
	c := writeChart(t, prof, profiles.Effective, []record.Record{{Device: "cpu: Test", Op: "ReluFwd", Workload: "cpu-large", DType: "float32",
		Roof: "vector.fp32", Flops: 1 << 25, Bytes: 1 << 28, Seconds: 0.02, Iters: 1}})
	for _, want := range []string{"cache slopes measured on working sets up to L1 49.2kB, L2 2.10MB, L3 67.1MB", "the OS reports L3 273MB"} {
		if !strings.Contains(c.svg, want) {
			t.Errorf("no %q in the notes:\n%s", want, c.svg)
		}
	}
	prof, _ = profiles.Parse("host.yaml", []byte(cpuProfile))
	if c := writeChart(t, prof, profiles.Effective, nil); strings.Contains(c.svg, "the OS reports") || !strings.Contains(c.svg, "cache slopes measured") {
		t.Errorf("a profile without sys_bytes: %s", c.svg)
	}
}

func TestSVGCacheAndScalarRoofs(t *testing.T) {
	prof, err := profiles.Parse("host.yaml", []byte(cpuProfile))
	if err != nil {
		t.Fatal(err)
	}
	r := func(op string, flops, bytes int64, secs float64) record.Record {
		return record.Record{Device: "cpu: Test", Op: op, Workload: "cpu-large", DType: "float32", Roof: "vector.fp32",
			Flops: flops, Bytes: bytes, Seconds: secs, Iters: 1}
	}
	c := writeChart(t, prof, profiles.Effective, []record.Record{
		r("ReluFwd", 1<<25, 1<<28, 0.02), r("SoftmaxFwd", 1<<28, 1<<28, 0.05), r("GemmFwd", 1<<35, 1<<26, 1.5)})
	if got := len(c.lines["slope cache"]); got != 3 || len(c.lines["slope"]) != 1 {
		t.Errorf("slopes: %d cache, %d main; want 3 and 1", got, len(c.lines["slope"]))
	}
	for _, want := range []string{"DRAM 20.0 GB/s", "L3 50.0 GB/s", "L2 200 GB/s", "L1 800 GB/s", "vector.fp32 200 GFLOP/s", "scalar.fp32 10.0 GFLOP/s"} {
		if !slices.ContainsFunc(c.texts, func(x chartText) bool { return x.text == want }) {
			t.Errorf("no text %q:\n%s", want, c.svg)
		}
	}
	// The slopes climb in bandwidth order: at one intensity, L1 above L2 above L3 above DRAM
	// (smaller y is higher on screen), each ending at the highest roof.
	lines := append(c.lines["slope"], c.lines["slope cache"]...)
	for _, l := range lines {
		if l[3] > l[1] {
			t.Errorf("slope %v does not rise", l)
		}
	}
	c.checkLayout(t, false)
}

// TestSVGSlopeLabelsClearOtherSlopes: a cache level barely faster than DRAM runs its line right
// beside DRAM's; neither slope's label may sit on the other's line.
func TestSVGSlopeLabelsClearOtherSlopes(t *testing.T) {
	prof, err := profiles.Parse("host.yaml", []byte(strings.Replace(cpuProfile, "l3: {theoretical: 1.0e+11", "l3: {theoretical: 4.8e+10", 1)))
	if err != nil {
		t.Fatal(err)
	}
	c := writeChart(t, prof, profiles.Effective, []record.Record{{Device: "cpu: Test", Op: "ReluFwd", Workload: "cpu-large",
		DType: "float32", Roof: "vector.fp32", Flops: 1 << 25, Bytes: 1 << 28, Seconds: 0.02, Iters: 1}})
	for _, x := range c.texts {
		own := ""
		switch {
		case strings.HasPrefix(x.text, "DRAM "):
			own = "slope"
		case strings.HasPrefix(x.text, "L3 "):
			own = "slope cache"
		default:
			continue
		}
		for class, ls := range c.lines {
			if !strings.HasPrefix(class, "slope") || class == own {
				continue
			}
			for _, ln := range ls {
				for _, b := range trace(ln[0], ln[1], ln[2], ln[3], 0, 1) {
					if slices.ContainsFunc(x.boxes, b.overlaps) {
						t.Errorf("label %q sits on a %s line", x.text, class)
					}
				}
			}
		}
	}
}

// Two records at the same intensity and rate, one priced, one not: two markers, apart, each
// joined to the true position, the priced one drawn last (on top).
func TestSVGFansOutCoincidentPoints(t *testing.T) {
	prof := reporttest.Profile(t)
	a := reporttest.Rec("vector.fp32", 1<<28, 1<<30, 1.0/(1<<8))
	b := a
	b.Op, b.Roof = "Other", "cube.fp16" // cube.fp16 has no effective ceiling: unpriced, hollow
	far := reporttest.Rec("vector.fp32", 1<<34, 1<<30, 1.0/(1<<4))
	far.Op = "Far"
	c := writeChart(t, prof, profiles.Effective, []record.Record{a, b, far})
	pts := c.circles["point"]
	if len(pts) != 3 {
		t.Fatalf("%d points, want 3", len(pts))
	}
	// Drawn unpriced first, so that the priced ones are on top.
	var fills []string
	for _, m := range regexp.MustCompile(`<path class="point" d="[^"]*" fill="([^"]*)"`).FindAllStringSubmatch(c.svg, -1) {
		fills = append(fills, m[1])
	}
	if len(fills) != 3 || fills[0] != "white" || fills[1] == "white" || fills[2] == "white" {
		t.Errorf("point fills in drawing order %q: the unpriced (white) one must come first", fills)
	}
	// pts[0] is the unpriced one, pts[1] its twin (drawing order).
	if d := math.Hypot(pts[0][0]-pts[1][0], pts[0][1]-pts[1][1]); d < markerGap-0.5 {
		t.Errorf("coincident points drawn %.1f apart (%v, %v), want %d or more", d, pts[0], pts[1], markerGap)
	}
	fans, dots := c.lines["fan"], c.circles["true-pos"]
	if len(fans) != 2 || len(dots) != 2 || dots[0][0] != dots[1][0] || dots[0][1] != dots[1][1] {
		t.Fatalf("fan leaders %v from %v, want two from one true position", fans, dots)
	}
	for i, f := range fans {
		if f[0] != dots[i][0] || f[1] != dots[i][1] || !slices.ContainsFunc(pts, func(p [3]float64) bool { return p[0] == f[2] && p[1] == f[3] }) {
			t.Errorf("fan leader %v does not join the true position to a marker", f)
		}
	}
	if !strings.Contains(c.svg, "2 points fanned out") {
		t.Errorf("the footnote does not say points were fanned out")
	}
	c.checkLayout(t, true)

	// Far apart, nothing moves.
	c = writeChart(t, prof, profiles.Effective, []record.Record{a, far})
	if len(c.lines["fan"]) != 0 {
		t.Errorf("points far apart fanned out: %v", c.lines["fan"])
	}
}

// The footer names the run: profile, calibration date, records files, commit and date, and
// leaves out the commit when it is unknown.
func TestSVGMetadataFooter(t *testing.T) {
	prof := reporttest.Profile(t)
	prof.Measured.At = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	rows := report.NewPricer(prof, nil, "").PriceAll([]record.Record{reporttest.Rec("vector.fp32", 1<<28, 1<<30, 1.0/(1<<8))})
	meta := &Meta{Files: []string{"new.txt"}, BaseFiles: []string{"old.txt"}, Commit: "v1.2-3-gabc", Date: time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)}
	var buf bytes.Buffer
	if _, err := WriteSVG(&buf, &Chart{Profile: prof, Basis: profiles.Effective, Rows: rows, Meta: meta}); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(parseChart(t, buf.Bytes()).of("meta"), " ")
	for _, want := range []string{"profile test (Test Device, calibrated 2026-11-30 08:00 UTC)", "records new.txt", "base old.txt", "commit v1.2-3-gabc", "drawn 2026-12-01 09:30:00 UTC"} {
		if !strings.Contains(got, want) {
			t.Errorf("footer %q lacks %q", got, want)
		}
	}
	meta.Commit = ""
	buf.Reset()
	WriteSVG(&buf, &Chart{Profile: prof, Basis: profiles.Effective, Rows: rows, Meta: meta})
	if got := strings.Join(parseChart(t, buf.Bytes()).of("meta"), " "); strings.Contains(got, "commit") {
		t.Errorf("footer %q names a commit it does not know", got)
	}
}

// arrowsChart is a run compared with its base: Slowed 4x slower, Same unchanged, Gone in the
// base run only.
func arrowsChart(t *testing.T) *Chart {
	prof := reporttest.Profile(t)
	mk := func(op string, secs float64, n int) []record.Record {
		var rs []record.Record
		for i := range n {
			r := reporttest.Rec("vector.fp32", 1<<28, 1<<30, secs*(1+float64(i)/100))
			r.Op = op
			rs = append(rs, r)
		}
		return rs
	}
	old := append(append(mk("Slowed", 1.0/(1<<8), 6), mk("Same", 1.0/(1<<7), 6)...), mk("Gone", 1.0/(1<<6), 6)...)
	new := append(mk("Slowed", 4.0/(1<<8), 6), mk("Same", 1.0/(1<<7), 6)...)
	p := report.NewPricer(prof, nil, "")
	oldS, newS := report.Group(old), report.Group(new)
	oldRows, newRows := p.PriceAll(report.Records(oldS)), p.PriceAll(report.Records(newS))
	return &Chart{Profile: prof, Basis: profiles.Effective, Rows: newRows, Comparison: Compare(oldS, newS, oldRows, newRows, DefaultCompare)}
}

// With a comparison, each row plotted in both runs gets an arrow from its base point to its
// new point, coloured by its change; a row in one run only has none.
func TestSVGArrows(t *testing.T) {
	var buf bytes.Buffer
	if _, err := WriteSVG(&buf, arrowsChart(t)); err != nil {
		t.Fatal(err)
	}
	c := parseChart(t, buf.Bytes())
	base, arrows := c.circles["base-point"], c.paths["arrow"]
	if len(base) != 2 {
		t.Fatalf("%d base points, want Slowed's and Same's", len(base))
	}
	// Same did not move: its marker covers its base point, so no arrow; Slowed's runs from its
	// base point down to its new point (4x slower: 4x lower on screen), in red.
	if len(arrows) != 1 || !regexp.MustCompile(`class="arrow" d="M[^"]*" stroke="#cf222e"`).MatchString(c.svg) {
		t.Fatalf("arrows %v, want one, red", arrows)
	}
	var slowed [3]float64
	for _, pt := range c.circles["point"] {
		if math.Abs(pt[0]-arrows[0][0]) < 10 && pt[1] > arrows[0][1] {
			slowed = pt
		}
	}
	if slowed == ([3]float64{}) || math.Abs(base[0][0]-arrows[0][0]) > 5 || math.Abs(base[0][1]-arrows[0][1]) > 5 {
		t.Errorf("the arrow at %v does not start at the base point %v above a new point", arrows[0], base[0])
	}
	if !strings.Contains(c.svg, "Slowed/w/float32") || !strings.Contains(c.svg, "time +") {
		t.Errorf("the arrow's tooltip does not name the row and its change")
	}
	if !strings.Contains(c.joined("note"), "1 row only in the base run: not drawn") {
		t.Errorf("notes %q do not count Gone, in the base run only", c.joined("note"))
	}
	c.checkLayout(t, true)
}

// With many points of several families, each family has its marker shape, the largest
// families first, and the legend names them; without a family lookup, or with few points,
// every marker is a circle.
func TestSVGFamilyMarkers(t *testing.T) {
	prof := reporttest.Profile(t)
	family := map[string]string{"Gemm": "gemm", "Norm": "norm", "Add": "elementwise"}
	var recs []record.Record
	for i, op := range []string{"Gemm", "Gemm", "Gemm", "Gemm", "Gemm", "Gemm", "Norm", "Norm", "Norm", "Norm", "Add", "Add", "Unknown"} {
		r := reporttest.Rec("vector.fp32", int64(1<<24)<<(i%13), 1<<30, 1.0/(1<<8))
		r.Op, r.Workload = op, "w"+strconv.Itoa(i)
		recs = append(recs, r)
	}
	rows := report.NewPricer(prof, nil, "").PriceAll(recs)
	draw := func(rows []report.Row, fam func(string) string) (map[string][]string, *chart) {
		var buf bytes.Buffer
		if _, err := WriteSVG(&buf, &Chart{Profile: prof, Basis: profiles.Effective, Rows: rows, Family: fam}); err != nil {
			t.Fatal(err)
		}
		byOp := map[string][]string{}
		for _, m := range regexp.MustCompile(`<path class="point" d="M[-0-9.]+ [-0-9.]+([^"]*)"[^>]*><title>([A-Za-z]+)/`).FindAllStringSubmatch(buf.String(), -1) {
			byOp[m[2]] = append(byOp[m[2]], m[1])
		}
		return byOp, parseChart(t, buf.Bytes())
	}
	rel := func(i int) string { return strings.TrimPrefix(shapes[i].path(0, 0), "M0.0 0.0") }
	byOp, c := draw(rows, func(op string) string { return family[op] })
	for op, want := range map[string]string{"Gemm": rel(0), "Norm": rel(1), "Add": rel(2), "Unknown": rel(3)} {
		for _, got := range byOp[op] {
			if got != want {
				t.Errorf("%s drawn as %q, want %q", op, got, want)
			}
		}
	}
	if len(byOp["Gemm"]) != 6 {
		t.Fatalf("%d Gemm points, want 6", len(byOp["Gemm"]))
	}
	for _, want := range []string{"family gemm", "family norm", "family elementwise", "family not in the catalog"} {
		if !slices.Contains(c.of("legend"), want) {
			t.Errorf("legend %q lacks %q", c.of("legend"), want)
		}
	}
	for name, fam := range map[string]func(string) string{"no lookup": nil, "one family": func(string) string { return "gemm" }} {
		byOp, _ := draw(rows, fam)
		for op, ds := range byOp {
			for _, d := range ds {
				if d != rel(0) {
					t.Errorf("%s: %s drawn as %q, want circles", name, op, d)
				}
			}
		}
	}
	byOp, _ = draw(rows[:familyMarkersFrom-1], func(op string) string { return family[op] })
	if d := byOp["Norm"]; len(d) == 0 || d[0] != rel(0) {
		t.Errorf("few points: Norm drawn as %q, want a circle", d)
	}
}

// An audited row gets its achieved intensity (flops / measured bytes) at its own height, left
// of its point by the ratio of measured to formula bytes, linked to it and labelled with the
// ratio; traffic for a row not plotted is named.
func TestSVGAchievedIntensity(t *testing.T) {
	prof := reporttest.Profile(t)
	r := reporttest.Rec("vector.fp32", 1<<28, 1<<30, 1.0/(1<<8))
	r.Op = "Softmax"
	other := reporttest.Rec("vector.fp32", 1<<34, 1<<30, 1.0/(1<<4))
	other.Op = "Gemm"
	rows := report.NewPricer(prof, nil, "").PriceAll([]record.Record{r, other})
	var buf bytes.Buffer
	traffic := []Traffic{{Op: "Softmax", Workload: "w", DType: "float32", Bytes: 2 << 30}, {Op: "Copy", Workload: "w", DType: "float32", Bytes: 5},
		{Op: "Gemm", Workload: "w", DType: "float32", Bytes: 1<<30 + 1<<24}}
	if _, err := WriteSVG(&buf, &Chart{Profile: prof, Basis: profiles.Effective, Rows: rows, Traffic: traffic}); err != nil {
		t.Fatal(err)
	}
	c := parseChart(t, buf.Bytes())
	ach, links := c.paths["achieved"], c.lines["traffic"]
	if len(ach) != 1 || len(links) != 1 {
		t.Fatalf("%d achieved points, %d links; want one each", len(ach), len(links))
	}
	// The formula point: the one the link ends at.
	var pt [3]float64
	for _, p := range c.circles["point"] {
		if p[0] == links[0][2] && p[1] == links[0][3] {
			pt = p
		}
	}
	if pt == ([3]float64{}) || links[0][0] != ach[0][0] || links[0][1] != ach[0][1] {
		t.Fatalf("link %v does not join the achieved point %v to a point %v", links[0], ach[0], c.circles["point"])
	}
	// One decade is (plotR-plotL)/(lx1-lx0) units: read it off two x ticks a decade apart.
	var xs []float64
	for _, l := range c.lines["grid"] {
		if l[0] == l[2] { // vertical: an intensity decade
			xs = append(xs, l[0])
		}
	}
	if len(xs) < 2 {
		t.Fatalf("x decades at %v, want two or more", xs)
	}
	decade := xs[1] - xs[0]
	if want := decade * math.Log10(2); ach[0][1] != pt[1] || math.Abs(pt[0]-ach[0][0]-want) > 0.2 {
		t.Errorf("achieved point %v, formula point %v: want it %.1f units left at the same height", ach[0], pt, want)
	}
	if !slices.Contains(c.of("achieved-label"), "2.0× bytes") || !strings.Contains(c.svg, "achieved intensity 0.125 FLOP/B (formula 0.25)") {
		t.Errorf("achieved label %q or tooltip missing", c.of("achieved-label"))
	}
	if !strings.Contains(c.joined("note"), "measured traffic for rows not plotted: Copy/w/float32") {
		t.Errorf("the unmatched measurement is not named")
	}
	// Gemm moves 1.6% more than its formula: no point apart, named in the footnote.
	if !strings.Contains(c.joined("note"), "within 5% of the formula's bytes (achieved intensity on the point): Gemm/w/float32") {
		t.Errorf("the audited row at its formula's bytes is not named")
	}
	c.checkLayout(t, true)
}

// TestSVGLargeRunBounded: a chart of many rows costs time and memory in proportion to its
// rows (issue 23 item 8: -svg took 650 MB for 20k rows, -html 27 s for 40k). Past maxFanned
// points none is fanned out (fanOut's rings compare every moved point with every other, and
// their leaders were millions of layout boxes) and a note says so; the footer names at most
// maxFootNames rows per reason and counts the rest.
func TestSVGLargeRunBounded(t *testing.T) {
	prof := reporttest.Profile(t)
	recs := crowd(maxFanned+500, []string{"vector.fp32"}, func(string) float64 { return reporttest.VecEff })
	for i := range maxFootNames + 60 {
		recs = append(recs, record.Record{Device: "Test Device", Op: "Copy" + strconv.Itoa(i), Workload: "w", DType: "float32",
			Roof: "vector.fp32", Bytes: 1 << 20, Seconds: 1e-3, Iters: 1})
	}
	c := writeChart(t, prof, profiles.Effective, recs)
	if n := len(c.lines["fan"]); n != 0 {
		t.Errorf("%d points fanned out of %d", n, maxFanned+500)
	}
	if notes := c.joined("note"); !strings.Contains(notes, fmt.Sprintf("%d points, too many to fan out (at most %d)", maxFanned+500, maxFanned)) {
		t.Errorf("notes do not say the points are not fanned out:\n%s", notes)
	}
	if foot := c.joined("unplotted"); !strings.Contains(foot, "Copy39/w/float32 and 60 more (the table lists them)") || strings.Contains(foot, "Copy40/") {
		t.Errorf("footer:\n%s", foot)
	}
	if perPoint := len(c.svg) / (maxFanned + 500); perPoint > 600 {
		t.Errorf("%d bytes of SVG a point", perPoint)
	}
}
