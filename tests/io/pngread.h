/* Test helper: reads a PNG back, independently of the library's writer (libpng's reader). */
#ifndef PNGREAD_H
#define PNGREAD_H

typedef struct pr_image {
    unsigned ihdr_w, ihdr_h; /* from the IHDR chunk's bytes */
    unsigned w, h;           /* from the decoder */
    unsigned char *rgb;      /* w * h * 3, rows top to bottom */
} pr_image;

/* Checks the signature and that IHDR comes first, then decodes to RGB. 0, or -1 with why. */
int pr_read(const char *path, pr_image *img, char *why, int whylen);
/* Number of distinct RGB colours in the image. */
long pr_colours(const pr_image *img);
/* Pixel (x, y), three bytes. */
const unsigned char *pr_pixel(const pr_image *img, unsigned x, unsigned y);
void pr_free(pr_image *img);

#endif
