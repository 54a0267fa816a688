#!/usr/bin/env python3
"""run_suite.py - run nspa-rt-test (the real-time suite) and write its results and report.

Every test of the program's table (`nspa-rt-test list`) runs in its own process under a
hard timeout (120 s; SIGTERM, then SIGKILL 5 s later), in each mode:

    baseline   no RT promotion (NSPA_RT_PRIO unset)
    rt         NSPA_RT_PRIO=80 NSPA_RT_POLICY=FF
    epoll      baseline with NSPA_IO_ENGINE=epoll, for the tests flagged "io" (others SKIP)
    wine       (--peer wine) the mingw-w64 build of the same source under stock Wine 8,
               in a throw-away WINEPREFIX with WINEDEBUG=-all: a third column

Verdicts (the seed harness's rules, stated in docs/suite.md): timeout -> TIMEOUT; a line
"  SKIP ..." -> SKIP; a line "  FAIL..." -> FAIL; a line "  PASS" -> PASS; otherwise exit
status 0 -> PASS*, else FAIL*. A mode that cannot run here is SKIP with its reason (no
real-time permission for rt; no wine or mingw for wine). The runner exits 0 only when no
run is FAIL, FAIL*, TIMEOUT (SKIP is reported, not counted as a failure).

Results: <out>/results.json (machine, modes, every test x mode, verdict, every figure with
its unit, latency samples, raw output) and the report <out>/report.md with SVG pictures
(tools/suite/report.py).
"""
import argparse, datetime, json, os, platform, re, shlex, shutil, signal, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import report  # noqa: E402

RT_ENV = {"NSPA_RT_PRIO": "80", "NSPA_RT_POLICY": "FF"}
WINE_LOADER = "/usr/lib/wine/wine64"
MINGW = "x86_64-w64-mingw32-gcc"

FIG_RE = re.compile(r"^\s*FIG (\S+?)=(\S+) (\S+) (lower|higher|info)(?:\s+# (.*))?$")
SAMPLES_RE = re.compile(r"^\s*SAMPLES (\S+) (\S+) (\d+)((?: \S+)*)$")
SUB_RE = re.compile(r"^\s*\[(\d+)\] (.*?): (ok|FAILED.*)$")


# ---- verdicts --------------------------------------------------------------------------
def verdict(output, exit_code, timed_out):
    """The seed harness's verdict of one run (plus SKIP)."""
    if timed_out:
        return "TIMEOUT"
    lines = output.splitlines()
    if any(l.startswith("  SKIP") for l in lines):
        return "SKIP"
    if any(l.startswith("  FAIL") for l in lines):
        return "FAIL"
    if any(l.rstrip() == "  PASS" for l in lines):
        return "PASS"
    return "PASS*" if exit_code == 0 else "FAIL*"


PASSED = ("PASS", "PASS*")
FAILED = ("FAIL", "FAIL*", "TIMEOUT")


def parse_output(output):
    """Figures, samples, notes, sub-test lines and the FAIL/SKIP reason of one run."""
    figs, samples, notes, subs, reason = {}, {}, [], [], ""
    for line in output.splitlines():
        m = FIG_RE.match(line)
        if m:
            try:
                v = float(m.group(2))
            except ValueError:
                continue
            figs[m.group(1)] = {"value": v, "unit": m.group(3), "better": m.group(4),
                                "label": (m.group(5) or m.group(1)).strip()}
            continue
        m = SAMPLES_RE.match(line)
        if m:
            vals = [float(x) for x in m.group(4).split()]
            samples[m.group(1)] = {"unit": m.group(2), "values": vals}
            continue
        m = SUB_RE.match(line)
        if m:
            subs.append({"n": int(m.group(1)), "name": m.group(2), "ok": m.group(3) == "ok",
                         "detail": m.group(3)})
            continue
        s = line.strip()
        if s.startswith("note:"):
            notes.append(s[5:].strip())
        elif line.startswith("  FAIL") or line.startswith("  SKIP"):
            reason = reason or s[4:].strip()
    return figs, samples, notes, subs, reason


def run_one(cmd, env, timeout, kill_after, cwd=None):
    """Run cmd in its own process group; TERM at timeout, KILL kill_after s later."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True, cwd=cwd)
    timed_out = False
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            out, _ = p.communicate(timeout=kill_after)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, _ = p.communicate()
    text = out.decode("utf-8", "replace") if out else ""
    return text, p.returncode, timed_out, time.monotonic() - t0


# ---- machine ----------------------------------------------------------------------------
def machine():
    m = {"hostname": platform.node(), "kernel": platform.release(),
         "kernel_version": platform.version(), "arch": platform.machine(),
         "cores": os.cpu_count()}
    try:
        txt = open("/proc/cpuinfo").read()
        mm = re.search(r"model name\s*:\s*(.*)", txt)
        m["cpu"] = mm.group(1).strip() if mm else "unknown"
        hyper = " hypervisor" in txt
    except OSError:
        m["cpu"], hyper = "unknown", False
    virt = ""
    if shutil.which("systemd-detect-virt"):
        r = subprocess.run(["systemd-detect-virt"], capture_output=True, text=True)
        virt = r.stdout.strip() if r.returncode == 0 else ""
    m["virtual"] = bool(hyper or (virt and virt != "none"))
    m["virtualization"] = ", ".join(x for x in [("hypervisor CPU flag" if hyper else ""), virt] if x) or "none"
    pre = None
    try:
        pre = open("/sys/kernel/debug/sched/preempt").read().strip()
    except OSError:
        pass
    v = platform.version()
    rt_flag = os.path.exists("/sys/kernel/realtime") and open("/sys/kernel/realtime").read().strip() == "1"
    if rt_flag or "PREEMPT_RT" in v:
        model = "PREEMPT_RT"
    elif "PREEMPT_DYNAMIC" in v:
        model = "PREEMPT_DYNAMIC" + (f" ({pre})" if pre else "")
    elif "PREEMPT" in v:
        model = "PREEMPT"
    else:
        model = "none/voluntary"
    m["preemption"] = model
    m["preempt_rt"] = model == "PREEMPT_RT"
    try:
        m["sched_rt_runtime_us"] = int(open("/proc/sys/kernel/sched_rt_runtime_us").read())
    except (OSError, ValueError):
        pass
    try:
        m["loadavg"] = open("/proc/loadavg").read().split()[:3]
    except OSError:
        pass
    return m


def rt_permitted():
    """Can a process of ours use SCHED_FIFO? (checked in a child, so we stay as we are)"""
    code = "import os; os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if r.returncode == 0:
        return True, ""
    return False, "no real-time permission here (SCHED_FIFO refused: needs CAP_SYS_NICE or RLIMIT_RTPRIO)"


def git_commit():
    try:
        r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        d = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True)
        return r.stdout.strip() + ("+dirty" if d.stdout.strip() else "")
    except OSError:
        return "unknown"


# ---- stock Wine peer --------------------------------------------------------------------
def wine_setup(out, install):
    """Install (tools/deps.sh) and build the mingw peer. Returns (cmd prefix, env, reason)."""
    if install:
        subprocess.run([os.path.join(ROOT, "tools", "deps.sh"), "test", "wine64", "gcc-mingw-w64-x86-64"],
                       check=False)
    if not os.path.exists(WINE_LOADER):
        return None, None, f"stock Wine not installed ({WINE_LOADER} missing; tools/deps.sh test wine64)"
    if not shutil.which(MINGW):
        return None, None, f"{MINGW} not installed (gcc-mingw-w64-x86-64)"
    exe = os.path.join(out, "nspa-rt-test.exe")
    srcs = sorted(os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".c"))
    r = subprocess.run([MINGW, "-O2", "-Wall", "-Wno-unused-parameter", "-o", exe] + srcs + ["-lws2_32"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, None, "the mingw-w64 build failed: " + r.stderr.strip()[:300]
    prefix = os.path.join(out, "wineprefix")   # throw-away, removed at the end
    env = dict(os.environ, WINEPREFIX=prefix, WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=")
    for k in list(env):
        if k.startswith("NSPA_"):
            del env[k]
    subprocess.run([WINE_LOADER, "wineboot", "-i"], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=300)
    ver = subprocess.run([WINE_LOADER, "--version"], env=env, capture_output=True, text=True).stdout.strip()
    # one persistent wineserver for the whole run (ended by wine_teardown), so that each
    # test does not pay for a server start-up
    ws = shutil.which("wineserver") or "/usr/lib/wine/wineserver64"
    if os.path.exists(ws):
        subprocess.run([ws, "-p"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env["_NSPA_SUITE_WINE_VERSION"] = ver or "wine"
    return [WINE_LOADER, exe], env, ""


def wine_teardown(env):
    if not env:
        return
    ws = shutil.which("wineserver") or "/usr/lib/wine/wineserver64"
    if os.path.exists(ws):
        subprocess.run([ws, "-k"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.rmtree(env["WINEPREFIX"], ignore_errors=True)


# ---- main -------------------------------------------------------------------------------
def list_tests(cmd, env):
    out = subprocess.run(cmd + ["list"], env=env, capture_output=True, text=True, timeout=60).stdout
    tests = []
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) >= 5:
            tests.append({"name": f[0], "args": f[1], "smoke": f[2], "flags": f[3].split(","), "what": f[4]})
    return tests


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "release", "nspa-rt-test"),
                    help="the native nspa-rt-test (a command line; default build/release/nspa-rt-test)")
    ap.add_argument("--out", default=None, help="output folder (default suite-results/<date>)")
    ap.add_argument("--modes", default="baseline,rt,epoll",
                    help="native modes: baseline,rt,epoll (epoll: the I/O tests on the epoll engine)")
    ap.add_argument("--peer", choices=["wine"], help="also run the mingw build under stock Wine")
    ap.add_argument("--no-install", action="store_true", help="do not install wine/mingw with tools/deps.sh")
    ap.add_argument("--only", default="", help="comma-separated test names")
    ap.add_argument("--skip", default="", help="comma-separated test names to leave out")
    ap.add_argument("--smoke", action="store_true", help="small parameters; leaves out the rtload tests")
    ap.add_argument("--rtload", action="store_true", help="with --smoke: keep the rtload tests")
    ap.add_argument("--pi-off", action="store_true",
                    help="the deliberately broken build: NSPA_PI=0 in the native runs (inversion tests must FAIL)")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--kill-after", type=float, default=5.0)
    ap.add_argument("--label", default="", help="a name for this result set (report title, compare columns)")
    ap.add_argument("--no-report", action="store_true")
    a = ap.parse_args(argv)

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    out = os.path.abspath(a.out or os.path.join(ROOT, "suite-results", stamp))
    os.makedirs(out, exist_ok=True)
    native = shlex.split(a.exe)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("NSPA_")}
    if a.pi_off:
        base_env["NSPA_PI"] = "0"
    tests = list_tests(native, base_env)
    if not tests:
        print(f"run_suite: '{a.exe} list' gave no tests", file=sys.stderr)
        return 2
    only = [x for x in a.only.split(",") if x]
    skip = [x for x in a.skip.split(",") if x]
    left_out = []
    sel = []
    for t in tests:
        if only and t["name"] not in only or t["name"] in skip:
            continue
        if a.smoke and "rtload" in t["flags"] and not a.rtload:
            left_out.append(t["name"])
            continue
        sel.append(t)

    columns = []   # (column, cmd, env, skip reason)
    modes = [m for m in a.modes.split(",") if m]
    if "baseline" in modes:
        columns.append(("baseline", native, dict(base_env), ""))
    if "rt" in modes:
        ok, why = rt_permitted()
        columns.append(("rt", native, dict(base_env, **RT_ENV), "" if ok else why))
    if "epoll" in modes:
        columns.append(("epoll", native, dict(base_env, NSPA_IO_ENGINE="epoll"), ""))
    wine_env = None
    if a.peer == "wine":
        cmd, wine_env, why = wine_setup(out, not a.no_install)
        columns.append(("wine", cmd, wine_env, why))

    res = {"schema": "nspa-rt-suite/1", "label": a.label or ("NSPA " + git_commit() + (" PI off" if a.pi_off else "")),
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "commit": git_commit(), "machine": machine(), "smoke": a.smoke, "pi_off": a.pi_off,
           "left_out": left_out, "timeout_s": a.timeout,
           "columns": [], "tests": [], "runs": []}
    for col, cmd, env, why in columns:
        desc = {"baseline": "NSPA native, no RT promotion" + (" (NSPA_PI=0)" if a.pi_off else ""),
                "rt": "NSPA native, NSPA_RT_PRIO=80 NSPA_RT_POLICY=FF" + (" (NSPA_PI=0)" if a.pi_off else ""),
                "epoll": "NSPA native, baseline, NSPA_IO_ENGINE=epoll (I/O tests only)",
                "wine": (env or {}).get("_NSPA_SUITE_WINE_VERSION", "stock Wine") +
                        " (Debian wine64), mingw-w64 build, WINEDEBUG=-all, throw-away WINEPREFIX"}[col]
        res["columns"].append({"name": col, "desc": desc, "skip": why})
    res["tests"] = [{"name": t["name"], "args": t["smoke"] if a.smoke else t["args"], "what": t["what"],
                     "flags": t["flags"]} for t in sel]

    print(f"run_suite: {len(sel)} tests x {len(columns)} columns -> {out}", flush=True)
    # interleave the columns test by test (baseline, rt, wine for one test, then the next)
    for t in sel:
        for col, cmd, env, why in columns:
            run = {"test": t["name"], "column": col}
            scope = col == "epoll" and "io" not in t["flags"]
            if scope:
                why = "the epoll engine column runs the I/O tests only"
            if why:
                run.update(verdict="SKIP", reason=why, figures={}, samples={}, notes=[], subtests=[],
                           exit_code=None, seconds=0, output="")
                if scope:
                    run["not_applicable"] = True    # the report shows "n/a", no note
            else:
                argv_t = cmd + [t["name"]] + (["--smoke"] if a.smoke else [])
                env = dict(env, NSPA_SUITE_WATCHDOG=str(int(max(5, a.timeout - 10))))
                text, rc, to, secs = run_one(argv_t, env, a.timeout, a.kill_after)
                v = verdict(text, rc, to)
                figs, samples, notes, subs, reason = parse_output(text)
                if v == "TIMEOUT":
                    reason = f"no result within {a.timeout:g} s: killed"
                elif v == "FAIL*":
                    reason = f"exit status {rc}" + (" (watchdog)" if rc == 99 else "")
                run.update(verdict=v, reason=reason, figures=figs, samples=samples, notes=notes,
                           subtests=subs, exit_code=rc, seconds=round(secs, 3), output=text[-4000:])
            res["runs"].append(run)
            print(f"  {t['name']:<22} {col:<9} {run['verdict']:<8} {run['seconds']:7.1f}s  {run['reason']}",
                  flush=True)
    wine_teardown(wine_env)
    path = os.path.join(out, "results.json")
    with open(path, "w") as f:
        json.dump(res, f, indent=1)
    if not a.no_report:
        report.render(res, out)
    bad = [r for r in res["runs"] if r["verdict"] in FAILED]
    npass = sum(r["verdict"] in PASSED for r in res["runs"])
    nskip = sum(r["verdict"] == "SKIP" for r in res["runs"])
    print(f"run_suite: {npass}/{len(res['runs'])} passed, {nskip} skipped, {len(bad)} failed")
    if left_out:
        print("run_suite: left out of the smoke run (rtload): " + ", ".join(left_out))
    print(f"run_suite: results {path}" + ("" if a.no_report else f", report {os.path.join(out, 'report.md')}"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
