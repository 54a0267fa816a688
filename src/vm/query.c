/*
 * VirtualQuery: NSPA's allocations from the region table (read without a lock), any
 * other address from the kernel's /proc/self/maps (the C library's heap, stacks and
 * images are committed private or image memory; a hole is MEM_FREE up to the next
 * mapping). No allocation: the maps file is read through a stack buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "vm/vm_internal.h"
#include "nspa/win32/windows.h"
#include "nspa/win32/memoryapi.h"

static void query_rec(struct vm_rec *r, uintptr_t page, struct nspa_vm_info *info)
{
    size_t i = (page - r->base) / VM_PAGE, n = r->size / VM_PAGE;
    uint16_t ps = atomic_load_explicit(&r->pages[i], memory_order_acquire);
    const uint16_t key = PS_COMMIT | PS_PROT_MASK;
    size_t j = i + 1;
    while (j < n && (atomic_load_explicit(&r->pages[j], memory_order_relaxed) & key) == (ps & key)) j++;
    info->base = (void *)page;
    info->alloc_base = (void *)r->base;
    info->alloc_prot = r->alloc_prot;
    info->size = (j - i) * VM_PAGE;
    info->state = (ps & PS_COMMIT) ? MEM_COMMIT : MEM_RESERVE;
    info->prot = (ps & PS_COMMIT) ? (ps & PS_PROT_MASK) : 0;
    info->type = (r->flags & VR_VIEW) ? MEM_MAPPED : MEM_PRIVATE;
}

static uintptr_t hex(const char **p)
{
    uintptr_t v = 0;
    for (;; (*p)++) {
        char c = **p;
        if (c >= '0' && c <= '9') v = v * 16 + (uintptr_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v = v * 16 + (uintptr_t)(c - 'a' + 10);
        else return v;
    }
}

/* one line of /proc/self/maps: "start-end perms offset dev inode path" */
struct map_line { uintptr_t start, end; char perms[4]; int file; };

static int parse_line(const char *l, struct map_line *m)
{
    m->start = hex(&l);
    if (*l++ != '-') return 0;
    m->end = hex(&l);
    if (*l++ != ' ') return 0;
    memcpy(m->perms, l, 4);
    l += 5;
    hex(&l);                                  /* offset */
    l++;
    while (*l && *l != ' ') l++;              /* dev */
    l++;
    m->file = 0;
    while (*l >= '0' && *l <= '9') { if (*l != '0') m->file = 1; l++; }   /* inode */
    return 1;
}

static uint32_t perms_prot(const char *p)
{
    int r = p[0] == 'r', w = p[1] == 'w', x = p[2] == 'x';
    if (x) return w ? PAGE_EXECUTE_READWRITE : r ? PAGE_EXECUTE_READ : PAGE_EXECUTE;
    return w ? PAGE_READWRITE : r ? PAGE_READONLY : PAGE_NOACCESS;
}

/* the kernel mapping containing addr (1), or the start of the next one in *next (0) */
static int kernel_mapping(uintptr_t addr, struct map_line *out, uintptr_t *next)
{
    *next = VM_USER_MAX;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[4096];
    size_t have = 0;
    int found = 0, done = 0;
    while (!done) {
        ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
        if (n <= 0) break;
        have += (size_t)n;
        buf[have] = 0;
        char *l = buf, *nl;
        while ((nl = memchr(l, '\n', have - (size_t)(l - buf)))) {
            *nl = 0;
            struct map_line m;
            if (parse_line(l, &m)) {
                if (addr >= m.start && addr < m.end) { *out = m; found = 1; done = 1; break; }
                if (m.start > addr) { *next = m.start; done = 1; break; }
            }
            l = nl + 1;
        }
        have -= (size_t)(l - buf);
        memmove(buf, l, have);
    }
    close(fd);
    return found;
}

NSPA_EXPORT int nspa_vm_query(const void *addr, struct nspa_vm_info *info)
{
    if (!info) return -EFAULT;
    uintptr_t page = (uintptr_t)addr & ~(VM_PAGE - 1);
    if (page >= VM_USER_MAX) return -EINVAL;
    vm_read_enter();
    struct vm_rec *r = vm_find(page);
    if (r) {
        query_rec(r, page, info);
        vm_read_exit();
        return 0;
    }
    struct vm_rec *g = vm_find_granule(page);
    if (g) {                                  /* the unusable tail of a granule: free */
        memset(info, 0, sizeof *info);
        info->base = (void *)page;
        info->state = MEM_FREE;
        info->prot = PAGE_NOACCESS;
        info->size = g->base + vm_rec_span(g) - page;
        vm_read_exit();
        return 0;
    }
    struct vm_rec *nr = vm_find_next(page, VM_USER_MAX);
    uintptr_t next_rec = nr ? nr->base : VM_USER_MAX;
    vm_read_exit();
    struct map_line m;
    uintptr_t next;
    memset(info, 0, sizeof *info);
    info->base = (void *)page;
    if (kernel_mapping(page, &m, &next)) {
        info->alloc_base = (void *)m.start;
        info->prot = info->alloc_prot = perms_prot(m.perms);
        info->state = MEM_COMMIT;
        info->type = m.file ? (m.perms[2] == 'x' || m.perms[3] == 'p' ? MEM_IMAGE : MEM_MAPPED) : MEM_PRIVATE;
        info->size = (m.end < next_rec ? m.end : next_rec) - page;
        return 0;
    }
    info->state = MEM_FREE;
    info->prot = PAGE_NOACCESS;
    info->size = (next < next_rec ? next : next_rec) - page;
    return 0;
}
