/* NSPA Win32 layer: user32's message side without a screen — thread message queues,
 * message-only windows (HWND_MESSAGE), SendMessage across threads, WM_TIMER timers and
 * MsgWaitForMultipleObjects. No drawing, no input devices, no display (docs/msg.md). */
#ifndef NSPA_WIN32_WINUSER_H
#define NSPA_WIN32_WINUSER_H

#include "windef.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef WORD ATOM;
typedef DWORD_PTR *PDWORD_PTR;
typedef UINT_PTR WPARAM;
typedef LONG_PTR LPARAM;
typedef LONG_PTR LRESULT;
typedef HANDLE HICON, HCURSOR, HBRUSH, HMENU;
typedef HICON HICON_;
typedef LRESULT (CALLBACK *WNDPROC)(HWND, UINT, WPARAM, LPARAM);
typedef void (CALLBACK *TIMERPROC)(HWND, UINT, UINT_PTR, DWORD);
typedef void (CALLBACK *SENDASYNCPROC)(HWND, UINT, ULONG_PTR, LRESULT);

typedef struct tagPOINT { LONG x, y; } POINT, *PPOINT, *LPPOINT;

typedef struct tagMSG {
    HWND   hwnd;
    UINT   message;
    WPARAM wParam;
    LPARAM lParam;
    DWORD  time;
    POINT  pt;
} MSG, *PMSG, *LPMSG;

typedef struct tagWNDCLASSA {
    UINT style; WNDPROC lpfnWndProc; int cbClsExtra; int cbWndExtra; HINSTANCE hInstance;
    HICON hIcon; HCURSOR hCursor; HBRUSH hbrBackground; LPCSTR lpszMenuName; LPCSTR lpszClassName;
} WNDCLASSA, *PWNDCLASSA, *LPWNDCLASSA;
typedef struct tagWNDCLASSW {
    UINT style; WNDPROC lpfnWndProc; int cbClsExtra; int cbWndExtra; HINSTANCE hInstance;
    HICON hIcon; HCURSOR hCursor; HBRUSH hbrBackground; LPCWSTR lpszMenuName; LPCWSTR lpszClassName;
} WNDCLASSW, *PWNDCLASSW, *LPWNDCLASSW;
typedef struct tagWNDCLASSEXA {
    UINT cbSize; UINT style; WNDPROC lpfnWndProc; int cbClsExtra; int cbWndExtra; HINSTANCE hInstance;
    HICON hIcon; HCURSOR hCursor; HBRUSH hbrBackground; LPCSTR lpszMenuName; LPCSTR lpszClassName;
    HICON hIconSm;
} WNDCLASSEXA, *PWNDCLASSEXA, *LPWNDCLASSEXA;
typedef struct tagWNDCLASSEXW {
    UINT cbSize; UINT style; WNDPROC lpfnWndProc; int cbClsExtra; int cbWndExtra; HINSTANCE hInstance;
    HICON hIcon; HCURSOR hCursor; HBRUSH hbrBackground; LPCWSTR lpszMenuName; LPCWSTR lpszClassName;
    HICON hIconSm;
} WNDCLASSEXW, *PWNDCLASSEXW, *LPWNDCLASSEXW;

typedef struct tagCREATESTRUCTA {
    LPVOID lpCreateParams; HINSTANCE hInstance; HMENU hMenu; HWND hwndParent;
    int cy, cx, y, x; LONG style; LPCSTR lpszName; LPCSTR lpszClass; DWORD dwExStyle;
} CREATESTRUCTA, *LPCREATESTRUCTA;
typedef struct tagCREATESTRUCTW {
    LPVOID lpCreateParams; HINSTANCE hInstance; HMENU hMenu; HWND hwndParent;
    int cy, cx, y, x; LONG style; LPCWSTR lpszName; LPCWSTR lpszClass; DWORD dwExStyle;
} CREATESTRUCTW, *LPCREATESTRUCTW;

#define MAKEINTATOM(i)   ((LPSTR)((ULONG_PTR)((WORD)(i))))
#define MAKEINTATOMW(i)  ((LPWSTR)((ULONG_PTR)((WORD)(i))))
#define IS_INTRESOURCE(p) ((((ULONG_PTR)(p)) >> 16) == 0)

#define HWND_MESSAGE     ((HWND)(LONG_PTR)-3)
#define HWND_BROADCAST   ((HWND)0xffff)
#define HWND_DESKTOP     ((HWND)0)
#define CW_USEDEFAULT    ((int)0x80000000)

/* ---- messages --------------------------------------------------------------------- */
#define WM_NULL            0x0000
#define WM_CREATE          0x0001
#define WM_DESTROY         0x0002
#define WM_MOVE            0x0003
#define WM_SIZE            0x0005
#define WM_SETTEXT         0x000C
#define WM_GETTEXT         0x000D
#define WM_GETTEXTLENGTH   0x000E
#define WM_PAINT           0x000F
#define WM_CLOSE           0x0010
#define WM_QUIT            0x0012
#define WM_NCCREATE        0x0081
#define WM_NCDESTROY       0x0082
#define WM_KEYFIRST        0x0100
#define WM_KEYDOWN         0x0100
#define WM_KEYUP           0x0101
#define WM_CHAR            0x0102
#define WM_KEYLAST         0x0109
#define WM_COMMAND         0x0111
#define WM_TIMER           0x0113
#define WM_MOUSEFIRST      0x0200
#define WM_MOUSELAST       0x020E
#define WM_USER            0x0400
#define WM_APP             0x8000

/* ---- PeekMessage, queue status, MsgWaitForMultipleObjects ------------------------- */
#define PM_NOREMOVE        0x0000
#define PM_REMOVE          0x0001
#define PM_NOYIELD         0x0002
#define QS_KEY             0x0001
#define QS_MOUSEMOVE       0x0002
#define QS_MOUSEBUTTON     0x0004
#define QS_POSTMESSAGE     0x0008
#define QS_TIMER           0x0010
#define QS_PAINT           0x0020
#define QS_SENDMESSAGE     0x0040
#define QS_HOTKEY          0x0080
#define QS_ALLPOSTMESSAGE  0x0100
#define QS_RAWINPUT        0x0400
#define QS_TOUCH           0x0800
#define QS_POINTER         0x1000
#define QS_MOUSE           (QS_MOUSEMOVE | QS_MOUSEBUTTON)
#define QS_INPUT           (QS_MOUSE | QS_KEY | QS_RAWINPUT | QS_TOUCH | QS_POINTER)
#define QS_ALLEVENTS       (QS_INPUT | QS_POSTMESSAGE | QS_TIMER | QS_PAINT | QS_HOTKEY)
#define QS_ALLINPUT        (QS_ALLEVENTS | QS_SENDMESSAGE)
#define PM_QS_INPUT        (QS_INPUT << 16)
#define PM_QS_POSTMESSAGE  ((QS_POSTMESSAGE | QS_HOTKEY | QS_TIMER) << 16)
#define PM_QS_PAINT        (QS_PAINT << 16)
#define PM_QS_SENDMESSAGE  (QS_SENDMESSAGE << 16)
#define MWMO_WAITALL        0x0001
#define MWMO_ALERTABLE      0x0002
#define MWMO_INPUTAVAILABLE 0x0004

/* ---- SendMessage ------------------------------------------------------------------ */
#define SMTO_NORMAL              0x0000
#define SMTO_BLOCK               0x0001
#define SMTO_ABORTIFHUNG         0x0002
#define SMTO_NOTIMEOUTIFNOTHUNG  0x0008
#define SMTO_ERRORONEXIT         0x0020
#define ISMEX_NOSEND   0x00000000
#define ISMEX_SEND     0x00000001
#define ISMEX_NOTIFY   0x00000002
#define ISMEX_CALLBACK 0x00000004
#define ISMEX_REPLIED  0x00000008

/* ---- window longs and styles ------------------------------------------------------ */
#define GWLP_WNDPROC     (-4)
#define GWLP_HINSTANCE   (-6)
#define GWLP_HWNDPARENT  (-8)
#define GWLP_USERDATA    (-21)
#define GWLP_ID          (-12)
#define GWL_STYLE        (-16)
#define GWL_EXSTYLE      (-20)
#define WS_OVERLAPPED    0x00000000L
#define WS_CHILD         0x40000000L
#define WS_VISIBLE       0x10000000L
#define WS_POPUP         0x80000000L
#define USER_TIMER_MINIMUM 0x0000000A
#define USER_TIMER_MAXIMUM 0x7FFFFFFF

/* ---- queues and messages ------------------------------------------------------------ */
BOOL WINAPI PostThreadMessageA(DWORD tid, UINT msg, WPARAM wp, LPARAM lp);
BOOL WINAPI PostThreadMessageW(DWORD tid, UINT msg, WPARAM wp, LPARAM lp);
BOOL WINAPI PostMessageA(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp);
BOOL WINAPI PostMessageW(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp);
void WINAPI PostQuitMessage(int code);
BOOL WINAPI GetMessageA(LPMSG msg, HWND hwnd, UINT first, UINT last);
BOOL WINAPI GetMessageW(LPMSG msg, HWND hwnd, UINT first, UINT last);
BOOL WINAPI PeekMessageA(LPMSG msg, HWND hwnd, UINT first, UINT last, UINT flags);
BOOL WINAPI PeekMessageW(LPMSG msg, HWND hwnd, UINT first, UINT last, UINT flags);
BOOL WINAPI WaitMessage(void);
DWORD WINAPI GetQueueStatus(UINT flags);
LONG WINAPI GetMessageTime(void);
DWORD WINAPI GetMessagePos(void);
DWORD WINAPI MsgWaitForMultipleObjects(DWORD count, const HANDLE *handles, BOOL wait_all, DWORD ms,
                                       DWORD mask);
DWORD WINAPI MsgWaitForMultipleObjectsEx(DWORD count, const HANDLE *handles, DWORD ms, DWORD mask,
                                         DWORD flags);
LRESULT WINAPI SendMessageA(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp);
LRESULT WINAPI SendMessageW(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp);
LRESULT WINAPI SendMessageTimeoutA(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp, UINT flags, UINT ms,
                                   PDWORD_PTR result);
LRESULT WINAPI SendMessageTimeoutW(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp, UINT flags, UINT ms,
                                   PDWORD_PTR result);
BOOL WINAPI SendNotifyMessageA(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp);
BOOL WINAPI SendNotifyMessageW(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp);
BOOL WINAPI ReplyMessage(LRESULT result);
BOOL WINAPI InSendMessage(void);
DWORD WINAPI InSendMessageEx(LPVOID reserved);
UINT WINAPI RegisterWindowMessageA(LPCSTR name);
UINT WINAPI RegisterWindowMessageW(LPCWSTR name);

/* ---- classes and message-only windows --------------------------------------------- */
ATOM WINAPI RegisterClassA(const WNDCLASSA *wc);
ATOM WINAPI RegisterClassW(const WNDCLASSW *wc);
ATOM WINAPI RegisterClassExA(const WNDCLASSEXA *wc);
ATOM WINAPI RegisterClassExW(const WNDCLASSEXW *wc);
BOOL WINAPI UnregisterClassA(LPCSTR name, HINSTANCE inst);
BOOL WINAPI UnregisterClassW(LPCWSTR name, HINSTANCE inst);
HWND WINAPI CreateWindowExA(DWORD exstyle, LPCSTR cls, LPCSTR name, DWORD style, int x, int y, int w,
                            int h, HWND parent, HMENU menu, HINSTANCE inst, LPVOID param);
HWND WINAPI CreateWindowExW(DWORD exstyle, LPCWSTR cls, LPCWSTR name, DWORD style, int x, int y, int w,
                            int h, HWND parent, HMENU menu, HINSTANCE inst, LPVOID param);
#define CreateWindowA(c, n, s, x, y, w, h, p, m, i, l) CreateWindowExA(0, c, n, s, x, y, w, h, p, m, i, l)
#define CreateWindowW(c, n, s, x, y, w, h, p, m, i, l) CreateWindowExW(0, c, n, s, x, y, w, h, p, m, i, l)
BOOL WINAPI DestroyWindow(HWND hwnd);
LRESULT WINAPI DefWindowProcA(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp);
LRESULT WINAPI DefWindowProcW(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp);
LRESULT WINAPI DispatchMessageA(const MSG *msg);
LRESULT WINAPI DispatchMessageW(const MSG *msg);
BOOL WINAPI TranslateMessage(const MSG *msg);
LRESULT WINAPI CallWindowProcA(WNDPROC proc, HWND hwnd, UINT msg, WPARAM wp, LPARAM lp);
LRESULT WINAPI CallWindowProcW(WNDPROC proc, HWND hwnd, UINT msg, WPARAM wp, LPARAM lp);
LONG_PTR WINAPI GetWindowLongPtrA(HWND hwnd, int index);
LONG_PTR WINAPI GetWindowLongPtrW(HWND hwnd, int index);
LONG_PTR WINAPI SetWindowLongPtrA(HWND hwnd, int index, LONG_PTR value);
LONG_PTR WINAPI SetWindowLongPtrW(HWND hwnd, int index, LONG_PTR value);
DWORD WINAPI GetWindowThreadProcessId(HWND hwnd, LPDWORD pid);
BOOL WINAPI IsWindow(HWND hwnd);
BOOL WINAPI IsWindowUnicode(HWND hwnd);
HWND WINAPI FindWindowExA(HWND parent, HWND after, LPCSTR cls, LPCSTR title);
HWND WINAPI FindWindowExW(HWND parent, HWND after, LPCWSTR cls, LPCWSTR title);
BOOL WINAPI SetWindowTextA(HWND hwnd, LPCSTR text);
BOOL WINAPI SetWindowTextW(HWND hwnd, LPCWSTR text);
int WINAPI GetWindowTextA(HWND hwnd, LPSTR buf, int n);
int WINAPI GetWindowTextW(HWND hwnd, LPWSTR buf, int n);

/* ---- timers ----------------------------------------------------------------------- */
UINT_PTR WINAPI SetTimer(HWND hwnd, UINT_PTR id, UINT ms, TIMERPROC proc);
BOOL WINAPI KillTimer(HWND hwnd, UINT_PTR id);

#ifdef UNICODE
#define PostThreadMessage PostThreadMessageW
#define PostMessage PostMessageW
#define GetMessage GetMessageW
#define PeekMessage PeekMessageW
#define SendMessage SendMessageW
#define SendMessageTimeout SendMessageTimeoutW
#define SendNotifyMessage SendNotifyMessageW
#define RegisterWindowMessage RegisterWindowMessageW
#define RegisterClass RegisterClassW
#define RegisterClassEx RegisterClassExW
#define UnregisterClass UnregisterClassW
#define CreateWindowEx CreateWindowExW
#define CreateWindow CreateWindowW
#define DefWindowProc DefWindowProcW
#define DispatchMessage DispatchMessageW
#define CallWindowProc CallWindowProcW
#define GetWindowLongPtr GetWindowLongPtrW
#define SetWindowLongPtr SetWindowLongPtrW
#define FindWindowEx FindWindowExW
#define SetWindowText SetWindowTextW
#define GetWindowText GetWindowTextW
#define WNDCLASS WNDCLASSW
#define WNDCLASSEX WNDCLASSEXW
#define CREATESTRUCT CREATESTRUCTW
#else
#define PostThreadMessage PostThreadMessageA
#define PostMessage PostMessageA
#define GetMessage GetMessageA
#define PeekMessage PeekMessageA
#define SendMessage SendMessageA
#define SendMessageTimeout SendMessageTimeoutA
#define SendNotifyMessage SendNotifyMessageA
#define RegisterWindowMessage RegisterWindowMessageA
#define RegisterClass RegisterClassA
#define RegisterClassEx RegisterClassExA
#define UnregisterClass UnregisterClassA
#define CreateWindowEx CreateWindowExA
#define CreateWindow CreateWindowA
#define DefWindowProc DefWindowProcA
#define DispatchMessage DispatchMessageA
#define CallWindowProc CallWindowProcA
#define GetWindowLongPtr GetWindowLongPtrA
#define SetWindowLongPtr SetWindowLongPtrA
#define FindWindowEx FindWindowExA
#define SetWindowText SetWindowTextA
#define GetWindowText GetWindowTextA
#define WNDCLASS WNDCLASSA
#define WNDCLASSEX WNDCLASSEXA
#define CREATESTRUCT CREATESTRUCTA
#endif

#ifdef __cplusplus
}
#endif
#endif
