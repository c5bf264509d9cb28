package f32

// The entry points of the vector kernels, the same on every architecture: each does the full
// vectors of its input at the SIMD level in use (internal/simd) and returns how many
// elements it did; the caller's Go loop does the rest, and the same Go loop over everything
// where no level is available (another architecture, the purego build, simd.Go). They are
// in dispatch_amd64.go (AVX2 and AVX-512, the generated kernels of simd_amd64.s),
// dispatch_arm64.go (NEON, simd_arm64.s), dispatch_vec.go (the walk both share) and
// dispatch_novec.go and dispatch_other.go (nothing, where there is no kernel). An entry
// point whose kernel may stop at a vector (a lane outside its fast range) takes the Go
// element function that finishes that vector, so the op's definition stays its caller's.

// The one-input kernels without parameters, by index, for Unary and UnaryNT.
const (
	UnaryExp = iota
	UnarySigmoid
	UnarySilu
	UnaryTanh
	UnaryGelu
	UnaryGeluErf
	UnarySoftplus
	UnaryMish
	UnaryHardswish
	UnaryRelu
	NUnary
)

// The operators of Arith, by index.
const (
	ArithAdd = iota
	ArithSub
	ArithMul
	ArithDiv
)
