#!/usr/bin/env python3
"""A reference harness outside Go: ropgen's work list in, records out.

It reads the work list that `ropbench eval -json` prints (one JSON object a line per case:
op, workload, dtypes, params, tensor shapes, the exact flops and bytes of the generated
EvalRoofline, the roof key; docs/bench.md), builds each case's tensors, runs the op's
reference implementation, times it, and writes one record a case in the JSON lines that
`ropgen report` prices (docs/report.md, perf/record), the counts copied from the work list
as they are: nothing here counts FLOPs or bytes.

Backends (the record's impl key names the one that ran: torch or numpy):
  torch  PyTorch, on CUDA when a GPU is there (else its CPU, or with --cpu). On CUDA: warm-up
         calls, then each sample is one call between two CUDA events, after writing a buffer
         of twice the L2 so the call's inputs come from HBM (Triton's do_bench does the same),
         the flush not timed. On the CPU: as numpy below, on --threads threads.
  numpy  numpy on the CPU. numpy has no bfloat16: bf16 and fp16 tensors compute in float32
         (the record keeps the work list's dtype and bytes).
On a CPU every sample is one call timed with perf_counter after the eviction ropbench makes
(docs/bench.md), not timed: a buffer of twice the last-level cache read on every thread
(plain numpy in threads, never a torch op: a torch op leaves PyTorch's OpenMP workers
spinning, and they take the cores from the next call's BLAS threads), then every cache line
of the case's own tensors flushed (CLFLUSHOPT or CLFLUSH on x86-64; elsewhere a warning, and
a DRAM-sized row may read lines its warm-up left in the cache). Every call writes into
preallocated outputs (out=) where the library has them; the progress line notes the ops that
allocate or make extra passes. A DRAM-sized row (tensors above --same-time-mib) also gets the
same-time reference of ropbench: after each sample, one cold copy of two arrays of 64 MiB on
every thread, paired with the samples into the record's ref_rate keys, so the report judges
its row against the machine as it was while the row ran. Before the cases, the harness times
its own cold-call floor (a ref.floor record: the cheapest of the three smallest cases it can
run, timed as every case is), so its small rows are judged against its own dispatch cost, not
ropgen's. The record is the median of the samples, with their min and max; iters is the
samples.

  python3 harness.py -i work.jsonl -o records.jsonl [--backend auto|torch|numpy] [--cpu]
                     [--threads N] [--samples 10] [--warmup 3] [--device NAME] [--ops A,B]
                     [--max-bytes N] [--flush-mib N] [--same-time-mib N] [--audit]

--audit runs each case twice, the second call inside an NVTX range named
op:workload:dtype and no timing (what `ncu --nvtx` needs for `ropgen audit`, docs/audit.md);
it writes no records. Cases of an op or dtype it has no reference for are skipped with a
line on stderr; the exit status is 1 when a case fails, 2 for bad usage.
"""

import argparse
import ctypes
import json
import math
import mmap
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

# The ops this harness has a reference for: the manifest name and the reference (PyTorch's
# function where there is one, its formula in numpy).
KNOWN_OPS = (
    "CopyFwd", "AddFwd", "SubFwd", "MulFwd", "DivFwd", "ReluFwd", "SiluFwd", "SigmoidFwd",
    "TanhFwd", "ExpFwd", "GeluFwd", "SoftmaxFwd", "LogSoftmaxFwd", "RMSNormFwd", "LayerNormFwd",
    "GemmFwd", "BatchedGemmFwd", "LinearFwd", "SumFwd", "MeanFwd", "TransposeFwd", "ConcatFwd",
    "CumsumFwd",
)

# Bytes per element of the work list's dtypes, for a case's storage (the floor's choice and the
# same-time threshold).
ITEMSIZE = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4,
            "int8": 1, "uint8": 1, "bool": 1, "float8_e4m3": 1, "float8_e5m2": 1}

# The reference statistics of ropbench (perf/bench): the same-time reference's interval is the
# sign test's 99% interval of a median.
MEDIAN_ALPHA = 0.01
# The cold-call floor is the cheapest of this many smallest cases (bench.floorCandidates), each
# timed with at least FLOOR_SAMPLES samples, among the cases whose tensors take at most
# FLOOR_MAX_BYTES: a cold call of a larger case costs its bytes too, and a floor that high
# would call rows latency-bound whose time is their bytes.
FLOOR_CANDIDATES = 3
FLOOR_SAMPLES = 9
FLOOR_MAX_BYTES = 1 << 20
# The same-time reference copies arrays of this many MiB (one array of the calibration's
# copy_cold mix); a row whose tensors exceed this or the last-level cache, the smaller, gets it.
REF_MIB = 64



class Skip(Exception):
    """A case this harness cannot run (an op or dtype without a reference): not a failure."""


def noted(fn, note):
    """fn, marked with what makes its timing differ from one fused call into a preallocated
    output (an allocation, extra passes): the progress line shows it."""
    fn.note = note
    return fn


def usable_cpus():
    """The CPUs this process may run on (its affinity), as the thread count's default."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def storage(w):
    """The bytes of a work-list case's tensors (its inputs and outputs)."""
    total = 0
    for t in w["inputs"] + w["outputs"]:
        if t["shape"] is None:
            return None
        total += math.prod(t["shape"]) * ITEMSIZE.get(t["dtype"], 4)
    return total


def sign_test(wins, losses):
    """The two-sided sign test's p-value (bench.SignTest)."""
    n, k = wins + losses, max(wins, losses)
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n)


def median_interval(xs, alpha=MEDIAN_ALPHA):
    """The order statistics that bound the median of xs at 1-alpha (bench.MedianInterval)."""
    s = sorted(xs)
    n, k = len(s), 1
    while k + 1 <= (n + 1) // 2 and sign_test(k, n - k) <= alpha:
        k += 1
    return s[k - 1], s[n - k]


def ref_rate(times, rates):
    """The same-time reference of a row as ropbench writes it (bench.refRate): the median of
    each sample's time x the rate of the reference call after it, over the median time, with
    the same pairing at the 99% bounds of that median."""
    paired = [t * r for t, r in zip(times, rates)]
    mt = statistics.median(times)
    lo, hi = median_interval(paired)
    return statistics.median(paired) / mt, lo / mt, hi / mt


def _flush_code():
    """x86-64 machine code of flush(ptr, nbytes): CLFLUSHOPT (else CLFLUSH) of every 64-byte
    line from ptr up to ptr + nbytes, then MFENCE. Python has no cache-line flush; ropbench's
    (perf/cold.Flush) is these instructions too."""
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = line
                    break
    except OSError:
        pass
    head = bytes([0x48, 0x01, 0xFE,   # add rsi, rdi         ; end
                  0x48, 0x39, 0xF7])  # loop: cmp rdi, rsi
    step = bytes([0x48, 0x83, 0xC7, 0x40])  # add rdi, 64
    tail = bytes([0x0F, 0xAE, 0xF0, 0xC3])  # done: mfence; ret
    if " clflushopt" in flags:
        flush = bytes([0x66, 0x0F, 0xAE, 0x3F])  # clflushopt [rdi]
    else:
        flush = bytes([0x0F, 0xAE, 0x3F])  # clflush [rdi]
    body = flush + step
    # jae done (past the body and the jmp back); jmp loop (back over itself, the body, the jae
    # and the cmp).
    return head + bytes([0x73, len(body) + 2]) + body + bytes([0xEB, (-(len(body) + 2 + 2 + 3)) & 0xFF]) + tail


def cache_flusher():
    """A function flush(ptr, nbytes) that drops those bytes' cache lines from every level,
    or None where this machine cannot (not x86-64 Linux, or no executable memory)."""
    if platform.machine() not in ("x86_64", "AMD64") or not hasattr(mmap, "PROT_EXEC"):
        return None
    try:
        page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    except OSError:
        return None
    page.write(_flush_code())
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t)(ctypes.addressof(ctypes.c_char.from_buffer(page)))

    def flush(ptr, nbytes):
        start = ptr & ~63  # the line holding the first byte
        fn(start, nbytes + (ptr - start))
    flush.page = page  # keep the code mapped
    return flush


class Evictor:
    """The eviction before a cold CPU sample, as ropbench's (perf/cold): read a buffer of
    size bytes, split among threads so every core's private caches go too, then flush every
    line of the case's own tensors, which an adaptive last-level cache keeps through a
    one-pass read (docs/bench.md). Plain numpy in threads (it releases the GIL while it
    reads): a torch op here would leave PyTorch's OpenMP workers spinning."""

    def __init__(self, np, size, threads):
        self.np = np
        self.buf = np.ones(max(size // 8, threads), dtype=np.float64)
        self.parts = np.array_split(self.buf, threads)
        self.pool = ThreadPoolExecutor(threads) if threads > 1 else None
        self.flush = cache_flusher()

    def __call__(self, bufs=()):
        if self.pool:
            list(self.pool.map(self.np.sum, self.parts))
        else:
            self.buf.sum()
        if self.flush:
            for ptr, n in bufs:
                if n > 0:
                    self.flush(ptr, n)


class SameTime:
    """The same-time reference of a DRAM-sized row: one cold copy of two arrays of REF_MIB MiB,
    split among threads (numpy's copy streams its stores past the cache at this size, as
    the calibration's copy_cold does), its rate in bytes/s (read and write)."""

    def __init__(self, np, evict, threads):
        self.evict, self.np, self.threads = evict, np, threads
        self.src = None  # the arrays are made at the first DRAM-sized row: most runs have none

    def rate(self):
        np = self.np
        if self.src is None:
            n = (REF_MIB << 20) // 8
            self.src, self.dst = np.ones(n), np.ones(n)
            self.pairs = list(zip(np.array_split(self.dst, self.threads), np.array_split(self.src, self.threads)))
            self.pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None
            self.bufs = [(a.ctypes.data, a.nbytes) for a in (self.src, self.dst)]
        self.evict(self.bufs)
        copy = lambda p: self.np.copyto(*p)
        t0 = time.perf_counter()
        if self.pool:
            list(self.pool.map(copy, self.pairs))
        else:
            copy(self.pairs[0])
        return 2 * self.src.nbytes / (time.perf_counter() - t0)


def cpu_sample(fn, samples, warmup, evict, bufs, same):
    """Times fn cold on a CPU: samples calls, each after evict(bufs), each followed by one call
    of the same-time reference when same is set. Returns the times and the reference's rates."""
    for _ in range(warmup):
        fn()
    if same:
        same.rate()  # a warm-up of the reference, not kept (ropbench does the same)
    times, rates = [], []
    for _ in range(samples):
        evict(bufs)
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if same:
            rates.append(same.rate())
    return times, rates


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


def flush_bytes(args):
    """The eviction buffer's size: --flush-mib, else twice the last-level cache (ropbench's
    default)."""
    mib = getattr(args, "flush_mib", None)
    return mib << 20 if mib is not None else 2 * llc_bytes()


# ---- numpy --------------------------------------------------------------------------------

class NumpyBackend:
    name = "numpy"

    def __init__(self, args):
        import numpy as np
        self.np = np
        self.rng = np.random.default_rng(1)
        self.device = getattr(args, "device", None) or cpu_device_name()
        self.threads = getattr(args, "threads", None) or usable_cpus()
        self.evict = Evictor(np, flush_bytes(args), self.threads)
        self.same = None  # set by main when DRAM-sized rows get the same-time reference

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

    def buffers(self, arrays):
        return [(a.ctypes.data, a.nbytes) for a in arrays]

    def sample(self, fn, samples, warmup, bufs, same):
        return cpu_sample(fn, samples, warmup, self.evict, bufs, same)

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
            if op in ("SigmoidFwd", "SiluFwd", "GeluFwd"):
                return noted(unary[op], "composed: allocates temporaries, several passes")
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
            return noted(softmax, "composed: allocates temporaries, several passes")
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
            return noted(norm, "composed: allocates temporaries, several passes")
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
        if op == "ConcatFwd":
            parts = [ins[t["name"]] for t in w["inputs"]]
            return lambda: np.concatenate(parts, axis=p["dim"], out=y)
        if op == "CumsumFwd":
            return lambda: np.cumsum(x, axis=p["dim"], out=y)
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
            self.flush = torch.empty(max(size // 4, 1), dtype=torch.float32, device=self.dev)
            self.threads = None
        else:
            import numpy as np
            self.device = args.device or cpu_device_name()
            # PyTorch's default can be one thread (Debian's 1.13 on a 2-core host): time it on
            # every core the process may use, as ropbench runs on every P.
            self.threads = args.threads or usable_cpus()
            torch.set_num_threads(self.threads)
            self.evict = Evictor(np, flush_bytes(args), self.threads)
        self.same = None

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

    def buffers(self, tensors):
        return [(v.data_ptr(), v.numel() * v.element_size()) for v in tensors]

    def sample(self, fn, samples, warmup, bufs, same):
        torch = self.torch
        if not self.cuda:
            return cpu_sample(fn, samples, warmup, self.evict, bufs, same)
        for _ in range(warmup):
            fn()
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
        return [s.elapsed_time(e) / 1e3 for s, e in events], []

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
        """The call of w's op over ins into outs: PyTorch's kernel writing into the
        preallocated output (its out= overload, through torch.ops.aten where the Python
        function has none), so no call allocates; an op composed of several calls is noted."""
        torch = self.torch
        aten = torch.ops.aten
        op, p = w["op"], w["params"]
        x = ins.get("x")
        y = outs[w["outputs"][0]["name"]]
        unary = {
            "ReluFwd": lambda: torch.clamp_min(x, 0, out=y), "SiluFwd": lambda: aten.silu.out(x, out=y),
            "SigmoidFwd": lambda: torch.sigmoid(x, out=y), "TanhFwd": lambda: torch.tanh(x, out=y),
            "ExpFwd": lambda: torch.exp(x, out=y), "GeluFwd": lambda: aten.gelu.out(x, approximate="tanh", out=y),
        }
        if op == "CopyFwd":
            return lambda: y.copy_(x)
        if op in unary:
            return unary[op]
        binary = {"AddFwd": torch.add, "SubFwd": torch.sub, "MulFwd": torch.mul, "DivFwd": torch.div}
        if op in binary:
            f, a, b = binary[op], ins["a"], ins["b"]
            return lambda: f(a, b, out=y)
        if op in ("SoftmaxFwd", "LogSoftmaxFwd"):
            f = aten._softmax.out if op == "SoftmaxFwd" else aten._log_softmax.out
            return lambda: f(x, p["dim"], False, out=y)
        if op in ("RMSNormFwd", "LayerNormFwd"):
            shape = list(p["normalized_shape"])
            dims = list(range(-len(shape), 0))
            weight, bias = ins.get("weight"), ins.get("bias")
            if op == "LayerNormFwd":
                eps = p["eps"] if p["eps"] is not None else 1e-5
                # The row statistics the kernel also writes (mean, 1/std): row-sized buffers.
                stat = list(x.shape[:x.dim() - len(shape)]) + [1] * len(shape)
                mean, rstd = (torch.empty(stat, dtype=x.dtype, device=self.dev) for _ in range(2))
                return lambda: aten.native_layer_norm.out(x, shape, weight, bias, eps, out0=y, out1=mean, out2=rstd)
            eps = p["eps"] if p["eps"] is not None else torch.finfo(x.dtype).eps
            F = torch.nn.functional
            if hasattr(F, "rms_norm") and self.cuda:
                # No out= overload; on CUDA the caching allocator hands the output back
                # without a cost worth timing.
                return noted(lambda: F.rms_norm(x, shape, weight, eps), "allocates its output (rms_norm has no out=)")
            # On a CPU, and below PyTorch 2.4 anywhere: composed, the norm of each row into a
            # row-sized buffer, then one pass writing y and one scaling it by the weight. A
            # fresh output on a CPU costs page faults in every call (glibc hands large blocks
            # back to the kernel), more than the extra passes.
            n = math.prod(shape)
            norm = torch.empty(list(x.shape[:x.dim() - len(shape)]) + [1] * len(shape), dtype=x.dtype, device=self.dev)

            def rms():
                torch.linalg.vector_norm(x, 2, dims, keepdim=True, out=norm)
                norm.pow_(2).div_(n).add_(eps).rsqrt_()
                torch.mul(x, norm, out=y)
                if weight is not None:
                    y.mul_(weight)
            return noted(rms, "composed into a preallocated output: extra passes over y")
        if op in ("GemmFwd", "BatchedGemmFwd"):
            a, b = ins["a"], ins["b"]
            return lambda: torch.matmul(a, b, out=y)
        if op == "LinearFwd":
            weight, bias = ins["weight"], ins.get("bias")
            if bias is not None and x.dim() == 2:
                return lambda: torch.addmm(bias, x, weight.t(), out=y)
            if bias is None:
                return lambda: torch.matmul(x, weight.t(), out=y)

            def linear():
                torch.matmul(x, weight.t(), out=y)
                y.add_(bias)
            return noted(linear, "composed: the bias is a second pass over y")
        if op in ("SumFwd", "MeanFwd"):
            f = torch.sum if op == "SumFwd" else torch.mean
            dims = list(p["dim"]) or list(range(x.dim()))  # [] reduces every dim
            return lambda: f(x, dim=dims, keepdim=p["keepdim"], out=y)
        if op == "TransposeFwd":
            return lambda: y.copy_(torch.transpose(x, p["dim0"], p["dim1"]))
        if op == "ConcatFwd":
            parts = [ins[t["name"]] for t in w["inputs"]]
            return lambda: torch.cat(parts, p["dim"], out=y)
        if op == "CumsumFwd":
            return lambda: torch.cumsum(x, p["dim"], out=y)
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


def build(be, w):
    """The case's inputs, outputs, the call, and its tensors' memory (for the eviction)."""
    if any(t["shape"] is None for t in w["inputs"] + w["outputs"]):
        raise Skip("the work list has no shape for a tensor (the registry is not a bench.Shaper)")
    ins = {t["name"]: be.tensor(t) for t in w["inputs"]}
    outs = {t["name"]: be.empty(t) for t in w["outputs"]}
    fn = be.op(w, ins, outs)
    bufs = [] if getattr(be, "cuda", False) else be.buffers([v for v in list(ins.values()) + list(outs.values()) if v is not None])
    return fn, bufs


def record(be, w, times, rates=()):
    """The JSON lines record of a case's samples (perf/record)."""
    rec = {"device": be.device, "impl": be.name, "op": w["op"], "workload": w["workload"], "dtype": w["dtype"],
           "roof": w["roof"], "flops": w["flops"], "bytes": w["bytes"], "seconds": statistics.median(times),
           "min_seconds": min(times), "max_seconds": max(times), "iters": len(times)}
    if rates:
        rec["ref_rate"], rec["ref_rate_low"], rec["ref_rate_high"] = ref_rate(times, rates)
    return rec


def floor_record(be, work, args):
    """The harness's own cold-call floor, as ropbench's ref.floor (bench.FloorReference): the
    FLOOR_CANDIDATES smallest cases it can run, each timed as every case is with at least
    FLOOR_SAMPLES samples; the cheapest median is the floor, its workload naming the case. A
    cold PyTorch call costs tens of microseconds of dispatch where a Go call costs a fraction
    of one: rows judged against ropgen's floor would read "below" where they are
    dispatch-bound. None when no small case runs."""
    sized = sorted((storage(w), n, w) for n, w in work
                   if w["op"] in KNOWN_OPS and storage(w) is not None and storage(w) <= FLOOR_MAX_BYTES)
    best, tried = None, 0
    for _, n, w in sized:
        if tried == FLOOR_CANDIDATES:
            break
        try:
            fn, bufs = build(be, w)
            times, _ = be.sample(fn, max(args.samples, FLOOR_SAMPLES), args.warmup, bufs, None)
        except Exception:  # a case it cannot run is no floor; the loop reports it
            continue
        tried += 1
        if best is None or statistics.median(times) < statistics.median(best[1]):
            best = (w, times)
    if best is None:
        return None
    rec = record(be, best[0], best[1])
    rec["op"], rec["workload"] = "ref.floor", f"{best[0]['op']}:{best[0]['workload']}"
    return rec


def main(argv=None):
    ap = argparse.ArgumentParser(description="ropgen's work list in, records out (docs/using.md)")
    ap.add_argument("-i", "--input", default="-", help="the work list (ropbench eval -json); default stdin")
    ap.add_argument("-o", "--output", default="-", help="where the records go; default stdout")
    ap.add_argument("--backend", choices=("auto", "torch", "numpy"), default="auto",
                    help="auto: PyTorch when installed, else numpy")
    ap.add_argument("--cpu", action="store_true", help="PyTorch on the CPU even when a GPU is there")
    ap.add_argument("--threads", type=int, help="CPU threads of the library and of the eviction (default: every CPU this process may use)")
    ap.add_argument("--samples", type=int, default=10, help="timed calls per case; the record is their median")
    ap.add_argument("--warmup", type=int, default=3, help="untimed calls before the samples")
    ap.add_argument("--flush-mib", type=int, help="the cache flush buffer, MiB (default: twice the L2 on a GPU, twice the last-level cache on a CPU)")
    ap.add_argument("--same-time-mib", type=int, help="on a CPU, time the same-time reference after each sample of a case whose tensors exceed N MiB (default: the last-level cache or %d MiB, the smaller; 0: none)" % REF_MIB)
    ap.add_argument("--device", help="the records' device name (default: the GPU's name, or ropgen's CPU name)")
    ap.add_argument("--ops", help="comma-separated op names to run (default: every op with a reference)")
    ap.add_argument("--max-bytes", type=int, help="skip cases whose work-list bytes exceed N (a limit on what this machine takes on)")
    ap.add_argument("--audit", action="store_true", help="run each case in an NVTX range for ncu; no timing, no records")
    args = ap.parse_args(argv)
    if args.samples < 1 or args.warmup < 0:
        ap.error("--samples must be 1 or more and --warmup not negative")
    if args.threads is not None and args.threads < 1:
        ap.error("--threads must be 1 or more")
    only = set(args.ops.split(",")) if args.ops else None
    # BLAS and OpenMP read their thread counts when the library loads: set them first.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads or usable_cpus())

    be = backend(args)
    src = sys.stdin if args.input == "-" else open(args.input)
    work = list(read_work(src, args.input))
    threads = f", {be.threads} threads" if getattr(be, "threads", None) else ""
    print(f"harness: {be.name} on {be.device}{threads}", file=sys.stderr)
    cpu = not getattr(be, "cuda", False)
    if cpu and not be.evict.flush:
        print("harness: warning: this machine cannot flush cache lines from Python (x86-64 Linux only): "
              "a DRAM-sized row may read lines its warm-up left in the cache", file=sys.stderr)
    same_above = args.same_time_mib << 20 if args.same_time_mib is not None else min(llc_bytes(), REF_MIB << 20)
    if cpu and same_above > 0 and not args.audit:
        be.same = SameTime(be.evict.np, be.evict, be.threads)
    # Records go to a temporary file renamed over the output at the end, so an interrupted
    # run leaves the old output as it was.
    tmp = None
    if args.output == "-":
        out = sys.stdout
    else:
        tmp = args.output + ".tmp"
        out = open(tmp, "w")
    if not args.audit:
        floor = floor_record(be, work, args)
        if floor:
            out.write(json.dumps(floor) + "\n")
            print(f"reference ref.floor ({floor['workload']}): {floor['seconds'] * 1e6:.2f} µs", file=sys.stderr)
        else:
            print(f"harness: warning: no case of at most {FLOOR_MAX_BYTES >> 20} MiB of tensors in the work list to time the "
                  "cold-call floor with: no ref.floor record, and the report judges these rows against the profile's "
                  "latency_floor (a cold call of ropgen's kernels); give the harness the cpu-small cases too", file=sys.stderr)
    done = skipped = failed = 0
    for n, w in work:
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
            fn, bufs = build(be, w)
            if args.audit:
                be.audit(fn, name)
                print(f"audited {name}", file=sys.stderr)
                done += 1
                continue
            same = be.same if be.same and (storage(w) or 0) > same_above else None
            times, rates = be.sample(fn, args.samples, args.warmup, bufs, same)
        except Skip as e:
            print(f"skip {name}: {e}", file=sys.stderr)
            skipped += 1
            continue
        except RuntimeError as e:
            if "not implemented for" not in str(e):
                print(f"{args.input}:{n}: {name}: {type(e).__name__}: {e}", file=sys.stderr)
                failed += 1
                continue
            # PyTorch has kernels for some dtypes on some devices only (no float16 SiLU on the
            # CPU in 1.13): a case it cannot run, not a failure.
            print(f"skip {name}: {be.name} has no kernel for it here: {str(e).splitlines()[0]}", file=sys.stderr)
            skipped += 1
            continue
        except Exception as e:  # a reference that fails on a case is a failed case, not a crash
            print(f"{args.input}:{n}: {name}: {type(e).__name__}: {e}", file=sys.stderr)
            failed += 1
            continue
        rec = record(be, w, times, rates)
        out.write(json.dumps(rec) + "\n")
        med = rec["seconds"]
        rate = w["bytes"] / med / 1e9 if med > 0 else float("inf")
        line = f"{name:60s} {med * 1e6:10.2f} µs [{min(times) * 1e6:.2f} .. {max(times) * 1e6:.2f}]  {rate:8.2f} GB/s"
        if rates:
            line += f"  same-time ref {rec['ref_rate'] / 1e9:.1f} GB/s"
        if getattr(fn, "note", None):
            line += f"  ({fn.note})"
        print(line, file=sys.stderr)
        done += 1
    if tmp:
        out.close()
        os.replace(tmp, args.output)
    verb = "audited" if args.audit else "timed"
    print(f"{done} cases {verb}, {skipped} skipped, {failed} failed", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
