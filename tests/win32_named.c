/* Named objects (sync-semantics.md, "Cross-process sharing") at the Win32 level:
 * Create* on an existing name opens it (ERROR_ALREADY_EXISTS, its state and, for a
 * mutex, its owner unchanged); a name held by another type -> ERROR_INVALID_HANDLE
 * for Create* and Open*; Open* of a missing name -> ERROR_FILE_NOT_FOUND;
 * "Local\x" names the same object as "x"; W names, non-ASCII included, name the same
 * object as their UTF-8 A spelling; names are case-sensitive; "" is no name; a name
 * lives while a handle does; and across processes (exec of this program): a child
 * signals a named event, and a child killed with SIGKILL while it owns a named mutex
 * leaves it abandoned (WAIT_ABANDONED_0) for the parent. */
#include <windows.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa_test.h"
#include "win32_testutil.h"

enum { EV, MX, SM, NT };

static HANDLE create_a(int type, const char *name)
{
    switch (type) {
    case EV: return CreateEventA(NULL, TRUE, FALSE, name);
    case MX: return CreateMutexA(NULL, FALSE, name);
    default: return CreateSemaphoreA(NULL, 0, 5, name);
    }
}
static HANDLE create_w(int type, const WCHAR *name)
{
    switch (type) {
    case EV: return CreateEventW(NULL, TRUE, FALSE, name);
    case MX: return CreateMutexW(NULL, FALSE, name);
    default: return CreateSemaphoreW(NULL, 0, 5, name);
    }
}
static HANDLE create_ex_a(int type, const char *name)
{
    switch (type) {
    case EV: return CreateEventExA(NULL, name, 0, EVENT_ALL_ACCESS);
    case MX: return CreateMutexExA(NULL, name, 0, MUTEX_ALL_ACCESS);
    default: return CreateSemaphoreExA(NULL, 0, 5, name, 0, SEMAPHORE_ALL_ACCESS);
    }
}
static HANDLE open_a(int type, const char *name)
{
    switch (type) {
    case EV: return OpenEventA(EVENT_ALL_ACCESS, FALSE, name);
    case MX: return OpenMutexA(MUTEX_ALL_ACCESS, FALSE, name);
    default: return OpenSemaphoreA(SEMAPHORE_ALL_ACCESS, FALSE, name);
    }
}
static HANDLE open_w(int type, const WCHAR *name)
{
    switch (type) {
    case EV: return OpenEventW(EVENT_ALL_ACCESS, FALSE, name);
    case MX: return OpenMutexW(MUTEX_ALL_ACCESS, FALSE, name);
    default: return OpenSemaphoreW(SEMAPHORE_ALL_ACCESS, FALSE, name);
    }
}

/* Do a and b name the same object (of type t)? Signals through a, observes via b,
 * and restores. */
static int same_object(int t, HANDLE a, HANDLE b)
{
    int same = 0;
    switch (t) {
    case EV:
        SetEvent(a);
        same = WaitForSingleObject(b, 0) == WAIT_OBJECT_0;
        ResetEvent(a);
        break;
    case SM:
        ReleaseSemaphore(a, 1, NULL);
        same = WaitForSingleObject(b, 0) == WAIT_OBJECT_0;
        if (!same) WaitForSingleObject(a, 0);
        break;
    default:
        WaitForSingleObject(a, 0);
        same = ReleaseMutex(b);
        if (!same) ReleaseMutex(a);
    }
    return same;
}

static void to_w(const char *s, WCHAR *w) { while ((*w++ = (unsigned char)*s++)) ; }

static void test_already_exists(void)
{
    static const char *names[NT] = { "nm-ev", "nm-mx", "nm-sm" };
    for (int t = 0; t < NT; t++) {
        WCHAR wname[32];
        to_w(names[t], wname);
        SetLastError(0xdead);
        HANDLE h = create_a(t, names[t]);
        REQUIRE(h != NULL);
        CHECK_EQ(GetLastError(), ERROR_SUCCESS);
        for (int form = 0; form < 3; form++) {
            SetLastError(0);
            HANDLE h2 = form == 0 ? create_a(t, names[t]) : form == 1 ? create_w(t, wname) : create_ex_a(t, names[t]);
            CHECK(h2 != NULL && h2 != h);
            CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
            CHECK(same_object(t, h, h2));
            CloseHandle(h2);
        }
        CloseHandle(h);
    }
    /* the existing object's state wins over the create arguments */
    HANDLE e = CreateEventA(NULL, FALSE, FALSE, "nm-state-ev");
    HANDLE e2 = CreateEventA(NULL, TRUE, TRUE, "nm-state-ev");
    CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
    CHECK_EQ(WaitForSingleObject(e2, 0), WAIT_TIMEOUT);   /* not set by the 2nd create */
    SetEvent(e2);
    CHECK_EQ(WaitForSingleObject(e, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(e2, 0), WAIT_TIMEOUT);   /* still auto-reset */
    CloseHandle(e);
    CloseHandle(e2);
    HANDLE s = CreateSemaphoreA(NULL, 1, 2, "nm-state-sm");
    HANDLE s2 = CreateSemaphoreA(NULL, 0, 100, "nm-state-sm");
    CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
    LONG prev = -1;
    CHECK(ReleaseSemaphore(s2, 1, &prev));
    CHECK_EQ(prev, 1);
    CHECK(!ReleaseSemaphore(s2, 1, &prev));   /* max is still 2 */
    CHECK_EQ(GetLastError(), ERROR_TOO_MANY_POSTS);
    CloseHandle(s);
    CloseHandle(s2);
    /* CreateMutex(TRUE) on an existing mutex opens it without acquiring it */
    HANDLE m = CreateMutexA(NULL, FALSE, "nm-state-mx");
    HANDLE m2 = CreateMutexA(NULL, TRUE, "nm-state-mx");
    CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
    SetLastError(0);
    CHECK(!ReleaseMutex(m2));
    CHECK_EQ(GetLastError(), ERROR_NOT_OWNER);
    HANDLE m3 = CreateMutexExA(NULL, "nm-state-mx", CREATE_MUTEX_INITIAL_OWNER, MUTEX_ALL_ACCESS);
    CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
    CHECK(!ReleaseMutex(m3));
    CloseHandle(m);
    CloseHandle(m2);
    CloseHandle(m3);
}

static void test_type_mismatch(void)
{
    static const char *names[NT] = { "nm-type-ev", "nm-type-mx", "nm-type-sm" };
    HANDLE h[NT];
    for (int t = 0; t < NT; t++) h[t] = create_a(t, names[t]);
    for (int holder = 0; holder < NT; holder++) {
        for (int t = 0; t < NT; t++) {
            if (t == holder) continue;
            WCHAR wname[32];
            to_w(names[holder], wname);
            HANDLE r[5];
            DWORD err[5];
            SetLastError(0); r[0] = create_a(t, names[holder]); err[0] = GetLastError();
            SetLastError(0); r[1] = create_w(t, wname); err[1] = GetLastError();
            SetLastError(0); r[2] = create_ex_a(t, names[holder]); err[2] = GetLastError();
            SetLastError(0); r[3] = open_a(t, names[holder]); err[3] = GetLastError();
            SetLastError(0); r[4] = open_w(t, wname); err[4] = GetLastError();
            for (int k = 0; k < 5; k++) {
                if (r[k] || err[k] != ERROR_INVALID_HANDLE)
                    fprintf(stderr, "type %d on %d's name, form %d: %p err %u\n", t, holder, k, r[k], err[k]);
                CHECK(r[k] == NULL);
                CHECK_EQ(err[k], ERROR_INVALID_HANDLE);
            }
        }
    }
    /* the holders are unaffected */
    CHECK_EQ(WaitForSingleObject(h[EV], 0), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(h[SM], 0), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(h[MX], 0), WAIT_OBJECT_0);
    CHECK(ReleaseMutex(h[MX]));
    for (int t = 0; t < NT; t++) CloseHandle(h[t]);
}

static void test_open_missing(void)
{
    static const WCHAR wmissing[] = { 'n', 'm', '-', 'n', 'o', 'n', 'e', 0 };
    for (int t = 0; t < NT; t++) {
        SetLastError(0);
        CHECK(open_a(t, "nm-none") == NULL);
        CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
        SetLastError(0);
        CHECK(open_w(t, wmissing) == NULL);
        CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
        SetLastError(0);
        CHECK(open_a(t, "Local\\nm-none") == NULL);
        CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
        SetLastError(0);
        CHECK(open_a(t, NULL) == NULL);
        CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
        SetLastError(0);
        CHECK(open_w(t, NULL) == NULL);
        CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    }
}

static void test_local_prefix(void)
{
    static const WCHAR wlocal[] = { 'L', 'o', 'c', 'a', 'l', '\\', 'n', 'm', '-', 'l', 'o', 'c', '2', 0 };
    for (int t = 0; t < NT; t++) {
        /* created as "Local\x", found as "x" */
        HANDLE a = create_a(t, "Local\\nm-loc1");
        REQUIRE(a != NULL);
        HANDLE b = open_a(t, "nm-loc1");
        CHECK(b != NULL);
        if (b) { CHECK(same_object(t, a, b)); CloseHandle(b); }
        SetLastError(0);
        b = create_a(t, "nm-loc1");
        CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
        CloseHandle(b);
        /* created as "x", found as "Local\x" (A and W) */
        HANDLE c = create_a(t, "nm-loc2");
        HANDLE d = open_w(t, wlocal);
        CHECK(d != NULL);
        if (d) { CHECK(same_object(t, c, d)); CloseHandle(d); }
        SetLastError(0);
        d = create_w(t, wlocal);
        CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
        CloseHandle(d);
        CloseHandle(a);
        CloseHandle(c);
    }
}

static void test_unicode_names(void)
{
    /* "é-日本-😀" (U+00E9, U+65E5 U+672C, U+1F600 as a surrogate pair) */
    static const WCHAR w1[] = { 'n', 'm', '-', 0x00E9, '-', 0x65E5, 0x672C, '-', 0xD83D, 0xDE00, 0 };
    static const char u1[] = "nm-\xC3\xA9-\xE6\x97\xA5\xE6\x9C\xAC-\xF0\x9F\x98\x80";
    /* differs from w1 in one non-ASCII unit */
    static const WCHAR w2[] = { 'n', 'm', '-', 0x00E8, '-', 0x65E5, 0x672C, '-', 0xD83D, 0xDE00, 0 };
    static const WCHAR w3[] = { 'n', 'm', '-', 0x00E9, '-', 0x65E5, 0x672C, '-', 0xD83D, 0xDE01, 0 };
    for (int t = 0; t < NT; t++) {
        SetLastError(0xdead);
        HANDLE h = create_w(t, w1);
        REQUIRE(h != NULL);
        CHECK_EQ(GetLastError(), ERROR_SUCCESS);
        HANDLE ow = open_w(t, w1), oa = open_a(t, u1);
        CHECK(ow != NULL && oa != NULL);
        if (ow) { CHECK(same_object(t, h, ow)); CloseHandle(ow); }
        if (oa) { CHECK(same_object(t, h, oa)); CloseHandle(oa); }
        SetLastError(0);
        CHECK(open_w(t, w2) == NULL);
        CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
        SetLastError(0);
        CHECK(open_w(t, w3) == NULL);
        CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
        /* and the other way: created by its UTF-8 spelling, opened as W */
        HANDLE h2 = create_w(t, w2);
        SetLastError(0);
        HANDLE h3 = create_a(t, "nm-\xC3\xA8-\xE6\x97\xA5\xE6\x9C\xAC-\xF0\x9F\x98\x80");
        CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
        CHECK(same_object(t, h2, h3));
        CloseHandle(h2);
        CloseHandle(h3);
        CloseHandle(h);
    }
}

static void test_case_and_empty(void)
{
    HANDLE a = CreateEventA(NULL, TRUE, FALSE, "nm-Case");
    SetLastError(0);
    CHECK(OpenEventA(EVENT_ALL_ACCESS, FALSE, "nm-case") == NULL);
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    SetLastError(0xdead);
    HANDLE b = CreateEventA(NULL, TRUE, FALSE, "NM-CASE");
    CHECK_EQ(GetLastError(), ERROR_SUCCESS);
    CHECK(!same_object(EV, a, b));
    CloseHandle(a);
    CloseHandle(b);
    /* "" is no name: two creates make two objects, neither "already exists" */
    static const WCHAR empty[] = { 0 };
    for (int t = 0; t < NT; t++) {
        SetLastError(0xdead);
        HANDLE x = create_a(t, "");
        CHECK_EQ(GetLastError(), ERROR_SUCCESS);
        SetLastError(0xdead);
        HANDLE y = create_w(t, empty);
        CHECK_EQ(GetLastError(), ERROR_SUCCESS);
        CHECK(x && y && !same_object(t, x, y));
        CloseHandle(x);
        CloseHandle(y);
    }
}

static void test_name_lifetime(void)
{
    for (int t = 0; t < NT; t++) {
        HANDLE a = create_a(t, "nm-life");
        HANDLE b = open_a(t, "nm-life");
        CloseHandle(a);
        HANDLE c = open_a(t, "nm-life");   /* b keeps it */
        CHECK(c != NULL);
        CloseHandle(b);
        CloseHandle(c);
        SetLastError(0);
        CHECK(open_a(t, "nm-life") == NULL);
        CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
        /* the name is free for a new object, even of another type */
        SetLastError(0xdead);
        HANDLE d = create_a((t + 1) % NT, "nm-life");
        CHECK(d != NULL);
        CHECK_EQ(GetLastError(), ERROR_SUCCESS);
        CloseHandle(d);
    }
}

static void test_long_names(void)
{
    char a200[201], a2000[2001];
    WCHAR w200[201], w2000[2001];
    memset(a200, 'n', 200); a200[200] = 0;
    memset(a2000, 'n', 2000); a2000[2000] = 0;
    to_w(a200, w200);
    to_w(a2000, w2000);
    for (int t = 0; t < NT; t++) {
        HANDLE h = create_a(t, a200);
        CHECK(h != NULL);
        HANDLE o = open_w(t, w200);
        CHECK(o != NULL);
        if (h && o) CHECK(same_object(t, h, o));
        CloseHandle(o);
        CloseHandle(h);
        SetLastError(0);
        CHECK(create_a(t, a2000) == NULL);
        CHECK_EQ(GetLastError(), ERROR_FILENAME_EXCED_RANGE);
        SetLastError(0);
        CHECK(create_w(t, w2000) == NULL);
        CHECK_EQ(GetLastError(), ERROR_FILENAME_EXCED_RANGE);
        SetLastError(0);
        CHECK(open_a(t, a2000) == NULL);
        CHECK_EQ(GetLastError(), ERROR_FILENAME_EXCED_RANGE);
    }
}

/* ---- across processes ------------------------------------------------------------ */

static int child_main(const char *what)
{
    if (!strcmp(what, "signal")) {
        HANDLE e = OpenEventA(EVENT_MODIFY_STATE, FALSE, "nm-xproc-ev");
        if (!e) return 10;
        HANDLE s = OpenSemaphoreA(SEMAPHORE_ALL_ACCESS, FALSE, "nm-xproc-sm");
        if (!s || WaitForSingleObject(s, 0) != WAIT_OBJECT_0) return 11;   /* parent put 1 in */
        if (!SetEvent(e)) return 12;
        return 0;
    }
    if (!strcmp(what, "hold")) {
        HANDLE m = CreateMutexA(NULL, TRUE, "nm-xproc-mx");
        if (!m || GetLastError() != ERROR_SUCCESS) return 20;
        /* an object only this process refers to: reclaimed at its death */
        HANDLE own = CreateEventA(NULL, TRUE, FALSE, "nm-xproc-own");
        if (!own) return 22;
        HANDLE r = OpenEventA(EVENT_MODIFY_STATE, FALSE, "nm-xproc-ready");
        if (!r || !SetEvent(r)) return 21;
        for (;;) Sleep(1000);   /* until SIGKILL */
    }
    return 99;
}

static pid_t spawn(const char *what)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "win32_named", "--child", what, (char *)NULL);
        _exit(98);
    }
    return pid;
}

static void test_cross_process(void)
{
    HANDLE e = CreateEventA(NULL, FALSE, FALSE, "nm-xproc-ev");
    HANDLE s = CreateSemaphoreA(NULL, 1, 1, "nm-xproc-sm");
    pid_t pid = spawn("signal");
    REQUIRE(pid > 0);
    CHECK_EQ(WaitForSingleObject(e, 10000), WAIT_OBJECT_0);
    int st = -1;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st));
    CHECK_EQ(WEXITSTATUS(st), 0);
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_TIMEOUT);   /* the child took the unit */
    CloseHandle(e);
    CloseHandle(s);

    /* a holder killed with SIGKILL: its named mutex is abandoned for us */
    HANDLE ready = CreateEventA(NULL, TRUE, FALSE, "nm-xproc-ready");
    pid = spawn("hold");
    REQUIRE(pid > 0);
    CHECK_EQ(WaitForSingleObject(ready, 10000), WAIT_OBJECT_0);
    HANDLE m = OpenMutexA(SYNCHRONIZE, FALSE, "nm-xproc-mx");
    CHECK(m != NULL);
    CHECK_EQ(WaitForSingleObject(m, 50), WAIT_TIMEOUT);   /* held by the child */
    HANDLE peek = OpenEventA(SYNCHRONIZE, FALSE, "nm-xproc-own");
    CHECK(peek != NULL);
    CloseHandle(peek);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st));
    CHECK_EQ(WaitForSingleObject(m, 10000), WAIT_ABANDONED_0);
    CHECK(ReleaseMutex(m));
    /* the dead child's handles are released: its private named event is gone */
    SetLastError(0);
    CHECK(OpenEventA(SYNCHRONIZE, FALSE, "nm-xproc-own") == NULL);
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);
    CHECK(ReleaseMutex(m));
    CloseHandle(m);
    CloseHandle(ready);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--child")) return child_main(argv[2]);
    test_already_exists();
    test_type_mismatch();
    test_open_missing();
    test_local_prefix();
    test_unicode_names();
    test_case_and_empty();
    test_name_lifetime();
    test_long_names();
    test_cross_process();
    return nspa_test_done();
}
