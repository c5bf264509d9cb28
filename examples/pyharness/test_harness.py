#!/usr/bin/env python3
"""Checks of harness.py's references on small cases (examples/pyharness/roundtrip.sh runs it):
each numpy reference's output against its definition computed another way, then, where
PyTorch is installed, each PyTorch call (into its preallocated output, composed where the
installed version lacks the op) against the numpy reference on the same inputs, so a
reference that times the wrong computation fails here rather than pricing it. The record
arithmetic (the same-time reference's pairing and interval) is checked against ropbench's."""

import argparse
import math
import sys

import numpy as np

import harness


def case(op, inputs, outputs, params=None):
    t = lambda ts: [{"name": n, "dtype": "float32", "shape": s} for n, s in ts]
    return {"op": op, "workload": "t", "dtype": "float32", "params": params or {},
            "inputs": t(inputs), "outputs": t(outputs)}


def run(be, w):
    ins = {t["name"]: be.tensor(t) for t in w["inputs"]}
    outs = {t["name"]: be.empty(t) for t in w["outputs"]}
    be.op(w, ins, outs)()
    return ins, outs[w["outputs"][0]["name"]]


# The cases the PyTorch references are checked on: (op, inputs, outputs, params).
TORCH_CASES = [
    ("CopyFwd", [("x", [3, 17])], [("y", [3, 17])], {}),
    ("ReluFwd", [("x", [3, 17])], [("y", [3, 17])], {}),
    ("ExpFwd", [("x", [3, 17])], [("y", [3, 17])], {}),
    ("TanhFwd", [("x", [3, 17])], [("y", [3, 17])], {}),
    ("SigmoidFwd", [("x", [3, 17])], [("y", [3, 17])], {}),
    ("SiluFwd", [("x", [3, 17])], [("y", [3, 17])], {}),
    ("GeluFwd", [("x", [3, 17])], [("y", [3, 17])], {}),
    ("AddFwd", [("a", [4, 6]), ("b", [4, 1])], [("y", [4, 6])], {}),
    ("SubFwd", [("a", [4, 6]), ("b", [4, 1])], [("y", [4, 6])], {}),
    ("MulFwd", [("a", [4, 6]), ("b", [4, 1])], [("y", [4, 6])], {}),
    ("DivFwd", [("a", [4, 6]), ("b", [4, 1])], [("y", [4, 6])], {}),
    ("SoftmaxFwd", [("x", [5, 9])], [("y", [5, 9])], {"dim": -1}),
    ("LogSoftmaxFwd", [("x", [5, 9])], [("y", [5, 9])], {"dim": 0}),
    ("RMSNormFwd", [("x", [4, 8]), ("weight", [8])], [("y", [4, 8])], {"normalized_shape": [8], "eps": 1e-6}),
    ("RMSNormFwd", [("x", [2, 3, 8])], [("y", [2, 3, 8])], {"normalized_shape": [3, 8], "eps": None}),
    ("LayerNormFwd", [("x", [2, 3, 8]), ("weight", [3, 8]), ("bias", [3, 8])], [("y", [2, 3, 8])], {"normalized_shape": [3, 8], "eps": 1e-5}),
    ("GemmFwd", [("a", [5, 7]), ("b", [7, 3])], [("c", [5, 3])], {}),
    ("BatchedGemmFwd", [("a", [2, 5, 7]), ("b", [2, 7, 3])], [("c", [2, 5, 3])], {}),
    ("LinearFwd", [("x", [2, 4]), ("weight", [3, 4]), ("bias", [3])], [("y", [2, 3])], {}),
    ("LinearFwd", [("x", [2, 2, 4]), ("weight", [3, 4]), ("bias", [3])], [("y", [2, 2, 3])], {}),
    ("LinearFwd", [("x", [2, 4]), ("weight", [3, 4])], [("y", [2, 3])], {}),
    ("SumFwd", [("x", [2, 3, 4])], [("y", [2, 3])], {"dim": [-1], "keepdim": False}),
    ("MeanFwd", [("x", [2, 3, 4])], [("y", [])], {"dim": [], "keepdim": False}),
    ("TransposeFwd", [("x", [3, 5])], [("y", [5, 3])], {"dim0": 0, "dim1": 1}),
    ("ConcatFwd", [("a", [2, 3, 4]), ("b", [2, 1, 4])], [("y", [2, 4, 4])], {"dim": 1}),
    ("CumsumFwd", [("x", [3, 6])], [("y", [3, 6])], {"dim": -1}),
]


def torch_checks(nbe):
    """Each PyTorch reference (CPU, preallocated outputs) against numpy's on the same inputs;
    [] with a message when PyTorch is not installed."""
    try:
        import torch
    except ImportError:
        print("test_harness: no PyTorch: its references are not checked", file=sys.stderr)
        return []
    tbe = harness.TorchBackend(argparse.Namespace(device="cpu: test", flush_mib=1, cpu=True, threads=1))
    bad = []
    for op, inputs, outputs, params in TORCH_CASES:
        w = case(op, inputs, outputs, params)
        ins = {t["name"]: nbe.tensor(t) for t in w["inputs"]}
        want = {t["name"]: nbe.empty(t) for t in w["outputs"]}
        nbe.op(w, ins, want)()
        tins = {k: torch.from_numpy(v.copy()) for k, v in ins.items()}
        got = {t["name"]: tbe.empty(t) for t in w["outputs"]}
        before = {k: v.data_ptr() for k, v in got.items()}
        tbe.op(w, tins, got)()
        name = w["outputs"][0]["name"]
        if got[name].data_ptr() != before[name]:
            bad.append(f"torch {op}: the output moved: the call did not write into the preallocated tensor")
        if not np.allclose(got[name].numpy(), want[name], rtol=1e-4, atol=1e-4):
            bad.append(f"torch {op} {inputs}: got {got[name].numpy().ravel()[:4]}..., want {want[name].ravel()[:4]}...")
    return bad


def record_checks():
    """The same-time reference's pairing and interval as ropbench computes them
    (bench.refRate, bench.MedianInterval): known small cases."""
    bad = []
    # Times 1..5, rates 10..50: paired products 10, 40, 90, 160, 250; median 90 over median
    # time 3 is 30. Five samples cannot bound a median at 99%: the interval is the extremes.
    rate, lo, hi = harness.ref_rate([1, 2, 3, 4, 5], [10, 20, 30, 40, 50])
    if (rate, lo, hi) != (30, 10 / 3, 250 / 3):
        bad.append(f"ref_rate: got {(rate, lo, hi)}, want (30, 10/3, 250/3)")
    # 20 samples: the sign test's 99% interval of a median is the 4th to the 17th order statistic
    # (2 x P(Binomial(20, 1/2) >= 17) = 0.0026 <= 0.01, and >= 16 is 0.012).
    if harness.median_interval(list(range(20))) != (3, 16):
        bad.append(f"median_interval(0..19) = {harness.median_interval(list(range(20)))}, want (3, 16)")
    if harness.sign_test(0, 0) != 1.0 or abs(harness.sign_test(1, 9) - 22 / 1024) > 1e-12:
        bad.append("sign_test: wrong p-values")
    return bad


def main():
    be = harness.NumpyBackend(argparse.Namespace(device="cpu: test", flush_mib=1))
    bad = []

    def check(name, got, want, tol=1e-5):
        if got.shape != np.shape(want) or not np.allclose(got, want, rtol=tol, atol=tol):
            bad.append(f"{name}: got {got.ravel()[:4]}..., want {np.ravel(want)[:4]}...")

    sig = lambda v: 1 / (1 + np.exp(-v.astype(np.float64)))
    for op, f in {"CopyFwd": lambda v: v, "ReluFwd": lambda v: np.where(v > 0, v, 0), "ExpFwd": np.exp,
                  "TanhFwd": np.tanh, "SigmoidFwd": sig, "SiluFwd": lambda v: v * sig(v),
                  "GeluFwd": lambda v: 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))}.items():
        ins, y = run(be, case(op, [("x", [3, 17])], [("y", [3, 17])]))
        check(op, y, f(ins["x"]))
    for op, f in {"AddFwd": np.add, "SubFwd": np.subtract, "MulFwd": np.multiply, "DivFwd": np.divide}.items():
        ins, y = run(be, case(op, [("a", [4, 6]), ("b", [4, 1])], [("y", [4, 6])]))
        check(op, y, f(ins["a"], ins["b"]), 1e-4)
    ins, y = run(be, case("SoftmaxFwd", [("x", [5, 9])], [("y", [5, 9])], {"dim": -1}))
    check("SoftmaxFwd", y, np.exp(ins["x"]) / np.exp(ins["x"]).sum(-1, keepdims=True))
    ins, y = run(be, case("LogSoftmaxFwd", [("x", [5, 9])], [("y", [5, 9])], {"dim": 0}))
    check("LogSoftmaxFwd", y, ins["x"] - np.log(np.exp(ins["x"]).sum(0, keepdims=True)))
    ins, y = run(be, case("RMSNormFwd", [("x", [4, 8]), ("weight", [8])], [("y", [4, 8])], {"normalized_shape": [8], "eps": 1e-6}))
    x = ins["x"]
    check("RMSNormFwd", y, x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6) * ins["weight"], 1e-4)
    ins, y = run(be, case("LayerNormFwd", [("x", [2, 3, 8])], [("y", [2, 3, 8])], {"normalized_shape": [3, 8], "eps": 1e-5}))
    check("LayerNormFwd mean", y.mean(axis=(1, 2)), np.zeros(2), 1e-5)
    check("LayerNormFwd var", y.var(axis=(1, 2)), np.ones(2), 1e-3)
    ins, y = run(be, case("GemmFwd", [("a", [5, 7]), ("b", [7, 3])], [("c", [5, 3])]))
    check("GemmFwd", y, [[sum(float(ins["a"][i, k]) * float(ins["b"][k, j]) for k in range(7)) for j in range(3)] for i in range(5)], 1e-4)
    ins, y = run(be, case("BatchedGemmFwd", [("a", [2, 5, 7]), ("b", [2, 7, 3])], [("c", [2, 5, 3])]))
    check("BatchedGemmFwd", y, np.stack([ins["a"][i] @ ins["b"][i] for i in range(2)]), 1e-4)
    ins, y = run(be, case("LinearFwd", [("x", [2, 4]), ("weight", [3, 4]), ("bias", [3])], [("y", [2, 3])]))
    check("LinearFwd", y, ins["x"] @ ins["weight"].T + ins["bias"], 1e-4)
    ins, y = run(be, case("SumFwd", [("x", [2, 3, 4])], [("y", [2, 3])], {"dim": [-1], "keepdim": False}))
    check("SumFwd", y, ins["x"].sum(-1), 1e-4)
    ins, y = run(be, case("MeanFwd", [("x", [2, 3, 4])], [("y", [])], {"dim": [], "keepdim": False}))
    check("MeanFwd over every dim", y, ins["x"].mean(), 1e-4)
    ins, y = run(be, case("TransposeFwd", [("x", [3, 5])], [("y", [5, 3])], {"dim0": 0, "dim1": 1}))
    check("TransposeFwd", y, ins["x"].T)
    ins, y = run(be, case("ConcatFwd", [("a", [2, 3, 4]), ("b", [2, 1, 4])], [("y", [2, 4, 4])], {"dim": 1}))
    check("ConcatFwd", y, np.array([[list(ins["a"][i, j]) for j in range(3)] + [list(ins["b"][i, 0])] for i in range(2)]))
    ins, y = run(be, case("CumsumFwd", [("x", [3, 6])], [("y", [3, 6])], {"dim": -1}))
    check("CumsumFwd", y, [[sum(ins["x"][i, :j + 1]) for j in range(6)] for i in range(3)], 1e-4)
    bad += torch_checks(be)
    bad += record_checks()
    for b in bad:
        print("test_harness:", b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
