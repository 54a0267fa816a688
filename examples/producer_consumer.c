/* A Win32 producer/consumer, unmodified Win32 C: a bounded queue under a
 * CRITICAL_SECTION, two auto-reset events ("an item is there", "there is room"), a
 * producer thread at TIME_CRITICAL priority in a REALTIME_PRIORITY_CLASS process and a
 * consumer that measures how long each item waited. Built natively against NSPA:
 *
 *   cc $(pkg-config --cflags nspa-win32) producer_consumer.c -o pc $(pkg-config --libs nspa-win32)
 *   ./pc                        # baseline: Linux's normal scheduling
 *   NSPA_RT_PRIO=80 ./pc        # RT mode: the REALTIME class runs SCHED_FIFO, the
 *                               # critical section inherits priority
 *
 * The README's tour walks through it. Exit status 0 when every item arrived in order. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>

#define ITEMS 20000
#define SLOTS 64

static CRITICAL_SECTION lock;
static HANDLE have_item, have_room;          /* auto-reset events */
static struct { int seq; LONGLONG stamp; } queue[SLOTS];   /* each item: its number, when it was made */
static unsigned head, tail;                  /* under lock */
static LONGLONG freq;

static LONGLONG now(void)
{
    LARGE_INTEGER t;
    QueryPerformanceCounter(&t);
    return t.QuadPart;
}

static DWORD WINAPI producer(LPVOID arg)
{
    (void)arg;
    SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_TIME_CRITICAL);
    for (int i = 0; i < ITEMS; i++) {
        for (;;) {
            EnterCriticalSection(&lock);
            if (head - tail < SLOTS) break;
            LeaveCriticalSection(&lock);
            WaitForSingleObject(have_room, INFINITE);       /* full: wait for the consumer */
        }
        queue[head % SLOTS].seq = i;
        queue[head++ % SLOTS].stamp = now();
        LeaveCriticalSection(&lock);
        SetEvent(have_item);
        if (i % 16 == 15) Sleep(0);                          /* bursts, as an audio callback would */
    }
    return 0;
}

static int cmp(const void *a, const void *b)
{
    LONGLONG x = *(const LONGLONG *)a, y = *(const LONGLONG *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    static LONGLONG waited[ITEMS];
    LARGE_INTEGER f;
    QueryPerformanceFrequency(&f);
    freq = f.QuadPart;
    SetPriorityClass(GetCurrentProcess(), REALTIME_PRIORITY_CLASS);
    InitializeCriticalSection(&lock);
    have_item = CreateEventW(NULL, FALSE, FALSE, NULL);
    have_room = CreateEventW(NULL, FALSE, FALSE, NULL);
    if (!have_item || !have_room) return 1;
    HANDLE t = CreateThread(NULL, 0, producer, NULL, 0, NULL);
    if (!t) return 1;
    for (int got = 0; got < ITEMS;) {
        EnterCriticalSection(&lock);
        int n = 0;
        while (tail != head) {
            if (queue[tail % SLOTS].seq != got + n) {
                LeaveCriticalSection(&lock);
                printf("item %d arrived as %d\n", queue[tail % SLOTS].seq, got + n);
                return 2;
            }
            waited[got + n++] = now() - queue[tail++ % SLOTS].stamp;
        }
        LeaveCriticalSection(&lock);
        if (n) {
            got += n;
            SetEvent(have_room);
        } else {
            WaitForSingleObject(have_item, INFINITE);
        }
    }
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    qsort(waited, ITEMS, sizeof(waited[0]), cmp);
    printf("%s class: %d items in order, waited p50 %.1f us, p99 %.1f us, max %.1f us\n",
           GetPriorityClass(GetCurrentProcess()) == REALTIME_PRIORITY_CLASS ? "REALTIME" : "another",
           ITEMS, waited[ITEMS / 2] * 1e6 / freq,
           waited[ITEMS * 99 / 100] * 1e6 / freq, waited[ITEMS - 1] * 1e6 / freq);
    CloseHandle(have_item);
    CloseHandle(have_room);
    DeleteCriticalSection(&lock);
    return 0;
}
