/*
 * The fault path: one handler for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGTRAP, installed
 * on first use (a guard page, a write watch, a vectored handler, a filter), that turns
 * a hardware fault into a Windows exception.
 *
 * No lock and no allocation: the region table is read inside a reader section (one
 * atomic increment), a guard page's bit is taken by one compare-and-swap (of two
 * threads touching one guard page, the CAS winner gets STATUS_GUARD_PAGE_VIOLATION, the
 * other just resumes), the vectored handlers are copied from a published array
 * (except.c). The one system call is the mprotect that makes a page's kernel
 * protection agree with its new state.
 *
 * Faults that are not the program's business (a user-sent signal, or a fault no
 * handler claims) go on to the handler that was installed before NSPA's, or to the
 * default action, so ASan, debuggers and crash reporters keep working.
 *
 * Stack overflow: each thread that uses exceptions runs its handlers on an alternate
 * signal stack of its own (64 KiB + a guard page), made when the thread calls an
 * exception API or nspa_vm_thread_init(), when CreateThread starts it (if the process
 * uses exceptions by then), or at its first fault, and given back at thread exit. A
 * pthread_create thread that overflows before it ever had one dies as it would without
 * NSPA (the kernel cannot deliver the signal).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "vm/vm_internal.h"
#include "vm/vm_api.h"
#include "nspa/win32/windows.h"
#include "nspa/win32/memoryapi.h"
#include "nspa/win32/winnt_except.h"

#define ALTSTACK_SIZE (64 * 1024)

static const int fault_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP };
static struct sigaction prev[NSIG];
static _Atomic int installed;                /* 2 once the handlers are in */

/* a guard page or a write watch can exist only once the handlers are in (alloc.c
 * installs them first): nspa_vm_before_kernel_write's one-load fast path */
NSPA_HIDDEN int vm_faults_installed(void) { return atomic_load_explicit(&installed, memory_order_acquire) == 2; }
static pthread_key_t alt_key;

static __thread void *alt_mem;               /* our alternate stack, if we made one */
static __thread uintptr_t retry_addr;        /* the same fault retried: see classify */
static __thread unsigned retry_count;
static __thread uint32_t retry_seq;          /* vm_state_seq at the last retry */

/* ---- alternate stacks ------------------------------------------------------------------- */

static void alt_free(void *mem)
{
    stack_t ss = { .ss_flags = SS_DISABLE };
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == (char *)mem + VM_PAGE) sigaltstack(&ss, NULL);
    munmap(mem, ALTSTACK_SIZE + VM_PAGE);
}

NSPA_HIDDEN void vm_thread_altstack(void)
{
    if (alt_mem) return;
    stack_t cur;
    /* keep one that is there already (ASan's, the program's own) */
    if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE) && cur.ss_size >= 16384) return;
    void *m = mmap(NULL, ALTSTACK_SIZE + VM_PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return;
    mprotect(m, VM_PAGE, PROT_NONE);         /* a guard below it */
    stack_t ss = { .ss_sp = (char *)m + VM_PAGE, .ss_size = ALTSTACK_SIZE, .ss_flags = 0 };
    if (sigaltstack(&ss, NULL)) { munmap(m, ALTSTACK_SIZE + VM_PAGE); return; }
    alt_mem = m;
    /* glibc keeps the first 32 keys' values in the thread descriptor: no allocation */
    if (atomic_load(&installed) == 2) pthread_setspecific(alt_key, m);
}

NSPA_HIDDEN void nspa__vm_thread_start(void)
{
    if (atomic_load_explicit(&installed, memory_order_acquire) == 2) vm_thread_altstack();
}

NSPA_EXPORT int nspa_vm_thread_init(void)
{
    int e = vm_fault_install();
    if (e) return e;
    vm_thread_altstack();
    return 0;
}

/* ---- classification --------------------------------------------------------------------- */

static int access_allowed(uint16_t ps, int write, int exec)
{
    switch (ps & PS_BASE_MASK) {
    case PAGE_NOACCESS:          return 0;
    case PAGE_READONLY:          return !write && !exec;
    case PAGE_READWRITE:
    case PAGE_WRITECOPY:         return !exec;
    case PAGE_EXECUTE:
    case PAGE_EXECUTE_READ:      return !write;
    default:                     return 1;
    }
}

NSPA_HIDDEN enum vm_fault_kind vm_fault_classify(uintptr_t addr, int write, int exec)
{
    enum vm_fault_kind k = VF_ACCESS;
    uint32_t seq = atomic_load_explicit(&vm_state_seq, memory_order_acquire);
    vm_read_enter();
    struct vm_rec *r = vm_find(addr);
    if (!r) goto out;
    size_t i = (addr - r->base) / VM_PAGE;
    uint16_t ps = atomic_load_explicit(&r->pages[i], memory_order_acquire);
    for (;;) {
        if (!(ps & PS_COMMIT)) goto out;
        if (ps & PS_GUARD) {
            /* one-shot: whoever clears the bit reports it; the page keeps its base
             * protection from now on */
            if (!atomic_compare_exchange_weak_explicit(&r->pages[i], &ps, ps & ~PS_GUARD,
                                                       memory_order_acq_rel, memory_order_acquire))
                continue;
            vm_state_changed();
            vm_sync_page(r, i);
            k = VF_GUARD;
            goto out;
        }
        if (!access_allowed(ps, write, exec)) goto out;
        if (write && (r->flags & VR_WRITE_WATCH) && !(ps & PS_DIRTY)) {
            if (!atomic_compare_exchange_weak_explicit(&r->pages[i], &ps, ps | PS_DIRTY,
                                                       memory_order_acq_rel, memory_order_acquire))
                continue;
            vm_state_changed();
        }
        break;
    }
    /* the state allows the access: the kernel's protection lags behind a change another
     * thread is making (a guard just taken, a protect in flight): bring it up to date.
     * The same address faulting again and again with nothing to change is a fault the
     * state cannot explain: report it rather than loop. "Nothing changed": no page state
     * changed anywhere since the last retry (vm_state_seq). Before, retries counted over
     * the thread's life: a thread that lost the race for one guard page nine times in a
     * row (vm_guard re-arms it 200 times; seen once in an ASan run under load) had its
     * ninth, legitimate, retry reported as an access violation. */
    if (retry_addr == addr && retry_seq == seq && ++retry_count > 8) goto out;
    if (retry_addr != addr || retry_seq != seq) { retry_addr = addr; retry_seq = seq; retry_count = 0; }
    vm_sync_page(r, i);
    k = VF_RETRY;
out:
    vm_read_exit();
    if (k != VF_RETRY) retry_addr = 0;
    return k;
}

/* ---- the handler -------------------------------------------------------------------------- */

static void chain(int sig, siginfo_t *si, void *uc)
{
    const struct sigaction *p = &prev[sig];
    if ((p->sa_flags & SA_SIGINFO) && p->sa_sigaction) {
        p->sa_sigaction(sig, si, uc);
        return;
    }
    if (p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
        p->sa_handler(sig);
        return;
    }
    /* the default action, now, at the faulting instruction: a core dump with the
     * original signal (returning would re-run an instruction that may no longer fault,
     * e.g. a guard page already given up) */
    struct sigaction dfl = { .sa_handler = SIG_DFL };
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
}

/* running on an alternate signal stack (the normal one may be exhausted) */
static int on_altstack(void)
{
    stack_t cur;
    return sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_ONSTACK);
}

static void handler(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = ucv;
    int saved_errno = errno;
    if (si->si_code <= 0) {                   /* kill(), tgkill(), sigqueue(): not a fault */
        chain(sig, si, ucv);
        errno = saved_errno;
        return;
    }
    EXCEPTION_RECORD rec;
    memset(&rec, 0, sizeof rec);
    uintptr_t rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    rec.ExceptionAddress = (void *)rip;
    int adjust_rip = 0;
    switch (sig) {
    case SIGSEGV:
    case SIGBUS: {
        uintptr_t addr = (uintptr_t)si->si_addr;
        unsigned long err = (unsigned long)uc->uc_mcontext.gregs[REG_ERR];
        int write = (err & 2) != 0, exec = (err & 16) != 0;
        enum vm_fault_kind k = vm_fault_classify(addr, write, exec);
        if (k == VF_RETRY) { errno = saved_errno; return; }
        uintptr_t rsp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
        if (k == VF_GUARD) rec.ExceptionCode = (DWORD)STATUS_GUARD_PAGE_VIOLATION;
        else if (sig == SIGBUS && si->si_code == BUS_ADRALN) rec.ExceptionCode = (DWORD)STATUS_DATATYPE_MISALIGNMENT;
        else if (sig == SIGBUS) rec.ExceptionCode = (DWORD)STATUS_IN_PAGE_ERROR;
        else if (addr < rsp + 256 && addr + 65536 > rsp && on_altstack())
            rec.ExceptionCode = (DWORD)STATUS_STACK_OVERFLOW;
        else rec.ExceptionCode = (DWORD)STATUS_ACCESS_VIOLATION;
        if (rec.ExceptionCode != (DWORD)STATUS_DATATYPE_MISALIGNMENT) {
            rec.NumberParameters = rec.ExceptionCode == (DWORD)STATUS_IN_PAGE_ERROR ? 3 : 2;
            rec.ExceptionInformation[0] = exec ? 8 : write ? 1 : 0;
            rec.ExceptionInformation[1] = addr;
            rec.ExceptionInformation[2] = (ULONG_PTR)(LONG_PTR)STATUS_IN_PAGE_ERROR;
        }
        break;
    }
    case SIGFPE:
        switch (si->si_code) {
        case FPE_INTDIV: rec.ExceptionCode = (DWORD)STATUS_INTEGER_DIVIDE_BY_ZERO; break;
        case FPE_INTOVF: rec.ExceptionCode = (DWORD)STATUS_INTEGER_OVERFLOW; break;
        case FPE_FLTDIV: rec.ExceptionCode = (DWORD)STATUS_FLOAT_DIVIDE_BY_ZERO; break;
        case FPE_FLTOVF: rec.ExceptionCode = (DWORD)STATUS_FLOAT_OVERFLOW; break;
        case FPE_FLTUND: rec.ExceptionCode = (DWORD)STATUS_FLOAT_UNDERFLOW; break;
        case FPE_FLTRES: rec.ExceptionCode = (DWORD)STATUS_FLOAT_INEXACT_RESULT; break;
        case FPE_FLTSUB: rec.ExceptionCode = (DWORD)STATUS_ARRAY_BOUNDS_EXCEEDED; break;
        default:         rec.ExceptionCode = (DWORD)STATUS_FLOAT_INVALID_OPERATION; break;
        }
        break;
    case SIGILL:
        rec.ExceptionCode = (DWORD)(si->si_code == ILL_PRVOPC || si->si_code == ILL_PRVREG
                                    ? STATUS_PRIVILEGED_INSTRUCTION : STATUS_ILLEGAL_INSTRUCTION);
        break;
    case SIGTRAP:
        if (si->si_code == TRAP_TRACE) {
            rec.ExceptionCode = (DWORD)STATUS_SINGLE_STEP;
        } else {
            /* int3: Windows reports the breakpoint's own address, and so does CONTEXT.Rip
             * (a handler that continues must step over it) */
            rec.ExceptionCode = (DWORD)STATUS_BREAKPOINT;
            rec.ExceptionAddress = (void *)(rip - 1);
            rec.NumberParameters = 1;
            adjust_rip = 1;
        }
        break;
    default:
        chain(sig, si, ucv);
        errno = saved_errno;
        return;
    }
    vm_thread_altstack();                     /* this thread's first fault: for the next */
    CONTEXT ctx;
    vm_ctx_from_ucontext(&ctx, uc);
    ctx.Rip -= (DWORD64)adjust_rip;
    if (vm_dispatch(&rec, &ctx, 0)) {
        vm_ctx_to_ucontext(uc, &ctx);
        errno = saved_errno;
        return;
    }
    chain(sig, si, ucv);
    errno = saved_errno;
}

static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static void do_install(void)
{
    pthread_key_create(&alt_key, alt_free);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    /* NODEFER: a fault inside a handler is dispatched again, as a nested exception */
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fault_sigs / sizeof fault_sigs[0]; i++)
        sigaction(fault_sigs[i], &sa, &prev[fault_sigs[i]]);
    atomic_store_explicit(&installed, 2, memory_order_release);
}

NSPA_HIDDEN int vm_fault_install(void)
{
    if (atomic_load_explicit(&installed, memory_order_acquire) != 2) pthread_once(&install_once, do_install);
    if (alt_mem) pthread_setspecific(alt_key, alt_mem);
    vm_thread_altstack();
    return 0;
}
