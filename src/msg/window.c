/*
 * Message-only windows: the window table, window classes, calling window procedures
 * (with the A/W conversion of text messages) and DefWindowProc.
 *
 * HWND values are (generation << 16) | (slot + 1), as Windows' 16-bit index and
 * uniquifier: a destroyed window's handle stays invalid while its slot is reused
 * (65,535 generations). The table is one lazily touched array of slots read without a lock
 * (wnd_get: one load and a compare); slots are taken and given back under wtab_lock,
 * which only creation and destruction take. Slot memory is never unmapped, and a
 * slot's extra-bytes buffer is kept when the slot is reused, so a reader racing a
 * DestroyWindow reads valid memory and sees the handle change.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "msg/msg_internal.h"
#include "common/slots.h"

#define WND_MAX 0xFFF0u

struct wclass {
    struct wclass *next;
    uint16_t *name;
    ATOM atom;
    UINT style;
    WNDPROC proc;
    int unicode;
    int cbcls, cbwnd;
    HINSTANCE inst;
    _Atomic int nwindows;
};

/* the windows: a slot directory (common/slots.h) under wtab_lock, of chunks of 16, so
 * that the WND_MAX slots take a 32 KiB directory and memory only as windows are made;
 * calloc'ed chunks, so that leak checkers see the buffers the slots keep */
#define WCHUNK_SHIFT 4u
_Static_assert((WND_MAX >> WCHUNK_SHIFT) << WCHUNK_SHIFT == WND_MAX, "whole chunks");
static void *wdir[WND_MAX >> WCHUNK_SHIFT];
static void wnd_slot_init(void *slot, uint32_t i) { ((struct wnd *)slot)->slot = i; }
static struct nspa_slots ws = {
    .dir = wdir, .ndir = WND_MAX >> WCHUNK_SHIFT, .shift = WCHUNK_SHIFT, .size = sizeof(struct wnd),
    .link = offsetof(struct wnd, next_free), .heap = 1, .init = wnd_slot_init,
};
static pthread_mutex_t wtab_lock, cls_lock;
static struct wclass *classes;
static pthread_once_t wtab_once = PTHREAD_ONCE_INIT;

static void wtab_init(void)
{
    nspa_pi_mutex_init(&wtab_lock);
    nspa_pi_mutex_init(&cls_lock);
}

static void wtab_need(void) { pthread_once(&wtab_once, wtab_init); }

NSPA_HIDDEN struct wnd *wnd_get(HWND hwnd)
{
    uintptr_t v = (uintptr_t)hwnd;
    if ((v >> 32) || !(v & 0xFFFF) || !(v >> 16)) return NULL;
    uint32_t i = (uint32_t)(v & 0xFFFF) - 1;
    if (i >= nspa_slots_hwm(&ws)) return NULL;
    struct wnd *w = nspa_slots_at(&ws, i);
    return w && atomic_load_explicit(&w->hwnd, memory_order_acquire) == v ? w : NULL;
}

/* ---- classes (cls_lock) ---------------------------------------------------------- */

static struct wclass *cls_find_locked(const uint16_t *name, ATOM atom)
{
    for (struct wclass *c = classes; c; c = c->next)
        if (atom ? c->atom == atom : !wcmpi(c->name, name)) return c;
    return NULL;
}

/* Register a class; @name is UTF-16. Returns the atom or 0 with the last error set. */
NSPA_HIDDEN ATOM cls_register(const uint16_t *name, UINT style, WNDPROC proc, int cbcls, int cbwnd,
                              HINSTANCE inst, int unicode)
{
    wtab_need();
    if (!name || !name[0] || nspa__wlen(name) > 255 || cbcls < 0 || cbwnd < 0 || cbwnd > 0x10000) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    UINT atom = atom_register(name);
    if (!atom) return 0;
    struct wclass *c = calloc(1, sizeof(*c));
    if (!c || !(c->name = wdup(name))) {
        free(c);
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return 0;
    }
    c->atom = (ATOM)atom;
    c->style = style;
    c->proc = proc;
    c->unicode = unicode;
    c->cbcls = cbcls;
    c->cbwnd = cbwnd;
    c->inst = inst;
    pthread_mutex_lock(&cls_lock);
    if (cls_find_locked(name, 0)) {
        pthread_mutex_unlock(&cls_lock);
        free(c->name);
        free(c);
        SetLastError(ERROR_CLASS_ALREADY_EXISTS);
        return 0;
    }
    c->next = classes;
    classes = c;
    pthread_mutex_unlock(&cls_lock);
    return (ATOM)atom;
}

/* @name: UTF-16, or an atom (IS_INTRESOURCE). */
NSPA_HIDDEN BOOL cls_unregister(const uint16_t *name)
{
    wtab_need();
    ATOM atom = IS_INTRESOURCE(name) ? (ATOM)(uintptr_t)name : 0;
    pthread_mutex_lock(&cls_lock);
    struct wclass **pp = &classes, *c = NULL;
    for (; *pp; pp = &(*pp)->next)
        if (atom ? (*pp)->atom == atom : !wcmpi((*pp)->name, name)) {
            c = *pp;
            break;
        }
    if (!c) {
        pthread_mutex_unlock(&cls_lock);
        SetLastError(ERROR_CLASS_DOES_NOT_EXIST);
        return FALSE;
    }
    if (atomic_load(&c->nwindows)) {
        pthread_mutex_unlock(&cls_lock);
        SetLastError(ERROR_CLASS_HAS_WINDOWS);
        return FALSE;
    }
    *pp = c->next;
    pthread_mutex_unlock(&cls_lock);
    free(c->name);
    free(c);
    return TRUE;
}

/* ---- calling procedures ---------------------------------------------------------- */

/* Call @proc for @w with the message converted from the caller's character set to the
 * procedure's: WM_SETTEXT, WM_GETTEXT, WM_NCCREATE/WM_CREATE (CREATESTRUCT strings). */
NSPA_HIDDEN LRESULT wnd_call(struct wnd *w, WNDPROC proc, int proc_unicode, HWND hwnd, UINT msg, WPARAM wp,
                             LPARAM lp, int caller_unicode)
{
    if (!proc) return 0;
    if (proc_unicode == caller_unicode) return proc(hwnd, msg, wp, lp);
    switch (msg) {
    case WM_SETTEXT: {
        if (!lp) return proc(hwnd, msg, wp, lp);
        void *t = caller_unicode ? (void *)text_w_to_a((const uint16_t *)lp) : (void *)text_a_to_w((const char *)lp);
        if (!t) return 0;
        LRESULT r = proc(hwnd, msg, wp, (LPARAM)t);
        free(t);
        return r;
    }
    case WM_GETTEXT: {
        if (!lp || !wp) return proc(hwnd, msg, wp, lp);
        /* the procedure's buffer holds as many characters in its own set */
        size_t cap = proc_unicode ? wp : wp * 3 + 1;
        void *t = calloc(cap + 1, proc_unicode ? 2 : 1);
        if (!t) return 0;
        proc(hwnd, msg, (WPARAM)cap, (LPARAM)t);
        uint16_t *ws = proc_unicode ? wdup(t) : text_a_to_w(t);
        free(t);
        if (!ws) return 0;
        LRESULT n;
        if (caller_unicode) {
            size_t l = nspa__wlen(ws);
            if (l > wp - 1) l = wp - 1;
            memcpy((void *)lp, ws, l * 2);
            ((uint16_t *)lp)[l] = 0;
            n = (LRESULT)l;
        } else {
            char *as = text_w_to_a(ws);
            size_t l = as ? strlen(as) : 0;
            if (l > wp - 1) l = wp - 1;
            if (as) memcpy((void *)lp, as, l);
            ((char *)lp)[l] = 0;
            free(as);
            n = (LRESULT)l;
        }
        free(ws);
        return n;
    }
    case WM_NCCREATE:
    case WM_CREATE: {
        if (!lp) return proc(hwnd, msg, wp, lp);
        CREATESTRUCTW cs;
        memcpy(&cs, (void *)lp, sizeof(cs));
        void *name = NULL, *cls = NULL;
        if (cs.lpszName) {
            name = caller_unicode ? (void *)text_w_to_a(cs.lpszName) : (void *)text_a_to_w((const char *)cs.lpszName);
            cs.lpszName = name;
        }
        if (cs.lpszClass && !IS_INTRESOURCE(cs.lpszClass)) {
            cls = caller_unicode ? (void *)text_w_to_a(cs.lpszClass) : (void *)text_a_to_w((const char *)cs.lpszClass);
            cs.lpszClass = cls;
        }
        LRESULT r = proc(hwnd, msg, wp, (LPARAM)&cs);
        free(name);
        free(cls);
        return r;
    }
    default:
        return proc(hwnd, msg, wp, lp);
    }
}

NSPA_HIDDEN LRESULT wnd_call_hwnd(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp, int caller_unicode)
{
    struct wnd *w = wnd_get(hwnd);
    if (!w) return 0;
    WNDPROC p = atomic_load(&w->proc);
    int u = atomic_load(&w->unicode);
    return wnd_call(w, p, u, hwnd, msg, wp, lp, caller_unicode);
}

NSPA_HIDDEN void wnd_set_text(struct wnd *w, const uint16_t *text)
{
    uint16_t *t = text ? wdup(text) : NULL;
    pthread_mutex_lock(&wtab_lock);        /* FindWindowEx reads it from any thread */
    uint16_t *old = w->text;
    w->text = t;
    pthread_mutex_unlock(&wtab_lock);
    free(old);
}

/* DefWindowProc for message-only windows: text, WM_NCCREATE, WM_CLOSE. */
NSPA_HIDDEN LRESULT wnd_default(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp, int unicode)
{
    struct wnd *w = wnd_get(hwnd);
    if (!w) return 0;
    switch (msg) {
    case WM_NCCREATE: {
        const CREATESTRUCTW *cs = (const CREATESTRUCTW *)lp;
        if (cs && cs->lpszName) {
            if (unicode) wnd_set_text(w, cs->lpszName);
            else {
                uint16_t *t = text_a_to_w((const char *)cs->lpszName);
                wnd_set_text(w, t);
                free(t);
            }
        }
        return TRUE;
    }
    case WM_SETTEXT:
        if (unicode || !lp) wnd_set_text(w, (const uint16_t *)lp);
        else {
            uint16_t *t = text_a_to_w((const char *)lp);
            wnd_set_text(w, t);
            free(t);
        }
        return TRUE;
    case WM_GETTEXTLENGTH: {
        if (!w->text) return 0;
        if (unicode) return (LRESULT)nspa__wlen(w->text);
        char *a = text_w_to_a(w->text);
        LRESULT n = a ? (LRESULT)strlen(a) : 0;
        free(a);
        return n;
    }
    case WM_GETTEXT: {
        if (!wp || !lp) return 0;
        const uint16_t *t = w->text ? w->text : (const uint16_t *)u"";
        size_t l;
        if (unicode) {
            l = nspa__wlen(t);
            if (l > wp - 1) l = wp - 1;
            memcpy((void *)lp, t, l * 2);
            ((uint16_t *)lp)[l] = 0;
        } else {
            char *a = text_w_to_a(t);
            l = a ? strlen(a) : 0;
            if (l > wp - 1) l = wp - 1;
            if (a) memcpy((void *)lp, a, l);
            ((char *)lp)[l] = 0;
            free(a);
        }
        return (LRESULT)l;
    }
    case WM_CLOSE:
        DestroyWindow(hwnd);
        return 0;
    default:
        return 0;
    }
}

/* ---- creation and destruction --------------------------------------------------- */

static struct wnd *slot_take(void)
{
    pthread_mutex_lock(&wtab_lock);
    uint32_t i;
    struct wnd *w = nspa_slots_take(&ws, &i) ? NULL : nspa_slots_at(&ws, i);
    pthread_mutex_unlock(&wtab_lock);
    return w;
}

/* Make the window (not yet visible to lookups until published). Returns NULL with the
 * last error set. @cls_name is UTF-16 or an atom. */
NSPA_HIDDEN struct wnd *wnd_new(const uint16_t *cls_name, DWORD exstyle, DWORD style, HINSTANCE inst,
                                HMENU menu, WNDPROC *proc, int *unicode, struct mq *q)
{
    wtab_need();
    ATOM atom = IS_INTRESOURCE(cls_name) ? (ATOM)(uintptr_t)cls_name : 0;
    pthread_mutex_lock(&cls_lock);
    struct wclass *c = cls_find_locked(cls_name, atom);
    if (c) atomic_fetch_add(&c->nwindows, 1);
    pthread_mutex_unlock(&cls_lock);
    if (!c) {
        SetLastError(ERROR_CANNOT_FIND_WND_CLASS);
        return NULL;
    }
    struct wnd *w = slot_take();
    if (!w) {
        atomic_fetch_sub(&c->nwindows, 1);
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    if ((uint32_t)c->cbwnd > w->extra_cap) {
        uint8_t *e = realloc(w->extra, (size_t)c->cbwnd);
        if (!e) {
            pthread_mutex_lock(&wtab_lock);
            nspa_slots_give(&ws, w->slot);
            pthread_mutex_unlock(&wtab_lock);
            atomic_fetch_sub(&c->nwindows, 1);
            SetLastError(ERROR_NOT_ENOUGH_MEMORY);
            return NULL;
        }
        w->extra = e;
        w->extra_cap = (uint32_t)c->cbwnd;
    }
    if (c->cbwnd) memset(w->extra, 0, (size_t)c->cbwnd);
    w->cbextra = (uint32_t)c->cbwnd;
    w->gen = (uint16_t)(w->gen == 0xFFFF ? 1 : w->gen + 1);   /* never 0: handles are >= 0x10000 */
    __atomic_store_n(&w->tid, nspa_thread_id(), __ATOMIC_RELAXED);
    __atomic_store_n(&w->q, q, __ATOMIC_RELAXED);
    mq_ref(q);
    w->cls = c;
    atomic_store(&w->proc, c->proc);
    atomic_store(&w->unicode, c->unicode);
    atomic_store(&w->userdata, 0);
    atomic_store(&w->id, (LONG_PTR)menu);
    atomic_store(&w->style, (LONG_PTR)(style & ~WS_VISIBLE));
    atomic_store(&w->exstyle, (LONG_PTR)exstyle);
    atomic_store(&w->inst, (LONG_PTR)inst);
    w->text = NULL;
    w->destroying = 0;
    *proc = c->proc;
    *unicode = c->unicode;
    uintptr_t v = ((uintptr_t)w->gen << 16) | (uintptr_t)(w->slot + 1);
    atomic_store_explicit(&w->hwnd, v, memory_order_release);
    return w;
}

/* Give the slot back: posted messages and timers of the window go with it. */
NSPA_HIDDEN void wnd_free(struct wnd *w)
{
    HWND hwnd = (HWND)atomic_load(&w->hwnd);
    struct mq *q = w->q;
    mq_lock(q);
    struct msg_node *prev = NULL;
    for (struct msg_node *n = q->post_head, *nx; n; n = nx) {
        nx = n->next;
        if (n->hwnd != hwnd) {
            prev = n;
            continue;
        }
        if (prev) prev->next = nx;
        else q->post_head = nx;
        if (q->post_tail == n) q->post_tail = prev;
        q->nposted--;
        node_free_locked(q, n);
    }
    if (!q->post_head && !q->quit) q->wake_bits &= ~(QS_POSTMESSAGE | QS_ALLPOSTMESSAGE);
    int had_timers = q->ntimers != 0;
    timers_kill_window_locked(q, hwnd);
    mq_unlock(q);
    if (had_timers && q == mq_self_peek()) timers_sync(q);   /* the owner (always, but at its end) */
    atomic_store_explicit(&w->hwnd, 0, memory_order_release);
    atomic_fetch_sub(&w->cls->nwindows, 1);
    pthread_mutex_lock(&wtab_lock);
    free(w->text);
    w->text = NULL;
    nspa_slots_give(&ws, w->slot);
    pthread_mutex_unlock(&wtab_lock);
    mq_unref(q);
}

NSPA_HIDDEN void wnd_destroy_thread(uint32_t tid)
{
    uint32_t n = nspa_slots_hwm(&ws);
    for (uint32_t i = 0; i < n; i++) {
        struct wnd *w = nspa_slots_at(&ws, i);
        if (w && atomic_load(&w->hwnd) && wnd_tid(w) == tid) wnd_free(w);
    }
}

/* FindWindowEx over message-only windows: the next window after @after whose class
 * and title (NULL: any) match, case-insensitively. */
NSPA_HIDDEN HWND wnd_find(HWND after, const uint16_t *cls, const uint16_t *title)
{
    wtab_need();
    ATOM atom = cls && IS_INTRESOURCE(cls) ? (ATOM)(uintptr_t)cls : 0;
    uint32_t start = 0;
    if (after) {
        struct wnd *a = wnd_get(after);
        if (!a) {
            SetLastError(ERROR_INVALID_WINDOW_HANDLE);
            return NULL;
        }
        start = a->slot + 1;
    }
    /* under wtab_lock: window texts and slots do not change while they are compared */
    pthread_mutex_lock(&wtab_lock);
    for (uint32_t i = start; i < ws.hwm; i++) {
        struct wnd *w = nspa_slots_at(&ws, i);
        uintptr_t v = w ? atomic_load(&w->hwnd) : 0;
        if (!v) continue;
        if (cls && (atom ? w->cls->atom != atom : wcmpi(w->cls->name, cls) != 0)) continue;
        if (title && wcmpi(w->text ? w->text : (const uint16_t *)u"", title) != 0) continue;
        pthread_mutex_unlock(&wtab_lock);
        return (HWND)v;
    }
    pthread_mutex_unlock(&wtab_lock);
    SetLastError(ERROR_FILE_NOT_FOUND);
    return NULL;
}
