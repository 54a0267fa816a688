/*
 * Results: a Linux result becomes the NTSTATUS that OVERLAPPED.Internal carries, and
 * that status the Win32 error (GetOverlappedResult) or the Winsock error
 * (WSAGetOverlappedResult, completion routines). One table for the three.
 */
#include <errno.h>
#include <sys/socket.h>
#include "io/io_internal.h"

struct map { int err; uint32_t status, win32; int wsa; };

static const struct map map[] = {
    { ECANCELED,    0xC0000120u, 995,  995 },    /* STATUS_CANCELLED, ERROR_OPERATION_ABORTED */
    { ECONNRESET,   0xC000020Du, 64,   10054 },  /* STATUS_CONNECTION_RESET, NETNAME_DELETED */
    { EPIPE,        0xC000020Du, 64,   10054 },
    { ECONNABORTED, 0xC0000241u, 1236, 10053 },
    { ECONNREFUSED, 0xC0000236u, 1225, 10061 },
    { ENOTCONN,     0xC0000140u, 1229, 10057 },  /* STATUS_INVALID_CONNECTION */
    { ETIMEDOUT,    0xC00000B5u, 121,  10060 },  /* STATUS_IO_TIMEOUT */
    { EMSGSIZE,     0x80000005u, 234,  10040 },  /* STATUS_BUFFER_OVERFLOW, ERROR_MORE_DATA */
    { ENODATA,      0xC0000011u, 38,   10058 },  /* STATUS_END_OF_FILE, ERROR_HANDLE_EOF */
    { ENOMEM,       0xC0000017u, 8,    10055 },
    { ENOBUFS,      0xC000009Au, 1450, 10055 },  /* STATUS_INSUFFICIENT_RESOURCES */
    { EINVAL,       0xC000000Du, 87,   10022 },
    { EBADF,        0xC0000008u, 6,    10038 },  /* STATUS_INVALID_HANDLE, WSAENOTSOCK */
    { ENOTSOCK,     0xC0000008u, 6,    10038 },
    { EFAULT,       0xC0000005u, 998,  10014 },
    { ENOSPC,       0xC000007Fu, 112,  10055 },  /* STATUS_DISK_FULL */
    { EHOSTUNREACH, 0xC000023Du, 1232, 10065 },
    { ENETUNREACH,  0xC000023Cu, 1231, 10051 },
    { EADDRINUSE,   0xC000020Au, 52,   10048 },
    { EADDRNOTAVAIL,0xC0000209u, 4294, 10049 },
    { EACCES,       0xC0000022u, 5,    10013 },
    { ESHUTDOWN,    0xC000020Du, 64,   10058 },
    { EAGAIN,       0xC00000D8u, 10035, 10035 },
    { EIO,          0xC0000185u, 1117, 10050 },
};
#define NMAP (sizeof(map) / sizeof(map[0]))

/* an errno without a row: 0xE0000000 | errno (a customer-defined failure status) */
NSPA_HIDDEN uint32_t io_status_from_res(int64_t res, int msg_flags)
{
    if (res >= 0) return (msg_flags & MSG_TRUNC) ? 0x80000005u : 0;
    int e = (int)-res;
    for (unsigned i = 0; i < NMAP; i++)
        if (map[i].err == e) return map[i].status;
    return 0xE0000000u | (uint32_t)(e & 0xffff);
}

static const struct map *by_status(uint32_t st)
{
    for (unsigned i = 0; i < NMAP; i++)
        if (map[i].status == st) return &map[i];
    return NULL;
}

NSPA_HIDDEN uint32_t io_win32_from_status(uint32_t st)
{
    if (st == 0) return 0;
    if (st == IO_STATUS_PENDING) return 996;   /* ERROR_IO_INCOMPLETE */
    const struct map *m = by_status(st);
    if (m) return m->win32;
    if ((st & 0xF0000000u) == 0xE0000000u) return io_win32_from_errno((int)(st & 0xffff));
    return 31;                                 /* ERROR_GEN_FAILURE */
}

NSPA_HIDDEN int io_wsa_from_status(uint32_t st)
{
    if (st == 0) return 0;
    if (st == IO_STATUS_PENDING) return 996;   /* WSA_IO_INCOMPLETE */
    const struct map *m = by_status(st);
    if (m) return m->wsa;
    if ((st & 0xF0000000u) == 0xE0000000u) return io_wsa_from_errno((int)(st & 0xffff));
    return 10022;
}

NSPA_HIDDEN int io_wsa_from_errno(int e)
{
    switch (e) {
    case 0: return 0;
    case EINTR: return 10004;
    case EACCES: case EPERM: return 10013;
    case EFAULT: return 10014;
    case EINVAL: return 10022;
    case EMFILE: case ENFILE: return 10024;
    case EAGAIN: return 10035;
    case EINPROGRESS: return 10036;
    case EALREADY: return 10037;
    case ENOTSOCK: case EBADF: return 10038;
    case EDESTADDRREQ: return 10039;
    case EMSGSIZE: return 10040;
    case EPROTOTYPE: return 10041;
    case ENOPROTOOPT: return 10042;
    case EPROTONOSUPPORT: return 10043;
    case ESOCKTNOSUPPORT: return 10044;
    case EOPNOTSUPP: return 10045;
    case EPFNOSUPPORT: return 10046;
    case EAFNOSUPPORT: return 10047;
    case EADDRINUSE: return 10048;
    case EADDRNOTAVAIL: return 10049;
    case ENETDOWN: return 10050;
    case ENETUNREACH: return 10051;
    case ENETRESET: return 10052;
    case ECONNABORTED: return 10053;
    case ECONNRESET: case EPIPE: return 10054;
    case ENOBUFS: case ENOMEM: return 10055;
    case EISCONN: return 10056;
    case ENOTCONN: return 10057;
    case ESHUTDOWN: return 10058;
    case ETIMEDOUT: return 10060;
    case ECONNREFUSED: return 10061;
    case EHOSTUNREACH: return 10065;
    case ECANCELED: return 995;
    case ENOSYS: return 10045;
    default: return 10022;
    }
}

NSPA_HIDDEN uint32_t io_win32_from_errno(int e)
{
    for (unsigned i = 0; i < NMAP; i++)
        if (map[i].err == e) return map[i].win32;
    switch (e) {
    case ENOENT: return 2;
    case EEXIST: return 80;                     /* ERROR_FILE_EXISTS */
    case EMFILE: case ENFILE: return 4;
    case EISDIR: return 5;
    case ENOTDIR: return 3;
    case ENAMETOOLONG: return 206;
    case ESPIPE: return 87;
    case EROFS: return 19;                       /* ERROR_WRITE_PROTECT */
    case EOPNOTSUPP: case ENOSYS: return 50;
    default: return 31;
    }
}
