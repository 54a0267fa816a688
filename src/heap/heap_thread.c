/* NSPA heap: theaps (one per thread and heap) and thread data: creating a theap, the
 * per-thread map of heaps, thread registration, and thread exit (a theap's segments
 * become the heap's orphans). */
#include "heap_inline.h"
#include <sys/mman.h>

/* Theap memory is never unmapped: a freed theap goes to a pool and is reused. A thread
 * that posts a notice (page_notify) reads a segment's owner and writes into that theap
 * without a lock; if the owner exits meanwhile the write lands in pooled or reused
 * theap memory, where it only causes one look at the segments for nothing. The pool's
 * mutex (heap_init.c) is a leaf: taken alone or under g_lock. */
static theap_t *theap_pool;
#define THEAP_MAP ((sizeof(theap_t) + 4095) & ~(size_t)4095)

static theap_t *theap_mem(void)
{
    pthread_mutex_lock(&theap_pool_mtx);
    theap_t *th = theap_pool;
    if (th)
        theap_pool = th->tnext;
    pthread_mutex_unlock(&theap_pool_mtx);
    if (th) {
        memset(th, 0, sizeof *th);
        return th;
    }
    th = mmap(NULL, THEAP_MAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return th == MAP_FAILED ? NULL : th;
}

void theap_free_mem(theap_t *th)
{
    pthread_mutex_lock(&theap_pool_mtx);
    th->tnext = theap_pool;
    theap_pool = th;
    pthread_mutex_unlock(&theap_pool_mtx);
}

theap_t *theap_create(tld_t *t, heap_t *h)
{
    theap_t *th = theap_mem();
    if (!th)
        return NULL;
    th->heap = h;
    th->tld = t;
    th->token = tld_token(t);
    th->purge_now = PURGE_NOW_SLICES;
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
                    page_retire(th, pg);
            }
        }
    }
    /* The segments become orphans; their idle slices stay committed (up to a bound)
     * for the next thread that adopts them: orphans_settle */
    for (seg_t *s = th->segs, *nx; s; s = nx) {
        nx = s->own_next;
        slist_remove_own(&th->segs, s);
        /* orphaned: every page asks for a notice, so that the blocks other threads
         * free into it come back without waiting for an adopter (orphans_reclaim).
         * The owner goes first: a notice posted after it goes to the heap. */
        __atomic_store_n(&s->owner, NULL, __ATOMIC_RELEASE);
        ST(s->owner_tid, 0);
        for (unsigned si = 1; si < NSLICES; si++) {
            page_t *pg = &seg_pages(s)[si];
            if (s->slice_first[si] == si && pg->bsize)
                page_arm(pg, 1);
        }
        pthread_mutex_lock(&h->big);
        s->cached_at = nspa_clock_ns(CLOCK_MONOTONIC_COARSE);   /* its own epoch */
        slist_push_own(&h->orphans, s);
        /* a notice posted before the segment was on the list may have been taken
         * (orphan_notify cleared) by a reclaim that did not see the segment yet */
        if (LD(s->notify_mask))
            atomic_store(&h->orphan_notify, 1);
        pthread_mutex_unlock(&h->big);
    }
    th->dirty_slices = 0;
    pthread_mutex_lock(&h->big);
    orphans_settle(h);
    pthread_mutex_unlock(&h->big);
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
        theap_t *th = theap_mem();
        if (!th)
            return NULL;
        th->heap = h;
        th->token = 1;
        th->purge_now = PURGE_NOW_SLICES;
        h->shared = th;
    }
    return h->shared;
}
