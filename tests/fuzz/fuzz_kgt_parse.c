/*
 * libFuzzer target for kgt's description parser: any byte string must be either parsed or
 * rejected with a message, never crash, leak or trip the sanitizers.
 *   tools/fuzz-kgt.sh [RUNS]   builds it with clang and runs it over the seed corpus.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kgt.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    FILE *fp = fmemopen((void *)data, size, "r");
    if (!fp) return 0;
    kgt_file f;
    if (kgt_parse_stream("fuzz", fp, &f) == 0) {
        /* Exercise what generation reads from a parsed file. */
        for (int i = 0; i < f.nst; i++) {
            double *w = kgt_dense(&f.st[i]);
            free(w);
        }
        kgt_file_free(&f);
    }
    fclose(fp);
    return 0;
}
