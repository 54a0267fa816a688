/* Minimal test harness: CHECK() records a failure and goes on; the test's exit code
 * is non-zero when anything failed. Each test program prints one closing line. The
 * counts are atomic: threads of a test may check too. */
#ifndef NSPA_TEST_H
#define NSPA_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nspa_test_failed, nspa_test_passed;
#define NSPA_TEST_COUNT(c) __atomic_fetch_add(&(c), 1, __ATOMIC_RELAXED)

#define CHECK(cond) do { \
    if (cond) NSPA_TEST_COUNT(nspa_test_passed); \
    else { NSPA_TEST_COUNT(nspa_test_failed); \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } \
  } while (0)

#define CHECK_EQ(a, b) do { \
    long long _a = (long long)(a), _b = (long long)(b); \
    if (_a == _b) NSPA_TEST_COUNT(nspa_test_passed); \
    else { NSPA_TEST_COUNT(nspa_test_failed); \
      fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, expected %s == %lld\n", \
              __FILE__, __LINE__, #a, _a, #b, _b); } \
  } while (0)

/* Fatal variant: stop the test here (the rest depends on it). */
#define REQUIRE(cond) do { \
    if (!(cond)) { fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1); } NSPA_TEST_COUNT(nspa_test_passed); } while (0)

static inline int nspa_test_done(void)
{
    int passed = __atomic_load_n(&nspa_test_passed, __ATOMIC_RELAXED);
    int failed = __atomic_load_n(&nspa_test_failed, __ATOMIC_RELAXED);
    printf("%d checks passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
#endif
