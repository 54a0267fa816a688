/* nspa-bench io, the Linux peers (plain C):
 *   limits pingpong_blocking <iters>   blocking send/recv, TCP loopback, 256 bytes, 2 threads
 *   limits pingpong_uring <iters>      raw liburing: each end has its ring, RECV then SEND
 *   limits echo_uring <port> <ms>      an echo server on one raw liburing ring (1 thread,
 *                                      multishot-free: one RECV per connection in flight)
 *   limits echo_client <port> <conns> <ms>   the load: <conns> connections, each sends
 *                                      256 bytes and waits for the echo (epoll), repeat;
 *                                      prints messages/s
 * Output: RESULT lines as io_bench.c. */

#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MSG 256

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void die(const char *w)
{
    perror(w);
    exit(1);
}

static void nodelay(int s)
{
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void tcp_pair(int *a, int *b)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof(sa);
    if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1) || getsockname(l, (struct sockaddr *)&sa, &al))
        die("listen");
    *a = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(*a, (struct sockaddr *)&sa, sizeof(sa))) die("connect");
    *b = accept(l, NULL, NULL);
    close(l);
    nodelay(*a);
    nodelay(*b);
}

static int full(int s, char *b, int rd)
{
    int d = 0;
    while (d < MSG) {
        ssize_t k = rd ? recv(s, b + d, MSG - d, 0) : send(s, b + d, MSG - d, MSG_NOSIGNAL);
        if (k <= 0) return -1;
        d += (int)k;
    }
    return 0;
}

/* ---- blocking ---------------------------------------------------------------------- */
struct echo { int s, iters, uring; };

static int uring_full(struct io_uring *r, int s, char *b, int rd)
{
    int d = 0;
    while (d < MSG) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(r);
        if (rd) io_uring_prep_recv(sqe, s, b + d, MSG - d, 0);
        else io_uring_prep_send(sqe, s, b + d, MSG - d, MSG_NOSIGNAL);
        io_uring_submit(r);
        struct io_uring_cqe *cqe;
        if (io_uring_wait_cqe(r, &cqe)) return -1;
        int res = cqe->res;
        io_uring_cqe_seen(r, cqe);
        if (res <= 0) return -1;
        d += res;
    }
    return 0;
}

static void *echo_main(void *p)
{
    struct echo *e = p;
    char b[MSG];
    struct io_uring r;
    if (e->uring) io_uring_queue_init(8, &r, 0);
    for (int i = 0; i < e->iters; i++) {
        if (e->uring ? uring_full(&r, e->s, b, 1) || uring_full(&r, e->s, b, 0) : full(e->s, b, 1) || full(e->s, b, 0))
            break;
    }
    if (e->uring) io_uring_queue_exit(&r);
    return NULL;
}

static int pingpong(int iters, int uring)
{
    int c, s;
    tcp_pair(&c, &s);
    struct echo e = { s, iters + 1000, uring };
    pthread_t t;
    pthread_create(&t, NULL, echo_main, &e);
    struct io_uring r;
    if (uring) io_uring_queue_init(8, &r, 0);
    char b[MSG];
    memset(b, 7, sizeof(b));
    double *rtt = malloc(sizeof(double) * iters);
    for (int i = 0; i < 1000; i++)
        if (uring ? uring_full(&r, c, b, 0) || uring_full(&r, c, b, 1) : full(c, b, 0) || full(c, b, 1)) die("warm-up");
    double t0 = now_us();
    for (int i = 0; i < iters; i++) {
        double a = now_us();
        if (uring ? uring_full(&r, c, b, 0) || uring_full(&r, c, b, 1) : full(c, b, 0) || full(c, b, 1)) die("rt");
        rtt[i] = now_us() - a;
    }
    double el = now_us() - t0;
    pthread_join(t, NULL);
    qsort(rtt, iters, sizeof(double), dcmp);
    printf("RESULT bench=pingpong impl=%s unit=us value=%.3f better=lower p50=%.3f p99=%.3f iters=%d rate=%.0f\n",
           uring ? "liburing" : "blocking", rtt[iters / 2], rtt[iters / 2], rtt[(long long)iters * 99 / 100], iters,
           iters / (el / 1e6));
    return 0;
}

/* ---- raw liburing echo server -------------------------------------------------------- */
#define MAXC 1024
static char cbuf[MAXC][MSG];

static int echo_uring(int port, int ms)
{
    int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 256)) die("listen");
    struct io_uring r;
    struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = 8192 };
    if (io_uring_queue_init_params(2048, &r, &p)) die("io_uring");
    /* user_data: fd << 2 | op (0 accept, 1 recv, 2 send) */
    struct io_uring_sqe *sqe = io_uring_get_sqe(&r);
    io_uring_prep_accept(sqe, l, NULL, NULL, 0);
    io_uring_sqe_set_data64(sqe, (uint64_t)l << 2);
    io_uring_submit(&r);
    printf("READY\n");
    fflush(stdout);
    long served = 0;
    double end = now_us() + ms * 1000.0;
    struct __kernel_timespec ts = { 0, 100000000 };
    while (now_us() < end) {
        struct io_uring_cqe *cqe;
        if (io_uring_wait_cqe_timeout(&r, &cqe, &ts)) continue;
        unsigned head, n = 0;
        io_uring_for_each_cqe(&r, head, cqe) {
            n++;
            uint64_t ud = cqe->user_data;
            int fd = (int)(ud >> 2), op = (int)(ud & 3), res = cqe->res;
            if (op == 0) {
                if (res >= 0 && res < MAXC) {
                    nodelay(res);
                    struct io_uring_sqe *q = io_uring_get_sqe(&r);
                    io_uring_prep_recv(q, res, cbuf[res], MSG, 0);
                    io_uring_sqe_set_data64(q, (uint64_t)res << 2 | 1);
                } else if (res >= 0) {
                    close(res);
                }
                struct io_uring_sqe *q = io_uring_get_sqe(&r);
                io_uring_prep_accept(q, l, NULL, NULL, 0);
                io_uring_sqe_set_data64(q, (uint64_t)l << 2);
            } else if (op == 1) {
                if (res <= 0) { close(fd); continue; }
                served++;
                struct io_uring_sqe *q = io_uring_get_sqe(&r);
                io_uring_prep_send(q, fd, cbuf[fd], res, MSG_NOSIGNAL);
                io_uring_sqe_set_data64(q, (uint64_t)fd << 2 | 2);
            } else {
                if (res <= 0) { close(fd); continue; }
                struct io_uring_sqe *q = io_uring_get_sqe(&r);
                io_uring_prep_recv(q, fd, cbuf[fd], MSG, 0);
                io_uring_sqe_set_data64(q, (uint64_t)fd << 2 | 1);
            }
        }
        io_uring_cq_advance(&r, n);
        io_uring_submit(&r);
    }
    printf("RESULT bench=echo_served impl=liburing unit=msgs value=%ld better=info\n", served);
    return 0;
}

/* ---- the load ----------------------------------------------------------------------- */
static int echo_client(int port, int conns, int ms, const char *impl)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int ep = epoll_create1(0);
    int *fd = calloc(conns, sizeof(int)), *got = calloc(conns, sizeof(int));
    char b[MSG];
    memset(b, 3, sizeof(b));
    for (int i = 0; i < conns; i++) {
        fd[i] = socket(AF_INET, SOCK_STREAM, 0);
        int tries = 0;
        while (connect(fd[i], (struct sockaddr *)&sa, sizeof(sa))) {
            if (++tries > 500) die("connect");
            close(fd[i]);
            fd[i] = socket(AF_INET, SOCK_STREAM, 0);
            usleep(10000);
        }
        nodelay(fd[i]);
        struct epoll_event e = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
        epoll_ctl(ep, EPOLL_CTL_ADD, fd[i], &e);
    }
    for (int i = 0; i < conns; i++) send(fd[i], b, MSG, MSG_NOSIGNAL);
    long msgs = 0;
    double t0 = now_us(), end = t0 + ms * 1000.0;
    struct epoll_event ev[256];
    char rb[MSG];
    while (now_us() < end) {
        int n = epoll_wait(ep, ev, 256, 100);
        for (int k = 0; k < n; k++) {
            int i = (int)ev[k].data.u32;
            ssize_t r = recv(fd[i], rb, MSG - got[i], MSG_DONTWAIT);
            if (r <= 0) continue;
            got[i] += (int)r;
            if (got[i] == MSG) {
                got[i] = 0;
                msgs++;
                send(fd[i], b, MSG, MSG_NOSIGNAL);
            }
        }
    }
    double el = now_us() - t0;
    printf("RESULT bench=echo impl=%s unit=msgs/s value=%.0f better=higher conns=%d\n", impl, msgs / (el / 1e6), conns);
    for (int i = 0; i < conns; i++) close(fd[i]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    if (!strcmp(argv[1], "pingpong_blocking")) return pingpong(argc > 2 ? atoi(argv[2]) : 20000, 0);
    if (!strcmp(argv[1], "pingpong_uring")) return pingpong(argc > 2 ? atoi(argv[2]) : 20000, 1);
    if (!strcmp(argv[1], "echo_uring") && argc > 3) return echo_uring(atoi(argv[2]), atoi(argv[3]));
    if (!strcmp(argv[1], "echo_client") && argc > 5)
        return echo_client(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), argv[5]);
    fprintf(stderr, "limits: unknown %s\n", argv[1]);
    return 2;
}
