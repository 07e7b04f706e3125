/*
 * The description file parser. Line based: every line is a keyword and its arguments, except
 * the rows that follow 'pattern'. The first error stops the parse, so that every message points
 * at a real mistake rather than at a consequence of an earlier one.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kgt.h"

#define MAX_NAME 63
/* Offsets of one stencil as a key: each coordinate in [-KGT_MAX_RADIUS, KGT_MAX_RADIUS]. */
#define OFF_SIDE (2 * KGT_MAX_RADIUS + 1)
#define OFF_KEYS (OFF_SIDE * OFF_SIDE * OFF_SIDE)

typedef struct tok {
    const char *s;
    int col;
} tok;

typedef struct parser {
    const char *path;
    FILE *fp;
    int line;
    char *buf, *tb; /* the line, and its tokens as NUL-terminated copies */
    size_t cap;
    tok *t;
    int nt, tcap;
    kgt_file *file;
    kgt_stencil *cur; /* the open stencil, or NULL */
    int in_pattern, rows, pat_line, pat_col;
    /* Stems seen so far, an open-addressing hash set of stencil index + 1 (0: empty): a file of
       many stencils is checked in linear time. */
    int *stems;
    size_t nslots;
    /* Offsets of the open stencil: seen[k] == gen when its point first[k] has offset key k. */
    unsigned *seen, gen;
    int *first;
} parser;

static int perr_at(const parser *p, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int perr_at(const parser *p, int line, int col, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d:%d: ", p->path, line, col);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

#define perr(p, col, ...) perr_at((p), (p)->line, (col), __VA_ARGS__)

static int grow(void **ptr, int *cap, int need, size_t elem)
{
    int n = *cap ? *cap : 8;
    void *q;
    if (need <= *cap) return 0;
    while (n < need) n *= 2;
    q = realloc(*ptr, (size_t)n * elem);
    if (!q) return -1;
    *ptr = q;
    *cap = n;
    return 0;
}

/* Reads one line of any length; returns 0 at end of file. */
static int read_line(parser *p)
{
    size_t n = 0;
    int c;
    while ((c = fgetc(p->fp)) != EOF && c != '\n') {
        if (n + 2 > p->cap) {
            size_t cap = p->cap ? 2 * p->cap : 256;
            char *b = realloc(p->buf, cap);
            char *tb = realloc(p->tb, 2 * cap);
            if (b) p->buf = b;
            if (tb) p->tb = tb;
            if (!b || !tb) return -1;
            p->cap = cap;
        }
        p->buf[n++] = (char)c;
    }
    if (c == EOF && n == 0) return 0;
    if (n > 0 && p->buf[n - 1] == '\r') n--; /* files written on Windows */
    if (!p->buf && !(p->buf = malloc(1))) return -1;
    p->buf[n] = '\0';
    p->line++;
    return 1;
}

/* Splits the line into tokens: blanks separate, ':' is a token of its own, '#' starts a comment. */
static int tokenize(parser *p)
{
    const char *s = p->buf;
    char *o = p->tb;
    p->nt = 0;
    if (!o) return 0;
    for (int i = 0; s[i] && s[i] != '#';) {
        if (s[i] == ' ' || s[i] == '\t') {
            i++;
            continue;
        }
        if (grow((void **)&p->t, &p->tcap, p->nt + 1, sizeof *p->t)) return -1;
        p->t[p->nt].s = o;
        p->t[p->nt++].col = i + 1;
        if (s[i] == ':') {
            *o++ = s[i++];
        } else {
            while (s[i] && s[i] != ' ' && s[i] != '\t' && s[i] != '#' && s[i] != ':') *o++ = s[i++];
        }
        *o++ = '\0';
    }
    return 0;
}

static int parse_int(const parser *p, const tok *t, int *v)
{
    const char *s = t->s;
    long x = 0;
    int neg = (*s == '-');
    if (*s == '-' || *s == '+') s++;
    if (!*s) return perr(p, t->col, "bad integer '%s'", t->s);
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s)) return perr(p, t->col, "bad integer '%s'", t->s);
        if ((x = x * 10 + (*s - '0')) > 1000000)
            return perr(p, t->col, "integer '%s' is out of range", t->s);
    }
    *v = (int)(neg ? -x : x);
    return 0;
}

/* A finite number; 'what' names it in messages ("weight", "divisor"). */
static int parse_real(const parser *p, const tok *t, const char *what, double *v)
{
    char *end;
    double x;
    errno = 0;
    x = strtod(t->s, &end);
    if (end == t->s || *end) return perr(p, t->col, "bad number '%s'", t->s);
    if (isnan(x)) return perr(p, t->col, "%s is NaN", what);
    if (isinf(x) && errno != ERANGE) return perr(p, t->col, "%s is infinite", what);
    if (errno == ERANGE && (isinf(x) || x == 0.0))
        return perr(p, t->col, "number '%s' is out of range", t->s);
    /* Kernels exist for float too: a float weight must neither overflow nor vanish. */
    if (fabs(x) > FLT_MAX || (x != 0.0 && (float)x == 0.0f))
        return perr(p, t->col, "%s '%s' is out of float range", what, t->s);
    *v = x;
    return 0;
}

static int need_args(const parser *p, int n, const char *kw)
{
    if (p->nt - 1 < n)
        return perr(p, p->t[0].col, "'%s' needs %d value%s", kw, n, n > 1 ? "s" : "");
    if (p->nt - 1 > n) return perr(p, p->t[n + 1].col, "unexpected '%s'", p->t[n + 1].s);
    return 0;
}

/*
 * Names follow STENCILS.md ("2d9nc", "3d-oct"): generated symbols are <prefix>_<stem>_..., so a
 * name needs only identifier characters once '-' becomes '_'.
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
    if (need_args(p, 1, "stencil") || new_name(p, t, &stem)) return -1;
    if (grow((void **)&f->st, &f->cap, f->nst + 1, sizeof *f->st)) {
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
    if (need_args(p, 1, "dims")) return -1;
    if (s->ndims) return perr(p, p->t[0].col, "duplicate 'dims'");
    if (parse_int(p, &p->t[1], &s->ndims)) return -1;
    if (s->ndims < 1 || s->ndims > KGT_MAX_DIMS) {
        int n = s->ndims;
        s->ndims = 0;
        return perr(p, p->t[1].col, "dims must be 1, 2 or 3, got %d", n);
    }
    return 0;
}

static int need_dims(const parser *p)
{
    if (!p->cur->ndims) return perr(p, p->t[0].col, "'%s' before 'dims'", p->t[0].s);
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
    if (need_dims(p) || need_args(p, s->ndims, "radius")) return -1;
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
    if (need_args(p, 1, "divisor")) return -1;
    if (s->has_divisor) return perr(p, p->t[0].col, "duplicate 'divisor'");
    if (parse_real(p, &p->t[1], "divisor", &s->divisor)) return -1;
    if (s->divisor == 0.0) return perr(p, p->t[1].col, "divisor is zero");
    s->has_divisor = 1;
    return 0;
}

static int add_point(parser *p, const int *off, double w, int col)
{
    kgt_stencil *s = p->cur;
    kgt_point *q;
    if (grow((void **)&s->pts, &s->cap, s->npts + 1, sizeof *s->pts))
        return perr(p, col, "out of memory");
    q = &s->pts[s->npts++];
    memset(q, 0, sizeof *q);
    memcpy(q->off, off, (size_t)s->ndims * sizeof *off);
    q->w = w;
    q->line = p->line;
    q->col = col;
    return 0;
}

/* Checks offset o of dimension d against the declared radius, or the global maximum. */
static int check_offset(const parser *p, const tok *t, int d, int o)
{
    const kgt_stencil *s = p->cur;
    if (s->has_radius && (o < -s->rlo[d] || o > s->rhi[d]))
        return perr(p, t->col, "offset %d is beyond the radius %d/%d of dimension %d", o, s->rlo[d],
                    s->rhi[d], d);
    if (o < -KGT_MAX_RADIUS || o > KGT_MAX_RADIUS)
        return perr(p, t->col, "offset %d exceeds the maximum radius %d", o, KGT_MAX_RADIUS);
    return 0;
}

/* The key of an offset in the parser's table of the open stencil's offsets. */
static int off_key(const int *off)
{
    int k = 0;
    for (int d = 0; d < KGT_MAX_DIMS; d++) k = k * OFF_SIDE + off[d] + KGT_MAX_RADIUS;
    return k;
}

static int dup_offset(const parser *p, const int *off, int col)
{
    const kgt_stencil *s = p->cur;
    int k = off_key(off), line;
    if (p->seen[k] != p->gen) return 0;
    line = s->pts[p->first[k]].line;
    if (s->ndims == 1)
        return perr(p, col, "duplicate offset (%d) (first at line %d)", off[0], line);
    if (s->ndims == 2)
        return perr(p, col, "duplicate offset (%d, %d) (first at line %d)", off[0], off[1], line);
    return perr(p, col, "duplicate offset (%d, %d, %d) (first at line %d)", off[0], off[1], off[2],
                line);
}

/* Marks the offset of the point just added as seen in the open stencil. */
static void see_offset(parser *p)
{
    int k = off_key(p->cur->pts[p->cur->npts - 1].off);
    p->seen[k] = p->gen;
    p->first[k] = p->cur->npts - 1;
}

/* point O0 [O1 [O2]] : W */
static int kw_point(parser *p)
{
    kgt_stencil *s = p->cur;
    int off[KGT_MAX_DIMS] = {0, 0, 0}, colon = -1;
    double w;
    if (need_dims(p)) return -1;
    if (s->mode == KGT_MODE_PATTERN)
        return perr(p, p->t[0].col, "cannot mix 'point' and 'pattern'");
    for (int i = 1; i < p->nt && colon < 0; i++)
        if (strcmp(p->t[i].s, ":") == 0) colon = i;
    if (colon < 0) return perr(p, p->t[0].col, "missing ':' in 'point'");
    if (colon - 1 != s->ndims)
        return perr(p, p->t[0].col, "'point' needs %d offset%s before ':', got %d", s->ndims,
                    s->ndims > 1 ? "s" : "", colon - 1);
    if (colon + 1 >= p->nt) return perr(p, p->t[colon].col, "missing weight after ':'");
    if (colon + 2 < p->nt)
        return perr(p, p->t[colon + 2].col, "unexpected '%s'", p->t[colon + 2].s);
    for (int d = 0; d < s->ndims; d++)
        if (parse_int(p, &p->t[1 + d], &off[d]) || check_offset(p, &p->t[1 + d], d, off[d]))
            return -1;
    if (dup_offset(p, off, p->t[1].col)) return -1;
    if (parse_real(p, &p->t[colon + 1], "weight", &w)) return -1;
    s->mode = KGT_MODE_POINTS;
    if (add_point(p, off, w, p->t[1].col)) return -1;
    see_offset(p);
    return 0;
}

static int pattern_rows(const kgt_stencil *s)
{
    int rows = 1;
    for (int d = 0; d + 1 < s->ndims; d++) rows *= s->rlo[d] + 1 + s->rhi[d];
    return rows;
}

static int kw_pattern(parser *p)
{
    kgt_stencil *s = p->cur;
    if (need_dims(p) || need_args(p, 0, "pattern")) return -1;
    if (s->mode == KGT_MODE_POINTS) return perr(p, p->t[0].col, "cannot mix 'point' and 'pattern'");
    if (s->mode == KGT_MODE_PATTERN) return perr(p, p->t[0].col, "duplicate 'pattern'");
    if (!s->has_radius) return perr(p, p->t[0].col, "'pattern' needs 'radius' first");
    s->mode = KGT_MODE_PATTERN;
    p->in_pattern = 1;
    p->rows = 0;
    p->pat_line = p->line;
    p->pat_col = p->t[0].col;
    return 0;
}

/* One row of the dense pattern: the weights along the last dimension. */
static int pattern_row(parser *p)
{
    kgt_stencil *s = p->cur;
    int last = s->ndims - 1, len = s->rlo[last] + 1 + s->rhi[last], r = p->rows;
    int off[KGT_MAX_DIMS] = {0, 0, 0};
    if (r >= pattern_rows(s))
        return perr(p, p->t[0].col, "pattern has more than %d row%s", pattern_rows(s),
                    pattern_rows(s) > 1 ? "s" : "");
    if (p->nt != len)
        return perr(p, p->t[0].col, "pattern row has %d weight%s, expected %d", p->nt,
                    p->nt > 1 ? "s" : "", len);
    /* Row r of a 3D pattern is plane r / extent1, row r % extent1 of that plane. */
    if (s->ndims == 3) {
        int e1 = s->rlo[1] + 1 + s->rhi[1];
        off[0] = r / e1 - s->rlo[0];
        off[1] = r % e1 - s->rlo[1];
    } else if (s->ndims == 2) {
        off[0] = r - s->rlo[0];
    }
    for (int c = 0; c < len; c++) {
        double w;
        if (parse_real(p, &p->t[c], "weight", &w)) return -1;
        off[last] = c - s->rlo[last];
        if (add_point(p, off, w, p->t[c].col)) return -1;
    }
    p->rows++;
    return 0;
}

static int end_pattern(parser *p)
{
    int want = pattern_rows(p->cur);
    p->in_pattern = 0;
    if (p->rows != want)
        return perr_at(p, p->pat_line, p->pat_col, "pattern has %d row%s, expected %d", p->rows,
                       p->rows == 1 ? "" : "s", want);
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
    if (need_args(p, 0, "end")) return -1;
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
    {"stencil", kw_stencil}, {"dims", kw_dims},       {"radius", kw_radius}, {"point", kw_point},
    {"pattern", kw_pattern}, {"divisor", kw_divisor}, {"end", kw_end},
};

static const keyword *find_keyword(const char *s)
{
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcmp(keywords[i].name, s) == 0) return &keywords[i];
    return NULL;
}

static int parse_line(parser *p)
{
    const keyword *k = find_keyword(p->t[0].s);
    if (p->in_pattern) {
        if (!k) return pattern_row(p);
        if (end_pattern(p)) return -1;
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
    while ((r = read_line(p)) > 0) {
        if (tokenize(p)) return perr(p, 1, "out of memory");
        if (p->nt > 0 && parse_line(p)) return -1;
    }
    if (r < 0) return perr(p, 1, "out of memory");
    if (ferror(p->fp)) return perr(p, 1, "read error");
    if (p->cur)
        return perr_at(p, p->cur->line, p->cur->col, "stencil '%s' is missing 'end'", p->cur->name);
    if (!p->file->nst) return perr_at(p, 1, 1, "no stencil in file");
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
    rc = p.seen && p.first ? parse_stream(&p) : perr_at(&p, 1, 1, "out of memory");
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
