/* Bad input to the message calls: garbage, destroyed and out-of-range HWNDs give
 * ERROR_INVALID_WINDOW_HANDLE everywhere (never a crash); NULL MSG pointers fail;
 * messages that carry pointers cannot be posted (ERROR_MESSAGE_SYNC_ONLY); broadcasts
 * reach no window; a window destroyed inside its own WM_CREATE makes CreateWindowEx
 * return NULL; bad class registrations fail. (The full queue, a thread without a
 * queue and a receiver that dies are in msg_queue and msg_send.) */
#include <windows.h>
#include "nspa_test.h"

static LRESULT CALLBACK selfdestroy(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    if (m == WM_CREATE) DestroyWindow(h);
    return DefWindowProcW(h, m, wp, lp);
}

static void check_bad_hwnd(HWND h)
{
    MSG m;
    DWORD_PTR r = 0;
    CHECK(!IsWindow(h));
#define BAD(call, ret) do { SetLastError(0); CHECK((call) == (ret)); \
        CHECK_EQ(GetLastError(), ERROR_INVALID_WINDOW_HANDLE); } while (0)
    BAD(PostMessageW(h, WM_USER, 0, 0), FALSE);
    BAD(SendMessageW(h, WM_USER, 0, 0), 0);
    BAD(SendMessageTimeoutW(h, WM_USER, 0, 0, 0, 10, &r), 0);
    BAD(SendNotifyMessageW(h, WM_USER, 0, 0), FALSE);
    BAD(GetWindowLongPtrW(h, GWLP_USERDATA), 0);
    BAD(SetWindowLongPtrA(h, GWLP_USERDATA, 1), 0);
    BAD(GetWindowThreadProcessId(h, NULL), 0);
    BAD(DestroyWindow(h), FALSE);
    BAD(SetTimer(h, 1, 10, NULL), 0);
    BAD(KillTimer(h, 1), FALSE);
    BAD(PeekMessageW(&m, h, 0, 0, PM_REMOVE), FALSE);
    BAD(GetMessageW(&m, h, 0, 0), -1);
    BAD(SetWindowTextW(h, u"x"), FALSE);
    MSG d = { h, WM_USER, 0, 0, 0, { 0, 0 } };
    BAD(DispatchMessageW(&d), 0);
#undef BAD
}

int main(void)
{
    WNDCLASSW wc = { 0 };
    wc.lpfnWndProc = DefWindowProcW;
    wc.lpszClassName = u"nspa-test-bad";
    CHECK(RegisterClassW(&wc));
    HWND h = CreateWindowExW(0, u"nspa-test-bad", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL);
    CHECK(h != NULL);
    HWND garbage[] = { (HWND)(ULONG_PTR)1, (HWND)(ULONG_PTR)0xdeadbeef, (HWND)(ULONG_PTR)0x1234567812345678ull,
                       (HWND)(ULONG_PTR)0xFFFF0000u, (HWND)(ULONG_PTR)((ULONG_PTR)h + 0x10000) };
    for (unsigned i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) check_bad_hwnd(garbage[i]);
    CHECK(DestroyWindow(h));
    check_bad_hwnd(h);
    /* NULL pointers */
    SetLastError(0);
    CHECK_EQ(GetMessageW(NULL, NULL, 0, 0), -1);
    CHECK_EQ(GetLastError(), ERROR_NOACCESS);
    CHECK(!PeekMessageA(NULL, NULL, 0, 0, PM_REMOVE));
    CHECK_EQ(DispatchMessageW(NULL), 0);
    /* pointer-carrying messages cannot be posted */
    SetLastError(0);
    CHECK(!PostThreadMessageW(GetCurrentThreadId(), WM_SETTEXT, 0, (LPARAM)u"x"));
    CHECK_EQ(GetLastError(), ERROR_MESSAGE_SYNC_ONLY);
    /* broadcasts: no top-level windows to reach, no error */
    CHECK(PostMessageW(HWND_BROADCAST, WM_USER, 0, 0));
    MSG m;
    CHECK(!PeekMessageW(&m, NULL, 0, 0, PM_REMOVE));
    /* destroyed inside WM_CREATE */
    wc.lpfnWndProc = selfdestroy;
    wc.lpszClassName = u"nspa-test-selfdestroy";
    CHECK(RegisterClassW(&wc));
    CHECK(CreateWindowExW(0, u"nspa-test-selfdestroy", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL) == NULL);
    CHECK(UnregisterClassW(u"nspa-test-selfdestroy", NULL));
    /* bad classes */
    SetLastError(0);
    CHECK_EQ(RegisterClassW(NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    wc.lpszClassName = NULL;
    SetLastError(0);
    CHECK_EQ(RegisterClassW(&wc), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    wc.lpszClassName = u"nspa-test-neg";
    wc.cbWndExtra = -4;
    SetLastError(0);
    CHECK_EQ(RegisterClassW(&wc), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0);
    CHECK(CreateWindowExW(0, NULL, NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_CANNOT_FIND_WND_CLASS);
    return nspa_test_done();
}
