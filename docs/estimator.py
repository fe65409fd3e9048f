#!/usr/bin/env python3
"""Which estimator: the evidence behind `decide::paired::QUANTILE`.

Reads compare reports (schema 2, 3 or 4) and, for candidate estimators of a
speed ratio in one measuring process, prints

- between-process sd: the root mean square, over pairs of engines and crypt
  cases, of the standard deviation of the per-process figures (what the
  interval is made of: smaller is better);
- split-half sd: inside each process, the figure from the even rounds
  against the figure from the odd rounds (the estimator's own noise);
- the A/A control's per-process overall figure (identical code: near 0).

Usage: python3 docs/estimator.py [--first N] REPORT.json...
(`--first N` keeps each process's first N rounds, as a shorter run would.)
The figures in docs/estimator.md came from this script.
"""
import itertools
import json
import math
import random
import statistics as st
import sys


def load(path):
    d = json.load(open(path))
    entries = list(d["variants"]) + list(d["peers"])
    if d.get("control"):
        entries.append({"name": "control", "status": "ok", "speed": d["control"]["speed"]})
    out = []
    for v in entries:
        if v["status"] not in ("ok", "measured"):
            continue
        cases = []
        for s in v["speed"]:
            if s["dir"] not in ("encrypt", "decrypt", "digest"):
                continue
            sm = s["samples"]
            if isinstance(sm, dict):  # schema 3 and 4: columns
                q = set(sm["quiet"])
                pr = [p for p, n in sm["process_runs"] for _ in range(n)]
                rows = [(t, i in q, pr[i]) for i, t in enumerate(sm["ticks_per_op"])]
            else:  # schema 2: one object per round
                rows = [(x["ticks_per_op"], x["quiet"], x["process"]) for x in sm]
            cases.append(rows)
        out.append((v["name"], cases))
    return d, out


def quantile(v, p):
    v = sorted(v)
    pos = p * (len(v) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def estimate(name, a, b):
    """The log speed ratio of a over b from one process's rounds of each."""
    n = min(len(a), len(b))
    a, b = a[:n], b[:n]
    logs = [math.log(b[i][0] / a[i][0]) for i in range(n)]
    ta, tb = [x[0] for x in a], [x[0] for x in b]
    if name == "mean":
        return sum(logs) / n
    if name == "quiet mean":
        q = [logs[i] for i in range(n) if a[i][1] and b[i][1]]
        return sum(q) / len(q) if q else sum(logs) / n
    if name == "paired median":
        return st.median(logs)
    if name == "median":
        return math.log(st.median(tb)) - math.log(st.median(ta))
    if name == "q25":
        return math.log(quantile(tb, 0.25)) - math.log(quantile(ta, 0.25))
    if name == "q10":
        return math.log(quantile(tb, 0.10)) - math.log(quantile(ta, 0.10))
    if name == "minimum":
        return math.log(min(tb)) - math.log(min(ta))
    raise ValueError(name)


ESTIMATORS = ["quiet mean", "mean", "paired median", "median", "q25", "q10", "minimum"]


def by_process(rows, first):
    ps = sorted(set(r[2] for r in rows))
    return [[r for r in rows if r[2] == p][:first] for p in ps]


def analyse(path, first, max_pairs=400):
    d, ents = load(path)
    names = [e[0] for e in ents]
    pairs = list(itertools.combinations(range(len(ents)), 2))
    random.seed(1)
    if len(pairs) > max_pairs:
        pairs = random.sample(pairs, max_pairs)
    ref = d["run"].get("reference_variant", "auto")
    print(f"{path}: {len(ents)} engines, {len(pairs)} pairs, {len(ents[0][1])} crypt cases")
    for e in ESTIMATORS:
        between, halves = [], []
        for i, j in pairs:
            for c in range(len(ents[i][1])):
                pa, pb = by_process(ents[i][1][c], first), by_process(ents[j][1][c], first)
                xs = [estimate(e, a, b) for a, b in zip(pa, pb)]
                between.append(st.pstdev(xs) ** 2)
                for a, b in zip(pa, pb):
                    h1, h2 = estimate(e, a[0::2], b[0::2]), estimate(e, a[1::2], b[1::2])
                    halves.append((h1 - h2) ** 2 / 2)
        aa = []
        if "control" in names and ref in names:
            i, j = names.index("control"), names.index(ref)
            cases = range(len(ents[i][1]))
            m = [[estimate(e, a, b) for a, b in zip(by_process(ents[i][1][c], first),
                                                   by_process(ents[j][1][c], first))]
                 for c in cases]
            aa = [sum(m[c][p] for c in cases) / len(cases) for p in range(len(m[0]))]
        print("  %-13s between-process sd %.2f%%  split-half sd %.2f%%  A/A per process %s" % (
            e, 100 * math.sqrt(sum(between) / len(between)),
            100 * math.sqrt(sum(halves) / len(halves)),
            " ".join("%+.2f" % (100 * x) for x in aa)))


def main(argv):
    first = 10 ** 9
    if argv[:1] == ["--first"]:
        first, argv = int(argv[1]), argv[2:]
    for path in argv:
        analyse(path, first)


if __name__ == "__main__":
    main(sys.argv[1:])
