package main

// The rows of `make compare`. To add one: name it as the table should show it, give the
// catalog op and a workload row in ropbench -set form (any row the op's signature accepts,
// not only the manifest's), the dtype, the numpy expression that computes the same output
// (over the op's input and output names, writing through out= so numpy does not allocate
// per call; "" when numpy has no such function), and the C limit the op is bound by:
// limitFMA for compute-bound ops (rates in GFLOP/s from the roofline's FLOPs), limitRead
// for ops that read far more than they write (reductions, gemv), limitCopy for ops that
// write about as much as they read (elementwise, norms, transpose); rates of the last two
// are the roofline's bytes per second, and the C loop reads or copies that many bytes.
var cases = []compareCase{
	{Name: "GEMM 1024³", Op: "GemmFwd", Set: "M=1024,N=1024,K=1024", DType: "float32", Numpy: "np.matmul(a, b, out=c)", Limit: limitFMA},
	{Name: "GEMM 256³", Op: "GemmFwd", Set: "M=256,N=256,K=256", DType: "float32", Numpy: "np.matmul(a, b, out=c)", Limit: limitFMA},
	{Name: "GEMM 2048×512×1024 (m×n×k)", Op: "GemmFwd", Set: "M=2048,N=512,K=1024", DType: "float32", Numpy: "np.matmul(a, b, out=c)", Limit: limitFMA},
	{Name: "bmm 8×128×128×64", Op: "BatchedGemmFwd", Set: "batch=8,M=128,N=128,K=64", DType: "float32", Numpy: "np.matmul(a, b, out=c)", Limit: limitFMA},
	{Name: "linear 256×1024×1024 (x·wᵀ)", Op: "LinearFwd", Set: "M=256,N=1024,K=1024", DType: "float32", Numpy: "np.matmul(x, weight.T, out=y)", Limit: limitFMA},
	{Name: "conv2d 64→64 3×3 28×28", Op: "Conv2dFwd", Set: "N=1,C_in=64,H=28,W=28,C_out=64,KH=3,KW=3,H_out=28,W_out=28,padding=1", DType: "float32", Limit: limitFMA},
	{Name: "gemv 1×4096×4096", Op: "GemmFwd", Set: "M=1,N=4096,K=4096", DType: "float32", Numpy: "np.matmul(a, b, out=c)", Limit: limitRead},
	{Name: "linear decode 1×4096×4096 (x·wᵀ)", Op: "LinearFwd", Set: "M=1,N=4096,K=4096", DType: "float32", Numpy: "np.matmul(x, weight.T, out=y)", Limit: limitRead},
}
