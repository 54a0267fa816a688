#!/usr/bin/env python3
"""Aggregate nspa-bench samples into JSON and a Markdown table of medians and ratios.

Bench programs print one line per measured run:

    RESULT bench=<name> impl=<implementation> unit=<unit> value=<number> [better=lower|higher]

A run script interleaves the implementations (A B A B ...) at least 5 times, collects the
lines into one file and calls:

    benchfmt.py --module sync --json out.json --md out.md samples.txt \
        --ratio pingpong:nspa:futex [--ratio ...]

--ratio BENCH:IMPL:PEER adds ratio = median(IMPL) / median(PEER) for BENCH. For
'better=lower' units (times) a ratio below 1 means IMPL is faster; for 'higher' units
(throughputs) above 1 means IMPL is faster. Both are written with the direction spelled
out, and with the min-max of per-run ratios where the runs pair up.
"""
import argparse, json, os, platform, re, statistics, subprocess, sys


def machine():
    m = {"kernel": platform.release(), "kernel_version": platform.version(),
         "arch": platform.machine(), "cores": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            txt = f.read()
        mm = re.search(r"model name\s*:\s*(.*)", txt)
        m["cpu"] = mm.group(1).strip() if mm else "unknown"
        m["virtual"] = " hypervisor" in txt
    except OSError:
        m["cpu"], m["virtual"] = "unknown", None
    pre = "unknown"
    try:
        with open("/sys/kernel/debug/sched/preempt") as f:
            pre = f.read().strip()
    except OSError:
        v = platform.version()
        pre = "PREEMPT_RT" if "PREEMPT_RT" in v else ("PREEMPT_DYNAMIC" if "PREEMPT_DYNAMIC" in v else
               ("PREEMPT" if "PREEMPT" in v else "none/voluntary"))
    m["preemption"] = pre
    return m


def parse(paths):
    samples = {}
    meta = {}
    for p in paths:
        with open(p) as f:
            for line in f:
                if not line.startswith("RESULT "):
                    continue
                kv = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
                key = (kv["bench"], kv["impl"])
                samples.setdefault(key, []).append(float(kv["value"]))
                meta[kv["bench"]] = (kv.get("unit", ""), kv.get("better", "lower"))
    return samples, meta


def fmt(v):
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e6:
        return f"{v/1e6:.2f}M"
    if a >= 1e4:
        return f"{v/1e3:.1f}K"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--module", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--ratio", action="append", default=[])
    ap.add_argument("--note", action="append", default=[])
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    samples, meta = parse(a.files)
    recs = []
    med = {}
    for (bench, impl), vals in sorted(samples.items()):
        unit, better = meta[bench]
        md = statistics.median(vals)
        med[(bench, impl)] = md
        recs.append({"name": bench, "impl": impl, "unit": unit, "better": better,
                     "value": md, "min": min(vals), "max": max(vals), "runs": vals,
                     "peer": None, "ratio": None})
    ratios = []
    for r in a.ratio:
        bench, impl, peer = r.split(":")
        if (bench, impl) not in med or (bench, peer) not in med:
            ratios.append({"name": bench, "impl": impl, "peer": peer, "ratio": None,
                           "missing": True})
            continue
        x, y = samples[(bench, impl)], samples[(bench, peer)]
        per = [p / q for p, q in zip(x, y) if q]
        unit, better = meta[bench]
        ratio = med[(bench, impl)] / med[(bench, peer)] if med[(bench, peer)] else None
        ratios.append({"name": bench, "impl": impl, "peer": peer, "unit": unit,
                       "better": better, "ratio": ratio,
                       "ratio_min": min(per) if per else None,
                       "ratio_max": max(per) if per else None})
        for rec in recs:
            if rec["name"] == bench and rec["impl"] == impl:
                rec["peer"], rec["ratio"] = peer, ratio
    out = {"module": a.module, "machine": machine(), "records": recs, "ratios": ratios,
           "notes": a.note}
    with open(a.json, "w") as f:
        json.dump(out, f, indent=1)
    m = out["machine"]
    lines = [f"# nspa-bench {a.module}", "",
             f"Machine: {m['cpu']}, {m['cores']} cores, Linux {m['kernel']}, preemption "
             f"{m['preemption']}{', virtual machine' if m.get('virtual') else ''}.", ""]
    if m.get("virtual") or "RT" not in m["preemption"]:
        lines += ["> Figures from a virtual / non-PREEMPT_RT machine: compare ratios, not absolute values.", ""]
    lines += ["| bench | impl | median | min | max | unit | runs |", "|---|---|---|---|---|---|---|"]
    for r in recs:
        lines.append(f"| {r['name']} | {r['impl']} | {fmt(r['value'])} | {fmt(r['min'])} | "
                     f"{fmt(r['max'])} | {r['unit']} ({r['better']} is better) | {len(r['runs'])} |")
    if ratios:
        lines += ["", "| bench | ratio | median | per-run min-max | meaning |", "|---|---|---|---|---|"]
        for r in ratios:
            if r.get("missing"):
                lines.append(f"| {r['name']} | {r['impl']} / {r['peer']} | n/a | | not measured in this run |")
                continue
            rv = r["ratio"]
            unit = r.get("unit", "")
            if r["better"] == "lower" and ("B" in unit or "byte" in unit):
                mean = f"{r['impl']} uses {rv:.3g}x the memory of {r['peer']}"
            elif r["better"] == "lower":
                mean = f"{r['impl']} takes {rv:.3g}x the time of {r['peer']}"
            else:
                mean = f"{r['impl']} does {rv:.3g}x the work of {r['peer']}"
            lines.append(f"| {r['name']} | {r['impl']} / {r['peer']} | {rv:.3g} | "
                         f"{r['ratio_min']:.3g}-{r['ratio_max']:.3g} | {mean} |")
    for n in a.note:
        lines += ["", n]
    with open(a.md, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
