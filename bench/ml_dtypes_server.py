"""Times ml_dtypes 0.6.0 casts for bench/ml-dtypes.mjs: one JSON request per line on stdin, one JSON reply per line.

Request: {"dtype": "float8_e4m3fn", "direction": "encode" | "decode", "n": 16777216, "ms": 15}
Reply:   {"seconds": <median seconds per call over the sample>, "calls": k}
The cast is np.copyto(out, src, casting="unsafe") into preallocated arrays, ml_dtypes' fastest path.
"""
import json
import sys
import time

import ml_dtypes
import numpy as np

arrays = {}


def operands(dtype, direction, n):
    key = (dtype, direction, n)
    if key not in arrays:
        arrays.clear()  # one case at a time: 16M-element arrays add up
        t = np.dtype(getattr(ml_dtypes, dtype) if hasattr(ml_dtypes, dtype) else dtype)
        rng = np.random.default_rng(12345)
        # Values spread over the type's range, both signs (log-uniform), as the JS side makes them.
        top = float(ml_dtypes.finfo(t).max)
        x = (rng.choice([-1.0, 1.0], n) * top * 2.0 ** (-rng.integers(0, 1024, n) / 64)).astype(np.float32)
        if direction == "encode":
            arrays[key] = (x, np.empty(n, dtype=t))
        else:
            arrays[key] = (x.astype(t), np.empty(n, dtype=np.float32))
    return arrays[key]


def main():
    print(json.dumps({"ready": True, "ml_dtypes": ml_dtypes.__version__, "numpy": np.__version__}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        src, out = operands(req["dtype"], req["direction"], req["n"])
        np.copyto(out, src, casting="unsafe")  # warm
        calls = 0
        start = time.perf_counter()
        budget = req["ms"] / 1000
        while True:
            np.copyto(out, src, casting="unsafe")
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= budget:
                break
        print(json.dumps({"seconds": elapsed / calls, "calls": calls}), flush=True)


main()
