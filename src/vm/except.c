/*
 * Exception dispatch: the vectored exception and continue handler lists, the unhandled
 * exception filter, and the conversion between the kernel's ucontext and the Windows
 * CONTEXT.
 *
 * A handler list is an immutable array published by a release store; Add/Remove
 * (under a PI mutex) build a new array and retire the old one, which is freed once no
 * reader section is open (vm_read_enter, table.c). The dispatcher copies the handler
 * pointers it is about to call onto its own stack, a chunk at a time, inside a reader
 * section, and calls them outside it: a handler that never returns (longjmp) leaves no
 * section open, and a handler may add or remove handlers. No lock, no allocation.
 *
 * Nesting: a fault inside a handler is dispatched again with EXCEPTION_NESTED_CALL. The
 * thread remembers the stack pointers of its open dispatches; one whose frame lies
 * below the new one was left by a longjmp and is forgotten.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "vm/vm_internal.h"
#include "nspa/win32/windows.h"
#include "nspa/win32/errhandlingapi.h"

struct hent { vm_handler_fn fn; uintptr_t cookie; };
struct hlist { struct hlist *retired_next; unsigned n; struct hent e[]; };

static _Atomic(struct hlist *) lists[2];     /* 0: exception handlers, 1: continue handlers */
static _Atomic(vm_handler_fn) top_filter;
static struct hlist *retired;
static uintptr_t next_cookie = 0x10;         /* never reused: a stale cookie matches nothing */
static pthread_mutex_t hlock;
static pthread_once_t hlock_once = PTHREAD_ONCE_INIT;

#define MAX_NEST 16
static __thread uintptr_t nest_sp[MAX_NEST];
static __thread unsigned nest_n;

static void hlock_init(void) { nspa_pi_mutex_init(&hlock); }

/* fork: as the table's lock (table.c) */
static void fork_prepare(void) { pthread_once(&hlock_once, hlock_init); pthread_mutex_lock(&hlock); }
static void fork_parent(void) { pthread_mutex_unlock(&hlock); }
static void fork_child(void) { nspa_pi_mutex_init(&hlock); }

__attribute__((constructor)) static void handler_fork_hooks(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

static void reclaim(void)
{
    if (!retired || !vm_readers_idle()) return;
    while (retired) {
        struct hlist *n = retired->retired_next;
        free(retired);
        retired = n;
    }
}

/* publish a copy of list `which` with fn added (first or last) or `cookie` removed */
static uintptr_t list_change(int which, vm_handler_fn fn, int first, uintptr_t cookie)
{
    pthread_once(&hlock_once, hlock_init);
    pthread_mutex_lock(&hlock);
    struct hlist *old = atomic_load_explicit(&lists[which], memory_order_relaxed);
    unsigned n = old ? old->n : 0;
    uintptr_t result = 0;
    unsigned at = n;
    if (!fn) {
        for (at = 0; at < n && old->e[at].cookie != cookie; at++)
            ;
        if (at == n) goto out;                /* stale or foreign cookie */
    }
    struct hlist *l = malloc(sizeof *l + (n + 1) * sizeof l->e[0]);
    if (!l) goto out;
    l->retired_next = NULL;
    l->n = 0;
    if (fn && first) l->e[l->n++] = (struct hent){ fn, result = next_cookie };
    for (unsigned i = 0; i < n; i++)
        if (fn || i != at) l->e[l->n++] = old->e[i];
    if (fn && !first) l->e[l->n++] = (struct hent){ fn, result = next_cookie };
    if (fn) next_cookie += 0x10;
    else result = 1;
    atomic_store_explicit(&lists[which], l, memory_order_seq_cst);
    if (old) { old->retired_next = retired; retired = old; }
out:
    reclaim();
    pthread_mutex_unlock(&hlock);
    return result;
}

NSPA_HIDDEN uintptr_t vm_handler_add(int which, vm_handler_fn fn, int first)
{
    return fn ? list_change(which, fn, first, 0) : 0;
}

NSPA_HIDDEN int vm_handler_remove(int which, uintptr_t cookie)
{
    return cookie ? (int)list_change(which, NULL, 0, cookie) : 0;
}

NSPA_HIDDEN vm_handler_fn vm_set_filter(vm_handler_fn f)
{
    return atomic_exchange(&top_filter, f);
}

NSPA_HIDDEN vm_handler_fn vm_get_filter(void) { return atomic_load(&top_filter); }

/* call the handlers of list `which` in order until one says CONTINUE_EXECUTION */
static int call_list(int which, EXCEPTION_POINTERS *ep)
{
    enum { CHUNK = 16 };
    vm_handler_fn fns[CHUNK];
    for (unsigned k = 0;; k += CHUNK) {
        vm_read_enter();
        struct hlist *l = atomic_load_explicit(&lists[which], memory_order_acquire);
        unsigned n = 0;
        for (; l && k + n < l->n && n < CHUNK; n++) fns[n] = l->e[k + n].fn;
        vm_read_exit();
        if (!n) return 0;
        for (unsigned i = 0; i < n; i++)
            if (fns[i](ep) == EXCEPTION_CONTINUE_EXECUTION) return 1;
    }
}

NSPA_HIDDEN int vm_dispatch(EXCEPTION_RECORD *rec, CONTEXT *ctx, int first_chance_only)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    while (nest_n && nest_sp[nest_n - 1] <= sp) nest_n--;    /* left by a longjmp */
    if (nest_n == MAX_NEST) return 0;          /* runaway recursion: unhandled */
    if (nest_n) rec->ExceptionFlags |= EXCEPTION_NESTED_CALL;
    nest_sp[nest_n++] = sp;
    EXCEPTION_POINTERS ep = { rec, ctx };
    int handled = call_list(0, &ep);
    if (handled) {
        call_list(1, &ep);
    } else if (!first_chance_only) {
        vm_handler_fn f = atomic_load(&top_filter);
        LONG r = f ? f(&ep) : EXCEPTION_CONTINUE_SEARCH;
        if (r == EXCEPTION_CONTINUE_EXECUTION) handled = 1;
        else if (r == EXCEPTION_EXECUTE_HANDLER) _exit((int)rec->ExceptionCode);  /* ExitProcess(code) */
    }
    if (nest_n) nest_n--;
    return handled;
}

/* ---- CONTEXT <-> ucontext ------------------------------------------------------------------ */

static const int greg_of[16] = {       /* CONTEXT Rax..R15 order */
    REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
    REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

NSPA_HIDDEN void vm_ctx_from_ucontext(CONTEXT *c, const ucontext_t *uc)
{
    memset(c, 0, sizeof *c);
    c->ContextFlags = CONTEXT_FULL | CONTEXT_SEGMENTS;
    DWORD64 *regs = &c->Rax;
    for (int i = 0; i < 16; i++) regs[i] = (DWORD64)uc->uc_mcontext.gregs[greg_of[i]];
    c->Rip = (DWORD64)uc->uc_mcontext.gregs[REG_RIP];
    c->EFlags = (DWORD)uc->uc_mcontext.gregs[REG_EFL];
    uint64_t csgsfs = (uint64_t)uc->uc_mcontext.gregs[REG_CSGSFS];
    c->SegCs = (WORD)csgsfs;
    c->SegGs = (WORD)(csgsfs >> 16);
    c->SegFs = (WORD)(csgsfs >> 32);
    c->SegSs = (WORD)(csgsfs >> 48);
    if (uc->uc_mcontext.fpregs) {
        memcpy(&c->FltSave, uc->uc_mcontext.fpregs, sizeof c->FltSave);
        c->MxCsr = c->FltSave.MxCsr;
    }
}

NSPA_HIDDEN void vm_ctx_to_ucontext(ucontext_t *uc, const CONTEXT *c)
{
    const DWORD64 *regs = &c->Rax;
    for (int i = 0; i < 16; i++) uc->uc_mcontext.gregs[greg_of[i]] = (greg_t)regs[i];
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)c->Rip;
    /* the arithmetic and control flags a handler may change (TF for single steps) */
    const DWORD64 user_flags = 0x0cd5 | 0x100;
    uc->uc_mcontext.gregs[REG_EFL] = (greg_t)(((uint64_t)uc->uc_mcontext.gregs[REG_EFL] & ~user_flags) |
                                              (c->EFlags & user_flags));
    if (uc->uc_mcontext.fpregs && (c->ContextFlags & CONTEXT_FLOATING_POINT) == CONTEXT_FLOATING_POINT) {
        XMM_SAVE_AREA32 f = c->FltSave;
        f.MxCsr = c->MxCsr;
        memcpy(uc->uc_mcontext.fpregs, &f, sizeof f);
    }
}
