/* Priority inversion on a CRITICAL_SECTION under real-time load: with PI the
 * high-priority waiter waits at most 3x the low-priority holder's work; with NSPA_PI=0
 * at least 10x (or until the load's bound). See locks_inversion.h. */
#include "locks_inversion.h"
int main(int argc, char **argv) { return inv_main(argc, argv, 0); }
