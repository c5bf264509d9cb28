"""The numpy side of `make compare` (cmd/ropcompare): a worker over stdin/stdout.

One JSON request per line:
  {"setup": ID, "arrays": {NAME: SHAPE, ...}, "expr": EXPR}
      makes float32 arrays of uniform [-1, 1) values (an output array is just another name
      the expression writes through out=), compiles EXPR, and answers "ok"
  {"time": ID}
      answers "SECONDS": per evaluation of EXPR, the fastest of three batches each lasting at
      least 20 ms (on a shared machine other jobs only ever add time)

EXPR is a Python expression over np and the array names, such as "np.matmul(a, b, out=c)".
Run with the system interpreter that has numpy (/usr/bin/python3); numpy's BLAS uses its
default threads.
"""
import json
import sys
import time

import numpy as np

TARGET_S = 0.02
BATCHES = 3


def batch(fn, n):
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return time.perf_counter() - t0


def per_call(fn):
    n = 1
    while True:
        d = batch(fn, n)
        if d >= TARGET_S:
            break
        nxt = int(n * 1.2 * TARGET_S / d) + 1 if d > 0 else n * 100
        n = min(max(nxt, n + 1), n * 100)
    best = d
    for _ in range(BATCHES - 1):
        best = min(best, batch(fn, n))
    return best / n


def main():
    rng = np.random.default_rng(1)
    cases = {}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if "setup" in req:
                env = {"np": np}
                for name, shape in req["arrays"].items():
                    env[name] = (rng.random(shape, dtype=np.float32) * 2 - 1)
                code = compile(req["expr"], "<case %s>" % req["setup"], "eval")
                cases[req["setup"]] = lambda code=code, env=env: eval(code, env)
                cases[req["setup"]]()
                print("ok", flush=True)
            else:
                print("%.9g" % per_call(cases[req["time"]]), flush=True)
        except Exception as e:  # the driver prints it and drops the numpy column of the case
            print("error: %s" % str(e).replace("\n", " "), flush=True)


if __name__ == "__main__":
    main()
