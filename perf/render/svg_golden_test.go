package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

// TestSVGGolden holds WriteSVG to the documents in testdata/svg, byte for byte: one chart per
// feature (points and the unplotted footer, merged roofs, a crowd, comparison arrows, family
// markers, point labels, achieved intensity, cache slopes, ridges too many to label), so that a change to
// how the chart is drawn shows as a diff of the document. ROPGEN_SVG_GOLDEN=write rewrites
// them from the code as it is.
func TestSVGGolden(t *testing.T) {
	meta := &Meta{Files: []string{"new.txt"}, BaseFiles: []string{"old.txt"}, Commit: "v1.2-3-gabc",
		Command: "ropgen report -svg out.svg new.txt", Date: time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)}
	parse := func(name, text string) *profiles.Profile {
		prof, err := profiles.Parse(name, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return prof
	}
	priced := func(prof *profiles.Profile, recs []record.Record) []report.Row {
		return report.NewPricer(prof, nil, profiles.Effective).PriceAll(recs)
	}
	charts := map[string]func() *Chart{
		"sample": func() *Chart {
			pr, rows := sampleRows(t)
			prof := pr.Devices()[0].Profile
			prof.Measured.At = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
			return &Chart{Profile: prof, Basis: pr.Basis(), Rows: rows, Meta: meta}
		},
		"host": func() *Chart {
			prof := parse("host.yaml", hostLike)
			return &Chart{Profile: prof, Basis: profiles.Effective, Rows: priced(prof, []record.Record{
				{Op: "Gemm", Workload: "w", DType: "float32", Roof: "cube.fp32", Flops: 1 << 30, Bytes: 1 << 24, Seconds: 0.1},
				{Op: "Add", Workload: "w", DType: "float32", Roof: "vector.fp32", Flops: 1 << 20, Bytes: 1 << 24, Seconds: 0.01},
				{Op: "Add", Workload: "w", DType: "float16", Roof: "vector.fp16", Flops: 1 << 20, Bytes: 1 << 24, Seconds: 0.01},
			})}
		},
		"crowd": func() *Chart {
			prof := reporttest.Profile(t)
			return &Chart{Profile: prof, Basis: profiles.Effective, Rows: priced(prof, crowd(maxLabelled+40, []string{"vector.fp32", "cube.fp16"}, func(roof string) float64 {
				if roof == "cube.fp16" {
					return reporttest.CubeTheo
				}
				return reporttest.VecEff
			}))}
		},
		"labels": func() *Chart {
			prof := reporttest.Profile(t)
			return &Chart{Profile: prof, Basis: profiles.Effective, Rows: priced(prof, crowd(100, []string{"vector.fp32", "cube.fp16"}, func(roof string) float64 {
				if roof == "cube.fp16" {
					return reporttest.CubeTheo
				}
				return reporttest.VecEff
			}))}
		},
		"roofs": func() *Chart {
			var y strings.Builder
			y.WriteString("device: \"Test Device\"\nhbm: {theoretical: 1099511627776, calibration: 0.5}\nvector:\n")
			var roofs []string
			for i, dt := range []string{"fp32", "fp16", "bf16", "int8", "fp8", "fp64", "tf32"} {
				y.WriteString("  " + dt + ": {theoretical: " + strconv.FormatFloat(4.4e12*(1+0.04*float64(i)), 'g', -1, 64) + ", calibration: 0.5}\n")
				if i%2 == 0 {
					roofs = append(roofs, "vector."+dt)
				}
			}
			prof := parse("many.yaml", y.String())
			return &Chart{Profile: prof, Basis: profiles.Effective, Rows: priced(prof, crowd(40, roofs, func(string) float64 { return 2.2e12 }))}
		},
		"arrows": func() *Chart {
			c := arrowsChart(t)
			c.Meta = meta
			return c
		},
		"families": func() *Chart {
			prof := reporttest.Profile(t)
			family := map[string]string{"Gemm": "gemm", "Norm": "norm", "Add": "elementwise"}
			var recs []record.Record
			for i, op := range []string{"Gemm", "Gemm", "Gemm", "Gemm", "Gemm", "Gemm", "Norm", "Norm", "Norm", "Norm", "Add", "Add", "Unknown"} {
				r := reporttest.Rec("vector.fp32", int64(1<<24)<<(i%13), 1<<30, 1.0/(1<<8))
				r.Op, r.Workload = op, "w"+strconv.Itoa(i)
				recs = append(recs, r)
			}
			// Two at one position: fanned out.
			twin := reporttest.Rec("vector.fp32", 1<<28, 1<<30, 1.0/(1<<8))
			twin.Op, twin.Roof = "Other", "cube.fp16"
			recs = append(recs, reporttest.Rec("vector.fp32", 1<<28, 1<<30, 1.0/(1<<8)), twin)
			return &Chart{Profile: prof, Basis: profiles.Effective, Rows: priced(prof, recs), Family: func(op string) string { return family[op] }}
		},
		"traffic": func() *Chart {
			prof := reporttest.Profile(t)
			r := reporttest.Rec("vector.fp32", 1<<28, 1<<30, 1.0/(1<<8))
			r.Op = "Softmax"
			other := reporttest.Rec("vector.fp32", 1<<34, 1<<30, 1.0/(1<<4))
			other.Op = "Gemm"
			return &Chart{Profile: prof, Basis: profiles.Effective, Rows: priced(prof, []record.Record{r, other}), Meta: meta,
				Traffic: []Traffic{{Op: "Softmax", Workload: "w", DType: "float32", Bytes: 2 << 30}, {Op: "Copy", Workload: "w", DType: "float32", Bytes: 5},
					{Op: "Gemm", Workload: "w", DType: "float32", Bytes: 1<<30 + 1<<24}}}
		},
		"cache": func() *Chart {
			prof := parse("host.yaml", strings.Replace(cpuProfile, "bytes: 503316480}", "bytes: 67108864, sys_bytes: 272629760}", 1))
			r := func(op string, flops, bytes int64, secs float64) record.Record {
				return record.Record{Device: "cpu: Test", Op: op, Workload: "cpu-large", DType: "float32", Roof: "vector.fp32",
					Flops: flops, Bytes: bytes, Seconds: secs, Iters: 1}
			}
			return &Chart{Profile: prof, Basis: profiles.Effective, Rows: priced(prof, []record.Record{
				r("ReluFwd", 1<<25, 1<<28, 0.02), r("SoftmaxFwd", 1<<28, 1<<28, 0.05), r("GemmFwd", 1<<35, 1<<26, 1.5), r("Tiny", 1<<10, 1<<12, 1e-3)})}
		},
	}
	for name, mk := range charts {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if _, err := WriteSVG(&buf, mk()); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join("testdata", "svg", name+".svg")
			if os.Getenv("ROPGEN_SVG_GOLDEN") == "write" {
				if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if got := buf.Bytes(); !bytes.Equal(got, want) {
				gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
				for i := range max(len(gl), len(wl)) {
					g, w := "", ""
					if i < len(gl) {
						g = gl[i]
					}
					if i < len(wl) {
						w = wl[i]
					}
					if g != w {
						t.Fatalf("%s differs at line %d:\ngot  %s\nwant %s", file, i+1, g, w)
					}
				}
			}
		})
	}
}
