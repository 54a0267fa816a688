/* Includes only <winbase.h> (as Wine's kernel32 sync test does, with windef.h) and uses
 * what the SDK's winbase.h gives: its own calls, synchapi.h's, processthreadsapi.h's,
 * heapapi.h's and winnt.h's. Compiled with -Werror: a missing declaration fails the
 * build; running checks that the symbols link. */
#include <winbase.h>

static CRITICAL_SECTION cs;
static SRWLOCK srw = SRWLOCK_INIT;
static CONDITION_VARIABLE cv = CONDITION_VARIABLE_INIT;
static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
static LONG counter;

static BOOL CALLBACK init_fn(PINIT_ONCE o, PVOID p, PVOID *ctx) { (void)o; (void)p; (void)ctx; return TRUE; }
static DWORD WINAPI thread_fn(LPVOID p) { (void)p; return 7; }
static void CALLBACK apc_fn(ULONG_PTR d) { (void)d; }

int main(void)
{
    InitializeCriticalSection(&cs);
    EnterCriticalSection(&cs);
    if (!SleepConditionVariableCS(&cv, &cs, 1) && GetLastError() != ERROR_TIMEOUT) return 1;
    LeaveCriticalSection(&cs);
    DeleteCriticalSection(&cs);
    AcquireSRWLockExclusive(&srw);
    ReleaseSRWLockExclusive(&srw);
    WakeAllConditionVariable(&cv);
    if (!InitOnceExecuteOnce(&once, init_fn, NULL, NULL)) return 2;
    HANDLE e = CreateEventW(NULL, TRUE, FALSE, NULL);
    if (WaitForSingleObject(e, 0) != WAIT_TIMEOUT) return 3;
    HANDLE t = CreateThread(NULL, 0, thread_fn, NULL, 0, NULL);
    DWORD code = 0;
    if (WaitForSingleObject(t, INFINITE) != WAIT_OBJECT_0 || !GetExitCodeThread(t, &code) || code != 7) return 4;
    QueueUserAPC(apc_fn, GetCurrentThread(), 0);
    SleepEx(0, TRUE);
    void *p = HeapAlloc(GetProcessHeap(), HEAP_ZERO_MEMORY, 16);
    if (!p || !HeapFree(GetProcessHeap(), 0, p)) return 5;
    InterlockedIncrement(&counter);
    LARGE_INTEGER c;
    QueryPerformanceCounter(&c);
    CloseHandle(t);
    CloseHandle(e);
    return counter == 1 ? 0 : 6;
}
