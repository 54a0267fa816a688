/* fork-mutex <n>: the seed's process test. n times: CreateProcess of this program with
 * "child-quickexit i" (the child prints one line and exits 42) and wait for it, while
 * the spawning thread holds a CRITICAL_SECTION and an NT mutex and a second thread keeps
 * taking and releasing another pair: a child made while locks are held must not
 * deadlock (nor inherit them). Spawn time = the CreateProcess call; child total = from
 * the call until the wait on the process handle returns. Pass: every child exited 42. */
#include "suite.h"

static CRITICAL_SECTION cs_main, cs_busy;
static HANDLE mtx_main, mtx_busy;
static volatile LONG stop;
static long long busy_rounds;

static DWORD WINAPI fm_busy(LPVOID arg)
{
    (void)arg;
    while (!stop) {
        EnterCriticalSection(&cs_busy);
        WaitForSingleObject(mtx_busy, INFINITE);
        busy_rounds++;
        ReleaseMutex(mtx_busy);
        LeaveCriticalSection(&cs_busy);
    }
    return 0;
}

int t_fork_mutex(int argc, char **argv)
{
    int n = (int)suite_arg(argc, argv, 1, 100);
    if (n < 1 || n > 100000) return suite_fail("bad arguments");
    char self[1024];
    DWORD len = GetModuleFileNameA(NULL, self, sizeof(self));
    if (!len || len >= sizeof(self)) return suite_fail("GetModuleFileName: error %u", (unsigned)GetLastError());
    InitializeCriticalSection(&cs_main);
    InitializeCriticalSection(&cs_busy);
    mtx_main = CreateMutexA(NULL, FALSE, NULL);
    mtx_busy = CreateMutexA(NULL, FALSE, NULL);
    HANDLE busy = suite_thread(fm_busy, NULL, THREAD_PRIORITY_NORMAL);
    double *spawn = malloc(sizeof(double) * n), *total = malloc(sizeof(double) * n);
    int ok = 0, failed = 0;
    DWORD bad_code = 0;
    double t_all = suite_now_us();
    for (int i = 0; i < n; i++) {
        char cmd[1200];
        snprintf(cmd, sizeof(cmd), "\"%s\" child-quickexit %d", self, i);
        STARTUPINFOA si;
        PROCESS_INFORMATION pi;
        memset(&si, 0, sizeof(si));
        si.cb = sizeof(si);
        EnterCriticalSection(&cs_main);
        WaitForSingleObject(mtx_main, INFINITE);
        double t0 = suite_now_us();
        BOOL r = CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi);
        double t1 = suite_now_us();
        ReleaseMutex(mtx_main);
        LeaveCriticalSection(&cs_main);
        if (!r) {
            failed++;
            suite_note("CreateProcess %d: error %u", i, (unsigned)GetLastError());
            continue;
        }
        DWORD w = WaitForSingleObject(pi.hProcess, 30000);
        double t2 = suite_now_us();
        DWORD code = 0;
        GetExitCodeProcess(pi.hProcess, &code);
        CloseHandle(pi.hThread);
        CloseHandle(pi.hProcess);
        spawn[i - failed] = t1 - t0;
        total[i - failed] = t2 - t0;
        if (w == WAIT_OBJECT_0 && code == 42) ok++;
        else bad_code = w == WAIT_OBJECT_0 ? code : 0xFFFFFFFFu;
    }
    double el = suite_now_us() - t_all;
    InterlockedExchange(&stop, 1);
    suite_join(busy);
    int m = n - failed;
    suite_stats s = suite_stat(spawn, m), t = suite_stat(total, m);
    suite_fig("elapsed", el / 1000.0, "ms", "lower", "Total elapsed");
    suite_fig("spawn_avg", s.avg, "us", "lower", "Spawn time avg");
    suite_fig("spawn_min", s.min, "us", "lower", "Spawn time min");
    suite_fig("spawn_max", s.max, "us", "lower", "Spawn time max");
    suite_fig("child_avg", t.avg, "us", "lower", "Child total avg");
    suite_fig("child_min", t.min, "us", "lower", "Child total min");
    suite_fig("child_max", t.max, "us", "lower", "Child total max");
    suite_fig("ok", ok, "count", "higher", "Children that exited 42");
    suite_samples("spawn", "us", spawn, m);
    suite_samples("child_total", "us", total, m);
    suite_note("%d/%d children exited 42; the lock thread made %lld rounds meanwhile", ok, n, busy_rounds);
    free(spawn);
    free(total);
    CloseHandle(mtx_main);
    CloseHandle(mtx_busy);
    DeleteCriticalSection(&cs_main);
    DeleteCriticalSection(&cs_busy);
    if (ok != n) return suite_fail("%d/%d children exited 42 (last bad code %u)", ok, n, (unsigned)bad_code);
    return suite_pass();
}
