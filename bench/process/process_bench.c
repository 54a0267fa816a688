/* nspa-bench process: CreateProcess + WaitForSingleObject of a small C child, and the
 * wake of a wait on a process handle (from the child's last clock reading to the
 * waiter's return). Win32 source: built natively against NSPA and with mingw-w64 for
 * stock Wine (bench/process/run.sh).
 *   process_bench spawn <child> <n>          one line: "spawn avg_us p50_us p99_us"
 *   process_bench wake <child> <n> <file>    one line: "wake avg_us p50_us p99_us" */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

static double now_us(void)
{
    LARGE_INTEGER c, f;
    QueryPerformanceCounter(&c);
    QueryPerformanceFrequency(&f);
    return (double)c.QuadPart * 1e6 / (double)f.QuadPart;
}


static int run_child(const char *cmd, HANDLE *proc)
{
    char buf[2048];
    snprintf(buf, sizeof(buf), "%s", cmd);
    STARTUPINFOA si;
    PROCESS_INFORMATION pi;
    memset(&si, 0, sizeof(si));
    si.cb = sizeof(si);
    if (!CreateProcessA(NULL, buf, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
        fprintf(stderr, "CreateProcess: error %u\n", (unsigned)GetLastError());
        exit(1);
    }
    CloseHandle(pi.hThread);
    *proc = pi.hProcess;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    int n = atoi(argv[3]);
    double *v = malloc(sizeof(double) * n);
    char cmd[2048];
    if (!strcmp(argv[1], "spawn")) {
        snprintf(cmd, sizeof(cmd), "\"%s\"", argv[2]);
        for (int i = 0; i < n; i++) {
            HANDLE p;
            double t0 = now_us();
            run_child(cmd, &p);
            WaitForSingleObject(p, INFINITE);
            v[i] = now_us() - t0;
            DWORD code = 0;
            GetExitCodeProcess(p, &code);
            CloseHandle(p);
            if (code != 7) { fprintf(stderr, "child exit %u\n", (unsigned)code); return 1; }
        }
        bp_report("spawn", v, n);
    } else if (!strcmp(argv[1], "wake") && argc > 4) {
        snprintf(cmd, sizeof(cmd), "\"%s\" \"%s\"", argv[2], argv[4]);
        for (int i = 0; i < n; i++) {
            HANDLE p;
            remove(argv[4]);
            run_child(cmd, &p);
            WaitForSingleObject(p, INFINITE);
            double t = now_us();
            CloseHandle(p);
            FILE *f = fopen(argv[4], "r");
            unsigned long long ns = 0;
            if (!f || fscanf(f, "%llu", &ns) != 1) { fprintf(stderr, "no stamp\n"); return 1; }
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
