/* NSPA Win32 layer: interlocked singly linked lists (interlockedapi.h, with the SLIST
 * types of winnt.h). The Windows x64 layout: a 16-byte, 16-byte aligned header whose
 * 16-bit depth and 48-bit sequence sit beside the first entry's address (entries are
 * 16-byte aligned, so the address is kept >> 4), changed together by cmpxchg16b: a pop
 * that raced with a pop and a push of the same entry (ABA) fails and retries.
 * src/locks/win32_slist.c; docs/locks.md. */
#ifndef NSPA_WIN32_INTERLOCKEDAPI_H
#define NSPA_WIN32_INTERLOCKEDAPI_H
#include "windef.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct DECLSPEC_ALIGN(16) _SLIST_ENTRY {
    struct _SLIST_ENTRY *Next;
} SLIST_ENTRY, *PSLIST_ENTRY;

typedef union DECLSPEC_ALIGN(16) _SLIST_HEADER {
    struct {
        ULONGLONG Alignment;
        ULONGLONG Region;
    };
    struct {
        ULONGLONG Depth : 16;
        ULONGLONG Sequence : 48;
        ULONGLONG Reserved : 4;
        ULONGLONG NextEntry : 60;
    } HeaderX64;
} SLIST_HEADER, *PSLIST_HEADER;

void WINAPI InitializeSListHead(PSLIST_HEADER head);
PSLIST_ENTRY WINAPI InterlockedPushEntrySList(PSLIST_HEADER head, PSLIST_ENTRY entry);
PSLIST_ENTRY WINAPI InterlockedPopEntrySList(PSLIST_HEADER head);
PSLIST_ENTRY WINAPI InterlockedFlushSList(PSLIST_HEADER head);
/* push a chain first..last (linked through Next) of @count entries in one step */
PSLIST_ENTRY WINAPI InterlockedPushListSListEx(PSLIST_HEADER head, PSLIST_ENTRY first, PSLIST_ENTRY last,
                                               ULONG count);
USHORT WINAPI QueryDepthSList(PSLIST_HEADER head);
PSLIST_ENTRY WINAPI RtlFirstEntrySList(const SLIST_HEADER *head);
/* ntdll's names of the same calls (x64: RtlInterlockedPushListSList's __fastcall is the
 * one calling convention) */
void WINAPI RtlInitializeSListHead(PSLIST_HEADER head);
PSLIST_ENTRY WINAPI RtlInterlockedPushEntrySList(PSLIST_HEADER head, PSLIST_ENTRY entry);
PSLIST_ENTRY WINAPI RtlInterlockedPopEntrySList(PSLIST_HEADER head);
PSLIST_ENTRY WINAPI RtlInterlockedFlushSList(PSLIST_HEADER head);
PSLIST_ENTRY WINAPI RtlInterlockedPushListSListEx(PSLIST_HEADER head, PSLIST_ENTRY first, PSLIST_ENTRY last,
                                                  ULONG count);
PSLIST_ENTRY WINAPI RtlInterlockedPushListSList(PSLIST_HEADER head, PSLIST_ENTRY first, PSLIST_ENTRY last,
                                                ULONG count);
WORD WINAPI RtlQueryDepthSList(PSLIST_HEADER head);

#ifdef __cplusplus
}
#endif
#endif
