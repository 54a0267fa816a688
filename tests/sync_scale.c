/* A million objects in one process with RLIMIT_NOFILE left at 1024: no object costs
 * a file descriptor (esync's failure mode). */
#include <fcntl.h>
#include <sys/resource.h>
#include "sync_util.h"

#define N 1000000

int main(void)
{
    struct rlimit rl = { 1024, 1024 };
    REQUIRE(setrlimit(RLIMIT_NOFILE, &rl) == 0);
    static nspa_obj_t h[N];
    for (int i = 0; i < N; i++) {
        int r;
        switch (i % 3) {
        case 0: { struct nspa_event_args a = { 0, 0 }; r = nspa_create_event(&a, NULL, &h[i]); break; }
        case 1: { struct nspa_sem_args a = { 0, 10 }; r = nspa_create_sem(&a, NULL, &h[i]); break; }
        default: { struct nspa_mutex_args a = { 0, 0 }; r = nspa_create_mutex(&a, NULL, &h[i]); break; }
        }
        if (r != 0) {
            fprintf(stderr, "object %d: %d\n", i, r);
            REQUIRE(r == 0);
        }
    }
    /* every one works: signal and take the first and last few */
    for (int i = N - 6; i < N; i++) {
        if (i % 3 == 0) CHECK_EQ(nspa_event_set(h[i], NULL), 0);
        if (i % 3 == 1) { uint32_t c = 1; CHECK_EQ(nspa_sem_release(h[i], &c), 0); }
        CHECK_EQ(wait_any_ms(&h[i], 1, 1, 0, 0, NULL), 0);
    }
    int fds = 0;
    for (int fd = 0; fd < 1024; fd++)
        if (fcntl(fd, F_GETFD) != -1) fds++;
    CHECK(fds < 16);
    for (int i = 0; i < N; i++) CHECK_EQ(nspa_close(h[i]), 0);
    return nspa_test_done();
}
