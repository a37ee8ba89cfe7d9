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
      compare    DTYPE  OP     A     PRE_A  B|scalar:VALUE  PRE_B  OUT|error
      fma        DTYPE  A      PRE_A B      PRE_B  C  PRE_C  OUT|error
      reduce     DTYPE  OP     IN    PRE    OUT|INDEX|error
      dot        DTYPE  A      PRE_A B      PRE_B  OUT|error
      axis       DTYPE  OP     IN    PRE    AXIS   KEEPDIMS  OUT|error
      matmul     DTYPE  OP     A     PRE_A  B      PRE_B  K  OUT|error  ABS|-

  DTYPE is ``f64`` or ``f32``; OP is ``add``/``sub``/``mul``/``div``/``maximum``/
  ``minimum`` (broadcast), ``neg``/``abs``/``sqrt`` (unary), ``equal``/``not_equal``/
  ``less``/``less_equal``/``greater``/``greater_equal`` (compare; OUT is a bool
  ``'|b1'`` file), ``sum``/``prod``/``mean``/``max``/``min``/``argmax``/``argmin``
  (reduce over the whole array).
  compare: B is a file or ``scalar:VALUE``, a float written so that Rust's
  ``str::parse::<f64>`` reads it back exactly (``nan``, ``inf``, ``-0.0``, Python's
  repr); its PRE_B is ``-``.
  fma: ``A * B + C`` with one rounding, broadcast three ways. NumPy has no fused op, so
  OUT is computed here in exact rational arithmetic and rounded once (to nearest, ties
  to even) to the dtype; only the broadcast error comes from NumPy.
  reduce: OUT is a 0-d file for the value reductions and the flattened (row-major)
  index for argmax/argmin; ``error`` where NumPy raises (max/min/argmax/argmin of an
  empty array).  ``prod`` runs only on data whose product cannot overflow or
  underflow in any order of the multiplications.
  axis: OP (``sum``/``prod``/``mean``/``max``/``min``/``argmax``/``argmin``) along
  AXIS (an integer, negative counting from the end) with KEEPDIMS ``true``/``false``.
  OUT is NumPy's result array; for argmax/argmin it holds the indices along the axis
  as float64 (the fixtures hold float and bool files only).  ``error`` where NumPy
  raises (an axis out of range; max/min/argmax/argmin along an empty axis), and, by
  ndsimd's contract, for every axis of a 0-d array: NumPy's sum/prod/max/min/argmax/
  argmin accept axis 0 and -1 there as a legacy special case (its mean raises).
  ``prod`` runs on data whose products cannot overflow or underflow in any order.
  dot: the 1-D dot product (``np.dot`` of two 1-D arrays); ``error`` rows are pairs
  that are not two 1-D arrays of one length (the Rust side checks ``vdot`` and ``dot``
  on them against its own reference: NumPy accepts several of them).
  matmul: OP is ``matmul`` (``np.matmul``, batch broadcasting), ``dot`` (``np.dot``),
  ``inner`` (``np.inner``) or ``outer`` (``np.outer``); K is the inner length; ABS is
  the same OP applied to ``|A|`` and ``|B|`` in float64 (the scale of each element's
  rounding error: results are compared within ``(2K + 4)·eps·ABS``, exactly for
  ``outer``).  ``error`` where NumPy raises, and for ``dot`` of operands of more than
  2 dimensions (ndsimd's contract: NumPy's N-D ``dot`` is not provided).
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
  format versions 2.0 and 3.0, an unsupported dtype).  Every float array there holds
  ``arange(size)`` in logical C order; the bool files ``c_b1_*.npy``,
  ``fortran_b1.npy`` and ``v3_b1.npy`` hold ``arange(size) % 3 == 0``, and
  ``b1_bytes.npy`` has the data bytes 0, 1, 2, 255, 0.

Values are drawn from a seeded generator and include IEEE edge cases (+-0, +-inf, NaN
with both signs and a payload, subnormals, the largest finite values), so additions
overflow and divisions divide by zero.  Comparison (in Rust) is bitwise except that any
NaN matches any NaN (maximum/minimum: NaN payloads too, checked here to be NumPy's
behaviour); reductions and dot are compared within a bound, exactly on the
integer-valued inputs (see tests/numpy_fixtures.rs).
"""

import math
import os
import sys
import warnings
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
FMT = os.path.join(OUT, "format")

rng = np.random.default_rng(0x6E6473696D64)  # "ndsimd"
DT = {"f64": np.float64, "f32": np.float32}
UFUNC = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}
BINOP = {"maximum": np.maximum, "minimum": np.minimum}

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


# ------------------------------------------------------- maximum / minimum / sqrt


def nan_bits_ok(r, A, B):
    """NumPy's maximum/minimum return an input NaN bit for bit: the first operand's
    when it is NaN, else the second's. Checked here so that the Rust side may compare
    NaN payloads exactly for these ops."""
    A, B = np.broadcast_arrays(A, B)
    ui = np.uint64 if r.dtype == np.float64 else np.uint32
    want = np.where(np.isnan(A), A, B)
    m = np.isnan(r)
    assert (np.isnan(want) == m).all()
    assert (r[m].view(ui) == want[m].view(ui)).all(), "NumPy changed a NaN payload"


def minmax(op, a, pre_a, b, pre_b, dt):
    fa, fb = save(a, "mm"), save(b, "mm")
    A, B = np.asarray(apply_pre(a, pre_a)), np.asarray(apply_pre(b, pre_b))
    try:
        np.broadcast_shapes(A.shape, B.shape)
    except ValueError:
        out = "error"
    else:
        r = np.asarray(BINOP[op](A, B))
        assert r.dtype == DT[dt]
        nan_bits_ok(r, A, B)
        # The rule from the brief: maximum(x, y) = x if x is NaN else (x > y ? x : y).
        X, Y = np.broadcast_arrays(A, B)
        with np.errstate(invalid="ignore"):
            pick_x = np.isnan(X) | ((X > Y) if op == "maximum" else (X < Y))
        ref = np.where(pick_x, X, Y)
        ui = np.uint64 if dt == "f64" else np.uint32
        assert (ref.view(ui) == r.view(ui)).all(), "NumPy %s differs from x>y?x:y" % op
        out = save(r, "mm")
    add_line("broadcast", dt, op, fa, pre_a, fb, pre_b, out)


def gen_minmax():
    for dt in ("f64", "f32"):
        d = DT[dt]
        e = edge_values(d)
        for op in BINOP:
            # Every edge value against every edge value (signed zeros, NaN payloads).
            minmax(op, e.reshape(-1, 1), "-", e, "-", dt)
            # Contiguous runs of several lengths (vector bodies and tails); +-0 and NaN
            # payloads in both operands.
            for n in (1, 3, 7, 17, 33, 67):
                minmax(op, values((n,), d, 0.4), "-", values((n,), d, 0.4), "-", dt)
            # Broadcasting, scalars (rank-0), size-0, non-contiguous operands, errors.
            shapes = [
                ((3, 4), (4,), "-", "-"),
                ((3, 1), (1, 5), "-", "-"),
                ((), (6,), "-", "-"),
                ((6,), (), "-", "-"),
                ((2, 3, 4), (3, 1), "-", "-"),
                ((2, 1, 3, 2), (4, 1, 1), "-", "-"),
                ((0, 3), (3,), "-", "-"),
                ((2, 0), (1, 1), "-", "-"),
                ((4, 5), (4, 5), "T", "slice:::-1,::-1"),
                ((5, 6), (3,), "slice:::-2,1::2", "-"),
                ((2, 3, 4), (4, 3), "permute:2,1,0", "slice:::-1"),
                ((3,), (4,), "-", "-"),
                ((2, 3), (3, 2), "-", "-"),
            ]
            for sa, sb, pa, pb in shapes:
                minmax(op, values(sa, d, 0.4), pa, values(sb, d, 0.4), pb, dt)
    # Only zeros: the sign of the result is the second operand's.
    z = np.array([0.0, -0.0, 0.0, -0.0])
    for op in BINOP:
        minmax(op, z, "-", z[::-1].copy(), "-", "f64")
        minmax(op, z.astype(np.float32), "-", np.float32(-0.0), "-", "f32")
        minmax(op, np.float32(0.0), "-", z.astype(np.float32), "-", "f32")


def gen_sqrt():
    for dt in ("f64", "f32"):
        d = DT[dt]
        e = edge_values(d)
        fi = np.finfo(d)
        extra = np.array(
            [4.0, 2.0, 1e-300 if dt == "f64" else 1e-30, fi.max, fi.smallest_subnormal * 4,
             -fi.smallest_subnormal, -np.inf, -1e-5, 0.25, 1e30],
            dtype=d,
        )
        cases = [
            (e, "-"),
            (extra, "-"),
            (np.abs(values((67,), d, 0.3)), "-"),
            (values((3, 4), d), "T"),
            (values((5, 6), d), "slice:::-1,1::2"),
            (values((), d), "-"),
            (np.array(-0.0, d), "-"),
            (values((0, 3), d), "-"),
        ]
        for a, pre in cases:
            f = save(a, "sq")
            A = apply_pre(a, pre)
            with np.errstate(invalid="ignore"):
                r = np.sqrt(A)
            add_line("unary", dt, "sqrt", f, pre, save(r, "sq"))


# ------------------------------------------------------------------------- comparisons


CMP = {
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
}


def small_values(shape, dtype, edge_p=0.2):
    """Values from a small set, so that equal pairs are common, mixed with edge values."""
    n = int(np.prod(shape, dtype=np.int64))
    v = rng.integers(-3, 4, n).astype(dtype) / 2
    edges = edge_values(dtype)
    mask = rng.random(n) < edge_p
    v[mask] = rng.choice(edges, size=int(mask.sum()))
    return v.reshape(shape)


def scalar_col(x):
    """A float column value that Rust's `str::parse::<f64>` reads back exactly."""
    x = float(x)
    if np.isnan(x):
        return "nan"
    return repr(x)


def cmp_case(op, a, pre_a, b, pre_b, dt):
    fa = save(a, "cm")
    A = apply_pre(a, pre_a)
    if isinstance(b, tuple):  # ("scalar", value)
        B = DT[dt](b[1])
        fb, pre_b = "scalar:" + scalar_col(B), "-"
    else:
        fb = save(b, "cm")
        B = apply_pre(b, pre_b)
    try:
        np.broadcast_shapes(np.shape(A), np.shape(B))
    except ValueError:
        out = "error"
    else:
        r = np.asarray(CMP[op](A, B))
        assert r.dtype == np.bool_
        out = save(r, "cm")
    add_line("compare", dt, op, fa, pre_a, fb, pre_b, out)


def gen_compare():
    for dt in ("f64", "f32"):
        d = DT[dt]
        e = edge_values(d)
        for op in CMP:
            cmp_case(op, e.reshape(-1, 1), "-", e, "-", dt)
            for s in (0.0, -0.0, np.nan, np.inf, -np.inf, 0.5, -1.0):
                cmp_case(op, e, "-", ("scalar", s), "-", dt)
            for n in (5, 33, 70):
                cmp_case(op, small_values((n,), d), "-", small_values((n,), d), "-", dt)
            shapes = [
                ((3, 4), (4,), "-", "-"),
                ((3, 1), (1, 5), "-", "-"),
                ((), (6,), "-", "-"),
                ((), (), "-", "-"),
                ((2, 3, 4), (3, 1), "-", "-"),
                ((0, 3), (1,), "-", "-"),
                ((4, 5), (5, 4), "T", "-"),
                ((5, 6), (3,), "slice:::-2,1::2", "slice:::-1"),
                ((2, 3, 4), (4, 3, 2), "T", "slice:::-1,::-1"),
                ((3,), (4,), "-", "-"),
                ((2, 3), (3, 2), "-", "-"),
            ]
            for sa, sb, pa, pb in shapes:
                cmp_case(op, small_values(sa, d), pa, small_values(sb, d), pb, dt)
            cmp_case(op, small_values((3, 4), d), "T", ("scalar", 0.5), "-", dt)
            cmp_case(op, small_values((2, 0), d), "-", ("scalar", 1.0), "-", dt)
            cmp_case(op, small_values((), d), "-", ("scalar", np.nan), "-", dt)


# ------------------------------------------------------------------------ fused mul-add


# (precision in bits, minimum normal exponent, maximum exponent)
FLOAT_FMT = {"f64": (53, -1022, 1023), "f32": (24, -126, 127)}


def round_exact(q, dt):
    """The value of the non-zero Fraction q rounded to dt's format (nearest, ties to even),
    as an exactly representable Python float (or an infinity)."""
    p, emin, emax = FLOAT_FMT[dt]
    neg = q < 0
    q = abs(q)
    n, d = q.numerator, q.denominator
    e = n.bit_length() - d.bit_length()  # 2^(e-1) <= q < 2^(e+1)
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1  # now 2^e <= q < 2^(e+1)
    e = max(e, emin)  # subnormals share the minimum exponent
    k = e - p + 1  # exponent of one unit in the last place
    m = round(q / (Fraction(2) ** k))  # Fraction.__round__ rounds half to even
    if m * Fraction(2) ** k >= Fraction(2) ** (emax + 1):
        r = math.inf
    else:
        r = math.ldexp(m, k)
    return -r if neg else r


def fma_exact(a, b, c, dt):
    """a * b + c with a single rounding to dt, IEEE 754 fusedMultiplyAdd."""
    a, b, c = float(a), float(b), float(c)
    if math.isnan(a) or math.isnan(b) or math.isnan(c):
        return math.nan
    if math.isinf(a) or math.isinf(b):
        if a == 0 or b == 0:
            return math.nan
        p = math.copysign(math.inf, math.copysign(1, a) * math.copysign(1, b))
        if math.isinf(c) and c != p:
            return math.nan
        return p
    if math.isinf(c):
        return c
    q = Fraction(a) * Fraction(b) + Fraction(c)
    if q == 0:
        if (a == 0 or b == 0) and c == 0:
            neg_p = (math.copysign(1, a) * math.copysign(1, b)) < 0
            return -0.0 if neg_p and math.copysign(1, c) < 0 else 0.0
        return 0.0  # an exact zero sum of non-zero terms is +0 (round to nearest)
    return round_exact(q, dt)


def check_rounding():
    """round_exact agrees with the hardware on correctly rounded + and *."""
    for dt in ("f64", "f32"):
        d = DT[dt]
        e = edge_values(d)
        xs = np.concatenate([e[np.isfinite(e)], values((300,), d, 0.0),
                             (rng.standard_normal(200) * 10.0 ** rng.integers(-30, 30, 200)).astype(d)])
        ys = rng.permutation(xs)
        with np.errstate(all="ignore"):
            for x, y in zip(xs, ys):
                for got, q in ((x + y, Fraction(float(x)) + Fraction(float(y))),
                               (x * y, Fraction(float(x)) * Fraction(float(y)))):
                    if q == 0 or not np.isfinite(got):
                        continue
                    want = round_exact(q, dt)
                    assert float(got) == want, (dt, x, y, got, want)
                assert fma_exact(x, 1.0, y, dt) == float(x + y) or x + y == 0
                assert fma_exact(x, y, 0.0, dt) == float(x * y) or x * y == 0
    # Ties go to even.
    for dt in ("f64", "f32"):
        u = 2.0 ** -(FLOAT_FMT[dt][0] - 1)
        assert fma_exact(1.0, 1.0, u / 2, dt) == 1.0
        assert fma_exact(1.0, 1.0, 3 * u / 2, dt) == 1.0 + 2 * u
        assert fma_exact(-1.0, 1.0, -u / 2, dt) == -1.0
        assert fma_exact(2.0 ** -600, 2.0 ** -475, 0.0, "f64") == 0.0  # 2^-1075: tie to 0
        assert fma_exact(3 * 2.0 ** -600, 2.0 ** -475, 0.0, "f64") == 2.0 ** -1073


def fma_case(a, pa, b, pb, c, pc, dt):
    fs = [save(x, "fm") for x in (a, b, c)]
    A, B, C = apply_pre(a, pa), apply_pre(b, pb), apply_pre(c, pc)
    try:
        shape = np.broadcast_shapes(A.shape, B.shape, C.shape)
    except ValueError:
        out = "error"
    else:
        X, Y, Z = np.broadcast_arrays(A, B, C)
        r = np.empty(shape, DT[dt])
        for idx in np.ndindex(*shape):
            r[idx] = fma_exact(X[idx], Y[idx], Z[idx], dt)
        out = save(r, "fm")
    add_line("fma", dt, fs[0], pa, fs[1], pb, fs[2], pc, out)


def gen_fma():
    check_rounding()
    for dt in ("f64", "f32"):
        d = DT[dt]
        fi = np.finfo(d)
        p = FLOAT_FMT[dt][0]
        e = edge_values(d)
        # Every edge value times every edge value, plus a few addends.
        addends = np.array([0.0, -0.0, np.inf, np.nan, -1.0, fi.max], d)
        fma_case(e.reshape(-1, 1, 1), "-", e.reshape(-1, 1), "-", addends, "-", dt)
        # Where fusing matters: c = -fl(a*b) leaves the rounding error of the product;
        # (1 + 2^-k)^2 - 1; max * 2 - max does not overflow; results near and below the
        # subnormal threshold; exact ties of the sum.
        a = values((64,), d, 0.0) + d(0.001)
        b = values((64,), d, 0.0) - d(0.003)
        with np.errstate(all="ignore"):
            fma_case(a, "-", b, "-", -(a * b), "-", dt)
            fma_case(a, "-", b, "-", (a * b) * d(-0.75), "-", dt)
        one = d(1) + d(2.0 ** -(p // 2 + 1))
        fma_case(np.array([one, -one, one], d), "-", np.array(one, d), "-",
                 np.array([-1.0, 1.0, -0.5], d), "-", dt)
        fma_case(np.array([fi.max, -fi.max, fi.max / 2], d), "-", np.array([2.0, 2.0, 3.0], d),
                 "-", np.array([-fi.max, fi.max, -fi.max], d), "-", dt)
        tiny = d(fi.tiny)
        sub = d(fi.smallest_subnormal)
        half = d(2.0 ** -(p // 2))
        fma_case(np.array([tiny, tiny, sub, -sub, tiny * 4, sub * 3], d), "-",
                 np.array([0.5, 0.75, 0.5, 0.5, 0.3, 0.5], d), "-",
                 np.array([0.0, -tiny, 0.0, -0.0, sub, sub], d), "-", dt)
        # Ties: (1 + 2^-h)(1 - 2^-h) = 1 - 2^-2h lands on a midpoint after adding c.
        u = d(2.0 ** -(p - 1))
        fma_case(np.array([1 + half, 1 + half, 1.0, 1.0], d), "-",
                 np.array([1 - half, 1 - half, 1.0, 1.0], d), "-",
                 np.array([u / 2, -u / 4, u / 2, 3 * u / 2], d), "-", dt)
        # Random values with edge cases, broadcasting three ways, ranks 0..=4,
        # non-contiguous / reversed operands, size-0 and incompatible shapes.
        triples = [
            ((7,), (7,), (7,), "-", "-", "-"),
            ((33,), (33,), (), "-", "-", "-"),
            ((), (5,), (), "-", "-", "-"),
            ((), (), (), "-", "-", "-"),
            ((3, 1), (1, 4), (4,), "-", "-", "-"),
            ((2, 3, 1), (4,), (3, 1), "-", "-", "-"),
            ((2, 1, 3, 1), (1, 2, 1, 2), (2,), "-", "-", "-"),
            ((4, 3), (3, 4), (4,), "T", "-", "slice:::-1"),
            ((5, 6), (3,), (3, 1), "slice:::-2,1::2", "-", "slice:::-1"),
            ((2, 3, 4), (4, 3, 2), (2,), "T", "-", "-"),
            ((0, 3), (3,), (1, 1), "-", "-", "-"),
            ((3,), (4,), (1,), "-", "-", "-"),
            ((2, 3), (3,), (2,), "-", "-", "-"),
        ]
        for sa, sb, sc, pa, pb, pc in triples:
            fma_case(values(sa, d), pa, values(sb, d), pb, values(sc, d), pc, dt)


# -------------------------------------------------------------------------- reductions


def reduce_edge_values(dtype):
    """edge_values without the near-overflow ones: sums of those overflow or not
    depending on the order of summation."""
    e = edge_values(dtype)
    fi = np.finfo(dtype)
    return e[~np.isin(np.abs(e), [fi.max, fi.max / 2])]


def sum_values(shape, dtype, edge_p=0.1):
    n = int(np.prod(shape, dtype=np.int64))
    v = (rng.standard_normal(n) * 8).astype(dtype)
    if edge_p:
        edges = reduce_edge_values(dtype)
        edges = edges[np.isfinite(edges)]
        mask = rng.random(n) < edge_p
        v[mask] = rng.choice(edges, size=int(mask.sum()))
    return v.reshape(shape)


def int_values(shape, dtype, lo=-1000, hi=1000):
    n = int(np.prod(shape, dtype=np.int64))
    return rng.integers(lo, hi + 1, n).astype(dtype).reshape(shape)


def prod_values(shape, dtype):
    """Magnitudes in [0.5, 2] with random signs: long products stay finite."""
    n = int(np.prod(shape, dtype=np.int64))
    v = rng.uniform(0.5, 2.0, n) * rng.choice([-1.0, 1.0], n)
    return v.astype(dtype).reshape(shape)


REDUCE = {
    "sum": np.sum,
    "prod": np.prod,
    "mean": np.mean,
    "max": np.max,
    "min": np.min,
    "argmax": np.argmax,
    "argmin": np.argmin,
}


def reduce_case(op, a, pre, dt):
    f = save(a, "rd")
    A = apply_pre(a, pre)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            r = REDUCE[op](A)
    except ValueError:
        out = "error"
    else:
        if op.startswith("arg"):
            out = str(int(r))
        else:
            r = np.asarray(r)
            assert r.dtype == DT[dt] and r.shape == (), (op, r.dtype, r.shape)
            out = save(r, "rd")
    add_line("reduce", dt, op, f, pre, out)


# Products of general data overflow or underflow depending on the order of the
# multiplications, so `prod` runs only on data where it cannot (prod_values, small
# integers, and non-finite / zero cases whose class is order-independent).
NO_PROD = ("sum", "mean", "max", "min", "argmax", "argmin")


def reduce_all(a, pre, dt, ops=NO_PROD):
    for op in ops:
        reduce_case(op, a, pre, dt)


def gen_reduce():
    extremes = ("max", "min", "argmax", "argmin")
    for dt in ("f64", "f32"):
        d = DT[dt]
        # Ranks 0..=4, contiguous and not.
        for shape, pre in [
            ((), "-"), ((7,), "-"), ((3, 5), "-"), ((2, 3, 4), "-"), ((2, 3, 2, 3), "-"),
            ((4, 5), "T"), ((9,), "slice:::-1"), ((6, 5), "slice:::2,::-1"),
            ((2, 3, 4), "permute:1,2,0"), ((2, 3, 2, 3), "T|slice:1:,::-1"),
        ]:
            reduce_all(sum_values(shape, d), pre, dt)
            reduce_case("prod", prod_values(shape, d), pre, dt)
        # Size 0: sum 0, prod 1, mean NaN; the rest raise.
        for shape in ((0,), (3, 0), (2, 0, 4)):
            reduce_all(np.zeros(shape, d), "-", dt, tuple(REDUCE))
        reduce_all(np.zeros((4, 3), d), "slice:2:2", dt, tuple(REDUCE))
        # Lengths around the vector and unroll widths, and ~1000: random and integer data.
        for n in (31, 32, 33, 63, 64, 65, 1000, 1027):
            reduce_all(int_values((n,), d), "-", dt)
            if n in (33, 64, 1027):
                reduce_all(sum_values((n,), d), "-", dt)
                reduce_case("prod", prod_values((n,), d), "-", dt)
        reduce_all(int_values((40, 25), d), "T", dt)
        reduce_all(sum_values((30, 33), d), "slice:::-1,::2", dt)
        # Integer products that stay exact.
        small = int_values((20,), d, -2, 2)
        small[small == 0] = 1
        reduce_case("prod", small, "-", dt)
        reduce_case("prod", np.array([3, -2, 5, 0, 7, -1], d), "-", dt)
        reduce_case("prod", prod_values((5, 7), d), "T", dt)
        # NaNs: several, first one wins for argmax/argmin (also with the NaN late in a
        # long array and in each vector lane position).
        for n, pos in [(10, (3, 7)), (70, (69,)), (70, (40, 5, 66)), (1000, (999, 500)),
                       (65, (0, 64)), (33, (17, 18, 19))]:
            v = sum_values((n,), d, 0.0)
            nans = edge_values(d)[[4, 5, 6]]
            for i, p_ in enumerate(pos):
                v[p_] = nans[i % 3]
            reduce_all(v, "-", dt, tuple(REDUCE))
        v = sum_values((4, 6), d, 0.0)
        v[3, 1] = np.nan
        v[0, 5] = np.nan
        reduce_all(v, "T", dt, extremes)  # in the view's row-major order, (1, 3) comes first
        # Signed zeros and infinities.
        zeros = [
            [0.0, -0.0], [-0.0, 0.0], [-0.0], [-0.0, -0.0, -0.0], [0.0, -0.0, 0.0, -0.0] * 10,
            [-0.0] * 33, [-1.0, -0.0, 0.0, -0.0, -2.0], [1.0, 0.0, -0.0, 2.0],
        ]
        for z in zeros:
            reduce_all(np.array(z, d), "-", dt, tuple(REDUCE))
        infs = [
            [1.0, np.inf, -3.0], [np.inf, -np.inf], [-np.inf, -np.inf, 2.0],
            [np.inf, np.nan, -np.inf], [5.0, -np.inf, np.inf, np.inf, -np.inf],
        ]
        for z in infs:
            reduce_all(np.array(z, d), "-", dt, tuple(REDUCE))
        long_inf = sum_values((100,), d, 0.0)
        long_inf[[10, 60, 90]] = [-np.inf, np.inf, -np.inf]
        reduce_all(long_inf, "-", dt, ("sum", "mean", "max", "min", "argmax", "argmin"))
        # All the (order-independent) edge values, and the extremes of the full set.
        re = reduce_edge_values(d)
        reduce_all(re[~np.isnan(re)], "-", dt, tuple(REDUCE))
        reduce_all(edge_values(d), "-", dt, extremes)
        reduce_all(edge_values(d)[~np.isnan(edge_values(d))], "slice:::-1", dt, extremes)
        # Ties: the first of equal extremes.
        reduce_all(np.array([2.0, 7.0, 7.0, -1.0, -1.0, 7.0], d), "-", dt, extremes)


def dot_case(a, pa, b, pb, dt, *, contract_error=False):
    fa, fb = save(a, "dt"), save(b, "dt")
    A, B = apply_pre(a, pa), apply_pre(b, pb)
    if A.ndim != 1 or B.ndim != 1 or A.shape != B.shape:
        out = "error"  # ndsimd's 1-D contract (NumPy's dot accepts other ranks)
    else:
        with np.errstate(all="ignore"):
            r = np.asarray(np.dot(A, B))
        assert r.dtype == DT[dt] and r.shape == ()
        out = save(r, "dt")
    add_line("dot", dt, fa, pa, fb, pb, out)


def gen_dot():
    for dt in ("f64", "f32"):
        d = DT[dt]
        for n in (0, 1, 3, 31, 32, 33, 63, 64, 65, 1000):
            dot_case(sum_values((n,), d), "-", sum_values((n,), d), "-", dt)
        # Integer data: exact (products and sums stay within the mantissa).
        lim = 1000 if dt == "f64" else 30
        for n in (7, 64, 1000):
            dot_case(int_values((n,), d, -lim, lim), "-", int_values((n,), d, -lim, lim), "-", dt)
        dot_case(int_values((8, 9), d, -lim, lim), "slice::,3", int_values((16,), d, -lim, lim),
                 "slice:::-2", dt)
        # Non-contiguous / reversed operands.
        dot_case(sum_values((70,), d), "slice:::-1", sum_values((70,), d), "-", dt)
        dot_case(sum_values((5, 13), d), "slice:2", sum_values((13, 4), d), "slice::,1", dt)
        # Non-finite values.
        for x, y in [([1.0, np.inf, 2.0], [1.0, 1.0, 1.0]), ([np.inf, 1.0], [0.0, 1.0]),
                     ([np.inf, -np.inf], [1.0, 1.0]), ([np.nan, 1.0, 2.0], [1.0, 2.0, 3.0]),
                     ([-0.0, -0.0], [1.0, 1.0]), ([3.0, -2.0], [-np.inf, -np.inf])]:
            dot_case(np.array(x, d), "-", np.array(y, d), "-", dt)
        # Errors: not two 1-D arrays of one length.
        for sa, sb in [((3,), (4,)), ((0,), (1,)), ((2, 3), (3,)), ((3,), (3, 1)),
                       ((2, 2), (2, 2)), ((), ()), ((), (3,))]:
            dot_case(sum_values(sa, d), "-", sum_values(sb, d), "-", dt)
        dot_case(sum_values((3, 4), d), "T", sum_values((4,), d), "-", dt)


# ---------------------------------------------------------------------- axis reductions


def axis_case(op, a, pre, axis, keepdims, dt):
    f = save(a, "ax")
    A = apply_pre(a, pre)
    kd = "true" if keepdims else "false"
    if A.ndim == 0:
        out = "error"  # ndsimd's contract (NumPy's legacy 0-d axis=0/-1 is not kept)
    else:
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                r = np.asarray(REDUCE[op](A, axis=axis, keepdims=keepdims))
        except (ValueError, IndexError):
            out = "error"
        else:
            if op.startswith("arg"):
                assert r.dtype == np.intp
                r = r.astype(np.float64)
            else:
                assert r.dtype == DT[dt], (op, r.dtype)
            out = save(r, "ax")
    add_line("axis", dt, op, f, pre, axis, kd, out)


def axis_all(a, pre, dt, ops):
    """Every op along every axis: the positive form without keepdims, the negative
    form with keepdims."""
    ndim = apply_pre(a, pre).ndim
    for ax in range(ndim):
        for op in ops:
            axis_case(op, a, pre, ax, False, dt)
            axis_case(op, a, pre, ax - ndim, True, dt)


def gen_axis():
    sums = ("sum", "mean")
    extremes = ("max", "min", "argmax", "argmin")
    for dt in ("f64", "f32"):
        d = DT[dt]
        # Every axis of ranks 1..=4, contiguous and not (transposed, permuted, sliced
        # with steps, reversed); runs shorter and longer than the slab threshold (16).
        for shape, pre in [
            ((7,), "-"), ((9,), "slice:::-1"),
            ((3, 5), "-"), ((4, 5), "T"), ((6, 33), "slice:::2,::-1"), ((20, 3), "-"),
            ((2, 3, 4), "-"), ((2, 3, 4), "permute:1,2,0"), ((3, 4, 20), "slice::,1:,::-1"),
            ((2, 3, 2, 3), "-"), ((2, 3, 2, 3), "T|slice:1:,::-1"),
            ((2, 2, 3, 17), "permute:3,0,2,1"),
        ]:
            axis_all(sum_values(shape, d), pre, dt, sums)
            axis_all(prod_values(shape, d), pre, dt, ("prod",))
            axis_all(values(shape, d), pre, dt, extremes)
        # Integer data: exact sums, and many ties for argmax/argmin.
        for shape, pre in [((5, 40), "-"), ((40, 5), "T"), ((3, 4, 18), "permute:2,0,1")]:
            axis_all(int_values(shape, d), pre, dt, sums)
            axis_all(int_values(shape, d, -3, 3), pre, dt, extremes)
        # Runs longer than a band (2048 elements); f32 only, to keep the files small.
        if dt == "f32":
            a = sum_values((3, 2100), d)
            for op, ax in (("sum", 0), ("max", 0), ("argmin", 0), ("sum", -1)):
                axis_case(op, a, "-", ax, False, dt)
            for op in ("max", "argmax"):
                axis_case(op, values((3, 2100), d), "-", 0, False, dt)
        # NaNs: several along each axis, the first one wins for argmax/argmin.
        v = sum_values((5, 20), d, 0.0)
        nans = edge_values(d)[[4, 5, 6]]
        for i, (r, c) in enumerate([(3, 1), (1, 1), (0, 5), (4, 5), (2, 7), (2, 19), (4, 0)]):
            v[r, c] = nans[i % 3]
        axis_all(v, "-", dt, extremes + sums)
        axis_all(v, "T", dt, extremes)
        axis_all(v, "slice:::-1,::-2", dt, extremes)
        # Signed zeros and infinities.
        z = np.array([0.0, -0.0], d)[rng.integers(0, 2, 60)].reshape(3, 20)
        axis_all(z, "-", dt, tuple(REDUCE))
        axis_all(z, "T", dt, ("max", "min", "sum"))
        inf = sum_values((4, 18), d, 0.0)
        inf[[0, 1, 2, 3, 1], [2, 2, 5, 5, 17]] = [np.inf, -np.inf, -np.inf, -np.inf, np.inf]
        axis_all(inf, "-", dt, extremes + sums)
        # Size 0: along the empty axis sum 0, prod 1, mean NaN, the rest raise; along
        # another axis an empty result.
        for shape, pre in [((0,), "-"), ((3, 0), "-"), ((2, 0, 4), "-"), ((0, 0), "-"),
                           ((4, 3), "slice:2:2"), ((2, 3, 4), "slice::,3:,::-1")]:
            axis_all(np.zeros(shape, d), pre, dt, tuple(REDUCE))
        # Errors: axes out of range, and a 0-d array.
        a = sum_values((2, 3), d)
        for ax in (2, -3, 5):
            for op in ("sum", "argmax"):
                axis_case(op, a, "-", ax, False, dt)
        for op in REDUCE:
            axis_case(op, np.array(1.5, d), "-", 0, False, dt)
            axis_case(op, np.array(1.5, d), "-", -1, True, dt)


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
        put("c_b1_%d.npy" % i, bool_pattern(shape))
    put("fortran_b1.npy", np.asfortranarray(bool_pattern((3, 4, 2))))
    put("v3_b1.npy", bool_pattern((5,)), version=(3, 0))
    # Bytes other than 0 and 1 in a bool array (NumPy reads them as True).
    put("b1_bytes.npy", np.array([0, 1, 2, 255, 0], np.uint8).view(np.bool_))


def bool_pattern(shape):
    """Element i (C order) is ``i % 3 == 0``."""
    n = int(np.prod(shape, dtype=np.int64))
    return (np.arange(n) % 3 == 0).reshape(shape)


def matmul_case(op, a, pa, b, pb, dt):
    fa, fb = save(a, "mm"), save(b, "mm")
    A, B = apply_pre(a, pa), apply_pre(b, pb)
    fn = {"matmul": np.matmul, "dot": np.dot, "inner": np.inner, "outer": np.outer}[op]
    k = 1
    if op in ("matmul", "dot") and A.ndim >= 1 and B.ndim >= 1:
        k = A.shape[-1]
    elif op == "inner" and A.ndim >= 1:
        k = A.shape[-1]
    if op == "dot" and (A.ndim > 2 or B.ndim > 2):
        add_line("matmul", dt, op, fa, pa, fb, pb, k, "error", "-")
        return
    try:
        with np.errstate(all="ignore"):
            r = np.asarray(fn(A, B))
            scale = np.asarray(fn(np.abs(A).astype(np.float64), np.abs(B).astype(np.float64)))
    except (ValueError, TypeError):
        add_line("matmul", dt, op, fa, pa, fb, pb, k, "error", "-")
        return
    assert r.dtype == DT[dt], (op, r.dtype)
    add_line("matmul", dt, op, fa, pa, fb, pb, k, save(r, "mm"), save(scale, "mm"))


def gen_matmul():
    for dt in ("f64", "f32"):
        d = DT[dt]
        sv = lambda shape: sum_values(shape, d, 0.0)
        lim = 1000 if dt == "f64" else 30
        iv = lambda shape: int_values(shape, d, -lim, lim)
        # Plain products, edge sizes, integer data (exact).
        for (m, k, n) in [(3, 4, 5), (1, 1, 1), (0, 3, 2), (3, 0, 2), (2, 3, 0), (17, 9, 13),
                          (64, 65, 33), (40, 300, 7)]:
            matmul_case("matmul", sv((m, k)), "-", sv((k, n)), "-", dt)
            matmul_case("matmul", iv((m, k)), "-", iv((k, n)), "-", dt)
        # Vectors on either side, and both.
        for sa, sb in [((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)), ((0,), (0,)),
                       ((33, 70), (70,)), ((70,), (70, 33)), ((2, 3, 4), (4,)), ((4,), (2, 4, 3))]:
            matmul_case("matmul", sv(sa), "-", sv(sb), "-", dt)
        # Batches, broadcast.
        for sa, sb in [((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
                       ((2, 3, 4), (2, 4, 5)), ((1, 3, 4), (6, 4, 2)), ((0, 3, 4), (4, 2))]:
            matmul_case("matmul", sv(sa), "-", sv(sb), "-", dt)
        # Layouts: transposed, sliced, reversed.
        matmul_case("matmul", sv((5, 3)), "T", sv((5, 4)), "-", dt)
        matmul_case("matmul", sv((3, 5)), "-", sv((4, 5)), "T", dt)
        matmul_case("matmul", sv((9, 12)), "slice:1::2,::3", sv((12, 8)), "slice:::3,1::2", dt)
        matmul_case("matmul", sv((6, 7)), "slice:::-1,::-1", sv((7, 5)), "slice:::-1", dt)
        matmul_case("matmul", sv((2, 6, 4)), "permute:1,0,2", sv((4, 3)), "slice::,::-1", dt)
        matmul_case("matmul", iv((30, 20)), "T", iv((30, 25)), "slice:::-1", dt)
        matmul_case("matmul", sv((50, 40)), "T", sv((50,)), "-", dt)  # a strided matrix-vector
        # Non-finite values (results that do not depend on the summation order).
        a = sv((3, 4))
        a[1, 2] = np.nan
        matmul_case("matmul", a, "-", sv((4, 3)), "-", dt)
        b = np.abs(sv((4, 3))) + 1
        b[0, 1] = np.inf
        matmul_case("matmul", np.abs(sv((3, 4))) + 1, "-", b, "-", dt)
        # Errors.
        for sa, sb in [((3, 4), (5, 6)), ((4,), (5,)), ((3,), (4, 3)), ((2, 3, 4), (3, 4, 5)),
                       ((), (3,)), ((3, 4), ())]:
            matmul_case("matmul", sv(sa), "-", sv(sb), "-", dt)
        # np.dot (at most 2-D), np.inner, np.outer.
        for sa, sb in [((3, 4), (4, 5)), ((3, 4), (4,)), ((4,), (4, 2)), ((5,), (5,)),
                       ((), (2, 3)), ((2, 3), ()), ((3, 4), (3, 4)), ((2, 3, 4), (4, 2))]:
            matmul_case("dot", sv(sa), "-", sv(sb), "-", dt)
        for sa, sb in [((2, 3), (4, 3)), ((2, 3, 4), (5, 4)), ((4,), (4,)), ((3,), (2, 3)),
                       ((), (2, 2)), ((2, 3), (2, 4)), ((0, 3), (2, 3))]:
            matmul_case("inner", sv(sa), "-", sv(sb), "-", dt)
        matmul_case("inner", sv((3, 5)), "T", sv((4, 3)), "-", dt)
        for sa, sb in [((3,), (4,)), ((2, 2), (3,)), ((0,), (3,)), ((), (2,))]:
            matmul_case("outer", sv(sa), "-", sv(sb), "-", dt)
        matmul_case("outer", sv((6,)), "slice:::-2", sv((2, 3)), "T", dt)


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
    gen_minmax()
    gen_sqrt()
    gen_compare()
    gen_fma()
    gen_reduce()
    gen_dot()
    gen_format()
    gen_axis()  # after the older kinds: they keep their random draws and file names
    gen_matmul()
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
