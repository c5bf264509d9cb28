#!/usr/bin/env python3
"""Calibration of an NVIDIA GPU for scripts/gpu/run.sh, through PyTorch.

Measures, each as several repetitions timed with CUDA events after a warm-up:
  hbm    a device-to-device copy of --copy-mib MiB (bytes = read + written, as the builtin
         profiles' copy calibration counts them);
  bf16, fp16   torch.matmul of two N x N matrices, N = --gemm-n (compute-bound: intensity
         N/3 FLOP/B at 2 bytes an element, far above any GPU's ridge), FLOPs = 2 N^3;
  fp8    torch._scaled_mm of two float8_e4m3fn N x N matrices (bf16 out), when this PyTorch
         and GPU have it.
The fp32 FMA peak is measured by scripts/gpu/fma.cu (nvcc), not here.

Prints shell assignments (KEY_min, KEY_median, KEY_max, KEY_n in B/s or FLOP/s, plus device,
driver, cuda and torch versions) for run.sh to source; a measurement that cannot run prints
KEY_skip='why' instead.
"""

import argparse
import shlex
import statistics
import subprocess
import sys


def emit(key, value):
    print(f"{key}={shlex.quote(str(value))}")


def timed(torch, fn, reps, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    pairs = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        pairs.append((s, e))
    torch.cuda.synchronize()
    return [a.elapsed_time(b) / 1e3 for a, b in pairs]


def rates(key, work, seconds):
    r = [work / s for s in seconds]
    emit(f"{key}_min", f"{min(r):.6g}")
    emit(f"{key}_median", f"{statistics.median(r):.6g}")
    emit(f"{key}_max", f"{max(r):.6g}")
    emit(f"{key}_n", len(r))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copy-mib", type=int, default=2048)
    ap.add_argument("--gemm-n", type=int, default=8192)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    args = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        sys.exit("calibrate.py: PyTorch sees no CUDA device")
    emit("device", torch.cuda.get_device_name(0))
    emit("torch_version", torch.__version__)
    emit("cuda_version", torch.version.cuda or "unknown")
    try:
        drv = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader", "-i", "0"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        drv = "unknown"
    emit("driver_version", drv or "unknown")

    n = args.copy_mib << 20
    src = torch.empty(n, dtype=torch.uint8, device="cuda").random_()
    dst = torch.empty_like(src)
    rates("hbm", 2 * n, timed(torch, lambda: dst.copy_(src), args.reps, args.warmup))
    del src, dst

    N = args.gemm_n
    for key, dt in (("bf16", torch.bfloat16), ("fp16", torch.float16)):
        a = torch.randn(N, N, device="cuda", dtype=dt)
        b = torch.randn(N, N, device="cuda", dtype=dt)
        rates(key, 2 * N ** 3, timed(torch, lambda: torch.matmul(a, b), args.reps, args.warmup))
        del a, b

    if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
        emit("fp8_skip", "this PyTorch has no float8_e4m3fn or _scaled_mm")
        return
    try:
        a = torch.randn(N, N, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(N, N, device="cuda").to(torch.float8_e4m3fn).t()  # column-major, as cuBLASLt wants
        one = torch.tensor(1.0, device="cuda")

        def mm():
            return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        mm()
        rates("fp8", 2 * N ** 3, timed(torch, mm, args.reps, args.warmup))
    except (RuntimeError, TypeError) as e:  # an older API, or a GPU without fp8 Tensor Cores
        emit("fp8_skip", f"torch._scaled_mm failed: {e}".splitlines()[0][:200])


if __name__ == "__main__":
    main()
