/* RegisterWindowMessage names are shared by the processes of a namespace: a second
 * process (exec'd, so nothing is inherited) gets the same number for a name the first
 * registered (case-insensitively), a new name gets a new number in 0xC000..0xFFFF, and
 * the first process then sees the second's number for that name. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa_test.h"

static int child(void)
{
    UINT second = RegisterWindowMessageA("nspa-test-atom-second");
    UINT first = RegisterWindowMessageW(u"NSPA-TEST-ATOM-FIRST");
    printf("%u %u\n", first, second);
    fflush(stdout);
    /* stay alive (holding the names) until the parent has looked */
    HANDLE done = CreateEventA(NULL, TRUE, FALSE, "nspa-test-atom-done");
    return WaitForSingleObject(done, 20000) == WAIT_OBJECT_0 ? 0 : 3;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--child")) return child();
    HANDLE done = CreateEventA(NULL, TRUE, FALSE, "nspa-test-atom-done");
    UINT first = RegisterWindowMessageA("nspa-test-atom-first");
    CHECK(first >= 0xC000 && first <= 0xFFFF);
    int fd[2];
    REQUIRE(pipe(fd) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        execl("/proc/self/exe", "msg_atom", "--child", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    unsigned c_first = 0, c_second = 0;
    CHECK(fscanf(f, "%u %u", &c_first, &c_second) == 2);
    CHECK_EQ(c_first, first);
    CHECK(c_second >= 0xC000 && c_second <= 0xFFFF && c_second != first);
    CHECK_EQ(RegisterWindowMessageA("Nspa-Test-Atom-Second"), c_second);
    SetEvent(done);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    fclose(f);
    CloseHandle(done);
    return nspa_test_done();
}
