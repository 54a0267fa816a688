/* SendMessage across threads: the caller blocks while the owner processes it in its
 * GetMessage; InSendMessage(Ex) inside; ReplyMessage answers early; re-entrancy (the
 * owner sends back to the caller's window while the caller waits: processed inside the
 * caller's SendMessage); SendMessageTimeout times out both while the message is queued
 * (it is withdrawn: never processed) and while it is being processed (the late answer is
 * dropped); SendNotifyMessage does not wait; MsgWaitForMultipleObjects with
 * QS_SENDMESSAGE wakes for a sent message; a receiver thread that ends without
 * answering (in a wait, or by ExitThread inside the procedure) makes SendMessage
 * return 0 with no hang. */
#include <windows.h>
#include "nspa_test.h"
#include "win32_testutil.h"

static HWND worker_hwnd, main_hwnd;
static HANDLE ready, gate, worker;
static DWORD worker_tid, main_tid;
static volatile LONG processed6, processed7, notified;
static volatile DWORD in_send_flags;
static volatile int worker_mode;      /* 0: GetMessage loop, 1: blocked on gate then exit, 2: MsgWait */

static LRESULT CALLBACK worker_proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    switch (m) {
    case WM_USER + 1:
        in_send_flags = InSendMessageEx(NULL);
        return InSendMessage() ? (LRESULT)wp * 2 : -1;
    case WM_USER + 2:
        if (!InSendMessage()) return -1;
        ReplyMessage(77);
        in_send_flags = InSendMessageEx(NULL) | (InSendMessage() ? 0x100 : 0);   /* FALSE once replied */
        SetEvent(ready);
        WaitForSingleObject(gate, 10000);             /* main got 77 before this */
        return 88;
    case WM_USER + 4:
        return SendMessageW(main_hwnd, WM_USER + 5, wp, 0) + 1;   /* back to the waiting caller */
    case WM_USER + 6:
        InterlockedIncrement(&processed6);
        Sleep(200);
        return 6;
    case WM_USER + 7:
        InterlockedIncrement(&processed7);
        return 7;
    case WM_USER + 8:
        in_send_flags = InSendMessageEx(NULL);
        InterlockedIncrement(&notified);
        return 0;
    case WM_USER + 9:
        ExitThread(3);                                /* dies while processing a send */
    }
    return DefWindowProcW(h, m, wp, lp);
}

static LRESULT CALLBACK main_proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    if (m == WM_USER + 5) return GetCurrentThreadId() == main_tid ? (LRESULT)wp + 100 : -1;
    return DefWindowProcW(h, m, wp, lp);
}

static DWORD WINAPI worker_fn(LPVOID p)
{
    worker_hwnd = CreateWindowExW(0, u"nspa-test-send", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL);
    SetEvent(ready);
    MSG m;
    if (worker_mode == 1) {
        WaitForSingleObject(gate, INFINITE);          /* never pumps: ends with sends queued */
        return 0;
    }
    if (worker_mode == 2) {
        DWORD r = MsgWaitForMultipleObjects(0, NULL, FALSE, 10000, QS_SENDMESSAGE);
        if (r != WAIT_OBJECT_0) return 1;
        PeekMessageW(&m, NULL, 0, 0, PM_NOREMOVE);    /* processes the sent message */
        return 0;
    }
    if (worker_mode == 3) {
        WaitForSingleObject(gate, INFINITE);          /* busy, then pumps */
        while (PeekMessageW(&m, NULL, 0, 0, PM_REMOVE)) DispatchMessageW(&m);
        return 0;
    }
    while (GetMessageW(&m, NULL, 0, 0) > 0) DispatchMessageW(&m);
    return 0;
}

static void start_worker(int mode)
{
    worker_mode = mode;
    worker = CreateThread(NULL, 0, worker_fn, NULL, 0, &worker_tid);
    WaitForSingleObject(ready, INFINITE);
}

static DWORD stop_worker(void)
{
    PostThreadMessageW(worker_tid, WM_QUIT, 0, 0);
    WaitForSingleObject(worker, 10000);
    DWORD code = 99;
    GetExitCodeThread(worker, &code);
    CloseHandle(worker);
    return code;
}

static void test_basic(void)
{
    start_worker(0);
    CHECK(!InSendMessage());
    CHECK_EQ(InSendMessageEx(NULL), ISMEX_NOSEND);
    CHECK_EQ(SendMessageW(worker_hwnd, WM_USER + 1, 21, 0), 42);
    CHECK_EQ(in_send_flags, ISMEX_SEND);
    /* ReplyMessage: the answer arrives while the procedure still runs */
    CHECK_EQ(SendMessageA(worker_hwnd, WM_USER + 2, 0, 0), 77);
    WaitForSingleObject(ready, 10000);
    CHECK_EQ(in_send_flags, ISMEX_SEND | ISMEX_REPLIED);
    SetEvent(gate);
    /* re-entrancy: the worker sends to our window while we wait for it */
    CHECK_EQ(SendMessageW(worker_hwnd, WM_USER + 4, 5, 0), 106);
    /* timed out while processing: the late answer is dropped */
    DWORD_PTR res = 123;
    SetLastError(0);
    CHECK_EQ(SendMessageTimeoutW(worker_hwnd, WM_USER + 6, 0, 0, SMTO_NORMAL, 30, &res), 0);
    CHECK_EQ(GetLastError(), ERROR_TIMEOUT);
    CHECK_EQ(res, 123);
    CHECK(SendMessageTimeoutW(worker_hwnd, WM_USER + 7, 0, 0, SMTO_BLOCK, 5000, &res));
    CHECK_EQ(res, 7);
    CHECK_EQ(processed6, 1);
    /* notification: no wait */
    CHECK(SendNotifyMessageW(worker_hwnd, WM_USER + 8, 0, 0));
    for (int i = 0; i < 500 && !InterlockedCompareExchange(&notified, 0, 0); i++) Sleep(2);
    CHECK_EQ(notified, 1);
    CHECK_EQ(in_send_flags, ISMEX_NOTIFY);
    /* bad handles */
    SetLastError(0);
    CHECK_EQ(SendMessageW((HWND)(ULONG_PTR)0x55550001, WM_USER, 0, 0), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_WINDOW_HANDLE);
    SetLastError(0);
    CHECK_EQ(SendMessageTimeoutW((HWND)(ULONG_PTR)0x55550001, WM_USER, 0, 0, 0, 10, &res), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_WINDOW_HANDLE);
    CHECK_EQ(stop_worker(), 0);
    /* the worker's windows went with it */
    CHECK(!IsWindow(worker_hwnd));
}

static void test_withdrawn(void)
{
    start_worker(3);
    DWORD_PTR res = 0;
    SetLastError(0);
    CHECK_EQ(SendMessageTimeoutW(worker_hwnd, WM_USER + 7, 0, 0, SMTO_NORMAL, 30, &res), 0);
    CHECK_EQ(GetLastError(), ERROR_TIMEOUT);
    SetEvent(gate);
    CHECK_EQ(WaitForSingleObject(worker, 10000), WAIT_OBJECT_0);
    CloseHandle(worker);
    CHECK_EQ(processed7, 1);       /* only the earlier one: the withdrawn one never ran */
}

static void test_msgwait_send(void)
{
    start_worker(2);
    CHECK(w32t_wait_blocked(worker_tid));
    CHECK_EQ(SendMessageW(worker_hwnd, WM_USER + 1, 4, 0), 8);
    CHECK_EQ(WaitForSingleObject(worker, 10000), WAIT_OBJECT_0);
    DWORD code = 9;
    GetExitCodeThread(worker, &code);
    CHECK_EQ(code, 0);
    CloseHandle(worker);
}

/* a sender blocked while its receiver ends */
static volatile LRESULT sender_result = -5;
static volatile UINT sender_msg;
static DWORD WINAPI sender_fn(LPVOID p)
{
    sender_result = SendMessageW(worker_hwnd, sender_msg, 0, 0);
    return 0;
}

static void test_receiver_dies(void)
{
    for (int k = 0; k < 2; k++) {
        start_worker(k == 0 ? 1 : 0);
        sender_msg = k == 0 ? WM_USER + 1 : WM_USER + 9;
        sender_result = -5;
        DWORD stid;
        HANDLE s = CreateThread(NULL, 0, sender_fn, NULL, 0, &stid);
        if (k == 0) CHECK(w32t_wait_blocked(stid));
        if (k == 0) SetEvent(gate);                   /* the receiver ends without pumping */
        CHECK_EQ(WaitForSingleObject(worker, 10000), WAIT_OBJECT_0);
        CHECK_EQ(WaitForSingleObject(s, 10000), WAIT_OBJECT_0);
        CHECK_EQ(sender_result, 0);
        CloseHandle(s);
        CloseHandle(worker);
    }
}

int main(void)
{
    main_tid = GetCurrentThreadId();
    ready = CreateEventA(NULL, FALSE, FALSE, NULL);
    gate = CreateEventA(NULL, FALSE, FALSE, NULL);
    WNDCLASSW wc = { 0 };
    wc.lpfnWndProc = worker_proc;
    wc.lpszClassName = u"nspa-test-send";
    CHECK(RegisterClassW(&wc));
    wc.lpfnWndProc = main_proc;
    wc.lpszClassName = u"nspa-test-send-main";
    CHECK(RegisterClassW(&wc));
    main_hwnd = CreateWindowExW(0, u"nspa-test-send-main", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL);
    CHECK(main_hwnd != NULL);
    test_basic();
    test_withdrawn();
    test_msgwait_send();
    test_receiver_dies();
    return nspa_test_done();
}
