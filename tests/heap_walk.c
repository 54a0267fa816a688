/* HeapWalk: regions first, then every block with its exact size and busy flag; ends with
 * ERROR_NO_MORE_ITEMS. */
#include <windows.h>
#include "nspa_test.h"

int main(void)
{
    HANDLE h = HeapCreate(0, 0, 0);
    REQUIRE(h);
    enum { N = 300 };
    void *p[N];
    for (int i = 0; i < N; i++)
        p[i] = HeapAlloc(h, 0, (size_t)(i * 13 % 700) + (i == 7 ? 400000 : 0));
    for (int i = 0; i < N; i += 3) {
        HeapFree(h, 0, p[i]);
        p[i] = NULL;
    }
    int found[N] = {0};
    int regions = 0, busy = 0, freeb = 0, others = 0;
    PROCESS_HEAP_ENTRY e;
    e.lpData = NULL;
    CHECK(HeapLock(h));
    while (HeapWalk(h, &e)) {
        if (e.wFlags & PROCESS_HEAP_REGION) {
            regions++;
            CHECK(e.Region.lpFirstBlock != NULL);
        } else if (e.wFlags & PROCESS_HEAP_ENTRY_BUSY) {
            busy++;
            int k = -1;
            for (int i = 0; i < N; i++) if (p[i] == e.lpData) k = i;
            if (k < 0) { others++; continue; }
            found[k]++;
            CHECK_EQ(e.cbData, (size_t)(k * 13 % 700) + (k == 7 ? 400000 : 0));
        } else {
            freeb++;
            for (int i = 0; i < N; i++) CHECK(p[i] != e.lpData);
        }
    }
    CHECK_EQ(GetLastError(), ERROR_NO_MORE_ITEMS);
    CHECK(HeapUnlock(h));
    for (int i = 0; i < N; i++)
        CHECK_EQ(found[i], p[i] ? 1 : 0);
    CHECK(regions >= 2);              /* one arena and the large block's mapping */
    CHECK_EQ(others, 0);
    CHECK(freeb > 0);
    CHECK_EQ(busy, N - (N + 2) / 3);
    /* an empty heap walks to the end at once or through empty regions only */
    HANDLE e2 = HeapCreate(0, 0, 0);
    e.lpData = NULL;
    int blocks = 0;
    while (HeapWalk(e2, &e)) if (e.wFlags & PROCESS_HEAP_ENTRY_BUSY) blocks++;
    CHECK_EQ(blocks, 0);
    CHECK_EQ(GetLastError(), ERROR_NO_MORE_ITEMS);
    HeapDestroy(e2);
    HeapDestroy(h);
    return nspa_test_done();
}
