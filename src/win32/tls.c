/*
 * Thread local storage (TlsAlloc ...) and fiber local storage (FlsAlloc ...).
 *
 * TLS indexes are the C library's thread-specific keys: pthread_getspecific is a load
 * or two, and glibc already gives what TlsFree must (a freed and re-allocated index
 * reads NULL in every thread, through its per-key sequence numbers). Windows' limit is
 * 1088 indexes; glibc's is PTHREAD_KEYS_MAX (1024), shared with the rest of the
 * process: past it TlsAlloc fails with ERROR_NO_MORE_ITEMS, as on Windows.
 *
 * FLS (NSPA has no fibers: one fiber per thread) needs what keys do not give: FlsFree
 * calls the index's callback for the value of every thread that has one. Each thread
 * that stores a value gets a block of slots (chunks of 256 made on first use, never on
 * FlsGetValue), linked in a list under fls_lock; at thread exit a key destructor runs
 * the callbacks of the thread's non-NULL values and unlinks the block. Callbacks never
 * run under fls_lock (they may call Fls* themselves).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "win32/win32_private.h"

/* ---- TLS ----------------------------------------------------------------------------- */

NSPA_EXPORT DWORD WINAPI TlsAlloc(void)
{
    pthread_key_t k;
    if (pthread_key_create(&k, NULL)) {
        SetLastError(ERROR_NO_MORE_ITEMS);
        return TLS_OUT_OF_INDEXES;
    }
    return (DWORD)k;
}

NSPA_EXPORT BOOL WINAPI TlsFree(DWORD i)
{
    if (i >= PTHREAD_KEYS_MAX || pthread_key_delete((pthread_key_t)i)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    return TRUE;
}

/* Windows clears the last error on success: a stored NULL is told from a failure so */
NSPA_EXPORT LPVOID WINAPI TlsGetValue(DWORD i)
{
    if (i >= PTHREAD_KEYS_MAX) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    SetLastError(ERROR_SUCCESS);
    return pthread_getspecific((pthread_key_t)i);
}

NSPA_EXPORT BOOL WINAPI TlsSetValue(DWORD i, LPVOID v)
{
    if (i >= PTHREAD_KEYS_MAX || pthread_setspecific((pthread_key_t)i, v)) {
        SetLastError(i >= PTHREAD_KEYS_MAX ? ERROR_INVALID_PARAMETER : ERROR_NOT_ENOUGH_MEMORY);
        return FALSE;
    }
    return TRUE;
}

/* ---- FLS ----------------------------------------------------------------------------- */

#define FLS_CHUNK 256u
#define FLS_CHUNKS (FLS_MAXIMUM_AVAILABLE / FLS_CHUNK + 1)

struct fls_block {
    struct fls_block *next, *prev;      /* under fls_lock */
    void **chunk[FLS_CHUNKS];           /* the thread's values; a chunk is published once */
};

static pthread_mutex_t fls_lock = PTHREAD_MUTEX_INITIALIZER;
static PFLS_CALLBACK_FUNCTION fls_cb[FLS_MAXIMUM_AVAILABLE];
static unsigned char fls_used[FLS_MAXIMUM_AVAILABLE];      /* under fls_lock; read racily */
static struct fls_block *fls_threads;
static pthread_key_t fls_key;
static pthread_once_t fls_once = PTHREAD_ONCE_INIT;
static int fls_ready;
static __thread struct fls_block *fls_mine;

static void fls_thread_exit(void *arg);
static void fls_init(void) { fls_ready = pthread_key_create(&fls_key, fls_thread_exit) == 0; }

static int fls_valid(DWORD i)
{
    return i < FLS_MAXIMUM_AVAILABLE && __atomic_load_n(&fls_used[i], __ATOMIC_ACQUIRE);
}

NSPA_EXPORT DWORD WINAPI FlsAlloc(PFLS_CALLBACK_FUNCTION cb)
{
    pthread_once(&fls_once, fls_init);
    if (!fls_ready) {
        SetLastError(ERROR_NO_MORE_ITEMS);
        return FLS_OUT_OF_INDEXES;
    }
    pthread_mutex_lock(&fls_lock);
    DWORD i = 0;
    while (i < FLS_MAXIMUM_AVAILABLE && fls_used[i]) i++;
    if (i < FLS_MAXIMUM_AVAILABLE) {
        fls_cb[i] = cb;
        __atomic_store_n(&fls_used[i], 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&fls_lock);
    if (i == FLS_MAXIMUM_AVAILABLE) {
        SetLastError(ERROR_NO_MORE_ITEMS);
        return FLS_OUT_OF_INDEXES;
    }
    return i;
}

static void **slot_of(struct fls_block *b, DWORD i)
{
    void **c = b ? __atomic_load_n(&b->chunk[i / FLS_CHUNK], __ATOMIC_ACQUIRE) : NULL;
    return c ? &c[i % FLS_CHUNK] : NULL;
}

NSPA_EXPORT PVOID WINAPI FlsGetValue(DWORD i)
{
    if (!fls_valid(i)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    void **s = slot_of(fls_mine, i);
    SetLastError(ERROR_SUCCESS);
    return s ? __atomic_load_n(s, __ATOMIC_RELAXED) : NULL;
}

NSPA_EXPORT BOOL WINAPI FlsSetValue(DWORD i, PVOID v)
{
    if (!fls_valid(i)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    struct fls_block *b = fls_mine;
    if (!b) {
        if (!v) return TRUE;                         /* nothing stored, nothing to make */
        b = calloc(1, sizeof(*b));
        if (!b || pthread_setspecific(fls_key, b)) {
            free(b);
            SetLastError(ERROR_NOT_ENOUGH_MEMORY);
            return FALSE;
        }
        pthread_mutex_lock(&fls_lock);
        b->next = fls_threads;
        if (fls_threads) fls_threads->prev = b;
        fls_threads = b;
        pthread_mutex_unlock(&fls_lock);
        fls_mine = b;
    }
    void **s = slot_of(b, i);
    if (!s) {
        if (!v) return TRUE;
        void **c = calloc(FLS_CHUNK, sizeof(void *));
        if (!c) {
            SetLastError(ERROR_NOT_ENOUGH_MEMORY);
            return FALSE;
        }
        __atomic_store_n(&b->chunk[i / FLS_CHUNK], c, __ATOMIC_RELEASE);
        s = &c[i % FLS_CHUNK];
    }
    __atomic_store_n(s, v, __ATOMIC_RELAXED);
    return TRUE;
}

/* FlsFree: the callback runs, in the calling thread, for every thread's non-NULL value */
NSPA_EXPORT BOOL WINAPI FlsFree(DWORD i)
{
    pthread_mutex_lock(&fls_lock);
    if (i >= FLS_MAXIMUM_AVAILABLE || !fls_used[i]) {
        pthread_mutex_unlock(&fls_lock);
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    PFLS_CALLBACK_FUNCTION cb = fls_cb[i];
    size_t n = 0, cap = 0;
    void **vals = NULL;
    for (struct fls_block *b = fls_threads; b; b = b->next) {
        void **s = slot_of(b, i);
        void *v = s ? __atomic_exchange_n(s, NULL, __ATOMIC_RELAXED) : NULL;
        if (!v || !cb) continue;
        if (n == cap) {
            void **nv = realloc(vals, (cap ? cap * 2 : 16) * sizeof(void *));
            if (!nv) continue;                       /* out of memory: that value's callback is lost */
            vals = nv;
            cap = cap ? cap * 2 : 16;
        }
        vals[n++] = v;
    }
    fls_cb[i] = NULL;
    __atomic_store_n(&fls_used[i], 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&fls_lock);
    for (size_t k = 0; k < n; k++) cb(vals[k]);
    free(vals);
    return TRUE;
}

static void fls_thread_exit(void *arg)
{
    struct fls_block *b = arg;
    /* the callbacks of this thread's values, each index once, outside the lock */
    for (DWORD i = 0; i < FLS_MAXIMUM_AVAILABLE; i++) {
        void **s = slot_of(b, i);
        if (!s) {
            i += FLS_CHUNK - 1 - i % FLS_CHUNK;      /* an absent chunk: skip it */
            continue;
        }
        void *v = __atomic_exchange_n(s, NULL, __ATOMIC_RELAXED);
        if (!v) continue;
        pthread_mutex_lock(&fls_lock);
        PFLS_CALLBACK_FUNCTION cb = fls_used[i] ? fls_cb[i] : NULL;
        pthread_mutex_unlock(&fls_lock);
        if (cb) cb(v);
    }
    pthread_mutex_lock(&fls_lock);
    if (b->prev) b->prev->next = b->next; else fls_threads = b->next;
    if (b->next) b->next->prev = b->prev;
    pthread_mutex_unlock(&fls_lock);
    for (unsigned c = 0; c < FLS_CHUNKS; c++) free(b->chunk[c]);
    free(b);
    fls_mine = NULL;
}
