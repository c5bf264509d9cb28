package ops

import "fmt"

// cubeRoofs maps every dtype a matrix unit contracts natively to the device-profile key of
// that unit's ceiling (docs/model.md §3; "cube" is the matrix unit: the 910B1's Cube, a GPU's
// Tensor Cores; on a CPU the unit an optimal contraction of the dtype would use there, which
// the host profile names: AMX tiles, else AVX512-BF16/FP16, else the fp32 FMA pipes, where
// the report prices a cube.bf16 or cube.fp16 row the profile has no key for). A float32 contraction is priced on cube.fp32, not on a
// GPU's tf32 roof: tf32 rounds the inputs to 10 mantissa bits, which a float32 op does not
// ask for, so a profile without cube.fp32 leaves such rows blank rather than guessing.
//
// There is no fp8 entry. The reference NPU (Ascend 910B1, docs/model.md §4.5) has no FP8 cube: an fp8
// tensor there is a storage format that a kernel dequantizes and contracts in 16 bits.
// Quoting a cube.fp8 ceiling would price the op against a unit the hardware does not have.
var cubeRoofs = map[DType]string{
	Float16:  "cube.fp16",
	BFloat16: "cube.bf16",
	Float32:  "cube.fp32",
}

// checkCube reports an error unless contractions in dtype dt have a cube roof. Constructors
// of matrix ops call it: this is where an fp8 request is refused, with an error the caller
// can act on, so that ComputeRoof, which returns a bare string, never meets such a dtype.
// An op with a soft-FP8 path (fp8 storage dequantized to a 16-bit compute dtype) checks its
// compute dtype here instead, and says so where it returns its roof.
func checkCube(op string, dt DType) error {
	if _, ok := cubeRoofs[dt]; !ok {
		return fmt.Errorf("%s: dtype %v has no matrix-unit roof (matrix ops take float16, bfloat16 or float32; fp8 is a storage format: dequantize it to 16 bits first)", op, dt)
	}
	return nil
}

// cubeRoof returns the roof key of contractions in dtype dt, for a matrix op's ComputeRoof.
// It panics on a dtype checkCube refuses: every constructor has checked its dtype, so
// reaching it means an op value built around its constructor, and returning a key for a
// unit that does not exist would mis-price every row silently.
func cubeRoof(dt DType) string {
	key, ok := cubeRoofs[dt]
	if !ok {
		panic(fmt.Sprintf("ops: cubeRoof(%v): no cube roof for this dtype; the op's constructor must refuse it", dt))
	}
	return key
}
