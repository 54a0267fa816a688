/* Priority inversion through a condition variable (SleepConditionVariableCS) under
 * real-time load: the high-priority waiter is woken while the low-priority thread holds
 * the section; with requeue-PI it is queued on the PI futex and boosts the holder (wait
 * <= 3x the holder's work); with NSPA_PI=0 it waits >= 10x (or the load's bound). */
#include "locks_inversion.h"
int main(int argc, char **argv) { return inv_main(argc, argv, 1); }
