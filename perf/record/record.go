// Package record is the benchmark record: what the benchmark layer measures and writes, and
// what the report and the audit read (spec §4.2, §5.2). Records carry the op's own roofline
// numbers, so readers never instantiate an op or evaluate a formula.
package record

// Record is one timed op × workload × dtype.
type Record struct {
	Device   string // measured device name, matched against a profile's device field
	Op       string // manifest op name
	Workload string // workload label
	DType    string // the dtype set, e.g. "bfloat16" or "q=bfloat16,k=float8_e4m3"
	Roof     string // ComputeRoof key, e.g. "vector.fp32"
	Flops    int64  // from EvalRoofline
	Bytes    int64  // from EvalRoofline
	// Seconds is the device-busy time of one call plus any device copies excluded from it
	// (spec §1.2 actual_time); zero when the call was timed without device activity.
	Seconds float64
	Iters   int // calls timed
}
