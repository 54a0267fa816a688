/* Path selection: the best path is picked at start-up from the CPU features, every path the
 * CPU has can be forced by nspa_unicode_set_isa() and by NSPA_UNICODE_ISA at start-up, and
 * paths the CPU lacks are refused. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa/unicode.h"
#include "nspa_test.h"

int main(int argc, char **argv)
{
    if (argc == 2) {   /* child: report the path picked at start-up */
        printf("%s\n", nspa_unicode_isa_name(nspa_unicode_get_isa()));
        return strcmp(argv[1], nspa_unicode_isa_name(nspa_unicode_get_isa())) ? 3 : 0;
    }
    enum nspa_unicode_isa best = nspa_unicode_best_isa();
    printf("best path: %s\n", nspa_unicode_isa_name(best));
    if (!getenv("NSPA_UNICODE_ISA")) CHECK_EQ(nspa_unicode_get_isa(), best);
#ifdef __x86_64__
    __builtin_cpu_init();
    int want = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2") ? NSPA_UNICODE_ISA_AVX512
             : __builtin_cpu_supports("avx2") ? NSPA_UNICODE_ISA_AVX2 : NSPA_UNICODE_ISA_SSE2;
    CHECK_EQ(best, want);
#else
    CHECK_EQ(best, NSPA_UNICODE_ISA_SCALAR);
#endif
    for (int i = 0; i <= NSPA_UNICODE_ISA_AVX512; i++) {
        enum nspa_unicode_isa isa = (enum nspa_unicode_isa)i;
        if (i <= (int)best) {
            CHECK_EQ(nspa_unicode_set_isa(isa), 0);
            CHECK_EQ(nspa_unicode_get_isa(), isa);
            /* the forced path works */
            uint16_t w[64];
            CHECK_EQ(nspa_utf8_to_utf16("0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ\xC3\xA9", 74, w, 64, NULL), 64);
            /* and the environment variable selects it at start-up */
            pid_t pid = fork();
            if (pid == 0) {
                setenv("NSPA_UNICODE_ISA", nspa_unicode_isa_name(isa), 1);
                execl("/proc/self/exe", argv[0], nspa_unicode_isa_name(isa), (char *)NULL);
                _exit(4);
            }
            int status = 0;
            waitpid(pid, &status, 0);
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        } else {
            CHECK_EQ(nspa_unicode_set_isa(isa), -1);
        }
    }
    enum nspa_unicode_isa cur = nspa_unicode_get_isa();
    CHECK_EQ(nspa_unicode_set_isa((enum nspa_unicode_isa)7), -1);
    CHECK_EQ(nspa_unicode_get_isa(), cur);
    CHECK(!strcmp(nspa_unicode_isa_name((enum nspa_unicode_isa)9), "?"));
    return nspa_test_done();
}
