/* NSPA heap: theaps (one per thread and heap) and thread data: creating a theap, the
 * per-thread map of heaps, thread registration, and thread exit (a theap's segments
 * become the heap's orphans). */
#include "heap_inline.h"
#include <sys/mman.h>

theap_t *theap_create(tld_t *t, heap_t *h)
{
    size_t sz = (sizeof(theap_t) + 4095) & ~(size_t)4095;
    theap_t *th = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (th == MAP_FAILED)
        return NULL;
    th->heap = h;
    th->tld = t;
    th->token = tld_token(t);
    pthread_mutex_lock(&g_lock);
    pthread_mutex_lock(&h->big);
    th->hprev = NULL;
    th->hnext = h->theaps;
    if (h->theaps) h->theaps->hprev = th;
    h->theaps = th;
    pthread_mutex_unlock(&h->big);
    th->tnext = t->theaps;
    t->theaps = th;
    pthread_mutex_unlock(&g_lock);
    return th;
}

void theap_free_mem(theap_t *th)
{
    munmap(th, (sizeof(theap_t) + 4095) & ~(size_t)4095);
}

/* Thread exit: hand the theap's segments to the heap as orphans. */
static void theap_abandon(theap_t *th)
{
    heap_t *h = th->heap;
    tld_t *t = th->tld;
    enter(t, h);
    if (th->dead) {   /* the heap was destroyed under us */
        leave(t, h);
        return;
    }
    theap_rb_flush_all(th);
    for (seg_t *s = th->segs, *nx; s; s = nx) {
        nx = s->own_next;
        for (unsigned si = 1; si < NSLICES; si++) {
            page_t *pg = &seg_pages(s)[si];
            if (s->slice_first[si] == si && pg->bsize) {
                page_collect(pg);
                if (pg->used == 0)
                    page_retire(th, pg, 0);
            }
        }
    }
    theap_purge(th);
    for (seg_t *s = th->segs, *nx; s; s = nx) {
        nx = s->own_next;
        slist_remove_own(&th->segs, s);
        if (s->free_mask == ALL_SLICES) {
            seg_release(h, s);
            continue;
        }
        s->owner = NULL;
        ST(s->owner_tid, 0);
        pthread_mutex_lock(&h->big);
        slist_push_own(&h->orphans, s);
        pthread_mutex_unlock(&h->big);
    }
    pthread_mutex_lock(&h->big);
    if (th->hprev) th->hprev->hnext = th->hnext; else h->theaps = th->hnext;
    if (th->hnext) th->hnext->hprev = th->hprev;
    pthread_mutex_unlock(&h->big);
    leave(t, h);
}

void tld_destroy(void *arg)
{
    tld_t *t = arg;
    pthread_mutex_lock(&g_lock);
    theap_t *list = t->theaps;
    t->theaps = NULL;
    t->proc = NULL;
    memset(t->map, 0, sizeof t->map);
    pthread_mutex_unlock(&g_lock);
    for (theap_t *th = list, *nx; th; th = nx) {
        nx = th->tnext;
        theap_abandon(th);
        theap_free_mem(th);
    }
    pthread_mutex_lock(&g_lock);
    t->dying = 1;
    if (t->prev) t->prev->next = t->next; else g_tlds = t->next;
    if (t->next) t->next->prev = t->prev;
    t->next = t->prev = NULL;
    t->inited = 0;
    pthread_mutex_unlock(&g_lock);
}

void tld_init(tld_t *t)
{
    if (global_init() != 0)
        return;   /* no heap at all (exhaustion): callers find no theap and fail */
    if (t->dying)
        return;   /* past our TLS destructor: callers use the shared theap */
    pthread_mutex_lock(&g_lock);
    t->prev = NULL;
    t->next = g_tlds;
    if (g_tlds) g_tlds->prev = t;
    g_tlds = t;
    t->self = tld_token(t);
    t->tid = gettid_now();
    atomic_store(&t->piw, 0);
    t->inited = 1;
    pthread_mutex_unlock(&g_lock);
    pthread_setspecific(g_key, t);
}

theap_t *theap_get_slow(tld_t *t, heap_t *h)
{
    if (!heap_ok(h))
        return NULL;
    if (h == &proc_heap) {
        if (!t->proc)
            t->proc = theap_create(t, h);
        return t->proc;
    }
    uint64_t serial = atomic_load(&h->serial);
    for (unsigned i = 0; i < TMAP; i++)
        if (t->map[i].heap == h && t->map[i].serial == serial)
            return t->map[i].th;
    for (theap_t *x = t->theaps; x; x = x->tnext)   /* fixed heaps stay out of the map */
        if (x->heap == h && !x->dead && h->maximum)
            return x;
    theap_t *th = theap_create(t, h);
    if (!th)
        return NULL;
    if (h->maximum)
        return th;
    unsigned i = t->map_next++ % TMAP;
    t->map[i].heap = h;
    t->map[i].serial = serial;
    t->map[i].th = th;
    return th;
}

theap_t *shared_theap(heap_t *h)   /* stw_mtx held */
{
    if (!h->shared) {
        size_t sz = (sizeof(theap_t) + 4095) & ~(size_t)4095;
        theap_t *th = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (th == MAP_FAILED)
            return NULL;
        th->heap = h;
        th->token = 1;
        h->shared = th;
    }
    return h->shared;
}
