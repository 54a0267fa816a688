#!/usr/bin/env python3
"""Tests of the suite's runner and report (tools/suite/run_suite.py, report.py):
verdict rules (PASS, PASS*, FAIL, FAIL*, TIMEOUT, SKIP), a hung test killed (TERM, then
KILL), the runner's exit status, figure parsing, the comparison arithmetic and the
rendering of a known result set (Markdown and SVG). Uses a fake test program
(tests/suite_fake.py); asserts behaviour, never timing."""
import json as _json, os, subprocess, sys, tempfile, unittest
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "suite"))
import run_suite, report  # noqa: E402

def read(path):
    with open(path) as f:
        return f.read()


def load(path):
    with open(path) as f:
        return _json.load(f)


# every temporary folder of this run lives under one that is removed at exit
_TMP = tempfile.TemporaryDirectory(prefix="suite-harness-")


def tmpdir(prefix):
    return tempfile.mkdtemp(prefix=prefix, dir=_TMP.name)


FAKE = f"{sys.executable} {os.path.join(ROOT, 'tests', 'suite_fake.py')}"


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purpose
    try:
        return open(f"/proc/{pid}/stat").read().split(")")[1].split()[0] != "Z"
    except OSError:
        return False


class Verdicts(unittest.TestCase):
    def test_rules(self):
        v = run_suite.verdict
        self.assertEqual(v("  PASS\n", 0, False), "PASS")
        self.assertEqual(v("  PASS\n", 1, False), "PASS")          # the line decides
        self.assertEqual(v("x\n  FAIL why\n", 0, False), "FAIL")
        self.assertEqual(v("  PASS\n  FAIL why\n", 0, False), "FAIL")  # any FAIL wins
        self.assertEqual(v("nothing\n", 0, False), "PASS*")
        self.assertEqual(v("nothing\n", 2, False), "FAIL*")
        self.assertEqual(v("  PASS\n", 0, True), "TIMEOUT")        # timeout first
        self.assertEqual(v("  SKIP no rt\n", 0, False), "SKIP")
        self.assertEqual(v("PASS\n", 1, False), "FAIL*")           # only the indented line counts
        self.assertEqual(v("  PASSED\n", 0, False), "PASS*")

    def test_parse(self):
        figs, samples, notes, subs, reason = run_suite.parse_output(
            "  FIG a.b=1.5e+06 ops/s higher  # Throughput\n  SAMPLES w us 3 1 2 3\n"
            "  note: n1\n  [3] prio: FAILED - order\n  FAIL it broke\n")
        self.assertEqual(figs["a.b"], {"value": 1.5e6, "unit": "ops/s", "better": "higher", "label": "Throughput"})
        self.assertEqual(samples["w"], {"unit": "us", "values": [1.0, 2.0, 3.0]})
        self.assertEqual(notes, ["n1"])
        self.assertEqual(subs[0]["n"], 3)
        self.assertFalse(subs[0]["ok"])
        self.assertEqual(reason, "it broke")


class Runner(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tmpdir("runner-")
        cls.pids = os.path.join(cls.tmp, "pids")
        os.makedirs(cls.pids)
        os.environ["SUITE_FAKE_PIDS"] = cls.pids
        cls.out = os.path.join(cls.tmp, "out")
        cls.rc = run_suite.main(["--exe", FAKE, "--out", cls.out, "--modes", "baseline",
                                 "--timeout", "1", "--kill-after", "1"])
        cls.res = load(os.path.join(cls.out, "results.json"))
        cls.v = {r["test"]: r for r in cls.res["runs"]}

    def test_verdicts(self):
        want = {"pass": "PASS", "fail": "FAIL", "passfail": "FAIL", "passstar": "PASS*",
                "failstar": "FAIL*", "skip": "SKIP", "subtests": "FAIL", "hang": "TIMEOUT",
                "hangterm": "TIMEOUT"}
        self.assertEqual({t: r["verdict"] for t, r in self.v.items()}, want)

    def test_exit_status(self):
        self.assertEqual(self.rc, 1)
        rc = run_suite.main(["--exe", FAKE, "--out", os.path.join(self.tmp, "ok"), "--modes", "baseline",
                             "--only", "pass,passstar,skip", "--no-report"])
        self.assertEqual(rc, 0)   # PASS, PASS* and SKIP: nothing failed

    def test_hung_tests_killed(self):
        names = os.listdir(self.pids)
        self.assertEqual(sorted(n.split(".")[0] for n in names), ["hang", "hangterm"])
        for n in names:
            self.assertFalse(alive(int(n.split(".")[1])), f"{n} still running")
        self.assertIn("killed", self.v["hang"]["reason"])

    def test_figures_and_reasons(self):
        p = self.v["pass"]
        self.assertEqual(p["figures"]["wait"]["value"], 12.5)
        self.assertEqual(p["figures"]["wait"]["unit"], "ms")
        self.assertEqual(p["samples"]["lat"]["values"], [1, 2, 3, 40])
        self.assertEqual(self.v["fail"]["reason"], "wait too long")
        self.assertEqual(self.v["failstar"]["reason"], "exit status 3")
        self.assertEqual(len(self.v["subtests"]["subtests"]), 2)
        m = self.res["machine"]
        for k in ("cpu", "cores", "kernel", "preemption", "virtual"):
            self.assertIn(k, m)

    def test_rt_column_skip_or_run(self):
        rc = run_suite.main(["--exe", FAKE, "--out", os.path.join(self.tmp, "rt"), "--modes", "baseline,rt",
                             "--only", "pass", "--no-report"])
        res = load(os.path.join(self.tmp, "rt", "results.json"))
        rt = [r for r in res["runs"] if r["column"] == "rt"][0]
        ok, why = run_suite.rt_permitted()
        self.assertEqual(rt["verdict"], "PASS" if ok else "SKIP")
        self.assertEqual(rc, 0)

    def test_smoke_leaves_out_rtload(self):
        run_suite.main(["--exe", FAKE, "--out", os.path.join(self.tmp, "smoke"), "--modes", "baseline",
                        "--only", "pass,skip", "--smoke", "--no-report"])
        res = load(os.path.join(self.tmp, "smoke", "results.json"))
        self.assertEqual(res["left_out"], ["skip"])
        self.assertEqual([t["args"] for t in res["tests"]], ["3"])   # the smoke arguments


def fixture(label, rt_scale, virtual, preempt_rt=False):
    """A known result set: rapidmutex (3 columns), inversion-cs failing in RT."""
    def run(test, col, verdict, figs, samples=None, reason=""):
        return {"test": test, "column": col, "verdict": verdict, "reason": reason,
                "figures": {k: {"value": v, "unit": u, "better": b, "label": l} for k, (v, u, b, l) in figs.items()},
                "samples": samples or {}, "notes": [], "subtests": [], "exit_code": 0, "seconds": 1, "output": ""}
    rm = lambda el, tp: {"elapsed": (el, "ms", "lower", "Total elapsed"),
                         "throughput": (tp, "ops/s", "higher", "Throughput"),
                         "counter": (2000000, "count", "info", "Counter")}
    return {"schema": "nspa-rt-suite/1", "label": label, "date": "2026-01-01T00:00:00+00:00", "commit": "abc",
            "machine": {"cpu": "Test CPU", "cores": 2, "kernel": "6.1", "preemption": "PREEMPT_RT" if preempt_rt else "PREEMPT_DYNAMIC",
                        "preempt_rt": preempt_rt, "virtual": virtual, "virtualization": "kvm" if virtual else "none"},
            "smoke": False, "pi_off": False, "left_out": [],
            "columns": [{"name": "baseline", "desc": "b", "skip": ""}, {"name": "rt", "desc": "r", "skip": ""},
                        {"name": "wine", "desc": "w", "skip": ""}],
            "tests": [{"name": "rapidmutex", "args": "4 500000", "what": "rapid", "flags": [""]},
                      {"name": "inversion-cs", "args": "cs", "what": "inv", "flags": ["rtload"]}],
            "runs": [run("rapidmutex", "baseline", "PASS", rm(6522, 307000), {"rt_wait": {"unit": "us", "values": [1, 2, 3, 50]}}),
                     run("rapidmutex", "rt", "PASS", rm(6522 * rt_scale, 312000 / rt_scale), {"rt_wait": {"unit": "us", "values": [1, 1, 2, 46]}}),
                     run("rapidmutex", "wine", "PASS", rm(13044, 153500)),
                     run("inversion-cs", "baseline", "PASS", {"wait": (70, "ms", "lower", "Waiter wait")}),
                     run("inversion-cs", "rt", "FAIL", {"wait": (1500, "ms", "lower", "Waiter wait")}, reason="wait 1500 ms > 3 W"),
                     run("inversion-cs", "wine", "PASS", {"wait": (150, "ms", "lower", "Waiter wait")})]}


class Report(unittest.TestCase):
    def test_arithmetic(self):
        d, pct, word = report.delta(6522, 6407, "lower")
        self.assertAlmostEqual(d, -115)
        self.assertAlmostEqual(pct, -115 / 6522 * 100)
        self.assertEqual(word, "better")
        self.assertEqual(report.delta(100, 150, "lower")[2], "worse")
        self.assertEqual(report.delta(100, 150, "higher")[2], "better")
        self.assertEqual(report.delta(100, 100.5, "higher")[2], "flat")    # within 1 %
        self.assertEqual(report.delta(100, 150, "info")[2], "")
        self.assertEqual(report.delta_text(6522, 6407, "ms", "lower"), "-115 ms (-1.8%) better")
        self.assertEqual(report.delta_text(307000, 312000, "ops/s", "higher"), "+5,000 ops/s (+1.6%) better")
        self.assertEqual(report.delta_text(1000, 1005, "ms", "lower"), "flat")
        self.assertEqual(report.delta_text(200, 300, "us", "lower"), "+100 us (+50.0%) worse")
        self.assertAlmostEqual(report.factor(10, 30, "lower"), 3.0)     # NSPA 10 ms vs 30 ms
        self.assertAlmostEqual(report.factor(300, 100, "higher"), 3.0)  # NSPA 300 ops/s vs 100
        self.assertEqual(report.factor_text(3.0), "NSPA 3x better")
        self.assertEqual(report.factor_text(0.5), "NSPA 2x worse")
        self.assertEqual(report.factor_text(1.01), "same")
        self.assertIsNone(report.factor(0, 5, "lower"))
        self.assertEqual(report.fmt(312000, "ops/s"), "312K ops/s")
        self.assertEqual(report.fmt(2000000, "count"), "2M")

    def render(self, res):
        out = tmpdir("report-")
        md = read(report.render(res, out))
        return out, md

    def test_render_known(self):
        out, md = self.render(fixture("v5", 0.5, True))
        self.assertIn("| rapidmutex | PASS | PASS | PASS |", md)
        self.assertIn("| inversion-cs | PASS | FAIL | PASS | RT: wait 1500 ms > 3 W |", md)
        self.assertIn("**5/6 PASS** (2 tests x 3 columns).", md)
        self.assertIn("## 1. rapidmutex [PASS]", md)
        self.assertIn("## 2. inversion-cs [Baseline PASS / RT FAIL / stock Wine PASS]", md)
        # Baseline / RT / Delta and the stock Wine factor (like for like: NSPA baseline)
        self.assertIn("| Total elapsed | 6,522 ms | 3,261 ms | -3,261 ms (-50.0%) better | 13,044 ms | NSPA 2x better |", md)
        self.assertIn("| Throughput | 307K ops/s | 624K ops/s | +317K ops/s (+103.3%) better | 154K ops/s | NSPA 2x better |", md)
        self.assertIn("## Key improvements (RT vs Baseline)", md)
        self.assertIn("| inversion-cs | Waiter wait | 70 ms | 1,500 ms | +2042.9% worse |", md)   # a regression
        self.assertIn("## NSPA vs stock Wine", md)
        self.assertIn("virtual machine", md)
        self.assertIn("not PREEMPT_RT", md)
        for f in ("rapidmutex_rt_wait_cdf.svg", "rapidmutex_bars.svg", "inversion-cs_bars.svg"):
            self.assertIn(f"]({f})", md)
            root = ET.parse(os.path.join(out, f)).getroot()   # well-formed SVG
            self.assertTrue(root.tag.endswith("svg"))
        cdf = read(os.path.join(out, "rapidmutex_rt_wait_cdf.svg"))
        self.assertEqual(cdf.count("<polyline"), 2)   # baseline and RT curves (wine has no samples)

    def test_no_warning_on_rt_metal(self):
        out, md = self.render(fixture("v5", 1, False, preempt_rt=True))
        self.assertNotIn("Warning", md)

    def test_compare(self):
        a, b = fixture("v4", 1.0, False), fixture("v5", 0.5, False)
        out = tmpdir("cmp-")
        md = read(report.compare(a, b, out, ("v4", "v5")))
        self.assertIn("| Test | v4 Baseline | v4 RT | v4 stock Wine | v5 Baseline | v5 RT | v5 stock Wine | v4→v5 | Notes |", md)
        # RT vs RT: 6522 -> 3261 ms, throughput doubled
        self.assertIn("| Total elapsed | 6,522 ms | 6,522 ms | 13,044 ms | 6,522 ms | 3,261 ms | 13,044 ms | "
                      "-3,261 ms (-50.0%) better | 2x better |", md)
        self.assertIn("## v4 → v5 key improvements", md)
        ET.parse(os.path.join(out, "cmp_rapidmutex_rt_wait_cdf.svg"))

    def test_compare_nspa_vs_wine_only(self):
        a = fixture("nspa", 1.0, False)
        w = fixture("wine", 1.0, False)
        w["columns"] = [c for c in w["columns"] if c["name"] == "wine"]
        w["runs"] = [r for r in w["runs"] if r["column"] == "wine"]
        md = read(report.compare(a, w, tmpdir("cmpw-"), ("NSPA", "Wine")))
        # NSPA judged by its RT column, the wine file by its only column
        self.assertIn("primary: NSPA RT, Wine stock Wine", md)
        self.assertIn("-6,522 ms", md.replace("+6,522 ms (+100.0%) worse", "-6,522 ms"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
