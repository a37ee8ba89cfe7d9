#!/usr/bin/env python3
"""Generate the NumPy fixtures of tests/dtypes.rs: integer and boolean arrays.

Run by hand from anywhere (needs NumPy >= 2.0; written against 2.4):

    python3 tests/data/gen_dtypes.py

Output, under tests/data/dtypes/ (wiped of *.npy first):

* ``cases.txt``: one case per line, tab-separated: ``OP DTYPE INPUTS OUT``.
  INPUTS is a comma-separated list of .npy files (in DTYPE, or bool); OUT the .npy
  file of NumPy's result, in NumPy's result dtype (int64 for integer sums and
  products, bool for comparisons). For ``astype:TO`` OUT is ``FILE;MASK``: MASK
  marks the elements where NumPy's cast is defined (a float that is finite and
  whose truncation fits TO); only those are compared.
* ``file_<dtype>_<C|F>_<le|be>.npy``: the array ``values(dtype)`` of shape (2, 3)
  written by NumPy in that memory order and byte order (for the .npy tests).
"""

import os
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "dtypes")
os.makedirs(OUT, exist_ok=True)
for f in os.listdir(OUT):
    if f.endswith(".npy"):
        os.remove(os.path.join(OUT, f))

warnings.simplefilter("ignore")  # overflow and division by zero warn; results are kept
rng = np.random.default_rng(0x64747970)  # "dtyp"
INTS = {"i32": np.int32, "i64": np.int64, "u8": np.uint8}
FLOATS = {"f64": np.float64, "f32": np.float32}
ALL = {**INTS, **FLOATS, "bool": np.bool_}
lines = []
saved = {}


def save(arr):
    arr = np.array(arr, order="C", copy=True)
    key = (arr.dtype.str, arr.shape, arr.tobytes())
    if key not in saved:
        name = "d_%04d.npy" % len(saved)
        np.save(os.path.join(OUT, name), arr)
        saved[key] = name
    return saved[key]


def edges(dt):
    info = np.iinfo(INTS[dt])
    e = [info.min, info.max, 0, 1, 2, 7, info.max - 1, info.min + 1]
    if info.min < 0:
        e += [-1, -2, -7, info.min // 2]
    return e


def ints(dt, shape, edge=True):
    info = np.iinfo(INTS[dt])
    n = int(np.prod(shape))
    x = rng.integers(info.min, int(info.max) + 1, size=n, dtype=np.int64 if dt != "u8" else np.uint8)
    small = rng.integers(max(info.min, -9), 10, size=n)
    x = np.where(rng.random(n) < 0.5, small, x)
    if edge and n >= 4:
        e = edges(dt)
        k = rng.integers(0, n, size=max(1, n // 3))
        x[k] = rng.choice(e, size=len(k))
    return x.astype(INTS[dt]).reshape(shape)


def case(op, dt, inputs, out):
    lines.append("\t".join([op, dt, ",".join(save(a) for a in inputs), out]))


def result(op, dt, inputs, r):
    case(op, dt, inputs, save(r))


shapes = [((0,), (0,)), ((1,), (1,)), ((7,), (7,)), ((67,), (67,)), ((3, 1), (4,)), ((2, 3, 5), (5,)), ((5,), ())]

for dt in INTS:
    t = INTS[dt]
    # Every pair of edge values, both orders: the sign table of // and %, overflow.
    e = np.array(edges(dt), dtype=t)
    a, b = np.meshgrid(e, e, indexing="ij")
    pairs = [(a.ravel(), b.ravel())]
    for sa, sb in shapes:
        pairs.append((ints(dt, sa), ints(dt, sb)))
    for x, y in pairs:
        result("add", dt, [x, y], np.add(x, y))
        result("sub", dt, [x, y], np.subtract(x, y))
        result("mul", dt, [x, y], np.multiply(x, y))
        result("floor_div", dt, [x, y], np.floor_divide(x, y))
        result("rem", dt, [x, y], np.remainder(x, y))
        for op in ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]:
            result(op, dt, [x, y], getattr(np, op)(x, y))
    # Division by a zero scalar-shaped operand, and MIN // -1 for the signed ones.
    z = np.zeros((), dtype=t)
    x = ints(dt, (9,))
    result("floor_div", dt, [x, z], np.floor_divide(x, z))
    result("rem", dt, [x, z], np.remainder(x, z))
    # Reductions: sums that overflow the element type but not int64, ties in argmax.
    big = np.full(1000, np.iinfo(t).max, dtype=t)
    tie = np.array([3, 9, 1, 9, 9, 0, 1, 0], dtype=t)
    for x in [big, tie, ints(dt, (5,)), ints(dt, (300,)), ints(dt, (4, 6)), ints(dt, (40000,), edge=False)]:
        result("sum", dt, [x], np.array(np.sum(x, dtype=np.int64)))
        result("prod", dt, [x], np.array(np.prod(x, dtype=np.int64)))
        result("max", dt, [x], np.array(np.max(x)))
        result("min", dt, [x], np.array(np.min(x)))
        result("argmax", dt, [x], np.array(np.argmax(x), dtype=np.int64))
        result("argmin", dt, [x], np.array(np.argmin(x), dtype=np.int64))
    # NumPy's own sum dtype is int64 for int32 and int64 (Linux) and uint64 for uint8.
    assert np.sum(big).dtype == (np.uint64 if dt == "u8" else np.int64)

# Casts: every pair of dtypes; floats include NaN, infinities and out-of-range values.
def cast_source(dt):
    if dt in INTS:
        return ints(dt, (40,))
    if dt == "bool":
        return rng.random(12) < 0.5
    x = np.concatenate([
        rng.standard_normal(20) * 10,
        rng.standard_normal(10) * 1e12,
        [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 2.5, -2.5, 2.9999, -2.9999,
         255.9, 256.0, -0.9, -1.0, 2147483647.0, 2147483648.0, -2147483648.0,
         -2147483649.0, 9.3e18, -9.3e18, 1e300],
    ])
    return x.astype(ALL[dt])


for src in ALL:
    x = cast_source(src)
    for to in ALL:
        r = x.astype(ALL[to])
        if src in FLOATS and to in INTS:
            info = np.iinfo(ALL[to])
            with np.errstate(invalid="ignore"):
                tr = np.trunc(x.astype(np.float64))
                mask = np.isfinite(tr) & (tr >= info.min) & (tr <= info.max)
        else:
            mask = np.ones(x.shape, dtype=bool)
        case("astype:" + to, src, [x], save(r) + ";" + save(mask))

# Boolean logic, with broadcasting.
for sa, sb in [((0,), (0,)), ((9,), (9,)), ((3, 1), (4,)), ((2, 3, 33), (33,)), ((5,), ())]:
    x = rng.random(sa) < 0.5
    y = rng.random(sb) < 0.5
    result("logical_and", "bool", [x, y], np.logical_and(x, y))
    result("logical_or", "bool", [x, y], np.logical_or(x, y))
    result("logical_xor", "bool", [x, y], np.logical_xor(x, y))
    result("logical_not", "bool", [x], np.logical_not(x))
    result("any", "bool", [x], np.array(np.any(x)))
    result("all", "bool", [x], np.array(np.all(x)))
    result("count_nonzero", "bool", [x], np.array(np.count_nonzero(x), dtype=np.int64))
    result("sum", "bool", [x], np.array(np.sum(x), dtype=np.int64))

# Axis reductions and means (after the cases above, so their files keep their
# names): sums and products in int64, extremes in the element type, indices in
# int64, means in float64; every axis of 2-D and 3-D arrays, an empty output and
# ties. A case ``OP:AXIS``; max/min/arg only where the axis is not empty.
for dt in INTS:
    t = INTS[dt]
    tie = np.array([3, 9, 1, 9, 9, 0, 1, 0], dtype=t).reshape(2, 4)
    big = np.full((3, 300), np.iinfo(t).max, dtype=t)
    for x in [ints(dt, (4, 6)), ints(dt, (2, 3, 5)), tie, big, ints(dt, (0, 3)), ints(dt, (7,))]:
        for ax in range(-x.ndim, x.ndim):
            result("sum_axis:%d" % ax, dt, [x], np.sum(x, axis=ax, dtype=np.int64))
            result("prod_axis:%d" % ax, dt, [x], np.prod(x, axis=ax, dtype=np.int64))
            if x.shape[ax] > 0:
                result("max_axis:%d" % ax, dt, [x], np.max(x, axis=ax))
                result("min_axis:%d" % ax, dt, [x], np.min(x, axis=ax))
                result("argmax_axis:%d" % ax, dt, [x], np.argmax(x, axis=ax).astype(np.int64))
                result("argmin_axis:%d" % ax, dt, [x], np.argmin(x, axis=ax).astype(np.int64))
        # Means of values whose float64 sums are exact, so the bits are NumPy's
        # whatever the summation order.
        m = x if dt != "i64" else (x % 100000).astype(t)
        result("mean", dt, [m], np.array(np.mean(m)))
        for ax in range(-m.ndim, m.ndim):
            result("mean_axis:%d" % ax, dt, [m], np.mean(m, axis=ax))
for shape in [(3, 5), (2, 0), (4, 3, 2)]:
    x = rng.random(shape) < 0.5
    result("mean", "bool", [x], np.array(np.mean(x)))
    for ax in range(-x.ndim, x.ndim):
        result("sum_axis:%d" % ax, "bool", [x], np.sum(x, axis=ax, dtype=np.int64))
        result("mean_axis:%d" % ax, "bool", [x], np.mean(x, axis=ax))
        if x.shape[ax] > 0:
            result("argmax_axis:%d" % ax, "bool", [x], np.argmax(x, axis=ax).astype(np.int64))
            result("max_axis:%d" % ax, "bool", [x], np.max(x, axis=ax))

# .npy files NumPy wrote, in every dtype, memory order and byte order.
def values(dt):
    if dt in INTS:
        info = np.iinfo(INTS[dt])
        v = [info.min, -1 if info.min < 0 else 200, 0, 1, info.max, 7]
    elif dt == "bool":
        v = [True, False, False, True, True, False]
    else:
        v = [-1.5, 0.0, 2.25, 1e30, -7.0, 3.0]
    return np.array(v, dtype=ALL[dt]).reshape(2, 3)


for dt in ALL:
    for order in "CF":
        for end in ["le", "be"]:
            a = values(dt)
            a = a.astype(a.dtype.newbyteorder("<" if end == "le" else ">"))
            a = np.asarray(a, order=order)
            np.save(os.path.join(OUT, "file_%s_%s_%s.npy" % (dt, order, end)), a)

with open(os.path.join(OUT, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
print(len(lines), "cases,", len(saved), "arrays")
