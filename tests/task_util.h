/* Tests that look at the library's own threads from outside: the kernel thread id of
 * this process's thread whose name (comm, as set with PR_SET_NAME) starts with @name,
 * 0 if none runs. */
#ifndef NSPA_TEST_TASK_UTIL_H
#define NSPA_TEST_TASK_UTIL_H
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static inline pid_t task_named(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    pid_t found = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[300], comm[32] = "";
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(comm, sizeof(comm), f) && !strncmp(comm, name, strlen(name))) found = atoi(e->d_name);
        fclose(f);
    }
    if (d) closedir(d);
    return found;
}
#endif
