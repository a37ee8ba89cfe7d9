"""Shared by the scripts that time NumPy against `ndsimd bench` in the same run.

Each round times every NumPy case in this process, then runs our bench once and
reads our times from its table; the caller keeps the rounds and reports medians.
"""

import json
import os
import re
import statistics
import subprocess
import time


def median_time(call, min_sample=0.02, samples=5):
    """Seconds per `call()`: the median of `samples` samples of at least
    `min_sample` seconds each (as our bench's `--quick`: a median of 5)."""
    call()
    reps = 1
    while True:
        t = time.perf_counter()
        for _ in range(reps):
            call()
        e = time.perf_counter() - t
        if e > min_sample:
            break
        reps *= 4
    out = [e / reps]
    for _ in range(samples - 1):
        t = time.perf_counter()
        for _ in range(reps):
            call()
        out.append((time.perf_counter() - t) / reps)
    return statistics.median(out)


FMA_ROW = "fma all threads"

# A round whose "fma all threads" ratio is at least this had two cores' worth of
# multiply-adds (two-thread runs read 1.7-2.0 then, 1.0-1.1 when the host runs both
# vCPUs on one core).
TWO_CORES = 1.5


# A row of the text tables of an older `ndsimd bench` (outputs saved before --json):
# the op (it may hold spaces), n, ns per op, the spread, GB/s or GFLOP/s, the anchor
# (it may hold spaces), the anchor's ns and the ratio, anchor time over ours.
BENCH_ROW = re.compile(r"^(?P<op>\S.*?)\s+(?P<n>\d+)\s+(?P<ns>[\d.]+)\s+[\d.]+%\s+[\d.]+\s+"
                       r".*?\s(?P<ratio>[\d.]+)$")


def table_name(row):
    """The heading of the table an older `ndsimd bench` printed `row` (a --json
    object) under: the names the callers' patterns match."""
    t = row["threads"]
    if row["family"] == "matrix products":
        return "matrix products, %d thread(s)" % t
    if row["family"] == "scan":
        return "in-memory scans, %d thread(s)" % t
    if t == 1:
        return "ndsimd bench: 1 thread"
    return "%d threads (the pool)" % t


def bench_rows(text):
    """Yields (table, op, n, ns, ratio) for every row in the output of `ndsimd
    bench --json` (one object a line; other lines, such as a progress log, are
    skipped), `table` naming the table as `table_name` does. Text saved from an older
    bench without --json is read from its tables, `table` being the line above the
    column headings."""
    found = False
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                row = json.loads(line)
            except ValueError:
                continue
            found = True
            yield (table_name(row), row["op"], row["n"], row["ns_per_op"], row["ratio"])
    if found:
        return
    table, prev = None, ""
    for line in text.splitlines():
        if line.startswith("op ") and "ns/op" in line:
            table = prev
        elif table is not None:
            m = BENCH_ROW.match(line)
            if m:
                yield (table, m.group("op"), int(m.group("n")), float(m.group("ns")),
                       float(m.group("ratio")))
        prev = line


def our_times(binary, threads, bench_filter, header, keys):
    """Runs `ndsimd bench --quick --json --filter bench_filter` with NDSIMD_NUM_THREADS =
    `threads` and returns {(row name, n): seconds} for `keys`, read from the tables
    whose header matches the regex `header` (its group 1 must be the thread count).
    With more than one thread the same run also times the bench's "fma all threads"
    row, and the result holds its ratio (how many cores' worth of multiply-adds the
    threads got in this run) under the key FMA_ROW."""
    env = dict(os.environ, NDSIMD_NUM_THREADS=str(threads))
    if threads > 1:
        bench_filter += "|" + FMA_ROW
    out = subprocess.run([binary, "bench", "--quick", "--json", "--filter", bench_filter], env=env,
                         check=True, capture_output=True, text=True).stdout
    times, wanted = {}, set(keys)
    for table, op, n, ns, ratio in bench_rows(out):
        if threads > 1 and op == FMA_ROW:
            times[FMA_ROW] = ratio
            continue
        head = re.match(header, table)
        if head and int(head.group(1)) == threads and (op, n) in wanted:
            times[(op, n)] = ns * 1e-9
    if threads > 1:
        keys = keys + [FMA_ROW]
    missing = [k for k in keys if k not in times]
    if missing:
        raise SystemExit("no row %r in our bench output" % (missing[0],))
    return times


def spread(values, med):
    """Half the range over the median, in percent."""
    return (max(values) - min(values)) / 2 / med * 100


def two_core_report(fma, rows):
    """Prints each round's "fma all threads" ratio, then, when some rounds had two
    cores' worth (>= TWO_CORES) and some did not, each row's ratio over those rounds
    only: `rows` is a list of (label, our times per round, the anchor's per round)
    and the ratio is the anchor's median over ours, as in the main table. All rounds
    stay in the main table; this only says which machine each round ran on."""
    print("cores' worth of FMA per round (%s): %s" % (
        FMA_ROW, " ".join("%.2f" % f for f in fma)))
    keep = [i for i, f in enumerate(fma) if f >= TWO_CORES]
    if not keep or len(keep) == len(fma):
        return
    print("rounds with two cores' worth (%d of %d), medians, anchor/ours:" % (len(keep), len(fma)))
    for label, ours, theirs in rows:
        mo = statistics.median([ours[i] for i in keep])
        mq = statistics.median([theirs[i] for i in keep])
        print("  %-32s %8.2f" % (label, mq / mo))
