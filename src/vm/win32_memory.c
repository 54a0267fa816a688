/* Win32 virtual memory: VirtualAlloc and friends over nspa_vm_* (alloc.c, query.c). */
#include <errno.h>
#include "vm/vm_internal.h"
#include "nspa/win32/windows.h"
#include "nspa/win32/memoryapi.h"
#include "win32/win32_error.h"

NSPA_HIDDEN int vm_win32_fail(int err)
{
    SetLastError(win32_error_from_errno(err, WIN32_ERR_MEMORY));
    return 0;
}

/* calls on another process are not supported: only the current-process pseudo handle */
static int self_process(HANDLE process)
{
    if (process == GetCurrentProcess()) return 1;
    SetLastError(process ? ERROR_NOT_SUPPORTED : ERROR_INVALID_HANDLE);
    return 0;
}

NSPA_EXPORT LPVOID WINAPI VirtualAlloc(LPVOID addr, SIZE_T size, DWORD type, DWORD prot)
{
    void *p = addr;
    int e = nspa_vm_alloc(&p, size, type, prot, 0, 0);
    return e ? (vm_win32_fail(e), NULL) : p;
}

NSPA_EXPORT LPVOID WINAPI VirtualAllocEx(HANDLE process, LPVOID addr, SIZE_T size, DWORD type, DWORD prot)
{
    return self_process(process) ? VirtualAlloc(addr, size, type, prot) : NULL;
}

NSPA_EXPORT PVOID WINAPI VirtualAlloc2(HANDLE process, PVOID addr, SIZE_T size, ULONG type, ULONG prot,
                                       MEM_EXTENDED_PARAMETER *params, ULONG count)
{
    if (process && !self_process(process)) return NULL;
    size_t align = 0;
    int giant = 0;
    if (count && !params) { SetLastError(ERROR_INVALID_PARAMETER); return NULL; }
    for (ULONG i = 0; i < count; i++) {
        switch (params[i].Type) {
        case MemExtendedParameterAddressRequirements: {
            const MEM_ADDRESS_REQUIREMENTS *r = params[i].Pointer;
            if (!r || r->LowestStartingAddress || r->HighestEndingAddress) {
                /* address windows are not provided (docs/vm.md) */
                SetLastError(r ? ERROR_NOT_SUPPORTED : ERROR_INVALID_PARAMETER);
                return NULL;
            }
            align = r->Alignment;
            break;
        }
        case MemExtendedParameterAttributeFlags:
            if (params[i].ULong64 & MEM_EXTENDED_PARAMETER_NONPAGED_HUGE) giant = 1;
            break;
        case MemExtendedParameterNumaNode:
            break;                            /* one node as far as NSPA knows */
        default:
            SetLastError(ERROR_INVALID_PARAMETER);
            return NULL;
        }
    }
    void *p = addr;
    int e = nspa_vm_alloc(&p, size, type, prot, align, giant);
    return e ? (vm_win32_fail(e), NULL) : p;
}

NSPA_EXPORT BOOL WINAPI VirtualFree(LPVOID addr, SIZE_T size, DWORD type)
{
    int e = nspa_vm_free(addr, size, type);
    return e ? vm_win32_fail(e) : TRUE;
}

NSPA_EXPORT BOOL WINAPI VirtualFreeEx(HANDLE process, LPVOID addr, SIZE_T size, DWORD type)
{
    return self_process(process) ? VirtualFree(addr, size, type) : FALSE;
}

NSPA_EXPORT BOOL WINAPI VirtualProtect(LPVOID addr, SIZE_T size, DWORD prot, PDWORD old)
{
    uint32_t o = 0;
    int e = old ? nspa_vm_protect(addr, size, prot, &o) : -EFAULT;
    if (e) return vm_win32_fail(e);
    *old = o;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI VirtualProtectEx(HANDLE process, LPVOID addr, SIZE_T size, DWORD prot, PDWORD old)
{
    return self_process(process) ? VirtualProtect(addr, size, prot, old) : FALSE;
}

NSPA_EXPORT SIZE_T WINAPI VirtualQuery(LPCVOID addr, PMEMORY_BASIC_INFORMATION info, SIZE_T len)
{
    if (len < sizeof *info) { SetLastError(ERROR_BAD_LENGTH); return 0; }
    struct nspa_vm_info vi;
    int e = info ? nspa_vm_query(addr, &vi) : -EFAULT;
    if (e) return (SIZE_T)vm_win32_fail(e);
    info->BaseAddress = vi.base;
    info->AllocationBase = vi.alloc_base;
    info->AllocationProtect = vi.alloc_prot;
    info->PartitionId = 0;
    info->RegionSize = vi.size;
    info->State = vi.state;
    info->Protect = vi.prot;
    info->Type = vi.type;
    return sizeof *info;
}

NSPA_EXPORT SIZE_T WINAPI VirtualQueryEx(HANDLE process, LPCVOID addr, PMEMORY_BASIC_INFORMATION info, SIZE_T len)
{
    return self_process(process) ? VirtualQuery(addr, info, len) : 0;
}

NSPA_EXPORT BOOL WINAPI VirtualLock(LPVOID addr, SIZE_T size)
{
    int e = nspa_vm_lock(addr, size);
    return e ? vm_win32_fail(e) : TRUE;
}

NSPA_EXPORT BOOL WINAPI VirtualUnlock(LPVOID addr, SIZE_T size)
{
    int e = nspa_vm_unlock(addr, size);
    return e ? vm_win32_fail(e) : TRUE;
}

NSPA_EXPORT UINT WINAPI GetWriteWatch(DWORD flags, PVOID base, SIZE_T size, PVOID *addresses,
                                      ULONG_PTR *count, ULONG *granularity)
{
    if (flags & ~WRITE_WATCH_FLAG_RESET) { SetLastError(ERROR_INVALID_PARAMETER); return (UINT)-1; }
    if (!count || !granularity) { SetLastError(ERROR_NOACCESS); return (UINT)-1; }
    size_t n = *count;
    int e = nspa_vm_write_watch(base, size, flags & WRITE_WATCH_FLAG_RESET, addresses, &n);
    if (e) { vm_win32_fail(e); return (UINT)-1; }
    *count = n;
    *granularity = (ULONG)VM_PAGE;
    return 0;
}

NSPA_EXPORT UINT WINAPI ResetWriteWatch(LPVOID base, SIZE_T size)
{
    int e = nspa_vm_reset_write_watch(base, size);
    if (e) { vm_win32_fail(e); return (UINT)-1; }
    return 0;
}

NSPA_EXPORT BOOL WINAPI FlushInstructionCache(HANDLE process, LPCVOID addr, SIZE_T size)
{
    /* x86 keeps instruction and data caches coherent: a compiler barrier is all */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return TRUE;
}
