package ops

import "sync"

// The GEMM kernel every matrix op in the catalog runs on (gemm, batched gemm, linear,
// conv2d through im2col, attention): c = a·b with a m×k, b k×n, c m×n row-major.
//
// It is the tiling of ../shared/reference/roofline-lesson.py made into a cache hierarchy
// (the Goto/BLIS loop nest): a kc×nc block of b is packed once and reused by every row of
// a; an mc×kc block of a is packed once and reused by every column panel of that b block;
// the innermost micro-kernel keeps a gemmMR×gemmNR tile of c in registers while it walks
// kc steps of k. Packing makes both operands contiguous in the order the micro-kernel reads
// them, whatever their layout (a strided view also serves a transposed matrix).
//
// Every element of c is summed in the reference's order, p = 0, 1, ..., k-1, starting from
// zero: the k blocks are walked in order and each continues the running sum left in c by
// the previous one. Without fused multiply-adds (amd64 before GOAMD64=v3) the kernel
// therefore matches gemmRef bit for bit; elsewhere the compiler may fuse differently in
// the two, and gemmTol bounds the difference.
const (
	gemmMR = 2    // micro-tile rows: 2×4 accumulators, 4 b values and an a value fit the 15 usable float registers of amd64
	gemmNR = 4    // micro-tile columns
	gemmKC = 256  // k block: an a panel (2 KiB) and a b panel (4 KiB) stay in L1 across a micro-kernel call
	gemmMC = 128  // m block: a packed a block (128 KiB) stays in L2 across the column panels
	gemmNC = 1024 // n block: a packed b block (1 MiB) stays in L2/L3 across the row blocks

	// gemmSmallM: below this many rows, packing b would move more bytes than the product
	// needs (each b element is used fewer than gemmSmallM times), so the kernel streams b
	// directly: the decode shapes (m = 1..3) are matrix-vector products bound by reading b.
	gemmSmallM = 4

	// gemmGrainFlops is the least work handed to one goroutine: about 100 µs at the
	// kernel's rate, a hundred times the cost of starting and joining a goroutine.
	gemmGrainFlops = 1 << 18
)

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
	// Split the larger side of c among the workers, in whole micro-tiles, so each worker
	// packs only its own share of the larger operand. The few-row products split columns.
	if n >= m || m < gemmSmallM {
		panels := (n + gemmNR - 1) / gemmNR
		grain := max(1, gemmGrainFlops/(2*m*max(k, 1)*gemmNR))
		parallelFor(panels, grain, func(lo, hi int) {
			j0, j1 := lo*gemmNR, min(hi*gemmNR, n)
			gemmSerial(m, j1-j0, k, a, b.sub(0, j0), c[j0:], n)
		})
		return
	}
	panels := (m + gemmMR - 1) / gemmMR
	grain := max(1, gemmGrainFlops/(2*n*max(k, 1)*gemmMR))
	parallelFor(panels, grain, func(lo, hi int) {
		i0, i1 := lo*gemmMR, min(hi*gemmMR, m)
		gemmSerial(i1-i0, n, k, a.sub(i0, 0), b, c[i0*n:], n)
	})
}

// gemmSerial computes c = a·b on the calling goroutine: c[i*ldc+j] for i < m, j < n. Ops
// that parallelize over independent products themselves (attention's heads) call it.
func gemmSerial(m, n, k int, a, b mat, c []float32, ldc int) {
	switch {
	case k == 0:
		for i := range m {
			clear(c[i*ldc : i*ldc+n])
		}
	case m < gemmSmallM:
		gemmSmall(m, n, k, a, b, c, ldc)
	default:
		gemmPacked(m, n, k, a, b, c, ldc)
	}
}

// gemmSmall computes c = a·b for a few rows without packing: c[i*ldc+j] for i < m, j < n.
// Each element is one running sum over p in order, as in the reference.
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
			for p, s := range x {
				br := b.data[p*b.rs : p*b.rs+n]
				out := row[:len(br)] // same length: lets the compiler drop the bounds check
				for j, v := range br {
					out[j] += s * v
				}
			}
		case b.rs == 1:
			// b is a transposed row-major matrix (linear's weight): column j of b is
			// contiguous, so each output is a dot product; four at a time give four
			// independent running sums.
			col := func(j int) []float32 { return b.data[j*b.cs:][:len(x)] }
			j := 0
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

// packBuf is a reusable packing buffer; gemmBufs keeps them between calls so a kernel in a
// timing loop does not allocate and zero a megabyte per call.
type packBuf struct{ a, b []float32 }

var gemmBufs = sync.Pool{New: func() any { return new(packBuf) }}

// grow returns s with length n, reusing its storage when large enough.
func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// gemmPacked computes c = a·b by blocks on packed operands, serially: c[i*ldc+j] for
// i < m, j < n.
func gemmPacked(m, n, k int, a, b mat, c []float32, ldc int) {
	buf := gemmBufs.Get().(*packBuf)
	defer gemmBufs.Put(buf)
	kcMax := min(gemmKC, k)
	buf.a = grow(buf.a, kcMax*roundUp(min(gemmMC, m), gemmMR))
	buf.b = grow(buf.b, kcMax*roundUp(min(gemmNC, n), gemmNR))
	var tile [gemmMR * gemmNR]float32
	for jc := 0; jc < n; jc += gemmNC {
		nc := min(gemmNC, n-jc)
		for pc := 0; pc < k; pc += gemmKC {
			kc := min(gemmKC, k-pc)
			packB(kc, nc, b.sub(pc, jc), buf.b)
			for ic := 0; ic < m; ic += gemmMC {
				mc := min(gemmMC, m-ic)
				packA(mc, kc, a.sub(ic, pc), buf.a)
				for jr := 0; jr < nc; jr += gemmNR {
					nr := min(gemmNR, nc-jr)
					bp := buf.b[jr*kc : (jr+gemmNR)*kc]
					for ir := 0; ir < mc; ir += gemmMR {
						mr := min(gemmMR, mc-ir)
						ap := buf.a[ir*kc : (ir+gemmMR)*kc]
						ct := c[(ic+ir)*ldc+jc+jr:]
						loadTile(&tile, ct, ldc, mr, nr, pc > 0)
						microKernel(kc, ap, bp, &tile)
						storeTile(&tile, ct, ldc, mr, nr)
					}
				}
			}
		}
	}
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// packA copies a's mc×kc block into panels of gemmMR rows: panel r holds, for each p, the
// gemmMR values a[r*gemmMR+ii, p], rows past mc zero.
func packA(mc, kc int, a mat, dst []float32) {
	for ir := 0; ir < mc; ir += gemmMR {
		panel := dst[ir*kc : (ir+gemmMR)*kc]
		for ii := range gemmMR {
			if ir+ii >= mc {
				for p := range kc {
					panel[p*gemmMR+ii] = 0
				}
				continue
			}
			row := a.sub(ir+ii, 0)
			for p := range kc {
				panel[p*gemmMR+ii] = row.data[p*row.cs]
			}
		}
	}
}

// packB copies b's kc×nc block into panels of gemmNR columns: panel r holds, for each p,
// the gemmNR values b[p, r*gemmNR+jj], columns past nc zero.
func packB(kc, nc int, b mat, dst []float32) {
	for jr := 0; jr < nc; jr += gemmNR {
		panel := dst[jr*kc : (jr+gemmNR)*kc]
		nr := min(gemmNR, nc-jr)
		for p := range kc {
			src := b.sub(p, jr)
			out := panel[p*gemmNR : p*gemmNR+gemmNR]
			for jj := range nr {
				out[jj] = src.data[jj*src.cs]
			}
			clear(out[nr:])
		}
	}
}

// loadTile fills the micro-tile with c's mr×nr corner when c already holds a running sum
// (k blocks after the first), with zeros otherwise.
func loadTile(t *[gemmMR * gemmNR]float32, c []float32, ldc, mr, nr int, running bool) {
	*t = [gemmMR * gemmNR]float32{}
	if !running {
		return
	}
	for i := range mr {
		copy(t[i*gemmNR:i*gemmNR+nr], c[i*ldc:i*ldc+nr])
	}
}

// storeTile writes the micro-tile's valid mr×nr corner to c.
func storeTile(t *[gemmMR * gemmNR]float32, c []float32, ldc, mr, nr int) {
	for i := range mr {
		copy(c[i*ldc:i*ldc+nr], t[i*gemmNR:i*gemmNR+nr])
	}
}

// microKernel adds the product of a packed a panel (kc×gemmMR) and b panel (kc×gemmNR) to
// the tile, one p at a time. The tile lives in eight locals, which the compiler keeps in
// registers; slicing both panels to their exact length lets it drop the bounds checks.
func microKernel(kc int, a, b []float32, t *[gemmMR * gemmNR]float32) {
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
