/* The cached Linux thread id used as lock owner (CRITICAL_SECTION OwningThread, PI futex
 * owner). A fork child resets the cache of its only thread. */
#include <pthread.h>
#include "locks/futex.h"

NSPA_EXPORT __thread uint32_t nspa_tls_tid __attribute__((tls_model("initial-exec")));
__thread int nspa_cs_pi_held __attribute__((tls_model("initial-exec")));

NSPA_HIDDEN uint32_t nspa_locks_tid_load(void)
{
    nspa_tls_tid = (uint32_t)syscall(SYS_gettid);
    return nspa_tls_tid;
}

static void child_after_fork(void) { nspa_tls_tid = 0; }

__attribute__((constructor)) static void tid_init(void)
{
    pthread_atfork(NULL, NULL, child_after_fork);
}
