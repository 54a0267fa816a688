/*
 * MMCSS: AvSetMmThreadCharacteristics(A/W), AvSetMmMaxThreadCharacteristics(A/W),
 * AvSetMmThreadPriority, AvRevertMmThreadCharacteristics.
 *
 * Windows' MMCSS raises a registered thread into a priority range chosen by its task's
 * scheduling category (the registry's defaults: "Pro Audio" and "Games" High, "Audio",
 * "Capture", "Distribution", "Playback", "Window Manager" Medium). In RT mode NSPA gives
 * the thread the NT band of that category and the AvSetMmThreadPriority step:
 *
 *   category  VERYLOW  LOW  NORMAL  HIGH  CRITICAL
 *   High        24     25    26      27     28
 *   Medium      18     19    20      21     22
 *
 * and the band runs as docs/rt.md maps it (with NSPA_RT_PRIO=80: "Pro Audio" NORMAL =
 * SCHED_FIFO 75, CRITICAL 77; "Audio" NORMAL = SCHED_FIFO 69 or RR per NSPA_RT_POLICY).
 * The thread's Linux scheduling is read when it registers and put back exactly by
 * AvRevertMmThreadCharacteristics. Outside RT mode every call succeeds and changes
 * nothing (the seed's baseline mode). Changes go through nspa_thread_set_sched, so a
 * priority-inheritance boost in force is respected.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "nspa/rt.h"
#include "nspa/sched.h"
#include "nspa/sync.h"
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "sched/sched_internal.h"

static const struct { const char *name; int high; } tasks[] = {
    { "Pro Audio", 1 }, { "Games", 1 }, { "Audio", 0 }, { "Capture", 0 },
    { "Distribution", 0 }, { "Playback", 0 }, { "Window Manager", 0 },
};

#define AVRT_MAGIC 0x41565254u        /* helps a debugger; handles are checked by list */

struct avrt {
    struct avrt *next;                   /* the live ones: a handle is checked against them */
    uint32_t magic;
    uint32_t tid;
    int high;                            /* category High, else Medium */
    int saved;                           /* the Linux setting below was read */
    struct nspa_sched_attr before;
};

static struct avrt *live;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static int task_of(const char *name)
{
    if (!name) return -1;
    for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
        if (!strcasecmp(name, tasks[i].name)) return (int)i;   /* task names are not case sensitive */
    return -1;
}

static void apply(struct avrt *a, int prio)
{
    int band = (a->high ? 26 : 20) + prio, pol, pr, nice;
    if (nspa_band_sched(band, &pol, &pr, &nice) < 0) return;
    if (nspa_thread_set_sched(a->tid, pol, pr, nice) == -EPERM) rt_note_denied();
    if (a->tid == nspa_thread_id()) {
        nspa_sched_self_gen++;
        nspa_thread_rt_refresh();
    }
}

static HANDLE set_task(const char *name, LPDWORD index)
{
    int k = task_of(name);
    if (k < 0) {
        SetLastError(ERROR_INVALID_TASK_NAME);
        return NULL;
    }
    if (!index) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    struct avrt *a = calloc(1, sizeof(*a));
    if (!a) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    a->magic = AVRT_MAGIC;
    a->tid = nspa_thread_id();
    a->high = tasks[k].high;
    if (!*index) *index = (DWORD)k + 1;   /* a task index: nonzero, stable per task */
    if (nspa_rt_enabled()) {
        a->saved = nspa_sched_getattr(a->tid, &a->before) == 0;
        if (a->saved) apply(a, AVRT_PRIORITY_NORMAL);
    }
    pthread_mutex_lock(&live_lock);
    a->next = live;
    live = a;
    pthread_mutex_unlock(&live_lock);
    return (HANDLE)a;
}

static char *narrow(LPCWSTR w, char *buf, size_t cap)
{
    if (!w) return NULL;
    size_t i = 0;
    for (; w[i] && i + 1 < cap; i++) buf[i] = w[i] < 0x80 ? (char)w[i] : '?';
    buf[i] = 0;
    return buf;
}

NSPA_EXPORT HANDLE WINAPI AvSetMmThreadCharacteristicsA(LPCSTR task, LPDWORD index) { return set_task(task, index); }

NSPA_EXPORT HANDLE WINAPI AvSetMmThreadCharacteristicsW(LPCWSTR task, LPDWORD index)
{
    char b[64];
    return set_task(narrow(task, b, sizeof(b)), index);
}

/* the higher category of the two tasks */
static const char *max_task(const char *a, const char *b)
{
    int ka = task_of(a), kb = task_of(b);
    if (ka < 0 || kb < 0) return NULL;
    return tasks[kb].high > tasks[ka].high ? b : a;
}

NSPA_EXPORT HANDLE WINAPI AvSetMmMaxThreadCharacteristicsA(LPCSTR first, LPCSTR second, LPDWORD index)
{
    return set_task(max_task(first, second), index);
}

NSPA_EXPORT HANDLE WINAPI AvSetMmMaxThreadCharacteristicsW(LPCWSTR first, LPCWSTR second, LPDWORD index)
{
    char a[64], b[64];
    return set_task(max_task(narrow(first, a, sizeof(a)), narrow(second, b, sizeof(b))), index);
}

/* a live handle (never a dereference of garbage); @take: no longer live */
static struct avrt *avrt_of(HANDLE h, int take)
{
    struct avrt *a = NULL;
    pthread_mutex_lock(&live_lock);
    for (struct avrt **pp = &live; *pp; pp = &(*pp)->next)
        if (*pp == h) {
            a = *pp;
            if (take) *pp = a->next;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    return a;
}

NSPA_EXPORT BOOL WINAPI AvSetMmThreadPriority(HANDLE h, AVRT_PRIORITY prio)
{
    struct avrt *a = avrt_of(h, 0);
    if (!a) {
        SetLastError(ERROR_INVALID_HANDLE);
        return FALSE;
    }
    if (prio < AVRT_PRIORITY_VERYLOW || prio > AVRT_PRIORITY_CRITICAL) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    if (a->saved) apply(a, prio);
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI AvRevertMmThreadCharacteristics(HANDLE h)
{
    struct avrt *a = avrt_of(h, 1);
    if (!a) {
        SetLastError(ERROR_INVALID_HANDLE);
        return FALSE;
    }
    if (a->saved) {
        const struct nspa_sched_attr *b = &a->before;
        int prio = (b->sched_policy == SCHED_FIFO || b->sched_policy == SCHED_RR) ? (int)b->sched_priority : 0;
        nspa_thread_set_sched(a->tid, (int)b->sched_policy, prio, b->sched_nice);
        if (a->tid == nspa_thread_id()) {
            nspa_sched_self_gen++;
            nspa_thread_rt_refresh();
        }
    }
    a->magic = 0;
    free(a);
    return TRUE;
}
