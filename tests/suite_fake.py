#!/usr/bin/env python3
"""A fake nspa-rt-test for tests/suite_harness.py: one sub-command per verdict rule."""
import os, signal, sys, time

TESTS = {
    "pass": "  FIG wait=12.5 ms lower  # Waiter wait\n  SAMPLES lat us 4 1 2 3 40\n  note: hello\n  PASS\n",
    "fail": "  FIG wait=99 ms lower  # Waiter wait\n  FAIL wait too long\n",
    "passfail": "  PASS\n  FAIL second thoughts\n",
    "passstar": "no verdict line, exit 0\n",
    "failstar": "no verdict line, exit 3\n",
    "skip": "  SKIP no real-time permission\n",
    "subtests": "  [1] first: ok\n  [2] second: FAILED - wrong order\n  FAIL 1 of 2 sub-tests failed\n",
    "hang": "",       # ignores SIGTERM: needs the KILL
    "hangterm": "",   # ends at SIGTERM
}

if sys.argv[1] == "list":
    for t in TESTS:
        print(f"{t}\t1 2\t3\t{'rtload' if t == 'skip' else ''}\tfake {t}")
    sys.exit(0)
t = sys.argv[1]
sys.stdout.write(TESTS[t])
sys.stdout.flush()
if t.startswith("hang"):
    d = os.environ.get("SUITE_FAKE_PIDS")
    if d:
        open(os.path.join(d, f"{t}.{os.getpid()}"), "w").close()
    if t == "hang":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(60)
sys.exit(3 if t == "failstar" else 0)
