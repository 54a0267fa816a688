/*
 * Multimedia timers: timeGetTime, timeBeginPeriod/timeEndPeriod, timeGetDevCaps,
 * timeSetEvent/timeKillEvent.
 *
 * Every NSPA timer is already served at its exact due time (the timer service has no
 * tick), so timeBeginPeriod changes nothing; it is counted per period so that an
 * unmatched timeEndPeriod is TIMERR_NOCANDO, as on Windows.
 *
 * timeSetEvent timers are entries of the timer service and their callbacks run on the
 * service thread itself, one at a time, as Windows runs them on its one multimedia timer
 * thread (TIME_CRITICAL there; the service is SCHED_FIFO NSPA_RT_PRIO - 1 in RT mode):
 * an expiry is one wake-up, no hand-off. A callback should be short (it delays the other
 * timers), as on Windows. timeKillEvent from another thread waits for a running callback
 * of that timer (so none runs after it returned: TIME_KILL_SYNCHRONOUS is always true);
 * from the timer's own callback it ends the timer when the callback returns.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "common/platform.h"
#include "time/time_internal.h"

#define MM_MIN_PERIOD 1
#define MM_MAX_PERIOD 1000000

NSPA_EXPORT DWORD WINAPI timeGetTime(void)
{
    return (DWORD)(nspa_clock_ns(CLOCK_MONOTONIC) / 1000000ull);
}

NSPA_EXPORT MMRESULT WINAPI timeGetDevCaps(LPTIMECAPS caps, UINT size)
{
    if (!caps || size < sizeof(TIMECAPS)) return TIMERR_NOCANDO;
    caps->wPeriodMin = MM_MIN_PERIOD;
    caps->wPeriodMax = MM_MAX_PERIOD;
    return TIMERR_NOERROR;
}

/* ---- periods: counted, nothing to change ----------------------------------------- */

#define PERIOD_SLOTS 64
static struct { UINT period; uint32_t count; } periods[PERIOD_SLOTS];
static pthread_mutex_t period_lock = PTHREAD_MUTEX_INITIALIZER;

NSPA_EXPORT MMRESULT WINAPI timeBeginPeriod(UINT p)
{
    if (p < MM_MIN_PERIOD || p > MM_MAX_PERIOD) return TIMERR_NOCANDO;
    MMRESULT r = TIMERR_NOCANDO;
    pthread_mutex_lock(&period_lock);
    int free_i = -1;
    for (int i = 0; i < PERIOD_SLOTS; i++) {
        if (periods[i].count && periods[i].period == p) {
            periods[i].count++;
            r = TIMERR_NOERROR;
            break;
        }
        if (!periods[i].count && free_i < 0) free_i = i;
    }
    if (r && free_i >= 0) {
        periods[free_i].period = p;
        periods[free_i].count = 1;
        r = TIMERR_NOERROR;
    }
    pthread_mutex_unlock(&period_lock);
    return r;
}

NSPA_EXPORT MMRESULT WINAPI timeEndPeriod(UINT p)
{
    MMRESULT r = TIMERR_NOCANDO;
    pthread_mutex_lock(&period_lock);
    for (int i = 0; i < PERIOD_SLOTS; i++)
        if (periods[i].count && periods[i].period == p) {
            periods[i].count--;
            r = TIMERR_NOERROR;
            break;
        }
    pthread_mutex_unlock(&period_lock);
    return r;
}

/* ---- timeSetEvent ---------------------------------------------------------------- */

struct mmtimer {
    struct tsvc_ent e;                   /* first: released with free() */
    struct mmtimer *next;
    UINT id, flags;
    LPTIMECALLBACK fn;
    DWORD_PTR user;
    int killed;                          /* by its own callback */
};

static struct mmtimer *timers;
static UINT next_id = 1;
static pthread_mutex_t mm_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct mmtimer *cur_mm;

static int mm_fire(struct tsvc_ent *e, uint64_t now)
{
    struct mmtimer *t = (struct mmtimer *)e;
    switch (t->flags & (TIME_CALLBACK_EVENT_SET | TIME_CALLBACK_EVENT_PULSE)) {
    case TIME_CALLBACK_EVENT_SET:
        SetEvent((HANDLE)t->fn);
        break;
    case TIME_CALLBACK_EVENT_PULSE:
        PulseEvent((HANDLE)t->fn);
        break;
    default:
        cur_mm = t;
        t->fn(t->id, 0, t->user, 0, 0);
        cur_mm = NULL;
    }
    if (t->killed) return TSVC_RELEASE;
    if (!e->period) {
        /* one-shot: it ends here unless timeKillEvent took it meanwhile */
        pthread_mutex_lock(&mm_lock);
        int mine = 0;
        for (struct mmtimer **pp = &timers; *pp; pp = &(*pp)->next)
            if (*pp == t) { *pp = t->next; mine = 1; break; }
        pthread_mutex_unlock(&mm_lock);
        return mine ? TSVC_RELEASE : 0;
    }
    return 1;
}

static void mm_release(struct tsvc_ent *e) { free(e); }

NSPA_EXPORT MMRESULT WINAPI timeSetEvent(UINT delay, UINT resolution, LPTIMECALLBACK fn, DWORD_PTR user, UINT flags)
{
    if (delay < MM_MIN_PERIOD || delay > MM_MAX_PERIOD || !fn) return 0;
    if ((flags & TIME_CALLBACK_EVENT_SET) && (flags & TIME_CALLBACK_EVENT_PULSE)) return 0;
    struct mmtimer *t = calloc(1, sizeof(*t));
    if (!t) return 0;
    t->fn = fn;
    t->user = user;
    t->flags = flags;
    t->e.idx = -1;
    t->e.clock = CLOCK_MONOTONIC;
    t->e.period = (flags & TIME_PERIODIC) ? (uint64_t)delay * 1000000ull : 0;
    t->e.fire = mm_fire;
    t->e.release = mm_release;
    pthread_mutex_lock(&mm_lock);
    /* ids: nonzero, not in use (wrapping after 4G timers) */
    for (;;) {
        UINT id = next_id++;
        if (!id) continue;
        int used = 0;
        for (struct mmtimer *x = timers; x && !used; x = x->next) used = x->id == id;
        if (!used) {
            t->id = id;
            break;
        }
    }
    UINT id = t->id;                     /* a one-shot may fire and be freed before we return */
    t->next = timers;
    timers = t;
    t->e.due = nspa_clock_ns(CLOCK_MONOTONIC) + (uint64_t)delay * 1000000ull;
    int r = tsvc_add(&t->e);
    if (r) timers = t->next;
    pthread_mutex_unlock(&mm_lock);
    if (r) {
        free(t);
        return 0;
    }
    return id;
}

NSPA_EXPORT MMRESULT WINAPI timeKillEvent(UINT id)
{
    pthread_mutex_lock(&mm_lock);
    struct mmtimer *t = NULL;
    for (struct mmtimer **pp = &timers; *pp; pp = &(*pp)->next)
        if ((*pp)->id == id) {
            t = *pp;
            *pp = t->next;
            break;
        }
    pthread_mutex_unlock(&mm_lock);
    if (!t) return TIMERR_NOCANDO;       /* Windows: MMSYSERR_INVALPARAM (11) on some */
    if (cur_mm == t) {                   /* from its own callback */
        t->killed = 1;
        tsvc_remove(&t->e);              /* marks it: not queued again */
        return TIMERR_NOERROR;
    }
    tsvc_remove(&t->e);                  /* waits for a running callback */
    free(t);
    return TIMERR_NOERROR;
}
