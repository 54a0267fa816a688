/* Win32 exception API over the vm module's dispatcher (except.c, fault.c). */
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include "vm/vm_internal.h"
#include "nspa/win32/windows.h"
#include "nspa/win32/errhandlingapi.h"

NSPA_EXPORT PVOID WINAPI AddVectoredExceptionHandler(ULONG first, PVECTORED_EXCEPTION_HANDLER handler)
{
    if (vm_fault_install()) return NULL;
    return (PVOID)vm_handler_add(0, (vm_handler_fn)handler, first != 0);
}

NSPA_EXPORT ULONG WINAPI RemoveVectoredExceptionHandler(PVOID cookie)
{
    return (ULONG)vm_handler_remove(0, (uintptr_t)cookie);
}

NSPA_EXPORT PVOID WINAPI AddVectoredContinueHandler(ULONG first, PVECTORED_EXCEPTION_HANDLER handler)
{
    if (vm_fault_install()) return NULL;
    return (PVOID)vm_handler_add(1, (vm_handler_fn)handler, first != 0);
}

NSPA_EXPORT ULONG WINAPI RemoveVectoredContinueHandler(PVOID cookie)
{
    return (ULONG)vm_handler_remove(1, (uintptr_t)cookie);
}

NSPA_EXPORT LPTOP_LEVEL_EXCEPTION_FILTER WINAPI SetUnhandledExceptionFilter(LPTOP_LEVEL_EXCEPTION_FILTER filter)
{
    vm_fault_install();
    return (LPTOP_LEVEL_EXCEPTION_FILTER)vm_set_filter((vm_handler_fn)filter);
}

NSPA_EXPORT LONG WINAPI UnhandledExceptionFilter(struct _EXCEPTION_POINTERS *info)
{
    vm_handler_fn f = vm_get_filter();
    return f ? f(info) : EXCEPTION_EXECUTE_HANDLER;
}

NSPA_EXPORT void WINAPI RtlCaptureContext(PCONTEXT ctx)
{
    ucontext_t uc;
    getcontext(&uc);
    vm_ctx_from_ucontext(ctx, &uc);
    ctx->Rip = (DWORD64)__builtin_return_address(0);
    ctx->Rsp = (DWORD64)__builtin_frame_address(0) + 16;
}

static void unhandled(const EXCEPTION_RECORD *rec)
{
    char msg[96];
    static const char hexd[] = "0123456789abcdef";
    const char *pre = "nspa: unhandled exception 0x";
    size_t n = strlen(pre);
    memcpy(msg, pre, n);
    for (int i = 7; i >= 0; i--) msg[n++] = hexd[(rec->ExceptionCode >> (i * 4)) & 15];
    msg[n++] = '\n';
    if (write(2, msg, n) < 0) { /* nothing more to say */ }
    _exit((int)rec->ExceptionCode);           /* as ExitProcess(code) */
}

NSPA_EXPORT void WINAPI RaiseException(DWORD code, DWORD flags, DWORD nargs, const ULONG_PTR *args)
{
    EXCEPTION_RECORD rec;
    memset(&rec, 0, sizeof rec);
    rec.ExceptionCode = code;
    rec.ExceptionFlags = flags & EXCEPTION_NONCONTINUABLE;
    rec.ExceptionAddress = __builtin_return_address(0);
    if (nargs > EXCEPTION_MAXIMUM_PARAMETERS) nargs = EXCEPTION_MAXIMUM_PARAMETERS;
    if (args) {
        rec.NumberParameters = nargs;
        memcpy(rec.ExceptionInformation, args, nargs * sizeof args[0]);
    }
    vm_thread_altstack();
    /* the context is the caller's at the return from RaiseException; a handler that
     * changes Rip, Rsp or the registers getcontext keeps (callee-saved and argument
     * registers) continues there via setcontext */
    static __thread volatile int resumed;
    ucontext_t uc;
    resumed = 0;
    getcontext(&uc);
    if (resumed) return;
    CONTEXT ctx, orig;
    vm_ctx_from_ucontext(&ctx, &uc);
    ctx.Rip = (DWORD64)__builtin_return_address(0);
    ctx.Rsp = (DWORD64)__builtin_frame_address(0) + 16;
    orig = ctx;
    if (!vm_dispatch(&rec, &ctx, 0)) unhandled(&rec);
    if (rec.ExceptionFlags & EXCEPTION_NONCONTINUABLE) {
        EXCEPTION_RECORD nc;
        memset(&nc, 0, sizeof nc);
        nc.ExceptionCode = (DWORD)STATUS_NONCONTINUABLE_EXCEPTION;
        nc.ExceptionFlags = EXCEPTION_NONCONTINUABLE;
        nc.ExceptionRecord = &rec;
        nc.ExceptionAddress = rec.ExceptionAddress;
        vm_dispatch(&nc, &orig, 0);
        unhandled(&nc);
    }
    if (memcmp(&ctx.Rax, &orig.Rax, (size_t)((char *)&ctx.Rip - (char *)&ctx.Rax) + sizeof ctx.Rip)) {
        vm_ctx_to_ucontext(&uc, &ctx);
        resumed = 1;
        setcontext(&uc);
    }
}
