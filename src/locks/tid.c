/* What the locks cache: the Linux thread id used as lock owner (CRITICAL_SECTION
 * OwningThread, PI futex owner; a fork child resets the cache of its only thread), and
 * the number of CPUs (no spinning on one). */
#include <pthread.h>
#include <sys/sysinfo.h>
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

NSPA_HIDDEN int nspa_locks_ncpu(void)
{
    static _Atomic int cache;
    int n = atomic_load_explicit(&cache, memory_order_relaxed);
    if (!n) {
        n = get_nprocs();
        atomic_store_explicit(&cache, n, memory_order_relaxed);
    }
    return n;
}
