package ops

import (
	"fmt"

	"github.com/ropgen/ropgen/internal/asm/f32"
)

// fp8Block is the block edge of the FP8 GEMM's scales (DeepSeek-V3): a is scaled per 1×128
// tile of K, b per 128×128 tile.
const fp8Block = 128

// fp8DequantRows: from this many rows of a up, Forward dequantizes both operands once and
// runs one GEMM (the dequantization, O((M+N)·K), is small next to the product); below it,
// it runs the GEMM kernel per K block and scales each block's product into c, and below
// gemmSmallM rows (decode), where the product is bound by reading b, it streams b row by
// row (forwardRows).
const fp8DequantRows = 32

// Fp8BlockScaledGemmFwd is DeepGEMM's gemm_fp8_fp8_bf16_nt: c [M, N] = Σ over K blocks kb of
// a_scale[i, kb]·b_scale[j/128, kb]·Σ_{p in kb} a[i, p]·b[j, p], with a [M, K] and b [N, K]
// in float8_e4m3, a_scale [M, K_blocks] and b_scale [N_blocks, K_blocks] in float32, the
// sums in float32 and c in bfloat16. On the CPU every tensor holds float32 values (the
// dtypes are the storage sizes the roofline counts).
type Fp8BlockScaledGemmFwd struct {
	M, N, K, KBlocks, NBlocks int
	DType                     DType // of a and b: float8_e4m3
}

// NewFp8BlockScaledGemmFwd returns the block-scaled product of an m×k by a (transposed)
// n×k matrix over dtype dt (float8_e4m3), with kBlocks = ⌈k/128⌉ and nBlocks = ⌈n/128⌉.
func NewFp8BlockScaledGemmFwd(m, n, k, kBlocks, nBlocks int, dt DType) (*Fp8BlockScaledGemmFwd, error) {
	const name = "Fp8BlockScaledGemmFwd"
	if err := checkDims(name, dimArg{"M", m}, dimArg{"N", n}, dimArg{"K", k}, dimArg{"K_blocks", kBlocks}, dimArg{"N_blocks", nBlocks}); err != nil {
		return nil, err
	}
	if dt != Float8E4M3 {
		return nil, fmt.Errorf("%s: a and b are %v; the op takes float8_e4m3", name, dt)
	}
	if want := (k + fp8Block - 1) / fp8Block; kBlocks != want {
		return nil, fmt.Errorf("%s: K_blocks is %d, want ⌈K/128⌉ = %d", name, kBlocks, want)
	}
	if want := (n + fp8Block - 1) / fp8Block; nBlocks != want {
		return nil, fmt.Errorf("%s: N_blocks is %d, want ⌈N/128⌉ = %d", name, nBlocks, want)
	}
	return &Fp8BlockScaledGemmFwd{M: m, N: n, K: k, KBlocks: kBlocks, NBlocks: nBlocks, DType: dt}, nil
}

// ComputeRoof is cube.fp16, not an fp8 roof: the reference NPU (docs/model.md §4.5) has no FP8 matrix
// unit, so the op is soft-FP8, dequantized and contracted in 16 bits (docs/model.md §3.3).
func (op *Fp8BlockScaledGemmFwd) ComputeRoof() string { return "cube.fp16" }

// Bind checks the four inputs against the op's dims and dtypes and returns c's shape.
func (op *Fp8BlockScaledGemmFwd) Bind(a, b, aScale, bScale *Tensor) ([]int, error) {
	const name = "Fp8BlockScaledGemmFwd"
	for _, c := range []struct {
		arg   string
		t     *Tensor
		dt    DType
		shape []int
	}{
		{"a", a, op.DType, []int{op.M, op.K}},
		{"b", b, op.DType, []int{op.N, op.K}},
		{"a_scale", aScale, Float32, []int{op.M, op.KBlocks}},
		{"b_scale", bScale, Float32, []int{op.NBlocks, op.KBlocks}},
	} {
		if err := checkFixed(name, c.arg, c.t, c.dt, c.shape...); err != nil {
			return nil, err
		}
	}
	return []int{op.M, op.N}, nil
}

// Forward computes c (bfloat16 storage).
func (op *Fp8BlockScaledGemmFwd) Forward(c, a, b, aScale, bScale *Tensor) error {
	const name = "Fp8BlockScaledGemmFwd"
	shape, err := op.Bind(a, b, aScale, bScale)
	if err != nil {
		return err
	}
	if err := checkData(name, []string{"a", "b", "a_scale", "b_scale"}, a, b, aScale, bScale); err != nil {
		return err
	}
	if err := checkOutput(name, c, BFloat16, shape); err != nil {
		return err
	}
	m, n, k, kb := op.M, op.N, op.K, op.KBlocks
	as, bs := aScale.Data, bScale.Data
	buf := gemmBufs.Get().(*packBuf)
	defer gemmBufs.Put(buf)
	if m >= fp8DequantRows {
		// Dequantize both operands (each element times its tile's scale), then one GEMM.
		buf.cols = grow(buf.cols, m*k)
		buf.deq = grow(buf.deq, n*k)
		ad, bd := buf.cols, buf.deq
		parallelFor(m+n, max(1, grainElems/k), func(lo, hi int) {
			for r := lo; r < hi; r++ {
				// Rows 0..m-1 are a's, each with its own scales; rows m.. are b's, whose
				// scales are those of their 128-row block.
				src, dst, i := a.Data, ad, r
				var scale []float32
				if r < m {
					scale = as[i*kb : (i+1)*kb]
				} else {
					src, dst, i = b.Data, bd, r-m
					scale = bs[i/fp8Block*kb : (i/fp8Block+1)*kb]
				}
				row, out := src[i*k:(i+1)*k], dst[i*k:(i+1)*k]
				for p, v := range row {
					out[p] = v * scale[p/fp8Block]
				}
			}
		})
		gemm(m, n, k, rowMajor(ad, k), rowMajor(bd, k).t(), c.Data)
		return nil
	}
	if m < gemmSmallM {
		op.forwardRows(c.Data, a.Data, b.Data, as, bs)
		return nil
	}
	// Some rows: per K block, the block's product on the GEMM kernel, scaled into c.
	buf.deq = grow(buf.deq, m*n)
	part := buf.deq
	clear(c.Data)
	bt := rowMajor(b.Data, k).t()
	for blk := range kb {
		p0 := blk * fp8Block
		w := min(fp8Block, k-p0)
		gemm(m, n, w, rowMajor(a.Data, k).sub(0, p0), bt.sub(p0, 0), part)
		for i := range m {
			sa := as[i*kb+blk]
			ci, pi := c.Data[i*n:(i+1)*n], part[i*n:(i+1)*n]
			for j := range ci {
				ci[j] += pi[j] * (sa * bs[j/fp8Block*kb+blk])
			}
		}
	}
	return nil
}

// forwardRows computes c for a few rows of a, reading b once per row in its own order (row
// after row), four rows of b at a time, on both cores: the decode shape is bound by reading
// b. The rows of a 128-row block of b share their K blocks' scales, so each row of a is
// scaled once per such block (each K block's elements times the product of the block's two
// scales) and a group of four rows of b is then one dot product over all of K: one kernel
// call where a call per K block spent more on calls than on the dot products' 128 terms.
func (op *Fp8BlockScaledGemmFwd) forwardRows(c, a, b, as, bs []float32) {
	m, n, k, kb := op.M, op.N, op.K, op.KBlocks
	groups := (n + 3) / 4
	nb := (n + fp8Block - 1) / fp8Block
	xs := make([]float32, nb*k) // a's row scaled for each 128-row block of b
	for i := range m {
		x, ci, sa := a[i*k:(i+1)*k], c[i*n:(i+1)*n], as[i*kb:(i+1)*kb]
		parallelFor(nb, max(1, grainElems/k), func(lo, hi int) {
			for jb := lo; jb < hi; jb++ {
				for blk := range kb {
					p0, p1 := blk*fp8Block, min((blk+1)*fp8Block, k)
					s := sa[blk] * bs[jb*kb+blk]
					for p, v := range x[p0:p1] {
						xs[jb*k+p0+p] = v * s
					}
				}
			}
		})
		parallelFor(groups, max(1, grainElems/(4*k)), func(lo, hi int) {
			for g := lo; g < hi; g++ {
				j0, rows := 4*g, min(4, n-4*g)
				xj := xs[j0/fp8Block*k : (j0/fp8Block+1)*k] // 4 divides 128: one block for the group
				if rows == 4 && f32.DotRows(xj, b[j0*k:], k, ci[j0:j0+4]) == 4 {
					continue
				}
				for r := range rows {
					w := b[(j0+r)*k : (j0+r+1)*k]
					var s float32
					for p, v := range xj {
						s += v * w[p]
					}
					ci[j0+r] = s
				}
			}
		})
	}
}

// reference is the definition in float64: per K block the block's sum, times both scales.
func (op *Fp8BlockScaledGemmFwd) reference(c, a, b, aScale, bScale *Tensor) {
	m, n, k, kb := op.M, op.N, op.K, op.KBlocks
	for i := range m {
		for j := range n {
			var s float64
			for blk := range kb {
				var block float64
				for p := blk * fp8Block; p < min((blk+1)*fp8Block, k); p++ {
					block += float64(a.Data[i*k+p]) * float64(b.Data[j*k+p])
				}
				s += block * float64(aScale.Data[i*kb+blk]) * float64(bScale.Data[j/fp8Block*kb+blk])
			}
			c.Data[i*n+j] = float32(s)
		}
	}
}
