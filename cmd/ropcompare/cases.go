package main

// The rows of `make compare`. To add one: name it as the table should show it, give the
// catalog op and a workload row in ropbench -set form (any row the op's signature accepts,
// not only the manifest's), the dtype, the numpy expression that computes the same output
// (over the op's input and output names, writing through out= so numpy does not allocate
// per call; "" when numpy has no such function), and the C limit the op is bound by:
// limitFMA for compute-bound ops (rates in GFLOP/s from the roofline's FLOPs), limitRead
// for ops that read far more than they write (reductions, gemv), limitCopy for ops that
// write about as much as they read (elementwise, norms, transpose) and for those reading
// two inputs (add: the C loop of y = a + b moves fewer bytes a second than the copy, see
// copy_loop in compare/limits.c); rates of the last two are the roofline's bytes per
// second, and the C loop reads or copies that many bytes.
var cases = []compareCase{
	{Name: "GEMM 1024³", Op: "GemmFwd", Set: "M=1024,N=1024,K=1024", DType: "float32", Numpy: "np.matmul(a, b, out=c)", Limit: limitFMA},
	{Name: "GEMM 256³", Op: "GemmFwd", Set: "M=256,N=256,K=256", DType: "float32", Numpy: "np.matmul(a, b, out=c)", Limit: limitFMA},
	{Name: "GEMM 2048×512×1024 (m×n×k)", Op: "GemmFwd", Set: "M=2048,N=512,K=1024", DType: "float32", Numpy: "np.matmul(a, b, out=c)", Limit: limitFMA},
	{Name: "bmm 8×128×128×64", Op: "BatchedGemmFwd", Set: "batch=8,M=128,N=128,K=64", DType: "float32", Numpy: "np.matmul(a, b, out=c)", Limit: limitFMA},
	{Name: "linear 256×1024×1024 (x·wᵀ)", Op: "LinearFwd", Set: "M=256,N=1024,K=1024", DType: "float32", Numpy: "np.matmul(x, weight.T, out=y)", Limit: limitFMA},
	{Name: "conv2d 64→64 3×3 28×28", Op: "Conv2dFwd", Set: "N=1,C_in=64,H=28,W=28,C_out=64,KH=3,KW=3,H_out=28,W_out=28,padding=1", DType: "float32", Limit: limitFMA},
	{Name: "gemv 1×4096×4096", Op: "GemmFwd", Set: "M=1,N=4096,K=4096", DType: "float32", Numpy: "np.matmul(a, b, out=c)", Limit: limitRead},
	{Name: "linear decode 1×4096×4096 (x·wᵀ)", Op: "LinearFwd", Set: "M=1,N=4096,K=4096", DType: "float32", Numpy: "np.matmul(x, weight.T, out=y)", Limit: limitRead},
	// The memory-bound families (simd) on their cpu-large rows, 4096×4096 float32: the chart's
	// rows first. numpy's multi-step forms (sigmoid, silu) are what numpy code writes.
	{Name: "copy 4096²", Op: "CopyFwd", Set: "x_shape=[4096,4096]", DType: "float32", Numpy: "np.copyto(y, x)", Limit: limitCopy},
	{Name: "relu 4096²", Op: "ReluFwd", Set: "x_shape=[4096,4096]", DType: "float32", Numpy: "np.maximum(x, 0, out=y)", Limit: limitCopy},
	{Name: "silu 4096²", Op: "SiluFwd", Set: "x_shape=[4096,4096]", DType: "float32", Numpy: "(np.negative(x, out=y), np.exp(y, out=y), np.add(y, 1, out=y), np.divide(x, y, out=y))", Limit: limitCopy},
	{Name: "add 4096²", Op: "AddFwd", Set: "a_shape=[4096,4096],b_shape=[4096,4096]", DType: "float32", Numpy: "np.add(a, b, out=y)", Limit: limitCopy},
	{Name: "softmax 4096²", Op: "SoftmaxFwd", Set: "x_shape=[4096,4096],dim=-1", DType: "float32", Numpy: "", Limit: limitCopy},
	{Name: "rms_norm 4096²", Op: "RMSNormFwd", Set: "x_shape=[4096,4096],weight_shape=[4096],normalized_shape=[4096],eps=1.0e-5", DType: "float32", Numpy: "", Limit: limitCopy},
	{Name: "sum 4096²", Op: "SumFwd", Set: "x_shape=[4096,4096],dim=[-1]", DType: "float32", Numpy: "np.sum(x, axis=-1, out=y)", Limit: limitRead},
	{Name: "transpose 4096²", Op: "TransposeFwd", Set: "x_shape=[4096,4096],dim0=0,dim1=1", DType: "float32", Numpy: "np.copyto(y, x.T)", Limit: limitCopy},
	{Name: "exp 4096²", Op: "ExpFwd", Set: "x_shape=[4096,4096]", DType: "float32", Numpy: "np.exp(x, out=y)", Limit: limitCopy},
	{Name: "sigmoid 4096²", Op: "SigmoidFwd", Set: "x_shape=[4096,4096]", DType: "float32", Numpy: "(np.negative(x, out=y), np.exp(y, out=y), np.add(y, 1, out=y), np.reciprocal(y, out=y))", Limit: limitCopy},
	{Name: "tanh 4096²", Op: "TanhFwd", Set: "x_shape=[4096,4096]", DType: "float32", Numpy: "np.tanh(x, out=y)", Limit: limitCopy},
	{Name: "gelu (tanh) 4096²", Op: "GeluFwd", Set: "x_shape=[4096,4096]", DType: "float32", Numpy: "", Limit: limitCopy},
	{Name: "gelu (erf) 4096²", Op: "GeluErfFwd", Set: "x_shape=[4096,4096]", DType: "float32", Numpy: "", Limit: limitCopy},
	{Name: "softplus 4096²", Op: "SoftplusFwd", Set: "x_shape=[4096,4096]", DType: "float32", Numpy: "np.logaddexp(x, 0, out=y)", Limit: limitCopy},
	{Name: "mish 4096²", Op: "MishFwd", Set: "x_shape=[4096,4096]", DType: "float32", Numpy: "", Limit: limitCopy},
	{Name: "elu 4096²", Op: "EluFwd", Set: "x_shape=[4096,4096]", DType: "float32", Numpy: "", Limit: limitCopy},
	{Name: "log_softmax 4096²", Op: "LogSoftmaxFwd", Set: "x_shape=[4096,4096],dim=-1", DType: "float32", Numpy: "", Limit: limitCopy},
	{Name: "logsumexp 4096²", Op: "LogsumexpFwd", Set: "x_shape=[4096,4096],dim=[-1]", DType: "float32", Numpy: "", Limit: limitRead},
	{Name: "layer_norm 4096²", Op: "LayerNormFwd", Set: "x_shape=[4096,4096],weight_shape=[4096],bias_shape=[4096],normalized_shape=[4096]", DType: "float32", Numpy: "", Limit: limitCopy},
	{Name: "mean 4096²", Op: "MeanFwd", Set: "x_shape=[4096,4096],dim=[-1]", DType: "float32", Numpy: "np.mean(x, axis=-1, out=y)", Limit: limitRead},
	{Name: "amax 4096²", Op: "AmaxFwd", Set: "x_shape=[4096,4096],dim=[-1],keepdim=true", DType: "float32", Numpy: "np.amax(x, axis=-1, keepdims=True, out=y)", Limit: limitRead},
	{Name: "var 4096²", Op: "VarFwd", Set: "x_shape=[4096,4096],dim=[-1]", DType: "float32", Numpy: "np.var(x, axis=-1, ddof=1, out=y)", Limit: limitRead},
	{Name: "cumsum 4096²", Op: "CumsumFwd", Set: "x_shape=[4096,4096],dim=-1", DType: "float32", Numpy: "np.cumsum(x, axis=-1, out=y)", Limit: limitCopy},
}
