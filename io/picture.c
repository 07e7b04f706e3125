/*
 * The picture of a field: an inferno-like colour map, a colour bar and the value range in a tiny
 * built-in 5x7 font. Plain RGB drawing, no libpng and no MPI here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picture.h"

/*
 * Control points of a dark-to-bright ramp close to matplotlib's 'inferno': perceptually ordered
 * (lightness grows monotonically) and readable in grey scale. Linear interpolation in between.
 */
static const unsigned char ramp[][3] = {
    {0, 0, 4},     {31, 12, 72},   {85, 15, 109},  {136, 34, 106},  {186, 54, 85},
    {227, 89, 51}, {249, 140, 10}, {249, 201, 50}, {252, 255, 164},
};
#define RAMP_N ((int)(sizeof ramp / sizeof ramp[0]))

static void colour(double t, unsigned char *rgb)
{
    if (t != t) { /* NaN: neutral grey, outside the ramp */
        rgb[0] = rgb[1] = rgb[2] = 128;
        return;
    }
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double x = t * (RAMP_N - 1);
    int i = (int)x;
    if (i >= RAMP_N - 1) i = RAMP_N - 2;
    double f = x - i;
    for (int c = 0; c < 3; c++)
        rgb[c] = (unsigned char)lround(ramp[i][c] + f * (ramp[i + 1][c] - ramp[i][c]));
}

/* 5x7 glyphs, one byte per row, bit 4 leftmost: just what "%.4g" prints. */
static const char glyph_chars[] = "0123456789.-+e";
static const unsigned char glyphs[][SP_GLYPH_H] = {
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}, {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}, {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}, {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}, {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}, {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}, {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00},
    {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}, {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E},
};

static void put(sp_image *img, int x, int y, const unsigned char *rgb)
{
    if (x < 0 || y < 0 || x >= img->w || y >= img->h) return;
    memcpy(img->rgb + ((size_t)y * (size_t)img->w + (size_t)x) * 3, rgb, 3);
}

static void draw_text(sp_image *img, int x, int y, const char *s)
{
    static const unsigned char ink[3] = {0, 0, 0};
    for (; *s; s++, x += SP_ADVANCE) {
        const char *at = strchr(glyph_chars, *s);
        if (!at) continue; /* anything else leaves a blank */
        const unsigned char *g = glyphs[at - glyph_chars];
        for (int r = 0; r < SP_GLYPH_H * SP_SCALE; r++)
            for (int c = 0; c < SP_GLYPH_W * SP_SCALE; c++)
                if (g[r / SP_SCALE] >> (SP_GLYPH_W - 1 - c / SP_SCALE) & 1)
                    put(img, x + c, y + r, ink);
    }
}

static void draw_field(sp_image *img, const double *field, int gh, int gw, int up, double lo,
                       double hi)
{
    unsigned char rgb[3];
    for (int y = 0; y < gh * up; y++)
        for (int x = 0; x < gw * up; x++) {
            double v = field[(size_t)(y / up) * (size_t)gw + (size_t)(x / up)];
            colour((v - lo) / (hi - lo), rgb);
            put(img, SP_MARGIN + x, SP_MARGIN + y, rgb);
        }
}

/* The bar runs from hi at the top to lo at the bottom, framed, with three labels beside it. */
static void draw_bar(sp_image *img, int x0, int bh, double lo, double hi)
{
    static const unsigned char ink[3] = {0, 0, 0};
    unsigned char rgb[3];
    for (int y = -1; y <= bh; y++)
        for (int x = -1; x <= SP_BAR_W; x++) {
            int frame = y < 0 || y == bh || x < 0 || x == SP_BAR_W;
            if (!frame) colour(1.0 - (double)y / (bh > 1 ? bh - 1 : 1), rgb);
            put(img, x0 + x, SP_MARGIN + y, frame ? ink : rgb);
        }
    char s[32];
    const int tx = x0 + SP_BAR_W + SP_TEXT_GAP, th = SP_GLYPH_H * SP_SCALE;
    double v[3] = {hi, lo + (hi - lo) / 2, lo};
    if (fabs(v[1]) < 1e-6 * (hi - lo)) v[1] = 0; /* a symmetric range: not "2.4e-12" */
    const int ty[3] = {SP_MARGIN, SP_MARGIN + bh / 2 - th / 2, SP_MARGIN + bh - th};
    for (int i = 0; i < 3; i++) {
        snprintf(s, sizeof s, "%.4g", v[i]);
        draw_text(img, tx, ty[i], s);
    }
}

int sp_upscale(long gh, long gw)
{
    long m = gh > gw ? gh : gw;
    return m >= SP_MIN_SIDE ? 1 : (int)(SP_MIN_SIDE / m);
}

int sp_render(const double *field, int gh, int gw, int up, double lo, double hi, sp_image *img)
{
    const int pw = gw * up, ph = gh * up, bh = ph > SP_BAR_MIN ? ph : SP_BAR_MIN;
    const int x0 = SP_MARGIN + pw + SP_GAP;
    img->w = x0 + SP_BAR_W + SP_TEXT_GAP + SP_LABEL * SP_ADVANCE + SP_MARGIN;
    img->h = SP_MARGIN + bh + SP_MARGIN;
    img->rgb = malloc((size_t)img->w * (size_t)img->h * 3);
    if (!img->rgb) return -1;
    memset(img->rgb, 255, (size_t)img->w * (size_t)img->h * 3);
    draw_field(img, field, gh, gw, up, lo, hi);
    draw_bar(img, x0, bh, lo, hi);
    return 0;
}
