/*
 * NSPA virtual memory: Windows' reserve / commit / decommit / release model over mmap,
 * guard pages, write watches, large pages and file mappings (docs/vm.md).
 *
 * Conventions: every call returns 0 or a negative errno value and never sets errno.
 * Flags and protections are the Win32 values (MEM_*, PAGE_*, SEC_*: <nspa/win32/memoryapi.h>
 * spells them); the Win32 names VirtualAlloc... are thin wrappers. Errors:
 *   -EINVAL         a bad flag, protection, size or combination (ERROR_INVALID_PARAMETER)
 *   -EADDRNOTAVAIL  the range is not (wholly) inside one allocation in the state the call
 *                   needs, or an address is in use (ERROR_INVALID_ADDRESS)
 *   -EFAULT         a NULL output pointer (ERROR_NOACCESS)
 *   -ENOMEM         no address space or memory (ERROR_NOT_ENOUGH_MEMORY)
 *   -ENOSPC         no free huge pages (ERROR_NO_SYSTEM_RESOURCES)
 *   -EPERM          the lock-memory privilege is not enabled (ERROR_PRIVILEGE_NOT_HELD)
 *   -ENOLCK         VirtualUnlock of pages that are not locked (ERROR_NOT_LOCKED)
 *   -EAGAIN         VirtualLock over the lockable limit (ERROR_WORKING_SET_QUOTA)
 */
#ifndef NSPA_VM_H
#define NSPA_VM_H
#include <stddef.h>
#include <stdint.h>
#include "nspa/sync.h"

#ifdef __cplusplus
extern "C" {
#endif

/* one MEMORY_BASIC_INFORMATION, field for field */
struct nspa_vm_info {
    void     *base;            /* BaseAddress */
    void     *alloc_base;      /* AllocationBase (NULL when free) */
    uint32_t  alloc_prot;      /* AllocationProtect */
    size_t    size;            /* RegionSize: pages from base with the same state */
    uint32_t  state;           /* MEM_COMMIT / MEM_RESERVE / MEM_FREE */
    uint32_t  prot;            /* Protect (0 when reserved) */
    uint32_t  type;            /* MEM_PRIVATE / MEM_MAPPED / MEM_IMAGE, 0 when free */
};

/* VirtualAlloc: *addr in (hint or NULL), out. align: 0 or a power of two >= 64 KiB
 * (VirtualAlloc2's MEM_ADDRESS_REQUIREMENTS); giant: 1 GiB pages for MEM_LARGE_PAGES. */
int nspa_vm_alloc(void **addr, size_t size, uint32_t type, uint32_t prot, size_t align, int giant);
int nspa_vm_free(void *addr, size_t size, uint32_t type);
int nspa_vm_protect(void *addr, size_t size, uint32_t prot, uint32_t *old);
int nspa_vm_query(const void *addr, struct nspa_vm_info *info);
int nspa_vm_lock(void *addr, size_t size);
int nspa_vm_unlock(void *addr, size_t size);
/* GetWriteWatch: up to *count page addresses written since the last reset; reset clears */
int nspa_vm_write_watch(void *base, size_t size, int reset, void **pages, size_t *count);
int nspa_vm_reset_write_watch(void *base, size_t size);
/* The kernel is about to write [addr, addr + len) for the program (read() into a buffer,
 * an I/O completion): write-watched pages there that are not dirty are counted as
 * written and opened now, as Windows counts such writes; without this the system call
 * gets EFAULT on the write-protected page (watches are mprotect-based). A guard page
 * there loses its guard (one-shot, as a system service meets it on Windows) and the
 * result is -EFAULT: the I/O call fails (ERROR_NOACCESS) and the next one gets through.
 * The I/O layer calls it before handing a user buffer to the kernel. Returns 0 or
 * -EFAULT. */
int nspa_vm_before_kernel_write(void *addr, size_t len);

/* file mappings (sections). fd: -1 for pagefile-backed memory, or a file descriptor the
 * section keeps a duplicate of (file-backed; size 0 = the file's size). prot: the
 * PAGE_* protection with SEC_* flags. A named section is shared by the processes of
 * the namespace. Returns 0, NSPA_EXISTED (a new handle to the existing section), or
 * -errno (-EEXIST: the name is another kind of object). */
int nspa_vm_section_create(int fd, uint64_t size, uint32_t prot, const char *name, nspa_obj_t *out);
int nspa_vm_section_open(const char *name, nspa_obj_t *out);
/* map a view: access FILE_MAP_*; *addr in: 0 or the wanted (64 KiB aligned) base */
int nspa_vm_map_view(nspa_obj_t section, uint32_t access, uint64_t offset, size_t size, void **addr);
int nspa_vm_unmap_view(const void *addr);
int nspa_vm_flush_view(const void *addr, size_t size);

/* exceptions: give the calling thread its alternate signal stack now (threads that never
 * call an exception API get one at their first fault; see docs/vm.md) */
int nspa_vm_thread_init(void);

/* large pages: the huge page size (0 if the host has none) */
size_t nspa_vm_large_page_minimum(void);
/* enable or disable the lock-memory privilege (SeLockMemoryPrivilege); -EPERM when the
 * process may not lock memory (neither CAP_IPC_LOCK nor an unlimited RLIMIT_MEMLOCK) */
int nspa_vm_lock_privilege(int enable, int *was_enabled);

#ifdef __cplusplus
}
#endif
#endif
