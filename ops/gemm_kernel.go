package ops

import (
	"runtime"
	"sync"

	"github.com/ropgen/ropgen/internal/asm/f32"
)

// The GEMM kernel every matrix op in the catalog runs on (gemm, batched gemm, linear,
// conv2d through im2col, attention): c = a·b with a m×k, b k×n, c m×n row-major.
//
// It is the Goto/BLIS loop nest: a kc×nc block of b is packed once and reused by every row
// of a; an mc×kc block of a is packed once and reused by every column panel of that b
// block; the innermost micro-kernel keeps an mr×nr tile of c in registers while it walks kc
// steps of k. Packing makes both operands contiguous in the order the micro-kernel reads
// them, whatever their layout (a strided view also serves a transposed matrix). The block
// sizes come from the CPU's reported cache sizes (gemmBlocking): the kc×nr micro-panel of b
// fills two thirds of L1, the mc×kc block of a half of L2, the kc×nc block of b a core's
// share of half of L3.
//
// The micro-kernel is chosen at run time from the CPU's features (f32.GemmTiles) through the
// SIMD level (simd.go): AVX-512F 12×32, AVX2+FMA 6×16, else the pure-Go 2×4 kernel (the
// fallback, and what ran before the vector kernels). Every element of c is summed in the
// reference's order, p = 0, 1, ..., k-1, starting from zero: the k blocks are walked in order and each continues the running
// sum left in c by the previous one. The vector kernels fuse each step's multiply and add
// (one rounding instead of two); gemmTol bounds the difference from gemmRef, and the tests
// bound every kernel against a float64 reference (gemmErrorBound).
const (
	gemmMR = 2 // the pure-Go micro-tile: 2×4 accumulators, 4 b values and an a value fit the 15 usable float registers of amd64
	gemmNR = 4

	// gemmSmallM: below this many rows, packing b would move more bytes than the product
	// needs (each b element is used fewer than gemmSmallM times), so the kernel streams b
	// directly: the decode shapes (m = 1..3) are matrix-vector products bound by reading b.
	gemmSmallM = 4

	// gemmGrainFlops is the least work handed to one goroutine of attention's split over
	// (head, query block) pairs: at the scalar kernel's rate, far more than a goroutine's
	// start and join.
	gemmGrainFlops = 1 << 18

	// gemmParFlops is the least work of the packed kernel worth a second core: at the
	// vector kernels' rate, about ten times the cost of starting and joining a goroutine.
	gemmParFlops = 1 << 20
)

// microKernel is one register-blocked GEMM micro-kernel and the blocking it runs under.
type microKernel struct {
	name   string
	mr, nr int
	// tile computes the mr×nr tile of c at c[0] (ldc between rows) from packed panels a
	// (kc·mr values) and b (kc·nr), continuing the running sum in c when load, from zero
	// otherwise. The whole tile must lie in c.
	tile func(kc int, a, b, c []float32, ldc int, load bool)
	// tileRows, nil where the kernel has none, is tile with a's mr rows read in place, lda
	// apart (f32.GemmTile.TileRows).
	tileRows func(kc int, a []float32, lda int, b, c []float32, ldc int, load bool)
	// Block sizes (gemmBlocking): kc steps of k, mc rows of a, nc columns of b.
	kc, mc, nc int
}

// gemmGo is the pure-Go micro-kernel, the fallback on CPUs without the vector units of
// internal/asm/f32/gemm_amd64.s. Its blocking is the fixed one it was tuned with.
var gemmGo = &microKernel{name: "go", mr: gemmMR, nr: gemmNR, tile: goTile, kc: 256, mc: 128, nc: 1024}

// gemmKernels are the micro-kernels by SIMD level (simd.go): the pure-Go one at SIMDGo,
// the vector ones of this CPU (f32.GemmTiles) above it, each with the blocking of this
// CPU's caches. Every matrix op runs the kernel of the level in use (gemmActive), so
// ROPGEN_SIMD and SetSIMD (ropbench ab's simd knob) choose the GEMM kernel as they choose
// the other SIMD kernels.
var gemmKernels = func() map[int]*microKernel {
	ks := map[int]*microKernel{SIMDGo: gemmGo}
	tiles := f32.GemmTiles()
	if len(tiles) == 0 {
		return ks
	}
	l1, l2, l3 := f32.CacheSizes()
	for level, t := range tiles {
		kc, mc, nc := gemmBlocking(t.MR, t.NR, l1, l2, l3, runtime.NumCPU())
		ks[level] = &microKernel{name: t.Name, mr: t.MR, nr: t.NR, tile: t.Tile, tileRows: t.TileRows, kc: kc, mc: mc, nc: nc}
	}
	return ks
}()

// gemmActive returns the kernel of the SIMD level in use: the highest level at or below it
// that has one.
func gemmActive() *microKernel {
	for level := simdLevel(); level >= SIMDGo; level-- {
		if k, ok := gemmKernels[level]; ok {
			return k
		}
	}
	return gemmGo
}

// GemmKernel returns the name of the GEMM micro-kernel the matrix ops run now: "go",
// "avx2" (6×16) or "avx512" (12×32).
func GemmKernel() string { return gemmActive().name }

// gemmBlocking returns the block sizes of an mr×nr micro-kernel on caches of l1, l2 and
// l3 bytes shared by cores cores: the kc×nr micro-panel of b, which every micro-tile of a
// column panel reuses, fills two thirds of L1 (the a micro-panel and the c tile stream
// through the rest; two thirds beat half of L1: docs/history.md, "GEMM blocking"); the
// mc×kc block of a, which every column panel reuses, half of L2; the kc×nc block of b a
// core's share of half of L3.
func gemmBlocking(mr, nr, l1, l2, l3, cores int) (kc, mc, nc int) {
	kc = min(max(l1*2/3/(4*nr), 64), 512) &^ 7
	mc = min(max(l2/2/(4*kc), mr), 4096) / mr * mr
	nc = min(max(l3/2/max(cores, 1)/(4*kc), nr), 8192) / nr * nr
	return kc, mc, nc
}

// mat is a strided read-only view of a float32 matrix: element (i, j) is at
// data[i*rs + j*cs]. A row-major r×c matrix is {data, c, 1}; its transpose is {data, 1, c}.
type mat struct {
	data   []float32
	rs, cs int
}

// rowMajor views data as a row-major matrix with cols columns.
func rowMajor(data []float32, cols int) mat { return mat{data, cols, 1} }

// t returns the transposed view.
func (a mat) t() mat { return mat{a.data, a.cs, a.rs} }

// at returns element (i, j).
func (a mat) at(i, j int) float32 { return a.data[i*a.rs+j*a.cs] }

// sub returns the view whose (0, 0) is a's (i, j).
func (a mat) sub(i, j int) mat { return mat{a.data[i*a.rs+j*a.cs:], a.rs, a.cs} }

// gemmRef is the plain reference: c = a·b, one running sum per element over p in order.
// c is row-major m×n and is overwritten.
func gemmRef(m, n, k int, a, b mat, c []float32) {
	for i := range m {
		for j := range n {
			var acc float32
			for p := range k {
				acc += a.at(i, p) * b.at(p, j)
			}
			c[i*n+j] = acc
		}
	}
}

// gemm computes c = a·b on both cores when the product is large enough: c is row-major m×n
// and is overwritten; a is m×k and b is k×n.
func gemm(m, n, k int, a, b mat, c []float32) {
	kern := gemmActive()
	if m < gemmSmallM || k == 0 {
		// A few rows: split the columns (f32.GemvRows and f32.DotRows stream b once).
		grain := max(32, gemmParFlops/(2*m*max(k, 1)))
		parallelFor(n, grain, func(j0, j1 int) {
			gemmSerialWith(kern, m, j1-j0, k, a, b.sub(0, j0), c[j0:], n)
		})
		return
	}
	// Split the larger side of c among the workers, in whole micro-tiles, so each worker
	// packs only its own share of the larger operand.
	if n >= m {
		panels := (n + kern.nr - 1) / kern.nr
		grain := max(1, gemmParFlops/(2*m*k*kern.nr))
		parallelFor(panels, grain, func(lo, hi int) {
			j0, j1 := lo*kern.nr, min(hi*kern.nr, n)
			gemmPacked(kern, m, j1-j0, k, a, b.sub(0, j0), c[j0:], n)
		})
		return
	}
	panels := (m + kern.mr - 1) / kern.mr
	grain := max(1, gemmParFlops/(2*n*k*kern.mr))
	parallelFor(panels, grain, func(lo, hi int) {
		i0, i1 := lo*kern.mr, min(hi*kern.mr, m)
		gemmPacked(kern, i1-i0, n, k, a.sub(i0, 0), b, c[i0*n:], n)
	})
}

// gemmSerial computes c = a·b on the calling goroutine: c[i*ldc+j] for i < m, j < n. Ops
// that parallelize over independent products themselves (attention's heads) call it.
func gemmSerial(m, n, k int, a, b mat, c []float32, ldc int) {
	gemmSerialWith(gemmActive(), m, n, k, a, b, c, ldc)
}

func gemmSerialWith(kern *microKernel, m, n, k int, a, b mat, c []float32, ldc int) {
	switch {
	case k == 0:
		for i := range m {
			clear(c[i*ldc : i*ldc+n])
		}
	case m < gemmSmallM:
		gemmSmall(m, n, k, a, b, c, ldc)
	default:
		gemmPacked(kern, m, n, k, a, b, c, ldc)
	}
}

// gemmSmall computes c = a·b for a few rows without packing: c[i*ldc+j] for i < m, j < n.
// At SIMD levels with vector units their kernels stream b (f32.GemvRows, f32.DotRows).
func gemmSmall(m, n, k int, a, b mat, c []float32, ldc int) {
	var xbuf []float32
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		// The row of a, contiguous (a copy only for a strided view).
		x := a.data[i*a.rs:]
		if a.cs == 1 {
			x = x[:k]
		} else {
			xbuf = grow(xbuf, k)
			for p := range k {
				xbuf[p] = a.at(i, p)
			}
			x = xbuf
		}
		switch {
		case b.cs == 1:
			// b's rows are contiguous: add x[p]·b[p,:] to the row of c for p in order.
			clear(row)
			j0 := f32.GemvRows(x, b.data, b.rs, row)
			for p, s := range x {
				br := b.data[p*b.rs+j0 : p*b.rs+n]
				out := row[j0 : j0+len(br)] // same length: lets the compiler drop the bounds check
				for j, v := range br {
					out[j] += s * v
				}
			}
		case b.rs == 1:
			// b is a transposed row-major matrix (linear's weight): column j of b is
			// contiguous, so each output is a dot product; four at a time give four
			// independent running sums.
			col := func(j int) []float32 { return b.data[j*b.cs:][:len(x)] }
			j := f32.DotRows(x, b.data, b.cs, row)
			for ; j+4 <= n; j += 4 {
				w0, w1, w2, w3 := col(j), col(j+1), col(j+2), col(j+3)
				var s0, s1, s2, s3 float32
				for p, v := range x {
					s0 += v * w0[p]
					s1 += v * w1[p]
					s2 += v * w2[p]
					s3 += v * w3[p]
				}
				row[j], row[j+1], row[j+2], row[j+3] = s0, s1, s2, s3
			}
			for ; j < n; j++ {
				w := col(j)
				var s float32
				for p, v := range x {
					s += v * w[p]
				}
				row[j] = s
			}
		default:
			for j := range row {
				var s float32
				for p, v := range x {
					s += v * b.at(p, j)
				}
				row[j] = s
			}
		}
	}
}

// packBuf is a reusable packing buffer (and conv2d's im2col matrix, the FP8 GEMM's
// dequantized operands); gemmBufs keeps them between calls so a kernel in a timing loop does not allocate and zero a megabyte per call.
type packBuf struct{ a, b, tile, cols, deq []float32 }

var gemmBufs = sync.Pool{New: func() any { return new(packBuf) }}

// grow returns s with length n, reusing its storage when large enough.
func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// evenBlock returns the block size that splits n into the fewest blocks of at most max,
// all about equal and rounded up to a multiple of q: k = 600 with max 512 gives two
// blocks of 304 rather than 512 and 88.
func evenBlock(n, max, q int) int {
	blocks := (n + max - 1) / max
	return min(roundUp((n+blocks-1)/blocks, q), max)
}

// gemmPacked computes c = a·b by blocks on packed operands with kern, serially:
// c[i*ldc+j] for i < m, j < n.
func gemmPacked(kern *microKernel, m, n, k int, a, b mat, c []float32, ldc int) {
	mr, nr := kern.mr, kern.nr
	kcB := evenBlock(k, kern.kc, 8)
	mcB := evenBlock(m, kern.mc, mr)
	ncB := evenBlock(n, kern.nc, nr)
	buf := gemmBufs.Get().(*packBuf)
	defer gemmBufs.Put(buf)
	buf.a = grow(buf.a, kcB*roundUp(min(mcB, m), mr))
	buf.b = grow(buf.b, kcB*roundUp(min(ncB, n), nr))
	buf.tile = grow(buf.tile, mr*nr)
	for jc := 0; jc < n; jc += ncB {
		nc := min(ncB, n-jc)
		for pc := 0; pc < k; pc += kcB {
			kc := min(kcB, k-pc)
			packB(kc, nc, nr, b.sub(pc, jc), buf.b)
			for ic := 0; ic < m; ic += mcB {
				mc := min(mcB, m-ic)
				packA(mc, kc, mr, a.sub(ic, pc), buf.a)
				for jr := 0; jr < nc; jr += nr {
					bp := buf.b[jr*kc : (jr+nr)*kc]
					for ir := 0; ir < mc; ir += mr {
						ap := buf.a[ir*kc : (ir+mr)*kc]
						ct := c[(ic+ir)*ldc+jc+jr:]
						if ir+mr <= mc && jr+nr <= nc {
							kern.tile(kc, ap, bp, ct, ldc, pc > 0)
							continue
						}
						// An edge tile: computed whole in the buffer, its valid corner copied.
						rows, cols := min(mr, mc-ir), min(nr, nc-jr)
						if pc > 0 {
							for i := range rows {
								copy(buf.tile[i*nr:i*nr+cols], ct[i*ldc:i*ldc+cols])
							}
						}
						kern.tile(kc, ap, bp, buf.tile, nr, pc > 0)
						for i := range rows {
							copy(ct[i*ldc:i*ldc+cols], buf.tile[i*nr:i*nr+cols])
						}
					}
				}
			}
		}
	}
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// packA copies a's mc×kc block into panels of mr rows: panel r holds, for each p, the mr
// values a[r*mr+ii, p], rows past mc zero.
func packA(mc, kc, mr int, a mat, dst []float32) {
	for ir := 0; ir < mc; ir += mr {
		panel := dst[ir*kc : (ir+mr)*kc]
		if ir+mr <= mc && a.cs == 1 && f32.PackA(kc, mr, a.sub(ir, 0).data, a.rs, panel) {
			continue
		}
		for ii := range mr {
			if ir+ii >= mc {
				for p := range kc {
					panel[p*mr+ii] = 0
				}
				continue
			}
			row := a.sub(ir+ii, 0)
			if row.cs == 1 {
				src := row.data[:kc]
				for p, v := range src {
					panel[p*mr+ii] = v
				}
				continue
			}
			for p := range kc {
				panel[p*mr+ii] = row.data[p*row.cs]
			}
		}
	}
}

// packB copies b's kc×nc block into panels of nr columns: panel r holds, for each p, the
// nr values b[p, r*nr+jj], columns past nc zero.
func packB(kc, nc, nr int, b mat, dst []float32) {
	for jr := 0; jr < nc; jr += nr {
		panel := dst[jr*kc : (jr+nr)*kc]
		w := min(nr, nc-jr)
		if w == nr && b.cs == 1 && f32.PackB(kc, nr, b.sub(0, jr).data, b.rs, panel) {
			continue
		}
		if b.rs == 1 {
			// Columns contiguous (linear's weight, a transposed row-major matrix): each
			// column is one sequential read, scattered to its lane of the panel.
			for jj := range w {
				col := b.data[(jr+jj)*b.cs : (jr+jj)*b.cs+kc]
				for p, v := range col {
					panel[p*nr+jj] = v
				}
			}
			for p := range kc {
				clear(panel[p*nr+w : p*nr+nr])
			}
			continue
		}
		for p := range kc {
			src := b.sub(p, jr)
			out := panel[p*nr : p*nr+nr]
			if src.cs == 1 {
				copy(out, src.data[:w])
			} else {
				for jj := range w {
					out[jj] = src.data[jj*src.cs]
				}
			}
			clear(out[w:])
		}
	}
}

// goTile is the pure-Go micro-kernel's tile function (gemmMR×gemmNR).
func goTile(kc int, a, b, c []float32, ldc int, load bool) {
	var t [gemmMR * gemmNR]float32
	if load {
		for i := range gemmMR {
			copy(t[i*gemmNR:i*gemmNR+gemmNR], c[i*ldc:i*ldc+gemmNR])
		}
	}
	goMicroKernel(kc, a, b, &t)
	for i := range gemmMR {
		copy(c[i*ldc:i*ldc+gemmNR], t[i*gemmNR:i*gemmNR+gemmNR])
	}
}

// goMicroKernel adds the product of a packed a panel (kc×gemmMR) and b panel (kc×gemmNR)
// to the tile, one p at a time. The tile lives in eight locals, which the compiler keeps in
// registers; slicing both panels to their exact length lets it drop the bounds checks.
func goMicroKernel(kc int, a, b []float32, t *[gemmMR * gemmNR]float32) {
	c00, c01, c02, c03 := t[0], t[1], t[2], t[3]
	c10, c11, c12, c13 := t[4], t[5], t[6], t[7]
	a = a[:kc*gemmMR]
	b = b[:kc*gemmNR]
	for len(a) >= gemmMR && len(b) >= gemmNR {
		b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
		a0 := a[0]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		a1 := a[1]
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		a = a[gemmMR:]
		b = b[gemmNR:]
	}
	t[0], t[1], t[2], t[3] = c00, c01, c02, c03
	t[4], t[5], t[6], t[7] = c10, c11, c12, c13
}
