package audit

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const fillKernel = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char *, 1UL>>(int, T2, T3)"

func parseFixture(t *testing.T, name string) []Measured {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "ncu", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, fs := ParseNCU(f, name)
	if len(fs) > 0 {
		t.Fatalf("%s: findings:\n%v", name, fs)
	}
	return ms
}

type call struct {
	name          string
	launches      int
	reads, writes int64
}

func calls(ms []Measured) []call {
	var out []call
	for _, m := range ms {
		if m.Reads.Missing != "" || m.Writes.Missing != "" {
			out = append(out, call{m.Name, m.Launches, -1, -1})
			continue
		}
		out = append(out, call{m.Name, m.Launches, m.Reads.Bytes, m.Writes.Bytes})
	}
	return out
}

// The details and the raw page of one profile, from ncu versions with different column sets
// and the metric columns in another order, read to the same calls: launches are grouped by
// range name and summed, digit grouping is stripped, ==PROF== lines and the program's own
// output are skipped.
func TestParseNCUPages(t *testing.T) {
	want := []call{
		{fillKernel, 1, 0, 4194304},
		{"ReluFwd:mid:float32", 1, 4195328, 4194304},
		{"SoftmaxFwd:decode:bfloat16", 2, 2048000 + 2048256, 256 + 2048000},
		{"GemmFwd:llama3-8b-decode-oproj:bfloat16", 1, 33566720, 8192},
	}
	for _, name := range []string{"details.csv", "raw.csv"} {
		if got := calls(parseFixture(t, name)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", name, got, want)
		}
	}
}

// Values in scaled units are converted to bytes: 4.19 Mbyte is 4,190,000 bytes, not 4.
func TestParseNCUScaledUnits(t *testing.T) {
	want := []call{
		{"ReluFwd:mid:float32", 1, 4190000, 4194300},
		{"GeluFwd:tiny:float32", 1, 256000, 256000},
		{"SiluFwd:small:float32", 1, 512, 512},
	}
	if got := calls(parseFixture(t, "units.csv")); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestParseNCUMissing(t *testing.T) {
	ms := parseFixture(t, "missing.csv")
	if len(ms) != 3 {
		t.Fatalf("got %d calls, want 3: %+v", len(ms), ms)
	}
	for _, c := range []struct {
		count Count
		want  string
	}{
		{ms[0].Writes, "missing.csv:3: launch 0 (AddFwd:mid:float32): dram__bytes_write.sum is n/a"},
		{ms[1].Reads, "missing.csv:4: launch (MulFwd:mid:float32): no dram__bytes_read.sum row"},
		{ms[2].Reads, `dram__bytes_read.sum value "8,39": its commas are not digit grouping`},
	} {
		if !strings.Contains(c.count.Missing, c.want) {
			t.Errorf("missing = %q, want it to contain %q", c.count.Missing, c.want)
		}
	}
	if ms[0].Reads.Missing != "" || ms[0].Reads.Bytes != 8388608 {
		t.Errorf("AddFwd reads = %+v, want 8388608 bytes", ms[0].Reads)
	}
}

func TestParseNCURawWithoutWriteColumn(t *testing.T) {
	ms := parseFixture(t, "raw_reads.csv")
	if len(ms) != 2 {
		t.Fatalf("got %d calls, want 2", len(ms))
	}
	if ms[0].Reads != (Count{Bytes: 33566720}) {
		t.Errorf("GemmFwd reads = %+v", ms[0].Reads)
	}
	if !strings.Contains(ms[0].Writes.Missing, "dram__bytes_write.sum has no column in the raw page header at line 2") {
		t.Errorf("GemmFwd writes missing = %q", ms[0].Writes.Missing)
	}
	if !strings.Contains(ms[1].Reads.Missing, "is n/a") {
		t.Errorf("LinearFwd reads missing = %q", ms[1].Reads.Missing)
	}
}

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		value, unit string
		want        int64
		missing     string
	}{
		{"1,234,567", "byte", 1234567, ""},
		{"1234567", "byte", 1234567, ""},
		{"4,194.30", "Kbyte", 4194300, ""},
		{"4.19", "Mbyte", 4190000, ""},
		{"1.07", "Gbyte", 1070000000, ""},
		{"2", "GB", 2000000000, ""},
		{"3", "KB", 3000, ""},
		{"1.5", "MB", 1500000, ""},
		{"1", "KiB", 1024, ""},
		{"2", "kibibyte", 2048, ""},
		{"1", "MiB", 1 << 20, ""},
		{"1", "Gibyte", 1 << 30, ""},
		{"7", "BYTE", 7, ""},
		{"n/a", "", 0, "is n/a"},
		{"", "byte", 0, "is n/a"},
		{"9,50", "Mbyte", 0, "not digit grouping"},
		{"1,23,456", "byte", 0, "not digit grouping"},
		{"12ab", "byte", 0, "not a number"},
		{"8_192", "byte", 0, "not a number"},
		{"0x2000", "byte", 0, "not a number"},
		{"Inf", "byte", 0, "not a number"},
		{"8192.5", "byte", 0, "not a whole number of bytes"},
		{"8.5", "Kbyte", 8500, ""},
		{"-5", "byte", 0, "out of range"},
		{"1e30", "byte", 0, "out of range"},
		{"100", "nsecond", 0, `unit "nsecond" is not a byte unit`},
		{"100", "", 0, `unit "" is not a byte unit`},
	} {
		got := parseBytes(c.value, c.unit)
		if c.missing == "" {
			if got != (Count{Bytes: c.want}) {
				t.Errorf("parseBytes(%q, %q) = %+v, want %d bytes", c.value, c.unit, got, c.want)
			}
			continue
		}
		if !strings.Contains(got.Missing, c.missing) {
			t.Errorf("parseBytes(%q, %q) = %+v, want missing %q", c.value, c.unit, got, c.missing)
		}
	}
}

func TestParseNCUFindings(t *testing.T) {
	const header = `"ID","Kernel Name","dram__bytes_read.sum","dram__bytes_write.sum"`
	for _, c := range []struct{ name, text, want string }{
		{"no table", "==PROF== Connected to process 1\nhello\n==PROF== Disconnected from process 1\n", `x.csv: no ncu CSV table`},
		{"ncu error", "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters\n", "x.csv:1: ncu: ==ERROR== ERR_NVGPUCTRPERM"},
		{"no units row", header + "\n" + `"0","A:w:float32","1","2"` + "\n", "x.csv:2: raw page: no units row after the header at line 1"},
		{"malformed", header + "\n" + `"","","byte","byte"` + "\n" + `"0","A:w:float32","1"x,"2"` + "\n", "x.csv:3: malformed CSV line"},
		{"short row", header + "\n" + `"","","byte","byte"` + "\n" + `"0","A:w:float32","1"` + "\n", "x.csv:3: 3 fields, the header at line 1 has 4"},
		{"details without value", `"ID","Kernel Name","Metric Name","Metric Unit"` + "\n", `x.csv:1: details page header has "Metric Name" but no "Metric Value" column`},
		{"metric twice", `"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"` + "\n" +
			`"0","A:w:float32","dram__bytes_read.sum","byte","1"` + "\n" + `"0","A:w:float32","dram__bytes_read.sum","byte","1"` + "\n",
			"x.csv:3: launch 0: dram__bytes_read.sum given twice"},
	} {
		_, fs := ParseNCU(strings.NewReader(c.text), "x.csv")
		if len(fs) == 0 || !strings.Contains(fs.Error(), c.want) {
			t.Errorf("%s: findings %q, want %q", c.name, fs.Error(), c.want)
		}
	}
}

// The Process ID column keeps two processes' launches with the same ID apart; a launch of
// another name between two launches of one name splits them into two calls.
func TestParseNCULaunchIdentity(t *testing.T) {
	text := `"ID","Process ID","Kernel Name","Metric Name","Metric Unit","Metric Value"
"0","10","A:w:float32","dram__bytes_read.sum","byte","1"
"0","11","A:w:float32","dram__bytes_read.sum","byte","2"
"0","10","A:w:float32","dram__bytes_write.sum","byte","4"
"0","11","A:w:float32","dram__bytes_write.sum","byte","8"
"1","11","B:w:float32","dram__bytes_read.sum","byte","16"
"1","11","B:w:float32","dram__bytes_write.sum","byte","32"
"2","11","A:w:float32","dram__bytes_read.sum","byte","64"
"2","11","A:w:float32","dram__bytes_write.sum","byte","128"
`
	ms, fs := ParseNCU(strings.NewReader(text), "x.csv")
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	want := []call{{"A:w:float32", 2, 3, 12}, {"B:w:float32", 1, 16, 32}, {"A:w:float32", 1, 64, 128}}
	if got := calls(ms); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// Two tables in one file (two exports concatenated) number their launches from 0 each: the
// second table's launch 0 is a launch of its own.
func TestParseNCUTwoTables(t *testing.T) {
	table := `"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"
"0","%s","dram__bytes_read.sum","byte","1"
"0","%s","dram__bytes_write.sum","byte","2"
`
	text := strings.ReplaceAll(table, "%s", "A:w:float32") + strings.ReplaceAll(table, "%s", "B:w:float32")
	ms, fs := ParseNCU(strings.NewReader(text), "x.csv")
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	want := []call{{"A:w:float32", 1, 1, 2}, {"B:w:float32", 1, 1, 2}}
	if got := calls(ms); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// A UTF-8 BOM before the header (a file saved by a spreadsheet) is not part of the header.
func TestParseNCUByteOrderMark(t *testing.T) {
	text := "\ufeff" + `"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"
"0","A:w:float32","dram__bytes_read.sum","byte","1"
"0","A:w:float32","dram__bytes_write.sum","byte","2"
`
	ms, fs := ParseNCU(strings.NewReader(text), "x.csv")
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	if got, want := calls(ms), []call{{"A:w:float32", 1, 1, 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// Rows of one launch ID that name two kernels were mixed from two profiles: a finding, never
// a merge of one kernel's reads with another's writes.
func TestParseNCUConflictingLaunch(t *testing.T) {
	text := `"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"
"0","A:w:float32","dram__bytes_read.sum","byte","1"
"0","B:w:float32","dram__bytes_write.sum","byte","2"
`
	_, fs := ParseNCU(strings.NewReader(text), "x.csv")
	want := `x.csv:3: launch 0 is kernel "B:w:float32" here and "A:w:float32" at line 2`
	if !strings.Contains(fs.Error(), want) {
		t.Errorf("findings %q, want %q", fs.Error(), want)
	}
}
