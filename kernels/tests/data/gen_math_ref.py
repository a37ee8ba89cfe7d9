#!/usr/bin/env python3
"""Reference values for the exp, log, exp2, log2, log10, expm1, log1p and tanh accuracy
tests (kernels/tests/math.rs).

    python3 kernels/tests/data/gen_math_ref.py    # rewrites kernels/tests/data/math_*.txt
    python3 kernels/tests/data/gen_math_ref.py expm1 tanh   # only those functions' files
    python3 kernels/tests/data/gen_math_ref.py trig    # only math_sin_*, math_cos_*, math_pow_*
    python3 kernels/tests/data/gen_math_ref.py pow    # only math_pow_*

One file per function and type, one point per line: the input's bits, the
correctly rounded result's bits (hex), and the exact result minus the rounded
one in units of the rounded one's ULP (3 decimals), so a test can measure the
true error of a result: |(got - rounded) / ulp - offset|. Results are computed
with mpmath at 256 bits and rounded here (subnormals and overflow included).
Points: uniform over the domain (as values and as bit patterns), dense near 0 and
1 and near the overflow, subnormal and underflow thresholds, subnormal inputs,
and the special values. Deterministic (a fixed seed).
"""
import os
import random
import struct
import sys

import mpmath as mp

mp.mp.prec = 256
HERE = os.path.dirname(os.path.abspath(__file__))

TYPES = {
    # name: (precision, min exponent, max exponent, pack, unpack, bits format)
    "f64": (53, -1022, 1023, "<d", "<Q", 16),
    "f32": (24, -126, 127, "<f", "<I", 8),
}


def to_bits(ty, x):
    p = TYPES[ty]
    return struct.unpack(p[4], struct.pack(p[3], x))[0]


def from_bits(ty, b):
    p = TYPES[ty]
    return struct.unpack(p[3], struct.pack(p[4], b))[0]


def round_to(ty, y):
    """(rounded value as a Python float, ulp as mpf) of the real y."""
    prec, emin, emax = TYPES[ty][:3]
    if y == 0:
        return 0.0, mp.mpf(2) ** (emin - prec + 1)
    s = 1 if y > 0 else -1
    a = abs(y)
    e = max(int(mp.floor(mp.log(a, 2))), emin)
    # log may land one off at a power of two.
    while mp.mpf(2) ** e > a and e > emin:
        e -= 1
    while mp.mpf(2) ** (e + 1) <= a:
        e += 1
    q = mp.mpf(2) ** (e - prec + 1)
    m = a / q
    f = mp.floor(m)
    d = m - f
    if d > 0.5 or (d == 0.5 and int(f) % 2 == 1):
        f += 1
    r = f * q
    if r >= mp.mpf(2) ** (emax + 1):
        return s * float("inf"), q
    return s * float(r), q


def exact(fn, x):
    x = mp.mpf(x)
    if fn == "exp":
        return mp.exp(x)
    if fn == "log":
        return mp.log(x)
    if fn == "exp2":
        return mp.power(2, x)
    if fn == "log2":
        return mp.log(x, 2)
    if fn == "log10":
        return mp.log10(x)
    if fn == "expm1":
        return mp.expm1(x)
    if fn == "log1p":
        return mp.log1p(x)
    if fn == "tanh":
        return mp.tanh(x)
    raise ValueError(fn)


def special_result(fn, x):
    """The result for inputs where mpmath has no real value, else None."""
    if x != x:
        return float("nan")
    if fn in ("exp", "exp2"):
        # Far past the thresholds (|x| > 2000 as f64, 200 as f32): +Inf or +0,
        # without asking mpmath for e^(10^300).
        if x > 2000:
            return float("inf")
        if x < -2000:
            return 0.0
    if fn == "expm1":
        if x > 2000:
            return float("inf")
        if x < -2000:
            return -1.0
    if fn == "tanh" and abs(x) > 2000:
        return 1.0 if x > 0 else -1.0
    if fn == "log1p":
        if x == -1:
            return -float("inf")
        if x < -1:
            return float("nan")
        if x == float("inf"):
            return x
    if fn in ("log", "log2", "log10"):
        if x == 0:
            return -float("inf")
        if x < 0:
            return float("nan")
        if x == float("inf"):
            return x
    return None


def specials(ty):
    prec, emin, emax = TYPES[ty][:3]
    tiny = 2.0 ** (emin - prec + 1)
    big = float(from_bits(ty, to_bits(ty, float("inf")) - 1))
    return [0.0, -0.0, float("inf"), -float("inf"), float("nan"), -float("nan"), 1.0,
            -1.0, tiny, -tiny, 2.0 ** emin, big, -big, 0.5, 2.0]


def rnd(ty, x):
    return from_bits(ty, to_bits(ty, x))


def points(fn, ty, rng, n=20000):
    prec, emin, emax = TYPES[ty][:3]
    bw = TYPES[ty][5] * 4
    xs = specials(ty)
    if fn in ("expm1", "log1p", "tanh"):
        return points_near_zero(fn, ty, rng, xs, n)
    if fn in ("exp", "exp2"):
        # The overflow, underflow and subnormal thresholds (in log base e or 2).
        base = 2 if fn == "exp2" else mp.e
        hi = float(mp.log(mp.mpf(2) ** (emax + 1), base))
        lo = float(mp.log(mp.mpf(2) ** (emin - prec), base))
        sub = float(mp.log(mp.mpf(2) ** emin, base))
        if fn == "exp2":
            # Integers and halves: exact powers of two and their square roots.
            xs += [k / 2 for k in range(2 * (emin - prec), 2 * (emax + 2))]
        xs += [rng.uniform(lo - 1, hi + 1) for _ in range(7000)]
        xs += [rng.choice([-1, 1]) * 10 ** rng.uniform(-25, 0) for _ in range(4000)]
        for t in (hi, lo, sub):
            xs += [t + rng.uniform(-1, 1) * 10 ** rng.uniform(-8, 0) for _ in range(1500)]
        xs += [rng.uniform(lo, sub) for _ in range(1500)]
        xs += [rng.uniform(-3, 3) for _ in range(1500)]
    else:
        # Positive bit patterns: every exponent, subnormals included.
        top = to_bits(ty, float("inf"))
        xs += [from_bits(ty, rng.randrange(1, top)) for _ in range(6000)]
        xs += [from_bits(ty, rng.randrange(1, 1 << (prec - 1))) for _ in range(1500)]
        xs += [1 + rng.choice([-1, 1]) * 10 ** rng.uniform(-12 if ty == "f64" else -7, -0.5)
               for _ in range(5000)]
        xs += [rng.uniform(0.5, 2.0) for _ in range(4000)]
        xs += [rng.uniform(0, 1000) for _ in range(2000)]
        xs += [-rng.uniform(0, 10) for _ in range(200)]
    xs += [from_bits(ty, rng.randrange(0, 1 << bw)) for _ in range(max(0, n - len(xs)) + 500)]
    return [rnd(ty, x) for x in xs]


def points_near_zero(fn, ty, rng, xs, n):
    """Points of the functions accurate near 0 (expm1, log1p, tanh): dense near 0
    (both signs, down to the subnormals), around the switch between the near-0
    polynomial and the table path (|x| = 1/16), near the saturation, overflow and
    pole thresholds, uniform over the domain, and random bit patterns."""
    prec, emin, emax = TYPES[ty][:3]
    bw = TYPES[ty][5] * 4
    top = to_bits(ty, float("inf"))
    sgn = lambda: rng.choice([-1, 1])
    xs += [sgn() * 10 ** rng.uniform(-30 if ty == "f64" else -20, 0) for _ in range(5000)]
    xs += [sgn() * from_bits(ty, rng.randrange(1, 1 << (prec - 1))) for _ in range(800)]
    xs += [sgn() * (0.0625 + rng.uniform(-1, 1) * 10 ** rng.uniform(-10, -1)) for _ in range(1500)]
    if fn == "expm1":
        over = float(mp.log(mp.mpf(2) ** (emax + 1)))
        sat = float(mp.log(mp.mpf(2) ** -(prec + 1)))  # e^x below half an ULP of 1
        xs += [over + rng.uniform(-1, 1) * 10 ** rng.uniform(-8, 0) for _ in range(1500)]
        xs += [sat + rng.uniform(-1, 1) * 10 ** rng.uniform(-6, 0) for _ in range(1000)]
        xs += [rng.uniform(sat - 10, over + 1) for _ in range(5000)]
        xs += [rng.uniform(-3, 3) for _ in range(2000)]
    elif fn == "log1p":
        xs += [-1 + 10 ** rng.uniform(-15 if ty == "f64" else -7, 0) for _ in range(1500)]
        xs += [from_bits(ty, rng.randrange(1, top)) for _ in range(4000)]
        xs += [rng.uniform(-1, 3) for _ in range(4000)]
        xs += [rng.uniform(0, 1000) for _ in range(1000)]
        xs += [-rng.uniform(1, 10) for _ in range(200)]
    else:
        sat = float(mp.atanh(1 - mp.mpf(2) ** -(prec + 1)))  # tanh above 1 - ulp/2
        xs += [sgn() * (sat + rng.uniform(-1, 1) * 10 ** rng.uniform(-6, 0)) for _ in range(1500)]
        xs += [rng.uniform(-25, 25) for _ in range(5000)]
        xs += [rng.uniform(-3, 3) for _ in range(2500)]
    xs += [from_bits(ty, rng.randrange(0, 1 << bw)) for _ in range(max(0, n - len(xs)) + 500)]
    return [rnd(ty, x) for x in xs]


def main():
    rng = random.Random(20260428)
    # New functions go last: the shared generator keeps earlier files unchanged.
    only = sys.argv[1:]
    for fn in ("exp", "log", "exp2", "log2", "log10", "expm1", "log1p", "tanh"):
        for ty in ("f64", "f32"):
            if only and fn not in only:
                # The points are drawn anyway, so the stream (and every file) is
                # the same with or without a selection.
                points(fn, ty, rng)
                continue
            hexw = TYPES[ty][5]
            lines = []
            for x in points(fn, ty, rng):
                sr = special_result(fn, x)
                if sr is not None:
                    y, off = sr, 0.0
                else:
                    v = exact(fn, x)
                    y, q = round_to(ty, v)
                    if y in (float("inf"), -float("inf")):
                        off = 0.0
                    else:
                        off = float((v - mp.mpf(y)) / q)
                lines.append(f"{to_bits(ty, x):0{hexw}x} {to_bits(ty, y):0{hexw}x} {off:+.3f}")
            path = os.path.join(HERE, f"math_{fn}_{ty}.txt")
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            print(path, len(lines))


def pio2_convergents(limit):
    """Numerators p < limit of the continued-fraction convergents p/q of pi/2: the
    integers closest to a multiple of pi/2 for their size (the reductions' worst
    cases), with q."""
    with mp.workprec(400):
        a = mp.pi / 2
        p0, q0, p1, q1 = 1, 0, int(mp.floor(a)), 1
        frac = a - mp.floor(a)
        out = []
        while p1 < limit:
            out.append((p1, q1))
            frac = 1 / frac
            t = int(mp.floor(frac))
            frac -= t
            p0, q0, p1, q1 = p1, q1, t * p1 + p0, t * q1 + q0
    return out


def trig_points(ty, rng):
    """sin/cos inputs: uniform over the vector path's range and past it, dense near
    0, the floats nearest multiples of pi/2 (and their neighbours), the integers
    closest to multiples of pi/2 (continued fractions), the vector bound, huge
    and subnormal values, specials."""
    prec, emin, emax = TYPES[ty][:3]
    bw = TYPES[ty][5] * 4
    bound = 16777216.0 if ty == "f64" else 6400.0
    xs = specials(ty) + [bound, -bound, rnd(ty, bound * (1 - 2.0**-prec)), 1e22, -1e22]
    if ty == "f64":
        xs.append(6381956970095103.0 * 2.0**797)
    xs += [rng.uniform(-10, 10) for _ in range(4000)]
    xs += [rng.uniform(-bound, bound) for _ in range(3000)]
    xs += [rng.choice([-1, 1]) * 10 ** rng.uniform(-30 if ty == "f64" else -15, 0) for _ in range(2500)]
    xs += [rng.choice([-1, 1]) * 2 ** rng.uniform(0, 1.5 * mp.log(bound, 2)) for _ in range(2500)]
    with mp.workprec(300):
        for _ in range(2500):
            k = int(2 ** rng.uniform(0, mp.log(bound, 2) + 2))
            x = rnd(ty, float(k * mp.pi / 2))
            step = rng.choice([-1, 0, 0, 0, 1])
            xs.append(from_bits(ty, to_bits(ty, x) + step) if x > 0 else x)
    for p, _ in pio2_convergents(2 ** prec):
        for sh in range(0, 40, 3):
            xs += [float(p) * 2.0**sh, -float(p) * 2.0**-sh]
    xs += [from_bits(ty, rng.randrange(1, 1 << (prec - 1))) for _ in range(500)]
    xs += [from_bits(ty, rng.randrange(0, 1 << bw)) for _ in range(3000)]
    xs += [rng.uniform(-bound, bound) for _ in range(max(0, 20000 - len(xs)) + 500)]
    return [rnd(ty, x) for x in xs]


def trig_exact(fn, x):
    x = mp.mpf(x)
    # Enough bits for the reduction of the largest input, and 256 after.
    with mp.workprec(256 + max(0, int(mp.log(abs(x) + 1, 2)))):
        v = mp.sin(x) if fn == "sin" else mp.cos(x)
    return v


def main_trig():
    for fn in ("sin", "cos"):
        for ty in ("f64", "f32"):
            rng = random.Random(f"{fn}-{ty}")
            hexw = TYPES[ty][5]
            lines = []
            for x in trig_points(ty, rng):
                if x != x or x in (float("inf"), -float("inf")):
                    y, off = float("nan"), 0.0
                elif x == 0:
                    y, off = (x, 0.0) if fn == "sin" else (1.0, 0.0)
                else:
                    v = trig_exact(fn, x)
                    y, q = round_to(ty, v)
                    off = float((v - mp.mpf(y)) / q)
                lines.append(f"{to_bits(ty, x):0{hexw}x} {to_bits(ty, y):0{hexw}x} {off:+.3f}")
            path = os.path.join(HERE, f"math_{fn}_{ty}.txt")
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            print(path, len(lines))


def pow_points(ty, rng):
    """pow inputs (x, y): moderate values, x near 1 and any x with y chosen so that
    y log x spans the whole range of results (overflow, subnormal and underflow
    thresholds included), negative x with integer y, subnormal x, small integer and
    half-integer exponents, and every pairing of the special values."""
    prec, emin, emax = TYPES[ty][:3]
    bw = TYPES[ty][5] * 4
    top = to_bits(ty, float("inf"))
    hi = float((emax + 1) * mp.log(2))
    lo = float((emin - prec) * mp.log(2))
    sp = [0.0, -0.0, 1.0, -1.0, float("inf"), -float("inf"), float("nan"), 0.5, -0.5, 2.0,
          -2.0, 3.0, -3.0, 2.0 ** (emin - prec + 1), 1e10, -1e10, 0.7, -0.7]
    ps = [(a, b) for a in sp for b in sp]
    ps += [(rng.uniform(0, 10), rng.uniform(-50, 50)) for _ in range(4000)]

    def aim(x):
        t = rng.uniform(lo - 5, hi + 5) if rng.random() < 0.7 else rng.uniform(-20, 20)
        lx = float(mp.log(abs(mp.mpf(x))))
        return t / lx if lx != 0 else 2.0

    for _ in range(4000):
        x = 1 + rng.choice([-1, 1]) * 10 ** rng.uniform(-15 if ty == "f64" else -7, -0.5)
        ps.append((x, aim(x)))
    for _ in range(4000):
        x = from_bits(ty, rng.randrange(1, top))
        ps.append((x, aim(x)))
    for t in (hi, lo, float(emin * mp.log(2))):
        for _ in range(1000):
            x = rng.uniform(0.1, 10)
            lx = float(mp.log(mp.mpf(rnd(ty, x))))
            ps.append((x, (t + rng.uniform(-1, 1) * 10 ** rng.uniform(-8, 0)) / lx))
    for _ in range(2000):
        ps.append((-rng.uniform(0, 20), float(rng.randrange(-60, 60))))
    for _ in range(500):
        ps.append((-rng.uniform(0, 20), rng.uniform(-10, 10)))
    for _ in range(1000):
        ps.append((from_bits(ty, rng.randrange(1, 1 << (prec - 1))), rng.uniform(-1.2, 1.2)))
    for _ in range(2000):
        ps.append((rng.uniform(-100, 100), rng.choice([2.0, 3.0, 0.5, -1.0, -2.0, 1.5, -0.5, 4.0])))
    for _ in range(1000):
        ps.append((from_bits(ty, rng.randrange(0, 1 << bw)), from_bits(ty, rng.randrange(0, 1 << bw))))
    while len(ps) < 20500:
        ps.append((rng.uniform(0, 3), rng.uniform(-100, 100)))
    return [(rnd(ty, a), rnd(ty, b)) for a, b in ps]


def pow_exact(ty, x, y):
    """(result, offset) of x^y: NumPy's (C99) result where either operand is
    special or the result is not a finite nonzero real, else mpmath's."""
    import numpy as np

    t = np.float64 if ty == "f64" else np.float32
    special = (x != x or y != y or x in (0.0, float("inf"), -float("inf")) or x == 1 or y == 0
               or y in (float("inf"), -float("inf")) or (x < 0 and y != int(y)))
    if special:
        with np.errstate(all="ignore"):
            # Arrays: NumPy's scalar `power` takes sqrt for y = 0.5 (-0 for -0).
            return float(np.power(np.array([x], t), np.array([y], t))[0]), 0.0
    neg = x < 0 and int(y) % 2 == 1
    lx = mp.log(abs(mp.mpf(x)))
    e = mp.mpf(y) * lx
    if e > 2000:
        return (-1 if neg else 1) * float("inf"), 0.0
    if e < -2000:
        return -0.0 if neg else 0.0, 0.0
    with mp.workprec(300):
        v = mp.exp(mp.mpf(y) * mp.log(abs(mp.mpf(x))))
    if neg:
        v = -v
    r, q = round_to(ty, v)
    if r in (float("inf"), -float("inf")) or r == 0:
        return r, 0.0
    return r, float((v - mp.mpf(r)) / q)


def main_pow():
    for ty in ("f64", "f32"):
        rng = random.Random(f"pow-{ty}")
        hexw = TYPES[ty][5]
        lines = []
        for x, y in pow_points(ty, rng):
            r, off = pow_exact(ty, x, y)
            lines.append(f"{to_bits(ty, x):0{hexw}x} {to_bits(ty, y):0{hexw}x} "
                         f"{to_bits(ty, r):0{hexw}x} {off:+.3f}")
        path = os.path.join(HERE, f"math_pow_{ty}.txt")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        print(path, len(lines))


if __name__ == "__main__":
    import sys

    # `pow` alone rewrites only math_pow_* (x, y, result and offset a line).
    if sys.argv[1:] == ["pow"]:
        main_pow()
        sys.exit(0)

    # `trig` alone rewrites only the sin/cos files (each function has its own seed).
    if sys.argv[1:] != ["trig"]:
        main()
    main_trig()
    main_pow()
