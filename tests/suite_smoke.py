#!/usr/bin/env python3
"""Smoke run of the real-time suite: every test of nspa-rt-test's table with its small
parameters (--smoke), natively in the baseline and RT modes, through the real runner and
report. The rtload tests (inversion-*) are left out: they fill every core with
SCHED_FIFO threads; tests/rt_inversion.c and tests/locks_inversion_*.c cover that
scenario in make test. Passes when the runner exits 0, every selected test PASSes in
baseline, PASSes (or is SKIPped for lack of real-time permission) in RT (a test flagged
"privileged", large-pages, may SKIP in both when the machine does not let it reserve
huge pages or lock memory), and the report
and its pictures exist."""
import json, os, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
exe = sys.argv[1]
out = tempfile.mkdtemp(prefix="suite-smoke-")
r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "suite", "run_suite.py"), "--exe", exe,
                    "--smoke", "--modes", "baseline,rt", "--out", out, "--timeout", "60"])
with open(os.path.join(out, "results.json")) as f:
    res = json.load(f)
bad = 0
listed = subprocess.run([exe, "list"], capture_output=True, text=True).stdout.splitlines()
want = [l.split("\t")[0] for l in listed if "rtload" not in l.split("\t")[3]]
got = sorted(set(x["test"] for x in res["runs"]))
if sorted(want) != got:
    print(f"FAIL: ran {got}, expected {sorted(want)}")
    bad += 1
for run in res["runs"]:
    # a "privileged" test (large-pages) may SKIP where the machine does not allow it
    privileged = any(l.split("\t")[0] == run["test"] and "privileged" in l.split("\t")[3] for l in listed)
    ok = run["verdict"] == "PASS" or (run["verdict"] == "SKIP" and (run["column"] == "rt" or privileged))
    if not ok:
        print(f"FAIL: {run['test']} {run['column']}: {run['verdict']} {run['reason']}\n{run['output']}")
        bad += 1
    elif not run["figures"] and run["verdict"] == "PASS":
        print(f"FAIL: {run['test']} {run['column']}: no figures")
        bad += 1
md = os.path.join(out, "report.md")
if not os.path.exists(md) or not any(f.endswith(".svg") for f in os.listdir(out)):
    print("FAIL: no report or no pictures")
    bad += 1
if r.returncode != 0:
    print(f"FAIL: runner exit status {r.returncode}")
    bad += 1
print("suite_smoke:", "ok" if not bad else f"{bad} failures (report kept: {md})")
if not bad:
    shutil.rmtree(out, ignore_errors=True)
sys.exit(1 if bad else 0)
