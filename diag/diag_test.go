package diag

import "testing"

func TestFindingString(t *testing.T) {
	for _, c := range []struct {
		f    Finding
		want string
	}{
		{Finding{Pos: Pos{File: "a.yaml"}, Msg: "m"}, "a.yaml: m"},
		{Finding{Pos: Pos{File: "a.yaml", Line: 3}, Op: "CopyFwd", Msg: "m"}, "a.yaml:3: CopyFwd: m"},
		{Finding{Pos: Pos{File: "a.yaml", Line: 3, Col: 7}, Op: "CopyFwd", Field: "roofline.flops", Msg: "m"}, "a.yaml:3:7: CopyFwd: roofline.flops: m"},
	} {
		if got := c.f.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}

func TestFindingsSortErr(t *testing.T) {
	if err := Findings(nil).Err(); err != nil {
		t.Fatalf("no findings: Err() = %v, want nil", err)
	}
	fs := Findings{
		{Pos: Pos{File: "b.yaml", Line: 1}, Msg: "x"},
		{Pos: Pos{File: "a.yaml", Line: 9, Col: 2}, Msg: "y"},
		{Pos: Pos{File: "a.yaml", Line: 9, Col: 1}, Msg: "z"},
		{Pos: Pos{File: "b.yaml", Line: 1}, Msg: "x"},
	}.Sort()
	want := "a.yaml:9:1: z\na.yaml:9:2: y\nb.yaml:1: x"
	if got := fs.Err().Error(); got != want {
		t.Errorf("sorted findings:\n%s\nwant:\n%s", got, want)
	}
}
