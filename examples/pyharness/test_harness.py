#!/usr/bin/env python3
"""Checks of harness.py's numpy references on small cases (examples/pyharness/roundtrip.sh
runs it): each op's output against its definition computed another way, so a reference that
times the wrong computation fails here rather than pricing it."""

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
    for b in bad:
        print("test_harness:", b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
