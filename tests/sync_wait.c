/* Wait rules: wait-any (lowest index, duplicates, count 0, alert last), wait-all
 * (atomic, untouched on timeout, duplicates invalid, objects beat the alert),
 * timeouts (past = poll, REALTIME flag), limits. */
#include "sync_util.h"

int main(void)
{
    uint32_t idx;
    nspa_obj_t s1 = mk_sem(0, 5), s2 = mk_sem(1, 5), s3 = mk_sem(1, 5);
    nspa_obj_t objs[3] = { s1, s2, s3 };

    /* wait-any takes exactly one: the lowest signaled index */
    CHECK_EQ(wait_any_ms(objs, 3, 1, 0, 0, &idx), 0);
    CHECK_EQ(idx, 1);
    CHECK_EQ(sem_count(s2), 0);
    CHECK_EQ(sem_count(s3), 1);
    /* duplicates are allowed in wait-any */
    nspa_obj_t dup[3] = { s1, s3, s3 };
    CHECK_EQ(wait_any_ms(dup, 3, 1, 0, 0, &idx), 0);
    CHECK_EQ(idx, 1);
    CHECK_EQ(sem_count(s3), 0);
    /* count 0 is allowed: it times out (or takes the alert) */
    CHECK_EQ(wait_any_ms(NULL, 0, 1, 0, 0, NULL), -ETIMEDOUT);
    nspa_obj_t alert = mk_event(1, 1);
    CHECK_EQ(wait_any_ms(NULL, 0, 1, 0, alert, &idx), 0);
    CHECK_EQ(idx, 0);
    /* the alert is checked last: index = count */
    CHECK_EQ(wait_any_ms(objs, 3, 1, 0, alert, &idx), 0);
    CHECK_EQ(idx, 3);
    uint32_t n = 1;
    nspa_sem_release(s3, &n);
    CHECK_EQ(wait_any_ms(objs, 3, 1, 0, alert, &idx), 0);
    CHECK_EQ(idx, 2);

    /* wait-all: all or nothing */
    n = 1;
    nspa_sem_release(s1, &n);            /* s1=1 s2=0 s3=0 */
    CHECK_EQ(wait_all_ms(objs, 3, 1, 0, 0, NULL), -ETIMEDOUT);
    CHECK_EQ(wait_all_ms(objs, 3, 1, 30, 0, NULL), -ETIMEDOUT);
    CHECK_EQ(sem_count(s1), 1);          /* untouched */
    n = 1; nspa_sem_release(s2, &n);
    n = 1; nspa_sem_release(s3, &n);
    CHECK_EQ(wait_all_ms(objs, 3, 1, 0, 0, &idx), 0);
    CHECK_EQ(sem_count(s1) + sem_count(s2) + sem_count(s3), 0);
    /* duplicates in wait-all are invalid, also the alert among the objects */
    nspa_obj_t d2[2] = { s1, s1 };
    CHECK_EQ(wait_all_ms(d2, 2, 1, 0, 0, NULL), -EINVAL);
    nspa_obj_t ev = mk_event(0, 1);
    nspa_obj_t d3[2] = { s1, ev };
    CHECK_EQ(wait_all_ms(d3, 2, 1, 0, ev, NULL), -EINVAL);
    CHECK_EQ(event_signaled(ev), 1);
    /* objects and alert both ready: the objects win */
    n = 1; nspa_sem_release(s1, &n);
    nspa_obj_t one[1] = { s1 };
    CHECK_EQ(wait_all_ms(one, 1, 1, 0, alert, &idx), 0);
    CHECK_EQ(idx, 0);
    CHECK_EQ(sem_count(s1), 0);
    /* only the alert ready: index = count */
    CHECK_EQ(wait_all_ms(one, 1, 1, 0, alert, &idx), 0);
    CHECK_EQ(idx, 1);
    /* wait-all with mutexes: owned by another owner blocks all */
    nspa_obj_t m = mk_mutex(0, 0);
    n = 1; nspa_sem_release(s1, &n);
    nspa_obj_t mo[2] = { s1, m };
    CHECK_EQ(wait_any_ms(&m, 1, 50, 0, 0, NULL), 0);
    CHECK_EQ(wait_all_ms(mo, 2, 51, 20, 0, NULL), -ETIMEDOUT);
    CHECK_EQ(sem_count(s1), 1);
    CHECK_EQ(wait_all_ms(mo, 2, 50, 0, 0, NULL), 0);   /* recursion counts */
    struct nspa_mutex_args ma;
    nspa_mutex_read(m, &ma);
    CHECK_EQ(ma.count, 2);
    /* wait-all over an abandoned mutex: EOWNERDEAD with its index, everything taken */
    n = 1; nspa_sem_release(s1, &n);
    CHECK_EQ(nspa_mutex_kill(m, 50), 0);
    CHECK_EQ(wait_all_ms(mo, 2, 52, 0, 0, &idx), -EOWNERDEAD);
    CHECK_EQ(idx, 1);
    CHECK_EQ(sem_count(s1), 0);

    /* timeouts: a past absolute time polls; REALTIME clock by flag */
    struct nspa_wait_args a = { .timeout = 1, .objs = one, .count = 1, .owner = 1 };
    CHECK_EQ(nspa_wait_any(&a), -ETIMEDOUT);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    a.timeout = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec + 30000000ull;
    a.flags = NSPA_WAIT_REALTIME;
    uint64_t t0 = nspa_time_ns();
    CHECK_EQ(nspa_wait_any(&a), -ETIMEDOUT);
    uint64_t dt = nspa_time_ns() - t0;
    CHECK(dt >= 25000000ull && dt < 2000000000ull);
    a.flags = 0x100;
    CHECK_EQ(nspa_wait_any(&a), -EINVAL);
    a.flags = 0;
    /* limits: more than 64 objects, owner 0 */
    nspa_obj_t many[65];
    for (int i = 0; i < 65; i++) many[i] = s1;
    CHECK_EQ(wait_any_ms(many, 65, 1, 0, 0, NULL), -EINVAL);
    n = 1; nspa_sem_release(s1, &n);
    CHECK_EQ(wait_any_ms(many, 64, 1, 0, 0, &idx), 0);
    CHECK_EQ(idx, 0);
    CHECK_EQ(wait_any_ms(one, 1, 0, 0, 0, NULL), -ETIMEDOUT);   /* owner 0 is valid (ntsync) */
    return nspa_test_done();
}
