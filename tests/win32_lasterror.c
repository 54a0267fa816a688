/* GetLastError/SetLastError are per thread. */
#include <windows.h>
#include <pthread.h>
#include "nspa_test.h"

static void *other(void *arg)
{
    (void)arg;
    CHECK_EQ(GetLastError(), 0);
    SetLastError(ERROR_NOT_OWNER);
    CHECK_EQ(GetLastError(), ERROR_NOT_OWNER);
    return NULL;
}

int main(void)
{
    pthread_t t;
    SetLastError(ERROR_INVALID_HANDLE);
    pthread_create(&t, NULL, other, NULL);
    pthread_join(t, NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    return nspa_test_done();
}
