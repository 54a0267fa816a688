/* Helpers shared by the tests/win32_*.c tests (not a test itself). */
#ifndef NSPA_WIN32_TESTUTIL_H
#define NSPA_WIN32_TESTUTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <windows.h>

/* An NSPA wait that has registered itself sleeps in futex_waitv (449 on every Linux
 * architecture) when it watches mutex owners, else in futex (SYS_futex). */
#include <sys/syscall.h>
#define W32T_SYS_FUTEX_WAITV 449

/* Is thread @tid of this process asleep in a registered NSPA wait right now? */
static inline int w32t_in_wait(DWORD tid)
{
    char path[64], buf[128];
    snprintf(path, sizeof(path), "/proc/self/task/%u/syscall", (unsigned)tid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int n = 0;
    if (fgets(buf, sizeof(buf), f)) n = atoi(buf);
    fclose(f);
    /* the first field is the syscall number, or "running" */
    return buf[0] >= '0' && buf[0] <= '9' && (n == W32T_SYS_FUTEX_WAITV || n == SYS_futex);
}

/* Wait (up to 10 s) until thread @tid sleeps in a registered wait, seen twice 2 ms
 * apart. Returns 1, or 0 if it never did. Synchronisation only: nothing is timed. */
static inline int w32t_wait_blocked(DWORD tid)
{
    for (int i = 0; i < 5000; i++) {
        if (w32t_in_wait(tid)) {
            Sleep(2);
            if (w32t_in_wait(tid)) return 1;
        }
        Sleep(2);
    }
    fprintf(stderr, "thread %u never blocked in a wait\n", (unsigned)tid);
    return 0;
}

/* Poll @cond (an expression) for up to 10 s. */
#define W32T_EVENTUALLY(cond) ({ int ok_ = 0; \
    for (int i_ = 0; i_ < 5000 && !(ok_ = !!(cond)); i_++) Sleep(2); ok_; })


/* A helper thread that owns mutexes for a test while it waits for 'release'; with
 * @abandon it exits owning them. holder_start returns once it owns them. */
#include <pthread.h>
struct holder { HANDLE m[8]; int n; HANDLE owned, release; int abandon; pthread_t t; };
static void *holder_main(void *p)
{
    struct holder *h = p;
    for (int i = 0; i < h->n; i++) WaitForSingleObject(h->m[i], 0);
    SetEvent(h->owned);
    WaitForSingleObject(h->release, 10000);
    if (!h->abandon)
        for (int i = 0; i < h->n; i++) ReleaseMutex(h->m[i]);
    return NULL;
}
static inline void holder_start(struct holder *h, int abandon)
{
    h->owned = CreateEventA(NULL, TRUE, FALSE, NULL);
    h->release = CreateEventA(NULL, TRUE, FALSE, NULL);
    h->abandon = abandon;
    pthread_create(&h->t, NULL, holder_main, h);
    WaitForSingleObject(h->owned, 10000);
}
static inline void holder_stop(struct holder *h)
{
    SetEvent(h->release);
    pthread_join(h->t, NULL);
    CloseHandle(h->owned);
    CloseHandle(h->release);
}


/* Values shared with callbacks on other threads: atomic accesses (what TSan sees). */
#define W32T_LD(x) __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define W32T_ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

/* QueryPerformanceCounter in ms */
static inline double w32t_now_ms(void)
{
    LARGE_INTEGER c;
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / 10000.0;
}

/* Milliseconds the threads of this process alive now have spent runnable but not
 * running (the kernel's schedstat run_delay). A timing bound of a test holds only
 * while the machine gives the test CPU: the difference over a window says how much it
 * did not (threads that ended meanwhile are not counted: an underestimate). */
#include <dirent.h>
static inline double w32t_run_delay_ms(void)
{
    DIR *d = opendir("/proc/self/task");
    double ms = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[300];
        snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", e->d_name);
        FILE *f = fopen(path, "r");
        unsigned long long run = 0, wait = 0;
        if (f && fscanf(f, "%llu %llu", &run, &wait) == 2) ms += wait / 1e6;
        if (f) fclose(f);
    }
    if (d) closedir(d);
    return ms;
}

#endif
