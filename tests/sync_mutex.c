/* Mutex rules of sync-semantics.md on the nspa_ layer. */
#include "sync_util.h"

int main(void)
{
    struct nspa_mutex_args a;
    nspa_obj_t m;
    uint32_t o, c, prev;

    /* create: owner and count both zero or both non-zero */
    a = (struct nspa_mutex_args){ 5, 0 };
    CHECK_EQ(nspa_create_mutex(&a, NULL, &m), -EINVAL);
    a = (struct nspa_mutex_args){ 0, 2 };
    CHECK_EQ(nspa_create_mutex(&a, NULL, &m), -EINVAL);
    m = mk_mutex(5, 2);
    CHECK_EQ(mutex_state(m, &o, &c), 0);
    CHECK_EQ(o, 5);
    CHECK_EQ(c, 2);

    /* unlock: owner 0 invalid; others and unowned: EPERM; returns previous count */
    CHECK_EQ(mutex_unlock_as(m, 0, NULL), -EINVAL);
    CHECK_EQ(mutex_unlock_as(m, 6, NULL), -EPERM);
    CHECK_EQ(mutex_unlock_as(m, 5, &prev), 0);
    CHECK_EQ(prev, 2);
    CHECK_EQ(mutex_unlock_as(m, 5, &prev), 0);
    CHECK_EQ(prev, 1);
    CHECK_EQ(mutex_state(m, &o, &c), 0);
    CHECK_EQ(o, 0);
    CHECK_EQ(c, 0);
    CHECK_EQ(mutex_unlock_as(m, 5, NULL), -EPERM);

    /* acquire and recursion: signaled for its owner */
    CHECK_EQ(wait_any_ms(&m, 1, 9, 0, 0, NULL), 0);
    CHECK_EQ(wait_any_ms(&m, 1, 9, 0, 0, NULL), 0);
    CHECK_EQ(wait_any_ms(&m, 1, 8, 0, 0, NULL), -ETIMEDOUT);
    CHECK_EQ(mutex_state(m, &o, &c), 0);
    CHECK_EQ(o, 9);
    CHECK_EQ(c, 2);

    /* kill: same errors as unlock; abandons */
    CHECK_EQ(nspa_mutex_kill(m, 0), -EINVAL);
    CHECK_EQ(nspa_mutex_kill(m, 8), -EPERM);
    CHECK_EQ(nspa_mutex_kill(m, 9), 0);
    /* read of an abandoned mutex: owner 0, count 0, EOWNERDEAD, repeatably */
    CHECK_EQ(mutex_state(m, &o, &c), -EOWNERDEAD);
    CHECK_EQ(o, 0);
    CHECK_EQ(c, 0);
    CHECK_EQ(mutex_state(m, &o, &c), -EOWNERDEAD);
    CHECK_EQ(nspa_mutex_kill(m, 9), -EPERM);   /* unowned now */
    /* next acquire: owner, count 1, abandoned reported and cleared */
    uint32_t idx = 99;
    CHECK_EQ(wait_any_ms(&m, 1, 3, 0, 0, &idx), -EOWNERDEAD);
    CHECK_EQ(idx, 0);
    CHECK_EQ(mutex_state(m, &o, &c), 0);
    CHECK_EQ(o, 3);
    CHECK_EQ(c, 1);
    CHECK_EQ(mutex_unlock_as(m, 3, NULL), 0);

    /* abandoned through the slow path (a waiter present) */
    nspa_obj_t m2 = mk_mutex(4, 1);
    CHECK_EQ(nspa_mutex_kill(m2, 4), 0);
    nspa_obj_t objs[2] = { mk_event(0, 0), m2 };
    CHECK_EQ(wait_any_ms(objs, 2, 6, 0, 0, &idx), -EOWNERDEAD);
    CHECK_EQ(idx, 1);
    CHECK_EQ(mutex_state(m2, &o, &c), 0);
    CHECK_EQ(o, 6);

    /* count UINT32_MAX: the owner's further wait does not succeed */
    nspa_obj_t full = mk_mutex(7, UINT32_MAX);
    CHECK_EQ(mutex_state(full, &o, &c), 0);
    CHECK_EQ(c, UINT32_MAX);
    CHECK_EQ(wait_any_ms(&full, 1, 7, 0, 0, NULL), -ETIMEDOUT);
    CHECK_EQ(wait_any_ms(&full, 1, 7, 20, 0, NULL), -ETIMEDOUT);
    CHECK_EQ(mutex_unlock_as(full, 7, &prev), 0);
    CHECK_EQ(prev, UINT32_MAX);
    CHECK_EQ(wait_any_ms(&full, 1, 7, 0, 0, NULL), 0);
    CHECK_EQ(mutex_state(full, &o, &c), 0);
    CHECK_EQ(c, UINT32_MAX);
    /* counts around the fast/slow boundary stay exact */
    nspa_obj_t edge = mk_mutex(2, 0x3ffffffd);
    CHECK_EQ(wait_any_ms(&edge, 1, 2, 0, 0, NULL), 0);
    CHECK_EQ(wait_any_ms(&edge, 1, 2, 0, 0, NULL), 0);
    CHECK_EQ(wait_any_ms(&edge, 1, 2, 0, 0, NULL), 0);
    CHECK_EQ(mutex_state(edge, &o, &c), 0);
    CHECK_EQ(c, 0x40000000);
    for (int i = 0; i < 4; i++) CHECK_EQ(mutex_unlock_as(edge, 2, NULL), 0);
    CHECK_EQ(mutex_state(edge, &o, &c), 0);
    CHECK_EQ(c, 0x3ffffffc);

    return nspa_test_done();
}
