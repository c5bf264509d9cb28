#!/usr/bin/env python3
"""A reference harness outside Go: ropgen's work list in, records out.

It reads the work list that `ropbench eval -json` prints (one JSON object a line per case:
op, workload, dtypes, params, tensor shapes, the exact flops and bytes of the generated
EvalRoofline, the roof key; docs/bench.md), builds each case's tensors, runs the op's
reference implementation, times it, and writes one record a case in the JSON lines that
`ropgen report` prices (docs/report.md, perf/record), the counts copied from the work list
as they are: nothing here counts FLOPs or bytes.

Backends:
  torch  PyTorch, on CUDA when a GPU is there (else its CPU): warm-up calls, then each sample
         is one call between two CUDA events, after writing a buffer of twice the L2 so the
         call's inputs come from HBM (Triton's do_bench does the same), the flush not timed.
  numpy  numpy on the CPU: each sample is one call timed with perf_counter, after reading a
         buffer of twice the last-level cache (not timed). numpy has no bfloat16: bf16 and
         fp16 tensors compute in float32 (the record keeps the work list's dtype and bytes).
The record is the median of the samples, with their min and max; iters is the samples.

  python3 harness.py -i work.jsonl -o records.jsonl [--backend auto|torch|numpy]
                     [--samples 10] [--warmup 3] [--device NAME] [--ops A,B] [--max-bytes N] [--audit]

--audit runs each case twice, the second call inside an NVTX range named
op:workload:dtype and no timing (what `ncu --nvtx` needs for `ropgen audit`, docs/audit.md);
it writes no records. Cases of an op or dtype it has no reference for are skipped with a
line on stderr; the exit status is 1 when a case fails, 2 for bad usage.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

# The ops this harness has a reference for: the manifest name and the reference (PyTorch's
# function where there is one, its formula in numpy).
KNOWN_OPS = (
    "CopyFwd", "AddFwd", "SubFwd", "MulFwd", "DivFwd", "ReluFwd", "SiluFwd", "SigmoidFwd",
    "TanhFwd", "ExpFwd", "GeluFwd", "SoftmaxFwd", "LogSoftmaxFwd", "RMSNormFwd", "LayerNormFwd",
    "GemmFwd", "BatchedGemmFwd", "LinearFwd", "SumFwd", "MeanFwd", "TransposeFwd",
)


class Skip(Exception):
    """A case this harness cannot run (an op or dtype without a reference): not a failure."""


def cpu_device_name():
    """ropgen's name of this CPU, as `ropgen calibrate` writes it into the host profile
    (profiles.HostDeviceName: "cpu: " and the model name), so the report matches the two."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and value.strip():
                    return "cpu: " + value.strip()
    except OSError:
        pass
    import platform
    return "cpu: " + (platform.processor() or platform.machine() or "unknown")


def llc_bytes():
    """The largest cache of cpu0 from /sys, or 64 MiB when it does not say (as ropbench)."""
    best = 0
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for d in os.listdir(base):
            try:
                with open(os.path.join(base, d, "size")) as f:
                    s = f.read().strip()
            except OSError:
                continue
            mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
            digits = s[:-1] if s[-1:] in "KMG" else s
            if digits.isdigit():
                best = max(best, int(digits) * mult)
    except OSError:
        pass
    return best or 64 << 20


# ---- numpy --------------------------------------------------------------------------------

class NumpyBackend:
    name = "numpy"

    def __init__(self, args):
        import numpy as np
        self.np = np
        self.rng = np.random.default_rng(1)
        self.device = args.device or cpu_device_name()
        size = args.flush_mib << 20 if args.flush_mib is not None else 2 * llc_bytes()
        self.flush = np.ones(max(size // 8, 1), dtype=np.float64)

    def dtype(self, name):
        np = self.np
        table = {"float32": np.float32, "float16": np.float32, "bfloat16": np.float32,
                 "float64": np.float64, "int32": np.int32, "int64": np.int64}
        if name not in table:
            raise Skip(f"numpy has no {name}")
        return table[name]

    def tensor(self, t):
        dt = self.dtype(t["dtype"])
        shape = tuple(t["shape"])
        if self.np.issubdtype(dt, self.np.floating):
            return self.rng.standard_normal(shape, dtype=self.np.float64).astype(dt)
        return self.rng.integers(0, 8, size=shape).astype(dt)

    def empty(self, t):
        return self.np.empty(tuple(t["shape"]), dtype=self.dtype(t["dtype"]))

    def sample(self, fn, samples, warmup):
        for _ in range(warmup):
            fn()
        times = []
        for _ in range(samples):
            self.flush.sum()  # evict: read twice the last-level cache, not timed
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return times

    def audit(self, fn, name):
        raise Skip("--audit needs PyTorch on CUDA (NVTX ranges for ncu)")

    def op(self, w, ins, outs):
        """The call of w's op over ins into outs, as a function of no arguments."""
        np = self.np
        op, p = w["op"], w["params"]
        x = ins.get("x")
        y = outs[w["outputs"][0]["name"]]
        unary = {
            "CopyFwd": lambda: np.copyto(y, x),
            "ReluFwd": lambda: np.maximum(x, 0, out=y),
            "ExpFwd": lambda: np.exp(x, out=y),
            "TanhFwd": lambda: np.tanh(x, out=y),
            "SigmoidFwd": lambda: np.divide(1, 1 + np.exp(-x), out=y),
            "SiluFwd": lambda: np.divide(x, 1 + np.exp(-x), out=y),
            "GeluFwd": lambda: np.multiply(0.5 * x, 1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)), out=y),
        }
        if op in unary:
            return unary[op]
        binary = {"AddFwd": np.add, "SubFwd": np.subtract, "MulFwd": np.multiply, "DivFwd": np.divide}
        if op in binary:
            f, a, b = binary[op], ins["a"], ins["b"]
            return lambda: f(a, b, out=y)
        if op in ("SoftmaxFwd", "LogSoftmaxFwd"):
            dim, log = p["dim"], op == "LogSoftmaxFwd"

            def softmax():
                z = x - x.max(axis=dim, keepdims=True)
                if log:
                    np.subtract(z, np.log(np.exp(z).sum(axis=dim, keepdims=True)), out=y)
                else:
                    e = np.exp(z)
                    np.divide(e, e.sum(axis=dim, keepdims=True), out=y)
            return softmax
        if op in ("RMSNormFwd", "LayerNormFwd"):
            axes = tuple(range(-len(p["normalized_shape"]), 0))
            eps = p["eps"] if p["eps"] is not None else float(np.finfo(x.dtype).eps)
            weight, bias = ins.get("weight"), ins.get("bias")

            def norm():
                if op == "LayerNormFwd":
                    z = x - x.mean(axis=axes, keepdims=True)
                    z = z / np.sqrt((z * z).mean(axis=axes, keepdims=True) + eps)
                else:
                    z = x / np.sqrt((x * x).mean(axis=axes, keepdims=True) + eps)
                if weight is not None:
                    z = z * weight
                if bias is not None:
                    z = z + bias
                np.copyto(y, z)
            return norm
        if op in ("GemmFwd", "BatchedGemmFwd"):
            a, b = ins["a"], ins["b"]
            return lambda: np.matmul(a, b, out=y)
        if op == "LinearFwd":
            weight, bias = ins["weight"], ins.get("bias")

            def linear():
                np.matmul(x, weight.T, out=y)
                if bias is not None:
                    np.add(y, bias, out=y)
            return linear
        if op in ("SumFwd", "MeanFwd"):
            dims = tuple(p["dim"]) or None  # [] reduces every dim, as torch.sum(x, dim=[])
            f = np.sum if op == "SumFwd" else np.mean
            return lambda: f(x, axis=dims, keepdims=p["keepdim"], out=y)
        if op == "TransposeFwd":
            return lambda: np.copyto(y, np.swapaxes(x, p["dim0"], p["dim1"]))
        raise Skip(f"no numpy reference for {op}")


# ---- PyTorch ------------------------------------------------------------------------------

class TorchBackend:
    name = "torch"

    def __init__(self, args):
        import torch
        self.torch = torch
        self.cuda = torch.cuda.is_available() and not args.cpu
        self.dev = torch.device("cuda" if self.cuda else "cpu")
        torch.manual_seed(1)
        if self.cuda:
            self.device = args.device or torch.cuda.get_device_name(0)
            props = torch.cuda.get_device_properties(0)
            l2 = getattr(props, "L2_cache_size", 0) or 64 << 20
            size = args.flush_mib << 20 if args.flush_mib is not None else 2 * l2
        else:
            self.device = args.device or cpu_device_name()
            size = args.flush_mib << 20 if args.flush_mib is not None else 2 * llc_bytes()
        self.flush = torch.empty(max(size // 4, 1), dtype=torch.float32, device=self.dev)

    def dtype(self, name):
        t = self.torch
        table = {"float32": t.float32, "float16": t.float16, "bfloat16": t.bfloat16, "float64": t.float64,
                 "int32": t.int32, "int64": t.int64, "int8": t.int8, "uint8": t.uint8, "bool": t.bool}
        if name not in table:
            raise Skip(f"no {name} tensors here (fp8 needs a scaled kernel: torch._scaled_mm)")
        return table[name]

    def tensor(self, t):
        dt = self.dtype(t["dtype"])
        if dt.is_floating_point:
            return self.torch.randn(tuple(t["shape"]), dtype=dt, device=self.dev)
        return self.torch.randint(0, 8, tuple(t["shape"]), dtype=dt, device=self.dev)

    def empty(self, t):
        return self.torch.empty(tuple(t["shape"]), dtype=self.dtype(t["dtype"]), device=self.dev)

    def sample(self, fn, samples, warmup):
        torch = self.torch
        for _ in range(warmup):
            fn()
        if not self.cuda:
            times = []
            for _ in range(samples):
                self.flush.add_(1)  # evict the caches, not timed
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            return times
        torch.cuda.synchronize()
        events = []
        for _ in range(samples):
            self.flush.zero_()  # write twice the L2: the call's inputs come from HBM
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            events.append((start, end))
        torch.cuda.synchronize()
        return [s.elapsed_time(e) / 1e3 for s, e in events]

    def audit(self, fn, name):
        torch = self.torch
        if not self.cuda:
            raise Skip("--audit needs CUDA (NVTX ranges for ncu)")
        fn()  # warm-up, outside any range: the audit measures the second call
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push(name)
        fn()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()

    def op(self, w, ins, outs):
        torch = self.torch
        F = torch.nn.functional
        op, p = w["op"], w["params"]
        x = ins.get("x")
        y = outs[w["outputs"][0]["name"]]
        unary = {
            "ReluFwd": F.relu, "SiluFwd": F.silu, "SigmoidFwd": torch.sigmoid, "TanhFwd": torch.tanh,
            "ExpFwd": torch.exp, "GeluFwd": lambda v: F.gelu(v, approximate="tanh"),
        }
        if op == "CopyFwd":
            return lambda: y.copy_(x)
        if op in unary:
            f = unary[op]
            return lambda: f(x)
        binary = {"AddFwd": torch.add, "SubFwd": torch.sub, "MulFwd": torch.mul, "DivFwd": torch.div}
        if op in binary:
            f, a, b = binary[op], ins["a"], ins["b"]
            return lambda: f(a, b)
        if op == "SoftmaxFwd":
            return lambda: torch.softmax(x, dim=p["dim"])
        if op == "LogSoftmaxFwd":
            return lambda: torch.log_softmax(x, dim=p["dim"])
        if op == "RMSNormFwd":
            if not hasattr(F, "rms_norm"):
                raise Skip("torch.nn.functional.rms_norm needs PyTorch 2.4 or later")
            return lambda: F.rms_norm(x, p["normalized_shape"], ins.get("weight"), p["eps"])
        if op == "LayerNormFwd":
            eps = p["eps"] if p["eps"] is not None else 1e-5
            return lambda: F.layer_norm(x, p["normalized_shape"], ins.get("weight"), ins.get("bias"), eps)
        if op in ("GemmFwd", "BatchedGemmFwd"):
            a, b = ins["a"], ins["b"]
            return lambda: torch.matmul(a, b)
        if op == "LinearFwd":
            return lambda: F.linear(x, ins["weight"], ins.get("bias"))
        if op in ("SumFwd", "MeanFwd"):
            f = torch.sum if op == "SumFwd" else torch.mean
            return lambda: f(x, dim=p["dim"], keepdim=p["keepdim"])
        if op == "TransposeFwd":
            return lambda: torch.transpose(x, p["dim0"], p["dim1"]).contiguous()
        raise Skip(f"no PyTorch reference for {op}")


# ---- the loop -----------------------------------------------------------------------------

def backend(args):
    if args.backend in ("auto", "torch"):
        try:
            return TorchBackend(args)
        except ImportError:
            if args.backend == "torch":
                sys.exit("harness: --backend torch: PyTorch is not installed")
    try:
        return NumpyBackend(args)
    except ImportError:
        sys.exit("harness: neither PyTorch nor numpy is installed (apt install python3-numpy, or pip install torch)")


def read_work(f, name):
    for n, line in enumerate(f, 1):
        line = line.strip()
        if not line:
            continue
        try:
            w = json.loads(line)
        except ValueError as e:
            sys.exit(f"{name}:{n}: not a JSON object: {e}")
        missing = [k for k in ("op", "workload", "dtype", "roof", "flops", "bytes", "inputs", "outputs", "params") if k not in w]
        if missing:
            sys.exit(f"{name}:{n}: not a work list line (ropbench eval -json): no {', '.join(missing)}")
        yield n, w


def main(argv=None):
    ap = argparse.ArgumentParser(description="ropgen's work list in, records out (docs/using.md)")
    ap.add_argument("-i", "--input", default="-", help="the work list (ropbench eval -json); default stdin")
    ap.add_argument("-o", "--output", default="-", help="where the records go; default stdout")
    ap.add_argument("--backend", choices=("auto", "torch", "numpy"), default="auto",
                    help="auto: PyTorch when installed, else numpy")
    ap.add_argument("--cpu", action="store_true", help="PyTorch on the CPU even when a GPU is there")
    ap.add_argument("--samples", type=int, default=10, help="timed calls per case; the record is their median")
    ap.add_argument("--warmup", type=int, default=3, help="untimed calls before the samples")
    ap.add_argument("--flush-mib", type=int, help="the cache flush buffer, MiB (default: twice the L2 on a GPU, the last-level cache on a CPU)")
    ap.add_argument("--device", help="the records' device name (default: the GPU's name, or ropgen's CPU name)")
    ap.add_argument("--ops", help="comma-separated op names to run (default: every op with a reference)")
    ap.add_argument("--max-bytes", type=int, help="skip cases whose work-list bytes exceed N (a limit on what this machine takes on)")
    ap.add_argument("--audit", action="store_true", help="run each case in an NVTX range for ncu; no timing, no records")
    args = ap.parse_args(argv)
    if args.samples < 1 or args.warmup < 0:
        ap.error("--samples must be 1 or more and --warmup not negative")
    only = set(args.ops.split(",")) if args.ops else None

    be = backend(args)
    src = sys.stdin if args.input == "-" else open(args.input)
    # Records go to a temporary file renamed over the output at the end, so an interrupted
    # run leaves the old output as it was.
    tmp = None
    if args.output == "-":
        out = sys.stdout
    else:
        tmp = args.output + ".tmp"
        out = open(tmp, "w")
    print(f"harness: {be.name} on {be.device}", file=sys.stderr)
    done = skipped = failed = 0
    for n, w in read_work(src, args.input):
        name = f"{w['op']}:{w['workload']}:{w['dtype']}"
        if only and w["op"] not in only:
            continue
        if w["op"] not in KNOWN_OPS:
            print(f"skip {name}: no reference for {w['op']} in this harness", file=sys.stderr)
            skipped += 1
            continue
        if args.max_bytes is not None and w["bytes"] > args.max_bytes:
            print(f"skip {name}: {w['bytes']} bytes, above --max-bytes {args.max_bytes}", file=sys.stderr)
            skipped += 1
            continue
        try:
            if any(t["shape"] is None for t in w["inputs"] + w["outputs"]):
                raise Skip("the work list has no shape for a tensor (the registry is not a bench.Shaper)")
            ins = {t["name"]: be.tensor(t) for t in w["inputs"]}
            outs = {t["name"]: be.empty(t) for t in w["outputs"]}
            fn = be.op(w, ins, outs)
            if args.audit:
                be.audit(fn, name)
                print(f"audited {name}", file=sys.stderr)
                done += 1
                continue
            times = be.sample(fn, args.samples, args.warmup)
        except Skip as e:
            print(f"skip {name}: {e}", file=sys.stderr)
            skipped += 1
            continue
        except Exception as e:  # a reference that fails on a case is a failed case, not a crash
            print(f"{args.input}:{n}: {name}: {type(e).__name__}: {e}", file=sys.stderr)
            failed += 1
            continue
        med = statistics.median(times)
        rec = {"device": be.device, "op": w["op"], "workload": w["workload"], "dtype": w["dtype"],
               "roof": w["roof"], "flops": w["flops"], "bytes": w["bytes"], "seconds": med,
               "min_seconds": min(times), "max_seconds": max(times), "iters": len(times)}
        out.write(json.dumps(rec) + "\n")
        rate = w["bytes"] / med / 1e9 if med > 0 else float("inf")
        print(f"{name:60s} {med * 1e6:10.2f} µs [{min(times) * 1e6:.2f} .. {max(times) * 1e6:.2f}]  {rate:8.2f} GB/s", file=sys.stderr)
        done += 1
    if tmp:
        out.close()
        os.replace(tmp, args.output)
    verb = "audited" if args.audit else "timed"
    print(f"{done} cases {verb}, {skipped} skipped, {failed} failed", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
