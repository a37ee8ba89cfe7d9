#!/usr/bin/env python3
"""Writes tests/data/slice_extremes.txt: NumPy's answers for the slices that
tests/slice_extremes.rs checks ndsimd against.

    python3 tests/data/gen_slice_extremes.py   # needs numpy; rewrites the .txt

Three kinds of lines (fields split by ' | '):

  grid | LEN | STEP | T T T ...
      np.arange(LEN)[start:stop:STEP] for every (start, stop) of BOUNDS x BOUNDS,
      start-major; T is 'COUNT:FIRST', or '0' when empty.
  index | LEN | I | FIRST-or-err
      np.arange(LEN)[I]; 'err' where NumPy raises IndexError.
  case | KEY | SHAPE-or-err | VALUES
      eval('a' + KEY) on a = np.arange(12).reshape(3, 4); SHAPE like '3 1', VALUES
      the result's elements in C order; 'err' where NumPy raises (IndexError, a
      zero step's ValueError, OverflowError for an index past int64). The Rust test
      pairs KEY with its s![] form.

Python ints are unbounded: a bound past Py_ssize_t's range is clipped to it
(PySlice_Unpack), so 2**64 - 1 here is ndsimd's saturated usize::MAX.
"""

import os

import numpy as np

MAX = 2**63 - 1
MIN = -(2**63)
LENS = [0, 1, 3, 4]
BOUNDS = [None, 0, 1, -1, 2, -2, 3, -3, 5, -5, MIN, MIN + 1, MAX, MAX - 1]
STEPS = [1, -1, 2, -2, 3, -3, 4, -4, MAX, MAX - 1, MIN, MIN + 1]
INDICES = [0, 1, -1, 2, -2, 3, -3, 4, -4, MIN, MIN + 1, MAX, MAX - 1]

U64 = 2**64 - 1
I32MIN, U32MAX = -(2**31), 2**32 - 1
# KEY for `'a' + KEY`; tests/slice_extremes.rs has the same keys with their s![] forms.
CASES = [
    f"[:, ::{MAX}]",
    f"[::{MAX}]",
    f"[::{MIN}]",
    f"[::{MIN + 1}]",
    f"[::{MAX - 1}]",
    f"[{U64}]",
    f"[:{U64}]",
    f"[:{MAX + 1}]",
    f"[:{U64 + 1}]",
    f"[{U64}:]",
    f"[{MAX}]",
    f"[{MIN}]",
    "[2]",
    "[3]",
    "[-3]",
    "[-4]",
    f"[{MIN}:{MAX}]",
    f"[{MIN}:]",
    f"[:{MIN}]",
    f"[{U32MAX}:]",
    f"[:{U32MAX}]",
    f"[{I32MIN}:]",
    f"[:{I32MIN + 1}]",
    f"[0:{MAX}]",
    f"[:{MAX}:-1]",
    f"[-1:{MAX}:-1]",
    "[1:2:-1]",
    "[1:2]",
    "[-1:]",
    f"[{MAX}:{MAX}]",
    f"[{MIN}:{MIN + 1}]",
    f"[{MIN}:{MIN + 1}:-1]",
    "[:-1]",
    "[-2:]",
    f"[::-1, ::{MIN}]",
    f"[{MIN}:{MAX}:{MAX}]",
    f"[{MAX}:{MIN}:{MIN}]",
    f"[1::{MAX - 1}]",
    f"[:, {U64}::-1]",
    f"[:, :{U64}:-1]",
    f"[:, {MIN}::-1]",
    f"[:, :{MIN}:-1]",
    f"[None, ::{MAX}, -1]",
    f"[-1, {MAX}::{MIN}]",
    "[:, 1:3:0]",
]


def grid_token(a, start, stop, step):
    r = a[start:stop:step]
    return f"{len(r)}:{r[0]}" if len(r) else "0"


def main():
    out = []
    for n in LENS:
        a = np.arange(n)
        for step in STEPS:
            toks = [grid_token(a, s, e, step) for s in BOUNDS for e in BOUNDS]
            out.append(f"grid | {n} | {step} | {' '.join(toks)}")
    for n in LENS:
        a = np.arange(n)
        for i in INDICES:
            try:
                v = str(a[i])
            except IndexError:
                v = "err"
            out.append(f"index | {n} | {i} | {v}")
    a = np.arange(12).reshape(3, 4)
    for key in CASES:
        try:
            r = eval("a" + key)
            shape = " ".join(map(str, r.shape))
            vals = " ".join(map(str, r.ravel()))
            out.append(f"case | {key} | {shape} | {vals}")
        except (IndexError, ValueError, OverflowError):
            out.append(f"case | {key} | err | ")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "slice_extremes.txt")
    with open(path, "w") as f:
        f.write(f"# numpy {np.__version__}; written by gen_slice_extremes.py, which explains the lines\n")
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
