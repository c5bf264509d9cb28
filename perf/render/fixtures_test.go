package render

import (
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/report"
	"github.com/ropgen/ropgen/perf/report/reporttest"
)

func sampleRows(t *testing.T) (*report.Pricer, []report.Row) {
	recs := []record.Record{
		reporttest.Rec("vector.fp32", 1<<28, 1<<30, 1.0/(1<<8)),
		reporttest.Rec("cube.fp16", 1<<40, 1<<30, 1),
		reporttest.Rec("vector.fp32", 1<<60+1, 1<<30, 0), // a count only JSON keeps exactly
		reporttest.Rec("vector.fp32", 1<<30, 0, 1),
	}
	recs[1].Workload, recs[2].Workload, recs[3].Workload = "prefill, \"big\"", "decode", "empty"
	pr := report.NewPricer(nil, []*profiles.Profile{reporttest.Profile(t)}, "")
	return pr, pr.PriceAll(recs)
}
