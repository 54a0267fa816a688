#!/usr/bin/env bash
# nspa-bench rt <builddir> <outdir>
#  1. contended NT mutex hand-off between two SCHED_FIFO threads, PI on vs NSPA_PI=0,
#     interleaved, 7 rounds (the must-show: PI on costs at most 1.5x PI off);
#  2. the textbook inversion (tests/rt_inversion.c: single, any, all, chain of 12): the
#     waiter's wait with PI, without, and the holder's work, 3 rounds.
set -euo pipefail
build=$1 out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
samples=$out/rt-samples.txt
: > "$samples"
if ! chrt -f 1 true 2>/dev/null; then
  echo "bench rt: SKIP: no permission for SCHED_FIFO on this machine" | tee "$out/rt.md"
  exit 0
fi
for round in 1 2 3 4 5 6 7; do
  NSPA_NAMESPACE=bench-rt-$$ NSPA_PI=1 "$build/bench/pi_handoff" 1 pi_on >> "$samples"
  NSPA_NAMESPACE=bench-rt-$$ NSPA_PI=0 "$build/bench/pi_handoff" 1 pi_off >> "$samples"
done
for round in 1 2 3; do
  NSPA_NAMESPACE=bench-rt-$$ "$build/rt_inversion" 2>/dev/null |
    awk '/^RESULT inversion=/ {
      split($2, k, "="); split($3, p, "="); split($4, w, "="); split($5, t, "=");
      printf "RESULT bench=inversion_%s impl=pi_%s unit=ms value=%s better=lower\n", k[2], p[2], t[2];
      printf "RESULT bench=inversion_%s impl=work_pi_%s unit=ms value=%s better=lower\n", k[2], p[2], w[2];
    }' >> "$samples" || true
done
"$root/tools/clean-namespaces.sh" bench-rt-$$
python3 "$root/tools/benchfmt.py" --module rt --json "$out/rt.json" --md "$out/rt.md" "$samples" \
  --ratio pi_handoff_ns:pi_on:pi_off --ratio pi_handoff_ops:pi_on:pi_off \
  --ratio inversion_single:pi_on:work_pi_on --ratio inversion_single:pi_off:work_pi_off \
  --ratio inversion_any:pi_on:work_pi_on --ratio inversion_any:pi_off:work_pi_off \
  --ratio inversion_all:pi_on:work_pi_on --ratio inversion_all:pi_off:work_pi_off \
  --ratio inversion_chain12:pi_on:work_pi_on --ratio inversion_chain12:pi_off:work_pi_off \
  --note "pi_on/pi_off: two SCHED_FIFO threads (20, 30) hand one NT mutex back and forth, every acquisition a contended hand-off (bench/rt/pi_handoff.c); PI on (default) against NSPA_PI=0." \
  --note "inversion: a SCHED_OTHER holder works W, SCHED_FIFO 50 busy threads on every CPU for 1.5 s, a SCHED_FIFO 80 waiter; its wait with PI (pi_on) and with NSPA_PI=0 (pi_off), each against the holder's work W measured in the same run (work_pi_on, work_pi_off)."
