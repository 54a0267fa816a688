/*
 * Large pages and the lock-memory privilege.
 *
 * Huge pages come from hugetlb (MAP_HUGETLB; the pool is /proc/sys/vm/nr_hugepages and
 * /sys/kernel/mm/hugepages/hugepages-1048576kB for 1 GiB pages). Windows asks for
 * SeLockMemoryPrivilege, present in the token and enabled; Linux asks for the right to
 * lock memory. The privilege is "held" when the process has CAP_IPC_LOCK or an
 * unlimited RLIMIT_MEMLOCK, and starts disabled as in a Windows token:
 * AdjustTokenPrivileges / RtlAdjustPrivilege enable it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "vm/vm_internal.h"

static _Atomic int lock_priv_enabled;

NSPA_HIDDEN size_t vm_huge_size(int giant)
{
    if (giant)
        return access("/sys/kernel/mm/hugepages/hugepages-1048576kB", F_OK) == 0 ? (size_t)1 << 30 : 0;
    /* the default huge page size (Hugepagesize in /proc/meminfo); x86_64: 2 MiB */
    return access("/sys/kernel/mm/hugepages/hugepages-2048kB", F_OK) == 0 ? (size_t)2 << 20 : 0;
}

NSPA_EXPORT size_t nspa_vm_large_page_minimum(void) { return vm_huge_size(0); }

/* may this process lock memory: CAP_IPC_LOCK, or no RLIMIT_MEMLOCK */
NSPA_HIDDEN int vm_lock_privilege_held(void)
{
    struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
    struct __user_cap_data_struct d[2];
    if (syscall(SYS_capget, &h, d) == 0 && (d[CAP_IPC_LOCK / 32].effective & (1u << (CAP_IPC_LOCK % 32))))
        return 1;
    struct rlimit rl;
    return getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY;
}

NSPA_HIDDEN int vm_lock_privilege_enabled(void)
{
    return atomic_load_explicit(&lock_priv_enabled, memory_order_acquire) && vm_lock_privilege_held();
}

NSPA_EXPORT int nspa_vm_lock_privilege(int enable, int *was_enabled)
{
    if (was_enabled) *was_enabled = atomic_load(&lock_priv_enabled);
    if (enable && !vm_lock_privilege_held()) return -EPERM;
    atomic_store_explicit(&lock_priv_enabled, enable != 0, memory_order_release);
    return 0;
}

/* ---- /proc/self/smaps: the kernel page size and lock flag of the mapping at addr -------- */

NSPA_HIDDEN int vm_smaps_info(uintptr_t addr, size_t *kpage, int *locked)
{
    FILE *f = fopen("/proc/self/smaps", "re");
    if (!f) return -errno;
    char line[512];
    int in = 0, found = 0;
    *kpage = 0;
    *locked = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long s, e;
        char c;
        if (sscanf(line, "%lx-%lx %c", &s, &e, &c) == 3 && line[0] != 'V') {
            if (in) break;                    /* past our mapping */
            in = addr >= s && addr < e;
            found |= in;
            continue;
        }
        if (!in) continue;
        unsigned long kb;
        if (sscanf(line, "KernelPageSize: %lu kB", &kb) == 1) *kpage = kb * 1024;
        else if (!strncmp(line, "VmFlags:", 8)) *locked = strstr(line, " lo") != NULL;
    }
    fclose(f);
    return found ? 0 : -ENOENT;
}
