/* nspa-bench process: the raw Linux peers. posix_spawn + waitid of the same child, and
 * a poll() on its pidfd seeing the exit (from the child's last clock reading).
 *   process_limits spawn <child> <n>          "spawn avg_us p50_us p99_us"
 *   process_limits wake <child> <n> <file>    "wake avg_us p50_us p99_us" */
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}


int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    int n = atoi(argv[3]);
    double *v = malloc(sizeof(double) * n);
    if (!strcmp(argv[1], "spawn")) {
        char *av[] = { argv[2], NULL };
        for (int i = 0; i < n; i++) {
            pid_t pid;
            double t0 = now_us();
            if (posix_spawn(&pid, argv[2], NULL, NULL, av, environ)) return 1;
            siginfo_t si;
            waitid(P_PID, (id_t)pid, &si, WEXITED);
            v[i] = now_us() - t0;
            if (si.si_status != 7) return 1;
        }
        bp_report("spawn", v, n);
    } else if (!strcmp(argv[1], "wake") && argc > 4) {
        char *av[] = { argv[2], argv[4], NULL };
        for (int i = 0; i < n; i++) {
            pid_t pid;
            unlink(argv[4]);
            if (posix_spawn(&pid, argv[2], NULL, NULL, av, environ)) return 1;
            int fd = (int)syscall(SYS_pidfd_open, pid, 0);
            struct pollfd p = { .fd = fd, .events = POLLIN };
            poll(&p, 1, -1);
            double t = now_us();
            close(fd);
            waitpid(pid, NULL, 0);
            FILE *f = fopen(argv[4], "r");
            unsigned long long ns = 0;
            if (!f || fscanf(f, "%llu", &ns) != 1) return 1;
            fclose(f);
            v[i] = t - (double)ns / 1000.0;
        }
        bp_report("wake", v, n);
    } else {
        return 2;
    }
    free(v);
    return 0;
}
