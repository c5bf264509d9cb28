// Package record is the benchmark record: what the benchmark layer measures and writes, and
// what the report and the audit read (spec §4.2, §5.2). Records carry the op's own roofline
// numbers, so readers never instantiate an op or evaluate a formula.
package record

import (
	"github.com/ropgen/ropgen/diag"
)

// Record is one timed op × workload × dtype.
type Record struct {
	Device   string `json:"device"`   // measured device name, matched against a profile's device field
	Op       string `json:"op"`       // manifest op name
	Workload string `json:"workload"` // workload label
	DType    string `json:"dtype"`    // the dtype set, e.g. "bfloat16" or "q=bfloat16,k=float8_e4m3"
	Roof     string `json:"roof"`     // ComputeRoof key, e.g. "vector.fp32"
	Flops    int64  `json:"flops"`    // from EvalRoofline
	Bytes    int64  `json:"bytes"`    // from EvalRoofline
	// Seconds is the device-busy time of one call plus any device copies excluded from it
	// (spec §1.2 actual_time); zero when the call was timed without device activity.
	Seconds float64 `json:"seconds"`
	Iters   int     `json:"iters"` // calls timed
	// Pos is where a reader found the record (file and line), so a report can point at it;
	// writers ignore it.
	Pos diag.Pos `json:"-"`
}
