/*
 * RegisterWindowMessage (and the atoms of registered classes): string atoms 0xC000..
 * 0xFFFF shared by every process of the namespace.
 *
 * The table is made of named sync objects in the namespace region, so no new shared
 * structure is needed and a killed process leaves nothing locked:
 *   "nspa.atom.lock"      a named mutex serialising registrations (abandonment-safe:
 *                         a holder killed mid-registration leaves it WAIT_ABANDONED,
 *                         and the steps below are idempotent);
 *   "nspa.atom.next"      a named semaphore whose count is the number of atoms handed
 *                         out so far;
 *   "nspa.atom.<NAME>"    per registered name (NAME = the name upper-cased as Windows'
 *                         atom table compares, in UTF-8), a named semaphore whose count
 *                         is the atom's index.
 * A process keeps its handles to the objects of the names it registered (and to the
 * counter) until it exits, so a name keeps its number while any process that uses it
 * lives. Registration is rare; each process also caches its names (under a local
 * mutex) so repeated calls do not touch the region. Without a namespace (it cannot be
 * had safely), atoms fall back to a process-local numbering and say so nowhere else.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "nspa/unicode.h"
#include "msg/msg_internal.h"

#define ATOM_BASE 0xC000u
#define ATOM_MAX  0x3FFFu
#define CACHE     4096

struct atom_ent {
    uint16_t *name;
    UINT atom;
};
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct atom_ent cache[CACHE];
static uint32_t ncache;
static uint32_t local_next;
static nspa_obj_t reg_lock, reg_next;

static UINT cache_find(const uint16_t *name)
{
    for (uint32_t i = 0; i < ncache; i++)
        if (!wcmpi(cache[i].name, name)) return cache[i].atom;
    return 0;
}

static void cache_add(const uint16_t *name, UINT atom)
{
    if (ncache >= CACHE) return;
    uint16_t *d = wdup(name);
    if (!d) return;
    cache[ncache].name = d;
    cache[ncache].atom = atom;
    ncache++;
}

/* Cache lock held. 0: failed (no namespace). */
static UINT shared_register(const uint16_t *name)
{
    if (!reg_lock) {
        struct nspa_mutex_args ma = { 0, 0 };
        struct nspa_sem_args sa = { 0, ATOM_MAX };
        if (nspa_create_mutex(&ma, "nspa.atom.lock", &reg_lock) < 0) {
            reg_lock = 0;
            return 0;
        }
        if (nspa_create_sem(&sa, "nspa.atom.next", &reg_next) < 0) {
            nspa_close(reg_lock);
            reg_lock = reg_next = 0;
            return 0;
        }
    }
    size_t n = nspa__wlen(name);
    uint16_t up[256];
    if (n > 255) return 0;
    for (size_t i = 0; i < n; i++) up[i] = nspa_upcase(name[i]);
    char oname[16 + 255 * 3 + 1] = "nspa.atom.";
    size_t o = strlen(oname);
    o += nspa_utf16_to_utf8(up, n, oname + o, sizeof(oname) - o - 1, NULL);
    oname[o] = 0;
    uint32_t me = nspa_thread_id();
    struct nspa_wait_args wa = { .timeout = NSPA_TIMEOUT_INFINITE, .objs = &reg_lock, .count = 1, .owner = me };
    int r = nspa_wait_any(&wa);
    if (r < 0 && r != -EOWNERDEAD) return 0;
    UINT atom = 0;
    nspa_obj_t h;
    if (nspa_open(NSPA_TYPE_SEM, oname, &h) == 0) {
        struct nspa_sem_args cur;
        if (nspa_sem_read(h, &cur) == 0) atom = ATOM_BASE + cur.count;
        /* keep h: this process now uses the name */
    } else {
        struct nspa_sem_args cnt;
        if (nspa_sem_read(reg_next, &cnt) == 0 && cnt.count < ATOM_MAX) {
            struct nspa_sem_args sa = { cnt.count, ATOM_MAX };
            if (nspa_create_sem(&sa, oname, &h) >= 0) {
                uint32_t one = 1;
                nspa_sem_release(reg_next, &one);
                atom = ATOM_BASE + cnt.count;
            }
        }
    }
    struct nspa_mutex_args ua = { me, 0 };
    nspa_mutex_unlock(reg_lock, &ua);
    return atom;
}

NSPA_HIDDEN UINT atom_register(const uint16_t *name)
{
    if (!name || !name[0]) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    if (nspa__wlen(name) > 255) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    pthread_mutex_lock(&cache_lock);
    UINT atom = cache_find(name);
    if (!atom) {
        atom = shared_register(name);
        if (!atom && local_next < ATOM_MAX) atom = ATOM_BASE + 0x2000 + local_next++;
        if (atom) cache_add(name, atom);
    }
    pthread_mutex_unlock(&cache_lock);
    if (!atom) SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    return atom;
}
