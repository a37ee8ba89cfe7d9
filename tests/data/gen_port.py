#!/usr/bin/env python3
"""Generate the NumPy fixtures of tests/port_numpy.rs: closures, selection,
manipulation, sorting, scans and statistics.

Run by hand from anywhere (needs NumPy >= 2.0; written against 2.4):

    python3 tests/data/gen_port.py

Output, under tests/data/port/ (wiped of *.npy first):

* ``cases.txt``: one case per line, tab-separated: ``OP DTYPE INPUTS PARAMS OUTS``.
  INPUTS is a comma-separated list of ``FILE@PRE``; PRE is applied to the loaded
  array before the operation: ``-`` (nothing), ``T`` (all axes reversed) or
  ``s:SPEC`` (a basic-indexing expression, items ``start:stop:step`` or an integer,
  joined by ``;``), giving non-contiguous and negative-stride inputs.
  PARAMS depends on OP (see the table in tests/port_numpy.rs); ``none`` is NumPy's
  ``axis=None``.  OUTS is a comma-separated list of result files, or ``error`` when
  NumPy raises (the Rust call must return Err, not panic).  Index results are
  saved as float64.
"""

import os
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "port")
os.makedirs(OUT, exist_ok=True)
for f in os.listdir(OUT):
    if f.endswith(".npy"):
        os.remove(os.path.join(OUT, f))

rng = np.random.default_rng(0x706F7274)  # "port"
DT = {"f64": np.float64, "f32": np.float32}
lines = []
saved = {}


def save(arr):
    arr = np.array(arr, order="C", copy=True)
    key = (arr.dtype.str, arr.shape, arr.tobytes())
    if key not in saved:
        name = "p_%04d.npy" % len(saved)
        np.save(os.path.join(OUT, name), arr)
        saved[key] = name
    return saved[key]


def values(shape, dt, special=True, ints=False):
    n = int(np.prod(shape))
    if ints:
        x = rng.integers(-4, 5, size=n).astype(np.float64)
    else:
        x = rng.standard_normal(n) * 10
    if special and n > 3:
        pool = [np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, 1.0]
        k = rng.integers(0, n, size=max(1, n // 5))
        x[k] = rng.choice(pool, size=len(k))
    return x.astype(DT[dt]).reshape(shape)


def apply_pre(a, pre):
    if pre == "-":
        return a
    if pre == "T":
        return a.T
    items = []
    for it in pre[2:].split(";"):
        if ":" in it:
            parts = [int(p) if p else None for p in it.split(":")]
            items.append(slice(*parts))
        else:
            items.append(int(it))
    return a[tuple(items)]


def inp(a, pre="-"):
    """The input column for array a (before PRE) and the array NumPy sees."""
    return "%s@%s" % (save(a), pre), apply_pre(a, pre)


def case(op, dt, inputs, params, fn, contract_error=False):
    """One case; contract_error: ndsimd errs by its own contract where NumPy
    accepts (an axis of a 0-d array, as in the axis reductions; an index out of
    bounds even when there is nothing to take)."""
    cols = [c for c, _ in inputs]
    arrs = [a for _, a in inputs]
    if contract_error:
        lines.append("\t".join([op, dt, ",".join(cols), params, "error"]))
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = fn(*arrs)
    except (ValueError, IndexError, TypeError, np.exceptions.AxisError, ZeroDivisionError):
        outs = "error"
    else:
        if not isinstance(res, (list, tuple)):
            res = [res]
        outs = ",".join(save(np.asarray(r)) for r in res)
    lines.append("\t".join([op, dt, ",".join(cols), params, outs]))


# Layouts: (shape, pre) pairs; pre makes non-contiguous and negative-stride views.
LAYOUTS = [
    ((7,), "-"),
    ((9,), "s:::-2"),
    ((3, 4), "-"),
    ((3, 4), "T"),
    ((4, 6), "s:::-1;1::2"),
    ((2, 3, 4), "-"),
    ((2, 3, 4), "T"),
    ((3, 5, 4), "s:1:;::-1;::3"),
    ((0, 3), "-"),
    ((3, 0), "T"),
    ((), "-"),
]

for dt in ["f64", "f32"]:
    for shape, pre in LAYOUTS:
        a = values(shape, dt)
        c, v = inp(a, pre)
        nd = v.ndim
        axes = list(range(-nd - 1, nd + 1)) if nd else [0]
        # closures: results of simple arithmetic are bit-identical in both.
        case("mapv", dt, [(c, v)], "-", lambda v: v * 3 - 1)
        for ax in axes:
            sp = str(ax)
            z = nd == 0  # ndsimd: a 0-d array has no axis (NumPy accepts 0 and -1 in places)
            lanes = lambda v: np.moveaxis(v, ax, -1).reshape(v.size // v.shape[ax] if v.shape[ax] else
                                                              int(np.prod(np.delete(v.shape, ax))), v.shape[ax])
            case("lanes", dt, [(c, v)], sp, lanes)
            case("axis_iter", dt, [(c, v)], sp, lambda v: np.moveaxis(v, ax, 0).ravel())
            case("take", dt, [(c, v)], sp + ";0,-1,0", lambda v: np.take(v, [0, -1, 0], axis=ax), z)
            case("take", dt, [(c, v)], sp + ";", lambda v: np.take(v, np.array([], dtype=np.intp), axis=ax), z)
            if nd and -nd <= ax < nd and v.shape[ax] > 0:
                n = v.shape[ax]
                idx = list(rng.integers(-n, n, size=5))
                case("take", dt, [(c, v)], sp + ";" + ",".join(map(str, idx)), lambda v: np.take(v, idx, axis=ax))
                case("take", dt, [(c, v)], sp + ";%d" % n, lambda v: np.take(v, [n], axis=ax), v.size == 0)
            case("flip", dt, [(c, v)], sp, lambda v: np.flip(v, ax), z)
            case("sort", dt, [(c, v)], sp, lambda v: np.sort(v, axis=ax, kind="stable"), z)
            case("argsort", dt, [(c, v)], sp, lambda v: np.argsort(v, axis=ax, kind="stable").astype(np.float64), z)
            case("cumsum", dt, [(c, v)], sp, lambda v: np.cumsum(v, axis=ax), z)
            case("cumprod", dt, [(c, v)], sp, lambda v: np.cumprod(v, axis=ax), z)
            for ddof in [0, 1]:
                for kd in [False, True]:
                    p = "%d;%s;%s" % (ddof, sp, kd)
                    case("var", dt, [(c, v)], p, lambda v: np.var(v, axis=ax, ddof=ddof, keepdims=kd))
                    case("std", dt, [(c, v)], p, lambda v: np.std(v, axis=ax, ddof=ddof, keepdims=kd))
            for k in [1, 2, 3]:
                case("split", dt, [(c, v)], "%d;%s" % (k, sp), lambda v: np.split(v, k, axis=ax))
                case("array_split", dt, [(c, v)], "%d;%s" % (k, sp), lambda v: np.array_split(v, k, axis=ax))
            case("split_at", dt, [(c, v)], "1,3,2,9;" + sp, lambda v: np.split(v, [1, 3, 2, 9], axis=ax))
        case("flip", dt, [(c, v)], "none", lambda v: np.flip(v))
        case("sort", dt, [(c, v)], "none", lambda v: np.sort(v, axis=None, kind="stable"))
        case("argsort", dt, [(c, v)], "none", lambda v: np.argsort(v, axis=None, kind="stable").astype(np.float64))
        case("cumsum", dt, [(c, v)], "none", lambda v: np.cumsum(v))
        case("cumprod", dt, [(c, v)], "none", lambda v: np.cumprod(v))
        for ddof in [0, 1, 2]:
            case("var", dt, [(c, v)], "%d;none;False" % ddof, lambda v: np.var(v, ddof=ddof))
            case("std", dt, [(c, v)], "%d;none;False" % ddof, lambda v: np.std(v, ddof=ddof))
        case("nonzero", dt, [(c, v)], "-", lambda v: [x.astype(np.float64) for x in np.nonzero(v)])
        case("flatnonzero", dt, [(c, v)], "-", lambda v: np.flatnonzero(v).astype(np.float64))
        for lo, hi in [(-1.0, 2.0), (None, 0.0), (0.5, None), (3.0, -3.0), (np.nan, 1.0)]:
            p = "%s;%s" % ("none" if lo is None else repr(lo), "none" if hi is None else repr(hi))
            case("clip", dt, [(c, v)], p, lambda v: np.clip(v, DT[dt](lo) if lo is not None else None,
                                                             DT[dt](hi) if hi is not None else None))
        m = rng.random(v.shape) < 0.5
        case("mask", dt, [(c, v), inp(m)], "-", lambda v, m: v[m])
        if nd >= 1:
            m2 = rng.random(v.shape[:-1] + (v.shape[-1] + 1,)) < 0.5
            case("mask", dt, [(c, v), inp(m2)], "-", lambda v, m: v[m])
        for reps in ["2", "2,1", "1,3", "2,1,2"]:
            r = [int(x) for x in reps.split(",")]
            case("tile", dt, [(c, v)], reps, lambda v: np.tile(v, r))
        for i in range(nd):
            for j in range(-nd, nd):
                case("swap_axes", dt, [(c, v)], "%d,%d" % (i, j), lambda v: np.swapaxes(v, i, j))
        case("swap_axes", dt, [(c, v)], "0,%d" % max(nd, 1), lambda v: np.swapaxes(v, 0, max(nd, 1)))
        for target in [(2,) + v.shape, (3, 1) + v.shape, v.shape[:-1] + (5,) if nd else (5,), (7,)]:
            tgt = ",".join(map(str, target)) or "()"
            case("broadcast_to", dt, [(c, v)], tgt, lambda v: np.broadcast_to(v, target))
        # zip_map and where_ against partners of broadcast-compatible (or not) shapes.
        for bshape in [v.shape, v.shape[1:], (1,) + v.shape, (v.shape[-1] if nd else 1, 1), (5,)]:
            b = values(bshape, dt)
            bc, bv = inp(b)
            case("zip_map", dt, [(c, v), (bc, bv)], "-", lambda x, y: x - 2 * y)
            for tol in ["1e-05;1e-08;False", "0.5;1.0;True", "0.0;0.0;False"]:
                rt, at, en = tol.split(";")
                case("isclose", dt, [(c, v), (bc, bv)], tol + ";1",
                     lambda x, y: np.isclose(x, y, float(rt), float(at), en == "True"))
                case("isclose", dt, [(c, v), (c, v)], tol + ";1.0000001",
                     lambda x, y: np.isclose(x, y * DT[dt](1.0000001), float(rt), float(at), en == "True"))
            cond = rng.random(bshape) < 0.5
            case("where", dt, [inp(cond), (c, v), (bc, bv)], "-", lambda c, x, y: np.where(c, x, y))
            case("where_scalar", dt, [inp(cond), (c, v)], "2.5", lambda c, x: np.where(c, x, DT[dt](2.5)))
        # joining: partners that agree on all axes but one, or not.
        if nd >= 1:
            for ax in range(-nd, nd):
                for extra in [0, 2]:
                    s2 = list(v.shape)
                    s2[ax] = extra
                    b = values(tuple(s2), dt)
                    bc, bv = inp(b)
                    case("concatenate", dt, [(c, v), (bc, bv), (c, v)], str(ax),
                         lambda x, y, z: np.concatenate([x, y, z], axis=ax))
            bad = values(v.shape + (1,), dt)
            case("concatenate", dt, [(c, v), inp(bad)], "0", lambda x, y: np.concatenate([x, y], axis=0))
        else:
            case("concatenate", dt, [(c, v), (c, v)], "0", lambda x, y: np.concatenate([x, y], axis=0))
        for ax in range(-nd - 2, nd + 2):
            case("stack", dt, [(c, v), (c, v)], str(ax), lambda x, y: np.stack([x, y], axis=ax))
        case("vstack", dt, [(c, v), (c, v)], "-", lambda x, y: np.vstack([x, y]))
        case("hstack", dt, [(c, v), (c, v)], "-", lambda x, y: np.hstack([x, y]))
        one = values((1,) + v.shape[1:] if nd >= 1 else (), dt)
        case("vstack", dt, [(c, v), inp(one)], "-", lambda x, y: np.vstack([x, y]))

# Accuracy: data far from zero, where a one-pass variance loses every digit.
for dt in ["f64", "f32"]:
    base = 1e8 if dt == "f64" else 1e4
    a = (base + rng.standard_normal((24, 400))).astype(DT[dt])
    c, v = inp(a)
    for ax in ["0", "1", "-1"]:
        case("var", dt, [(c, v)], "0;%s;False" % ax, lambda v: np.var(v, axis=int(ax)))
    case("var", dt, [(c, v)], "1;none;False", lambda v: np.var(v, ddof=1))
    case("mean", dt, [(c, v)], "1", lambda v: np.mean(v, axis=1))
    case("mean", dt, [(c, v)], "0", lambda v: np.mean(v, axis=0))

with open(os.path.join(OUT, "cases.txt"), "w") as f:
    f.write("# generated by tests/data/gen_port.py with NumPy %s\n" % np.__version__)
    f.write("\n".join(lines) + "\n")
print(len(lines), "cases,", len(saved), "files")
