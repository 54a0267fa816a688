/* Symbol visibility: the library builds with -fvisibility=hidden; public entry points
 * (nspa_* and the Win32 names) are marked NSPA_EXPORT. */
#ifndef NSPA_COMMON_EXPORT_H
#define NSPA_COMMON_EXPORT_H
#define NSPA_EXPORT __attribute__((visibility("default")))
#define NSPA_HIDDEN __attribute__((visibility("hidden")))
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define NSPA_CACHELINE 64
#endif
