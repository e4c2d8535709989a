"""NumPy/OpenBLAS's relu(a @ b + bias) for n x n float32, or for a batch of
them ("64x128": 64 products of 128 x 128 @ 128 x 128), the baseline of
BenchmarkMatMulThreads (bench_engine_test.go). Run it once per thread count,
interleaved with the Go benchmark:

    OPENBLAS_NUM_THREADS=1 /usr/bin/python3 matmul_threads.py 1024
    OPENBLAS_NUM_THREADS=2 /usr/bin/python3 matmul_threads.py 64x128

It prints the best wall time of one call over at least a second (and five
calls), and the process CPU time per call.
"""
import sys
import time

import numpy as np


def main():
    arg = sys.argv[1] if len(sys.argv) > 1 else "1024"
    batch, _, n = arg.rpartition("x")
    n = int(n)
    lead = (int(batch),) if batch else ()
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, lead + (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, lead + (n, n)).astype(np.float32)
    bias = rng.uniform(-1, 1, n).astype(np.float32)

    def f():
        return np.maximum(a @ b + bias, 0)

    f()
    best, reps = float("inf"), 0
    cpu0 = time.process_time()
    end = time.perf_counter() + 1.0
    while time.perf_counter() < end or reps < 5:
        w0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - w0)
        reps += 1
    cpu = (time.process_time() - cpu0) / reps
    print(f"numpy matmul {arg} best_ms={best * 1e3:.2f} cpu_ms_per_call={cpu * 1e3:.2f} calls={reps}")


if __name__ == "__main__":
    main()
