/* Drives the libFuzzer entry point without libFuzzer (gcc builds): each file argument is
 * one input; without arguments, random and structured inputs for --seconds S (default 3).
 * make test runs it as unicode_fuzz_replay. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    static uint8_t buf[4097];
    double seconds = 3;
    int files = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc) { seconds = atof(argv[++i]); continue; }
        FILE *f = fopen(argv[i], "rb");
        if (!f) { perror(argv[i]); return 1; }
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        files++;
    }
    if (files) { printf("%d inputs replayed\n", files); return 0; }
    uint64_t x = 0x243F6A8885A308D3ull;
    unsigned long long count = 0;
    double t0 = now();
    static const uint8_t pieces[][4] = { {0xC3, 0xA9}, {0xE4, 0xB8, 0xAD}, {0xF0, 0x9F, 0x98, 0x80}, {0xED, 0xA0, 0x80},
                                         {0xC0, 0x80}, {0x80}, {'a'}, {'Z'}, {0x31, 0x01}, {0x00, 0xD8}, {0x00, 0xDC} };
    static const uint8_t plen[] = { 2, 3, 4, 3, 2, 1, 1, 1, 2, 2, 2 };
    while (now() - t0 < seconds) {
        for (int r = 0; r < 64; r++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            size_t n = 1 + x % 600, o = 0;
            buf[o++] = (uint8_t)(x >> 32);
            int mode = (int)((x >> 40) % 3);
            while (o < n) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                if (mode == 0) buf[o++] = (uint8_t)x;
                else if (mode == 1 || (x & 7)) buf[o++] = (uint8_t)(' ' + (x >> 8) % 95);
                else {
                    unsigned p = (unsigned)((x >> 16) % sizeof plen);
                    for (unsigned j = 0; j < plen[p] && o < n; j++) buf[o++] = pieces[p][j];
                }
            }
            LLVMFuzzerTestOneInput(buf, n);
            count++;
        }
    }
    printf("unicode_fuzz_replay: %llu inputs, no difference\n", count);
    return 0;
}
