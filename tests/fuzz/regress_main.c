/*
 * Replays the fuzzer's regression inputs through the same entry point without libFuzzer, so the
 * ordinary (and the sanitizer) build runs them in every test run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "%s: cannot open\n", argv[i]);
            return 1;
        }
        static uint8_t buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        printf("replayed %s (%zu bytes)\n", argv[i], n);
    }
    return 0;
}
