"""The numpy side of `make compare` (cmd/ropcompare): a worker over stdin/stdout.

One JSON request per line:
  {"setup": ID, "arrays": {NAME: SHAPE, ...}, "expr": EXPR}
      makes float32 arrays of uniform [-1, 1) values (an output array is just another name
      the expression writes through out=), compiles EXPR, and answers "ok"
  {"time": ID}
      answers "SECONDS": per evaluation of EXPR, the fastest of three batches each lasting at
      least 20 ms (on a shared machine other jobs only ever add time)

  {"blas": 1}
      answers one JSON line: which BLAS numpy's matmul runs and which kernel it chose:
      {"library", "api" ("openblas", "mkl", "blis", ... or "" when unknown), "core" (OpenBLAS's
      kernel, e.g. "SkylakeX"; "" when unknown), "version", "via" (threadpoolctl, or ctypes on
      the library numpy loaded)}
  {"check": 1}
      answers "ok" when float32 matmul (square, skinny, a vector, a transposed operand, a batch)
      agrees with a float64 reference computed without BLAS on sampled entries, else an error
      naming the first shape that does not: a kernel forced by OPENBLAS_CORETYPE can be
      wrong on a CPU the library does not know
  {"probe": N}
      answers "SECONDS": per float32 N x N x N matmul, timed as "time" times a case

EXPR is a Python expression over np and the array names, such as "np.matmul(a, b, out=c)".
Run with the system interpreter that has numpy (/usr/bin/python3); numpy's BLAS uses its
default threads, and OPENBLAS_CORETYPE when the driver sets it (cmd/ropcompare tries several
and keeps the fastest that checks).
"""
import ctypes
import json
import re
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


def blas_info():
    try:
        import threadpoolctl

        for i in threadpoolctl.threadpool_info():
            if i.get("user_api") == "blas":
                return {"library": i.get("filepath") or "", "api": i.get("internal_api") or "",
                        "core": i.get("architecture") or "", "version": i.get("version") or "",
                        "via": "threadpoolctl"}
    except Exception:  # not installed, or too old to know the library: ask the library itself
        pass
    libs = []
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            if re.search(r"blas|mkl|blis", path.rsplit("/", 1)[-1]) and path not in libs:
                libs.append(path)
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("", "scipy_"):
            for suffix in ("", "64_"):
                core = getattr(lib, prefix + "openblas_get_corename" + suffix, None)
                if core is None:
                    continue
                core.restype = ctypes.c_char_p
                info = {"library": path, "api": "openblas", "core": core().decode(), "version": "",
                        "via": "ctypes"}
                config = getattr(lib, prefix + "openblas_get_config" + suffix, None)
                if config is not None:
                    config.restype = ctypes.c_char_p
                    m = re.search(r"OpenBLAS ([0-9.]+)", config().decode())
                    info["version"] = m.group(1) if m else ""
                return info
    api = ""
    if libs and "mkl" in libs[0]:
        api = "mkl"
    elif libs and "blis" in libs[0]:
        api = "blis"
    return {"library": libs[0] if libs else "", "api": api, "core": "", "version": "", "via": "ctypes"}


def check_blas():
    rng = np.random.default_rng(7)
    # (batch, m, n, k, b transposed): the shapes of the compare rows' matmuls, each BLAS path
    for batch, m, n, k, bt in [(0, 64, 64, 64, False), (0, 256, 192, 320, False), (0, 1, 4096, 4096, False),
                               (0, 1024, 1024, 1024, False), (0, 256, 1024, 1024, True),
                               (0, 1, 4096, 4096, True), (8, 128, 128, 64, False), (0, 33, 17, 129, False)]:
        lead = (batch,) if batch else ()
        a = rng.random(lead + (m, k), dtype=np.float32) * 2 - 1
        b = rng.random(lead + ((n, k) if bt else (k, n)), dtype=np.float32) * 2 - 1
        bb = np.swapaxes(b, -1, -2) if bt else b
        c = np.matmul(a, bb)
        if not np.all(np.isfinite(c)):
            return "%s: non-finite results" % ((batch, m, n, k, bt),)
        s = min(256, m * n)
        i, j = rng.integers(0, m, s), rng.integers(0, n, s)
        p = rng.integers(0, batch, s) if batch else None
        ar = (a[p, i, :] if batch else a[i, :]).astype(np.float64)
        br = (np.swapaxes(bb, -1, -2)[p, j, :] if batch else bb[:, j].T).astype(np.float64)
        ref = (ar * br).sum(axis=1)  # elementwise and a sum: no BLAS in the reference
        got = (c[p, i, j] if batch else c[i, j]).astype(np.float64)
        bound = 4 * k * 2.0 ** -24 * (np.abs(ar) * np.abs(br)).sum(axis=1)
        bad = np.abs(got - ref) > bound
        if bad.any():
            x = int(np.argmax(bad))
            return "%s: entry (%d, %d) is %.9g, the reference %.9g" % ((batch, m, n, k, bt), i[x], j[x], got[x], ref[x])
    return ""


def main():
    rng = np.random.default_rng(1)
    cases = {}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if "blas" in req:
                print(json.dumps(blas_info()), flush=True)
            elif "check" in req:
                err = check_blas()
                print("error: " + err if err else "ok", flush=True)
            elif "probe" in req:
                n = int(req["probe"])
                a = rng.random((n, n), dtype=np.float32)
                b = rng.random((n, n), dtype=np.float32)
                c = np.empty((n, n), dtype=np.float32)
                print("%.9g" % per_call(lambda: np.matmul(a, b, out=c)), flush=True)
            elif "setup" in req:
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
