/*
 * The stencil set of tests/common/stencil_set.c as the Markdown table of docs/STENCILS.md.
 *
 *   stencil_table                 prints the table
 *   stencil_table --check FILE    exits 1 unless FILE holds exactly that table between the
 *                                 BEGIN and END marker lines (the unit test stencils-doc)
 *
 * The doc is checked against the code rather than generated at build time so that it stays
 * readable in the repository; regenerate the block with the first form when the set changes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil_set.h"

#define BEGIN_MARK "<!-- BEGIN stencil table: tests/unit/stencil_table.c -->\n"
#define END_MARK   "<!-- END stencil table -->\n"

/* Appends printf-style text to buf (capacity cap, length *len); returns -1 when it is full. */
static int put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - *len) return -1;
    *len += (size_t)n;
    return 0;
}

/* The non-zero points of st, "(o0, o1): w" in row-major order of the dense pattern. */
static int put_points(char *buf, size_t cap, size_t *len, const stencil_desc *st, int *npoints)
{
    int ext[3] = {1, 1, 1}, o[3], d, first = 1;
    long i, n = 1;

    for (d = 0; d < st->ndims; d++) {
        ext[d] = st->radius_lo[d] + st->radius_hi[d] + 1;
        n *= ext[d];
    }
    *npoints = 0;
    for (i = 0; i < n; i++) {
        long r = i;
        if (st->weights[i] == 0) continue;
        for (d = st->ndims - 1; d >= 0; d--) {
            o[d] = (int)(r % ext[d]) - st->radius_lo[d];
            r /= ext[d];
        }
        if (put(buf, cap, len, "%s(", first ? "" : ", ")) return -1;
        for (d = 0; d < st->ndims; d++)
            if (put(buf, cap, len, "%s%d", d ? "," : "", o[d])) return -1;
        if (put(buf, cap, len, "): %g", st->weights[i])) return -1;
        first = 0;
        (*npoints)++;
    }
    return 0;
}

/* The whole table, header included, into buf. */
static int table(char *buf, size_t cap, size_t *len)
{
    int i, d;

    *len = 0;
    if (put(buf, cap, len,
            "| name | dims | radius lo | radius hi | points | divisor | "
            "offsets: weights (non-zero, dimension 0 first) |\n"
            "|---|---|---|---|---|---|---|\n"))
        return -1;
    for (i = 0; i < stencil_set_count(); i++) {
        stencil_desc st;
        char pts[4096];
        size_t plen = 0;
        int np;

        if (stencil_set_get(i, STENCIL_FLOAT, &st)) return -1;
        if (put_points(pts, sizeof(pts), &plen, &st, &np)) return -1;
        if (put(buf, cap, len, "| %s | %d | ", stencil_set_name(i), st.ndims)) return -1;
        for (d = 0; d < st.ndims; d++)
            if (put(buf, cap, len, "%s%d", d ? "," : "", st.radius_lo[d])) return -1;
        if (put(buf, cap, len, " | ")) return -1;
        for (d = 0; d < st.ndims; d++)
            if (put(buf, cap, len, "%s%d", d ? "," : "", st.radius_hi[d])) return -1;
        if (put(buf, cap, len, " | %d | %g | %s |\n", np, st.divisor, pts)) return -1;
    }
    return 0;
}

/* The text of FILE between the marker lines, into doc; -1 when the markers are missing. */
static int doc_block(const char *path, char *doc, size_t cap)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    size_t len = 0;
    int in = 0, done = 0;

    if (!f) {
        perror(path);
        return -1;
    }
    doc[0] = '\0';
    while (!done && fgets(line, sizeof(line), f)) {
        if (!in) {
            in = strcmp(line, BEGIN_MARK) == 0;
        } else if (strcmp(line, END_MARK) == 0) {
            done = 1;
        } else if (put(doc, cap, &len, "%s", line)) {
            break;
        }
    }
    fclose(f);
    if (!done)
        fprintf(stderr, "%s: no block between the marker lines\n%s%s", path, BEGIN_MARK, END_MARK);
    return done ? 0 : -1;
}

int main(int argc, char **argv)
{
    static char want[1 << 16], have[1 << 16];
    size_t len;

    if (table(want, sizeof(want), &len)) {
        fprintf(stderr, "stencil_table: table too long\n");
        return 2;
    }
    if (argc == 1) {
        fputs(want, stdout);
        return 0;
    }
    if (argc != 3 || strcmp(argv[1], "--check") != 0) {
        fprintf(stderr, "usage: %s [--check FILE]\n", argv[0]);
        return 2;
    }
    if (doc_block(argv[2], have, sizeof(have))) return 1;
    if (strcmp(want, have) != 0) {
        fprintf(stderr,
                "%s does not match tests/common/stencil_set.c; its table should read:\n%s%s%s",
                argv[2], BEGIN_MARK, want, END_MARK);
        return 1;
    }
    printf("%s: the stencil table matches tests/common/stencil_set.c (%d stencils)\n", argv[2],
           stencil_set_count());
    return 0;
}
