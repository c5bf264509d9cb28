//go:build !amd64 || purego

package f32

// The few-row and packing kernels only amd64 has in assembly (gemm_amd64.s): elsewhere they
// do nothing and the caller's Go loops (ops' gemmSmall, packA and packB) do that work
// (arm64's micro-kernel is in gemm_dispatch_arm64.go, the other architectures' in
// gemm_dispatch_novec.go).

func GemvRows(x, b []float32, rs int, c []float32) int { return 0 }

func DotRows(x, b []float32, cs int, c []float32) int { return 0 }

func PackA(kc, mr int, a []float32, rs int, panel []float32) bool { return false }

func PackB(kc, nr int, b []float32, rs int, panel []float32) bool { return false }
