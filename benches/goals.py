#!/usr/bin/env python3
"""Every speed goal of issues 4, 5 and 6, measured and judged in one run.

    python3 benches/goals.py                    # about 10 minutes on two cores
    python3 benches/goals.py --skip scan,peers  # the quicker parts only
    python3 benches/goals.py --scan-gib 4 --cold   # the issue's file size, and the
                                                   # cold rows (root: drops the cache)
    python3 benches/goals.py --judge DIR        # judge the outputs saved in DIR again
    python3 benches/goals.py --self-test        # the parsers on sample lines (CI)

Runs the benches that carry the goals, each as documented in its own file, and
saves each one's whole output under DIR (default target/goals/<date>-<time>/),
with the machine and the versions in DIR/machine.txt:

    bench-1, bench-2  ./target/release/ndsimd bench --json (twice: the pool's rows move
                      between two levels on a noisy host)
    pool              cargo bench -p ndsimd-kernels --bench pool -- 'dispatch|handoff'
    peers-1T, peers-NT  benches/peers' ndsimd-peers with NDSIMD_NUM_THREADS,
                      MATMUL_NUM_THREADS and RAYON_NUM_THREADS set alike
    pool-numpy        python3 benches/pool_numpy.py --threads N --rounds 5
    scan              NDSIMD_SCAN_GIB=G [NDSIMD_SCAN_COLD=1] cargo bench --bench scan

Then prints one row per goal: the figures it was judged on (each a ratio against
its anchor in the same run, as docs/perf.md#goals-at-a-glance states them) and "yes", "no", or
"in k of n runs". A step that fails or was skipped leaves its goals "not measured".
Nothing here times anything itself; it reads what the benches print.
"""

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys

from interleave import bench_rows

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEPS = ["bench", "pool", "peers", "pool-numpy", "scan"]

# --- parsers: each takes a step's text and returns {key: value} ---------------

def parse_bench(text):
    """{(table, op, n): ratio} from `ndsimd bench --json`'s output (or an older
    bench's tables); table is '1T' for the
    one-thread element table, 'pool' for the pool's, 'mm1', 'mmN' for products,
    'mem1', 'memN' for the in-memory scans."""
    def short(head):
        if head.startswith("ndsimd ") and " bench: " in head:
            return "1T"
        if re.match(r"^\d+ threads \(the pool\)", head):
            return "pool"
        for prefix, name in (("matrix products, ", "mm"), ("in-memory scans, ", "mem")):
            if head.startswith(prefix):
                return name + ("1" if head.startswith(prefix + "1 thread") else "N")
        return None
    return {(short(table), op, n): ratio for table, op, n, _, ratio in bench_rows(text)
            if short(table)}


CRITERION = re.compile(
    r"(?P<name>[\w/.]+)\s+time:\s+\[[\d.]+ \S+ (?P<mid>[\d.]+) (?P<unit>\S+) [\d.]+ \S+\]")
UNIT_NS = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}


def parse_criterion(text):
    """{bench name: median estimate in ns}."""
    return {m.group("name"): float(m.group("mid")) * UNIT_NS[m.group("unit")]
            for m in CRITERION.finditer(text)}


PEER = re.compile(
    r"^(?P<ty>f64|f32)\s+(?P<case>.+?)\s+(?P<t>\d+)T\s+ndsimd\s.*"
    r"vs (?:best peer|openblas) (?P<ratio>[\d.]+) \((?P<lo>[\d.]+)-(?P<hi>[\d.]+)\)")


def parse_peers(text):
    """{(type, case): ratio against the best peer (OpenBLAS for matvec and vdot)}."""
    return {(m.group("ty"), m.group("case")): float(m.group("ratio"))
            for m in map(PEER.match, text.splitlines()) if m}


NUMPY_ROW = re.compile(
    r"^(?P<case>\S.*?)\s+(?P<n>\d+)\s+[\d.]+ \(\s*[\d.]+%\)\s+[\d.]+ \(\s*[\d.]+%\)\s+"
    r"(?P<ratio>[\d.]+)$")


def parse_pool_numpy(text):
    """{(case, n): NumPy time / ours} from pool_numpy.py's table."""
    return {(m.group("case"), int(m.group("n"))): float(m.group("ratio"))
            for m in map(NUMPY_ROW.match, text.splitlines()) if m}


SCAN_ROW = re.compile(r"^(?P<row>\S.*?)\s+(?P<gbs>[\d.]+) \([\d.]+-[\d.]+\)$")


def parse_scan(text):
    """{row name: GB/s median} from the scan bench's table."""
    return {m.group("row"): float(m.group("gbs"))
            for m in map(SCAN_ROW.match, text.splitlines()) if m}


# --- goals --------------------------------------------------------------------


def goals(saved, threads):
    """Yields (issue, goal, [figures], threshold); a figure of None is missing."""
    benches = [parse_bench(saved[k]) for k in ("bench-1", "bench-2") if k in saved]
    crit = parse_criterion(saved.get("pool", ""))
    peers1 = parse_peers(saved.get("peers-1T", ""))
    peersn = parse_peers(saved.get("peers-%dT" % threads, ""))
    numpy = parse_pool_numpy(saved.get("pool-numpy", ""))
    scan = parse_scan(saved.get("scan", ""))

    def runs(table, op, n):
        return [b.get((table, op, n)) for b in benches] or [None]

    empty = crit.get("dispatch/%dthreads/pool_run_empty" % threads)
    scope = crit.get("dispatch/%dthreads/rayon_scope_empty" % threads)
    yield 4, "empty job ≤ 2 µs (as 2000 ns / ours)", [empty and 2000.0 / empty], 1.0
    yield 4, "empty job ≥ 3× less than rayon::scope", [empty and scope and scope / empty], 3.0
    for n in (16384, 262144):
        yield 4, "sum %d on the pool vs 1 thread" % n, runs("pool", "par sum vs 1T", n), 1.6
        yield 4, "add_into %d on the pool vs 1 thread" % n, runs(
            "pool", "par add_into vs 1T", n), 1.6
    for op in ("par sum", "par add_into"):
        yield 4, "%s 4Mi vs the two-core ceiling" % op[4:], runs("pool", op, 4194304), 0.9
    for case in ("sum_axis0", "sum_axis1", "max_axis1", "row broadcast into"):
        yield 4, "%s 1024² vs NumPy" % case, [numpy.get(("par " + case, 1 << 20))], 2.0

    for t, peers in ((1, peers1), (threads, peersn)):
        for n in (64, 128, 256, 512, 1024, 2048):
            yield 5, "f64 %d³, %dT, vs best peer" % (n, t), [peers.get(("f64", str(n)))], 1.0
        yield 5, "f32 1024³, %dT, vs best peer" % t, [peers.get(("f32", "1024"))], 1.0
        if t > 1:
            for n in (128, 256, 512):
                yield 5, "f64 %d³, %dT, vs best peer (the 1.05 goal)" % (n, t), [
                    peers.get(("f64", str(n)))], 1.05
        yield 5, "1024×256×1024, %dT, vs best peer" % t, [peers.get(("f64", "1024x256x1024"))], 1.0
        yield 5, "a·bᵀ 512², %dT, vs best peer" % t, [peers.get(("f64", "512 a.bT"))], 1.0
        yield 5, "matvec 1024², %dT, vs OpenBLAS" % t, [peers.get(("f64", "matvec 1024²"))], 1.0
        yield 5, "dot 2^20, %dT, vs OpenBLAS" % t, [peers.get(("f64", "vdot 2^20"))], 1.0
    for op, n in (("matmul f64", 256), ("matmul f64", 512), ("matmul f64", 1024),
                  ("matmul f32", 256), ("matmul f32", 1024)):
        yield 5, "%s %d, 1T, vs our peak" % (op, n), runs("mm1", op, n), 0.95

    def over(a, b):
        return scan[a] / scan[b] if a in scan and b in scan else None

    ceil_h, ceil_t = "hay  pread ceiling %dT" % threads, "text pread ceiling %dT" % threads
    yield 6, "ndsimd scan vs the pread ceiling", [over("hay  ndsimd scan (the tool)", ceil_h)], 0.95
    yield 6, "ndsimd scan vs dd bs=1M", [over("hay  ndsimd scan (the tool)", "hay  dd bs=1M")], 1.6
    yield 6, "ndsimd lines vs the pread ceiling", [over("text ndsimd lines (the tool)", ceil_t)], 0.9
    yield 6, "ndsimd lines vs wc -l", [over("text ndsimd lines (the tool)", "text wc -l")], 3.0
    yield 6, "LineIndex (Auto) vs the pread ceiling", [
        over("text LineIndex/1000 Auto %dT" % threads, ceil_t)], 0.85
    yield 6, "cold find_nonzero (Auto) vs dd bs=4M", [
        over("cold hay find_nonzero Auto %dT" % threads, "cold hay dd bs=4M")], 0.95
    for op in ("count_byte_in", "find_nonzero_in"):
        for n in (1 << 20, 1 << 26):
            yield 6, "%s %d, %dT, vs the read" % (op, n, threads), runs("memN", op, n), 0.9


def verdict(figures, threshold):
    got = [f for f in figures if f is not None]
    if not got:
        return "not measured"
    met = sum(f >= threshold for f in got)
    if met == len(got):
        return "yes"
    if met == 0:
        return "**no**"
    return "in %d of %d runs" % (met, len(got))


def report(saved, threads):
    lines = ["| issue | goal | measured | at least | met |", "|---|---|---|---|---|"]
    for issue, goal, figures, threshold in goals(saved, threads):
        shown = ", ".join("—" if f is None else "%.2f" % f for f in figures)
        lines.append("| %d | %s | %s | %.2f | %s |" % (
            issue, goal, shown, threshold, verdict(figures, threshold)))
    return "\n".join(lines)


# --- running ------------------------------------------------------------------


def run(out, name, cmd, env=None, cwd=ROOT):
    """Runs cmd, saving its stdout and stderr to out/name.txt; returns the text."""
    print("== %s: %s" % (name, " ".join(cmd)), file=sys.stderr, flush=True)
    e = dict(os.environ, **(env or {}))
    p = subprocess.run(cmd, cwd=cwd, env=e, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    with open(os.path.join(out, name + ".txt"), "w") as f:
        f.write(p.stdout)
    if p.returncode != 0:
        print("   %s failed (exit %d); see %s.txt" % (name, p.returncode, name), file=sys.stderr)
    return p.stdout


def machine(out):
    def said(cmd):
        try:
            return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, cwd=ROOT).stdout.strip()
        except OSError as e:
            return "(%s: %s)" % (cmd[0], e)
    cpu = ""
    if os.path.exists("/proc/cpuinfo"):
        for line in open("/proc/cpuinfo"):
            if line.startswith(("model name", "cpu family", "model\t")):
                cpu += line
            if line.strip() == "":
                break
    text = "\n".join([
        "date: " + datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit: " + said(["git", "rev-parse", "--short", "HEAD"]),
        said(["uname", "-srm"]), cpu.strip(), "cpus: %d" % os.cpu_count(),
        said(["rustc", "--version"]),
        said([sys.executable, "-c", "import numpy; print('numpy', numpy.__version__)"]),
        said(["target/release/ndsimd", "info"]),
    ])
    with open(os.path.join(out, "machine.txt"), "w") as f:
        f.write(text + "\n")
    return text


def measure(out, args):
    t = str(args.threads)
    threads_env = {"NDSIMD_NUM_THREADS": t}
    skip = set(args.skip)
    run(out, "build", ["cargo", "build", "--release"])
    print(machine(out), file=sys.stderr)
    if "bench" not in skip:
        for i in (1, 2):
            run(out, "bench-%d" % i, ["target/release/ndsimd", "bench", "--json"],
                threads_env)
    if "pool" not in skip:
        run(out, "pool", ["cargo", "bench", "-p", "ndsimd-kernels", "--bench", "pool", "--",
                          "dispatch|handoff", "--warm-up-time", "0.5",
                          "--measurement-time", "2"], threads_env)
    if "peers" not in skip:
        peers = os.path.join(ROOT, "benches", "peers")
        run(out, "peers-build", ["cargo", "build", "--release"], cwd=peers)
        for n in sorted({"1", t}):
            run(out, "peers-%sT" % n, ["target/release/ndsimd-peers"],
                {"NDSIMD_NUM_THREADS": n, "MATMUL_NUM_THREADS": n, "RAYON_NUM_THREADS": n,
                 "PEERS_ROUNDS": str(args.peer_rounds)}, cwd=peers)
    if "pool-numpy" not in skip:
        run(out, "pool-numpy", [sys.executable, "benches/pool_numpy.py", "--threads", t,
                                "--rounds", "5"])
    if "scan" not in skip:
        env = dict(threads_env, NDSIMD_SCAN_GIB=str(args.scan_gib))
        if args.cold:
            env["NDSIMD_SCAN_COLD"] = "1"
        run(out, "scan", ["cargo", "bench", "--bench", "scan"], env)


def load(out):
    saved = {}
    for name in os.listdir(out):
        if name.endswith(".txt"):
            with open(os.path.join(out, name)) as f:
                saved[name[:-4]] = f.read()
    return saved


# --- self-test: each parser on lines in the form its bench prints -------------

SAMPLES = {
    "bench-1": """\
ndsimd 0.1.0 bench: tier avx512 (detected avx512), 1 thread. anchor: 'ceiling' = ...
op                          n        ns/op  spread     GB/s  anchor        anchor ns  ratio
sum                     16384        714.3    1.2%   183.51  ceiling           701.4   0.98

2 threads (the pool). anchor: 'ceiling×2' = the ceiling loop split over the pool the same way
op                          n        ns/op  spread     GB/s  anchor        anchor ns  ratio
par sum vs 1T           16384        770.1    3.0%   170.19  1 thread          772.5   1.00
par add_into vs 1T      16384       2101.8    3.5%   187.08  1 thread         3165.8   1.51
par add_into          4194304    2418669.0    8.0%    41.62  ceiling×2     2330695.0   0.96
add_into streamed (default from 245760 KiB)  1048576     471489.4   20.3%    53.38  plain stores     426776.5   0.91

matrix products, 1 thread(s). anchor: 'peak' = ...
op                          n        ns/op  spread     GB/s  anchor        anchor ns  ratio
matmul f64                256     350837.5    2.5%    95.64  peak           306452.2   0.87
matrix products, 2 thread(s). anchor: 'peak' = ...
op                          n        ns/op  spread     GB/s  anchor        anchor ns  ratio
matmul f64                256     176622.5   25.1%   189.98  peak           154384.9   0.33
in-memory scans, 2 thread(s). anchor: 'ceiling' = the read loop over as many bytes, split
op                          n        ns/op  spread     GB/s  anchor        anchor ns  ratio
count_byte_in         1048576       4564.1    3.1%   229.75  ceiling          3748.1   0.82
""",
    "bench-json": """\
bench [1/4] sum 16384
{"family":"reductions","op":"sum","n":16384,"threads":1,"ns_per_op":714.3,"spread_pct":1.2,"rate":183.51,"rate_unit":"GB/s","anchor":"ceiling","anchor_ns":701.4,"ratio":0.98,"limit":"L2 read bw","fraction_of_limit":0.98,"verdict":"at the L2 bandwidth limit"}
{"family":"pool scaling","op":"par add_into vs 1T","n":16384,"threads":2,"ns_per_op":2101.8,"spread_pct":3.5,"rate":187.08,"rate_unit":"GB/s","anchor":"1 thread","anchor_ns":3165.8,"ratio":1.51,"limit":null,"fraction_of_limit":null,"verdict":"1.51x the speed of one thread"}
{"family":"matrix products","op":"matmul f64","n":256,"threads":1,"ns_per_op":350837.5,"spread_pct":2.5,"rate":95.64,"rate_unit":"GFLOP/s","anchor":"peak","anchor_ns":306452.2,"ratio":0.87,"limit":"FMA peak","fraction_of_limit":0.87,"verdict":"near the FMA peak"}
{"family":"matrix products","op":"matmul f64","n":256,"threads":2,"ns_per_op":176622.5,"spread_pct":25.1,"rate":189.98,"rate_unit":"GFLOP/s","anchor":"peak","anchor_ns":154384.9,"ratio":0.33,"limit":"FMA peak","fraction_of_limit":0.33,"verdict":"33% of the FMA peak"}
{"family":"scan","op":"count_byte_in","n":1048576,"threads":2,"ns_per_op":4564.1,"spread_pct":3.1,"rate":229.75,"rate_unit":"GB/s","anchor":"ceiling×2","anchor_ns":3748.1,"ratio":0.82,"limit":"L3 read bw","fraction_of_limit":0.82,"verdict":"near the L3 bandwidth limit"}
""",
    "pool": """\
dispatch/2threads/pool_run_empty
                        time:   [188.12 ns 192.40 ns 197.00 ns]
dispatch/2threads/rayon_scope_empty
                        time:   [11.512 µs 11.600 µs 11.700 µs]
""",
    "peers-1T": """\
f64                64  1T  ndsimd   90.0  openblas   92.5  faer   78.9  ndarray   44.4  vs best peer 1.01 (0.92-1.09)
f64          512 a.bT  1T  ndsimd   83.8  openblas   70.6  faer   77.5  ndarray   44.3  vs best peer 1.07 (1.06-1.10)
f64      matvec 1024²  1T  ndsimd    7.2  openblas    7.2  vs openblas 1.00 (1.00-1.00)
""",
    "pool-numpy": """\
case                            n             ndsimd              NumPy NumPy/us
par sum                     16384        0.8 ( 3.0%)        3.3 ( 1.0%)     4.36
par sum_axis0             1048576      143.2 ( 3.1%)      305.3 (12.0%)     2.13
par row broadcast into    1048576      271.7 ( 2.0%)      846.7 ( 1.5%)     3.12
""",
    "scan": """\
file scan, 2 GiB files, warm page cache unless 'cold', 5 rounds; GB/s medians (min-max)
hay  pread ceiling 2T                  17.29 (16.20-18.00)
hay  ndsimd scan (the tool)            27.90 (25.07-28.36)
hay  dd bs=1M                           8.96 (8.50-9.10)
""",
}


def rows_of(saved):
    return {g: (f, th) for _, g, f, th in goals(saved, 2)}


def self_test():
    rows = list(bench_rows(SAMPLES["bench-1"]))
    assert ("2 threads (the pool). anchor: 'ceiling×2' = the ceiling loop split over the pool "
            "the same way", "add_into streamed (default from 245760 KiB)", 1048576, 471489.4,
            0.91) in rows, rows
    assert len(rows) == 8, rows
    b = parse_bench(SAMPLES["bench-1"])
    assert b[("1T", "sum", 16384)] == 0.98, b
    assert b[("pool", "par add_into vs 1T", 16384)] == 1.51, b
    assert b[("pool", "par add_into", 4194304)] == 0.96, b
    assert b[("mm1", "matmul f64", 256)] == 0.87 and b[("mmN", "matmul f64", 256)] == 0.33, b
    assert b[("memN", "count_byte_in", 1048576)] == 0.82, b
    j = parse_bench(SAMPLES["bench-json"])
    assert j == {("1T", "sum", 16384): 0.98, ("pool", "par add_into vs 1T", 16384): 1.51,
                 ("mm1", "matmul f64", 256): 0.87, ("mmN", "matmul f64", 256): 0.33,
                 ("memN", "count_byte_in", 1048576): 0.82}, j
    assert [r[3] for r in bench_rows(SAMPLES["bench-json"])][:2] == [714.3, 2101.8]
    c = parse_criterion(SAMPLES["pool"])
    assert abs(c["dispatch/2threads/pool_run_empty"] - 192.4) < 1e-9, c
    assert abs(c["dispatch/2threads/rayon_scope_empty"] - 11600.0) < 1e-6, c
    p = parse_peers(SAMPLES["peers-1T"])
    assert p == {("f64", "64"): 1.01, ("f64", "512 a.bT"): 1.07,
                 ("f64", "matvec 1024²"): 1.00}, p
    assert parse_pool_numpy(SAMPLES["pool-numpy"]) == {
        ("par sum", 16384): 4.36, ("par sum_axis0", 1 << 20): 2.13,
        ("par row broadcast into", 1 << 20): 3.12}
    assert rows_of(SAMPLES)["sum_axis0 1024² vs NumPy"] == ([2.13], 2.0)
    s = parse_scan(SAMPLES["scan"])
    assert s["hay  ndsimd scan (the tool)"] == 27.90 and s["hay  dd bs=1M"] == 8.96, s
    rows = rows_of(SAMPLES)
    assert rows["add_into 16384 on the pool vs 1 thread"] == ([1.51], 1.6)
    assert verdict(rows["add_into 16384 on the pool vs 1 thread"][0], 1.6) == "**no**"
    assert verdict(rows["empty job ≥ 3× less than rayon::scope"][0], 3.0) == "yes"
    scan_dd = rows["ndsimd scan vs dd bs=1M"][0][0]
    assert abs(scan_dd - 27.90 / 8.96) < 1e-12 and verdict([scan_dd], 1.6) == "yes"
    assert verdict([None], 1.0) == "not measured"
    assert verdict([1.2, 0.8], 1.0) == "in 1 of 2 runs"
    print("goals.py self-test: ok")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="where to save the outputs (default target/goals/<date>)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--skip", type=lambda s: [x for x in s.split(",") if x], default=[],
                    help="comma-separated steps to skip: " + ", ".join(STEPS))
    ap.add_argument("--scan-gib", type=int, default=2)
    ap.add_argument("--cold", action="store_true", help="the scan's cold rows (root)")
    ap.add_argument("--peer-rounds", type=int, default=7)
    ap.add_argument("--judge", metavar="DIR", help="judge the outputs saved in DIR")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    bad = [s for s in args.skip if s not in STEPS]
    if bad:
        ap.error("unknown step(s) %s; the steps are %s" % (", ".join(bad), ", ".join(STEPS)))
    if args.judge:
        out = args.judge
    else:
        if shutil.which("cargo") is None:
            ap.error("cargo is not on PATH")
        stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
        out = args.out or os.path.join(ROOT, "target", "goals", stamp)
        os.makedirs(out, exist_ok=True)
        measure(out, args)
    table = report(load(out), args.threads)
    with open(os.path.join(out, "goals.md"), "w") as f:
        f.write(table + "\n")
    print(table)
    print("\n(outputs in %s)" % out, file=sys.stderr)


if __name__ == "__main__":
    main()
