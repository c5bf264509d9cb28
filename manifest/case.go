package manifest

// Case is one workload row resolved to plain Go values for one element of its dtypes: what a
// test or the benchmark layer needs to build the op and its inputs. Cases are produced by
// (*Op).Cases, which evaluates dim expressions of fixed-rank shapes with expr-lang; no
// roofline formula is ever evaluated here (docs/model.md §7.5).
type Case struct {
	Op    string
	Label string // the row's label, or "#<row>" when it has none
	Row   int    // 0-based index of the workload row
	// Dims holds every dim of the op's fixed-rank shapes, by name.
	Dims map[string]int
	// Shapes holds the shape of every present tensor, inputs and outputs with a declared
	// shape, by name. An absent optional input has no entry.
	Shapes map[string][]int
	// Params holds every param, defaults filled in: int, bool, float64, string, []int,
	// or nil for a nullable param left null (*int and *float64 params hold int, float64).
	Params map[string]any
	// DTypes holds the dtype name of every present input and every output.
	DTypes map[string]string
}
