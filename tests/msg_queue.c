/* Thread message queues: a queue on the first message call, PostThreadMessage between
 * threads, PeekMessage (PM_REMOVE/PM_NOREMOVE, range and window filters, FIFO), the
 * order WM_QUIT after posted messages, GetQueueStatus's bits, GetMessageTime, the
 * 10,000-message limit (ERROR_NOT_ENOUGH_QUOTA, the queue still usable), and
 * ERROR_INVALID_THREAD_ID for a thread without a queue or a garbage id. */
#include <windows.h>
#include "nspa_test.h"
#include "win32_testutil.h"
#include <sys/wait.h>
#include <unistd.h>

static HANDLE ready, go;
static volatile DWORD worker_tid;

static DWORD WINAPI no_queue_thread(LPVOID p)
{
    worker_tid = GetCurrentThreadId();
    SetEvent(ready);
    WaitForSingleObject(go, INFINITE);
    return 0;
}

static void test_no_queue(void)
{
    ready = CreateEventA(NULL, FALSE, FALSE, NULL);
    go = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE t = CreateThread(NULL, 0, no_queue_thread, NULL, 0, NULL);
    WaitForSingleObject(ready, INFINITE);
    /* a live thread that never made a message call has no queue */
    SetLastError(0);
    CHECK(!PostThreadMessageA(worker_tid, WM_USER, 0, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_THREAD_ID);
    SetLastError(0);
    CHECK(!PostThreadMessageW(0, WM_USER, 0, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_THREAD_ID);
    SetLastError(0);
    CHECK(!PostThreadMessageW(0x7ffffff0, WM_USER, 0, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_THREAD_ID);
    SetEvent(go);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    /* an ended thread: no queue either */
    CHECK(!PostThreadMessageA(worker_tid, WM_USER, 0, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_THREAD_ID);
}

static void test_order_and_filters(void)
{
    MSG m;
    DWORD me = GetCurrentThreadId();
    /* the first message call makes the queue: now posting to us works */
    CHECK(!PeekMessageA(&m, NULL, 0, 0, PM_NOREMOVE));
    CHECK(PostThreadMessageA(me, WM_USER + 1, 1, 10));
    CHECK(PostThreadMessageA(me, WM_USER + 2, 2, 20));
    CHECK(PostThreadMessageA(me, WM_USER + 3, 3, 30));
    CHECK(PostMessageA(NULL, WM_APP, 4, 40));    /* hwnd NULL: to the own thread */
    /* PM_NOREMOVE leaves it */
    CHECK(PeekMessageA(&m, NULL, 0, 0, PM_NOREMOVE));
    CHECK_EQ(m.message, WM_USER + 1);
    CHECK(PeekMessageA(&m, NULL, 0, 0, PM_NOREMOVE | PM_NOYIELD));
    CHECK_EQ(m.message, WM_USER + 1);
    /* a range takes the first in range, FIFO among those */
    CHECK(PeekMessageA(&m, NULL, WM_USER + 2, WM_USER + 3, PM_REMOVE));
    CHECK_EQ(m.message, WM_USER + 2);
    CHECK_EQ(m.wParam, 2);
    CHECK_EQ(m.lParam, 20);
    CHECK(m.hwnd == NULL);
    CHECK(!PeekMessageA(&m, NULL, WM_USER + 10, WM_USER + 20, PM_REMOVE));
    /* (HWND)-1: thread messages only */
    CHECK(PeekMessageA(&m, (HWND)(LONG_PTR)-1, 0, 0, PM_REMOVE));
    CHECK_EQ(m.message, WM_USER + 1);
    /* WM_QUIT comes after the posted messages */
    PostQuitMessage(7);
    CHECK(GetMessageA(&m, NULL, 0, 0) == TRUE);
    CHECK_EQ(m.message, WM_USER + 3);
    CHECK(GetMessageW(&m, NULL, 0, 0) == TRUE);
    CHECK_EQ(m.message, WM_APP);
    CHECK_EQ(m.lParam, 40);
    CHECK(GetMessageA(&m, NULL, 0, 0) == FALSE);
    CHECK_EQ(m.message, WM_QUIT);
    CHECK_EQ(m.wParam, 7);
    CHECK(!PeekMessageA(&m, NULL, 0, 0, PM_REMOVE));
    /* GetMessageTime: the time of the last message retrieved (GetTickCount ms) */
    CHECK(PostThreadMessageA(me, WM_USER, 0, 0));
    DWORD before = GetTickCount();
    CHECK(PeekMessageA(&m, NULL, 0, 0, PM_REMOVE));
    CHECK((LONG)(GetMessageTime() - (LONG)m.time) == 0);
    CHECK((LONG)(before - m.time) >= -20 && (LONG)(before - m.time) < 1000);
}

static void test_queue_status(void)
{
    MSG m;
    DWORD me = GetCurrentThreadId();
    while (PeekMessageA(&m, NULL, 0, 0, PM_REMOVE)) {}
    CHECK_EQ(GetQueueStatus(QS_ALLINPUT), 0);
    CHECK(PostThreadMessageA(me, WM_USER, 0, 0));
    /* high word: in the queue; low word: new since last looked */
    CHECK_EQ(GetQueueStatus(QS_POSTMESSAGE), MAKELONG(QS_POSTMESSAGE, QS_POSTMESSAGE));
    CHECK_EQ(GetQueueStatus(QS_POSTMESSAGE), MAKELONG(0, QS_POSTMESSAGE));
    CHECK_EQ(GetQueueStatus(QS_ALLPOSTMESSAGE), MAKELONG(QS_ALLPOSTMESSAGE, QS_ALLPOSTMESSAGE));
    CHECK_EQ(GetQueueStatus(QS_TIMER), 0);
    CHECK(PeekMessageA(&m, NULL, 0, 0, PM_REMOVE));
    CHECK_EQ(GetQueueStatus(QS_ALLINPUT | QS_ALLPOSTMESSAGE), 0);
    SetLastError(0);
    CHECK_EQ(GetQueueStatus(0x80000000u), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_FLAGS);
}

static void test_limit(void)
{
    MSG m;
    DWORD me = GetCurrentThreadId();
    int n = 0;
    while (n < 20000 && PostThreadMessageA(me, WM_USER, (WPARAM)n, 0)) n++;
    CHECK_EQ(n, 10000);
    CHECK_EQ(GetLastError(), ERROR_NOT_ENOUGH_QUOTA);
    /* the queue is intact: every message, in order */
    int k = 0, order_ok = 1;
    while (PeekMessageA(&m, NULL, 0, 0, PM_REMOVE)) {
        if (m.wParam != (WPARAM)k) order_ok = 0;
        k++;
    }
    CHECK_EQ(k, 10000);
    CHECK(order_ok);
    CHECK(PostThreadMessageA(me, WM_USER, 0, 0));
    CHECK(PeekMessageA(&m, NULL, 0, 0, PM_REMOVE));
}

/* ping-pong between two threads with GetMessage */
#define ROUNDS 2000
static volatile DWORD main_tid;

static DWORD WINAPI echo_thread(LPVOID p)
{
    MSG m;
    PeekMessageA(&m, NULL, 0, 0, PM_NOREMOVE);
    SetEvent(ready);
    while (GetMessageA(&m, NULL, 0, 0) > 0)
        if (!PostThreadMessageA(main_tid, m.message, m.wParam + 1, 0)) return 1;
    return m.wParam == 99 ? 0 : 2;
}

static void test_ping_pong(void)
{
    MSG m;
    main_tid = GetCurrentThreadId();
    DWORD tid;
    HANDLE t = CreateThread(NULL, 0, echo_thread, NULL, 0, &tid);
    WaitForSingleObject(ready, INFINITE);
    int ok = 1;
    for (int i = 0; i < ROUNDS; i++) {
        if (!PostThreadMessageA(tid, WM_USER + 5, (WPARAM)i, 0)) { ok = 0; break; }
        if (GetMessageA(&m, NULL, 0, 0) != TRUE || m.message != WM_USER + 5 || m.wParam != (WPARAM)i + 1) {
            ok = 0;
            break;
        }
    }
    CHECK(ok);
    CHECK(PostThreadMessageA(tid, WM_QUIT, 99, 0));   /* a posted WM_QUIT ends GetMessage too */
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    DWORD code = 5;
    GetExitCodeThread(t, &code);
    CHECK_EQ(code, 0);
    CloseHandle(t);
}

/* a fork child has a queue of its own (made on its first message call); the parent's
 * thread ids have no queue in it */
static void test_fork(void)
{
    MSG m;
    DWORD parent = GetCurrentThreadId();
    CHECK(PostThreadMessageA(parent, WM_USER, 1, 0));   /* left in the parent's queue */
    pid_t pid = fork();
    if (pid == 0) {
        int bad = 0;
        if (PeekMessageA(&m, NULL, 0, 0, PM_REMOVE)) bad |= 1;          /* not the parent's */
        if (PostThreadMessageA(parent, WM_USER, 0, 0) || GetLastError() != ERROR_INVALID_THREAD_ID) bad |= 2;
        if (!PostThreadMessageA(GetCurrentThreadId(), WM_USER + 2, 0, 0)) bad |= 4;
        if (GetMessageA(&m, NULL, 0, 0) != TRUE || m.message != WM_USER + 2) bad |= 8;
        _exit(bad);
    }
    int st = -1;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st));
    CHECK_EQ(WEXITSTATUS(st), 0);
    CHECK(PeekMessageA(&m, NULL, 0, 0, PM_REMOVE) && m.message == WM_USER && m.wParam == 1);
}

int main(void)
{
    test_no_queue();
    test_order_and_filters();
    test_queue_status();
    test_limit();
    test_ping_pong();
    test_fork();
    return nspa_test_done();
}
