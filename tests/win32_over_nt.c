/* The Win32 object calls are argument translation + one Nt* call + RtlNtStatusToDosError
 * (src/win32/synch.c, docs/nt.md): the answers that come from that path.
 * - Open*(bInheritHandle TRUE) gives an inheritable handle (OBJ_INHERIT), FALSE does not;
 *   CreateWaitableTimer honours SECURITY_ATTRIBUTES.bInheritHandle as the others do;
 * - a name with a backslash other than the Local\ and Global\ links names a directory
 *   that does not exist: ERROR_PATH_NOT_FOUND (STATUS_OBJECT_PATH_NOT_FOUND), for every
 *   kind, creating and opening; Open*("") is ERROR_INVALID_NAME;
 * - the MAX_PATH limit at its edge: 260 units work, 261 are ERROR_FILENAME_EXCED_RANGE;
 * - a waitable timer's name is an NT path like the others' (NtCreateTimer/NtOpenTimer:
 *   Global\X is \BaseNamedObjects\X; OBJ_OPENIF, collisions, type mismatches);
 * - NtDuplicateObject of GetCurrentProcess() makes a real process handle, as
 *   DuplicateHandle does;
 * - A names are UTF-8 converted with Windows' replacement rules: an invalid byte is
 *   U+FFFD, so the W name with U+FFFD is the same object;
 * - the error of each failing hot call is the mapped status's, and success leaves the
 *   last error alone; QueryPerformanceCounter(NULL) is ERROR_NOACCESS; SleepEx(0, TRUE)
 *   runs queued APCs (WAIT_IO_COMPLETION);
 * - the waits are NtWaitFor*: a non-waitable kind is ERROR_INVALID_HANDLE in any wait,
 *   one object twice in a wait-all ERROR_INVALID_PARAMETER. */
#include <uchar.h>
#include <windows.h>
#include "nspa_test.h"

enum { EV, MX, SM, TM, NK };

static HANDLE create_a(int k, const char *name)
{
    switch (k) {
    case EV: return CreateEventA(NULL, TRUE, FALSE, name);
    case MX: return CreateMutexA(NULL, FALSE, name);
    case SM: return CreateSemaphoreA(NULL, 0, 5, name);
    default: return CreateWaitableTimerA(NULL, TRUE, name);
    }
}

static HANDLE create_inherit(int k, const char *name)
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    switch (k) {
    case EV: return CreateEventA(&sa, TRUE, FALSE, name);
    case MX: return CreateMutexA(&sa, FALSE, name);
    case SM: return CreateSemaphoreA(&sa, 0, 5, name);
    default: return CreateWaitableTimerA(&sa, TRUE, name);
    }
}

static HANDLE open_a(int k, BOOL inherit, const char *name)
{
    switch (k) {
    case EV: return OpenEventA(EVENT_ALL_ACCESS, inherit, name);
    case MX: return OpenMutexA(MUTEX_ALL_ACCESS, inherit, name);
    case SM: return OpenSemaphoreA(SEMAPHORE_ALL_ACCESS, inherit, name);
    default: return OpenWaitableTimerA(TIMER_ALL_ACCESS, inherit, name);
    }
}

static DWORD flags_of(HANDLE h)
{
    DWORD f = 0xdead;
    CHECK(GetHandleInformation(h, &f));
    return f;
}

static void test_inherit(void)
{
    for (int k = 0; k < NK; k++) {
        HANDLE c = create_a(k, "w32nt-inh");
        REQUIRE(c != NULL);
        CHECK_EQ(flags_of(c), 0);
        HANDLE o1 = open_a(k, TRUE, "w32nt-inh"), o0 = open_a(k, FALSE, "w32nt-inh");
        CHECK(o1 != NULL && o0 != NULL);
        CHECK_EQ(flags_of(o1), HANDLE_FLAG_INHERIT);
        CHECK_EQ(flags_of(o0), 0);
        CloseHandle(o1);
        CloseHandle(o0);
        CloseHandle(c);
        HANDLE u = create_inherit(k, NULL);        /* unnamed, inheritable */
        CHECK(u != NULL);
        CHECK_EQ(flags_of(u), HANDLE_FLAG_INHERIT);
        CloseHandle(u);
    }
}

/* Wine's test_event: a SECURITY_ATTRIBUTES with a descriptor (blank, NULL DACL, empty
 * DACL) still creates; NSPA has no access checks and ignores it */
static void test_descriptor_ignored(void)
{
    unsigned char blob[64] = { 1 };      /* a blank SECURITY_DESCRIPTOR's revision byte */
    SECURITY_ATTRIBUTES sa = { sizeof(sa), blob, FALSE };
    HANDLE h[4] = { CreateEventA(&sa, FALSE, FALSE, "w32nt-sd"), CreateMutexA(&sa, FALSE, NULL),
                    CreateSemaphoreA(&sa, 0, 1, NULL), CreateWaitableTimerA(&sa, FALSE, NULL) };
    for (int i = 0; i < 4; i++) {
        CHECK(h[i] != NULL);
        if (h[i]) CHECK_EQ(flags_of(h[i]), 0);
        CloseHandle(h[i]);
    }
}

static void test_paths(void)
{
    for (int k = 0; k < NK; k++) {
        SetLastError(0);
        CHECK(create_a(k, "w32nt-dir\\obj") == NULL);
        CHECK_EQ(GetLastError(), ERROR_PATH_NOT_FOUND);
        SetLastError(0);
        CHECK(create_a(k, "Local\\w32nt-dir\\obj") == NULL);
        CHECK_EQ(GetLastError(), ERROR_PATH_NOT_FOUND);
        SetLastError(0);
        CHECK(open_a(k, FALSE, "w32nt-dir\\obj") == NULL);
        CHECK_EQ(GetLastError(), ERROR_PATH_NOT_FOUND);
        SetLastError(0);
        CHECK(open_a(k, FALSE, "") == NULL);
        CHECK_EQ(GetLastError(), ERROR_INVALID_NAME);
        /* "" is no name for a create */
        SetLastError(0xdeadbeef);
        HANDLE u = create_a(k, "");
        CHECK(u != NULL);
        CHECK_EQ(GetLastError(), ERROR_SUCCESS);
        CloseHandle(u);
    }
}

static void test_length_edge(void)
{
    char a260[262];
    WCHAR w261[262];
    memset(a260, 'e', 261);
    a260[0] = 'W';
    a260[260] = 0;                 /* 260 units */
    for (int i = 0; i < 261; i++) w261[i] = u'f';
    w261[261] = 0;
    for (int k = 0; k < NK; k++) {
        HANDLE h = create_a(k, a260);
        CHECK(h != NULL);
        HANDLE o = open_a(k, FALSE, a260);
        CHECK(o != NULL);
        CloseHandle(o);
        CloseHandle(h);
        a260[260] = 'e';
        a260[261] = 0;             /* 261 */
        SetLastError(0);
        CHECK(create_a(k, a260) == NULL);
        CHECK_EQ(GetLastError(), ERROR_FILENAME_EXCED_RANGE);
        a260[260] = 0;
    }
    SetLastError(0);
    CHECK(CreateEventW(NULL, TRUE, FALSE, w261) == NULL);
    CHECK_EQ(GetLastError(), ERROR_FILENAME_EXCED_RANGE);
    SetLastError(0);
    CHECK(OpenMutexW(MUTEX_ALL_ACCESS, FALSE, w261) == NULL);
    CHECK_EQ(GetLastError(), ERROR_FILENAME_EXCED_RANGE);
}

static void init_name(UNICODE_STRING *u, const char16_t *s)
{
    size_t n = 0;
    while (s[n]) n++;
    u->Length = u->MaximumLength = (USHORT)(n * 2);
    u->Buffer = (PWSTR)s;
}

static void test_nt_timer(void)
{
    UNICODE_STRING us;
    OBJECT_ATTRIBUTES oa;
    HANDLE t = NULL, t2 = NULL;
    init_name(&us, u"\\BaseNamedObjects\\w32nt-timer");
    InitializeObjectAttributes(&oa, &us, 0, NULL, NULL);

    HANDLE w = CreateWaitableTimerA(NULL, FALSE, "Global\\w32nt-timer");
    REQUIRE(w != NULL);
    CHECK_EQ(NtOpenTimer(&t, TIMER_ALL_ACCESS, &oa), STATUS_SUCCESS);
    CHECK_EQ(NtCreateTimer(&t2, TIMER_ALL_ACCESS, &oa, SynchronizationTimer), STATUS_OBJECT_NAME_COLLISION);
    oa.Attributes = OBJ_OPENIF;
    CHECK_EQ(NtCreateTimer(&t2, TIMER_ALL_ACCESS, &oa, SynchronizationTimer), STATUS_OBJECT_NAME_EXISTS);
    /* one object: set through one handle, signaled through the others */
    LARGE_INTEGER due = { .QuadPart = -1 };
    CHECK(SetWaitableTimer(t, &due, 0, NULL, NULL, FALSE));
    CHECK_EQ(WaitForSingleObject(w, 2000), WAIT_OBJECT_0);
    CloseHandle(t2);
    CloseHandle(t);
    CHECK_EQ(NtCreateTimer(&t2, TIMER_ALL_ACCESS, &oa, (TIMER_TYPE)2), STATUS_INVALID_PARAMETER);
    CHECK_EQ(NtCreateTimer(NULL, TIMER_ALL_ACCESS, &oa, NotificationTimer), STATUS_ACCESS_VIOLATION);
    CloseHandle(w);

    /* an unnamed NT timer is the Win32 one */
    CHECK_EQ(NtCreateTimer(&t, TIMER_ALL_ACCESS, NULL, NotificationTimer), STATUS_SUCCESS);
    CHECK(SetWaitableTimer(t, &due, 0, NULL, NULL, FALSE));
    CHECK_EQ(WaitForSingleObject(t, 2000), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(t, 0), WAIT_OBJECT_0);     /* notification: stays */
    CloseHandle(t);

    /* another type under the name */
    HANDLE e = CreateEventA(NULL, TRUE, FALSE, "w32nt-timer-ev");
    init_name(&us, u"\\Sessions\\1\\BaseNamedObjects\\w32nt-timer-ev");
    oa.Attributes = 0;
    CHECK_EQ(NtOpenTimer(&t, TIMER_ALL_ACCESS, &oa), STATUS_OBJECT_TYPE_MISMATCH);
    SetLastError(0);
    CHECK(CreateWaitableTimerA(NULL, FALSE, "w32nt-timer-ev") == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    SetLastError(0);
    CHECK(OpenWaitableTimerA(TIMER_ALL_ACCESS, FALSE, "w32nt-timer-ev") == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CloseHandle(e);
}

static void test_dup_process(void)
{
    HANDLE self = GetCurrentProcess(), d = NULL;
    CHECK_EQ(NtDuplicateObject(self, self, self, &d, 0, 0, DUPLICATE_SAME_ACCESS), STATUS_SUCCESS);
    CHECK(d != NULL && d != self);
    CHECK_EQ(GetProcessId(d), GetCurrentProcessId());
    CHECK_EQ(WaitForSingleObject(d, 0), WAIT_TIMEOUT);      /* we are running */
    CHECK_EQ(NtClose(d), STATUS_SUCCESS);
    CHECK(DuplicateHandle(self, self, self, &d, 0, TRUE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ(flags_of(d), HANDLE_FLAG_INHERIT);
    CHECK_EQ(GetProcessId(d), GetCurrentProcessId());
    CloseHandle(d);
}

static void test_a_names_utf8(void)
{
    HANDLE a = CreateEventA(NULL, TRUE, FALSE, "w32nt-\xff-x");
    REQUIRE(a != NULL);
    HANDLE w = OpenEventW(EVENT_ALL_ACCESS, FALSE, (LPCWSTR)u"w32nt-\xFFFD-x");
    CHECK(w != NULL);
    CHECK(SetEvent(w));
    CHECK_EQ(WaitForSingleObject(a, 0), WAIT_OBJECT_0);
    CloseHandle(w);
    CloseHandle(a);
}

static void CALLBACK count_apc(ULONG_PTR p) { (*(int *)p)++; }

static void test_errors(void)
{
    HANDLE e = CreateEventA(NULL, FALSE, FALSE, NULL), m = CreateMutexA(NULL, FALSE, NULL);
    HANDLE s = CreateSemaphoreA(NULL, 1, 1, NULL);
    REQUIRE(e && m && s);
    /* success leaves the last error alone */
    SetLastError(0xdeadbeef);
    CHECK(SetEvent(e) && ResetEvent(e) && PulseEvent(e));
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);
    CHECK(ReleaseMutex(m));
    CHECK_EQ(GetLastError(), 0xdeadbeef);
    /* STATUS_OBJECT_TYPE_MISMATCH (another kind, a pseudo handle) -> ERROR_INVALID_HANDLE */
    SetLastError(0);
    CHECK(!SetEvent(m));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    SetLastError(0);
    CHECK(!ResetEvent(GetCurrentProcess()));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    SetLastError(0);
    CHECK(!ReleaseMutex(GetCurrentThread()));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    SetLastError(0);
    CHECK(!ReleaseSemaphore(e, 1, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    SetLastError(0);
    CHECK_EQ(SignalObjectAndWait(GetCurrentThread(), e, 0, FALSE), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    /* a file handle can be neither signaled nor (here) waited on with it: Wine's
     * test_signalandwait, ERROR_INVALID_HANDLE */
    char path[MAX_PATH];
    snprintf(path, sizeof(path), "/tmp/nspa-w32nt-%d", (int)GetCurrentProcessId());
    HANDLE f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    CHECK(f != INVALID_HANDLE_VALUE);
    SetLastError(0);
    CHECK_EQ(SignalObjectAndWait(f, f, 0, FALSE), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(CloseHandle(f));                        /* files close through NtClose too */
    CHECK(DeleteFileA(path));
    /* STATUS_MUTANT_NOT_OWNED, STATUS_SEMAPHORE_LIMIT_EXCEEDED, STATUS_INVALID_PARAMETER */
    SetLastError(0);
    CHECK(!ReleaseMutex(m));
    CHECK_EQ(GetLastError(), ERROR_NOT_OWNER);
    LONG prev = 77;
    SetLastError(0);
    CHECK(!ReleaseSemaphore(s, 1, &prev));
    CHECK_EQ(GetLastError(), ERROR_TOO_MANY_POSTS);
    CHECK_EQ(prev, 77);
    SetLastError(0);
    CHECK(!ReleaseSemaphore(s, -1, &prev));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK_EQ(prev, 77);
    /* closed: STATUS_INVALID_HANDLE */
    CloseHandle(e);
    SetLastError(0);
    CHECK(!SetEvent(e));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    SetLastError(0);
    CHECK(!CloseHandle(e));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(CloseHandle(GetCurrentThread()) && CloseHandle(GetCurrentProcess()));
    /* STATUS_ACCESS_VIOLATION -> ERROR_NOACCESS */
    SetLastError(0);
    CHECK(!QueryPerformanceCounter(NULL));
    CHECK_EQ(GetLastError(), ERROR_NOACCESS);
    /* a zero alertable sleep runs what is queued */
    int n = 0;
    CHECK(QueueUserAPC(count_apc, GetCurrentThread(), (ULONG_PTR)&n));
    CHECK_EQ(SleepEx(0, TRUE), WAIT_IO_COMPLETION);
    CHECK_EQ(n, 1);
    CHECK_EQ(SleepEx(0, TRUE), 0);
    CHECK(SwitchToThread());
    CloseHandle(m);
    CloseHandle(s);
}

/* The Win32 waits are the NT ones: a handle of a kind that cannot be waited on (a file
 * mapping) is STATUS_OBJECT_TYPE_MISMATCH / ERROR_INVALID_HANDLE in a wait-any and a
 * wait-all alike; one object twice in a wait-all (the same handle, or a duplicate) is
 * STATUS_INVALID_PARAMETER_MIX / ERROR_INVALID_PARAMETER; a wait-all that succeeds is
 * WAIT_OBJECT_0 */
static void test_waits(void)
{
    HANDLE m = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, 4096, NULL);
    HANDLE e = CreateEventA(NULL, TRUE, TRUE, NULL), e2 = CreateEventA(NULL, TRUE, TRUE, NULL), d = NULL;
    REQUIRE(m && e && e2);
    CHECK(DuplicateHandle(GetCurrentProcess(), e, GetCurrentProcess(), &d, 0, FALSE, DUPLICATE_SAME_ACCESS));
    LARGE_INTEGER zero = { .QuadPart = 0 };
    HANDLE em[2] = { e, m }, ed[2] = { e, d }, ee[2] = { e, e }, e12[2] = { e, e2 };
    for (int all = 0; all < 2; all++) {
        SetLastError(0);
        CHECK_EQ(WaitForMultipleObjects(2, em, all, 0), WAIT_FAILED);
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
        CHECK_EQ(NtWaitForMultipleObjects(2, em, all ? WaitAll : WaitAny, FALSE, &zero), STATUS_OBJECT_TYPE_MISMATCH);
    }
    SetLastError(0);
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    SetLastError(0);
    CHECK_EQ(WaitForMultipleObjects(2, ed, TRUE, 0), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK_EQ(NtWaitForMultipleObjects(2, ed, WaitAll, FALSE, &zero), STATUS_INVALID_PARAMETER_MIX);
    CHECK_EQ(NtWaitForMultipleObjects(2, ee, WaitAll, FALSE, &zero), STATUS_INVALID_PARAMETER_MIX);
    CHECK_EQ(WaitForMultipleObjects(2, e12, TRUE, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForMultipleObjectsEx(2, e12, FALSE, 0, TRUE), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObjectEx(e2, 0, TRUE), WAIT_OBJECT_0);
    CloseHandle(d);
    CloseHandle(e);
    CloseHandle(e2);
    CloseHandle(m);
}

/* Wine's sync test looks up these at run time (GetProcAddress on kernel32 / ntdll) and
 * calls some without a NULL check (RtlInterlockedPushListSList): all must be found */
static void test_wine_lookups(void)
{
    static const char *const k32[] = {
        "InitOnceInitialize", "InitOnceExecuteOnce", "InitOnceBeginInitialize", "InitOnceComplete",
        "InitializeConditionVariable", "SleepConditionVariableCS", "SleepConditionVariableSRW",
        "WakeAllConditionVariable", "WakeConditionVariable", "InitializeCriticalSectionEx",
        "InitializeSRWLock", "AcquireSRWLockExclusive", "AcquireSRWLockShared", "ReleaseSRWLockExclusive",
        "ReleaseSRWLockShared", "TryAcquireSRWLockExclusive", "TryAcquireSRWLockShared", "QueueUserAPC2",
        "InitializeSynchronizationBarrier", "DeleteSynchronizationBarrier", "EnterSynchronizationBarrier",
    };
    static const char *const nt[] = {
        "NtWaitForSingleObject", "NtWaitForMultipleObjects", "RtlInterlockedPushListSList",
        "RtlInterlockedPushListSListEx", "NtQueueApcThread", "NtTestAlert",
    };
    HMODULE k = GetModuleHandleA("kernel32.dll"), n = GetModuleHandleA("ntdll.dll");
    REQUIRE(k && n);
    int missing = 0;
    for (size_t i = 0; i < sizeof(k32) / sizeof(k32[0]); i++)
        if (!GetProcAddress(k, k32[i])) { fprintf(stderr, "kernel32 lacks %s\n", k32[i]); missing++; }
    for (size_t i = 0; i < sizeof(nt) / sizeof(nt[0]); i++)
        if (!GetProcAddress(n, nt[i])) { fprintf(stderr, "ntdll lacks %s\n", nt[i]); missing++; }
    CHECK_EQ(missing, 0);
}

int main(void)
{
    test_inherit();
    test_paths();
    test_descriptor_ignored();
    test_length_edge();
    test_nt_timer();
    test_dup_process();
    test_a_names_utf8();
    test_errors();
    test_waits();
    test_wine_lookups();
    return nspa_test_done();
}
