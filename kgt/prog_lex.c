/*
 * Programs, lexical layer: the tokens of one line of a program block. Unlike the stencil lines
 * (blank-separated words), expressions need no blanks: `u[-1,0]+2*v` is seven kinds of token.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "prog.h"

int kgt_perr_set(kgt_perr *e, int line, int col, const char *fmt, ...)
{
    va_list ap;
    e->line = line;
    e->col = col;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* Operators, longest first so that "<=" is not read as "<" then "=". */
static const char *const ops[] = {"<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "<",
                                  ">",  "!",  "?",  ":",  "(",  ")",  "[", "]", ",", "=", "@"};

static int lex_number(const char *s, int i, int line, kgt_ptok *t, kgt_perr *e)
{
    char *end;
    double x;
    errno = 0;
    x = strtod(s + i, &end);
    /* strtod takes "inf", "nan" and signs, but a number token starts with a digit or '.'. */
    if (end == s + i) return kgt_perr_set(e, line, i + 1, "bad number");
    if (isalpha((unsigned char)*end) || *end == '_' || *end == '.') {
        int j = (int)(end - s);
        while (isalnum((unsigned char)s[j]) || s[j] == '_' || s[j] == '.') j++;
        return kgt_perr_set(e, line, i + 1, "bad number '%.*s'", j - i, s + i);
    }
    if (errno == ERANGE && (isinf(x) || x == 0.0))
        return kgt_perr_set(e, line, i + 1, "number '%.*s' is out of range", (int)(end - s - i),
                            s + i);
    /* Kernels exist for float too: a literal must neither overflow nor vanish there. */
    if (x > FLT_MAX || (x != 0.0 && (float)x == 0.0f))
        return kgt_perr_set(e, line, i + 1, "number '%.*s' is out of float range",
                            (int)(end - s - i), s + i);
    t->kind = PT_NUM;
    t->num = x;
    t->len = (int)(end - s - i);
    snprintf(t->s, sizeof t->s, "%.*s", t->len < 63 ? t->len : 63, s + i);
    return (int)(end - s);
}

int kgt_prog_lex(const char *s, int line, kgt_ptok *t, int max, kgt_perr *e)
{
    int n = 0, i = 0;
    for (;;) {
        kgt_ptok *k = &t[n];
        while (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') i++;
        memset(k, 0, sizeof *k);
        k->col = i + 1;
        if (!s[i] || s[i] == '#') return n + 1; /* k is PT_END */
        if (n + 1 >= max)
            return kgt_perr_set(e, line, i + 1, "line too long (over %d tokens)", max);
        if (isdigit((unsigned char)s[i]) || (s[i] == '.' && isdigit((unsigned char)s[i + 1]))) {
            if ((i = lex_number(s, i, line, k, e)) < 0) return -1;
        } else if (isalpha((unsigned char)s[i]) || s[i] == '_') {
            int j = i;
            while (isalnum((unsigned char)s[j]) || s[j] == '_') j++;
            k->kind = PT_NAME;
            k->len = j - i;
            if (k->len > KGT_PROG_MAX_NAME)
                return kgt_perr_set(e, line, i + 1, "name is longer than %d characters",
                                    KGT_PROG_MAX_NAME);
            memcpy(k->s, s + i, (size_t)k->len);
            i = j;
        } else {
            size_t o = 0;
            while (o < sizeof ops / sizeof ops[0] && strncmp(s + i, ops[o], strlen(ops[o])) != 0)
                o++;
            if (o == sizeof ops / sizeof ops[0])
                return kgt_perr_set(e, line, i + 1, "unexpected character '%c'", s[i]);
            k->kind = PT_OP;
            k->len = (int)strlen(ops[o]);
            memcpy(k->s, ops[o], (size_t)k->len);
            i += k->len;
        }
        n++;
    }
}
