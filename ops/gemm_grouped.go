package ops

import "fmt"

// GroupedGemmFwd is torch._grouped_mm as an MoE layer uses it: the routed tokens a [M, K],
// sorted by expert, times their expert's weight b[g] [K, N]; group g is the GroupSizes[g]
// rows starting after the groups before it, and c [M, N] holds every group's product.
type GroupedGemmFwd struct {
	M, K, N, G int
	GroupSizes []int
	DType      DType
}

// NewGroupedGemmFwd returns the grouped product of m rows (split into groups of sizes, one
// per weight) by g weights of k×n over dtype dt. A group may be empty; the sizes must add
// up to m.
func NewGroupedGemmFwd(m, k, n, g int, sizes []int, dt DType) (*GroupedGemmFwd, error) {
	const name = "GroupedGemmFwd"
	if err := checkDims(name, dimArg{"M", m}, dimArg{"K", k}, dimArg{"N", n}, dimArg{"G", g}); err != nil {
		return nil, err
	}
	if err := checkCube(name, dt); err != nil {
		return nil, err
	}
	if len(sizes) != g {
		return nil, fmt.Errorf("%s: group_sizes has %d entries, want G = %d", name, len(sizes), g)
	}
	total := 0
	for i, s := range sizes {
		if s < 0 {
			return nil, fmt.Errorf("%s: group_sizes[%d] is %d; sizes must not be negative", name, i, s)
		}
		total += s
	}
	if total != m {
		return nil, fmt.Errorf("%s: group_sizes add up to %d, want M = %d", name, total, m)
	}
	return &GroupedGemmFwd{M: m, K: k, N: n, G: g, GroupSizes: append([]int(nil), sizes...), DType: dt}, nil
}

// ComputeRoof is the matrix unit at the op's dtype (docs/model.md §3.2).
func (op *GroupedGemmFwd) ComputeRoof() string { return cubeRoof(op.DType) }

// Bind checks a and b against the op's dims and dtype and returns c's shape.
func (op *GroupedGemmFwd) Bind(a, b *Tensor) ([]int, error) {
	if err := checkFixed("GroupedGemmFwd", "a", a, op.DType, op.M, op.K); err != nil {
		return nil, err
	}
	if err := checkFixed("GroupedGemmFwd", "b", b, op.DType, op.G, op.K, op.N); err != nil {
		return nil, err
	}
	return []int{op.M, op.N}, nil
}

// Forward computes each group's product with the GEMM kernel, one group after another,
// each on both cores.
func (op *GroupedGemmFwd) Forward(c, a, b *Tensor) error {
	shape, err := op.Bind(a, b)
	if err != nil {
		return err
	}
	if err := checkData("GroupedGemmFwd", []string{"a", "b"}, a, b); err != nil {
		return err
	}
	if err := checkOutput("GroupedGemmFwd", c, op.DType, shape); err != nil {
		return err
	}
	op.each(c, a, b, gemm)
	return nil
}

func (op *GroupedGemmFwd) reference(c, a, b *Tensor) { op.each(c, a, b, gemmRef) }

// each runs f on every non-empty group: its rows of a and c, its weight.
func (op *GroupedGemmFwd) each(c, a, b *Tensor, f func(m, n, k int, a, b mat, c []float32)) {
	row, sb := 0, op.K*op.N
	for g, rows := range op.GroupSizes {
		if rows > 0 {
			f(rows, op.N, op.K, rowMajor(a.Data[row*op.K:(row+rows)*op.K], op.K),
				rowMajor(b.Data[g*sb:(g+1)*sb], op.N), c.Data[row*op.N:(row+rows)*op.N])
		}
		row += rows
	}
}
