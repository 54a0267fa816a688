/* Unmodified Win32 C: built against an installed NSPA with pkg-config nspa-win32. */
#include <windows.h>
#include <stdio.h>

static HANDLE ev;

static DWORD WINAPI worker(LPVOID arg)
{
    SetEvent(ev);
    return (DWORD)(ULONG_PTR)arg;
}

int main(void)
{
    DWORD tid, code = 0;
    ev = CreateEventW(NULL, TRUE, FALSE, L"hello-install");
    HANDLE t = CreateThread(NULL, 0, worker, (LPVOID)7, 0, &tid);
    if (WaitForSingleObject(ev, 5000) != WAIT_OBJECT_0) return 1;
    if (WaitForSingleObject(t, 5000) != WAIT_OBJECT_0) return 2;
    if (!GetExitCodeThread(t, &code) || code != 7) return 3;
    CloseHandle(t);
    CloseHandle(ev);
    printf("hello from Win32 on NSPA\n");
    return 0;
}
