/* Environment options (platform.h): every module reads its knobs through these, once. */
#include <stdlib.h>
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
