#!/usr/bin/env python3
"""Generate the NumPy differential fixtures used by tests/numpy_fixtures.rs and src/npy.rs.

Run by hand from anywhere (needs NumPy >= 2.0):

    python3 tests/data/gen_fixtures.py

Output (all under tests/data/fixtures/, which is wiped of *.npy first):

* ``manifest.txt``: one case per line, tab-separated, ``#`` starts a comment line.
  Columns by kind (FILE is a name relative to the fixtures directory):

      broadcast  DTYPE  OP     A     PRE_A  B     PRE_B  OUT|error
      unary      DTYPE  OP     IN    PRE    OUT
      slice      DTYPE  IN     PRE   SPEC   OUT|error
      reshape    DTYPE  IN     PRE   SHAPE  OUT|error  view|copy|any|-
      transpose  DTYPE  IN     PRE   AXES   OUT|error

  DTYPE is ``f64`` or ``f32``; OP is ``add``/``sub``/``mul``/``div`` (broadcast) or
  ``neg``/``abs`` (unary).
  PRE is applied to the loaded input before the operation under test, to feed it a
  non-contiguous / reversed view: ``-`` (nothing) or ``|``-joined steps, each one of
  ``T`` (reverse all axes), ``permute:AXES``, ``slice:SPEC``.
  SPEC is a NumPy basic-indexing expression: comma-separated items, each ``None``
  (new axis), an integer index, or ``start:stop[:step]`` with parts optional; ``()``
  is the empty index tuple.  SHAPE / AXES: comma-separated integers, ``()`` for none;
  AXES ``rev`` means ``.T`` (all axes reversed).
  OUT ``error`` means NumPy raised (the Rust API must return Err, not panic).
  The reshape view column is ``view`` when NumPy's result shares memory with the input,
  ``copy`` when it does not, ``any`` for size-0 results (no memory to share), and
  ``-`` for errors.

* ``format/*.npy``: files exercising the .npy reader (Fortran order, big-endian,
  format versions 2.0 and 3.0, an unsupported dtype).  Every array there holds
  ``arange(size)`` in logical C order.

Values are drawn from a seeded generator and include IEEE edge cases (+-0, +-inf, NaN
with both signs and a payload, subnormals, the largest finite values), so additions
overflow and divisions divide by zero.  Comparison (in Rust) is bitwise except that any
NaN matches any NaN.
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
FMT = os.path.join(OUT, "format")

rng = np.random.default_rng(0x6E6473696D64)  # "ndsimd"
DT = {"f64": np.float64, "f32": np.float32}
UFUNC = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}

lines = []
counts = {}
file_counter = [0]


# ----------------------------------------------------------------------------- helpers


saved = {}


def save(arr, tag):
    """Save a C-ordered copy of arr (or a NumPy scalar) and return its file name.

    Identical arrays (same dtype, shape and bytes) share one file."""
    arr = np.array(arr, order="C", copy=True)
    assert arr.flags.c_contiguous
    key = (arr.dtype.str, arr.shape, arr.tobytes())
    if key not in saved:
        file_counter[0] += 1
        name = "%s_%04d.npy" % (tag, file_counter[0])
        np.save(os.path.join(OUT, name), arr)
        saved[key] = name
    return saved[key]


def add_line(kind, *cols):
    counts[kind] = counts.get(kind, 0) + 1
    lines.append("\t".join([kind] + [str(c) for c in cols]))


def fmt_ints(xs):
    xs = list(xs)
    return ",".join(str(x) for x in xs) if xs else "()"


def parse_ints(s):
    return () if s == "()" else tuple(int(x) for x in s.split(","))


def fmt_item(it):
    if it is None:
        return "None"
    if isinstance(it, slice):
        a = "" if it.start is None else str(it.start)
        b = "" if it.stop is None else str(it.stop)
        s = "%s:%s" % (a, b)
        if it.step is not None:
            s += ":%d" % it.step
        return s
    return str(int(it))


def fmt_spec(items):
    return ",".join(fmt_item(i) for i in items) if items else "()"


def parse_spec(s):
    if s == "()":
        return ()
    out = []
    for part in s.split(","):
        if part == "None":
            out.append(None)
        elif ":" in part:
            bits = part.split(":")
            assert len(bits) in (2, 3), part
            vals = [None if b == "" else int(b) for b in bits]
            out.append(slice(*vals))
        else:
            out.append(int(part))
    return tuple(out)


def apply_pre(a, pre):
    if pre == "-":
        return a
    for step in pre.split("|"):
        if step == "T":
            a = a.T
        elif step.startswith("permute:"):
            a = np.transpose(a, parse_ints(step[len("permute:"):]))
        elif step.startswith("slice:"):
            a = np.asarray(a[parse_spec(step[len("slice:"):])])
        else:
            raise ValueError(step)
    return a


def edge_values(dtype):
    fi = np.finfo(dtype)
    tiny = dtype(fi.tiny)
    sub_min = dtype(fi.smallest_subnormal)
    sub_max = np.nextafter(tiny, dtype(0))
    bits = np.uint64 if dtype == np.float64 else np.uint32
    payload_nan = (
        np.array([0x7FF8_0000_0000_1234], bits)
        if dtype == np.float64
        else np.array([0x7FC0_1234], bits)
    ).view(dtype)[0]
    vals = [
        0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, payload_nan,
        sub_min, -sub_min, sub_max, -sub_max, tiny, -tiny,
        fi.max, -fi.max, fi.max / 2, 1.0, -1.0, 0.5, 3.0, -7.25, 0.1,
    ]
    out = np.array(vals, dtype=dtype)
    out[5] = np.copysign(np.array(np.nan, dtype), dtype(-1.0))
    return out


def values(shape, dtype, edge_p=0.25):
    """Random finite values mixed with IEEE edge cases."""
    n = int(np.prod(shape, dtype=np.int64))
    v = np.round(rng.standard_normal(n) * 8, 3).astype(dtype)
    edges = edge_values(dtype)
    mask = rng.random(n) < edge_p
    v[mask] = rng.choice(edges, size=int(mask.sum()))
    return v.reshape(shape)


def arange(shape, dtype=np.float64):
    n = int(np.prod(shape, dtype=np.int64))
    return (np.arange(n, dtype=dtype) + 1).reshape(shape)


# --------------------------------------------------------------------------- broadcast


def bcast(op, a, pre_a, b, pre_b, dtype="f64"):
    fa = save(a, "bc")
    fb = save(b, "bc")
    A = apply_pre(a, pre_a)
    B = apply_pre(b, pre_b)
    try:
        np.broadcast_shapes(A.shape, B.shape)
    except ValueError:
        out = "error"
    else:
        with np.errstate(all="ignore"):
            r = UFUNC[op](A, B)
        assert r.dtype == DT[dtype], (r.dtype, dtype)
        out = save(r, "bc")
    add_line("broadcast", dtype, op, fa, pre_a, fb, pre_b, out)


def small_target(rank):
    dims = [int(rng.choice([1, 2, 3], p=[0.2, 0.5, 0.3])) for _ in range(rank)]
    while np.prod(dims, dtype=np.int64) > 48:
        i = int(rng.choice([i for i, d in enumerate(dims) if d > 1]))
        dims[i] -= 1
    return dims


def derive(target, rank):
    dims = target[len(target) - rank:]
    return tuple(d if rng.random() < 0.6 else 1 for d in dims)


def gen_broadcast():
    ops = list(UFUNC)
    k = 0
    # Every pair of operand ranks 0..=6, both operand orders, same op.
    for ra in range(7):
        for rb in range(7):
            t = small_target(max(ra, rb))
            sa, sb = derive(t, ra), derive(t, rb)
            op = ops[k % 4]
            k += 1
            dt = "f32" if k % 5 == 0 else "f64"
            a, b = values(sa, DT[dt]), values(sb, DT[dt])
            bcast(op, a, "-", b, "-", dt)
            bcast(op, b, "-", a, "-", dt)
    # Hand-picked shape pairs: size-0 and size-1 dims, scalars; all four ops, both orders.
    pairs = [
        ((), ()),
        ((), (3,)),
        ((), (0,)),
        ((1,), (0,)),
        ((0, 3), (1, 3)),
        ((0, 3), (3,)),
        ((2, 0, 3), (1, 1, 3)),
        ((2, 1, 4), (3, 1)),
        ((1, 1, 1), (2, 3)),
        ((4, 1), (1, 5)),
        ((1,), (1, 1, 1, 1, 1, 1)),
        ((2, 1, 2, 1, 2, 1), (1, 2, 1, 2, 1, 2)),
        ((5, 1, 0), (1, 7, 1)),
    ]
    for sa, sb in pairs:
        for op in ops:
            a, b = values(sa, np.float64), values(sb, np.float64)
            bcast(op, a, "-", b, "-")
            bcast(op, b, "-", a, "-")
    # Pairs that must fail to broadcast, both orders.
    bad = [
        ((3,), (4,)),
        ((2, 3), (3, 2)),
        ((0,), (2,)),
        ((2, 0), (3, 1)),
        ((5, 4, 3), (4, 2)),
        ((2, 0, 3), (2, 3)),
        ((1, 1, 1, 1, 1, 2), (3,)),
        ((2, 2, 2, 2, 2, 2), (2, 2, 2, 2, 3, 2)),
    ]
    for i, (sa, sb) in enumerate(bad):
        op = ops[i % 4]
        a, b = values(sa, np.float64), values(sb, np.float64)
        bcast(op, a, "-", b, "-")
        bcast(op, b, "-", a, "-")
    # Non-contiguous / reversed operands.
    noncontig = [
        ((3, 4), "T", (3,), "-"),
        ((4, 6), "slice:::-1,1::2", (4, 1), "slice:::-1"),
        ((2, 3, 4), "permute:2,0,1", (2, 3), "-"),
        ((3, 4), "slice:1,2", (2, 2), "T"),
        ((5, 4), "slice:::2,::-1|T", (4, 1), "slice:::-1"),
        ((6,), "slice:::-2", (3, 6), "slice:::-1,1::2"),
        ((2, 3), "slice:None,:,None,:", (3, 1, 1, 1), "-"),
        ((4, 4), "T", (4, 4), "slice:::-1,::-1"),
        ((3, 4), "T", (3, 4), "-"),  # fails: [4, 3] vs [3, 4]
    ]
    for i, (sa, pa, sb, pb) in enumerate(noncontig):
        for op in ops:
            dt = "f32" if i % 3 == 2 else "f64"
            a, b = values(sa, DT[dt]), values(sb, DT[dt])
            bcast(op, a, pa, b, pb, dt)
            if op in ("sub", "div"):
                bcast(op, b, pb, a, pa, dt)
    # Full IEEE tables: every edge value against every edge value.
    for dt in ("f64", "f32"):
        e = edge_values(DT[dt])
        for op in ops:
            bcast(op, e.reshape(-1, 1), "-", e, "-", dt)


def gen_unary():
    for dt in ("f64", "f32"):
        e = edge_values(DT[dt])
        cases = [
            (e, "-"),
            (values((3, 4), DT[dt]), "T"),
            (values((4, 5), DT[dt]), "slice:::-1,1::2"),
            (values((), DT[dt]), "-"),
            (values((2, 0), DT[dt]), "-"),
        ]
        for a, pre in cases:
            f = save(a, "un")
            A = apply_pre(a, pre)
            for op, fn in (("neg", np.negative), ("abs", np.abs)):
                add_line("unary", dt, op, f, pre, save(fn(A), "un"))


# ----------------------------------------------------------------------------- slicing


def rand_bound(n):
    if rng.random() < 0.3:
        return None
    return int(rng.integers(-n - 3, n + 4))


def rand_spec(shape):
    items = []
    nd = len(shape)
    consume = int(rng.integers(0, nd + 1)) if rng.random() < 0.3 else nd
    axis = 0
    while axis < consume:
        r = rng.random()
        if r < 0.12:
            items.append(None)
            continue
        n = shape[axis]
        if r < 0.32 and n > 0:
            items.append(int(rng.integers(-n, n)))
        else:
            step = [None, 1, 2, 3, -1, -2, -3][int(rng.integers(0, 7))]
            items.append(slice(rand_bound(n), rand_bound(n), step))
        axis += 1
    if rng.random() < 0.1:
        items.append(None)
    return items


def rand_shape(rank, maxd):
    return tuple(int(rng.integers(0 if rng.random() < 0.08 else 1, maxd + 1)) for _ in range(rank))


def slice_case(a, pre, spec):
    f = save(a, "sl")
    A = apply_pre(a, pre)
    try:
        r = A[parse_spec(spec)]
    except (IndexError, ValueError):
        out = "error"
    else:
        out = save(r, "sl")
    add_line("slice", "f64", f, pre, spec, out)


def gen_slice():
    maxd = {1: 9, 2: 6, 3: 5, 4: 4}
    hand = [
        ((10,), "1:5:2"),
        ((10,), "::-1"),
        ((10,), "-3:"),
        ((10,), "-100:100"),
        ((10,), "100:"),
        ((10,), "5:2"),
        ((10,), "5:2:-1"),
        ((10,), "-1:-100:-3"),
        ((10,), ":-100:-1"),
        ((10,), "-1"),
        ((10,), "-10"),
        ((10,), "None,2:4"),
        ((10,), "2:4,None"),
        ((10,), "()"),
        ((0,), ":"),
        ((0,), "::-1"),
        ((0,), "None"),
        ((4, 5), "1:3,::-2"),
        ((4, 5), "-1,::-1"),
        ((4, 5), ":,-5"),
        ((4, 5), "1"),
        ((4, 5), "1,2"),
        ((4, 5), "None,1,None,2,None"),
        ((4, 5), "3:1,:"),
        ((4, 5), "::-1,4:-100:-2"),
        ((3, 4, 5), "1:2,::-1,3"),
        ((3, 4, 5), "::2,None,-1,1::2"),
        ((2, 3, 4, 5), "-1,::-1,None,1:3,::-2"),
        ((2, 3, 4, 5), ":,:,:,:"),
        ((2, 0, 4, 5), "1,:,::-1"),
        # Errors: index out of range, too many indices, zero step.
        ((10,), "10"),
        ((10,), "-11"),
        ((0,), "0"),
        ((4, 5), "1,5"),
        ((4, 5), "-5,0"),
        ((4, 5), "1,2,3"),
        ((4, 5), "None,:,:,0"),
        ((10,), "::0"),
        ((3, 4, 5), ":,1,::0"),
    ]
    for shape, spec in hand:
        slice_case(arange(shape), "-", spec)
    for rank in range(1, 5):
        for _ in range(22):
            shape = rand_shape(rank, maxd[rank])
            slice_case(arange(shape), "-", fmt_spec(rand_spec(shape)))
    # Chains: a slice (or transpose) of an already non-contiguous / reversed view.
    chains = [
        ((10,), "slice:::-1", "1:5:2"),
        ((10,), "slice:1::2", "::-1"),
        ((10,), "slice:::-3", "-1:-100:-1"),
        ((4, 5), "slice:::-1,1::2", "1:,::-1"),
        ((4, 5), "T", "::2,-1"),
        ((3, 4, 5), "permute:2,0,1", "1:4,None,-1,::-2"),
        ((3, 4, 5), "slice:::-1,::2,::-2", "-1,1,::-1"),
        ((2, 3, 4, 5), "T|slice:::2", "1,::-1,None,1:"),
    ]
    for shape, pre, spec in chains:
        slice_case(arange(shape), pre, spec)
    for rank in range(1, 5):
        for _ in range(6):
            shape = rand_shape(rank, maxd[rank] + 1)
            s1 = rand_spec(shape)
            mid = arange(shape)[tuple(s1)]
            if not isinstance(mid, np.ndarray) or mid.ndim == 0:
                continue
            pre = "slice:" + fmt_spec(s1)
            slice_case(arange(shape), pre, fmt_spec(rand_spec(mid.shape)))


# ----------------------------------------------------------------------------- reshape


def reshape_case(a, pre, shape):
    f = save(a, "rs")
    A = apply_pre(a, pre)
    try:
        r = A.reshape(parse_ints(shape))
    except ValueError:
        out, view = "error", "-"
    else:
        out = save(r, "rs")
        view = "any" if r.size == 0 else ("view" if np.shares_memory(r, A) else "copy")
    add_line("reshape", "f64", f, pre, shape, out, view)


def gen_reshape():
    hand = [
        ((2, 3, 4), "-", ["3,-1", "-1", "4,-1,2", "24", "2,12", "1,24,1", "-1,1",
                          "2,3,4,1,1", "5,-1", "-1,-1", "7", "0,-1"]),
        ((), "-", ["1", "-1", "1,1", "()", "1,-1,1", "2", "0"]),
        ((1,), "-", ["()", "1,1,1"]),
        ((1, 1, 1), "-", ["()", "-1"]),
        ((0, 3), "-", ["3,0", "-1", "0", "-1,3", "0,-1", "5,-1", "1,0,1", "1", "()"]),
        ((2, 0, 3), "-", ["0,-1", "-1,0", "6,0", "0,5,-1"]),
        ((0,), "-", ["0,0,0", "1", "-1"]),
        # Non-contiguous inputs: NumPy returns a view when strides allow it.
        ((2, 3, 4), "T", ["-1", "4,6", "4,3,2,1", "2,2,3,2", "4,-1", "1,4,1,3,2", "4,3,2"]),
        ((6,), "slice:::-1", ["2,3", "3,-1,1"]),
        ((4, 6), "slice::,::2", ["4,3", "12", "2,2,3", "-1,1,3"]),
        ((6, 4), "slice:::2", ["3,2,2", "12", "-1"]),
        ((3, 4), "slice:1", ["2,2", "-1"]),
        ((2, 3, 4), "permute:1,0,2", ["3,8", "6,4", "3,2,2,2"]),
        ((3, 4), "slice:1,1", ["1", "()", "1,1"]),
        ((1, 4), "slice:::-1,::2", ["2", "1,2,1"]),
        ((3, 1, 4), "slice::,::-1,1:3", ["3,2", "6"]),
        ((4, 5), "slice:1:3,::-1|T", ["5,2", "10", "5,1,2"]),
        ((0, 4), "T", ["-1", "2,0,2"]),
    ]
    for shape, pre, targets in hand:
        for t in targets:
            reshape_case(arange(shape), pre, t)
    # Random: a random shape, optionally non-contiguous, reshaped into a random factorisation.
    pres = ["-", "T", "slice:::-1", "slice:::2"]
    for _ in range(24):
        shape = rand_shape(int(rng.integers(1, 5)), 4)
        pre = pres[int(rng.integers(0, len(pres)))]
        A = apply_pre(arange(shape), pre)
        n = A.size
        dims = []
        while n > 1:
            f = [d for d in range(2, n + 1) if n % d == 0]
            d = int(rng.choice(f))
            dims.append(d)
            n //= d
        if A.size == 0:
            dims = [0, int(rng.integers(1, 4))]
        rng.shuffle(dims)
        if dims and rng.random() < 0.5 and A.size > 0:
            dims[int(rng.integers(0, len(dims)))] = -1
        if rng.random() < 0.3:
            dims.insert(int(rng.integers(0, len(dims) + 1)), 1)
        reshape_case(arange(shape), pre, fmt_ints(dims))


# --------------------------------------------------------------------------- transpose


def transpose_case(a, pre, axes):
    f = save(a, "tr")
    A = apply_pre(a, pre)
    try:
        r = A.T if axes == "rev" else np.transpose(A, parse_ints(axes))
    except (ValueError, IndexError):
        out = "error"
    else:
        out = save(r, "tr")
    add_line("transpose", "f64", f, pre, axes, out)


def gen_transpose():
    for rank in range(6):
        for _ in range(2):
            shape = rand_shape(rank, 4 if rank < 5 else 3)
            a = arange(shape)
            transpose_case(a, "-", "rev")
            transpose_case(a, "-", fmt_ints(rng.permutation(rank)))
        transpose_case(arange(shape), "-", fmt_ints(range(rank)))
    transpose_case(arange((3, 4)), "slice:::-1,1::2", "rev")
    transpose_case(arange((2, 3, 4)), "slice:1:,::-1", "1,2,0")
    transpose_case(arange((2, 3, 4, 5)), "T|slice:::-2", "3,1,0,2")
    transpose_case(arange((2, 3, 4)), "slice:1", "rev")
    transpose_case(arange((3, 0, 2)), "slice:::-1", "2,0,1")
    # Errors: wrong number of axes, repeated axis, axis out of range.
    transpose_case(arange((2, 3)), "-", "0")
    transpose_case(arange((2, 3)), "-", "0,1,2")
    transpose_case(arange((2, 3)), "-", "0,0")
    transpose_case(arange((2, 3)), "-", "0,2")
    transpose_case(arange((2, 3, 4)), "-", "()")
    transpose_case(arange(()), "-", "0")


# ------------------------------------------------------------------------ format files


def gen_format():
    os.makedirs(FMT, exist_ok=True)

    def put(name, arr, **kw):
        path = os.path.join(FMT, name)
        if kw:
            with open(path, "wb") as fh:
                np.lib.format.write_array(fh, arr, **kw)
        else:
            np.save(path, arr)

    put("fortran_f8.npy", np.asfortranarray(arange((2, 3, 4)) - 1))
    put("fortran_f4.npy", np.asfortranarray(arange((3, 5), np.float32) - 1))
    put("fortran_be_f8.npy", np.asfortranarray((arange((4, 3, 2)) - 1).astype(">f8")))
    put("be_f8.npy", (arange((3, 4)) - 1).astype(">f8"))
    put("be_f4.npy", (arange((2, 3), np.float32) - 1).astype(">f4"))
    put("be_f8_r0.npy", np.array(0.0, ">f8"))
    put("v2_f8.npy", arange((2, 3)) - 1, version=(2, 0))
    put("v3_f4.npy", arange((4,), np.float32) - 1, version=(3, 0))
    put("v3_be_f8.npy", np.asfortranarray((arange((2, 2, 2)) - 1).astype(">f8")), version=(3, 0))
    put("i8.npy", np.arange(6, dtype=np.int64).reshape(2, 3))
    put("b1.npy", np.array([True, False]))
    shapes = [(), (5,), (0,), (2, 3), (3, 0), (2, 3, 4), (2, 1, 3, 2), (1, 0, 2, 3)]
    for i, shape in enumerate(shapes):
        put("c_f8_%d.npy" % i, arange(shape) - 1)
        put("c_f4_%d.npy" % i, arange(shape, np.float32) - 1)


def main():
    if int(np.__version__.split(".")[0]) < 2:
        sys.exit("needs NumPy >= 2.0, found %s" % np.__version__)
    os.makedirs(OUT, exist_ok=True)
    for d in (OUT, FMT):
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith(".npy"):
                    os.remove(os.path.join(d, f))
    gen_broadcast()
    gen_unary()
    gen_slice()
    gen_reshape()
    gen_transpose()
    gen_format()
    header = [
        "# NumPy differential fixtures, generated by tests/data/gen_fixtures.py",
        "# with NumPy %s; see that script for the column layout. Do not edit." % np.__version__,
    ]
    with open(os.path.join(OUT, "manifest.txt"), "w") as fh:
        fh.write("\n".join(header + lines) + "\n")
    total = sum(
        os.path.getsize(os.path.join(d, f))
        for d in (OUT, FMT)
        for f in os.listdir(d)
        if os.path.isfile(os.path.join(d, f))
    )
    print("cases:", ", ".join("%s %d" % kv for kv in sorted(counts.items())), "| total", len(lines))
    print("files: %d, %d bytes" % (file_counter[0], total))


if __name__ == "__main__":
    main()
