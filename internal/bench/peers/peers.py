"""NumPy, Numba, numexpr and PyTorch versions of gojit's peer-benchmark
workloads.

Run by `gojit bench -peers` with Debian's /usr/bin/python3 (python3-numpy,
python3-numba, python3-numexpr, python3-torch). It reads a JSON spec on stdin, written by the Go side
(internal/bench/peers.go):

    {"threads": 2, "rounds": 3, "min_time": 0.2,
     "workloads": [{"name": "softmax 4096×1024", "kind": "softmax",
                    "shape": [4096, 1024],
                    "inputs": [{"shape": [4096, 1024], "seed": 4, "scale": 4}]}]}

A workload may also list "systems", the peers to measure besides NumPy
(the matmul's one-thread line: ["PyTorch"]); without it all of them run.

and writes one JSON object on stdout: versions, the BLAS NumPy loaded, and
for every workload and system its best time per call in nanoseconds and the
checksum of its output (the Go side compares it with its own). Progress goes
to stderr.

Systems: "NumPy" (idiomatic array expressions; BLAS for matmul, with
`threads` BLAS threads), "Numba" (@njit(fastmath=False), one thread) and
"Numba parallel" (@njit(parallel=True, fastmath=False), prange over rows,
`threads` threads), "numexpr" (numexpr.evaluate for the elementwise
parts and its sums, NumPy for what numexpr cannot express: max and matmul;
`threads` threads) and "PyTorch" (eager CPU tensor ops, the library's own
softmax, layer_norm and addmm; `threads` intra-op threads). The Numba
kernels are loops over float32 with float32 constants, the way one writes
Numba for speed. Numba compile time is excluded: every kernel runs once
before it is timed.

Timing: each system is first called for about min_time seconds (thread
pools start, caches warm); then each sample repeats the call k times, with
k chosen from the fastest warm call so that a sample lasts about min_time;
rounds samples per system, interleaved across systems, keeping the best
(the least disturbed by other processes on a shared machine).
"""

import json
import os
import sys
import time

SPEC = json.load(sys.stdin)
THREADS = str(SPEC.get("threads", 2))
# Thread counts must be set before NumPy (OpenBLAS) and Numba load.
for var in ("NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = THREADS

try:
    import numpy as np
    import numba
    from numba import njit, prange
    import numexpr as ne
    import torch
except ImportError as e:  # the Go side turns this into an install hint
    print(json.dumps({"error": "missing Python module: %s" % e.name}))
    sys.exit(3)

ne.set_num_threads(int(THREADS))
torch.set_num_threads(int(THREADS))
torch.set_grad_enabled(False)

F32 = np.float32
ZERO = F32(0.0)
HALF = F32(0.5)
NEG_INF = F32(-np.inf)
EPS = F32(1e-5)  # internal/bench.LayerNormEps


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def hash_float32(n, seed):
    """internal/bench.HashFloat32: lowbias32(i + seed*0x9E3779B9) / 2^31 - 1."""
    m = np.uint64(0xFFFFFFFF)
    h = (np.arange(n, dtype=np.uint64) + np.uint64((seed * 0x9E3779B9) & 0xFFFFFFFF)) & m
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x7FEB352D)) & m
    h ^= h >> np.uint64(15)
    h = (h * np.uint64(0x846CA68B)) & m
    h ^= h >> np.uint64(16)
    return (h.astype(np.float64) / 2.0**31 - 1.0).astype(np.float32)


def make_input(spec):
    shape = spec["shape"]
    x = hash_float32(int(np.prod(shape)), spec["seed"]).reshape(shape)
    if spec.get("scale"):
        x *= F32(spec["scale"])
    return x


def checksum(out):
    """internal/bench.OutputSum: weighted sums with weights i mod 7 + 1."""
    v = out.astype(np.float64).ravel()
    w = (np.arange(v.size) % 7 + 1).astype(np.float64)
    return {"sum": float(np.dot(v, w)), "abs": float(np.dot(np.abs(v), w))}


# ---- NumPy: idiomatic array expressions -------------------------------------


def np_chain5(a, b):
    return np.maximum((a + b) * a - b * HALF, ZERO)


def np_rowsum(x):
    return x.sum(axis=-1)


def np_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def np_layernorm(x, gamma, beta):
    d = x - x.mean(axis=-1, keepdims=True)
    v = (d * d).mean(axis=-1, keepdims=True)
    return d / np.sqrt(v + EPS) * gamma + beta


def np_matmul(a, b, bias):
    return np.maximum(a @ b + bias, ZERO)


def np_mix20(x, y, w, bias):
    a = x * w  # 1
    b = a + y  # 2
    c = np.abs(b)  # 3
    d = np.sqrt(c)  # 4
    e = d - y  # 5
    m = e.max(axis=-1, keepdims=True)  # 6
    f = e - m  # 7
    g = np.exp(f)  # 8
    s = g.sum(axis=-1, keepdims=True)  # 9
    h = g / s  # 10
    k = h * x  # 11
    l = np.tanh(y)  # 12
    p = k + l  # 13
    q = np.minimum(p, HALF)  # 14
    mu = q.mean(axis=-1, keepdims=True)  # 15
    r = q - mu  # 16
    u = r * r  # 17
    v = u * w  # 18
    z = v + bias  # 19
    return np.maximum(z, r)  # 20


# ---- numexpr: evaluate() for elementwise work and sums ----------------------
# Constants are float32 variables, so the expressions stay in float32.

NE = {"h": HALF, "z": ZERO, "eps": EPS}


def ne_eval(expr, **arrays):
    return ne.evaluate(expr, local_dict=dict(NE, **arrays))


def ne_chain5(a, b):
    return ne_eval("where((a + b) * a - b * h > z, (a + b) * a - b * h, z)", a=a, b=b)


def ne_rowsum(x):
    return ne_eval("sum(x, axis=1)", x=x)


def ne_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    e = ne_eval("exp(x - m)", x=x, m=m)
    s = ne_eval("sum(e, axis=1)", e=e)[:, None]
    return ne_eval("e / s", e=e, s=s)


def ne_layernorm(x, gamma, beta):
    n = F32(x.shape[-1])
    mu = ne_eval("sum(x, axis=1)", x=x)[:, None] / n
    d = ne_eval("x - mu", x=x, mu=mu)
    v = ne_eval("sum(d * d, axis=1)", d=d)[:, None] / n
    return ne_eval("d / sqrt(v + eps) * g + b", d=d, v=v, g=gamma, b=beta)


def ne_matmul(a, b, bias):
    t = a @ b
    return ne_eval("where(t + c > z, t + c, z)", t=t, c=bias)


def ne_mix20(x, y, w, bias):
    e = ne_eval("sqrt(abs(x * w + y)) - y", x=x, y=y, w=w)  # 1-5
    m = e.max(axis=-1, keepdims=True)  # 6
    g = ne_eval("exp(e - m)", e=e, m=m)  # 7, 8
    s = ne_eval("sum(g, axis=1)", g=g)[:, None]  # 9
    q = ne_eval("where(g / s * x + tanh(y) < h, g / s * x + tanh(y), h)", g=g, s=s, x=x, y=y)  # 10-14
    mu = ne_eval("sum(q, axis=1)", q=q)[:, None] / F32(x.shape[-1])  # 15
    return ne_eval("where((q - mu) * (q - mu) * w + c > q - mu, (q - mu) * (q - mu) * w + c, q - mu)",
                   q=q, mu=mu, w=w, c=bias)  # 16-20


# ---- PyTorch: eager CPU tensor ops -------------------------------------------
# Inputs are converted to tensors once, outside the timed calls; the result
# is converted back (without a copy) only for the checks.


def pt_chain5(a, b):
    return torch.clamp_min((a + b) * a - b * 0.5, 0.0)


def pt_rowsum(x):
    return x.sum(dim=-1)


def pt_softmax(x):
    return torch.softmax(x, dim=-1)


def pt_layernorm(x, gamma, beta):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, eps=float(EPS))


def pt_matmul(a, b, bias):
    return torch.relu(torch.addmm(bias, a, b))


def pt_mix20(x, y, w, bias):
    e = torch.sqrt(torch.abs(x * w + y)) - y  # 1-5
    g = torch.exp(e - e.amax(dim=-1, keepdim=True))  # 6-8
    h = g / g.sum(dim=-1, keepdim=True)  # 9, 10
    q = torch.clamp_max(h * x + torch.tanh(y), 0.5)  # 11-14
    r = q - q.mean(dim=-1, keepdim=True)  # 15, 16
    return torch.maximum(r * r * w + bias, r)  # 17-20


OTHERS = {
    # kind: (numexpr function, PyTorch function)
    "chain5": (ne_chain5, pt_chain5),
    "rowsum": (ne_rowsum, pt_rowsum),
    "softmax": (ne_softmax, pt_softmax),
    "layernorm": (ne_layernorm, pt_layernorm),
    "matmul": (ne_matmul, pt_matmul),
    "mix20": (ne_mix20, pt_mix20),
}


# ---- Numba: loops over float32, compiled serial and parallel ----------------
# prange is range in the serial compilation.


def nb_chain5(out, a, b):
    for i in prange(a.shape[0]):
        x = a[i]
        y = b[i]
        out[i] = max((x + y) * x - y * HALF, ZERO)


def nb_rowsum(out, x):
    for i in prange(x.shape[0]):
        s = ZERO
        for j in range(x.shape[1]):
            s += x[i, j]
        out[i] = s


def nb_softmax(out, x):
    for i in prange(x.shape[0]):
        m = NEG_INF
        for j in range(x.shape[1]):
            m = max(m, x[i, j])
        s = ZERO
        for j in range(x.shape[1]):
            e = np.exp(x[i, j] - m)
            out[i, j] = e
            s += e
        for j in range(x.shape[1]):
            out[i, j] /= s


def nb_layernorm(out, x, gamma, beta):
    n = F32(x.shape[1])
    for i in prange(x.shape[0]):
        s = ZERO
        for j in range(x.shape[1]):
            s += x[i, j]
        mean = s / n
        ss = ZERO
        for j in range(x.shape[1]):
            d = x[i, j] - mean
            ss += d * d
        sd = np.sqrt(ss / n + EPS)
        for j in range(x.shape[1]):
            out[i, j] = (x[i, j] - mean) / sd * gamma[j] + beta[j]


def nb_matmul(out, a, b, bias):
    # i-k-j order: the inner loop runs along rows of b and out, which
    # LLVM vectorizes without reassociating anything.
    n = b.shape[1]
    for i in prange(a.shape[0]):
        for j in range(n):
            out[i, j] = ZERO
        for p in range(a.shape[1]):
            av = a[i, p]
            for j in range(n):
                out[i, j] += av * b[p, j]
        for j in range(n):
            out[i, j] = max(out[i, j] + bias[j], ZERO)


def nb_mix20(out, x, y, w, bias):
    cols = x.shape[1]
    for i in prange(x.shape[0]):
        e = np.empty(cols, dtype=np.float32)
        m = NEG_INF
        for j in range(cols):
            e[j] = np.sqrt(np.abs(x[i, j] * w[j] + y[i, j])) - y[i, j]  # 1-5
            m = max(m, e[j])  # 6
        s = ZERO
        for j in range(cols):
            e[j] = np.exp(e[j] - m)  # 7, 8
            s += e[j]  # 9
        qs = ZERO
        for j in range(cols):
            q = min(e[j] / s * x[i, j] + np.tanh(y[i, j]), HALF)  # 10-14
            e[j] = q
            qs += q  # 15
        mu = qs / F32(cols)
        for j in range(cols):
            r = e[j] - mu  # 16
            out[i, j] = max(r * r * w[j] + bias[j], r)  # 17-20


KINDS = {
    # kind: (numpy function, numba kernel, output shape from input shapes)
    "chain5": (np_chain5, nb_chain5, lambda s: s[0]),
    "rowsum": (np_rowsum, nb_rowsum, lambda s: s[0][:1]),
    "softmax": (np_softmax, nb_softmax, lambda s: s[0]),
    "layernorm": (np_layernorm, nb_layernorm, lambda s: s[0]),
    "matmul": (np_matmul, nb_matmul, lambda s: [s[0][0], s[1][1]]),
    "mix20": (np_mix20, nb_mix20, lambda s: s[0]),
}

# Tolerances of the Numba-vs-NumPy check, as in internal/bench (rtol, atol
# factor); rowsum and matmul scale atol with the reduced length.
TOL = {
    "chain5": (1e-6, 1e-6),
    "rowsum": (0.0, 1e-5),
    "softmax": (1e-5, 1e-9),
    "layernorm": (1e-4, 1e-4),
    "matmul": (0.0, 1e-5),
    "mix20": (1e-4, 1e-5),
}

_compiled = {}


def check(workload, kind, system, out, ref, args):
    """Stops with a message if system's output differs from NumPy's beyond TOL."""
    rtol, atol = TOL[kind]
    if kind in ("rowsum", "matmul"):
        atol *= float(np.abs(args[0]).sum(axis=-1).max()) if kind == "rowsum" else args[0].shape[1]
    if out.shape != ref.shape or not np.allclose(out, ref, rtol=rtol, atol=atol):
        bad = np.argmax(np.abs(out - ref)) if out.shape == ref.shape else 0
        raise SystemExit("%s: %s differs from NumPy at flat index %d: %r vs %r"
                         % (workload, system, bad, out.ravel()[bad], ref.ravel()[bad]))


def numba_kernel(kind, parallel):
    key = (kind, parallel)
    if key not in _compiled:
        fn = KINDS[kind][1]
        if parallel:
            _compiled[key] = njit(parallel=True, fastmath=False)(fn)
        else:
            _compiled[key] = njit(fastmath=False)(fn)
    return _compiled[key]


def sample(fn, state):
    """One sample: k calls; returns seconds per call."""
    k = state["k"]
    t0 = time.perf_counter()
    for _ in range(k):
        fn()
    return (time.perf_counter() - t0) / k


def blas_name():
    """The BLAS library NumPy loaded, from this process's memory map."""
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "blas" in line.lower() or "blis" in line.lower() or "mkl" in line.lower()}
        return ", ".join(sorted(os.path.basename(l) for l in libs if "/" in l)) or "unknown"
    except OSError:
        return "unknown"


def main():
    rounds = int(SPEC.get("rounds", 3))
    min_time = float(SPEC.get("min_time", 0.2))
    results = []
    for wl in SPEC["workloads"]:
        kind = wl["kind"]
        args = [make_input(s) for s in wl["inputs"]]
        shapes = [list(a.shape) for a in args]
        ref = KINDS[kind][0](*args)
        if ref.dtype != np.float32:
            raise SystemExit("%s: NumPy result is %s, not float32" % (wl["name"], ref.dtype))
        # A workload may name the systems worth measuring (the matmul's
        # one-thread line: the BLAS-based ones); NumPy always runs.
        want = set(wl.get("systems") or ["Numba", "Numba parallel", "numexpr", "PyTorch"])
        systems = {"NumPy": lambda args=args: KINDS[kind][0](*args)}
        outs = {}
        for name, parallel in (("Numba", False), ("Numba parallel", True)):
            if name not in want:
                continue
            out = np.empty(KINDS[kind][2](shapes), dtype=np.float32)
            kern = numba_kernel(kind, parallel)
            t0 = time.perf_counter()
            kern(out, *args)  # compiles
            log("%s: %s compiled in %.2f s" % (wl["name"], name, time.perf_counter() - t0))
            check(wl["name"], kind, name, out, ref, args)
            outs[name] = out
            systems[name] = lambda kern=kern, out=out, args=args: kern(out, *args)
        ne_fn, pt_fn = OTHERS[kind]
        targs = [torch.from_numpy(a) for a in args]
        for name, fn in (("numexpr", lambda args=args: ne_fn(*args)),
                         ("PyTorch", lambda targs=targs: pt_fn(*targs))):
            if name not in want:
                continue
            out = fn()
            out = out.numpy() if name == "PyTorch" else out
            if out.dtype != np.float32:
                raise SystemExit("%s: %s result is %s, not float32" % (wl["name"], name, out.dtype))
            check(wl["name"], kind, name, out, ref, args)
            outs[name] = out
            systems[name] = fn
        sums = {"NumPy": checksum(ref)}
        sums.update({n: checksum(o) for n, o in outs.items()})
        # Warm up (thread pools start, caches fill) for about min_time,
        # then size samples from the fastest warm call.
        state = {}
        for name, fn in systems.items():
            fastest, t_end, calls = float("inf"), time.perf_counter() + min_time, 0
            while calls < 2 or time.perf_counter() < t_end:
                t0 = time.perf_counter()
                fn()
                fastest = min(fastest, time.perf_counter() - t0)
                calls += 1
            state[name] = {"k": max(1, int(min_time / max(fastest, 1e-9) + 0.5)), "best": float("inf")}
        for r in range(rounds):
            for name, fn in systems.items():
                t = sample(fn, state[name])
                state[name]["best"] = min(state[name]["best"], t)
            log("%s [%d/%d]: %s" % (wl["name"], r + 1, rounds,
                                    ", ".join("%s %.3g ms" % (n, s["best"] * 1e3) for n, s in state.items())))
        for name in systems:
            results.append({"workload": wl["name"], "system": name, "ns": state[name]["best"] * 1e9,
                            "checksum": sums[name]})
    json.dump({
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "numba": numba.__version__,
        "numexpr": ne.__version__,
        "torch": torch.__version__,
        "blas": blas_name(),
        "threads": int(THREADS),
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "results": results,
    }, sys.stdout)
    print()


if __name__ == "__main__":
    main()
