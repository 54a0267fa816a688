#!/usr/bin/env bash
# nspa-bench msg (issue 17): thread message queues against NSPA's own event ping-pong
# and against stock Wine 8, interleaved in one run.
# Usage: bench/msg/run.sh <builddir> <outdir>      (tools/bench.sh calls it; `make bench BENCH=msg`)
#
# One Win32 source, bench/msg/msg_bench.c, built natively against NSPA
# (<builddir>/bench/msg_bench) and with x86_64-w64-mingw32-gcc for stock Wine
# (/usr/lib/wine/wine64, WINEDEBUG=-all, a throw-away WINEPREFIX under <outdir>). Each
# process measures, one after the other for MS ms each: the event ping-pong (nspa-bench
# sync's pingpong: the reference), the PostThreadMessage ping-pong, the cross-thread
# SendMessage round trip, and a MsgWaitForMultipleObjects woken by a posted message and
# by SetEvent. ROUNDS rounds (default 7), nspa then wine in each.
# Output: <outdir>/msg.json, <outdir>/msg.md (tools/benchfmt.py), <outdir>/msg-samples.txt,
# <outdir>/msg-run.log.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
bench_paths "$0" "$@"
ROUNDS=${ROUNDS:-7}
MS=${MS:-1000}
samples=$out/msg-samples.txt
log=$out/msg-run.log
: >"$samples"
: >"$log"
say() { echo "msg: $*" | tee -a "$log"; }
notes=()

"$root/tools/deps.sh" bench wine64 gcc-mingw-w64-x86-64 >>"$log" 2>&1 ||
  say "warning: tools/deps.sh failed (see $log); running what is installed"
export NSPA_NAMESPACE=${NSPA_NAMESPACE:-nspa-bench-msg-$$}
BIN=$build/bench/msg_bench
[ -x "$BIN" ] || { say "$BIN not built"; exit 1; }

WINE=/usr/lib/wine/wine64
WINESERVER=/usr/lib/wine/wineserver
EXE=$out/msg-work/msg_bench.exe
mkdir -p "$out/msg-work"
if x86_64-w64-mingw32-gcc -O2 -Wall -o "$EXE" "$here/msg_bench.c" >>"$log" 2>&1 && [ -x "$WINE" ]; then
  export WINEPREFIX=$out/msg-wineprefix WINEDEBUG=-all WINEARCH=win64 WINEDLLOVERRIDES="mscoree,mshtml="
  unset DISPLAY WAYLAND_DISPLAY
  rm -rf "$WINEPREFIX"
  say "wine: $("$WINE" --version 2>/dev/null), preparing a throw-away prefix"
  timeout 300 "$WINE" wineboot -i >>"$log" 2>&1 || say "warning: wineboot -i returned $?"
  "$WINESERVER" -p >>"$log" 2>&1     # one server for the whole run
  cleanup_wine() { "$WINESERVER" -k >/dev/null 2>&1; "$WINESERVER" -w >/dev/null 2>&1; rm -rf "$WINEPREFIX"; }
  trap cleanup_wine EXIT
  notes+=("wine: $("$WINE" --version 2>/dev/null) (Debian wine64), the same msg_bench.c built with x86_64-w64-mingw32-gcc -O2, WINEDEBUG=-all, a fresh prefix, one persistent wineserver.")
else
  say "SKIP wine: mingw-w64 build or $WINE missing"; EXE=
  notes+=("wine: not measured (mingw-w64 or wine64 missing); nothing substituted.")
fi

run() {  # run <label> <cmd...>: RESULT lines to the samples, everything to the log
  local label=$1; shift
  local o
  o=$(timeout 120 "$@" 2>>"$log" | tr -d '\r')
  local rc=$?
  echo "$o" >>"$log"
  if [ $rc -ne 0 ] || ! grep -q '^RESULT ' <<<"$o"; then say "FAILED ($label, exit $rc)"; return 0; fi
  grep '^RESULT ' <<<"$o" >>"$samples"
}

for r in $(seq 1 "$ROUNDS"); do
  say "round $r/$ROUNDS"
  run nspa env -u NSPA_RT_PRIO "$BIN" nspa "$MS"
  [ -n "$EXE" ] && run wine "$WINE" "$EXE" wine "$MS"
done

ratios=(roundtrip:nspa-post:nspa-event roundtrip:nspa-send:nspa-event msgwait:nspa-post:nspa-setevent)
if [ -n "$EXE" ]; then
  ratios+=(roundtrip:nspa-post:wine-post roundtrip:nspa-send:wine-send roundtrip:nspa-event:wine-event
           msgwait:nspa-post:wine-post msgwait:wine-post:wine-setevent)
fi
args=()
for x in "${ratios[@]}"; do args+=(--ratio "$x"); done
notes+=(
  "Method: $ROUNDS interleaved rounds (nspa, then wine); each process measures every bench for ${MS} ms, in the same order, and reports microseconds per round trip (median of the rounds in the table)."
  "roundtrip: *-event = two threads, two auto-reset events, SetEvent + WaitForSingleObject each way (nspa-bench sync's pingpong, measured again here so that it shares the run); *-post = PostThreadMessage + GetMessage each way; *-send = SendMessage to a message-only window whose thread sits in GetMessage/DispatchMessage (the reply is the way back)."
  "msgwait: a thread in MsgWaitForMultipleObjects(1 event, QS_POSTMESSAGE) is woken either by PostThreadMessage (*-post) or by SetEvent on that event (*-setevent); in both it then drains its queue with PeekMessage and acks with an auto-reset event the other thread waits on. Only the wake differs."
  "Must-show targets (issue 17): roundtrip nspa-post/nspa-event <= 1.3, nspa-send/nspa-event <= 1.5, msgwait nspa-post/nspa-setevent <= 1.3; nspa-post/wine-post and nspa-send/wine-send <= 0.1 (10x better)."
)
nargs=()
for x in "${notes[@]}"; do nargs+=(--note "$x"); done
grep -q '^RESULT ' "$samples" || { say "no samples"; exit 1; }
python3 "$root/tools/benchfmt.py" --module msg --json "$out/msg.json" --md "$out/msg.md" "$samples" "${args[@]}" "${nargs[@]}"
