# nspa-bench rt: priority inheritance cost and the inversion figures (bench/rt/run.sh)
nspa_add_bench(pi_handoff SOURCES bench/rt/pi_handoff.c)
