/* NSPA Win32 layer: mswsock.h — the Winsock extension functions (AcceptEx, ConnectEx,
 * GetAcceptExSockaddrs), reached through WSAIoctl(SIO_GET_EXTENSION_FUNCTION_POINTER). */
#ifndef NSPA_WIN32_MSWSOCK_H
#define NSPA_WIN32_MSWSOCK_H
#include "winsock2.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PASCAL_WS_
#ifndef GUID_DEFINED
#define GUID_DEFINED
typedef struct _GUID { DWORD Data1; WORD Data2; WORD Data3; BYTE Data4[8]; } GUID;
#endif
#define WSAID_ACCEPTEX {0xb5367df1, 0xcbac, 0x11cf, {0x95, 0xca, 0x00, 0x80, 0x5f, 0x48, 0xa1, 0x92}}
#define WSAID_CONNECTEX {0x25a207b9, 0xddf3, 0x4660, {0x8e, 0xe9, 0x76, 0xe5, 0x8c, 0x74, 0x06, 0x3e}}
#define WSAID_GETACCEPTEXSOCKADDRS {0xb5367df2, 0xcbac, 0x11cf, {0x95, 0xca, 0x00, 0x80, 0x5f, 0x48, 0xa1, 0x92}}
#define SO_UPDATE_ACCEPT_CONTEXT  0x700B
#define SO_UPDATE_CONNECT_CONTEXT 0x7010

typedef BOOL (PASCAL_WS_ *LPFN_ACCEPTEX)(SOCKET listener, SOCKET accepted, PVOID buf, DWORD rxlen,
                                         DWORD local_len, DWORD remote_len, LPDWORD received,
                                         LPOVERLAPPED ov);
typedef BOOL (PASCAL_WS_ *LPFN_CONNECTEX)(SOCKET s, const struct sockaddr *name, int namelen, PVOID send_buf,
                                          DWORD send_len, LPDWORD sent, LPOVERLAPPED ov);
typedef void (PASCAL_WS_ *LPFN_GETACCEPTEXSOCKADDRS)(PVOID buf, DWORD rxlen, DWORD local_len,
                                                     DWORD remote_len, struct sockaddr **local,
                                                     LPINT local_size, struct sockaddr **remote,
                                                     LPINT remote_size);
BOOL PASCAL_WS_ AcceptEx(SOCKET listener, SOCKET accepted, PVOID buf, DWORD rxlen, DWORD local_len,
                         DWORD remote_len, LPDWORD received, LPOVERLAPPED ov);
void PASCAL_WS_ GetAcceptExSockaddrs(PVOID buf, DWORD rxlen, DWORD local_len, DWORD remote_len,
                                     struct sockaddr **local, LPINT local_size, struct sockaddr **remote,
                                     LPINT remote_size);

#ifdef __cplusplus
}
#endif
#endif
