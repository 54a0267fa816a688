/* nspa-bench process: the small C child every implementation spawns. With an argument,
 * it sleeps 5 ms (so that its parent is asleep in its wait, whatever the spawn call
 * still does after the child started), then writes the monotonic clock (ns) to that
 * file just before it exits: the wake latency of a waiter is measured from there. */
#include <stdio.h>
#include <stdlib.h>
#ifdef _WIN32
#include <windows.h>
static unsigned long long now_ns(void)
{
    LARGE_INTEGER c, f;
    QueryPerformanceCounter(&c);
    QueryPerformanceFrequency(&f);
    return (unsigned long long)((double)c.QuadPart * 1e9 / (double)f.QuadPart);
}
#else
#include <time.h>
static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}
#endif

int main(int argc, char **argv)
{
    if (argc > 1) {
#ifdef _WIN32
        Sleep(5);
#else
        struct timespec d = { 0, 5000000 };
        nanosleep(&d, NULL);
#endif
        FILE *f = fopen(argv[1], "w");
        if (!f) return 2;
        fprintf(f, "%llu\n", now_ns());
        fclose(f);
    }
    return 7;
}
