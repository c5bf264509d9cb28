package ops

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/ropgen/ropgen/internal/asm/f32"
)

// Layout ops: copy, transpose, concatenation and constant padding. They move data and
// compute nothing (0 FLOPs), so each kernel's job is to reach a plain copy's bandwidth:
// contiguous runs go through the built-in copy, and the work is split over both cores by
// output position, so the split balances whatever the shape.

// CopyFwd is torch.clone: y = x, densely. It is the bandwidth baseline of the catalog: its
// kernel is a two-core copy, so its x-copy ratio measures the benchmark, not a kernel.
type CopyFwd struct {
	DType  DType
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewCopyFwd returns a copy over dtype dt.
func NewCopyFwd(dt DType) (*CopyFwd, error) {
	if err := checkDType("CopyFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &CopyFwd{DType: dt}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *CopyFwd) Bind(x *Tensor) ([]int, error) {
	return bindUnary("CopyFwd", op.DType, &op.XShape, x)
}

// Forward computes out = x. A large output is streamed (ntCopy): the built-in copy streams
// too from 1 MiB on, but with a PREFETCHNTA ahead of each step, which keeps the lines out
// of L2 and stalls the hardware prefetcher, so it falls well short of a plain streaming copy.
func (op *CopyFwd) Forward(out, x *Tensor) error {
	return unaryForward(op, "CopyFwd", out, x, streamed(x, ntCopy, func(y, x []float32) { copy(y, x) }))
}

func (op *CopyFwd) reference(out, x *Tensor) {
	//lint:ignore S1001 the reference is an element loop, independent of the kernel's copy
	for i, v := range x.Data {
		out.Data[i] = v
	}
}

// TransposeFwd is torch.transpose(x, dim0, dim1).contiguous(): y is x with dims dim0 and
// dim1 swapped, written densely.
type TransposeFwd struct {
	DType  DType
	Dim0   int
	Dim1   int
	XShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewTransposeFwd returns a transpose of dims dim0 and dim1 (negative counts from the end)
// over dtype dt. The dims are checked against the input's rank by Bind; equal dims make a
// copy, as in torch.
func NewTransposeFwd(dim0, dim1 int, dt DType) (*TransposeFwd, error) {
	if err := checkDType("TransposeFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &TransposeFwd{DType: dt, Dim0: dim0, Dim1: dim1}, nil
}

// axes returns the two dims normalized for rank ndim, smaller first.
func (op *TransposeFwd) axes(ndim int) (a, b int, err error) {
	if a, err = normAxis("TransposeFwd", op.Dim0, ndim); err != nil {
		return 0, 0, err
	}
	if b, err = normAxis("TransposeFwd", op.Dim1, ndim); err != nil {
		return 0, 0, err
	}
	return min(a, b), max(a, b), nil
}

// Bind checks x and the dims, records x's shape for EvalRoofline and returns the output
// shape.
func (op *TransposeFwd) Bind(x *Tensor) ([]int, error) {
	if err := checkInput("TransposeFwd", "x", x, op.DType); err != nil {
		return nil, err
	}
	a, b, err := op.axes(len(x.Shape))
	if err != nil {
		return nil, err
	}
	bindShape(&op.XShape, x.Shape)
	shape := slices.Clone(x.Shape)
	shape[a], shape[b] = shape[b], shape[a]
	return shape, nil
}

// transposeView is x seen as [pre, A, mid, B, post] around the two swapped dims (a < b);
// y is [pre, B, mid, A, post].
type transposeView struct{ pre, a, mid, b, post int }

func newTransposeView(shape []int, a, b int) transposeView {
	return transposeView{pre: shapeNumel(shape[:a]), a: shape[a], mid: shapeNumel(shape[a+1 : b]),
		b: shape[b], post: shapeNumel(shape[b+1:])}
}

// The transpose's blocking, in positions of the (A, B) plane (a position is a run of post
// elements). Strided access, not arithmetic, limits a transpose: with 4 KiB pages (and the
// two-level page walks of a virtual machine) a TLB miss costs more than the line it maps. An
// outer block of trBlock x trBlock positions touches at most trBlock pages of x and of y,
// which the L2 TLB holds while the block is moved, so each page is walked about once per
// block instead of once per tile. Inside, inner tiles of trTileI x trTileJ: trTileI rows of
// x (8: the L1's ways at a power-of-two stride, where all rows share a set) and runs of
// trTileJ elements per row (4 lines), each line of x read whole; the y rows a tile writes
// in part are completed by the next tile down, while they are still in cache. Positions of
// 16 elements or more are whole lines already: a tile then spans the block's width.
const (
	trBlock = 512
	trTileI = 8
	trTileJ = 64
)

// run writes y = x transposed. A unit of work is a column of outer blocks (bj positions of
// B, all of A) of one (pre, mid) pair, walked block by block down A, so that a worker keeps
// writing the same y rows; when there are too few columns to keep every core busy, columns
// are cut into chunks of blocks along A.
func (v transposeView) run(y, x []float32) {
	bi, bj := min(trBlock, v.a), min(trBlock, v.b)
	tj := max(1, trTileJ/v.post)
	if v.post >= 16 {
		tj = bj
	}
	blocksI, cols := (v.a+bi-1)/bi, v.pre*v.mid*((v.b+bj-1)/bj)
	chunks := min(blocksI, (2*runtime.GOMAXPROCS(0)+cols-1)/cols) // chunks of each column
	perChunk := (blocksI + chunks - 1) / chunks * bi              // positions of A per chunk
	chunks = (v.a + perChunk - 1) / perChunk
	// Position (i, j) of plane (p, m) is at x[xb + i*xs + j*post], y[yb + j*ys + i*post].
	xs, ys := v.mid*v.b*v.post, v.mid*v.a*v.post
	stream := streams(len(y))
	parallelFor(cols*chunks, max(1, grainElems/(perChunk*bj*v.post)), func(lo, hi int) {
		if stream {
			defer f32.Fence()
		}
		for u := lo; u < hi; u++ {
			col, chunk := u/chunks, u%chunks
			pm, J0 := col/((v.b+bj-1)/bj), col%((v.b+bj-1)/bj)*bj
			p, m := pm/v.mid, pm%v.mid
			xb, yb := (p*v.a*v.mid+m)*v.b*v.post, (p*v.b*v.mid+m)*v.a*v.post
			J1 := min(J0+bj, v.b)
			for I0 := chunk * perChunk; I0 < min((chunk+1)*perChunk, v.a); I0 += bi {
				I1 := min(I0+bi, v.a)
				if v.post == 1 && f32.Transpose(y[yb:], x[xb:], ys, xs, I0, I1, J0, J1, stream, transposeTile) {
					continue
				}
				for j0 := J0; j0 < J1; j0 += tj {
					j1 := min(j0+tj, J1)
					for i0 := I0; i0 < I1; i0 += trTileI {
						i1 := min(i0+trTileI, I1)
						if v.post == 1 {
							transposeTile(y[yb:], x[xb:], ys, xs, i0, i1, j0, j1)
						} else {
							transposeRuns(y[yb:], x[xb:], ys, xs, v.post, i0, i1, j0, j1)
						}
					}
				}
			}
		}
	})
}

// transposeTile moves positions [i0, i1) x [j0, j1) of single elements: y[j*ys + i] =
// x[i*xs + j]. It is kept out of line: inlined into run's closure, whose captured state
// crowds the registers, the loop spills its indices to the stack.
//
//go:noinline
func transposeTile(y, x []float32, ys, xs, i0, i1, j0, j1 int) {
	for j := j0; j < j1; j++ {
		row := y[j*ys+i0 : j*ys+i1]
		for i := range row {
			row[i] = x[(i0+i)*xs+j]
		}
	}
}

// transposeRuns moves positions [i0, i1) x [j0, j1) of post contiguous elements each.
func transposeRuns(y, x []float32, ys, xs, post, i0, i1, j0, j1 int) {
	for j := j0; j < j1; j++ {
		for i := i0; i < i1; i++ {
			copy(y[j*ys+i*post:j*ys+(i+1)*post], x[i*xs+j*post:i*xs+(j+1)*post])
		}
	}
}

// Forward computes out = transpose(x, dim0, dim1), densely.
func (op *TransposeFwd) Forward(out, x *Tensor) error {
	shape, err := op.Bind(x)
	if err != nil {
		return err
	}
	if err := x.checkData("TransposeFwd", "x"); err != nil {
		return err
	}
	if err := checkOutput("TransposeFwd", out, op.DType, shape); err != nil {
		return err
	}
	a, b, _ := op.axes(len(x.Shape)) // validated by Bind
	if a == b {                      // swapping a dim with itself is a copy
		parallelFor(len(x.Data), grainElems, func(lo, hi int) { copy(out.Data[lo:hi], x.Data[lo:hi]) })
		return nil
	}
	newTransposeView(x.Shape, a, b).run(out.Data, x.Data)
	return nil
}

// reference walks x in row-major order with an odometer and writes each element at its
// swapped coordinates, computed from scratch with y's strides.
func (op *TransposeFwd) reference(out, x *Tensor) {
	a, b, _ := op.axes(len(x.Shape))
	stride := rowMajorStrides(out.Shape)
	stride[a], stride[b] = stride[b], stride[a] // x's dim a lands on y's dim b, and back
	eachIndex(x.Shape, func(i int, idx []int) {
		o := 0
		for d, k := range idx {
			o += k * stride[d]
		}
		out.Data[o] = x.Data[i]
	})
}

// rowMajorStrides returns the element strides of a dense row-major tensor of shape.
func rowMajorStrides(shape []int) []int {
	stride := make([]int, len(shape))
	s := 1
	for d := len(shape) - 1; d >= 0; d-- {
		stride[d] = s
		s *= shape[d]
	}
	return stride
}

// eachIndex calls f with every flat index of a dense tensor of shape, in row-major order,
// and its coordinates (reused between calls: f must not keep idx).
func eachIndex(shape []int, f func(i int, idx []int)) {
	n := shapeNumel(shape)
	idx := make([]int, len(shape))
	for i := range n {
		f(i, idx)
		for d := len(shape) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}

// ConcatFwd is torch.cat([a, b], dim): a and b joined along dim; their other dims agree.
type ConcatFwd struct {
	DType  DType
	Dim    int
	AShape []int
	BShape []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewConcatFwd returns a concatenation along dim (negative counts from the end) over dtype
// dt. The dim is checked against the inputs' rank by Bind.
func NewConcatFwd(dim int, dt DType) (*ConcatFwd, error) {
	if err := checkDType("ConcatFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	return &ConcatFwd{DType: dt, Dim: dim}, nil
}

// Bind checks a and b against each other and the dim, records their shapes for
// EvalRoofline and returns the output shape.
func (op *ConcatFwd) Bind(a, b *Tensor) ([]int, error) {
	if err := checkInput("ConcatFwd", "a", a, op.DType); err != nil {
		return nil, err
	}
	if err := checkInput("ConcatFwd", "b", b, op.DType); err != nil {
		return nil, err
	}
	if len(a.Shape) != len(b.Shape) {
		return nil, fmt.Errorf("ConcatFwd: a %v and b %v differ in rank", a, b)
	}
	axis, err := normAxis("ConcatFwd", op.Dim, len(a.Shape))
	if err != nil {
		return nil, err
	}
	for d := range a.Shape {
		if d != axis && a.Shape[d] != b.Shape[d] {
			return nil, fmt.Errorf("ConcatFwd: a %v and b %v differ in dim %d, which is not the concatenated dim %d", a, b, d, axis)
		}
	}
	bindShape(&op.AShape, a.Shape)
	bindShape(&op.BShape, b.Shape)
	shape := slices.Clone(a.Shape)
	shape[axis] += b.Shape[axis]
	return shape, nil
}

// Forward computes out = cat([a, b], dim). Each row of the output (one index of the dims
// before dim) is a's row followed by b's; the output is split between the cores by
// position, and each range copies the runs of a and b it covers.
func (op *ConcatFwd) Forward(out, a, b *Tensor) error {
	shape, err := op.Bind(a, b)
	if err != nil {
		return err
	}
	if err := checkAll("ConcatFwd", Arg{"a", a}, Arg{"b", b}); err != nil {
		return err
	}
	if err := checkOutput("ConcatFwd", out, op.DType, shape); err != nil {
		return err
	}
	axis, _ := normAxis("ConcatFwd", op.Dim, len(a.Shape)) // validated by Bind
	inner := shapeNumel(a.Shape[axis+1:])
	ca, cb := a.Shape[axis]*inner, b.Shape[axis]*inner // elements of a and of b per row
	row := ca + cb
	parallelFor(len(out.Data), grainElems, func(lo, hi int) {
		for pos := lo; pos < hi; {
			r, c := pos/row, pos%row
			var n int
			if c < ca {
				n = copy(out.Data[pos:hi], a.Data[r*ca+c:(r+1)*ca])
			} else {
				n = copy(out.Data[pos:hi], b.Data[r*cb+c-ca:(r+1)*cb])
			}
			pos += n
		}
	})
	return nil
}

// reference writes each element of a and of b at its own coordinates in y, b's shifted by
// a's size along the dim.
func (op *ConcatFwd) reference(out, a, b *Tensor) {
	axis, _ := normAxis("ConcatFwd", op.Dim, len(a.Shape))
	stride := rowMajorStrides(out.Shape)
	for _, in := range []struct {
		t     *Tensor
		shift int
	}{{a, 0}, {b, a.Shape[axis]}} {
		eachIndex(in.t.Shape, func(i int, idx []int) {
			o := in.shift * stride[axis]
			for d, k := range idx {
				o += k * stride[d]
			}
			out.Data[o] = in.t.Data[i]
		})
	}
}

// PadFwd is torch.nn.functional.pad(x, (pad_left, pad_right), value=value): the last dim
// of x grows by pad_left elements before and pad_right after, filled with value.
type PadFwd struct {
	DType    DType
	PadLeft  int
	PadRight int
	Value    float64
	XShape   []int

	roofline rooflineCache // EvalRoofline's cache, keyed by the bound shapes (generated)
}

// NewPadFwd returns a constant pad of the last dim over dtype dt. Negative pads (torch's
// cropping) are refused: cropping is a slice, not a pad.
func NewPadFwd(padLeft, padRight int, value float64, dt DType) (*PadFwd, error) {
	if err := checkDType("PadFwd", dt, floatDTypes...); err != nil {
		return nil, err
	}
	if padLeft < 0 || padRight < 0 {
		return nil, fmt.Errorf("PadFwd: pads (%d, %d) must be non-negative", padLeft, padRight)
	}
	return &PadFwd{DType: dt, PadLeft: padLeft, PadRight: padRight, Value: value}, nil
}

// Bind checks x, records its shape for EvalRoofline and returns the output shape.
func (op *PadFwd) Bind(x *Tensor) ([]int, error) {
	if err := checkInput("PadFwd", "x", x, op.DType); err != nil {
		return nil, err
	}
	if len(x.Shape) == 0 {
		return nil, fmt.Errorf("PadFwd: input x %v is a scalar; it has no last dim to pad", x)
	}
	bindShape(&op.XShape, x.Shape)
	shape := slices.Clone(x.Shape)
	shape[len(shape)-1] += op.PadLeft + op.PadRight
	return shape, nil
}

// Forward computes out = pad(x). Rows (the last dim) are split between the cores; each
// output row is the left fill, x's row, the right fill.
func (op *PadFwd) Forward(out, x *Tensor) error {
	shape, err := op.Bind(x)
	if err != nil {
		return err
	}
	if err := x.checkData("PadFwd", "x"); err != nil {
		return err
	}
	if err := checkOutput("PadFwd", out, op.DType, shape); err != nil {
		return err
	}
	n, l := x.Shape[len(x.Shape)-1], op.PadLeft
	w, v := shape[len(shape)-1], float32(op.Value)
	parallelFor(len(x.Data)/n, max(1, grainElems/w), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row := out.Data[r*w : (r+1)*w]
			for i := range row[:l] {
				row[i] = v
			}
			copy(row[l:l+n], x.Data[r*n:(r+1)*n])
			for i := l + n; i < w; i++ {
				row[i] = v
			}
		}
	})
	return nil
}

// reference decides every output element on its own: inside the copied span it reads x,
// outside it is the value.
func (op *PadFwd) reference(out, x *Tensor) {
	n := x.Shape[len(x.Shape)-1]
	w := n + op.PadLeft + op.PadRight
	for o := range out.Data {
		r, c := o/w, o%w-op.PadLeft
		if c >= 0 && c < n {
			out.Data[o] = x.Data[r*n+c]
		} else {
			out.Data[o] = float32(op.Value)
		}
	}
}
