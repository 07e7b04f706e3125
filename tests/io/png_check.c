/*
 * png_check FILE WIDTH HEIGHT MIN_COLOURS: exit 0 when FILE is a PNG of that size (signature,
 * IHDR and decoded image) with more than MIN_COLOURS distinct colours, i.e. not a flat picture.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pngread.h"

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: png_check FILE WIDTH HEIGHT MIN_COLOURS\n");
        return 2;
    }
    pr_image img;
    char why[256];
    unsigned w = (unsigned)atol(argv[2]), h = (unsigned)atol(argv[3]);
    long min = atol(argv[4]);
    if (pr_read(argv[1], &img, why, sizeof why)) {
        fprintf(stderr, "png_check: %s\n", why);
        return 1;
    }
    long colours = pr_colours(&img);
    int ok = img.ihdr_w == w && img.ihdr_h == h && img.w == w && img.h == h && colours > min;
    printf("png_check: %s: IHDR %u x %u (want %u x %u), decoded %u x %u, %ld colours (want > %ld)"
           ": %s\n",
           argv[1], img.ihdr_w, img.ihdr_h, w, h, img.w, img.h, colours, min, ok ? "ok" : "FAILED");
    pr_free(&img);
    return ok ? 0 : 1;
}
