//go:build amd64

package calibrate

import (
	"math"
	"unsafe"

	"github.com/klauspost/cpuid/v2"

	"github.com/ropgen/ropgen/perf/instrument"
)

// The low-precision and matrix units (units_amd64.s). klauspost/cpuid reports the AVX-512
// extensions only when the OS saves the zmm state (XGETBV), as for the FMA kernels; it does
// not check the AMX tile state, so amxStatus reads XCR0 itself and then asks Linux for the
// tile data permission.

//go:noescape
func dpbf16AVX512(iters int, out *float32)

//go:noescape
func fmaphAVX512(iters int, out *uint16)

//go:noescape
func dpbusdAVX512(iters int, out *int32)

//go:noescape
func tdpbf16AMX(iters int, cfg, a, out *byte)

//go:noescape
func tdpbssdAMX(iters int, cfg, a, out *byte)

func xgetbv0() (eax, edx uint32)

var (
	hasAVX512BF16 = instrument.HasAVX512 && cpuid.CPU.Supports(cpuid.AVX512BF16)
	hasAVX512FP16 = instrument.HasAVX512 && cpuid.CPU.Supports(cpuid.AVX512FP16, cpuid.AVX512BW)
	hasAVX512VNNI = instrument.HasAVX512 && cpuid.CPU.Supports(cpuid.AVX512VNNI)
)

// xcr0Tiles are the XCR0 bits of the AMX state: tile configuration (17) and tile data (18).
const xcr0Tiles = 1<<17 | 1<<18

// amxStatus says whether the AMX kernels may run here (bf16 and int8 tiles reported by CPUID,
// their state enabled by the OS in XCR0, and, on Linux, the tile data permission granted),
// and why not when they may not.
func amxStatus() (ok bool, why string) {
	if !cpuid.CPU.Supports(cpuid.AMXTILE, cpuid.AMXBF16, cpuid.AMXINT8) {
		return false, "this CPU exposes no AMX bf16 and int8 tiles (CPUID)"
	}
	if !cpuid.CPU.Supports(cpuid.OSXSAVE) {
		return false, "the OS does not enable XSAVE, so no tile state"
	}
	if eax, _ := xgetbv0(); eax&xcr0Tiles != xcr0Tiles {
		return false, "the OS does not enable the AMX tile state (XCR0 bits 17 and 18)"
	}
	return requestTileData()
}

var amxOK, amxWhy = amxStatus()

// unitKernels are the kernels of the units beyond the fp32/fp64 FMA pipes that this host has.
// lanes counts multiply-adds per instruction (bf16 pairs, fp16 lanes, int8 products, a
// tile's products), so 2 x lanes x accs is the FLOPs (int8: operations) of an iteration.
// Each run returns its accumulators' sum scaled so that it is iters x lanes x accs x 2^-20,
// the check TestFMAKernelsDoTheirIterations makes of every SIMD kernel.
func unitKernels() []fmaKernel {
	var ks []fmaKernel
	if hasAVX512BF16 {
		ks = append(ks, fmaKernel{name: "avx512bf16", dtype: "bf16", lanes: 32, accs: instrument.FMAAccs, unit: "vector",
			how: "VDPBF16PS zmm: 32 bf16 products summed in pairs into 16 fp32 lanes, a multiply and an add each",
			run: func(iters int) float64 {
				var out [instrument.FMAAccs * 16]float32
				dpbf16AVX512(iters, &out[0])
				return instrument.Sum32(out[:]) // each lane gains 2 x 2^-20 an iteration, 16 lanes for 32
			}})
	}
	if hasAVX512FP16 {
		ks = append(ks, fmaKernel{name: "avx512fp16", dtype: "fp16", lanes: 32, accs: instrument.FMAAccs, unit: "vector",
			how: "VFMADD231PH zmm: 32 fp16 lanes",
			run: func(iters int) float64 {
				var out [instrument.FMAAccs * 32]uint16
				fmaphAVX512(iters, &out[0])
				s := 0.0
				for _, h := range out {
					s += fp16(h)
				}
				return s * 0x1p-20 // each lane gains 1 an iteration
			}})
	}
	if hasAVX512VNNI {
		ks = append(ks, fmaKernel{name: "avx512vnni", dtype: "int8", lanes: 64, accs: instrument.FMAAccs, unit: "vector",
			how: "VPDPBUSD zmm: 64 u8 x s8 products summed in fours into 16 int32 lanes, a multiply and an add each",
			run: func(iters int) float64 {
				var out [instrument.FMAAccs * 16]int32
				dpbusdAVX512(iters, &out[0])
				s := 0.0
				for _, v := range out {
					s += float64(v)
				}
				return s * 0x1p-20 // each lane gains 4 an iteration, 16 lanes for 64
			}})
	}
	if amxOK {
		// NOT EXECUTED where the CPU (or a virtual machine) exposes no AMX: their encodings
		// are checked against GNU as (TestUnitEncodings), their arithmetic only where a CPU
		// runs them (TestFMAKernelsDoTheirIterations).
		// One 16x64-byte tile is 16x32 bf16 or 16x64 int8; a tile multiply does 16x16 dot
		// products of 32 bf16 pairs (8192 multiply-adds) or of 64 int8 (16384).
		ks = append(ks,
			fmaKernel{name: "amx", dtype: "bf16", lanes: 16 * 16 * 32, accs: amxAccs, unit: "cube", tileCycles: amxTileCycles,
				how: "TDPBF16PS: 16x16 fp32 += 16x32 bf16 x 32x16 bf16 a tile multiply",
				run: func(iters int) float64 { return amxRun(tdpbf16AMX, iters, 0x3a80, amxSumF32) }},
			fmaKernel{name: "amx", dtype: "int8", lanes: 16 * 16 * 64, accs: amxAccs, unit: "cube", tileCycles: amxTileCycles,
				how: "TDPBSSD: 16x16 int32 += 16x64 s8 x 64x16 s8 a tile multiply",
				run: func(iters int) float64 { return amxRun(tdpbssdAMX, iters, 0x0101, amxSumI32) }})
	}
	return ks
}

// amxAccs is the number of accumulator tiles of the AMX kernels (tmm0-tmm3).
const amxAccs = 4

// amxTileCycles is the issue interval of one tile multiply assumed for the theoretical
// value: Intel's published AMX peak for Sapphire Rapids is 1024 bf16 and 2048 int8
// operations a cycle a core, one TDPBF16PS (16384 FLOPs) or TDPBSSD (32768) per 16 cycles.
const amxTileCycles = 16

// amxRun runs a tile kernel on inputs of 16-bit word w (bf16 2^-10, or int8 1s) and returns
// the sum of its four accumulator tiles as sum reads them, scaled like the other kernels.
func amxRun(kernel func(int, *byte, *byte, *byte), iters int, w uint16, sum func([]byte) float64) float64 {
	var cfg [64]byte
	cfg[0] = 1 // palette 1
	for t := range 8 {
		cfg[16+2*t] = 64 // bytes a row
		cfg[48+t] = 16   // rows
	}
	a := make([]byte, 1024)
	for i := 0; i < len(a); i += 2 {
		a[i], a[i+1] = byte(w), byte(w>>8)
	}
	out := make([]byte, amxAccs*1024)
	kernel(iters, &cfg[0], &a[0], &out[0])
	return sum(out)
}

// amxSumF32: each fp32 element gains 32 x 2^-20 a tile multiply; amxSumI32: each int32
// element 64. Both scale to iters x lanes x accs x 2^-20 over the 4 x 256 elements.
func amxSumF32(out []byte) float64 {
	f := unsafe.Slice((*float32)(unsafe.Pointer(&out[0])), len(out)/4)
	return instrument.Sum32(f)
}

func amxSumI32(out []byte) float64 {
	v := unsafe.Slice((*int32)(unsafe.Pointer(&out[0])), len(out)/4)
	s := 0.0
	for _, x := range v {
		s += float64(x)
	}
	return s * 0x1p-20
}

// fp16 is the value of an IEEE half-precision number (normal, subnormal or zero; the kernel
// makes no others).
func fp16(h uint16) float64 {
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	v := math.Ldexp(m, -24) // subnormal
	if e > 0 {
		v = math.Ldexp(1024+m, e-25)
	}
	if h&0x8000 != 0 {
		return -v
	}
	return v
}
