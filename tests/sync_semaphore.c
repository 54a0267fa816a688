/* Semaphore rules of sync-semantics.md on the nspa_ layer. */
#include "sync_util.h"

int main(void)
{
    struct nspa_sem_args a;
    nspa_obj_t s;

    /* create: count > max is invalid; count == max and 0 are fine */
    a = (struct nspa_sem_args){ 3, 2 };
    CHECK_EQ(nspa_create_sem(&a, NULL, &s), -EINVAL);
    a = (struct nspa_sem_args){ 2, 2 };
    CHECK_EQ(nspa_create_sem(&a, NULL, &s), 0);
    CHECK_EQ(nspa_close(s), 0);

    s = mk_sem(1, 3);
    /* release returns the previous count */
    uint32_t n = 1;
    CHECK_EQ(nspa_sem_release(s, &n), 0);
    CHECK_EQ(n, 1);
    CHECK_EQ(sem_count(s), 2);
    /* n = 0 is allowed and changes nothing */
    n = 0;
    CHECK_EQ(nspa_sem_release(s, &n), 0);
    CHECK_EQ(n, 2);
    CHECK_EQ(sem_count(s), 2);
    /* beyond max: EOVERFLOW and no change */
    n = 2;
    CHECK_EQ(nspa_sem_release(s, &n), -EOVERFLOW);
    CHECK_EQ(n, 2);
    CHECK_EQ(sem_count(s), 2);
    /* overflow of 32 bits: EOVERFLOW and no change */
    nspa_obj_t big = mk_sem(UINT32_MAX - 1, UINT32_MAX);
    n = 2;
    CHECK_EQ(nspa_sem_release(big, &n), -EOVERFLOW);
    CHECK_EQ(sem_count(big), UINT32_MAX - 1);
    n = 1;
    CHECK_EQ(nspa_sem_release(big, &n), 0);
    CHECK_EQ(sem_count(big), UINT32_MAX);
    /* read reports count and max */
    CHECK_EQ(nspa_sem_read(s, &a), 0);
    CHECK_EQ(a.count, 2);
    CHECK_EQ(a.max, 3);

    /* a successful wait takes one; at 0 it is unsignaled */
    CHECK_EQ(wait_any_ms(&s, 1, 1, 0, 0, NULL), 0);
    CHECK_EQ(sem_count(s), 1);
    CHECK_EQ(wait_any_ms(&s, 1, 1, 0, 0, NULL), 0);
    CHECK_EQ(sem_count(s), 0);
    CHECK_EQ(wait_any_ms(&s, 1, 1, 0, 0, NULL), -ETIMEDOUT);
    CHECK_EQ(wait_any_ms(&s, 1, 1, 20, 0, NULL), -ETIMEDOUT);
    CHECK_EQ(sem_count(s), 0);

    nspa_close(s);
    nspa_close(big);
    return nspa_test_done();
}
