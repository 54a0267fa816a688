/* Minimal test harness: CHECK() records a failure and goes on; the test's exit code
 * is non-zero when anything failed. Each test program prints one closing line. */
#ifndef NSPA_TEST_H
#define NSPA_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nspa_test_failed, nspa_test_passed;

#define CHECK(cond) do { \
    if (cond) nspa_test_passed++; \
    else { nspa_test_failed++; \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } \
  } while (0)

#define CHECK_EQ(a, b) do { \
    long long _a = (long long)(a), _b = (long long)(b); \
    if (_a == _b) nspa_test_passed++; \
    else { nspa_test_failed++; \
      fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, expected %s == %lld\n", \
              __FILE__, __LINE__, #a, _a, #b, _b); } \
  } while (0)

/* Fatal variant: stop the test here (the rest depends on it). */
#define REQUIRE(cond) do { \
    if (!(cond)) { fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1); } nspa_test_passed++; } while (0)

static inline int nspa_test_done(void)
{
    printf("%d checks passed, %d failed\n", nspa_test_passed, nspa_test_failed);
    return nspa_test_failed ? 1 : 0;
}
#endif
