/* Threads hammering shared objects with blocking waits, checked by conservation:
 * semaphore tokens are never created or lost (wait-all takes both or neither), a
 * mutex admits one owner at a time, events hand out each auto-reset signal once. */
#include <stdlib.h>
#include "sync_util.h"

#define THREADS 4
#define ITERS 20000

static nspa_obj_t s1, s2, m, ev;
static int held_total;          /* tokens held by threads right now (atomic) */
static int in_mutex, violations;
static long long sets, takes;

static void *worker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    uint32_t me = nspa_thread_id();
    for (int i = 0; i < ITERS; i++) {
        unsigned r = (unsigned)rand_r(&seed);
        switch (r % 4) {
        case 0: {   /* wait-all over both semaphores, give back */
            nspa_obj_t both[2] = { s1, s2 };
            if (wait_all_ms(both, 2, me, 2, 0, NULL) == 0) {
                __atomic_add_fetch(&held_total, 2, __ATOMIC_SEQ_CST);
                __atomic_sub_fetch(&held_total, 2, __ATOMIC_SEQ_CST);
                uint32_t c = 1;
                nspa_sem_release(s1, &c);
                c = 1;
                nspa_sem_release(s2, &c);
            }
            break;
        }
        case 1: {   /* wait-any over both */
            nspa_obj_t both[2] = { s1, s2 };
            uint32_t idx;
            if (wait_any_ms(both, 2, me, 2, 0, &idx) == 0) {
                uint32_t c = 1;
                nspa_sem_release(both[idx], &c);
            }
            break;
        }
        case 2: {   /* mutex section */
            int rr = wait_any_ms(&m, 1, me, UINT32_MAX, 0, NULL);
            if (rr == 0) {
                if (__atomic_add_fetch(&in_mutex, 1, __ATOMIC_SEQ_CST) != 1)
                    __atomic_add_fetch(&violations, 1, __ATOMIC_SEQ_CST);
                __atomic_sub_fetch(&in_mutex, 1, __ATOMIC_SEQ_CST);
                struct nspa_mutex_args a = { me, 0 };
                if (nspa_mutex_unlock(m, &a)) __atomic_add_fetch(&violations, 1, __ATOMIC_SEQ_CST);
            } else {
                __atomic_add_fetch(&violations, 1, __ATOMIC_SEQ_CST);
            }
            break;
        }
        default: {  /* auto-reset event: count signals set (on a reset event) vs taken */
            uint32_t prev;
            if (r & 16) {
                nspa_event_set(ev, &prev);
                if (!prev) __atomic_add_fetch(&sets, 1, __ATOMIC_SEQ_CST);
            } else if (wait_any_ms(&ev, 1, me, 1, 0, NULL) == 0) {
                __atomic_add_fetch(&takes, 1, __ATOMIC_SEQ_CST);
            }
            break;
        }
        }
    }
    return NULL;
}

int main(void)
{
    s1 = mk_sem(2, 2);
    s2 = mk_sem(2, 2);
    m = mk_mutex(0, 0);
    ev = mk_event(0, 0);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    CHECK_EQ(violations, 0);
    CHECK_EQ(sem_count(s1), 2);
    CHECK_EQ(sem_count(s2), 2);
    struct nspa_mutex_args a;
    CHECK_EQ(nspa_mutex_read(m, &a), 0);
    CHECK_EQ(a.owner, 0);
    CHECK_EQ(sets, takes + event_signaled(ev));
    CHECK_EQ(nspa_check_namespace(), 0);
    printf("sets %lld takes %lld\n", sets, takes);
    return nspa_test_done();
}
