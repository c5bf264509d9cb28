//go:build (amd64 || arm64) && !purego

package f32

// The Go side the vector kernels of amd64 and arm64 share; other architectures have no
// kernels (dispatch_novec.go) and need none of it.

// blocks runs kern over the full vectors of m elements (width l) and returns how many
// elements that is. kern(i, n) does elements [i, n) and returns how many it did; each time
// it stops early, the next vector is computed with f, element by element, and kern resumes.
func blocks(m, l int, kern func(i, n int) int, f func(i int)) int {
	n := m &^ (l - 1)
	for i := 0; i < n; {
		i += kern(i, n)
		if i < n {
			for j := i; j < i+l; j++ {
				f(j)
			}
			i += l
		}
	}
	return n
}

// arithMode is Arith's broadcast mode: 1 when a is a single element broadcast over y, 2
// when b is, 0 when both are as long as y.
func arithMode(y, a, b []float32) int {
	switch {
	case len(a) == 1 && len(y) > 1:
		return 1
	case len(b) == 1 && len(y) > 1:
		return 2
	}
	return 0
}

// b2i is 1 for true and 0 for false: the flag arguments of the assembly kernels.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// expSumBlocks is ExpSum's walk over x on a kernel of l lanes: kern(out, xs, i, store)
// does the full vectors of xs = x[i:...], writing exp(x - m) into out when store != 0 (out
// is then y's span, else x's, which the kernel never writes), and returns how many elements
// it did and their sum; a vector it stops at is done with exp (the Go element function) (after alongside(i) for each
// of its elements, where alongside is not nil: the other work of a fused kernel), and the
// kernel resumes.
func expSumBlocks(y, x []float32, m float32, l int, kern func(out, xs []float32, i, store int) (int, float64), alongside func(i int), exp func(float32) float32) (int, float64) {
	store, out := 1, y
	if y == nil {
		store, out = 0, x
	}
	out = out[:len(x)]
	var s float64
	n := blocks(len(x), l, func(i, n int) int {
		k, p := kern(out[i:n], x[i:n], i, store)
		s += p
		return k
	}, func(i int) {
		if alongside != nil {
			alongside(i)
		}
		e := exp(x[i] - m)
		if store != 0 {
			y[i] = e
		}
		s += float64(e)
	})
	return n, s
}
