/* Where the kernel's ntsync driver (drivers/misc/ntsync.c) defines the answer, the
 * nspa_ call gives the same one:
 *   - an event created with manual or signaled > 1 is accepted and stored as true
 *     (ntsync keeps them in bools; a read returns 1);
 *   - a wait's owner 0 is accepted (only unlock and kill refuse owner 0): events and
 *     semaphores are taken as usual, a mutex is taken "by owner 0" exactly as the
 *     kernel does it (count + 1, owner still 0, so anybody may take it too);
 *   - the alert is any object (ntsync: any ntsync fd), acquired as such when it ends
 *     the wait; in a wait-all it must differ from every object; in a wait-any it may
 *     repeat one, the lowest index winning;
 *   - a wait-all over zero objects is satisfied at once (index 0); a wait-any over
 *     zero objects times out.
 * The deliberate differences (docs/sync-ntsync-map.md) are checked too: a closed
 * handle is -EBADF (ntsync: -EINVAL for a bad fd). */
#include "sync_util.h"

int main(void)
{
    /* ---- events: any non-zero flag is true */
    struct nspa_event_args ea = { 2, 0x80000000u }, rd;
    nspa_obj_t e;
    CHECK_EQ(nspa_create_event(&ea, NULL, &e), 0);
    CHECK_EQ(nspa_event_read(e, &rd), 0);
    CHECK_EQ(rd.manual, 1);
    CHECK_EQ(rd.signaled, 1);
    CHECK_EQ(wait_any_ms(&e, 1, 1, 0, 0, NULL), 0);
    CHECK_EQ(wait_any_ms(&e, 1, 1, 0, 0, NULL), 0);   /* manual: still signaled */
    ea = (struct nspa_event_args){ 0, 5 };
    nspa_obj_t e2;
    CHECK_EQ(nspa_create_event(&ea, "ntsync-answers-ev", &e2), 0);
    CHECK_EQ(nspa_event_read(e2, &rd), 0);
    CHECK_EQ(rd.manual, 0);
    CHECK_EQ(rd.signaled, 1);
    CHECK_EQ(wait_any_ms(&e2, 1, 1, 0, 0, NULL), 0);
    CHECK_EQ(wait_any_ms(&e2, 1, 1, 0, 0, NULL), -ETIMEDOUT);   /* auto: consumed */

    /* ---- owner 0 in a wait */
    nspa_obj_t s = mk_sem(2, 5), m = mk_mutex(0, 0);
    uint32_t idx = 99;
    CHECK_EQ(wait_any_ms(&s, 1, 0, 0, 0, &idx), 0);
    CHECK_EQ(idx, 0);
    CHECK_EQ(sem_count(s), 1);
    CHECK_EQ(wait_all_ms(&s, 1, 0, 0, 0, NULL), 0);
    CHECK_EQ(sem_count(s), 0);
    CHECK_EQ(wait_any_ms(&s, 1, 0, 0, 0, NULL), -ETIMEDOUT);
    int r;
    /* a mutex taken by owner 0: count 1, owner still 0 */
    CHECK_EQ(wait_any_ms(&m, 1, 0, 0, 0, NULL), 0);
    struct nspa_mutex_args ma;
    r = mutex_state(m, &ma.owner, &ma.count);
    CHECK_EQ(r, 0);
    CHECK_EQ(ma.owner, 0);
    CHECK_EQ(ma.count, 1);
    CHECK_EQ(wait_any_ms(&m, 1, 0, 0, 0, NULL), 0);
    r = mutex_state(m, &ma.owner, &ma.count);
    CHECK_EQ(ma.count, 2);
    /* ... so another owner takes it too, on top of the count (the kernel's is_signaled) */
    CHECK_EQ(wait_any_ms(&m, 1, 5, 0, 0, NULL), 0);
    r = mutex_state(m, &ma.owner, &ma.count);
    CHECK_EQ(ma.owner, 5);
    CHECK_EQ(ma.count, 3);
    CHECK_EQ(wait_any_ms(&m, 1, 6, 0, 0, NULL), -ETIMEDOUT);   /* now owned by 5 */
    uint32_t prev = 0;
    CHECK_EQ(mutex_unlock_as(m, 0, NULL), -EINVAL);                     /* unlock refuses owner 0 */
    CHECK_EQ(nspa_mutex_kill(m, 0), -EINVAL);                  /* so does kill */
    CHECK_EQ(mutex_unlock_as(m, 5, &prev), 0);
    CHECK_EQ(prev, 3);
    CHECK_EQ(mutex_unlock_as(m, 5, &prev), 0);
    CHECK_EQ(mutex_unlock_as(m, 5, &prev), 0);
    CHECK_EQ(prev, 1);
    r = mutex_state(m, &ma.owner, &ma.count);
    CHECK_EQ(ma.owner, 0);
    CHECK_EQ(ma.count, 0);
    CHECK_EQ(mutex_unlock_as(m, 5, NULL), -EPERM);

    /* ---- the alert: any object */
    nspa_obj_t ev = mk_event(0, 0), asem = mk_sem(1, 1), amtx = mk_mutex(0, 0);
    idx = 99;
    CHECK_EQ(wait_any_ms(&ev, 1, 7, 0, asem, &idx), 0);        /* a semaphore alert */
    CHECK_EQ(idx, 1);
    CHECK_EQ(sem_count(asem), 0);                              /* acquired */
    CHECK_EQ(wait_any_ms(&ev, 1, 7, 0, asem, &idx), -ETIMEDOUT);
    idx = 99;
    CHECK_EQ(wait_any_ms(&ev, 1, 7, 0, amtx, &idx), 0);        /* a mutex alert */
    CHECK_EQ(idx, 1);
    r = mutex_state(amtx, &ma.owner, &ma.count);
    CHECK_EQ(ma.owner, 7);
    CHECK_EQ(ma.count, 1);
    CHECK_EQ(wait_any_ms(&ev, 1, 8, 0, amtx, &idx), -ETIMEDOUT);   /* owned by 7 */
    CHECK_EQ(mutex_unlock_as(amtx, 7, NULL), 0);
    /* wait-all: the alert when the objects are not all ready */
    nspa_obj_t two[2] = { ev, s };
    CHECK_EQ(nspa_sem_release(asem, &(uint32_t){ 1 }), 0);
    idx = 99;
    CHECK_EQ(wait_all_ms(two, 2, 7, 0, asem, &idx), 0);
    CHECK_EQ(idx, 2);
    CHECK_EQ(sem_count(asem), 0);
    /* an abandoned mutex as the alert: acquired, -EOWNERDEAD, index = count */
    CHECK_EQ(wait_any_ms(&amtx, 1, 9, 0, 0, NULL), 0);
    CHECK_EQ(nspa_mutex_kill(amtx, 9), 0);
    idx = 99;
    CHECK_EQ(wait_any_ms(&ev, 1, 7, 0, amtx, &idx), -EOWNERDEAD);
    CHECK_EQ(idx, 1);
    CHECK_EQ(mutex_unlock_as(amtx, 7, NULL), 0);
    /* duplicates: wait-all refuses the alert among the objects, wait-any takes the
     * lowest index */
    CHECK_EQ(wait_all_ms(&ev, 1, 7, 0, ev, NULL), -EINVAL);
    CHECK_EQ(nspa_event_set(ev, NULL), 0);
    idx = 99;
    CHECK_EQ(wait_any_ms(&ev, 1, 7, 0, ev, &idx), 0);
    CHECK_EQ(idx, 0);
    /* a closed alert handle: -EBADF (NSPA's difference; ntsync: -EINVAL) */
    nspa_obj_t gone = mk_event(0, 1);
    CHECK_EQ(nspa_close(gone), 0);
    CHECK_EQ(wait_any_ms(&ev, 1, 7, 0, gone, NULL), -EBADF);

    /* ---- zero objects */
    struct nspa_wait_args wa = { .timeout = 0, .objs = NULL, .count = 0, .owner = 1 };
    CHECK_EQ(nspa_wait_any(&wa), -ETIMEDOUT);
    wa = (struct nspa_wait_args){ .timeout = nspa_time_ns() + 20000000ull, .objs = NULL, .count = 0, .owner = 1 };
    CHECK_EQ(nspa_wait_any(&wa), -ETIMEDOUT);
    wa = (struct nspa_wait_args){ .timeout = 0, .objs = NULL, .count = 0, .owner = 1, .index = 99 };
    CHECK_EQ(nspa_wait_all(&wa), 0);
    CHECK_EQ(wa.index, 0);
    wa = (struct nspa_wait_args){ .timeout = NSPA_TIMEOUT_INFINITE, .objs = NULL, .count = 0, .owner = 1,
                                  .index = 99 };
    CHECK_EQ(nspa_wait_all(&wa), 0);
    CHECK_EQ(wa.index, 0);

    CHECK_EQ(nspa_check_namespace(), 0);
    return nspa_test_done();
}
