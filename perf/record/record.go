// Package record is the benchmark record: what the benchmark layer measures and writes, and
// what the report and the audit read (docs/model.md §8). Records carry the op's own roofline
// numbers, so readers never instantiate an op or evaluate a formula.
package record

import (
	"strings"

	"github.com/ropgen/ropgen/diag"
)

// Record is one timed op × workload × dtype.
type Record struct {
	Device string `json:"device"` // measured device name, matched against a profile's device field
	// Impl names the implementation that was timed: "ropgen" for ropbench's (the catalog's
	// kernels), "torch" or "numpy" for the Python harness, a module's name for its bench
	// command. Empty means ropgen's own, so that a record written without the key, which a
	// history may keep, reads as what it was. The report never pools
	// two implementations into one row (ImplName).
	Impl     string `json:"impl,omitempty"`
	Op       string `json:"op"`       // manifest op name
	Workload string `json:"workload"` // workload label
	DType    string `json:"dtype"`    // the dtype set, e.g. "bfloat16" or "q=bfloat16,k=float8_e4m3"
	Roof     string `json:"roof"`     // ComputeRoof key, e.g. "vector.fp32"
	Flops    int64  `json:"flops"`    // from EvalRoofline
	Bytes    int64  `json:"bytes"`    // from EvalRoofline
	// Seconds is the device-busy time of one call plus any device copies excluded from it
	// (the measured time of docs/model.md §1.2); zero when the call was timed without
	// device activity.
	Seconds float64 `json:"seconds"`
	// MinSeconds and MaxSeconds are the fastest and the slowest of the samples whose median
	// is Seconds: the row's spread. Both zero when the record does not say (a record from
	// before spreads were kept, or one written by hand); the report then takes Seconds alone.
	MinSeconds float64 `json:"min_seconds"`
	MaxSeconds float64 `json:"max_seconds"`
	Iters      int     `json:"iters"` // calls timed
	// RefRate is the same-time reference of a DRAM-sized cold row, in bytes/s: streaming
	// pattern of the catalog's kernels (the calibration's cold mix profiles.RefPattern names)
	// timed one cold call after every sample of the row, so that it saw the machine the row
	// saw; it is that pattern's rate paired with the row's samples, so that
	// Seconds × RefRate is the median of each sample's time × the rate of the reference
	// call after it (bench.Measure). The report's physics check
	// compares the row's implied rate with it (report.SameTimeLine). Zero when the row had
	// none (it fits in the last-level cache, it was timed warm, or the record is from before
	// the reference): the record is then priced as before.
	RefRate float64 `json:"ref_rate,omitempty"`
	// RefRateLow and RefRateHigh bound RefRate's confidence interval: the same pairing with
	// the order statistics of time × rate that bound its median at 99% (the sign-test
	// interval, stats.MedianInterval) in place of the median. The report turns them into the
	// judged efficiency's interval and reads a row whose interval holds the at-ceiling line
	// as "at the line": its samples cannot tell which side it is on. Both zero when the
	// record does not say (no reference, or a record from before the interval); then the
	// verdict reads the median alone.
	RefRateLow  float64 `json:"ref_rate_low,omitempty"`
	RefRateHigh float64 `json:"ref_rate_high,omitempty"`
	// ProbeRate is the same-time compute probe of a cold row, in FLOP/s: the host's
	// vector.fp32 roof kernel (the calibration's widest fp32 multiply-add loop) run for one
	// short dispatch on every worker after each sample of the row, paired with the samples
	// as RefRate is. It sees what a memory stream does not: a lower clock, or another
	// process taking a core. The report divides it by the profile's calibrated best of that
	// kernel to tell how fast the machine computed while the row ran (report.Row.Probe).
	// ProbeRateLow and ProbeRateHigh bound it at 99% as RefRateLow and RefRateHigh bound
	// RefRate. All zero when the row had none (timed warm, or by a harness without it).
	ProbeRate     float64 `json:"probe_rate,omitempty"`
	ProbeRateLow  float64 `json:"probe_rate_low,omitempty"`
	ProbeRateHigh float64 `json:"probe_rate_high,omitempty"`
	// Pos is where a reader found the record (file and line), so a report can point at it;
	// writers ignore it.
	Pos diag.Pos `json:"-"`
}

// DefaultImpl is the implementation a record without an impl names: ropgen's own kernels,
// which every record was before the key existed.
const DefaultImpl = "ropgen"

// ImplName returns the implementation r was timed on: Impl, or DefaultImpl when empty.
func (r *Record) ImplName() string {
	if r.Impl == "" {
		return DefaultImpl
	}
	return r.Impl
}

// Spread returns the fastest and slowest sample times of r: MinSeconds and MaxSeconds, or
// Seconds for both when the record keeps no spread.
func (r *Record) Spread() (lo, hi float64) {
	if r.MinSeconds == 0 && r.MaxSeconds == 0 {
		return r.Seconds, r.Seconds
	}
	return r.MinSeconds, r.MaxSeconds
}

// Reference records are measured by the benchmark run beside the catalog's rows, not priced
// as rows: their op names cannot be a manifest op's (those are Go identifiers).
const (
	// RefCopy is the op of the drift reference: a short copy of the kind the calibration's
	// copy mix measures, timed at the start (workload RefStart) and end (RefEnd) of a run.
	// Bytes is what one copy moves, Seconds the median time of one, so Bytes/Seconds is
	// its bandwidth; Roof is "hbm".
	RefCopy = "ref.copy"
	// RefFloor is the op of the cold-call floor: the smallest catalog case, timed the way
	// every case is (one call after evicting the caches), so its time is what dispatch and
	// first touch cost a cold call. Workload and dtype name the case that was timed.
	RefFloor = "ref.floor"
	// RefStart and RefEnd are the workloads of the drift references.
	RefStart = "start"
	RefEnd   = "end"
)

// IsReference reports whether r is a reference record rather than a catalog row.
func (r *Record) IsReference() bool { return strings.HasPrefix(r.Op, "ref.") }
