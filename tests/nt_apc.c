/* APCs at the NT level and QueueUserAPC2 (Wine's test_QueueUserAPC): NtQueueApcThread
 * with its three arguments, NtTestAlert running the queue, a NULL routine accepted and
 * never run, an ended thread refused (STATUS_UNSUCCESSFUL; QueueUserAPC:
 * ERROR_GEN_FAILURE), a bad handle STATUS_INVALID_HANDLE; QueueUserAPC2 without flags
 * as QueueUserAPC, and the special user APC: run before QueueUserAPC2 returns on the
 * calling thread, and in another thread while that thread sits in a non-alertable wait
 * (which goes on afterwards). */
#include <windows.h>
#include <winternl.h>
#include "win32_testutil.h"
#include "nspa_test.h"

static int apc_count;
static ULONG_PTR seen[3];

static void CALLBACK user_apc(ULONG_PTR unused) { (void)unused; apc_count++; }

static void CALLBACK call_user_apc(ULONG_PTR a1, ULONG_PTR a2, ULONG_PTR a3)
{
    seen[0] = a1;
    seen[1] = a2;
    seen[2] = a3;
    if (a1 == (ULONG_PTR)user_apc) user_apc(a2);
}

static DWORD WINAPI quick(LPVOID p) { (void)p; return 0; }

static void ended_and_bad(void)
{
    HANDLE t = CreateThread(NULL, 0, quick, NULL, 0, NULL);
    CHECK_EQ(WaitForSingleObject(t, 5000), WAIT_OBJECT_0);
    CHECK_EQ(NtQueueApcThread(t, call_user_apc, (ULONG_PTR)user_apc, 0, 0), STATUS_UNSUCCESSFUL);
    CHECK_EQ(NtQueueApcThread(t, NULL, 0, 0, 0), STATUS_UNSUCCESSFUL);
    CHECK_EQ(NtQueueApcThread((HANDLE)0xdeadbee0, call_user_apc, (ULONG_PTR)user_apc, 0, 0), STATUS_INVALID_HANDLE);
    SetLastError(0xdeadbeef);
    CHECK(!QueueUserAPC(user_apc, t, 0));
    CHECK_EQ(GetLastError(), ERROR_GEN_FAILURE);
    CloseHandle(t);
}

static void current_thread(void)
{
    apc_count = 0;
    CHECK(QueueUserAPC(user_apc, GetCurrentThread(), 0));
    CHECK_EQ(apc_count, 0);
    CHECK_EQ(SleepEx(100, TRUE), WAIT_IO_COMPLETION);
    CHECK_EQ(apc_count, 1);
    /* a NULL routine: accepted, nothing runs */
    CHECK_EQ(NtQueueApcThread(GetCurrentThread(), NULL, 0, 0, 0), STATUS_SUCCESS);
    CHECK_EQ(SleepEx(100, TRUE), 0);
    /* NtTestAlert runs the queue */
    apc_count = 0;
    CHECK(QueueUserAPC(user_apc, GetCurrentThread(), 0));
    CHECK_EQ(apc_count, 0);
    CHECK_EQ(NtTestAlert(), STATUS_SUCCESS);
    CHECK_EQ(apc_count, 1);
    CHECK_EQ(NtTestAlert(), STATUS_SUCCESS);
    CHECK_EQ(apc_count, 1);
    /* the three arguments arrive */
    CHECK_EQ(NtQueueApcThread(GetCurrentThread(), call_user_apc, 11, 22, 33), STATUS_SUCCESS);
    CHECK_EQ(NtTestAlert(), STATUS_SUCCESS);
    CHECK_EQ(seen[0], 11);
    CHECK_EQ(seen[1], 22);
    CHECK_EQ(seen[2], 33);
}

static void queue_user_apc2(void)
{
    apc_count = 0;
    CHECK(QueueUserAPC2(user_apc, GetCurrentThread(), 0, QUEUE_USER_APC_FLAGS_NONE));
    CHECK_EQ(apc_count, 0);
    SleepEx(0, TRUE);
    CHECK_EQ(apc_count, 1);
    apc_count = 0;
    CHECK(QueueUserAPC2(user_apc, GetCurrentThread(), 0, QUEUE_USER_APC_FLAGS_SPECIAL_USER_APC));
    CHECK_EQ(apc_count, 1);                 /* already ran */
    SleepEx(0, TRUE);
    CHECK_EQ(apc_count, 1);                 /* and only once */
    SetLastError(0xdeadbeef);
    CHECK(!QueueUserAPC2(user_apc, GetCurrentThread(), 0, 0x100));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
}

/* A special APC reaches a thread blocked in a non-alertable wait; the wait goes on */
static HANDLE gate;
static _Atomic int special_tid, waiter_result = -1;
static DWORD waiter_id;

static void CALLBACK special_apc(ULONG_PTR arg)
{
    (void)arg;
    special_tid = (int)GetCurrentThreadId();
}

static DWORD WINAPI blocked(LPVOID p)
{
    (void)p;
    waiter_result = (int)WaitForSingleObject(gate, 10000);
    return 0;
}

static void special_to_other_thread(void)
{
    gate = CreateEventW(NULL, TRUE, FALSE, NULL);
    HANDLE t = CreateThread(NULL, 0, blocked, NULL, 0, &waiter_id);
    REQUIRE(w32t_wait_blocked(waiter_id));
    special_tid = 0;
    CHECK(QueueUserAPC2(special_apc, t, 0, QUEUE_USER_APC_FLAGS_SPECIAL_USER_APC));
    for (int i = 0; i < 5000 && !special_tid; i++) Sleep(1);
    CHECK_EQ((DWORD)special_tid, waiter_id);     /* ran, in that thread */
    Sleep(20);
    CHECK_EQ(waiter_result, -1);                  /* and its wait goes on */
    SetEvent(gate);
    CHECK_EQ(WaitForSingleObject(t, 5000), WAIT_OBJECT_0);
    CHECK_EQ(waiter_result, WAIT_OBJECT_0);
    CloseHandle(t);
    CloseHandle(gate);
}

int main(void)
{
    ended_and_bad();
    current_thread();
    queue_user_apc2();
    special_to_other_thread();
    return nspa_test_done();
}
