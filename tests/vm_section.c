/* File mappings: pagefile-backed (unnamed, named across processes), SEC_RESERVE,
 * file-backed from a descriptor, views, errors, and the backing file's lifetime. */
#include <windows.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa/vm.h"
#include "nspa_test.h"

static int sec_files(void)
{
    /* where the namespace region lives (docs/sync.md): the first that exists */
    char alt[2][64];
    snprintf(alt[0], sizeof alt[0], "/run/user/%d", (int)getuid());
    snprintf(alt[1], sizeof alt[1], "/dev/shm/nspa-%d", (int)getuid());
    const char *d = getenv("XDG_RUNTIME_DIR");
    DIR *dir = d ? opendir(d) : NULL;
    for (int i = 0; !dir && i < 2; i++) dir = opendir(alt[i]);
    int n = 0;
    struct dirent *e;
    while (dir && (e = readdir(dir)))
        if (strstr(e->d_name, "ctest-vm_section") && strstr(e->d_name, ".sec-")) n++;
    if (dir) closedir(dir);
    return n;
}

int main(void)
{
    /* unnamed: two views of one section share memory */
    HANDLE s = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, 1 << 20, NULL);
    REQUIRE(s != NULL);
    char *v1 = MapViewOfFile(s, FILE_MAP_WRITE, 0, 0, 0);
    char *v2 = MapViewOfFile(s, FILE_MAP_READ, 0, 65536, 4096);
    REQUIRE(v1 && v2);
    CHECK(((uintptr_t)v1 & 0xffff) == 0);
    v1[65536 + 3] = 'x';
    CHECK(v2[3] == 'x');
    MEMORY_BASIC_INFORMATION mi;
    VirtualQuery(v2, &mi, sizeof mi);
    CHECK_EQ(mi.Type, MEM_MAPPED);
    CHECK_EQ(mi.Protect, PAGE_READONLY);
    CHECK_EQ(mi.RegionSize, 4096);
    CHECK(mi.AllocationBase == v2);
    /* a copy-on-write view does not change the section */
    char *cw = MapViewOfFile(s, FILE_MAP_COPY, 0, 0, 0);
    REQUIRE(cw != NULL);
    cw[0] = 'c';
    CHECK(v1[0] == 0);
    CHECK(UnmapViewOfFile(cw));
    /* access 0: a view with no access */
    char *v0 = MapViewOfFile(s, 0, 0, 0, 4096);
    CHECK(v0 != NULL);
    if (v0) {
        VirtualQuery(v0, &mi, sizeof mi);
        CHECK_EQ(mi.Protect, PAGE_NOACCESS);
        CHECK(UnmapViewOfFile(v0));
    }
    /* errors */
    CHECK(MapViewOfFile(s, FILE_MAP_READ, 0, 4096, 0) == NULL);
    CHECK_EQ(GetLastError(), 1132 /* ERROR_MAPPED_ALIGNMENT */);
    CHECK(MapViewOfFile(s, FILE_MAP_READ, 0, 0, (1 << 20) + 1) == NULL);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CHECK(!UnmapViewOfFile(v1 + 4096 * 1000 + (1 << 20)));
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    CHECK(!VirtualFree(v1, 0, MEM_RELEASE));      /* a view is not VirtualAlloc memory */
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, 0, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_NOACCESS, 0, 4096, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE | SEC_COMMIT | SEC_RESERVE, 0, 4096, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    HANDLE ro = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READONLY, 0, 4096, NULL);
    CHECK(MapViewOfFile(ro, FILE_MAP_WRITE, 0, 0, 0) == NULL);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CloseHandle(ro);
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    CHECK(MapViewOfFile(ev, FILE_MAP_READ, 0, 0, 0) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CloseHandle(ev);
    CHECK(UnmapViewOfFile(v2));
    CHECK(UnmapViewOfFile(v1 + 100));             /* any address inside the view */
    CHECK(CloseHandle(s));

    /* SEC_RESERVE: views start reserved; VirtualAlloc commits pages of the view */
    HANDLE r = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE | SEC_RESERVE, 0, 1 << 20, NULL);
    char *rv = MapViewOfFile(r, FILE_MAP_WRITE, 0, 0, 0);
    REQUIRE(rv != NULL);
    VirtualQuery(rv, &mi, sizeof mi);
    CHECK_EQ(mi.State, MEM_RESERVE);
    CHECK(VirtualAlloc(rv + 8192, 4096, MEM_COMMIT, PAGE_READWRITE) == rv + 8192);
    rv[8192] = 5;
    VirtualQuery(rv + 8192, &mi, sizeof mi);
    CHECK_EQ(mi.State, MEM_COMMIT);
    CHECK_EQ(mi.Type, MEM_MAPPED);
    UnmapViewOfFile(rv);
    CloseHandle(r);

    /* named: shared with another process of the namespace */
    HANDLE n = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, 65536, "Local\\vm-sec");
    REQUIRE(n != NULL);
    CHECK_EQ(GetLastError(), 0);
    CHECK_EQ(sec_files(), 1);
    HANDLE n2 = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, 4096, L"vm-sec");
    CHECK(n2 != NULL);
    CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
    CloseHandle(n2);
    HANDLE clash = CreateEventA(NULL, TRUE, FALSE, "vm-sec");
    CHECK(clash == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    char *nv = MapViewOfFile(n, FILE_MAP_ALL_ACCESS, 0, 0, 0);
    REQUIRE(nv != NULL);
    pid_t pid = fork();
    if (pid == 0) {
        HANDLE c = OpenFileMappingA(FILE_MAP_ALL_ACCESS, FALSE, "vm-sec");
        char *cv = c ? MapViewOfFile(c, FILE_MAP_WRITE, 0, 0, 0) : NULL;
        if (!cv) _exit(2);
        strcpy(cv + 100, "from the child");
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(strcmp(nv + 100, "from the child") == 0);
    CHECK(CloseHandle(n));
    /* the view keeps the memory; the name and the backing file are gone */
    CHECK(strcmp(nv + 100, "from the child") == 0);
    CHECK(OpenFileMappingA(FILE_MAP_READ, FALSE, "vm-sec") == NULL);
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    CHECK_EQ(sec_files(), 0);
    UnmapViewOfFile(nv);

    /* a process killed while it holds the only handle: the sweep of the dead process
     * frees the section and its backing file goes with it */
    pid = fork();
    if (pid == 0) {
        HANDLE k = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, 65536, "vm-sec-killed");
        if (!k) _exit(2);
        kill(getpid(), SIGKILL);
        _exit(3);
    }
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st));
    CHECK(OpenFileMappingA(FILE_MAP_READ, FALSE, "vm-sec-killed") == NULL);   /* sweeps the dead */
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    CHECK_EQ(sec_files(), 0);

    /* file-backed from a descriptor */
    char tmpl[] = "/tmp/nspa-vm-section-XXXXXX";
    int fd = mkstemp(tmpl);
    REQUIRE(fd >= 0);
    unlink(tmpl);
    CHECK(write(fd, "hello file", 10) == 10);
    nspa_obj_t fs;
    CHECK_EQ(nspa_vm_section_create(fd, 0, PAGE_READWRITE, NULL, &fs), 0);
    void *fv = NULL;
    CHECK_EQ(nspa_vm_map_view(fs, FILE_MAP_WRITE, 0, 0, &fv), 0);
    CHECK(fv && memcmp(fv, "hello file", 10) == 0);
    memcpy(fv, "HELLO", 5);
    CHECK(FlushViewOfFile(fv, 0));
    char back[10];
    CHECK(pread(fd, back, 10, 0) == 10 && memcmp(back, "HELLO file", 10) == 0);
    CHECK(UnmapViewOfFile(fv));
    CHECK_EQ(nspa_close(fs), 0);
    close(fd);
    return nspa_test_done();
}
