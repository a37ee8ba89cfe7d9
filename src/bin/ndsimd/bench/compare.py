# The NumPy side of `ndsimd bench --compare`: one request a line on stdin, one JSON
# answer a line on stdout. Inputs are made by the same formula as the Rust side's.
import json, os, sys, time
try:
    import numpy as np
except ImportError:
    print(json.dumps({"error": "no numpy"}), flush=True)
    sys.exit(0)
print(json.dumps({"numpy": np.__version__}), flush=True)

def aligned(n, dt):
    # Page-aligned, so every input and output lies at the same offset modulo 4 KiB.
    # NumPy's exp and log ran 7-40% slower with the output 40-192 bytes past the
    # input (a load waiting on a store that matches its low 12 address bits), and
    # where the allocator put them moved NumPy's time between runs: this is its
    # best placement (docs/perf.md).
    item = np.dtype(dt).itemsize
    b = np.empty(n + 4096 // item, dtype=dt)
    s = (-b.ctypes.data % 4096) // item
    return b[s:s + n]

def vec(n, k, dt, small):
    i = np.arange(n, dtype=np.int64)
    v = ((i * k) % 7 - 3) if small else (1 + ((i * k) % 1000) / 64)
    out = aligned(n, dt)
    out[:] = v
    return out

def case(op, n):
    # "par OP": our pool's row; NumPy's same call (it has one thread).
    op = op.removeprefix("par ")
    dt = np.float32 if op.startswith("f32 ") else np.float64
    op = op.removeprefix("f32 ")
    if op.startswith("i64 "):
        # The integer rows (bench/ints.rs): small values, as int64.
        op = op.removeprefix("i64 ")
        x, y = vec(n, 7919, np.int64, True), vec(n, 104729, np.int64, True)
        # Answers go back as float64, as every row's (exact for these values).
        if op == "add":
            return lambda: x + y, lambda: (x + y).astype(np.float64)
        if op == "sum":
            return lambda: x.sum(), lambda: np.array([x.sum()], dtype=np.float64)
        return None
    if op.startswith("matmul"):
        # A square, or a batch of n squares of side d ("matmul f64 1000xD²").
        rest = op.removeprefix("matmul f64").removeprefix("matmul f32")
        shape = (n, n) if rest == "" else (n,) + (int(rest.split("x")[1].rstrip("²")),) * 2
        size = int(np.prod(shape))
        a = vec(size, 7919, dt, True).reshape(shape)
        b = vec(size, 104729, dt, True).reshape(shape)
        c = np.empty(shape, dt)
        return lambda: np.matmul(a, b, out=c), lambda: c
    x, y, o = vec(n, 7919, dt, False), vec(n, 104729, dt, False), aligned(n, dt)
    if op.startswith("softmax "):
        # "softmax RxC": along axis 1, the textbook NumPy form users write.
        r, c = (int(d) for d in op.removeprefix("softmax ").split("x"))
        a = x.reshape(r, c)
        def softmax():
            e = np.exp(a - a.max(1, keepdims=True))
            return e / e.sum(1, keepdims=True)
        return softmax, lambda: softmax().ravel()
    # The workspace rows: NumPy's allocating expressions.
    if op == "ws add":
        return lambda: x + y, lambda: x + y
    if op in ("ws chain", "blocked chain"):
        return lambda: np.sqrt(x * y + x), lambda: np.sqrt(x * y + x)
    if op == "ne chain":
        # numexpr's blocked one-pass evaluation, on as many threads as ours.
        try:
            import numexpr as ne
        except ImportError:
            return "numexpr is not importable: pip install numexpr==2.14.2"
        ne.set_num_threads(int(os.environ.get("NDSIMD_NUM_THREADS", os.cpu_count() or 1)))
        env = {"x": x, "y": y}
        return (lambda: ne.evaluate("sqrt(x*y+x)", local_dict=env, out=o)), lambda: o
    binary = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
              "maximum": np.maximum, "pow": np.power}
    if op in ("powf", "powf_into"):
        # A scalar exponent, as `a ** 2.5` (np.power with a Python float).
        if op == "powf":
            return lambda: np.power(x, 2.5), lambda: np.power(x, 2.5)
        return lambda: np.power(x, 2.5, out=o), lambda: o
    unary = {"neg": np.negative, "abs": np.abs, "sqrt": np.sqrt, "exp": np.exp, "log": np.log,
             "log10": np.log10, "expm1": np.expm1, "log1p": np.log1p, "tanh": np.tanh,
             "sin": np.sin, "cos": np.cos}
    name = op.removesuffix("_into")
    if op.endswith("_into") and name in binary:
        f = binary[name]; return lambda: f(x, y, out=o), lambda: o
    if op.endswith("_into") and name in unary:
        f = unary[name]; return lambda: f(x, out=o), lambda: o
    if op in binary:
        f = binary[op]; return lambda: f(x, y), lambda: f(x, y)
    if op in unary:
        f = unary[op]; return lambda: f(x), lambda: f(x)
    red = {"sum": np.sum, "max": np.max, "min": np.min, "argmax": np.argmax}
    if op in red:
        f = red[op]; return lambda: f(x), lambda: np.array([f(x)], dtype=dt)
    # The NumPy-port rows (bench/port.rs); argsort is the stable kind, as ours.
    if op == "take":
        idx = (np.arange(n, dtype=np.int64) * 7919) % n
        return lambda: np.take(x, idx), lambda: np.take(x, idx)
    if op == "where":
        c = x > y
        return lambda: np.where(c, x, y), lambda: np.where(c, x, y)
    if op == "concatenate":
        return lambda: np.concatenate([x, y]), lambda: np.concatenate([x, y])
    if op == "cumsum":
        return lambda: np.cumsum(x), lambda: np.cumsum(x)
    if op == "argsort":
        f = lambda: np.argsort(x, kind="stable")
        return f, lambda: f().astype(dt)
    if op == "dot":
        return lambda: np.dot(x, y), lambda: np.array([np.dot(x, y)], dtype=dt)
    return None

def per_call(call, target, samples):
    reps = 1
    while True:
        t = time.perf_counter()
        for _ in range(reps):
            call()
        e = time.perf_counter() - t
        if e >= target / 4 or reps >= 1 << 24:
            break
        reps *= 4
    reps = max(1, int(target / max(e / reps, 1e-9)))
    out = []
    for _ in range(samples):
        t = time.perf_counter()
        for _ in range(reps):
            call()
        out.append((time.perf_counter() - t) / reps)
    return sorted(out)[len(out) // 2]

for line in sys.stdin:
    req = json.loads(line)
    c = case(req["op"], req["n"])
    if c is None or isinstance(c, str):
        print(json.dumps({"skip": True, "why": c}), flush=True)
        continue
    call, result = c
    if req["cmd"] == "answer":
        call()
        r = np.ascontiguousarray(result()).ravel()
        if os.environ.get("NDSIMD_COMPARE_PLANT"):
            r = r.copy(); r[0] = r[0] * 2 + 1  # a planted wrong answer, for the test
        np.save(req["path"], r)
        print(json.dumps({"ok": True}), flush=True)
    else:
        print(json.dumps({"seconds": per_call(call, req["target"], req["samples"])}), flush=True)
