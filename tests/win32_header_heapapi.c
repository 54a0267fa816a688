/* Includes only <heapapi.h> and uses what the SDK's heapapi.h declares. */
#include <heapapi.h>

int main(void)
{
    HANDLE h = HeapCreate(0, 0, 0);
    if (!h) return 1;
    char *p = HeapAlloc(h, HEAP_ZERO_MEMORY, 32);
    if (!p || p[31] != 0) return 2;
    p = HeapReAlloc(h, 0, p, 64);
    if (!p || HeapSize(h, 0, p) < 64 || !HeapValidate(h, 0, p)) return 3;
    if (!HeapFree(h, 0, p) || !HeapDestroy(h)) return 4;
    void *q = HeapAlloc(GetProcessHeap(), 0, 8);
    return HeapFree(GetProcessHeap(), 0, q) ? 0 : 5;
}
