package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// fillChunk is the number of elements drawn from one random stream. Each chunk seeds its own
// stream from (seed, chunk index), so the data depends on the seed alone, never on how many
// workers filled the tensor.
const fillChunk = 1 << 16

// FillUniform fills t with values drawn uniformly from [lo, hi), deterministically: the same
// seed gives the same data on every machine.
func FillUniform(t *Tensor, seed uint64, lo, hi float32) error {
	if err := t.checkData("FillUniform", "tensor"); err != nil {
		return err
	}
	if !(lo < hi) {
		return fmt.Errorf("FillUniform: empty range [%v, %v)", lo, hi)
	}
	fillChunks(t.Data, seed, func(r *rand.Rand) float32 {
		v := lo + (hi-lo)*r.Float32()
		return min(v, math.Nextafter32(hi, lo)) // rounding may land on hi itself
	})
	return nil
}

// FillInts fills t with integers drawn uniformly from [0, n), stored exactly as float32
// values, deterministically from seed. Index inputs (embedding ids) use it.
func FillInts(t *Tensor, seed uint64, n int) error {
	if err := t.checkData("FillInts", "tensor"); err != nil {
		return err
	}
	if n < 1 || n > 1<<24 {
		return fmt.Errorf("FillInts: n = %d; want 1 <= n <= 2^24 (float32 holds integers exactly up to 2^24)", n)
	}
	fillChunks(t.Data, seed, func(r *rand.Rand) float32 { return float32(r.IntN(n)) })
	return nil
}

func fillChunks(data []float32, seed uint64, draw func(*rand.Rand) float32) {
	chunks := (len(data) + fillChunk - 1) / fillChunk
	parallelFor(chunks, 4, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			r := rand.New(rand.NewPCG(seed, uint64(c)))
			for i := c * fillChunk; i < min(len(data), (c+1)*fillChunk); i++ {
				data[i] = draw(r)
			}
		}
	})
}

// Tol is how far a kernel's output may be from its reference, elementwise:
// |got - want| <= Abs + Rel*|want|. The zero Tol demands equality. NaN matches only NaN, an
// infinity only the same infinity.
type Tol struct{ Abs, Rel float64 }

// Compare returns nil when got matches want within tol; otherwise an error giving the number
// of mismatching elements and the first one, by multi-index.
func Compare(got, want *Tensor, tol Tol) error {
	if err := got.checkData("Compare", "got"); err != nil {
		return err
	}
	if err := want.checkData("Compare", "want"); err != nil {
		return err
	}
	if !slices.Equal(got.Shape, want.Shape) {
		return fmt.Errorf("shape %v, want %v", got.Shape, want.Shape)
	}
	bad, first := 0, -1
	for i, g := range got.Data {
		w := want.Data[i]
		gn, wn := g != g, w != w
		// An infinity matches only itself: |g - w| is NaN for equal infinities, and a
		// relative tolerance of an infinity would accept any finite g.
		ok := gn == wn && (gn || g == w || !math.IsInf(float64(w), 0) && math.Abs(float64(g)-float64(w)) <= tol.Abs+tol.Rel*math.Abs(float64(w)))
		if !ok {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	if bad == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d elements differ beyond %+v; first at %v: got %v, want %v",
		bad, len(got.Data), tol, unravel(first, got.Shape), got.Data[first], want.Data[first])
}

// unravel turns a flat row-major index into a multi-index.
func unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = i % shape[d]
		i /= shape[d]
	}
	return idx
}

// checkDType reports an error unless dt is one of allowed: constructors call it.
func checkDType(op string, dt DType, allowed ...DType) error {
	if slices.Contains(allowed, dt) {
		return nil
	}
	return fmt.Errorf("%s: dtype %v not supported (supported: %v)", op, dt, allowed)
}

// floatDTypes are the dtypes of the vector ops: the CPU computes in float32 for all of them.
var floatDTypes = []DType{Float32, Float16, BFloat16}

// checkInput reports an error unless x is present with dtype dt: Bind methods call it.
func checkInput(op, name string, x *Tensor, dt DType) error {
	if x == nil {
		return fmt.Errorf("%s: input %s is nil", op, name)
	}
	if x.DType != dt {
		return fmt.Errorf("%s: input %s is %v, the op was built for %v", op, name, x, dt)
	}
	return nil
}

// checkOutput reports an error unless out is a data tensor of dtype dt and shape shape:
// Forward methods call it on the tensor they write.
func checkOutput(op string, out *Tensor, dt DType, shape []int) error {
	if err := out.checkData(op, "output"); err != nil {
		return err
	}
	if out.DType != dt || !slices.Equal(out.Shape, shape) {
		return fmt.Errorf("%s: output is %v, want %v%v", op, out, dt, shape)
	}
	return nil
}

// normAxis validates axis for a tensor of rank ndim and returns it in [0, ndim); negative
// axes count from the end, as in torch.
func normAxis(op string, axis, ndim int) (int, error) {
	if axis < -ndim || axis >= ndim {
		return 0, fmt.Errorf("%s: dim %d out of range for a tensor of rank %d (valid: %d..%d)", op, axis, ndim, -ndim, ndim-1)
	}
	if axis < 0 {
		axis += ndim
	}
	return axis, nil
}

// normAxes normalizes a list of axes (see normAxis), rejects duplicates and an empty list,
// and returns the axes sorted.
func normAxes(op string, axes []int, ndim int) ([]int, error) {
	if len(axes) == 0 {
		return nil, fmt.Errorf("%s: dim is empty; name at least one axis", op)
	}
	out := make([]int, len(axes))
	for i, a := range axes {
		n, err := normAxis(op, a, ndim)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out[:i], n) {
			return nil, fmt.Errorf("%s: dim %v names axis %d twice", op, axes, n)
		}
		out[i] = n
	}
	slices.Sort(out)
	return out, nil
}

// bindShape records shape in *field for the generated EvalRoofline, copying only when it
// changed, so that a Forward in a timing loop neither allocates nor aliases the caller's
// slice. A bound shape is never nil: nil means unbound to the generated code, and a rank-0
// input binds the empty shape.
func bindShape(field *[]int, shape []int) {
	if *field == nil || !slices.Equal(*field, shape) {
		*field = append(make([]int, 0, len(shape)), shape...)
	}
}
