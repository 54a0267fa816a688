/* The platform layer's out-of-line part (platform.h): environment options, the start
 * time of a task. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/platform.h"

NSPA_HIDDEN int nspa_env_int(const char *name, int def, int lo, int hi)
{
    const char *e = getenv(name);
    if (!e || !*e) return def;
    char *end;
    long v = strtol(e, &end, 10);
    if (*end) return def;
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    return (int)v;
}

NSPA_HIDDEN int nspa_env_flag(const char *name, int def)
{
    const char *e = getenv(name);
    if (!e) return def;
    return !(e[0] == '0' && e[1] == 0);
}

NSPA_HIDDEN int nspa_env_is(const char *name, const char *value)
{
    const char *e = getenv(name);
    return e && !strcasecmp(e, value);
}

NSPA_HIDDEN uint64_t nspa_task_start_time(int pid, int tid)
{
    char path[64], buf[1024];
    if (tid) snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
    else snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')');          /* the name may hold spaces and ')' */
    if (!p) return 0;
    int field = 2;                        /* fields after ')' start at 3; starttime is 22 */
    for (; *p && field < 22; p++)
        if (*p == ' ') field++;
    return strtoull(p, NULL, 10);
}
