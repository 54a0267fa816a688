/* Includes only <winternl.h> and uses the NT calls and types it declares: strings,
 * OBJECT_ATTRIBUTES, the NT sync calls, RtlNtStatusToDosError. */
#include <winternl.h>

int main(void)
{
    UNICODE_STRING name;
    RtlInitUnicodeString(&name, L"\\BaseNamedObjects\\win32-header-winternl");
    OBJECT_ATTRIBUTES attr;
    InitializeObjectAttributes(&attr, &name, OBJ_OPENIF, NULL, NULL);
    HANDLE e;
    if (NtCreateEvent(&e, EVENT_ALL_ACCESS, &attr, NotificationEvent, TRUE) != STATUS_SUCCESS) return 1;
    LARGE_INTEGER t;
    t.QuadPart = -10000;
    if (NtWaitForSingleObject(e, FALSE, &t) != STATUS_WAIT_0) return 2;
    HANDLE hs[1] = { e };
    if (NtWaitForMultipleObjects(1, hs, WaitAny, FALSE, &t) != STATUS_WAIT_0) return 3;
    EVENT_BASIC_INFORMATION info;
    if (NtQueryEvent(e, EventBasicInformation, &info, sizeof info, NULL) || info.EventState != 1) return 4;
    if (!NT_SUCCESS(NtClose(e))) return 5;
    return RtlNtStatusToDosError(STATUS_INVALID_HANDLE) == 6 ? 0 : 6;
}
