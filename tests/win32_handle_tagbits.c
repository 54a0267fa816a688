/* NT ignores the low two bits of a handle value (tag bits): Wine's
 * test_WaitForSingleObject waits on handle|1, |2, |3 and expects the object's answer
 * with the last error untouched, and ERROR_INVALID_HANDLE for an invalid value with any
 * tag bits. The same holds for the other calls taking a handle (and for the Nt* ones). */
#include <windows.h>
#include <winternl.h>
#include "nspa_test.h"

static HANDLE tag(HANDLE h, int bits) { return (HANDLE)((ULONG_PTR)h | (ULONG_PTR)bits); }

int main(void)
{
    HANDLE sig = CreateEventW(NULL, TRUE, TRUE, NULL), non = CreateEventW(NULL, TRUE, FALSE, NULL);
    HANDLE invalid = (HANDLE)0xdeadbee0;
    for (int b = 0; b < 4; b++) {
        SetLastError(0xdeadbeef);
        CHECK_EQ(WaitForSingleObject(tag(invalid, b), 0), WAIT_FAILED);
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
        SetLastError(0xdeadbeef);
        CHECK_EQ(WaitForSingleObject(tag(non, b), 0), WAIT_TIMEOUT);
        CHECK_EQ(GetLastError(), 0xdeadbeef);
        SetLastError(0xdeadbeef);
        CHECK_EQ(WaitForSingleObject(tag(sig, b), 0), WAIT_OBJECT_0);
        CHECK_EQ(GetLastError(), 0xdeadbeef);
        HANDLE two[2] = { tag(non, b), tag(sig, 3 - b) };
        CHECK_EQ(WaitForMultipleObjects(2, two, FALSE, 0), WAIT_OBJECT_0 + 1);
        CHECK_EQ(NtWaitForSingleObject(tag(sig, b), FALSE, NULL), STATUS_WAIT_0);
    }
    /* other calls */
    CHECK(SetEvent(tag(non, 1)));
    CHECK(ResetEvent(tag(non, 2)));
    CHECK_EQ(WaitForSingleObject(non, 0), WAIT_TIMEOUT);
    LONG prev = 5;
    CHECK_EQ(NtSetEvent(tag(non, 3), &prev), STATUS_SUCCESS);
    CHECK_EQ(prev, 0);
    HANDLE s = CreateSemaphoreW(NULL, 0, 2, NULL);
    CHECK(ReleaseSemaphore(tag(s, 3), 1, &prev));
    CHECK_EQ(prev, 0);
    HANDLE dup = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), tag(s, 1), GetCurrentProcess(), &dup, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ(WaitForSingleObject(dup, 0), WAIT_OBJECT_0);
    CHECK(CloseHandle(tag(dup, 2)));
    CHECK(!CloseHandle(dup));                      /* it was that handle */
    CHECK(CloseHandle(tag(s, 1)));
    CHECK(CloseHandle(sig));
    CHECK(CloseHandle(non));
    /* SignalObjectAndWait with NULL handles fails (Wine's test_signalandwait) */
    SetLastError(0);
    CHECK_EQ(SignalObjectAndWait(NULL, NULL, 0, FALSE), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    return nspa_test_done();
}
