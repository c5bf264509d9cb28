package render

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestJSON(t *testing.T) {
	pr, rows := sampleRows(t)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, pr, rows); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Basis   string
		Devices []struct{ Device, Profile, Source, Error string }
		Rows    []map[string]json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if doc.Basis != "effective" || len(doc.Devices) != 1 || doc.Devices[0].Profile != "test" || len(doc.Rows) != len(rows) {
		t.Fatalf("document %+v", doc)
	}
	for i, r := range doc.Rows {
		if len(r) != len(columns) {
			t.Errorf("row %d has %d keys, want %d", i, len(r), len(columns))
		}
	}
	for key, want := range map[string]string{"efficiency": "0.5", "bound": `"memory-bound"`, "op": `"Op"`} {
		if got := string(doc.Rows[0][key]); got != want {
			t.Errorf("row 0 %s = %s, want %s", key, got, want)
		}
	}
	if string(doc.Rows[1]["sol_time"]) != "null" || string(doc.Rows[2]["flops"]) != "1152921504606846977" || string(doc.Rows[2]["seconds"]) != "null" {
		t.Errorf("blanks must be null and counts exact: %s", buf.String())
	}
}
