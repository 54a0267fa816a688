/* Includes only <windows.h>: everything NSPA implements, and the SDK's idiom for NT
 * statuses (WIN32_NO_STATUS around <windows.h>, then <ntstatus.h>) compiles. */
#define WIN32_NO_STATUS
#include <windows.h>
#undef WIN32_NO_STATUS
#include <ntstatus.h>
#include <winternl.h>

int main(void)
{
    CRITICAL_SECTION cs;
    InitializeCriticalSection(&cs);
    DeleteCriticalSection(&cs);
    HANDLE e = CreateEventA(NULL, FALSE, TRUE, NULL);
    LARGE_INTEGER t;
    t.QuadPart = 0;
    NTSTATUS s = NtWaitForSingleObject(e, FALSE, &t);
    CloseHandle(e);
    void *p = HeapAlloc(GetProcessHeap(), 0, 4);
    HeapFree(GetProcessHeap(), 0, p);
    WCHAR w[8];
    return s == STATUS_WAIT_0 && MultiByteToWideChar(CP_UTF8, 0, "ok", -1, w, 8) == 3 ? 0 : 1;
}
