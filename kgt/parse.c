/*
 * The description file parser. Line based: every line is a keyword and its arguments, except
 * the rows that follow 'pattern'. The first error stops the parse, so that every message points
 * at a real mistake rather than at a consequence of an earlier one.
 *
 * This file reads the file and holds the keywords of a stencil's header (stencil, dims, radius,
 * divisor, end); parse_lex.c turns lines into tokens and numbers, parse_points.c reads the points
 * ('point', 'pattern'). parse.h holds the parser's state.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

/*
 * Names follow docs/STENCILS.md ("2d9nc", "3d-oct"): generated symbols are <prefix>_<stem>_..., so
 * a name needs only identifier characters once '-' becomes '_'.
 */
static int valid_name(const char *s)
{
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-') return 0;
    return 1;
}

static char *make_stem(const char *name)
{
    char *s = malloc(strlen(name) + 1);
    if (!s) return NULL;
    for (size_t i = 0; (s[i] = name[i]) != '\0'; i++)
        if (s[i] == '-') s[i] = '_';
    return s;
}

static size_t hash_str(const char *s)
{
    size_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot of stem in the set: the stencil holding it, or the empty slot where it would go. */
static int *stem_slot(const parser *p, const char *stem)
{
    size_t mask = p->nslots - 1, i = hash_str(stem) & mask;
    while (p->stems[i] && strcmp(p->file->st[p->stems[i] - 1].stem, stem) != 0) i = (i + 1) & mask;
    return &p->stems[i];
}

/* Room for one more stem, the set at most half full. */
static int stems_reserve(parser *p)
{
    size_t n = p->nslots ? p->nslots : 64;
    int *old = p->stems;
    size_t nold = p->nslots;
    if (2 * ((size_t)p->file->nst + 1) <= p->nslots) return 0;
    while (2 * ((size_t)p->file->nst + 1) > n) n *= 2;
    if (!(p->stems = calloc(n, sizeof *p->stems))) {
        p->stems = old;
        return -1;
    }
    p->nslots = n;
    for (size_t i = 0; i < nold; i++)
        if (old[i]) *stem_slot(p, p->file->st[old[i] - 1].stem) = old[i];
    free(old);
    return 0;
}

/* The stencil's name, checked for duplicates and for clashes once made a symbol stem (equal
   names have equal stems, so one set of stems finds both). */
static int new_name(parser *p, const tok *t, char **stem)
{
    const kgt_file *f = p->file;
    int at;
    if (!valid_name(t->s))
        return perr(p, t->col, "invalid stencil name '%s' (letters, digits, '_' and '-' only)",
                    t->s);
    if (strlen(t->s) > MAX_NAME)
        return perr(p, t->col, "stencil name is longer than %d characters", MAX_NAME);
    if (stems_reserve(p) || !(*stem = make_stem(t->s))) return perr(p, t->col, "out of memory");
    if (!(at = *stem_slot(p, *stem))) return 0;
    free(*stem);
    if (strcmp(f->st[at - 1].name, t->s) == 0)
        return perr(p, t->col, "duplicate stencil name '%s' (first defined at line %d)", t->s,
                    f->st[at - 1].line);
    return perr(p, t->col, "stencil name '%s' clashes with '%s' (line %d) in C symbols", t->s,
                f->st[at - 1].name, f->st[at - 1].line);
}

static int kw_stencil(parser *p)
{
    const tok *t = &p->t[1];
    kgt_stencil *s;
    kgt_file *f = p->file;
    char *stem = NULL;
    if (kgt_need_args(p, 1, "stencil") || new_name(p, t, &stem)) return -1;
    if (kgt_grow((void **)&f->st, &f->cap, f->nst + 1, sizeof *f->st)) {
        free(stem);
        return perr(p, t->col, "out of memory");
    }
    s = &f->st[f->nst++];
    memset(s, 0, sizeof *s);
    s->stem = stem;
    *stem_slot(p, stem) = f->nst;
    p->gen++; /* forgets the offsets of the previous stencil */
    if (!(s->name = malloc(strlen(t->s) + 1))) return perr(p, t->col, "out of memory");
    strcpy(s->name, t->s);
    s->line = p->line;
    s->col = t->col;
    p->cur = s;
    return 0;
}

static int kw_dims(parser *p)
{
    kgt_stencil *s = p->cur;
    if (kgt_need_args(p, 1, "dims")) return -1;
    if (s->ndims) return perr(p, p->t[0].col, "duplicate 'dims'");
    if (kgt_parse_int(p, &p->t[1], &s->ndims)) return -1;
    if (s->ndims < 1 || s->ndims > KGT_MAX_DIMS) {
        int n = s->ndims;
        s->ndims = 0;
        return perr(p, p->t[1].col, "dims must be 1, 2 or 3, got %d", n);
    }
    return 0;
}

/* One radius entry: "R" (both sides) or "LO/HI". */
static int parse_radius(const parser *p, const tok *t, int *lo, int *hi)
{
    char *end;
    long a, b;
    if (!isdigit((unsigned char)t->s[0])) return perr(p, t->col, "bad radius '%s'", t->s);
    a = strtol(t->s, &end, 10);
    b = a;
    if (*end == '/') {
        if (!isdigit((unsigned char)end[1])) return perr(p, t->col, "bad radius '%s'", t->s);
        b = strtol(end + 1, &end, 10);
    }
    if (*end) return perr(p, t->col, "bad radius '%s'", t->s);
    if (a > KGT_MAX_RADIUS || b > KGT_MAX_RADIUS)
        return perr(p, t->col, "radius '%s' exceeds the maximum %d", t->s, KGT_MAX_RADIUS);
    *lo = (int)a;
    *hi = (int)b;
    return 0;
}

static int kw_radius(parser *p)
{
    kgt_stencil *s = p->cur;
    if (kgt_need_dims(p) || kgt_need_args(p, s->ndims, "radius")) return -1;
    if (s->has_radius) return perr(p, p->t[0].col, "duplicate 'radius'");
    if (s->mode) return perr(p, p->t[0].col, "'radius' must come before 'point' and 'pattern'");
    for (int d = 0; d < s->ndims; d++)
        if (parse_radius(p, &p->t[1 + d], &s->rlo[d], &s->rhi[d])) return -1;
    s->has_radius = 1;
    return 0;
}

static int kw_divisor(parser *p)
{
    kgt_stencil *s = p->cur;
    if (kgt_need_args(p, 1, "divisor")) return -1;
    if (s->has_divisor) return perr(p, p->t[0].col, "duplicate 'divisor'");
    if (kgt_parse_real(p, &p->t[1], "divisor", &s->divisor)) return -1;
    if (s->divisor == 0.0) return perr(p, p->t[1].col, "divisor is zero");
    s->has_divisor = 1;
    return 0;
}

static int cmp_point(const void *a, const void *b)
{
    const kgt_point *x = a, *y = b;
    for (int d = 0; d < KGT_MAX_DIMS; d++)
        if (x->off[d] != y->off[d]) return x->off[d] < y->off[d] ? -1 : 1;
    return 0;
}

/* Closes the stencil: completeness checks, row-major order, radius from the weights if needed. */
static int kw_end(parser *p)
{
    kgt_stencil *s = p->cur;
    int nonzero = 0;
    if (kgt_need_args(p, 0, "end")) return -1;
    if (!s->ndims) return perr(p, p->t[0].col, "stencil '%s' has no 'dims'", s->name);
    if (!s->has_divisor) return perr(p, p->t[0].col, "stencil '%s' has no divisor", s->name);
    if (!s->npts) return perr(p, p->t[0].col, "stencil '%s' has no 'point' or 'pattern'", s->name);
    for (int i = 0; i < s->npts; i++) nonzero += s->pts[i].w != 0.0;
    if (!nonzero) return perr(p, p->t[0].col, "stencil '%s' has only zero weights", s->name);
    qsort(s->pts, (size_t)s->npts, sizeof *s->pts, cmp_point);
    if (!s->has_radius) {
        /* The radius follows the non-zero weights; a zero point beyond it would index outside
         * the dense box (found by the fuzzer), and a zero weight means nothing anyway. */
        int n = 0;
        for (int i = 0; i < s->npts; i++)
            if (s->pts[i].w != 0.0) s->pts[n++] = s->pts[i];
        s->npts = n;
        for (int i = 0; i < s->npts; i++)
            for (int d = 0; d < s->ndims && s->pts[i].w != 0.0; d++) {
                if (-s->pts[i].off[d] > s->rlo[d]) s->rlo[d] = -s->pts[i].off[d];
                if (s->pts[i].off[d] > s->rhi[d]) s->rhi[d] = s->pts[i].off[d];
            }
    }
    p->cur = NULL;
    return 0;
}

typedef struct keyword {
    const char *name;
    int (*fn)(parser *p);
} keyword;

static const keyword keywords[] = {
    {"stencil", kw_stencil}, {"dims", kw_dims},           {"radius", kw_radius},
    {"point", kgt_kw_point}, {"pattern", kgt_kw_pattern}, {"divisor", kw_divisor},
    {"end", kw_end},
};

static const keyword *find_keyword(const char *s)
{
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcmp(keywords[i].name, s) == 0) return &keywords[i];
    return NULL;
}

static int parse_line(parser *p)
{
    const keyword *k;
    if (p->prog) return kgt_prog_feed(p); /* its blank lines too: p->t[0] may not exist */
    k = find_keyword(p->t[0].s);
    if (!k && !p->cur && strcmp(p->t[0].s, "program") == 0) return kgt_kw_program(p);
    if (p->in_pattern) {
        if (!k) return kgt_pattern_row(p);
        if (kgt_end_pattern(p)) return -1;
    }
    if (!k) return perr(p, p->t[0].col, "unknown keyword '%s'", p->t[0].s);
    if (k->fn == kw_stencil && p->cur)
        return perr(p, p->t[0].col, "'stencil' inside stencil '%s' (missing 'end')", p->cur->name);
    if (k->fn != kw_stencil && !p->cur)
        return perr(p, p->t[0].col, "'%s' outside a stencil", p->t[0].s);
    return k->fn(p);
}

static int parse_stream(parser *p)
{
    int r;
    while ((r = kgt_read_line(p)) > 0) {
        if (kgt_tokenize(p)) return perr(p, 1, "out of memory");
        if ((p->nt > 0 || p->prog) && parse_line(p)) return -1;
    }
    if (r == -2) return perr(p, 1, "a NUL byte in the line");
    if (r < 0) return perr(p, 1, "out of memory");
    if (ferror(p->fp)) return perr(p, 1, "read error");
    if (p->cur)
        return kgt_perr_at(p, p->cur->line, p->cur->col, "stencil '%s' is missing 'end'",
                           p->cur->name);
    if (p->prog) return kgt_prog_finish(p, 0);
    if (!p->file->nst && !p->file->nprog)
        return kgt_perr_at(p, 1, 1, "no stencil or program in file");
    return 0;
}

int kgt_parse(const char *path, kgt_file *out)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        memset(out, 0, sizeof *out);
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = kgt_parse_stream(path, fp, out);
    fclose(fp);
    return rc;
}

int kgt_parse_stream(const char *path, FILE *fp, kgt_file *out)
{
    parser p;
    int rc;
    memset(&p, 0, sizeof p);
    memset(out, 0, sizeof *out);
    out->path = path;
    p.path = path;
    p.file = out;
    p.fp = fp;
    p.seen = calloc(OFF_KEYS, sizeof *p.seen);
    p.first = calloc(OFF_KEYS, sizeof *p.first);
    rc = p.seen && p.first ? parse_stream(&p) : kgt_perr_at(&p, 1, 1, "out of memory");
    rc = kgt_prog_finish(&p, rc);
    free(p.buf);
    free(p.tb);
    free(p.t);
    free(p.stems);
    free(p.seen);
    free(p.first);
    if (rc) kgt_file_free(out);
    return rc;
}

void kgt_file_free(kgt_file *f)
{
    for (int i = 0; i < f->nst; i++) {
        free(f->st[i].name);
        free(f->st[i].stem);
        free(f->st[i].pts);
    }
    free(f->st);
    kgt_file_free_progs(f);
    f->st = NULL;
    f->nst = f->cap = 0;
}

long kgt_dense_size(const kgt_stencil *s)
{
    long n = 1;
    for (int d = 0; d < s->ndims; d++) n *= s->rlo[d] + 1 + s->rhi[d];
    return n;
}

double *kgt_dense(const kgt_stencil *s)
{
    double *w = calloc((size_t)kgt_dense_size(s), sizeof *w);
    if (!w) return NULL;
    for (int i = 0; i < s->npts; i++) {
        long k = 0;
        for (int d = 0; d < s->ndims; d++)
            k = k * (s->rlo[d] + 1 + s->rhi[d]) + s->pts[i].off[d] + s->rlo[d];
        w[k] = s->pts[i].w;
    }
    return w;
}
