/*
 * The description file parser, lexical layer: error messages with their position, lines of any
 * length, tokens, numbers, and the checks of a keyword's argument count. parse.c says how a file
 * is read.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

int kgt_perr_at(const parser *p, int line, int col, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d:%d: ", p->path, line, col);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

int kgt_grow(void **ptr, int *cap, int need, size_t elem)
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

/*
 * Reads one line of any length; returns 0 at end of file, -2 when the line holds a NUL byte (the
 * C strings of the tokenizer would end there and drop the rest of the line).
 */
int kgt_read_line(parser *p)
{
    size_t n = 0;
    int c, nul = 0;
    while ((c = fgetc(p->fp)) != EOF && c != '\n') {
        nul |= c == '\0';
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
    return nul ? -2 : 1;
}

/* Splits the line into tokens: blanks separate, ':' is a token of its own, '#' starts a comment. */
int kgt_tokenize(parser *p)
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
        if (kgt_grow((void **)&p->t, &p->tcap, p->nt + 1, sizeof *p->t)) return -1;
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

int kgt_parse_int(const parser *p, const tok *t, int *v)
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
int kgt_parse_real(const parser *p, const tok *t, const char *what, double *v)
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

int kgt_need_args(const parser *p, int n, const char *kw)
{
    if (p->nt - 1 < n)
        return perr(p, p->t[0].col, "'%s' needs %d value%s", kw, n, n > 1 ? "s" : "");
    if (p->nt - 1 > n) return perr(p, p->t[n + 1].col, "unexpected '%s'", p->t[n + 1].s);
    return 0;
}

int kgt_need_dims(const parser *p)
{
    if (!p->cur->ndims) return perr(p, p->t[0].col, "'%s' before 'dims'", p->t[0].s);
    return 0;
}
