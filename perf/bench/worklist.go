package bench

import (
	"encoding/json"
	"io"
	"math"

	"github.com/ropgen/ropgen/diag"
	"github.com/ropgen/ropgen/perf/profiles"
)

// Shaper is an Instance that says the shapes its op bound: every present input and output,
// by its manifest name. The work list takes the tensors' shapes from it, so an output of
// arbitrary rank (an elementwise op's y), which no manifest row states, has its shape too.
// An Instance without it gets the shapes the manifest row states, and null for the others.
type Shaper interface {
	Shapes() map[string][]int
}

// Work is one case of the work list (`eval -json`): everything a harness in another language
// needs to build the case's tensors, time its call, and write the record `ropgen report`
// prices, the counts copied as they are. The keys are documented in docs/bench.md.
type Work struct {
	Op       string `json:"op"`
	Workload string `json:"workload"`
	// DType is the record's dtype label (Case.DType); DTypes the dtype of every present
	// input and output, by name.
	DType  string            `json:"dtype"`
	DTypes map[string]string `json:"dtypes"`
	// Dims are the row's dims (the fixed-rank shapes' names); Params every param with its
	// default filled in (null for a nullable param left null).
	Dims   map[string]int `json:"dims"`
	Params map[string]any `json:"params"`
	// Inputs are the present inputs in signature order, Outputs the outputs.
	Inputs  []Tensor `json:"inputs"`
	Outputs []Tensor `json:"outputs"`
	// Flops and Bytes are the op's EvalRoofline on the case, exact; Roof its ComputeRoof.
	Flops int64  `json:"flops"`
	Bytes int64  `json:"bytes"`
	Roof  string `json:"roof"`
	// Pos is the manifest row, file:line:col ("" for a -set row).
	Pos string `json:"pos"`
}

// Tensor is one input or output of a Work: its name, dtype and shape (nil when the
// registry does not say and the manifest row does not state it).
type Tensor struct {
	Name  string `json:"name"`
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
}

// WorkOf is the work-list entry of a planned case (Plan, or Eval's build).
func WorkOf(p Planned) Work {
	w := Work{Op: p.Case.Case.Op, Workload: p.Case.Case.Label, DType: p.DType, DTypes: p.Case.Case.DTypes,
		Dims: p.Case.Case.Dims, Params: p.Case.Case.Params, Flops: p.Flops, Bytes: p.Bytes, Roof: p.Roof}
	if w.Dims == nil {
		w.Dims = map[string]int{}
	}
	if w.Params == nil {
		w.Params = map[string]any{}
	}
	if pos := rowPos(p.Case); pos.File != "" {
		w.Pos = pos.String()
	}
	shape := func(name string) []int {
		if s, ok := p.Shapes[name]; ok {
			return s
		}
		return p.Case.Case.Shapes[name]
	}
	w.Inputs, w.Outputs = []Tensor{}, []Tensor{}
	if p.Op != nil {
		for _, in := range p.Op.Inputs {
			if dt, ok := p.Case.Case.DTypes[in.Name]; ok {
				w.Inputs = append(w.Inputs, Tensor{Name: in.Name, DType: dt, Shape: shape(in.Name)})
			}
		}
		for _, out := range p.Op.Outputs {
			w.Outputs = append(w.Outputs, Tensor{Name: out.Name, DType: p.Case.Case.DTypes[out.Name], Shape: shape(out.Name)})
		}
	}
	return w
}

// WorkList is Eval that also returns the work list: the clean cases as Work, in order, and
// a finding for each case that is not clean.
func WorkList(reg Registry, cases []Case) ([]Work, diag.Findings) {
	var ws []Work
	var fs diag.Findings
	for _, c := range cases {
		p, err := evalOne(reg, c)
		if err != nil {
			fs = append(fs, evalFinding(c, err))
			continue
		}
		if f := Undercount(p); f != nil {
			fs = append(fs, *f)
			continue
		}
		ws = append(ws, WorkOf(p))
	}
	return ws, fs.Sort()
}

// PredictedWork is a Work with its price on a profile (`predict -json`). A cell the profile
// cannot price is null, and Note says why.
type PredictedWork struct {
	Work
	Profile     string   `json:"profile"`
	Basis       string   `json:"basis"`
	Bandwidth   *float64 `json:"bandwidth"`     // B/s: the memory ceiling that priced it
	Peak        *float64 `json:"peak"`          // FLOP/s: the ceiling of the roof key
	Intensity   *float64 `json:"intensity"`     // flops / bytes
	Bound       string   `json:"bound"`         // memory-bound, compute-bound, or ""
	SOLSeconds  *float64 `json:"sol_seconds"`   // max(bytes / bandwidth, flops / peak)
	Attainable  *float64 `json:"attainable"`    // FLOP/s the roofline allows at the intensity
	PeakShare   *float64 `json:"peak_share"`    // attainable / peak, in [0, 1]
	PricedRoof  string   `json:"priced_roof"`   // the roof key that priced the FLOPs
	CacheLevel  string   `json:"cache_level"`   // the smallest cache level holding the bytes, or ""
	CacheSecond *float64 `json:"cache_seconds"` // the SOL time at that level's bandwidth
	Note        string   `json:"note"`
}

// PredictedWorkOf is pr as a line of `predict -json`.
func PredictedWorkOf(pr Prediction, prof *profiles.Profile, basis profiles.Basis) PredictedWork {
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	out := PredictedWork{Work: WorkOf(pr.Planned), Profile: prof.Name, Basis: string(basis),
		Bandwidth: num(pr.Bandwidth), Peak: num(pr.Peak), Intensity: num(pr.Intensity), Bound: string(pr.Bound),
		SOLSeconds: num(pr.SOLTime), Attainable: num(pr.Attainable), PeakShare: num(pr.PeakShare),
		PricedRoof: pr.PricedRoof, CacheLevel: pr.CacheLevel, Note: pr.Note}
	if pr.CacheLevel != "" {
		out.CacheSecond = num(pr.CacheTime)
	}
	return out
}

// WriteJSONLines writes each value of vs as one JSON object a line.
func WriteJSONLines[T any](w io.Writer, vs []T) error {
	enc := json.NewEncoder(w)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return nil
}
