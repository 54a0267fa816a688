/*
 * File mappings (sections): a handle-table object of kind NSPA_TYPE_SECTION that names
 * its backing store; views are records of the region table (VR_VIEW, MEM_MAPPED).
 *
 * Backing (the object's 64-bit word):
 *  - a named pagefile-backed section: a file <namespace region path>.sec-<token> in the
 *    user's private runtime directory (tmpfs), created 0600 before the name is
 *    published and unlinked when the object is freed (by whichever process drops the
 *    last reference, the sweep of a dead process included);
 *  - an unnamed section, a large-page section and a file-backed one: a file descriptor
 *    of the creating process (memfd, memfd with MFD_HUGETLB, or a dup of the caller's
 *    fd); another process of the namespace reaches it through /proc/<pid>/fd/<n>, so a
 *    named section of this sort lives as long as its creator (docs/vm.md).
 * max: the size in 4 KiB pages; ext: the PAGE_* protection and SEC_* flags.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "vm/vm_internal.h"
#include "sync/sync_api.h"
#include "nspa/win32/windows.h"
#include "nspa/win32/memoryapi.h"

#define W_NSFILE  (1ull << 63)               /* a file in the namespace directory */
#define W_FD      (1ull << 62)               /* pid << 32 | fd of the creator */

static _Atomic uint32_t token_seq;

static void ns_file(char *buf, size_t cap, uint64_t token)
{
    const char *ns = nspa__ns_path();
    snprintf(buf, cap, "%s.sec-%llx", ns ? ns : "/nonexistent", (unsigned long long)token);
}

static void section_free(uint64_t word, uint32_t max, uint32_t ext)
{
    if (word & W_NSFILE) {
        char path[900];
        ns_file(path, sizeof path, word & ~W_NSFILE);
        unlink(path);
    } else if ((word & W_FD) && (pid_t)((word >> 32) & 0x3fffffff) == getpid()) {
        close((int)(uint32_t)word);
    }
}

__attribute__((constructor)) static void section_kind_init(void)
{
    nspa__obj_on_free(NSPA_TYPE_SECTION, section_free);
}

static int prot_ok(uint32_t base)
{
    return base == PAGE_READONLY || base == PAGE_READWRITE || base == PAGE_WRITECOPY ||
           base == PAGE_EXECUTE_READ || base == PAGE_EXECUTE_READWRITE || base == PAGE_EXECUTE_WRITECOPY;
}

NSPA_EXPORT int nspa_vm_section_create(int fd, uint64_t size, uint32_t prot, const char *name, nspa_obj_t *out)
{
    const uint32_t secs = SEC_COMMIT | SEC_RESERVE | SEC_LARGE_PAGES | SEC_NOCACHE | SEC_WRITECOMBINE;
    if (!out) return -EFAULT;
    uint32_t base = prot & 0xff, sec = prot & ~0xffu;
    if (!prot_ok(base) || (sec & ~secs) || ((sec & SEC_COMMIT) && (sec & SEC_RESERVE))) return -EINVAL;
    int large = (sec & SEC_LARGE_PAGES) != 0;
    size_t lpage = large ? vm_huge_size(0) : VM_PAGE;
    if (large) {
        if (fd >= 0 || (sec & SEC_RESERVE)) return -EINVAL;
        if (!lpage) return -ENOSPC;
        if (!vm_lock_privilege_enabled()) return -EPERM;
        if (!size || (size & (lpage - 1))) return -EINVAL;
    }
    if (fd >= 0) {
        struct stat st;
        if (fstat(fd, &st)) return -EBADF;
        if (!size) size = (uint64_t)st.st_size;
        if (!size) return -EINVAL;            /* an empty file cannot be mapped */
        if (size > (uint64_t)st.st_size) {
            if (base != PAGE_READWRITE && base != PAGE_EXECUTE_READWRITE) return -EACCES;
            if (ftruncate(fd, (off_t)size)) return -errno;   /* Windows extends the file */
        }
    } else if (!size) {
        return -EINVAL;
    }
    if (size > (uint64_t)UINT32_MAX * VM_PAGE) return -ENOMEM;
    uint32_t pages = (uint32_t)((size + VM_PAGE - 1) / VM_PAGE);
    if (!(sec & (SEC_COMMIT | SEC_RESERVE))) prot |= SEC_COMMIT;

    if (name) {                               /* an existing one: no new backing */
        nspa_obj_t h;
        if (nspa_vm_section_open(name, &h) == 0) { *out = h; return NSPA_EXISTED; }
    }
    uint64_t word;
    int own_fd = -1;
    char path[900] = "";
    if (name && fd < 0 && !large) {
        if (!nspa__ns_path()) return -EACCES;
        for (int tries = 0;; tries++) {
            uint64_t token = ((uint64_t)getpid() << 24) | (atomic_fetch_add(&token_seq, 1) & 0xffffff);
            ns_file(path, sizeof path, token);
            own_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (own_fd >= 0) { word = W_NSFILE | token; break; }
            if (errno != EEXIST || tries > 16) return -errno;
        }
        if (ftruncate(own_fd, (off_t)pages * VM_PAGE)) {
            int e = -errno;
            close(own_fd);
            unlink(path);
            return e;
        }
        close(own_fd);
        own_fd = -1;
    } else {
        if (fd >= 0) own_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        else own_fd = memfd_create("nspa-section", MFD_CLOEXEC | (large ? MFD_HUGETLB : 0));
        if (own_fd < 0) return -errno;
        if (fd < 0 && ftruncate(own_fd, (off_t)pages * VM_PAGE)) {
            close(own_fd);
            return large ? -ENOSPC : -ENOMEM;
        }
        word = W_FD | ((uint64_t)getpid() << 32) | (uint32_t)own_fd;
    }
    int r = nspa__obj_create_data(NSPA_TYPE_SECTION, word, pages, prot, name, out);
    if (r != 0) section_free(word, pages, prot);  /* existed meanwhile, or failed */
    return r;
}

NSPA_EXPORT int nspa_vm_section_open(const char *name, nspa_obj_t *out)
{
    return nspa_open(NSPA_TYPE_SECTION, name, out);
}

/* a descriptor of the section's store for mapping; close it after */
static int backing_fd(uint64_t word, int writable)
{
    char path[900];
    if (word & W_NSFILE) {
        ns_file(path, sizeof path, word & ~W_NSFILE);
        return open(path, (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC);
    }
    pid_t pid = (pid_t)((word >> 32) & 0x3fffffff);
    int fd = (int)(uint32_t)word;
    if (pid == getpid()) return fcntl(fd, F_DUPFD_CLOEXEC, 3);
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
    return open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
}

NSPA_EXPORT int nspa_vm_map_view(nspa_obj_t section, uint32_t access, uint64_t offset, size_t size, void **addr)
{
    uint64_t word;
    uint32_t pages, sprot;
    if (!addr) return -EFAULT;
    int r = nspa__obj_data(section, NSPA_TYPE_SECTION, &word, &pages, &sprot);
    if (r) return -EBADF;
    uint32_t sbase = sprot & 0xff;
    int large = (sprot & SEC_LARGE_PAGES) != 0;
    size_t lpage = large ? vm_huge_size(0) : VM_PAGE;
    uint64_t ssize = (uint64_t)pages * VM_PAGE;
    if (offset & (VM_GRAN - 1) || (large && (offset & (lpage - 1)))) return -EINVAL;
    if (offset >= ssize || (size && size > ssize - offset)) return -EACCES;
    if (!size) size = (size_t)(ssize - offset);
    uintptr_t want = (uintptr_t)*addr;
    if (want & (VM_GRAN - 1)) return -EINVAL;
    /* the view's protection: what the access asks, if the section allows it */
    int exec = (access & FILE_MAP_EXECUTE) != 0;
    int s_write = sbase == PAGE_READWRITE || sbase == PAGE_EXECUTE_READWRITE;
    int s_exec = sbase >= PAGE_EXECUTE_READ;
    uint32_t vprot;
    int shared = 1;
    if (exec && !s_exec) return -EACCES;
    if (access & FILE_MAP_WRITE) {
        if (!s_write) return -EACCES;
        vprot = exec ? PAGE_EXECUTE_READWRITE : PAGE_READWRITE;
    } else if (access & FILE_MAP_COPY) {
        vprot = exec ? PAGE_EXECUTE_WRITECOPY : PAGE_WRITECOPY;
        shared = 0;
    } else if (access & (FILE_MAP_READ | FILE_MAP_EXECUTE)) {
        vprot = exec ? PAGE_EXECUTE_READ : PAGE_READONLY;
    } else {
        vprot = PAGE_NOACCESS;                /* access 0: a view nobody may touch yet */
    }
    int reserve_only = (sprot & SEC_RESERVE) != 0;
    uint16_t ps = reserve_only ? 0 : (uint16_t)(PS_COMMIT | vprot);
    struct vm_rec tmp = { .flags = VR_VIEW };
    int kprot = reserve_only ? PROT_NONE : vm_ps_prot(&tmp, ps);
    int fd = backing_fd(word, s_write && shared);
    if (fd < 0) return errno == ENOENT ? -ENOENT : -EACCES;
    size_t len = (size + VM_PAGE - 1) & ~(VM_PAGE - 1);
    size_t glen = large ? len : (len + VM_GRAN - 1) & ~(VM_GRAN - 1);
    int flags = (shared ? MAP_SHARED : MAP_PRIVATE);
    void *p;
    if (large) p = mmap((void *)want, len, kprot, flags | (want ? MAP_FIXED_NOREPLACE : 0) | MAP_POPULATE, fd, (off_t)offset);
    else p = vm_map_aligned(want, glen, 0, kprot, flags, fd, (off_t)offset);
    int merr = errno;
    close(fd);
    if (p == MAP_FAILED) return merr == EEXIST ? -EADDRNOTAVAIL : -ENOMEM;
    if (glen > len) mprotect((char *)p + len, glen - len, PROT_NONE);
    vm_lock();
    int e = vm_add_record(p, len, vprot, VR_VIEW | (large ? VR_LARGE : 0), lpage, ps, NULL);
    vm_unlock();
    if (e) { munmap(p, glen); return e; }
    *addr = p;
    return 0;
}

NSPA_EXPORT int nspa_vm_unmap_view(const void *addr)
{
    vm_lock();
    struct vm_rec *r = vm_find((uintptr_t)addr);
    int e = 0;
    if (!r || !(r->flags & VR_VIEW)) e = -EADDRNOTAVAIL;
    else {
        vm_unpublish(r);
        vm_retire(r);
    }
    vm_unlock();
    return e;
}

NSPA_EXPORT int nspa_vm_flush_view(const void *addr, size_t size)
{
    uintptr_t a = (uintptr_t)addr & ~(VM_PAGE - 1);
    vm_read_enter();
    struct vm_rec *r = vm_find(a);
    int e = 0;
    if (!r || !(r->flags & VR_VIEW)) e = -EADDRNOTAVAIL;
    else {
        uintptr_t end = size ? (((uintptr_t)addr + size + VM_PAGE - 1) & ~(VM_PAGE - 1)) : r->base + r->size;
        if (end > r->base + r->size) end = r->base + r->size;
        if (msync((void *)a, end - a, MS_SYNC)) e = -EADDRNOTAVAIL;
    }
    vm_read_exit();
    return e;
}
