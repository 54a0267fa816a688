#!/usr/bin/env python3
"""report.py - the Markdown report (with SVG pictures) of nspa-rt-test results.

    report.py render results.json [--out DIR]
        one run: an overall verdict table, a section per test with Baseline / RT / Delta
        (and stock Wine, with NSPA's factor against it, when the run has that column),
        key improvements, NSPA vs stock Wine; CDFs of the latency samples and
        side-by-side bars as SVG files next to report.md.
    report.py compare A.json B.json [--out DIR] [--names A,B]
        two result files (two versions of NSPA, or NSPA against stock Wine) side by side:
        the columns of both and the A -> B delta, as the seed's v4 -> v5 report does.

Python 3 standard library only; the SVG is written here (no plotting package).
"""
import argparse, html, json, math, os, re, sys

COLNAME = {"baseline": "Baseline", "rt": "RT", "epoll": "epoll engine", "wine": "stock Wine"}
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]
PASSED = ("PASS", "PASS*")
# headline figures per test (fall back to the first two that are not "info")
HEADLINE = {
    "rapidmutex": ["throughput", "rt_max_wait", "elapsed"],
    "philosophers": ["rt_max_wait", "elapsed"],
    "cs-contention": ["avg_wait", "min_wait"],
    "ntsync-d4": ["s1.avg_wait", "s2.throughput", "s4.chain_wait"],
    "ntsync-d8": ["s1.avg_wait", "s2.throughput", "s4.chain_wait"],
    "ntsync-d12": ["s1.avg_wait", "s2.throughput", "s4.chain_wait"],
    "condvar-pi": ["wake_p50", "wake_p99"],
    "srw-bench": ["exclusive_ops", "shared_ops", "excl_p99"],
    "zigzag": ["rate", "rtt_p50"],
    "contended-wait": ["wall", "rate"],
}


# ---- numbers ----------------------------------------------------------------------------
def fmt(v, unit=""):
    """A figure for a table: 3 significant digits, K/M for big counts and rates."""
    if v is None:
        return "-"
    a = abs(v)
    if unit in ("ops/s", "trips/s", "acq/s", "count") and a >= 1e6:
        s = f"{v / 1e6:.3g}M"
    elif unit in ("ops/s", "trips/s", "acq/s") and a >= 1e4:
        s = f"{v / 1e3:.3g}K"
    elif a >= 1000 or v == int(v):
        s = f"{v:,.0f}"
    elif a >= 100:
        s = f"{v:.0f}"
    elif a >= 10:
        s = f"{v:.1f}"
    else:
        s = f"{v:.3g}"
    return f"{s} {unit}".strip() if unit not in ("count", "bool") else s


def delta(a, b, better):
    """b relative to a: (absolute, percent or None, word). word: better/worse/flat/''."""
    if a is None or b is None:
        return None, None, ""
    d = b - a
    pct = d / a * 100 if a else None
    if better == "info" or pct is None:
        return d, pct, ""
    if abs(pct) < 1:
        return d, pct, "flat"
    good = d < 0 if better == "lower" else d > 0
    return d, pct, "better" if good else "worse"


def delta_text(a, b, unit, better):
    d, pct, word = delta(a, b, better)
    if d is None:
        return "-"
    if pct is None:
        return f"{'+' if d >= 0 else ''}{fmt(d, unit)}"
    if word == "flat":
        return "flat"
    s = f"{'+' if d >= 0 else ''}{fmt(d, unit)} ({pct:+.1f}%)"
    return s + (f" {word}" if word else "")


def factor(nspa, other, better):
    """How many times better NSPA is than the other runtime (>1 = NSPA better)."""
    if nspa is None or other is None or better == "info" or nspa <= 0 or other <= 0:
        return None
    return other / nspa if better == "lower" else nspa / other


def factor_text(f):
    if f is None:
        return "-"
    if 0.99 <= f <= 1.01:
        return "same"
    return f"NSPA {f:.3g}x better" if f > 1 else f"NSPA {1 / f:.3g}x worse"


# ---- SVG ----------------------------------------------------------------------------------
def _nice_ticks(lo, hi, n=5):
    if hi <= lo:
        hi = lo + 1
    step = 10 ** math.floor(math.log10((hi - lo) / n))
    for m in (1, 2, 5, 10):
        if (hi - lo) / (step * m) <= n:
            step *= m
            break
    t = math.floor(lo / step) * step
    out = []
    while t <= hi + step * 1e-9:
        if t >= lo - step * 1e-9:
            out.append(t)
        t += step
    return out


def svg_cdf(series, unit, title):
    """CDF of each (name, values) series; log x axis when the values span > 100x."""
    W, H, L, R, T, B = 640, 360, 70, 20, 40, 50
    allv = [v for _, vals in series for v in vals]
    pos = [v for v in allv if v > 0]
    lo, hi = (min(pos) if pos else 0), (max(allv) if allv else 1)
    logx = bool(pos) and hi / lo > 100
    if logx:
        lo, hi = 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))
        fx = lambda v: L + (math.log10(max(v, lo)) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * (W - L - R)
        ticks = [10 ** e for e in range(int(math.log10(lo)), int(math.log10(hi)) + 1)]
    else:
        lo = 0
        hi = hi if hi > 0 else 1
        fx = lambda v: L + (v - lo) / (hi - lo) * (W - L - R)
        ticks = _nice_ticks(lo, hi)
    fy = lambda p: T + (1 - p) * (H - T - B)
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{html.escape(title)}</text>']
    for p in (0, 0.25, 0.5, 0.75, 0.9, 1):
        y = fy(p)
        o.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" stroke="#ddd"/>')
        o.append(f'<text x="{L - 5}" y="{y + 4:.1f}" text-anchor="end">{p:g}</text>')
    for t in ticks:
        x = fx(t)
        o.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{H - B}" stroke="#eee"/>')
        o.append(f'<text x="{x:.1f}" y="{H - B + 16}" text-anchor="middle">{fmt(t)}</text>')
    o.append(f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="black"/>')
    o.append(f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>')
    o.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">{html.escape(unit)}'
             f'{" (log scale)" if logx else ""}</text>')
    o.append(f'<text x="15" y="{(T + H - B) / 2}" transform="rotate(-90 15 {(T + H - B) / 2})" '
             f'text-anchor="middle">fraction of samples</text>')
    for i, (name, vals) in enumerate(series):
        vs = sorted(vals)
        if not vs:
            continue
        n = len(vs)
        pts = [(fx(vs[0]), fy(0))]
        for k, v in enumerate(vs):
            pts.append((fx(v), fy(k / n)))
            pts.append((fx(v), fy((k + 1) / n)))
        c = COLORS[i % len(COLORS)]
        o.append(f'<polyline fill="none" stroke="{c}" stroke-width="1.5" points="' +
                 " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>')
        o.append(f'<rect x="{W - R - 190}" y="{T + 8 + i * 18}" width="12" height="12" fill="{c}"/>')
        o.append(f'<text x="{W - R - 172}" y="{T + 18 + i * 18}">{html.escape(name)} (n={n})</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"


def svg_bars(groups, names, title):
    """Side-by-side horizontal bars: groups = [(label, unit, better, [value per name])]."""
    W, L, R, BH, GAP = 720, 250, 150, 14, 14
    H = 40 + sum(len(names) * BH + GAP for _ in groups) + 20 + 18 * len(names)
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{html.escape(title)}</text>']
    y = 40
    for label, unit, better, vals in groups:
        top = max([v for v in vals if v is not None] or [1]) or 1
        arrow = {"lower": " (lower is better)", "higher": " (higher is better)"}.get(better, "")
        o.append(f'<text x="{L - 8}" y="{y + len(names) * BH / 2 + 4:.1f}" text-anchor="end">'
                 f'{html.escape(label[:34])}</text>')
        o.append(f'<text x="{L - 8}" y="{y + len(names) * BH / 2 + 16:.1f}" text-anchor="end" fill="#666" '
                 f'font-size="10">{html.escape(unit + arrow)}</text>')
        for i, v in enumerate(vals):
            if v is not None:
                w = max(1.0, (W - L - R) * (v / top if top > 0 else 0))
                o.append(f'<rect x="{L}" y="{y}" width="{w:.1f}" height="{BH - 2}" fill="{COLORS[i % len(COLORS)]}"/>')
                o.append(f'<text x="{L + w + 4:.1f}" y="{y + BH - 4}">{html.escape(fmt(v, unit))}</text>')
            else:
                o.append(f'<text x="{L + 4}" y="{y + BH - 4}" fill="#999">n/a</text>')
            y += BH
        y += GAP
    for i, n in enumerate(names):
        o.append(f'<rect x="{L}" y="{y + i * 18}" width="12" height="12" fill="{COLORS[i % len(COLORS)]}"/>')
        o.append(f'<text x="{L + 18}" y="{y + 10 + i * 18}">{html.escape(n)}</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"


def _safe(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s)


# ---- one result set -----------------------------------------------------------------------
def index(res):
    """{test: {column: run}}"""
    idx = {}
    for r in res["runs"]:
        idx.setdefault(r["test"], {})[r["column"]] = r
    return idx


def columns(res):
    return [c["name"] for c in res["columns"]]


def verdict_cell(run):
    if run is None:
        return "-"
    if run.get("not_applicable"):
        return "n/a"
    v = run["verdict"]
    subs = run.get("subtests") or []
    if subs and v not in ("SKIP", "TIMEOUT"):
        return f"{v} {sum(s['ok'] for s in subs)}/{len(subs)}"
    return v


def figure_keys(idx_t, cols):
    keys, seen = [], set()
    for c in cols:
        r = idx_t.get(c)
        for k in (r or {}).get("figures", {}):
            if k not in seen:
                seen.add(k)
                keys.append(k)
    return keys


def fig_of(run, key):
    if not run or run["verdict"] == "SKIP":
        return None
    f = run.get("figures", {}).get(key)
    return f["value"] if f else None


def meta_of(idx_t, key):
    for r in idx_t.values():
        f = r.get("figures", {}).get(key)
        if f:
            return f
    return {"unit": "", "better": "info", "label": key}


def headline_keys(test, idx_t, cols):
    keys = figure_keys(idx_t, cols)
    want = [k for k in HEADLINE.get(test, []) if k in keys]
    if test.startswith("inversion"):
        want = [k for k in ("ratio", "wait") if k in keys]
    if not want:
        want = [k for k in keys if meta_of(idx_t, k)["better"] != "info"][:2]
    return want


def machine_lines(res):
    m = res["machine"]
    lines = [f"Machine: {m.get('cpu')} | {m.get('cores')} cores | kernel {m.get('kernel')} | "
             f"preemption {m.get('preemption')} | virtualization: {m.get('virtualization')}"
             + (f" | sched_rt_runtime_us {m['sched_rt_runtime_us']}" if "sched_rt_runtime_us" in m else "")
             + (f" | load average {' '.join(m['loadavg'])} at start" if m.get("loadavg") else ""),
             f"Run: {res.get('date')} | commit {res.get('commit')} | {res.get('label')}"]
    return lines


def warnings(res):
    m, w = res["machine"], []
    if m.get("virtual"):
        w.append(f"these figures come from a virtual machine ({m.get('virtualization')}): a virtual CPU can be "
                 "stolen by the host at any time, so latencies and worst cases are noisy; treat them as indicative.")
    if not m.get("preempt_rt"):
        w.append(f"the kernel is not PREEMPT_RT (preemption model: {m.get('preemption')}): real-time latencies "
                 "are not those of an RT kernel.")
    if res.get("smoke"):
        w.append("smoke run: small parameters, not the seed's; figures are not comparable with a full run.")
    if res.get("pi_off"):
        w.append("deliberately broken build: priority inheritance switched off (NSPA_PI=0) in the native runs.")
    for c in res["columns"]:
        if c.get("skip"):
            w.append(f"column {COLNAME.get(c['name'], c['name'])} skipped: {c['skip']}")
    return w


def render(res, out):
    """Write out/report.md and its SVG pictures for one results dict. Returns the path."""
    os.makedirs(out, exist_ok=True)
    idx, cols = index(res), columns(res)
    tests = [t["name"] for t in res["tests"]]
    tinfo = {t["name"]: t for t in res["tests"]}
    md = [f"# NSPA real-time suite report — {res.get('label')}", ""]
    md += [l + "  " for l in machine_lines(res)]
    md.append("")
    md.append("Columns: " + "; ".join(f"**{COLNAME.get(c['name'], c['name'])}** = {c['desc']}"
                                      for c in res["columns"]))
    md.append("")
    for w in warnings(res):
        md.append(f"> **Warning:** {w}")
        md.append("")
    if res.get("left_out"):
        md.append(f"Left out of this run (rtload tests, smoke run): {', '.join(res['left_out'])}")
        md.append("")

    # overall verdict
    md += ["## Overall verdict", "",
           "| Test | " + " | ".join(COLNAME.get(c, c) for c in cols) + " | Notes |",
           "|---" * (len(cols) + 2) + "|"]
    for t in tests:
        it = idx.get(t, {})
        note = []
        for c in cols:
            r = it.get(c)
            if r and r["verdict"] not in PASSED and r.get("reason") and not r.get("not_applicable"):
                note.append(f"{COLNAME.get(c, c)}: {r['reason'][:90]}")
        if not note:
            for k in headline_keys(t, it, cols)[:1]:
                meta = meta_of(it, k)
                note.append(meta["label"] + ": " + " / ".join(fmt(fig_of(it.get(c), k), meta["unit"]) for c in cols))
        md.append(f"| {t} | " + " | ".join(verdict_cell(it.get(c)) for c in cols) + " | " +
                  "; ".join(note).replace("|", "/") + " |")
    runs = res["runs"]
    npass = sum(r["verdict"] in PASSED for r in runs)
    nskip = sum(r["verdict"] == "SKIP" and not r.get("not_applicable") for r in runs)
    nna = sum(bool(r.get("not_applicable")) for r in runs)
    md += ["", f"**{npass}/{len(runs) - nna} PASS** ({len(tests)} tests x {len(cols)} columns"
               + (f", {nna} not applicable" if nna else "")
               + (f", {nskip} skipped" if nskip else "") + ").", ""]

    # sections
    improvements, vs_wine = [], []
    for n, t in enumerate(tests, 1):
        it = idx.get(t, {})
        vs = sorted(set(r["verdict"] for r in it.values()))
        head = vs[0] if len(vs) == 1 else " / ".join(f"{COLNAME.get(c, c)} {verdict_cell(it.get(c))}" for c in cols)
        md += [f"## {n}. {t} [{head}]", "", f"{tinfo[t]['what']} — arguments `{tinfo[t]['args']}`.", ""]
        for c in cols:
            r = it.get(c)
            for s in (r or {}).get("subtests", []):
                if not s["ok"]:
                    md.append(f"- {COLNAME.get(c, c)}: sub-test {s['n']} {s['name']}: {s['detail']}")
        keys = figure_keys(it, cols)
        native = [c for c in cols if c in ("baseline", "rt")]
        has_wine = "wine" in cols
        if keys:
            hdr = ["Metric"] + [COLNAME.get(c, c) for c in native]
            if "baseline" in native and "rt" in native:
                hdr.append("Delta (RT vs Baseline)")
            if has_wine:
                hdr += ["stock Wine", "NSPA Baseline vs stock Wine"]
            md += ["| " + " | ".join(hdr) + " |", "|---" * len(hdr) + "|"]
            for k in keys:
                meta = meta_of(it, k)
                vals = {c: fig_of(it.get(c), k) for c in cols}
                row = [meta["label"]] + [fmt(vals[c], meta["unit"]) for c in native]
                if "baseline" in native and "rt" in native:
                    row.append(delta_text(vals["baseline"], vals["rt"], meta["unit"], meta["better"]))
                    d, pct, word = delta(vals["baseline"], vals["rt"], meta["better"])
                    if word in ("better", "worse"):
                        improvements.append((t, meta, vals["baseline"], vals["rt"], pct, word))
                if has_wine:
                    # like for like: stock Wine has no RT mode, so its peer is NSPA's baseline
                    f = factor(vals.get("baseline"), vals["wine"], meta["better"])
                    row += [fmt(vals["wine"], meta["unit"]), factor_text(f)]
                    if k in headline_keys(t, it, cols):
                        fr = factor(vals.get("rt"), vals["wine"], meta["better"])
                        vs_wine.append((t, meta, vals.get("baseline"), vals.get("rt"), vals["wine"], f, fr))
                md.append("| " + " | ".join(row) + " |")
            md.append("")
        notes = []
        for c in cols:
            for x in (it.get(c) or {}).get("notes", []):
                s = f"{COLNAME.get(c, c)}: {x}"
                if s not in notes:
                    notes.append(s)
        for x in notes:
            md.append(f"- {x}")
        if notes:
            md.append("")
        # pictures: CDF per samples key, bars of the figures
        skeys = []
        for c in cols:
            for k in (it.get(c) or {}).get("samples", {}):
                if k not in skeys:
                    skeys.append(k)
        for k in skeys:
            series, unit = [], ""
            for c in cols:
                s = (it.get(c) or {}).get("samples", {}).get(k)
                if s and it[c]["verdict"] != "SKIP":
                    series.append((COLNAME.get(c, c), s["values"]))
                    unit = s["unit"]
            fn = _safe(f"{t}_{k}_cdf.svg")
            with open(os.path.join(out, fn), "w") as f:
                f.write(svg_cdf(series, unit, f"{t}: {k} distribution (CDF)"))
            md.append(f"![{t} {k} distribution]({fn})")
        groups = [(meta_of(it, k)["label"], meta_of(it, k)["unit"], meta_of(it, k)["better"],
                   [fig_of(it.get(c), k) for c in cols]) for k in keys if meta_of(it, k)["better"] != "info"]
        if groups:
            fn = _safe(f"{t}_bars.svg")
            with open(os.path.join(out, fn), "w") as f:
                f.write(svg_bars(groups, [COLNAME.get(c, c) for c in cols], f"{t}: side by side"))
            md.append(f"![{t} side by side]({fn})")
        md.append("")

    # key improvements (RT vs baseline)
    for title, which in (("Key improvements (RT vs Baseline)", "better"), ("Regressions (RT vs Baseline)", "worse")):
        rows = sorted((x for x in improvements if x[5] == which), key=lambda x: -abs(x[4] or 0))[:12]
        if not rows:
            continue
        md += [f"## {title}", "", "| Test | Metric | Baseline | RT | Delta |", "|---|---|---|---|---|"]
        for t, meta, a, b, pct, word in rows:
            md.append(f"| {t} | {meta['label']} | {fmt(a, meta['unit'])} | {fmt(b, meta['unit'])} | "
                      f"{pct:+.1f}% {word} |")
        md.append("")
    if vs_wine:
        md += ["## NSPA vs stock Wine", "",
               "| Test | Metric | NSPA Baseline | NSPA RT | stock Wine | NSPA Baseline vs Wine | NSPA RT vs Wine |",
               "|---|---|---|---|---|---|---|"]
        for t, meta, b, r, w, f, fr in vs_wine:
            md.append(f"| {t} | {meta['label']} | {fmt(b, meta['unit'])} | {fmt(r, meta['unit'])} | "
                      f"{fmt(w, meta['unit'])} | {factor_text(f)} | {factor_text(fr)} |")
        md.append("")
    md.append(f"Raw results: results.json | generated by tools/suite/report.py")
    path = os.path.join(out, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(md) + "\n")
    return path


# ---- two result sets ----------------------------------------------------------------------
def primary(res, idx_t):
    """The column a result set is judged by for one test: rt, else baseline, else wine."""
    for c in ("rt", "baseline", "wine"):
        r = idx_t.get(c)
        if r and r["verdict"] != "SKIP":
            return c
    return None


def compare(a, b, out, names=("A", "B")):
    os.makedirs(out, exist_ok=True)
    ia, ib = index(a), index(b)
    ca, cb = columns(a), columns(b)
    na, nb = names
    tests = [t["name"] for t in a["tests"]] + [t["name"] for t in b["tests"] if t["name"] not in ia]
    tinfo = {t["name"]: t for t in a["tests"] + b["tests"]}
    cols = [(na, c, ia) for c in ca] + [(nb, c, ib) for c in cb]
    colname = lambda n, c: f"{n} {COLNAME.get(c, c)}"
    md = [f"# NSPA real-time suite comparison — {na} → {nb}", "",
          f"**{na}** = {a.get('label')} ({a.get('date')}); **{nb}** = {b.get('label')} ({b.get('date')})", ""]
    md += [f"{na}: " + machine_lines(a)[0] + "  ", f"{nb}: " + machine_lines(b)[0], ""]
    for n, r in ((na, a), (nb, b)):
        for w in warnings(r):
            md.append(f"> **Warning ({n}):** {w}")
            md.append("")
    md += ["## Overall verdict", "",
           "| Test | " + " | ".join(colname(n, c) for n, c, _ in cols) + f" | {na}→{nb} | Notes |",
           "|---" * (len(cols) + 3) + "|"]
    improvements = []
    sections = []
    for n, t in enumerate(tests, 1):
        ta, tb = ia.get(t, {}), ib.get(t, {})
        pa, pb = primary(a, ta), primary(b, tb)
        keys = []
        for k in figure_keys(ta, ca) + figure_keys(tb, cb):
            if k not in keys:
                keys.append(k)
        head = ""
        hk = headline_keys(t, ta or tb, ca if ta else cb)
        meta_t = lambda k: meta_of(ta, k) if k in figure_keys(ta, ca) else meta_of(tb, k)
        if hk and pa and pb:
            meta = meta_t(hk[0])
            head = f"{meta['label']}: " + delta_text(fig_of(ta.get(pa), hk[0]), fig_of(tb.get(pb), hk[0]),
                                                     meta["unit"], meta["better"])
        md.append(f"| {t} | " + " | ".join(verdict_cell(ix.get(t, {}).get(c)) for _, c, ix in cols) +
                  f" | {head} | primary: {na} {COLNAME.get(pa, pa or '-')}, {nb} {COLNAME.get(pb, pb or '-')} |")
        sec = [f"## {n}. {t}", "", tinfo[t]["what"] + ".", ""]
        hdr = ["Metric"] + [colname(nn, c) for nn, c, _ in cols] + \
              [f"{na}→{nb} ({COLNAME.get(pa, pa)} → {COLNAME.get(pb, pb)})", f"factor {nb} vs {na}"]
        sec += ["| " + " | ".join(hdr) + " |", "|---" * len(hdr) + "|"]
        for k in keys:
            meta = meta_t(k)
            row = [meta["label"]] + [fmt(fig_of(ix.get(t, {}).get(c), k), meta["unit"]) for _, c, ix in cols]
            va = fig_of(ta.get(pa), k) if pa else None
            vb = fig_of(tb.get(pb), k) if pb else None
            row.append(delta_text(va, vb, meta["unit"], meta["better"]))
            f = factor(vb, va, meta["better"])
            row.append("-" if f is None else (f"{f:.3g}x better" if f > 1.01 else
                                              f"{1 / f:.3g}x worse" if f < 0.99 else "same"))
            d, pct, word = delta(va, vb, meta["better"])
            if word in ("better", "worse"):
                improvements.append((t, meta, va, vb, pct, word))
            sec.append("| " + " | ".join(row) + " |")
        sec.append("")
        # overlaid CDFs of the primary columns
        skeys = []
        for r in (ta.get(pa), tb.get(pb)):
            for k in (r or {}).get("samples", {}):
                if k not in skeys:
                    skeys.append(k)
        for k in skeys:
            series, unit = [], ""
            for nn, r, c in ((na, ta.get(pa), pa), (nb, tb.get(pb), pb)):
                s = (r or {}).get("samples", {}).get(k)
                if s:
                    series.append((f"{nn} {COLNAME.get(c, c)}", s["values"]))
                    unit = s["unit"]
            fn = _safe(f"cmp_{t}_{k}_cdf.svg")
            with open(os.path.join(out, fn), "w") as f:
                f.write(svg_cdf(series, unit, f"{t}: {k} ({na} vs {nb})"))
            sec.append(f"![{t} {k}]({fn})")
        groups = []
        for k in keys:
            meta = meta_t(k)
            if meta["better"] != "info":
                groups.append((meta["label"], meta["unit"], meta["better"],
                               [fig_of(ix.get(t, {}).get(c), k) for _, c, ix in cols]))
        if groups:
            fn = _safe(f"cmp_{t}_bars.svg")
            with open(os.path.join(out, fn), "w") as f:
                f.write(svg_bars(groups, [colname(nn, c) for nn, c, _ in cols], f"{t}: {na} vs {nb}"))
            sec.append(f"![{t} bars]({fn})")
        sec.append("")
        sections += sec
    md.append("")
    md += sections
    for title, which in ((f"{na} → {nb} key improvements", "better"), (f"{na} → {nb} regressions", "worse")):
        rows = sorted((z for z in improvements if z[5] == which), key=lambda z: -abs(z[4]))[:15]
        if not rows:
            continue
        md += [f"## {title}", "", f"| Test | Metric | {na} | {nb} | Delta |", "|---|---|---|---|---|"]
        for t, meta, x, y, pct, word in rows:
            md.append(f"| {t} | {meta['label']} | {fmt(x, meta['unit'])} | {fmt(y, meta['unit'])} | "
                      f"{pct:+.1f}% {word} |")
        md.append("")
    path = os.path.join(out, "compare.md")
    with open(path, "w") as f:
        f.write("\n".join(md) + "\n")
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render")
    r.add_argument("results")
    r.add_argument("--out")
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--out")
    c.add_argument("--names", default="A,B")
    a = ap.parse_args(argv)
    if a.cmd == "render":
        res = json.load(open(a.results))
        p = render(res, a.out or os.path.dirname(os.path.abspath(a.results)))
    else:
        ra, rb = json.load(open(a.a)), json.load(open(a.b))
        names = tuple(a.names.split(",", 1)) if "," in a.names else ("A", "B")
        p = compare(ra, rb, a.out or os.path.dirname(os.path.abspath(a.b)), names)
    print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
