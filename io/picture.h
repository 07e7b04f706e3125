/* Private: draws a 2D field with a colour bar and its value range into an RGB image. */
#ifndef SI_PICTURE_H
#define SI_PICTURE_H

/* Longest side of the field in the picture; bigger grids are sampled every f-th cell. */
#define SP_MAX_SIDE 2048
/* Small grids are enlarged by an integer factor until the field is about this many pixels. */
#define SP_MIN_SIDE 256

/* Layout in pixels, documented in io/README.md (the PNG test depends on it). */
#define SP_MARGIN   10
#define SP_GAP      12 /* field to colour bar */
#define SP_BAR_W    16
#define SP_BAR_MIN  128 /* the bar is as tall as the field, at least this */
#define SP_TEXT_GAP 6   /* colour bar to labels */
#define SP_SCALE    2   /* font pixels per glyph pixel */
#define SP_LABEL    11  /* characters per label: "-1.234e-100" */
#define SP_GLYPH_W  5
#define SP_GLYPH_H  7
#define SP_ADVANCE  ((SP_GLYPH_W + 1) * SP_SCALE)

typedef struct sp_image {
    int w, h;
    unsigned char *rgb; /* w * h * 3 bytes, rows top to bottom */
} sp_image;

/* Integer enlargement of a gh x gw field (1 when it is already big). */
int sp_upscale(long gh, long gw);

/*
 * Renders `field` (gh rows of gw values, NaN allowed) enlarged `up` times, mapped over [lo, hi]
 * (lo < hi), with the colour bar and the labels lo, (lo+hi)/2 and hi. Returns 0 or -1 when out
 * of memory; free img->rgb afterwards.
 */
int sp_render(const double *field, int gh, int gw, int up, double lo, double hi, sp_image *img);

#endif /* SI_PICTURE_H */
