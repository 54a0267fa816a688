/* libnspa-malloc.so runs a real program: python3 does a small workload (dicts, JSON,
 * sorting, threads, big buffers) with and without LD_PRELOAD; the outputs must match,
 * and inside the preloaded run python's memory must be NSPA process-heap blocks.
 * Labelled NO_ASAN: ASan interposes malloc itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nspa_test.h"

#ifndef NSPA_MALLOC_PATH
#error NSPA_MALLOC_PATH must name libnspa-malloc.so
#endif

static const char *workload =
    "import json, threading, hashlib, re\n"
    "d = {str(i): [i, i * i, 'x' * (i % 50)] for i in range(30000)}\n"
    "s = json.dumps(d, sort_keys=True)\n"
    "e = json.loads(s)\n"
    "print(len(s), hashlib.sha256(s.encode()).hexdigest())\n"
    "print(sum(v[1] for v in e.values()) % 1000003)\n"
    "words = re.findall(r'[a-z]+', ' '.join(str(k) + 'abc' for k in range(20000)))\n"
    "print(len(words), sorted(set(words))[:3])\n"
    "out = [None] * 4\n"
    "def work(k):\n"
    "    acc = []\n"
    "    for j in range(40000):\n"
    "        acc.append(bytes((k * j) % 3000 + 1))\n"
    "        if len(acc) > 500: acc = acc[250:]\n"
    "    out[k] = sum(len(a) for a in acc)\n"
    "ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]\n"
    "[t.start() for t in ts]; [t.join() for t in ts]\n"
    "print(out)\n"
    "big = bytearray(50 * 1024 * 1024); big[-1] = 7; print(len(big), big[-1])\n";

static const char *probe =
    "import ctypes\n"
    "lib = ctypes.CDLL('libnspa.so.0')\n"
    "lib.GetProcessHeap.restype = ctypes.c_void_p\n"
    "h = ctypes.c_void_p(lib.GetProcessHeap())\n"
    "x = [bytes(1000 + i % 100) for i in range(20000)]\n"
    "st = (ctypes.c_size_t * 2048)()\n"
    "print(lib.nspa_heap_stats(h, st), st[1] > 10000, lib.HeapValidate(h, 0, None))\n";

static char *run(const char *script, int preload)
{
    FILE *f = fopen("heap_preload_script.py", "w");
    if (!f) return NULL;
    fputs(script, f);
    fclose(f);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s python3 heap_preload_script.py",
             preload ? "env LD_PRELOAD=" NSPA_MALLOC_PATH : "env -u LD_PRELOAD");
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    static char bufs[2][65536];
    char *buf = bufs[preload];
    size_t n = fread(buf, 1, sizeof bufs[0] - 1, p);
    buf[n] = 0;
    int st = pclose(p);
    if (st != 0) {
        fprintf(stderr, "command failed (%d): %s\n", st, cmd);
        return NULL;
    }
    return buf;
}

int main(void)
{
    if (system("python3 -c pass") != 0) {
        fprintf(stderr, "python3 missing\n");
        return 1;
    }
    char *plain = run(workload, 0);
    char *pre = run(workload, 1);
    REQUIRE(plain && pre);
    printf("plain:\n%s\npreloaded:\n%s\n", plain, pre);
    CHECK(strlen(plain) > 50);
    CHECK(strcmp(plain, pre) == 0);
    char *pr = run(probe, 1);
    REQUIRE(pr);
    printf("probe: %s", pr);
    CHECK(strcmp(pr, "0 True 1\n") == 0);   /* nspa_heap_stats: 0; HeapValidate: TRUE */
    remove("heap_preload_script.py");
    return nspa_test_done();
}
