/* HeapSetInformation / HeapQueryInformation / HeapCompact / statistics. */
#include <windows.h>
#include "nspa/heap.h"
#include "nspa_test.h"

int main(void)
{
    HANDLE h = HeapCreate(0, 0, 0);
    REQUIRE(h);
    ULONG lfh = 2;
    CHECK(HeapSetInformation(h, HeapCompatibilityInformation, &lfh, sizeof lfh));
    ULONG got = 99;
    SIZE_T len = 0;
    CHECK(HeapQueryInformation(h, HeapCompatibilityInformation, &got, sizeof got, &len));
    CHECK_EQ(got, 2);
    CHECK_EQ(len, sizeof(ULONG));
    SetLastError(0);
    CHECK(!HeapSetInformation(h, HeapCompatibilityInformation, &lfh, 2));
    CHECK_EQ(GetLastError(), ERROR_INSUFFICIENT_BUFFER);
    ULONG bad = 7;
    SetLastError(0);
    CHECK(!HeapSetInformation(h, HeapCompatibilityInformation, &bad, sizeof bad));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    HANDLE ns = HeapCreate(HEAP_NO_SERIALIZE, 0, 0);
    SetLastError(0);
    CHECK(!HeapSetInformation(ns, HeapCompatibilityInformation, &lfh, sizeof lfh));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(HeapQueryInformation(ns, HeapCompatibilityInformation, &got, sizeof got, NULL));
    CHECK_EQ(got, 0);
    HeapDestroy(ns);
    CHECK(HeapSetInformation(GetProcessHeap(), HeapCompatibilityInformation, &lfh, sizeof lfh));

    /* statistics follow allocations; compaction decommits what frees left idle */
    struct nspa_heap_stats s0, s1, s2, s3;
    CHECK_EQ(nspa_heap_stats((nspa_heap_t *)h, &s0), 0);
    CHECK_EQ(s0.blocks_in_use, 0);
    static void *p[40000];
    for (int i = 0; i < 40000; i++) { p[i] = HeapAlloc(h, 0, 500); memset(p[i], 1, 500); }
    void *L = HeapAlloc(h, 0, 1 << 20);
    CHECK_EQ(nspa_heap_stats((nspa_heap_t *)h, &s1), 0);
    CHECK_EQ(s1.blocks_in_use, 40001);
    CHECK(s1.bytes_in_use >= 40000 * 500 + (1 << 20));
    CHECK_EQ(s1.large_blocks, 1);
    CHECK(s1.bytes_committed >= s1.bytes_in_use);
    unsigned c = 0;
    while (s1.classes[c].block_size < 501) c++;
    CHECK_EQ(s1.classes[c].blocks_in_use, 40000);
    CHECK(s1.classes[c].pages > 0);
    for (int i = 0; i < 40000; i++) HeapFree(h, 0, p[i]);
    HeapFree(h, 0, L);
    CHECK_EQ(nspa_heap_stats((nspa_heap_t *)h, &s2), 0);
    CHECK_EQ(s2.blocks_in_use, 0);
    CHECK(s2.bytes_committed < s1.bytes_committed);
    SIZE_T largest = HeapCompact(h, 0);
    CHECK(largest >= 64 * 1024);
    CHECK_EQ(nspa_heap_stats((nspa_heap_t *)h, &s3), 0);
    CHECK(s3.bytes_committed <= s2.bytes_committed);
    CHECK(s3.bytes_committed <= 2 * 1024 * 1024);
    CHECK(s3.bytes_committed_peak >= s1.bytes_committed);
    CHECK(HeapSetInformation(h, HeapOptimizeResources, NULL, 0));
    CHECK(HeapDestroy(h));
    return nspa_test_done();
}
