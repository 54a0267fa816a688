/* Fixed heaps (maximum != 0) fail when full and work again after frees; growable ones
 * do not stop; 0x7FFF8 bytes and more never fit a fixed heap; HEAP_GENERATE_EXCEPTIONS. */
#include <windows.h>
#include <setjmp.h>
#include "nspa/heap.h"
#include "nspa/win32/ntstatus.h"
#include "nspa_test.h"

static jmp_buf jb;
static unsigned seen_status;
static void handler(unsigned status, nspa_heap_t *heap)
{
    (void)heap;
    seen_status = status;
    longjmp(jb, 1);
}

int main(void)
{
    HANDLE h = HeapCreate(0, 0, 256 * 1024);
    REQUIRE(h);
    static void *b[4096];
    int n = 0;
    while (n < 4096 && (b[n] = HeapAlloc(h, 0, 1000)) != NULL)
        n++;
    CHECK(n < 4096);                       /* it filled up */
    CHECK(n >= 128);                       /* and held at least half its size in blocks */
    CHECK((size_t)n * 1000 <= 256 * 1024);
    CHECK(HeapAlloc(h, 0, 1000) == NULL);  /* stays full */
    CHECK(HeapFree(h, 0, b[0]));
    CHECK(HeapFree(h, 0, b[1]));
    b[0] = HeapAlloc(h, 0, 1000);
    CHECK(b[0] != NULL);                   /* room again */
    CHECK(HeapValidate(h, 0, NULL));
    CHECK(HeapAlloc(h, 0, 0x7FFF8) == NULL);
    for (int i = 0; i < n; i++)
        if (i != 1) CHECK(HeapFree(h, 0, b[i]));
    /* once empty, a large allocation below the limit fits */
    void *big = HeapAlloc(h, 0, 200 * 1024);
    CHECK(big != NULL);
    CHECK(HeapFree(h, 0, big));
    CHECK(HeapDestroy(h));

    /* HEAP_GENERATE_EXCEPTIONS: the failure raises STATUS_NO_MEMORY through the hook */
    HANDLE hx = HeapCreate(HEAP_GENERATE_EXCEPTIONS, 0, 64 * 1024);
    REQUIRE(hx);
    nspa_heap_set_exception_handler(handler);
    volatile int raised = 0;
    if (setjmp(jb) == 0)
        HeapAlloc(hx, 0, 1 << 20);
    else
        raised = 1;
    CHECK(raised);
    CHECK_EQ(seen_status, (unsigned)STATUS_NO_MEMORY);
    /* per-call flag on a heap without it */
    HANDLE hy = HeapCreate(0, 0, 64 * 1024);
    raised = 0;
    if (setjmp(jb) == 0)
        HeapAlloc(hy, HEAP_GENERATE_EXCEPTIONS, 1 << 20);
    else
        raised = 1;
    CHECK(raised);
    CHECK(HeapAlloc(hy, 0, 1 << 20) == NULL);   /* without the flag: NULL */
    nspa_heap_set_exception_handler(NULL);
    /* no handler: the library never aborts on exhaustion, the allocation fails */
    CHECK(HeapAlloc(hx, 0, 1 << 20) == NULL);
    CHECK(HeapAlloc(hy, HEAP_GENERATE_EXCEPTIONS, 1 << 20) == NULL);
    CHECK(HeapDestroy(hx));
    CHECK(HeapDestroy(hy));
    return nspa_test_done();
}
