package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// A row in one run only has the other run's cells blank: null in JSON, empty in CSV, never
// a zero time or a position at line 0.
func TestCompareJSONBlanks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	old := run(rng, []string{"Kept", "Gone"}, 6, 0.01, nil)
	new := run(rng, []string{"Kept", "Fresh"}, 6, 0.01, nil)
	c := compareRuns(t, old, new)
	var buf bytes.Buffer
	if err := WriteCompareJSON(&buf, "effective", c); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Added, Removed int
		Rows           []map[string]any
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if doc.Added != 1 || doc.Removed != 1 || len(doc.Rows) != 3 {
		t.Fatalf("added %d removed %d rows %d, want 1, 1, 3", doc.Added, doc.Removed, len(doc.Rows))
	}
	byOp := map[string]map[string]any{}
	for _, r := range doc.Rows {
		if len(r) != len(compareColumns) {
			t.Errorf("row with %d keys, want %d", len(r), len(compareColumns))
		}
		byOp[r["op"].(string)] = r
	}
	fresh, gone := byOp["Fresh"], byOp["Gone"]
	for k, v := range map[string]any{"change": "added", "old_seconds": nil, "old_pos": nil, "ratio": nil, "p": nil, "significant": false, "old_n": 0.0} {
		if fresh[k] != v {
			t.Errorf("added row: %s = %v, want %v", k, fresh[k], v)
		}
	}
	if gone["change"] != "removed" || gone["new_seconds"] != nil || gone["new_pos"] != nil || gone["old_seconds"] == nil {
		t.Errorf("removed row %v: want its new cells null, its old time kept", gone)
	}
	if kept := byOp["Kept"]; kept["old_pos"] == nil || kept["p"] == nil {
		t.Errorf("row in both runs %v: want both positions and a p-value", kept)
	}

	buf.Reset()
	if err := WriteCompareCSV(&buf, c); err != nil {
		t.Fatal(err)
	}
	all, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(all) != 4 || len(all[0]) != len(compareColumns) {
		t.Fatalf("CSV: %v, %d lines; want a header and 3 rows of %d fields", err, len(all), len(compareColumns))
	}
	col := map[string]int{}
	for i, h := range all[0] {
		col[h] = i
	}
	for _, r := range all[1:] {
		if r[col["change"]] == "added" && (r[col["old_seconds"]] != "" || r[col["old_pos"]] != "" || r[col["new_seconds"]] == "") {
			t.Errorf("added row in CSV %v: old cells must be empty, the new time set", r)
		}
	}
}
