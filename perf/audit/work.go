package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/ropgen/ropgen/diag"
)

// WorkFile is the work list a cache simulation directory holds beside IndexFile (roprun
// writes it): ropgen audit -cachegrind DIR reads it when no -work is given.
const WorkFile = "work.jsonl"

// WorkShapes are the tensors' shapes of each case of a work list (`NAME eval -json`,
// docs/bench.md), by RangeName and then tensor name. A registry that knows its ops' shapes
// (bench.Shaper) states every tensor there, the arbitrary-rank outputs that no manifest row
// states too, so the footprint of an elementwise op's record is whole.
type WorkShapes map[string]map[string][]int

// ReadWorkShapes reads the op, workload, dtype, inputs and outputs of each line of a work
// list; the other keys are the work list's own and are not read here. A line that is not
// such an object is a finding at its line.
func ReadWorkShapes(file string) (WorkShapes, diag.Findings) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, diag.Findings{{Pos: diag.Pos{File: file}, Msg: err.Error()}}
	}
	type tensor struct {
		Name  string `json:"name"`
		Shape []int  `json:"shape"`
	}
	ws := WorkShapes{}
	var fs diag.Findings
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var w struct {
			Op, Workload, DType string
			Inputs, Outputs     []tensor
		}
		if err := json.Unmarshal(line, &w); err != nil || w.Op == "" || w.Workload == "" || w.DType == "" {
			if err == nil {
				err = fmt.Errorf("no op, workload or dtype")
			}
			fs = append(fs, diag.Finding{Pos: diag.Pos{File: file, Line: n}, Msg: "not a work-list line (NAME eval -json): " + err.Error()})
			continue
		}
		shapes := map[string][]int{}
		for _, t := range append(w.Inputs, w.Outputs...) {
			if t.Shape != nil {
				shapes[t.Name] = t.Shape
			}
		}
		ws[RangeName(w.Op, w.Workload, w.DType)] = shapes
	}
	if err := sc.Err(); err != nil {
		fs = append(fs, diag.Finding{Pos: diag.Pos{File: file}, Msg: err.Error()})
	}
	return ws, fs
}
