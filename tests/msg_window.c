/* Message-only windows: classes (RegisterClassEx/UnregisterClass and their errors),
 * CreateWindowEx(HWND_MESSAGE) with WM_NCCREATE then WM_CREATE and their CREATESTRUCT,
 * creation refused by either, other parents refused, window longs (user data, extra
 * bytes, subclassing through GWLP_WNDPROC), DispatchMessage of posted window messages,
 * window filters, text messages through DefWindowProc converted between A and W
 * procedures, FindWindowEx, DestroyWindow (WM_DESTROY then WM_NCDESTROY, posted messages
 * dropped, handle invalid after), a procedure that destroys its own window, another
 * thread's DestroyWindow refused, and RegisterWindowMessage's numbering. */
#include <windows.h>
#include "nspa_test.h"
#include "win32_testutil.h"

static void lstrcpynW_(WCHAR *d, const WCHAR *s, int n)
{
    int i = 0;
    if (s) for (; i < n - 1 && s[i]; i++) d[i] = s[i];
    d[i] = 0;
}
static void lstrcpynA_(char *d, const char *s, int n)
{
    int i = 0;
    for (; i < n - 1 && s[i]; i++) d[i] = s[i];
    d[i] = 0;
}

#define LOG 64
static UINT log_msg[LOG];
static int nlog;
static CREATESTRUCTW seen_cs;
static WCHAR seen_name[32], seen_cls[32];
static char seen_text_a[64];
static LRESULT nccreate_result = TRUE, create_result = 0;

static void logm(UINT m) { if (nlog < LOG) log_msg[nlog++] = m; }
static int logged(UINT m) { for (int i = 0; i < nlog; i++) if (log_msg[i] == m) return i + 1; return 0; }

static LRESULT CALLBACK proc_w(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    logm(m);
    if (m == WM_NCCREATE) {
        seen_cs = *(CREATESTRUCTW *)lp;
        lstrcpynW_(seen_name, seen_cs.lpszName, 32);
        if (!IS_INTRESOURCE(seen_cs.lpszClass)) lstrcpynW_(seen_cls, seen_cs.lpszClass, 32);
        if (!nccreate_result) return FALSE;
    }
    if (m == WM_CREATE) return create_result;
    if (m == WM_USER + 1) return (LRESULT)wp * 2;
    if (m == WM_USER + 2) { DestroyWindow(h); return 5; }
    return DefWindowProcW(h, m, wp, lp);
}

static LRESULT CALLBACK proc_a(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    logm(m);
    if (m == WM_SETTEXT && lp) lstrcpynA_(seen_text_a, (const char *)lp, 64);
    return DefWindowProcA(h, m, wp, lp);
}

static LRESULT CALLBACK subclass(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    if (m == WM_USER + 1) return 1000;
    return CallWindowProcW(proc_w, h, m, wp, lp);
}

static const WCHAR cls_w[] = u"nspa-test-msgonly";

static void test_classes(void)
{
    WNDCLASSEXW wc = { sizeof(wc) };
    wc.lpfnWndProc = proc_w;
    wc.cbWndExtra = 16;
    wc.lpszClassName = cls_w;
    ATOM a = RegisterClassExW(&wc);
    CHECK(a >= 0xC000);
    SetLastError(0);
    CHECK_EQ(RegisterClassExW(&wc), 0);
    CHECK_EQ(GetLastError(), ERROR_CLASS_ALREADY_EXISTS);
    wc.cbSize = 4;
    SetLastError(0);
    CHECK_EQ(RegisterClassExW(&wc), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    WNDCLASSA wa = { 0 };
    wa.lpfnWndProc = proc_a;
    wa.lpszClassName = "nspa-test-msgonly-a";
    CHECK(RegisterClassA(&wa) != 0);
    SetLastError(0);
    CHECK(!UnregisterClassA("nspa-test-no-such-class", NULL));
    CHECK_EQ(GetLastError(), ERROR_CLASS_DOES_NOT_EXIST);
}

static void test_create(void)
{
    nlog = 0;
    int param = 42;
    HWND h = CreateWindowExW(0, cls_w, u"title", 0, 1, 2, 3, 4, HWND_MESSAGE, NULL, NULL, &param);
    CHECK(h != NULL);
    CHECK(IsWindow(h));
    CHECK(logged(WM_NCCREATE) == 1 && logged(WM_CREATE) == 2);
    CHECK(seen_cs.lpCreateParams == &param);
    CHECK(seen_cs.hwndParent == HWND_MESSAGE);
    CHECK(seen_cs.x == 1 && seen_cs.y == 2 && seen_cs.cx == 3 && seen_cs.cy == 4);
    CHECK(!memcmp(seen_name, u"title", 12));
    CHECK(!memcmp(seen_cls, cls_w, sizeof(cls_w)));
    DWORD pid = 0;
    CHECK_EQ(GetWindowThreadProcessId(h, &pid), GetCurrentThreadId());
    CHECK_EQ(pid, GetCurrentProcessId());
    CHECK(IsWindowUnicode(h));
    /* window longs */
    CHECK_EQ(SetWindowLongPtrW(h, GWLP_USERDATA, 1234), 0);
    CHECK_EQ(GetWindowLongPtrW(h, GWLP_USERDATA), 1234);
    CHECK_EQ(SetWindowLongPtrW(h, 8, 77), 0);
    CHECK_EQ(GetWindowLongPtrA(h, 8), 77);
    CHECK_EQ(GetWindowLongPtrW(h, 0), 0);
    SetLastError(0);
    CHECK_EQ(GetWindowLongPtrW(h, 9), 0);                /* 9 + 8 > 16 extra bytes */
    CHECK_EQ(GetLastError(), ERROR_INVALID_INDEX);
    SetLastError(0);
    CHECK_EQ(SetWindowLongPtrW(h, -1000, 1), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_INDEX);
    CHECK(GetWindowLongPtrW(h, GWLP_WNDPROC) == (LONG_PTR)proc_w);
    /* direct send on the own thread, then subclassed */
    CHECK_EQ(SendMessageW(h, WM_USER + 1, 21, 0), 42);
    CHECK(SetWindowLongPtrW(h, GWLP_WNDPROC, (LONG_PTR)subclass) == (LONG_PTR)proc_w);
    CHECK_EQ(SendMessageW(h, WM_USER + 1, 21, 0), 1000);
    CHECK_EQ(SendMessageW(h, WM_USER + 3, 0, 0), 0);
    SetWindowLongPtrW(h, GWLP_WNDPROC, (LONG_PTR)proc_w);
    /* posted to the window, dispatched to its procedure; window filter */
    MSG m;
    CHECK(PostMessageW(h, WM_USER + 1, 5, 0));
    CHECK(PostThreadMessageW(GetCurrentThreadId(), WM_USER + 7, 0, 0));
    CHECK(PeekMessageW(&m, h, 0, 0, PM_REMOVE));
    CHECK(m.hwnd == h && m.message == WM_USER + 1);
    CHECK_EQ(DispatchMessageW(&m), 10);
    CHECK(!PeekMessageW(&m, h, 0, 0, PM_REMOVE));
    CHECK(PeekMessageW(&m, NULL, 0, 0, PM_REMOVE));
    CHECK_EQ(m.message, WM_USER + 7);
    CHECK_EQ(DispatchMessageW(&m), 0);                    /* thread message: nobody */
    CHECK(!TranslateMessage(&m));
    /* text through DefWindowProcW, read through A and W */
    WCHAR bw[16];
    char ba[16];
    CHECK_EQ(GetWindowTextW(h, bw, 16), 5);
    CHECK(!memcmp(bw, u"title", 12));
    CHECK(SetWindowTextA(h, "h\xc3\xa9llo"));             /* UTF-8 e-acute */
    CHECK_EQ(GetWindowTextW(h, bw, 16), 5);
    CHECK_EQ(bw[1], 0xE9);
    CHECK_EQ(GetWindowTextA(h, ba, 16), 6);
    CHECK(!strcmp(ba, "h\xc3\xa9llo"));
    CHECK_EQ(GetWindowTextW(h, bw, 3), 2);                /* truncated */
    CHECK(bw[2] == 0);
    CHECK_EQ(SendMessageW(h, WM_GETTEXTLENGTH, 0, 0), 5);
    /* FindWindowEx on message-only windows */
    CHECK(FindWindowExW(HWND_MESSAGE, NULL, cls_w, u"H\u00c9LLO") == h);   /* case-insensitive */
    CHECK(FindWindowExA(HWND_MESSAGE, NULL, "NSPA-TEST-MSGONLY", NULL) == h);
    CHECK(FindWindowExW(HWND_MESSAGE, h, cls_w, NULL) == NULL);
    CHECK(FindWindowExW(NULL, NULL, cls_w, NULL) == NULL);
    /* class in use */
    SetLastError(0);
    CHECK(!UnregisterClassW(cls_w, NULL));
    CHECK_EQ(GetLastError(), ERROR_CLASS_HAS_WINDOWS);
    /* destruction: WM_DESTROY then WM_NCDESTROY, posted messages go with it */
    CHECK(PostMessageW(h, WM_USER + 1, 1, 0));
    nlog = 0;
    CHECK(DestroyWindow(h));
    CHECK(logged(WM_DESTROY) == 1 && logged(WM_NCDESTROY) == 2);
    CHECK(!IsWindow(h));
    CHECK(!PeekMessageW(&m, NULL, 0, 0, PM_REMOVE));
    SetLastError(0);
    CHECK(!DestroyWindow(h));
    CHECK_EQ(GetLastError(), ERROR_INVALID_WINDOW_HANDLE);
    SetLastError(0);
    CHECK(!PostMessageW(h, WM_USER, 0, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_WINDOW_HANDLE);
    /* a new window in the same slot gets a new handle */
    HWND h2 = CreateWindowExW(0, cls_w, NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL);
    CHECK(h2 && h2 != h && !IsWindow(h));
    /* a procedure that destroys its own window while it runs */
    CHECK(PostMessageW(h2, WM_USER + 2, 0, 0));
    CHECK(GetMessageW(&m, NULL, 0, 0) > 0);
    CHECK_EQ(DispatchMessageW(&m), 5);
    CHECK(!IsWindow(h2));
    CHECK(UnregisterClassW(cls_w, NULL));
}

static void test_create_refused(void)
{
    SetLastError(0);
    CHECK(CreateWindowExA(0, "nspa-test-msgonly-a", "x", 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_NOT_SUPPORTED);
    SetLastError(0);
    CHECK(CreateWindowExA(0, "nspa-test-msgonly-a", "x", 0, 0, 0, 0, 0, (HWND)(ULONG_PTR)0x4321, NULL, NULL,
                          NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_WINDOW_HANDLE);
    SetLastError(0);
    CHECK(CreateWindowExA(0, "no-such-class-x", "x", 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_CANNOT_FIND_WND_CLASS);
    WNDCLASSEXW wc = { sizeof(wc) };
    wc.lpfnWndProc = proc_w;
    wc.lpszClassName = u"nspa-test-refuse";
    ATOM a = RegisterClassExW(&wc);
    CHECK(a != 0);
    nccreate_result = FALSE;
    nlog = 0;
    CHECK(CreateWindowExW(0, u"nspa-test-refuse", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL) == NULL);
    CHECK(logged(WM_NCCREATE) && !logged(WM_CREATE) && logged(WM_NCDESTROY));
    nccreate_result = TRUE;
    create_result = -1;
    nlog = 0;
    /* by atom */
    CHECK(CreateWindowExW(0, MAKEINTATOMW(a), NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL) == NULL);
    CHECK(logged(WM_CREATE) && logged(WM_DESTROY) && logged(WM_NCDESTROY));
    create_result = 0;
    CHECK(UnregisterClassW(MAKEINTATOMW(a), NULL));
}

/* an A procedure gets A text from a W caller */
static void test_a_proc(void)
{
    HWND h = CreateWindowExW(0, u"nspa-test-msgonly-a", u"caf\u00e9", 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL,
                             NULL);
    CHECK(h != NULL);
    CHECK(!IsWindowUnicode(h));
    CHECK(SendMessageW(h, WM_SETTEXT, 0, (LPARAM)u"\u00fcber"));
    CHECK(!strcmp(seen_text_a, "\xc3\xbc" "ber"));
    WCHAR bw[16];
    CHECK_EQ(SendMessageW(h, WM_GETTEXT, 16, (LPARAM)bw), 4);
    CHECK(!memcmp(bw, u"\u00fcber", 10));
    char ba[16];
    CHECK_EQ(GetWindowTextA(h, ba, 16), 5);
    CHECK(DestroyWindow(h));
    CHECK(UnregisterClassA("nspa-test-msgonly-a", NULL));
}

static HWND other_hwnd;
static DWORD WINAPI other_destroy(LPVOID p)
{
    SetLastError(0);
    BOOL r = DestroyWindow(other_hwnd);
    return !r && GetLastError() == ERROR_ACCESS_DENIED ? 0 : 1;
}

static void test_other_thread(void)
{
    WNDCLASSW wc = { 0 };
    wc.lpfnWndProc = DefWindowProcW;
    wc.lpszClassName = u"nspa-test-other";
    CHECK(RegisterClassW(&wc));
    other_hwnd = CreateWindowExW(0, u"nspa-test-other", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL);
    HANDLE t = CreateThread(NULL, 0, other_destroy, NULL, 0, NULL);
    WaitForSingleObject(t, INFINITE);
    DWORD code = 9;
    GetExitCodeThread(t, &code);
    CHECK_EQ(code, 0);
    CloseHandle(t);
    CHECK(IsWindow(other_hwnd));
    CHECK_EQ(SendMessageW(other_hwnd, WM_CLOSE, 0, 0), 0);   /* DefWindowProc destroys it */
    CHECK(!IsWindow(other_hwnd));
    CHECK(UnregisterClassW(u"nspa-test-other", NULL));
}

static void test_registered(void)
{
    UINT a = RegisterWindowMessageA("nspa-test-msg-Registered");
    CHECK(a >= 0xC000 && a <= 0xFFFF);
    CHECK_EQ(RegisterWindowMessageW(u"NSPA-TEST-MSG-REGISTERED"), a);
    UINT b = RegisterWindowMessageA("nspa-test-msg-other");
    CHECK(b >= 0xC000 && b != a);
    SetLastError(0);
    CHECK_EQ(RegisterWindowMessageA(""), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
}

int main(void)
{
    test_classes();
    test_create();
    test_create_refused();
    test_a_proc();
    test_other_thread();
    test_registered();
    return nspa_test_done();
}
