/* CRITICAL_SECTION semantics, in plain and PI (RT) mode: initial fields (as Windows 7+:
 * DebugInfo -1, no owner, default spin count 0x20007D0), recursion, the owner visible
 * for debugging, TryEnter from another thread, InitializeCriticalSectionEx argument
 * checks, SetCriticalSectionSpinCount, Delete and re-init, the nspa_cs_* twins. */
#include <windows.h>
#include "nspa/locks.h"
#include "locks_util.h"
#include "nspa_test.h"

static CRITICAL_SECTION cs;

static void *try_other(void *arg)
{
    *(int *)arg = TryEnterCriticalSection(&cs);
    if (*(int *)arg)
        LeaveCriticalSection(&cs);
    return NULL;
}

static int try_from_other_thread(void)
{
    int r = -1;
    pthread_t t;
    pthread_create(&t, NULL, try_other, &r);
    pthread_join(t, NULL);
    return r;
}

int main(int argc, char **argv)
{
    const char *mode = lu_modes(argc, argv);
    int pi = !strcmp(mode, "pi");
    CHECK_EQ(nspa_pi_enabled(), pi);
    DWORD self = (DWORD)lu_gettid();

    InitializeCriticalSection(&cs);
    CHECK(cs.DebugInfo == (PRTL_CRITICAL_SECTION_DEBUG)(LONG_PTR)-1);
    CHECK_EQ(cs.RecursionCount, 0);
    CHECK(cs.OwningThread == NULL);
    CHECK_EQ(cs.SpinCount, sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 0x20007D0 : 0);

    EnterCriticalSection(&cs);
    CHECK_EQ(cs.RecursionCount, 1);
    CHECK_EQ((DWORD)(ULONG_PTR)cs.OwningThread, self);
    CHECK_EQ(nspa_cs_owner((nspa_cs_t *)&cs), self);
    EnterCriticalSection(&cs);
    CHECK_EQ(cs.RecursionCount, 2);
    CHECK(TryEnterCriticalSection(&cs));
    CHECK_EQ(cs.RecursionCount, 3);
    CHECK_EQ(try_from_other_thread(), 0);      /* owned by us */
    LeaveCriticalSection(&cs);
    LeaveCriticalSection(&cs);
    CHECK_EQ(cs.RecursionCount, 1);
    CHECK_EQ((DWORD)(ULONG_PTR)cs.OwningThread, self);
    CHECK_EQ(try_from_other_thread(), 0);
    LeaveCriticalSection(&cs);
    CHECK_EQ(cs.RecursionCount, 0);
    CHECK(cs.OwningThread == NULL);
    CHECK_EQ(try_from_other_thread(), 1);      /* free now */
    CHECK(TryEnterCriticalSection(&cs));
    CHECK_EQ(cs.RecursionCount, 1);
    LeaveCriticalSection(&cs);

    /* spin counts */
    CHECK_EQ(SetCriticalSectionSpinCount(&cs, 100), sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 0x20007D0 : 0);
    CHECK_EQ(cs.SpinCount, 100);
    CHECK_EQ(SetCriticalSectionSpinCount(&cs, 7), 100);
    DeleteCriticalSection(&cs);
    CHECK(cs.DebugInfo == NULL);   /* Wine's test_crit_section: NULL after Delete */

    CHECK(InitializeCriticalSectionAndSpinCount(&cs, 0x1234));
    CHECK_EQ(cs.SpinCount, 0x1234);
    DeleteCriticalSection(&cs);
    CHECK(InitializeCriticalSectionAndSpinCount(&cs, 0xFF000000)); /* flag bits: default */
    CHECK_EQ(cs.SpinCount, 0x20007D0);
    DeleteCriticalSection(&cs);

    CHECK(InitializeCriticalSectionEx(&cs, 0x00FFFFFF, 0));
    CHECK_EQ(cs.SpinCount, 0x00FFFFFF);
    DeleteCriticalSection(&cs);
    CHECK(InitializeCriticalSectionEx(&cs, 0, CRITICAL_SECTION_NO_DEBUG_INFO));
    CHECK_EQ(cs.SpinCount, 0x20007D0);
    EnterCriticalSection(&cs);
    CHECK_EQ(cs.RecursionCount, 1);
    LeaveCriticalSection(&cs);
    DeleteCriticalSection(&cs);
    CHECK(InitializeCriticalSectionEx(&cs, 0, RTL_CRITICAL_SECTION_FLAG_RESOURCE_TYPE));
    CHECK_EQ(cs.SpinCount, 0x20007D0 | RTL_CRITICAL_SECTION_FLAG_RESOURCE_TYPE);
    DeleteCriticalSection(&cs);

    SetLastError(0);
    CHECK(!InitializeCriticalSectionEx(&cs, 0x01000000, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0);
    CHECK(!InitializeCriticalSectionEx(&cs, 0x80000000, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0);
    CHECK(!InitializeCriticalSectionEx(&cs, 0, 0x20000000));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!InitializeCriticalSectionEx(&cs, 0, 0xFFFFFFFF));
    for (int bit = 0; bit < 29; bit++) {
        CHECK(InitializeCriticalSectionEx(&cs, 0, 1u << bit));
        DeleteCriticalSection(&cs);
    }

    /* the native twins on the same object */
    nspa_cs_t n;
    CHECK_EQ(nspa_cs_init(&n, 0, 0), 0);
    CHECK_EQ(nspa_cs_init(&n, 0x01000000, 0), -EINVAL);
    CHECK_EQ(nspa_cs_init(&n, 10, 0), 0);
    nspa_cs_enter(&n);
    EnterCriticalSection((LPCRITICAL_SECTION)&n);
    CHECK_EQ(n.recursion, 2);
    CHECK(nspa_cs_try_enter(&n));
    nspa_cs_leave(&n);
    LeaveCriticalSection((LPCRITICAL_SECTION)&n);
    nspa_cs_leave(&n);
    CHECK_EQ(nspa_cs_owner(&n), 0);
    CHECK_EQ(nspa_cs_set_spin(&n, 5), 10);
    nspa_cs_delete(&n);

    /* many sections at once (the requeue-PI registry hands out and takes back ids) */
    static CRITICAL_SECTION many[1000];
    for (int r = 0; r < 3; r++) {
        for (int i = 0; i < 1000; i++)
            InitializeCriticalSection(&many[i]);
        for (int i = 0; i < 1000; i++) {
            EnterCriticalSection(&many[i]);
            LeaveCriticalSection(&many[i]);
            DeleteCriticalSection(&many[i]);
        }
    }
    printf("mode %s\n", mode);
    return nspa_test_done();
}
