/* Includes only <processthreadsapi.h> and uses what the SDK's processthreadsapi.h
 * declares: threads, the current thread/process, APCs (QueueUserAPC2 included),
 * priorities. */
#include <processthreadsapi.h>

static DWORD WINAPI thread_fn(LPVOID p) { (void)p; return 0; }
static void CALLBACK apc_fn(ULONG_PTR d) { (void)d; }

int main(void)
{
    DWORD id = 0;
    HANDLE t = CreateThread(NULL, 0, thread_fn, NULL, CREATE_SUSPENDED, &id);
    if (!t || GetThreadId(t) != id || ResumeThread(t) != 1) return 1;
    DWORD code = 0;
    GetExitCodeThread(t, &code);
    if (code != STILL_ACTIVE && code != 0) return 2;
    if (GetCurrentThreadId() == 0 || GetCurrentProcessId() == 0) return 3;
    if (GetCurrentThread() != (HANDLE)(LONG_PTR)-2 || GetCurrentProcess() != (HANDLE)(LONG_PTR)-1) return 4;
    if (!QueueUserAPC(apc_fn, GetCurrentThread(), 0)) return 5;
    if (!QueueUserAPC2(apc_fn, GetCurrentThread(), 0, QUEUE_USER_APC_FLAGS_SPECIAL_USER_APC)) return 6;
    if (GetThreadPriority(GetCurrentThread()) == THREAD_PRIORITY_ERROR_RETURN) return 7;
    SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_NORMAL);
    if (GetPriorityClass(GetCurrentProcess()) == 0) return 8;
    SwitchToThread();
    (void)thread_fn;
    return 0;
}
