/* Helpers shared by the sync tests. */
#ifndef NSPA_TEST_SYNC_UTIL_H
#define NSPA_TEST_SYNC_UTIL_H
#include <errno.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "nspa/sync.h"
#include "nspa_test.h"

static inline nspa_obj_t mk_sem(uint32_t count, uint32_t max)
{
    struct nspa_sem_args a = { count, max };
    nspa_obj_t h = 0;
    REQUIRE(nspa_create_sem(&a, NULL, &h) == 0);
    return h;
}

static inline nspa_obj_t mk_mutex(uint32_t owner, uint32_t count)
{
    struct nspa_mutex_args a = { owner, count };
    nspa_obj_t h = 0;
    REQUIRE(nspa_create_mutex(&a, NULL, &h) == 0);
    return h;
}

static inline nspa_obj_t mk_event(int manual, int signaled)
{
    struct nspa_event_args a = { (uint32_t)manual, (uint32_t)signaled };
    nspa_obj_t h = 0;
    REQUIRE(nspa_create_event(&a, NULL, &h) == 0);
    return h;
}

/* relative timeout in ms -> absolute monotonic ns (0 = poll) */
static inline uint64_t after_ms(uint32_t ms) { return ms ? nspa_time_ns() + (uint64_t)ms * 1000000ull : 0; }

static inline int wait_any_ms(const nspa_obj_t *objs, uint32_t n, uint32_t owner, uint32_t ms,
                              nspa_obj_t alert, uint32_t *index)
{
    struct nspa_wait_args a = { .timeout = ms == UINT32_MAX ? NSPA_TIMEOUT_INFINITE : after_ms(ms),
                                .objs = objs, .count = n, .owner = owner, .alert = alert };
    int r = nspa_wait_any(&a);
    if (index) *index = a.index;
    return r;
}

static inline int wait_all_ms(const nspa_obj_t *objs, uint32_t n, uint32_t owner, uint32_t ms,
                              nspa_obj_t alert, uint32_t *index)
{
    struct nspa_wait_args a = { .timeout = ms == UINT32_MAX ? NSPA_TIMEOUT_INFINITE : after_ms(ms),
                                .objs = objs, .count = n, .owner = owner, .alert = alert };
    int r = nspa_wait_all(&a);
    if (index) *index = a.index;
    return r;
}

/* a mutex's owner and count (the read's result: 0 or -EOWNERDEAD) */
static inline int mutex_state(nspa_obj_t m, uint32_t *owner, uint32_t *count)
{
    struct nspa_mutex_args a = { 77, 77 };
    int r = nspa_mutex_read(m, &a);
    *owner = a.owner;
    *count = a.count;
    return r;
}

/* unlock on behalf of @owner; *prev (optional) receives the previous count */
static inline int mutex_unlock_as(nspa_obj_t m, uint32_t owner, uint32_t *prev)
{
    struct nspa_mutex_args a = { owner, 0 };
    int r = nspa_mutex_unlock(m, &a);
    if (prev) *prev = a.count;
    return r;
}

static inline uint32_t sem_count(nspa_obj_t s)
{
    struct nspa_sem_args a;
    REQUIRE(nspa_sem_read(s, &a) == 0);
    return a.count;
}

static inline int event_signaled(nspa_obj_t e)
{
    struct nspa_event_args a;
    REQUIRE(nspa_event_read(e, &a) == 0);
    return (int)a.signaled;
}

static inline void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}
/* wait until @n waits are queued on @obj (bounded: 10 s) */
static inline int wait_queued(nspa_obj_t obj, int n)
{
    for (int i = 0; i < 10000; i++) {
        if (nspa_obj_waiters(obj) >= n) return 1;
        sleep_ms(1);
    }
    return 0;
}
/* run this test program again in a child with @arg as its one argument (the environment
 * variables it sets first are read once per process); 1 if the child passed */
static inline int rerun_self(const char *argv0, const char *arg)
{
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (!pid) {
        execl("/proc/self/exe", argv0, arg, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) return 0;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}
#endif
