/* GetHandleInformation / SetHandleInformation on every kind of handle (event, mutex,
 * semaphore, thread, named and unnamed): a new handle has no flags; HANDLE_FLAG_INHERIT
 * and HANDLE_FLAG_PROTECT_FROM_CLOSE are set and cleared by mask, other bits ignored; a
 * protected handle is not closed (FALSE, ERROR_INVALID_HANDLE) and keeps working, also
 * for DUPLICATE_CLOSE_SOURCE; DuplicateHandle's bInheritHandle sets the inherit flag of
 * the new handle and copies no protection; bad handles and a NULL out pointer fail. */
#include <windows.h>
#include "nspa_test.h"

static DWORD WINAPI quick(LPVOID p) { return 7; }

static DWORD flags_of(HANDLE h)
{
    DWORD f = 0xdead;
    CHECK(GetHandleInformation(h, &f));
    return f;
}

static void one_kind(HANDLE h)
{
    REQUIRE(h != NULL);
    CHECK_EQ(flags_of(h), 0);
    CHECK(SetHandleInformation(h, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT));
    CHECK_EQ(flags_of(h), HANDLE_FLAG_INHERIT);
    /* the mask decides: a flag outside it is left alone, unknown bits are ignored */
    CHECK(SetHandleInformation(h, HANDLE_FLAG_PROTECT_FROM_CLOSE | 0x100, HANDLE_FLAG_PROTECT_FROM_CLOSE | 0x100));
    CHECK_EQ(flags_of(h), HANDLE_FLAG_INHERIT | HANDLE_FLAG_PROTECT_FROM_CLOSE);
    /* protected: not closed, still usable */
    SetLastError(0);
    CHECK_EQ(CloseHandle(h), FALSE);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK_EQ(flags_of(h), HANDLE_FLAG_INHERIT | HANDLE_FLAG_PROTECT_FROM_CLOSE);
    CHECK(WaitForSingleObject(h, 0) != WAIT_FAILED);
    /* a duplicate: inherit from bInheritHandle, no protection */
    HANDLE d = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &d, 0, TRUE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ(flags_of(d), HANDLE_FLAG_INHERIT);
    HANDLE d2 = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), d, GetCurrentProcess(), &d2, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ(flags_of(d2), 0);
    CHECK(CloseHandle(d2));
    CHECK(CloseHandle(d));
    /* clear both: closes */
    CHECK(SetHandleInformation(h, HANDLE_FLAG_INHERIT | HANDLE_FLAG_PROTECT_FROM_CLOSE, 0));
    CHECK_EQ(flags_of(h), 0);
    CHECK(CloseHandle(h));
    SetLastError(0);
    DWORD f = 0;
    CHECK_EQ(GetHandleInformation(h, &f), FALSE);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    SetLastError(0);
    CHECK_EQ(SetHandleInformation(h, HANDLE_FLAG_INHERIT, 0), FALSE);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
}

int main(void)
{
    one_kind(CreateEventA(NULL, TRUE, TRUE, NULL));
    one_kind(CreateEventA(NULL, FALSE, FALSE, "hi-ev"));
    one_kind(CreateMutexA(NULL, FALSE, NULL));
    one_kind(CreateMutexA(NULL, FALSE, "hi-mx"));
    one_kind(CreateSemaphoreA(NULL, 1, 2, NULL));
    one_kind(CreateSemaphoreA(NULL, 0, 2, "hi-sem"));
    HANDLE t = CreateThread(NULL, 0, quick, NULL, 0, NULL);
    REQUIRE(t != NULL);
    CHECK_EQ(WaitForSingleObject(t, 5000), WAIT_OBJECT_0);
    one_kind(t);

    /* DUPLICATE_CLOSE_SOURCE on a protected source (NSPA's choice where the docs are silent):
     * the copy is made, the protection wins and the source stays open */
    HANDLE e = CreateEventA(NULL, FALSE, FALSE, NULL), d = NULL;
    CHECK(SetHandleInformation(e, HANDLE_FLAG_PROTECT_FROM_CLOSE, HANDLE_FLAG_PROTECT_FROM_CLOSE));
    CHECK(DuplicateHandle(GetCurrentProcess(), e, GetCurrentProcess(), &d, 0, FALSE,
                          DUPLICATE_SAME_ACCESS | DUPLICATE_CLOSE_SOURCE));
    CHECK(d != NULL);
    CHECK(SetEvent(e));
    CHECK_EQ(WaitForSingleObject(d, 0), WAIT_OBJECT_0);
    CHECK(SetHandleInformation(e, HANDLE_FLAG_PROTECT_FROM_CLOSE, 0));
    CHECK(CloseHandle(e));
    CHECK(CloseHandle(d));

    /* bad input */
    SetLastError(0);
    CHECK_EQ(GetHandleInformation((HANDLE)(uintptr_t)0x12345678, NULL), FALSE);
    HANDLE x = CreateEventA(NULL, FALSE, FALSE, NULL);
    SetLastError(0);
    CHECK_EQ(GetHandleInformation(x, NULL), FALSE);
    CHECK_EQ(GetLastError(), ERROR_NOACCESS);
    DWORD f = 0;
    SetLastError(0);
    CHECK_EQ(GetHandleInformation((HANDLE)(uintptr_t)0x12345678, &f), FALSE);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CloseHandle(x);
    return nspa_test_done();
}
