/* Randomized stress against a sequential model of sync-semantics.md: random
 * operations (creates, releases, unlocks, kills, set/reset/pulse, reads, zero-time
 * wait-any and wait-all with alerts and duplicates, bad arguments) on a pool of
 * objects; every result and every resulting state is compared with the model. */
#include <stdlib.h>
#include "sync_util.h"

#define NOBJ 12
#define OPS 300000

struct mobj {
    int type;                 /* NSPA_TYPE_* */
    uint32_t count, max;      /* sem */
    uint32_t owner, mcount;   /* mutex */
    int abandoned;
    int manual, signaled;     /* event */
    nspa_obj_t h;
};
static struct mobj o[NOBJ];
static unsigned seed = 4242;
static unsigned rnd(unsigned n) { return (unsigned)rand_r(&seed) % n; }

static int m_signaled(struct mobj *x, uint32_t owner)
{
    switch (x->type) {
    case NSPA_TYPE_SEM: return x->count > 0;
    case NSPA_TYPE_EVENT: return x->signaled;
    case NSPA_TYPE_MUTEX: return (!x->owner || x->owner == owner) && x->mcount < UINT32_MAX;   /* ntsync */
    }
    return 0;
}

static int m_acquire(struct mobj *x, uint32_t owner)
{
    int ab = 0;
    switch (x->type) {
    case NSPA_TYPE_SEM: x->count--; break;
    case NSPA_TYPE_EVENT: if (!x->manual) x->signaled = 0; break;
    case NSPA_TYPE_MUTEX:
        ab = x->abandoned;
        x->abandoned = 0;
        x->owner = owner;
        x->mcount++;
        break;
    }
    return ab;
}

static void fresh(int i)
{
    struct mobj *x = &o[i];
    if (x->h) CHECK_EQ(nspa_close(x->h), 0);
    memset(x, 0, sizeof(*x));
    x->type = 1 + (int)rnd(3);
    int r = 0;
    switch (x->type) {
    case NSPA_TYPE_SEM: {
        x->max = rnd(4) == 0 ? UINT32_MAX : 1 + rnd(5);
        x->count = rnd(4) == 0 ? x->max : rnd(x->max < 6 ? x->max + 1 : 6);
        struct nspa_sem_args a = { x->count, x->max };
        r = nspa_create_sem(&a, NULL, &x->h);
        break;
    }
    case NSPA_TYPE_MUTEX: {
        x->owner = rnd(2) ? 0 : 1 + rnd(3);
        x->mcount = x->owner ? (rnd(8) == 0 ? UINT32_MAX - rnd(2) : 1 + rnd(3)) : 0;
        struct nspa_mutex_args a = { x->owner, x->mcount };
        r = nspa_create_mutex(&a, NULL, &x->h);
        break;
    }
    default: {
        /* any non-zero flag is true (ntsync) */
        uint32_t man = rnd(3) ? rnd(2) : 2 + rnd(100), sig = rnd(3) ? rnd(2) : 0x80000000u;
        x->manual = man != 0;
        x->signaled = sig != 0;
        struct nspa_event_args a = { man, sig };
        r = nspa_create_event(&a, NULL, &x->h);
        break;
    }
    }
    REQUIRE(r == 0);
}

static void compare(int i)
{
    struct mobj *x = &o[i];
    switch (x->type) {
    case NSPA_TYPE_SEM: {
        struct nspa_sem_args a;
        CHECK_EQ(nspa_sem_read(x->h, &a), 0);
        CHECK_EQ(a.count, x->count);
        CHECK_EQ(a.max, x->max);
        break;
    }
    case NSPA_TYPE_MUTEX: {
        struct nspa_mutex_args a;
        CHECK_EQ(nspa_mutex_read(x->h, &a), x->abandoned ? -EOWNERDEAD : 0);
        CHECK_EQ(a.owner, x->owner);
        CHECK_EQ(a.count, x->owner ? x->mcount : 0);
        break;
    }
    default: {
        struct nspa_event_args a;
        CHECK_EQ(nspa_event_read(x->h, &a), 0);
        CHECK_EQ(a.manual, (uint32_t)x->manual);
        CHECK_EQ(a.signaled, (uint32_t)x->signaled);
        break;
    }
    }
}

int main(void)
{
    for (int i = 0; i < NOBJ; i++) fresh(i);
    int failed_before = 0;
    for (int op = 0; op < OPS; op++) {
        int i = (int)rnd(NOBJ);
        struct mobj *x = &o[i];
        uint32_t owner = 1 + rnd(3);
        switch (rnd(10)) {
        case 0:
            if (rnd(50) == 0) fresh(i);
            break;
        case 1: {   /* release */
            uint32_t n = rnd(3), c = n;
            int r = nspa_sem_release(x->h, &c);
            if (x->type != NSPA_TYPE_SEM) { CHECK_EQ(r, -EINVAL); break; }
            if ((uint64_t)x->count + n > x->max) CHECK_EQ(r, -EOVERFLOW);
            else { CHECK_EQ(r, 0); CHECK_EQ(c, x->count); x->count += n; }
            break;
        }
        case 2: {   /* unlock */
            struct nspa_mutex_args a = { rnd(20) ? owner : 0, 0 };
            int r = nspa_mutex_unlock(x->h, &a);
            if (x->type != NSPA_TYPE_MUTEX) { CHECK_EQ(r, -EINVAL); break; }
            if (!a.owner) { CHECK_EQ(r, -EINVAL); break; }
            if (x->owner != a.owner) { CHECK_EQ(r, -EPERM); break; }
            CHECK_EQ(r, 0);
            CHECK_EQ(a.count, x->mcount);
            if (--x->mcount == 0) x->owner = 0;
            break;
        }
        case 3: {   /* kill */
            int r = nspa_mutex_kill(x->h, owner);
            if (x->type != NSPA_TYPE_MUTEX) { CHECK_EQ(r, -EINVAL); break; }
            if (x->owner != owner) { CHECK_EQ(r, -EPERM); break; }
            CHECK_EQ(r, 0);
            x->owner = 0; x->mcount = 0; x->abandoned = 1;
            break;
        }
        case 4: {   /* set / reset / pulse */
            uint32_t prev = 7;
            int k = (int)rnd(3);
            int r = k == 0 ? nspa_event_set(x->h, &prev) : k == 1 ? nspa_event_reset(x->h, &prev)
                                                                  : nspa_event_pulse(x->h, &prev);
            if (x->type != NSPA_TYPE_EVENT) { CHECK_EQ(r, -EINVAL); break; }
            CHECK_EQ(r, 0);
            CHECK_EQ(prev, (uint32_t)x->signaled);
            x->signaled = k == 0;   /* pulse with no waiter leaves it reset */
            break;
        }
        case 5: case 6: case 7: {   /* zero-time wait-any, maybe with alert and duplicates */
            uint32_t n = rnd(5), idx[6];
            nspa_obj_t hs[6];
            for (uint32_t k = 0; k < n; k++) { idx[k] = rnd(NOBJ); hs[k] = o[idx[k]].h; }
            int use_alert = rnd(3) == 0;
            int ai = (int)rnd(NOBJ);
            nspa_obj_t alert = use_alert ? o[ai].h : 0;
            uint32_t got = 99;
            int r = wait_any_ms(hs, n, owner, 0, alert, &got);
            int want = -1;   /* the alert may be any object (ntsync) */
            for (uint32_t k = 0; k < n && want < 0; k++)
                if (m_signaled(&o[idx[k]], owner)) want = (int)k;
            if (want < 0 && use_alert && m_signaled(&o[ai], owner)) want = (int)n;
            if (want < 0) { CHECK_EQ(r, -ETIMEDOUT); break; }
            int ab = want == (int)n ? m_acquire(&o[ai], owner) : m_acquire(&o[idx[want]], owner);
            CHECK_EQ(r, ab ? -EOWNERDEAD : 0);
            CHECK_EQ(got, (uint32_t)want);
            break;
        }
        default: {   /* zero-time wait-all */
            uint32_t n = 1 + rnd(4), idx[6];
            nspa_obj_t hs[6];
            for (uint32_t k = 0; k < n; k++) { idx[k] = rnd(NOBJ); hs[k] = o[idx[k]].h; }
            int use_alert = rnd(4) == 0;
            int ai = (int)rnd(NOBJ);
            nspa_obj_t alert = use_alert ? o[ai].h : 0;
            uint32_t got = 99;
            int r = wait_all_ms(hs, n, owner, 0, alert, &got);
            int dup = 0;
            for (uint32_t a = 0; a < n + (use_alert ? 1 : 0); a++)
                for (uint32_t b = a + 1; b < n + (use_alert ? 1 : 0); b++) {
                    nspa_obj_t ha = a < n ? hs[a] : alert, hb = b < n ? hs[b] : alert;
                    if (ha == hb) dup = 1;
                }
            if (dup) { CHECK_EQ(r, -EINVAL); break; }
            int all = 1;
            for (uint32_t k = 0; k < n; k++) all &= m_signaled(&o[idx[k]], owner);
            if (all) {
                int abi = -1;
                for (uint32_t k = 0; k < n; k++)
                    if (m_acquire(&o[idx[k]], owner) && abi < 0) abi = (int)k;
                CHECK_EQ(r, abi >= 0 ? -EOWNERDEAD : 0);
                if (abi >= 0) CHECK_EQ(got, (uint32_t)abi);
            } else if (use_alert && m_signaled(&o[ai], owner)) {
                int ab = m_acquire(&o[ai], owner);
                CHECK_EQ(r, ab ? -EOWNERDEAD : 0);
                CHECK_EQ(got, n);
            } else {
                CHECK_EQ(r, -ETIMEDOUT);
            }
            break;
        }
        }
        for (int k = 0; k < NOBJ; k++) compare(k);
        if (nspa_test_failed && !failed_before) {
            fprintf(stderr, "first difference at operation %d\n", op);
            failed_before = 1;
            break;
        }
    }
    CHECK_EQ(nspa_check_namespace(), 0);
    printf("%d operations checked against the model\n", OPS);
    return nspa_test_done();
}
