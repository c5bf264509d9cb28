package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ropgen/ropgen/diag"
)

// ReadResult reads an audit written by `ropgen audit -json` (a Result). Decoding is strict:
// an unknown key or a value of the wrong type is a finding at its file:line:col, as is a
// second document after the first.
func ReadResult(file string) (Result, diag.Findings) {
	data, err := os.ReadFile(file)
	if err != nil {
		return Result{}, diag.Findings{{Pos: diag.Pos{File: file}, Msg: err.Error()}}
	}
	var res Result
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	at := func(off int64, msg string) diag.Findings {
		return diag.Findings{{Pos: offsetPos(file, data, off), Msg: msg}}
	}
	if err := dec.Decode(&res); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return Result{}, at(syn.Offset-1, "not an audit: "+syn.Error()) // Offset is past the bad byte
		case errors.As(err, &typ):
			return Result{}, at(typ.Offset, fmt.Sprintf("not an audit: %s is a %s, want a %s", typ.Field, typ.Value, typ.Type))
		case errors.Is(err, io.EOF):
			return Result{}, at(0, "empty file: want the output of ropgen audit -json")
		}
		// An unknown field: at the key, the first one so named; else (a truncated document)
		// where the decoder stopped.
		off := dec.InputOffset()
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if i := bytes.Index(data, []byte(name)); i >= 0 {
				off = int64(i)
			}
		}
		return Result{}, at(off, "not an audit (ropgen audit -json): "+err.Error())
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Result{}, at(dec.InputOffset(), "more after the audit document: want one ropgen audit -json output")
	}
	return res, nil
}

// offsetPos is the file:line:col of a byte offset in data.
func offsetPos(file string, data []byte, off int64) diag.Pos {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return diag.Pos{File: file, Line: line, Col: col}
}
