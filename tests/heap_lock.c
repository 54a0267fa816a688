/* HeapLock/HeapUnlock: another thread's HeapAlloc/HeapFree wait for the unlock; the lock
 * is recursive; unlocking a heap one does not hold fails with ERROR_NOT_LOCKED; a fork
 * child of the holder holds the lock too and can use, unlock and lock the heap. */
#include <windows.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdatomic.h>
#include <sched.h>
#include "nspa_test.h"

static HANDLE h;
static atomic_int started, done, unlocked, order_ok;

static void *worker(void *arg)
{
    void *p = arg;
    atomic_store(&started, 1);
    void *q = HeapAlloc(h, 0, 64);            /* blocks while main holds the lock */
    HeapFree(h, 0, p);
    /* it could only get here after the unlock */
    atomic_store(&order_ok, atomic_load(&unlocked) == 1 && q != NULL);
    HeapFree(h, 0, q);
    atomic_store(&done, 1);
    return NULL;
}

static atomic_int not_owner_ok;
static void *not_owner(void *arg)
{
    (void)arg;
    SetLastError(0);
    atomic_store(&not_owner_ok, !HeapUnlock(h) && GetLastError() == ERROR_NOT_LOCKED);
    return NULL;
}

int main(void)
{
    h = HeapCreate(0, 0, 0);
    REQUIRE(h);
    void *p = HeapAlloc(h, 0, 100);
    CHECK(HeapLock(h));
    CHECK(HeapLock(h));                        /* recursive */
    void *mine = HeapAlloc(h, 0, 32);          /* the holder keeps using the heap */
    CHECK(mine != NULL);
    pthread_t t, t2;
    pthread_create(&t, NULL, worker, p);
    while (!atomic_load(&started))
        sched_yield();
    for (int i = 0; i < 2000; i++)
        sched_yield();
    CHECK(!atomic_load(&done));
    pthread_create(&t2, NULL, not_owner, NULL);
    pthread_join(t2, NULL);
    CHECK(atomic_load(&not_owner_ok));
    CHECK(HeapUnlock(h));
    CHECK(!atomic_load(&done));                /* still held once */
    atomic_store(&unlocked, 1);
    CHECK(HeapUnlock(h));
    pthread_join(t, NULL);
    CHECK(atomic_load(&done));
    CHECK(atomic_load(&order_ok));
    SetLastError(0);
    CHECK(!HeapUnlock(h));
    CHECK_EQ(GetLastError(), ERROR_NOT_LOCKED);
    CHECK(HeapFree(h, 0, mine));
    CHECK(HeapValidate(h, 0, NULL));
    /* fork while holding the lock (twice: recursion survives too) */
    CHECK(HeapLock(h));
    CHECK(HeapLock(h));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int ok = 1;
        void *q = HeapAlloc(h, 0, 48);
        ok &= q != NULL;
        ok &= HeapFree(h, 0, q);
        ok &= HeapValidate(h, 0, NULL);
        ok &= HeapUnlock(h) && HeapUnlock(h);
        ok &= HeapLock(h) && HeapUnlock(h);
        ok &= !HeapUnlock(h);
        q = HeapAlloc(h, 0, 48);
        ok &= q != NULL && HeapFree(h, 0, q);
        _exit(ok ? 0 : 1);
    }
    int st = -1;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(HeapUnlock(h));
    CHECK(HeapUnlock(h));
    CHECK(HeapDestroy(h));
    /* the process heap locks too */
    CHECK(HeapLock(GetProcessHeap()));
    CHECK(HeapUnlock(GetProcessHeap()));
    return nspa_test_done();
}
