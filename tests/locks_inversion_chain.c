/* Transitive priority inheritance through a chain of critical sections under real-time
 * load: links 1..3 (SCHED_OTHER) each own section i and block on section i+1, the tail
 * owns section 4 and works; a SCHED_FIFO 80 thread waits on section 1. With PI the
 * kernel boosts the whole chain down to the tail (wait <= 3x the tail's work); with
 * NSPA_PI=0 the busy SCHED_FIFO threads starve the chain (>= 10x or the bound). */
#include "locks_inversion.h"
int main(int argc, char **argv) { return inv_main(argc, argv, 2); }
