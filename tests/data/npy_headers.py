#!/usr/bin/env python3
"""Check tests/data/npy_headers.tsv against NumPy: every row's verdict must be
what np.load gives for a version 1.0 file with that header.

Run by hand (needs NumPy; the verdicts in the table are NumPy 2.4's):

    python3 tests/data/npy_headers.py

The table has one case per line, tab-separated, '#' starting a comment line:

    DESCR  SHAPE  VERDICT

DESCR and SHAPE are the Python text of the header's 'descr' and 'shape' values
(the header is "{'descr': DESCR, 'fortran_order': False, 'shape': SHAPE, }");
VERDICT is the dtype and shape np.load reads ("<f8 [2, 3]"), "error" for a
header it refuses, or "other" for a dtype it reads that is none of ndsimd's
(float64, float32, int64, int32, uint8, bool). For a read row the file holds arange(n) of that dtype;
for the others, as many bytes as the header's shape asks (none when it cannot
say), so that only the header can be refused. tests/npy_hostile.rs checks that
ndsimd gives the same verdicts, "other" being its "unsupported dtype" error.
"""
import io
import struct
import sys
import warnings
from pathlib import Path

import numpy as np

TABLE = Path(__file__).with_name("npy_headers.tsv")


def rows():
    for n, line in enumerate(TABLE.read_text().splitlines(), 1):
        if line and not line.startswith("#"):
            descr, shape, verdict = line.split("\t")
            yield n, descr, shape, verdict


def file_bytes(header: str, data: bytes) -> bytes:
    h = header.encode("latin1")
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data


def main() -> int:
    warnings.simplefilter("ignore")  # the Python 2 'L' suffix warns
    bad = 0
    for n, descr, shape, verdict in rows():
        header = "{'descr': %s, 'fortran_order': False, 'shape': %s, }" % (descr, shape)
        if verdict in ("error", "other"):
            try:
                # After the magic string and the version, where the header length starts.
                hshape, _, dtype = np.lib.format.read_array_header_1_0(
                    io.BytesIO(file_bytes(header, b"")[8:])
                )
                # Data of the right length, so that only the header can be refused.
                sizes = [d for d in hshape if isinstance(d, int) and d >= 0]
                size = int(np.prod(sizes)) if len(sizes) == len(hshape) else 0
                np.load(io.BytesIO(file_bytes(header, bytes(size * dtype.itemsize))))
                ours = dtype.str in ("<f8", ">f8", "<f4", ">f4", "<i8", ">i8", "<i4", ">i4", "|u1", "|b1")
                got = "accepted" if ours else "other"
            except Exception:
                got = "error"
        else:
            dtype, dims = verdict.split(" ", 1)
            dims = tuple(int(d) for d in dims.strip("[]").split(",") if d.strip())
            want = np.arange(int(np.prod(dims)), dtype=np.dtype(dtype)).reshape(dims)
            try:
                a = np.load(io.BytesIO(file_bytes(header, want.tobytes())))
                ok = a.dtype.str == dtype and a.shape == dims and (a == want).all()
                got = verdict if ok else f"{a.dtype.str} {list(a.shape)}"
            except Exception as e:
                got = f"error ({e})"
        if got != verdict:
            bad += 1
            print(f"line {n}: {descr} {shape}: table says {verdict}, NumPy {np.__version__} says {got}")
    print(f"{bad} rows differ from NumPy {np.__version__}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
