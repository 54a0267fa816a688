/*
 * Win32 names of the message-only windows: classes, CreateWindowEx(HWND_MESSAGE),
 * DestroyWindow, window procedures, window longs, FindWindowEx. Over window.c.
 */
#include <stdlib.h>
#include <string.h>
#include "msg/msg_internal.h"

static uint16_t *a_or_atom(const char *s, int *allocated)
{
    *allocated = 0;
    if (!s || IS_INTRESOURCE(s)) return (uint16_t *)(uintptr_t)s;
    *allocated = 1;
    return text_a_to_w(s);
}

/* ---- classes ----------------------------------------------------------------------- */

NSPA_EXPORT ATOM WINAPI RegisterClassExW(const WNDCLASSEXW *wc)
{
    if (!wc || wc->cbSize != sizeof(*wc)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    if (!wc->lpszClassName || IS_INTRESOURCE(wc->lpszClassName)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    return cls_register(wc->lpszClassName, wc->style, wc->lpfnWndProc, wc->cbClsExtra, wc->cbWndExtra,
                        wc->hInstance, 1);
}

NSPA_EXPORT ATOM WINAPI RegisterClassExA(const WNDCLASSEXA *wc)
{
    if (!wc || wc->cbSize != sizeof(*wc) || !wc->lpszClassName || IS_INTRESOURCE(wc->lpszClassName)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    uint16_t *n = text_a_to_w(wc->lpszClassName);
    if (!n) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return 0;
    }
    ATOM a = cls_register(n, wc->style, wc->lpfnWndProc, wc->cbClsExtra, wc->cbWndExtra, wc->hInstance, 0);
    free(n);
    return a;
}

NSPA_EXPORT ATOM WINAPI RegisterClassW(const WNDCLASSW *wc)
{
    if (!wc) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    WNDCLASSEXW x = { sizeof(x), wc->style, wc->lpfnWndProc, wc->cbClsExtra, wc->cbWndExtra, wc->hInstance,
                      wc->hIcon, wc->hCursor, wc->hbrBackground, wc->lpszMenuName, wc->lpszClassName, NULL };
    return RegisterClassExW(&x);
}

NSPA_EXPORT ATOM WINAPI RegisterClassA(const WNDCLASSA *wc)
{
    if (!wc) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    WNDCLASSEXA x = { sizeof(x), wc->style, wc->lpfnWndProc, wc->cbClsExtra, wc->cbWndExtra, wc->hInstance,
                      wc->hIcon, wc->hCursor, wc->hbrBackground, wc->lpszMenuName, wc->lpszClassName, NULL };
    return RegisterClassExA(&x);
}

NSPA_EXPORT BOOL WINAPI UnregisterClassW(LPCWSTR name, HINSTANCE inst)
{
    if (!name) {
        SetLastError(ERROR_CLASS_DOES_NOT_EXIST);
        return FALSE;
    }
    return cls_unregister(name);
}

NSPA_EXPORT BOOL WINAPI UnregisterClassA(LPCSTR name, HINSTANCE inst)
{
    int al;
    uint16_t *n = a_or_atom(name, &al);
    if (!n) {
        SetLastError(name ? ERROR_NOT_ENOUGH_MEMORY : ERROR_CLASS_DOES_NOT_EXIST);
        return FALSE;
    }
    BOOL r = cls_unregister(n);
    if (al) free(n);
    return r;
}

/* ---- creation and destruction ----------------------------------------------------- */

static HWND create(DWORD exstyle, const void *cls, const void *name, DWORD style, int x, int y, int cx, int cy,
                   HWND parent, HMENU menu, HINSTANCE inst, LPVOID param, int unicode)
{
    if (parent != HWND_MESSAGE) {
        /* NSPA has no display: only message-only windows exist. A real window handle
         * as parent or NULL (a top-level window) cannot be made. */
        SetLastError(parent && !wnd_get(parent) ? ERROR_INVALID_WINDOW_HANDLE : ERROR_NOT_SUPPORTED);
        return NULL;
    }
    if (!cls) {
        SetLastError(ERROR_CANNOT_FIND_WND_CLASS);
        return NULL;
    }
    struct mq *q = mq_self();
    if (!q) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    int al = 0;
    uint16_t *cls_w = unicode ? (uint16_t *)cls : a_or_atom(cls, &al);
    if (!cls_w) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    WNDPROC proc;
    int proc_uni;
    struct wnd *w = wnd_new(cls_w, exstyle, style, inst, menu, &proc, &proc_uni, q);
    if (al) free(cls_w);
    if (!w) return NULL;
    HWND hwnd = (HWND)atomic_load(&w->hwnd);
    CREATESTRUCTW cs = { param, inst, menu, parent, cy, cx, y, x, (LONG)style, name, cls, exstyle };
    if (!wnd_call(w, proc, proc_uni, hwnd, WM_NCCREATE, 0, (LPARAM)&cs, unicode)) {
        if (wnd_get(hwnd) == w) {
            wnd_call_hwnd(hwnd, WM_NCDESTROY, 0, 0, atomic_load(&w->unicode));
            if (wnd_get(hwnd) == w) wnd_free(w);
        }
        return NULL;
    }
    if (wnd_get(hwnd) != w) return NULL;                /* destroyed itself */
    if (wnd_call_hwnd(hwnd, WM_CREATE, 0, (LPARAM)&cs, unicode) == -1) {
        DestroyWindow(hwnd);
        return NULL;
    }
    return wnd_get(hwnd) == w ? hwnd : NULL;
}

NSPA_EXPORT HWND WINAPI CreateWindowExW(DWORD exstyle, LPCWSTR cls, LPCWSTR name, DWORD style, int x, int y,
                                        int w, int h, HWND parent, HMENU menu, HINSTANCE inst, LPVOID param)
{
    return create(exstyle, cls, name, style, x, y, w, h, parent, menu, inst, param, 1);
}

NSPA_EXPORT HWND WINAPI CreateWindowExA(DWORD exstyle, LPCSTR cls, LPCSTR name, DWORD style, int x, int y,
                                        int w, int h, HWND parent, HMENU menu, HINSTANCE inst, LPVOID param)
{
    return create(exstyle, cls, name, style, x, y, w, h, parent, menu, inst, param, 0);
}

NSPA_EXPORT BOOL WINAPI DestroyWindow(HWND hwnd)
{
    struct wnd *w = wnd_get(hwnd);
    if (!w) {
        SetLastError(ERROR_INVALID_WINDOW_HANDLE);
        return FALSE;
    }
    if (wnd_tid(w) != nspa_thread_id()) {
        SetLastError(ERROR_ACCESS_DENIED);    /* another thread's window, as Windows */
        return FALSE;
    }
    if (w->destroying) return TRUE;           /* DestroyWindow from its WM_DESTROY */
    w->destroying = 1;
    wnd_call_hwnd(hwnd, WM_DESTROY, 0, 0, atomic_load(&w->unicode));
    if (wnd_get(hwnd) == w) wnd_call_hwnd(hwnd, WM_NCDESTROY, 0, 0, atomic_load(&w->unicode));
    if (wnd_get(hwnd) == w) wnd_free(w);
    return TRUE;
}

/* ---- procedures ------------------------------------------------------------------- */

NSPA_EXPORT LRESULT WINAPI DefWindowProcW(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    return wnd_default(hwnd, msg, wp, lp, 1);
}

NSPA_EXPORT LRESULT WINAPI DefWindowProcA(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    return wnd_default(hwnd, msg, wp, lp, 0);
}

static LRESULT dispatch(const MSG *m, int unicode)
{
    if (!m) {
        SetLastError(ERROR_NOACCESS);
        return 0;
    }
    if (m->message == WM_TIMER && m->lParam) {
        /* only a TIMERPROC that a live timer of this thread names is called */
        if (!timers_has_proc(m->hwnd, m->wParam, (TIMERPROC)m->lParam)) return 0;
        ((TIMERPROC)m->lParam)(m->hwnd, m->message, m->wParam, msg_tick());
        return 0;
    }
    if (!m->hwnd) return 0;
    struct wnd *w = wnd_get(m->hwnd);
    if (!w) {
        SetLastError(ERROR_INVALID_WINDOW_HANDLE);
        return 0;
    }
    return wnd_call_hwnd(m->hwnd, m->message, m->wParam, m->lParam, unicode);
}

NSPA_EXPORT LRESULT WINAPI DispatchMessageW(const MSG *m) { return dispatch(m, 1); }
NSPA_EXPORT LRESULT WINAPI DispatchMessageA(const MSG *m) { return dispatch(m, 0); }

/* no keyboard: nothing to translate */
NSPA_EXPORT BOOL WINAPI TranslateMessage(const MSG *m) { return FALSE; }

/* Procedures are plain function pointers here (no A/W thunks): the call is direct. */
NSPA_EXPORT LRESULT WINAPI CallWindowProcW(WNDPROC proc, HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    return proc ? proc(hwnd, msg, wp, lp) : 0;
}

NSPA_EXPORT LRESULT WINAPI CallWindowProcA(WNDPROC proc, HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    return proc ? proc(hwnd, msg, wp, lp) : 0;
}

/* ---- window longs ----------------------------------------------------------------- */

static _Atomic(LONG_PTR) *long_slot(struct wnd *w, int index)
{
    switch (index) {
    case GWLP_USERDATA: return &w->userdata;
    case GWLP_ID: return &w->id;
    case GWL_STYLE: return &w->style;
    case GWL_EXSTYLE: return &w->exstyle;
    case GWLP_HINSTANCE: return &w->inst;
    default: return NULL;
    }
}

/* Get (@set 0) or set a window long; returns the (previous) value, 0 with the last error
 * set on a bad handle or index. */
static LONG_PTR window_long(HWND hwnd, int index, int set, LONG_PTR value, int unicode)
{
    struct wnd *w = wnd_get(hwnd);
    if (!w) {
        SetLastError(ERROR_INVALID_WINDOW_HANDLE);
        return 0;
    }
    if (index >= 0) {
        if ((uint64_t)index + sizeof(LONG_PTR) > w->cbextra) {
            SetLastError(ERROR_INVALID_INDEX);
            return 0;
        }
        LONG_PTR old;
        memcpy(&old, w->extra + index, sizeof(old));
        if (set) memcpy(w->extra + index, &value, sizeof(value));
        return old;
    }
    if (index == GWLP_WNDPROC) {
        if (!set) return (LONG_PTR)atomic_load(&w->proc);
        if (!value) {
            SetLastError(ERROR_INVALID_PARAMETER);
            return 0;
        }
        /* the new procedure takes the character set of the function that set it */
        WNDPROC old = atomic_exchange(&w->proc, (WNDPROC)value);
        atomic_store(&w->unicode, unicode);
        return (LONG_PTR)old;
    }
    if (index == GWLP_HWNDPARENT && !set) return 0;    /* message-only: no parent window */
    _Atomic(LONG_PTR) *p = index == GWLP_HWNDPARENT ? NULL : long_slot(w, index);
    if (!p) {
        SetLastError(ERROR_INVALID_INDEX);
        return 0;
    }
    return set ? atomic_exchange(p, value) : atomic_load(p);
}

NSPA_EXPORT LONG_PTR WINAPI GetWindowLongPtrW(HWND hwnd, int index) { return window_long(hwnd, index, 0, 0, 1); }
NSPA_EXPORT LONG_PTR WINAPI GetWindowLongPtrA(HWND hwnd, int index) { return window_long(hwnd, index, 0, 0, 0); }
NSPA_EXPORT LONG_PTR WINAPI SetWindowLongPtrW(HWND hwnd, int index, LONG_PTR v) { return window_long(hwnd, index, 1, v, 1); }
NSPA_EXPORT LONG_PTR WINAPI SetWindowLongPtrA(HWND hwnd, int index, LONG_PTR v) { return window_long(hwnd, index, 1, v, 0); }
/* ---- queries ----------------------------------------------------------------------- */

NSPA_EXPORT DWORD WINAPI GetWindowThreadProcessId(HWND hwnd, LPDWORD pid)
{
    struct wnd *w = wnd_get(hwnd);
    if (!w) {
        SetLastError(ERROR_INVALID_WINDOW_HANDLE);
        return 0;
    }
    DWORD tid = wnd_tid(w);
    if (pid) *pid = GetCurrentProcessId();
    return tid;
}

NSPA_EXPORT BOOL WINAPI IsWindow(HWND hwnd) { return wnd_get(hwnd) != NULL; }

NSPA_EXPORT BOOL WINAPI IsWindowUnicode(HWND hwnd)
{
    struct wnd *w = wnd_get(hwnd);
    return w ? atomic_load(&w->unicode) : FALSE;
}

NSPA_EXPORT HWND WINAPI FindWindowExW(HWND parent, HWND after, LPCWSTR cls, LPCWSTR title)
{
    if (parent != HWND_MESSAGE) {
        /* no top-level or child windows exist without a display */
        if (parent && !wnd_get(parent)) SetLastError(ERROR_INVALID_WINDOW_HANDLE);
        else SetLastError(ERROR_FILE_NOT_FOUND);
        return NULL;
    }
    return wnd_find(after, cls, title);
}

NSPA_EXPORT HWND WINAPI FindWindowExA(HWND parent, HWND after, LPCSTR cls, LPCSTR title)
{
    int ac, at;
    uint16_t *c = a_or_atom(cls, &ac), *t = a_or_atom(title, &at);
    HWND r = (cls && !c) || (title && !t) ? NULL : FindWindowExW(parent, after, c, t);
    if (ac) free(c);
    if (at) free(t);
    return r;
}

/* Set/GetWindowText: WM_SETTEXT / WM_GETTEXT sent to the window (any thread's) */
static LRESULT text_call(HWND hwnd, UINT m, WPARAM wp, LPARAM lp, int unicode)
{
    if (!wnd_get(hwnd)) {
        SetLastError(ERROR_INVALID_WINDOW_HANDLE);
        return 0;
    }
    return unicode ? SendMessageW(hwnd, m, wp, lp) : SendMessageA(hwnd, m, wp, lp);
}

NSPA_EXPORT BOOL WINAPI SetWindowTextW(HWND hwnd, LPCWSTR text) { return (BOOL)text_call(hwnd, WM_SETTEXT, 0, (LPARAM)text, 1); }
NSPA_EXPORT BOOL WINAPI SetWindowTextA(HWND hwnd, LPCSTR text) { return (BOOL)text_call(hwnd, WM_SETTEXT, 0, (LPARAM)text, 0); }

NSPA_EXPORT int WINAPI GetWindowTextW(HWND hwnd, LPWSTR buf, int n)
{
    if (!buf || n <= 0) return 0;
    buf[0] = 0;
    return (int)text_call(hwnd, WM_GETTEXT, (WPARAM)n, (LPARAM)buf, 1);
}

NSPA_EXPORT int WINAPI GetWindowTextA(HWND hwnd, LPSTR buf, int n)
{
    if (!buf || n <= 0) return 0;
    buf[0] = 0;
    return (int)text_call(hwnd, WM_GETTEXT, (WPARAM)n, (LPARAM)buf, 0);
}
