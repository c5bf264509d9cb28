package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

// TestSummary: the rows that earned a verdict are ranked by the time they lose against
// their roof, the most first, each with its share of the lost time and what would move it;
// a latency-bound row is counted apart as a regression row, and an op with only such rows
// is named on one line.
func TestSummary(t *testing.T) {
	tiny := reporttest.Rec("vector.fp32", 0, 1<<10, 1.0/(1<<19)) // SOL 2^-29 s, under the 2^-20 s floor
	tiny.Op = "TinyFwd"
	slow, fast := reporttest.Rec("vector.fp32", 0, 4<<28, 1.0/(1<<7)), reporttest.Rec("vector.fp32", 0, 4<<28, 1.0/(1<<9)/0.9)
	slow.Op, fast.Op = "SlowFwd", "FastFwd"
	p := report.NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	rows := p.PriceAll([]record.Record{tiny, fast, slow})
	var buf bytes.Buffer
	if err := WriteSummary(&buf, p, rows); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, re := range []string{
		`(?m)^  HBM +550 GB/s`,
		`(?m)^1 +SlowFwd/w/float32 +7\.81ms +1\.95ms +5\.86ms +96% +25\.0% +below +memory-bound at 25% of HBM: the kernel's traffic or its streaming$`,
		`(?m)^2 +FastFwd/w/float32 .* 90\.0% +at ceiling +memory-bound at 90% of HBM: at ceiling`,
		`(?m)^legend: `,
		`(?m)^regression rows, counted apart: 1 row whose SOL time is under the latency floor`,
		`(?m)^ops with regression rows only \(no row here large enough to judge\): TinyFwd$`,
		`3 rows: 1 at ceiling`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("summary lacks %s:\n%s", re, out)
		}
	}
	if strings.Contains(out, "(hbm)") || strings.Index(out, "SlowFwd") > strings.Index(out, "FastFwd") {
		t.Errorf("summary:\n%s", out)
	}
}

// hostWords is a CPU profile as ropgen calibrate writes one: the cube roof is the vector
// pipes under another name.
const hostWords = `
device: "cpu: Test CPU"
memory: DRAM
hbm: {theoretical: 1099511627776, calibration: 0.5}
vector:
  fp32: {theoretical: 4398046511104, calibration: 0.5}
cube:
  fp32: {theoretical: 4398046511104, calibration: 0.5}
scalar:
  fp32: {theoretical: 274877906944, calibration: 0.5}
caches:
  l3: {theoretical: 1099511627776, calibration: 0.5, bytes: 268435456}
latency_floor: 9.5367431640625e-07
`

// gpuWords is a GPU profile with a matrix unit (cube) of its own.
const gpuWords = `
device: "Test GPU"
hbm: {theoretical: 1099511627776, calibration: 0.5}
vector:
  fp32: {theoretical: 4398046511104, calibration: 0.5}
cube:
  fp32: {theoretical: 70368744177664, calibration: 0.5}
latency_floor: 9.5367431640625e-07
`

// wordsRows prices a memory-bound copy-like row, a compute-bound GEMM on the cube roof and a
// row whose bytes fit the L3 against prof.
func wordsRows(t *testing.T, yaml string) (*report.Pricer, []report.Row) {
	t.Helper()
	prof, err := profiles.Parse("host.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	gemm := record.Record{Device: prof.Device, Op: "GemmFwd", Workload: "w", DType: "float32", Roof: "cube.fp32",
		Flops: 1 << 40, Bytes: 1 << 20, Seconds: 4, Iters: 1}
	add := record.Record{Device: prof.Device, Op: "AddFwd", Workload: "w", DType: "float32", Roof: "vector.fp32",
		Flops: 1 << 20, Bytes: 1 << 30, Seconds: 1.0 / 256, Iters: 1}
	p := report.NewPricer(prof, nil, "")
	return p, p.PriceAll([]record.Record{gemm, add})
}

// TestSummaryHostWords: on a CPU profile the summary, the table and the chart say DRAM, the
// vector pipes for the cube roof the CPU has no matrix unit for, and never HBM or cube; on a
// GPU profile with a matrix unit they say HBM and cube.
func TestSummaryHostWords(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want, not  []string
	}{
		{"cpu", hostWords,
			[]string{"  DRAM ", "  vector.fp32 ", "no matrix unit", "compute-bound at 12% of vector.fp32: SIMD, FMA use and blocking (this chip has no matrix unit)",
				"memory-bound at 50% of DRAM: the kernel's traffic or its streaming"},
			[]string{"cube", "HBM", "hbm", "matrix.fp32"}},
		{"gpu", gpuWords,
			[]string{"  HBM ", "  cube.fp32 ", "compute-bound at 0.8% of cube.fp32: tiling for the cube unit", "memory-bound at 50% of HBM"},
			[]string{"DRAM", "no matrix unit"}},
	} {
		p, rows := wordsRows(t, c.yaml)
		var sum, table, svg bytes.Buffer
		if err := WriteSummary(&sum, p, rows); err != nil {
			t.Fatal(err)
		}
		if err := WriteTable(&table, p, rows); err != nil {
			t.Fatal(err)
		}
		if _, err := WriteSVG(&svg, &Chart{Profile: rows[0].Profile, Basis: p.Basis(), Rows: rows}); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(sum.String(), w) {
				t.Errorf("%s: summary lacks %q:\n%s", c.name, w, sum.String())
			}
		}
		for _, w := range c.not {
			if strings.Contains(sum.String(), w) {
				t.Errorf("%s: summary says %q:\n%s", c.name, w, sum.String())
			}
		}
		roofs := regexp.MustCompile(`class="roof"[^>]*>([^<]*)<`).FindAllStringSubmatch(svg.String(), -1)
		var labels []string
		for _, m := range roofs {
			labels = append(labels, m[1])
		}
		chart := strings.Join(labels, "; ")
		if c.name == "cpu" && (strings.Contains(chart, "cube") || !strings.Contains(chart, "vector.fp32")) ||
			c.name == "gpu" && !strings.Contains(chart, "cube.fp32") {
			t.Errorf("%s: chart roof labels %q", c.name, chart)
		}
		if c.name == "cpu" && (!strings.Contains(table.String(), " vector.fp32 ") || strings.Contains(table.String(), "GemmFwd  w         float32  cube")) {
			t.Errorf("%s: table:\n%s", c.name, table.String())
		}
	}
}

// TestSummaryAllDrifted: a summary whose every row a drifted run left inconclusive ranks
// them with the reason, and counts them.
func TestSummaryAllDrifted(t *testing.T) {
	r := reporttest.Rec("hbm", 0, 1<<30, 0.045)
	r.Device, r.Pos.File, r.Pos.Line = "cpu: Test CPU", "drifted.txt", 2
	pr := report.NewPricer(reporttest.NoisyProfile(t), nil, "")
	rows := pr.PriceAll([]record.Record{reporttest.CopyRef("cpu: Test CPU", "drifted.txt", record.RefEnd, 20e9), r})
	var sum bytes.Buffer
	if err := WriteSummary(&sum, pr, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.String(), "inconclusive: its run's copy references ran at 50.0%-100.0% of the profile's copy median") ||
		!strings.Contains(sum.String(), " 1 inconclusive,") || !strings.Contains(sum.String(), "1 row priced under drift") {
		t.Errorf("summary:\n%s", sum.String())
	}
}

// TestSummaryJudged: a memory-bound row with a same-time reference earns its verdict by its
// judged efficiency, and the table shows that figure in a column of its own, with its legend,
// beside the plain eff; a table without such a row has neither.
func TestSummaryJudged(t *testing.T) {
	prof, err := profiles.Parse("host.yaml", []byte(`
device: "cpu: Test CPU"
memory: DRAM
hbm:
  theoretical: 1099511627776
  calibration: 0.5
  calibration_mixes: {copy_cold: 0.5}
  mix_spreads:
    copy_cold: {min: 137438953472, median: 274877906944, max: 549755813888, n: 9}
vector:
  fp32: {theoretical: 4398046511104, calibration: 0.5}
`))
	if err != nil {
		t.Fatal(err)
	}
	// SOL 2^30 B / 2^39 B/s = 2^-9 s; the median at 45% of it, while the reference streamed
	// at half the calibration's best round, its median (a machine that typical). A reference
	// 31% below that median is contended: the judged interval then holds the plain eff too.
	add := record.Record{Device: prof.Device, Op: "AddFwd", Workload: "w", DType: "float32", Roof: "vector.fp32",
		Flops: 1 << 20, Bytes: 1 << 30, Seconds: 1.0 / 512 / 0.45, Iters: 1}
	for _, c := range []struct {
		ref  float64
		want []string
		not  string
	}{
		{1 << 38, []string{`(?m)^# +op/workload/dtype .* eff +samples +judged +verdict`, `(?m)^1 +AddFwd/w/float32 .* 45\.0% .* 90\.0% +at ceiling `, `(?m)^judged = eff over`}, ""},
		{1.9e11, []string{`(?m)^1 +AddFwd/w/float32 .* 45\.0% .* 130\.2% +inconclusive +.*a burst of load slowed its same-time reference`}, ""},
		{0, []string{`(?m)^1 +AddFwd/w/float32 .* 45\.0% .* below `}, "judged ="},
	} {
		rec := add
		rec.RefRate = c.ref
		p := report.NewPricer(prof, nil, "")
		var buf bytes.Buffer
		if err := WriteSummary(&buf, p, p.PriceAll([]record.Record{rec})); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, re := range c.want {
			if !regexp.MustCompile(re).MatchString(out) {
				t.Errorf("reference %g: summary lacks %s:\n%s", c.ref, re, out)
			}
		}
		if c.not != "" && strings.Contains(out, c.not) {
			t.Errorf("reference %g: summary has %q:\n%s", c.ref, c.not, out)
		}
	}
}
