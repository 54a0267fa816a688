/* MsgWaitForMultipleObjects(Ex): the queue as one more waitable thing. New input wakes
 * (changed bits), input already seen does not unless MWMO_INPUTAVAILABLE; the QS_ mask
 * selects the kinds; objects come first (lowest index); a sleeping waiter is woken by
 * a post from another thread and by SetEvent; MWMO_WAITALL needs the objects and input
 * together and takes them in one step; MWMO_ALERTABLE runs APCs (WAIT_IO_COMPLETION);
 * a thread timer wakes a QS_TIMER wait; bad arguments fail. */
#include <windows.h>
#include "nspa_test.h"
#include "win32_testutil.h"

static void drain(void)
{
    MSG m;
    while (PeekMessageA(&m, NULL, 0, 0, PM_REMOVE)) {}
}

static void test_local(void)
{
    MSG m;
    DWORD me = GetCurrentThreadId();
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    drain();
    CHECK_EQ(MsgWaitForMultipleObjects(1, &ev, FALSE, 0, QS_ALLINPUT), WAIT_TIMEOUT);
    CHECK_EQ(MsgWaitForMultipleObjects(0, NULL, FALSE, 20, QS_ALLINPUT), WAIT_TIMEOUT);
    /* a new posted message */
    CHECK(PostThreadMessageA(me, WM_USER, 0, 0));
    CHECK_EQ(MsgWaitForMultipleObjects(1, &ev, FALSE, 0, QS_ALLINPUT), WAIT_OBJECT_0 + 1);
    CHECK_EQ(MsgWaitForMultipleObjects(0, NULL, FALSE, 0, QS_POSTMESSAGE), WAIT_OBJECT_0);
    /* not in the mask */
    CHECK_EQ(MsgWaitForMultipleObjects(1, &ev, FALSE, 0, QS_TIMER | QS_SENDMESSAGE), WAIT_TIMEOUT);
    /* seen (a peek clears the changed bits): no longer new */
    CHECK(PeekMessageA(&m, NULL, 0, 0, PM_NOREMOVE));
    CHECK_EQ(MsgWaitForMultipleObjects(1, &ev, FALSE, 20, QS_ALLINPUT), WAIT_TIMEOUT);
    /* ... but available */
    CHECK_EQ(MsgWaitForMultipleObjectsEx(1, &ev, 0, QS_ALLINPUT, MWMO_INPUTAVAILABLE), WAIT_OBJECT_0 + 1);
    CHECK_EQ(MsgWaitForMultipleObjectsEx(0, NULL, 0, QS_POSTMESSAGE, MWMO_INPUTAVAILABLE), WAIT_OBJECT_0);
    /* an object and input: the object's index */
    SetEvent(ev);
    CHECK_EQ(MsgWaitForMultipleObjectsEx(1, &ev, 0, QS_ALLINPUT, MWMO_INPUTAVAILABLE), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(ev, 0), WAIT_TIMEOUT);       /* the auto-reset event was taken */
    drain();
    /* MWMO_WAITALL: an object alone, input alone: not enough */
    SetEvent(ev);
    CHECK_EQ(MsgWaitForMultipleObjectsEx(1, &ev, 20, QS_ALLINPUT, MWMO_WAITALL), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(ev, 0), WAIT_OBJECT_0);        /* left untouched */
    CHECK(PostThreadMessageA(me, WM_USER, 0, 0));
    CHECK_EQ(MsgWaitForMultipleObjectsEx(1, &ev, 20, QS_ALLINPUT, MWMO_WAITALL), WAIT_TIMEOUT);
    SetEvent(ev);
    CHECK_EQ(MsgWaitForMultipleObjectsEx(1, &ev, 20, QS_ALLINPUT, MWMO_WAITALL), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(ev, 0), WAIT_TIMEOUT);         /* taken with the input */
    drain();
    CloseHandle(ev);
}

static volatile LONG apc_ran;
static void CALLBACK apc(ULONG_PTR p) { InterlockedIncrement(&apc_ran); }

static void test_alertable(void)
{
    drain();
    CHECK(QueueUserAPC(apc, GetCurrentThread(), 0));
    CHECK_EQ(MsgWaitForMultipleObjectsEx(0, NULL, 20, QS_ALLINPUT, 0), WAIT_TIMEOUT);
    CHECK_EQ(apc_ran, 0);
    CHECK_EQ(MsgWaitForMultipleObjectsEx(0, NULL, 1000, QS_ALLINPUT, MWMO_ALERTABLE), WAIT_IO_COMPLETION);
    CHECK_EQ(apc_ran, 1);
    CHECK_EQ(MsgWaitForMultipleObjectsEx(0, NULL, 20, QS_ALLINPUT, MWMO_ALERTABLE), WAIT_TIMEOUT);
}

static void test_timer(void)
{
    drain();
    UINT_PTR id = SetTimer(NULL, 0, 30, NULL);
    CHECK(id != 0);
    DWORD t0 = GetTickCount();
    CHECK_EQ(MsgWaitForMultipleObjects(0, NULL, FALSE, 2000, QS_TIMER), WAIT_OBJECT_0);
    DWORD el = GetTickCount() - t0;
    CHECK(el >= 20 && el < 1500);
    MSG m;
    CHECK(PeekMessageA(&m, NULL, 0, 0, PM_REMOVE));
    CHECK_EQ(m.message, WM_TIMER);
    CHECK_EQ(m.wParam, id);
    CHECK(KillTimer(NULL, id));
    CHECK_EQ(MsgWaitForMultipleObjects(0, NULL, FALSE, 60, QS_TIMER), WAIT_TIMEOUT);
}

/* another thread wakes a sleeping MsgWait */
static HANDLE ev2;
static volatile DWORD waiter_tid;
static volatile int mode;

static DWORD WINAPI waker(LPVOID p)
{
    if (!w32t_wait_blocked(waiter_tid)) return 1;
    if (mode == 0) PostThreadMessageA(waiter_tid, WM_USER + 9, 0, 0);
    else SetEvent(ev2);
    return 0;
}

static void test_woken(void)
{
    drain();
    waiter_tid = GetCurrentThreadId();
    ev2 = CreateEventA(NULL, FALSE, FALSE, NULL);
    for (mode = 0; mode < 2; mode++) {
        HANDLE t = CreateThread(NULL, 0, waker, NULL, 0, NULL);
        DWORD r = MsgWaitForMultipleObjects(1, &ev2, FALSE, 10000, QS_POSTMESSAGE);
        CHECK_EQ(r, mode == 0 ? WAIT_OBJECT_0 + 1 : WAIT_OBJECT_0);
        WaitForSingleObject(t, INFINITE);
        CloseHandle(t);
        drain();
    }
    CloseHandle(ev2);
}

static void test_bad(void)
{
    HANDLE hs[64];
    for (int i = 0; i < 64; i++) hs[i] = CreateEventA(NULL, TRUE, FALSE, NULL);
    SetLastError(0);
    CHECK_EQ(MsgWaitForMultipleObjects(64, hs, FALSE, 0, QS_ALLINPUT), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK_EQ(MsgWaitForMultipleObjects(63, hs, FALSE, 0, QS_ALLINPUT), WAIT_TIMEOUT);
    SetLastError(0);
    CHECK_EQ(MsgWaitForMultipleObjectsEx(1, hs, 0, QS_ALLINPUT, 0x100), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    HANDLE bad = (HANDLE)(ULONG_PTR)0x12340;
    SetLastError(0);
    CHECK_EQ(MsgWaitForMultipleObjects(1, &bad, FALSE, 0, QS_ALLINPUT), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    for (int i = 0; i < 64; i++) CloseHandle(hs[i]);
}

int main(void)
{
    test_local();
    test_alertable();
    test_timer();
    test_woken();
    test_bad();
    return nspa_test_done();
}
