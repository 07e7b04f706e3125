/* PNG reading for the tests: raw signature and IHDR bytes, then libpng's simplified decoder. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pngread.h"

static unsigned be32(const unsigned char *p)
{
    return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3];
}

/* The first 8 bytes are the PNG signature; the first chunk must be IHDR, 13 bytes long. */
static int raw_header(const char *path, pr_image *img, char *why, int whylen)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char b[24];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(b, 1, sizeof b, f) : 0;
    if (f) fclose(f);
    if (n != sizeof b) return snprintf(why, (size_t)whylen, "%s: cannot read 24 bytes", path), -1;
    if (memcmp(b, sig, 8) != 0) return snprintf(why, (size_t)whylen, "bad PNG signature"), -1;
    if (be32(b + 8) != 13 || memcmp(b + 12, "IHDR", 4) != 0)
        return snprintf(why, (size_t)whylen, "first chunk is not a 13-byte IHDR"), -1;
    img->ihdr_w = be32(b + 16);
    img->ihdr_h = be32(b + 20);
    return 0;
}

int pr_read(const char *path, pr_image *img, char *why, int whylen)
{
    memset(img, 0, sizeof *img);
    if (raw_header(path, img, why, whylen)) return -1;
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&pi, path))
        return snprintf(why, (size_t)whylen, "libpng: %s", pi.message), -1;
    pi.format = PNG_FORMAT_RGB;
    img->w = pi.width;
    img->h = pi.height;
    img->rgb = malloc(PNG_IMAGE_SIZE(pi));
    if (!img->rgb || !png_image_finish_read(&pi, NULL, img->rgb, 0, NULL)) {
        snprintf(why, (size_t)whylen, "libpng: %s", img->rgb ? pi.message : "out of memory");
        png_image_free(&pi);
        pr_free(img);
        return -1;
    }
    return 0;
}

long pr_colours(const pr_image *img)
{
    unsigned char *seen = calloc(1u << 21, 1); /* one bit per 24-bit colour */
    long n = 0;
    if (!seen) return -1;
    for (size_t i = 0; i < (size_t)img->w * img->h; i++) {
        const unsigned char *p = img->rgb + 3 * i;
        unsigned c = (unsigned)p[0] << 16 | (unsigned)p[1] << 8 | p[2];
        if (!(seen[c >> 3] >> (c & 7) & 1)) n++;
        seen[c >> 3] |= (unsigned char)(1u << (c & 7));
    }
    free(seen);
    return n;
}

const unsigned char *pr_pixel(const pr_image *img, unsigned x, unsigned y)
{
    return img->rgb + ((size_t)y * img->w + x) * 3;
}

void pr_free(pr_image *img)
{
    free(img->rgb);
    img->rgb = NULL;
}
