/*
 * Programs, statements: one per line inside `program NAME` ... `end`, the same text in kgt's
 * description files (parse.c hands the block's lines over) and at run time as a string
 * (kgt_prog_parse_string). The first mistake stops the parse, as for stencils.
 *
 *   dims N                       1, 2 or 3, first
 *   field NAME [prev]            an evolving field; `prev`: keeps its previous level (NAME@prev)
 *   coef NAME                    a read-only coefficient field
 *   param NAME = NUMBER          a scalar parameter and its default
 *   let NAME = EXPR              a named subexpression (a number or a condition)
 *   update NAME = EXPR           the new value of an evolving field, one per field
 *   boundary NAME|* FACE KIND [VALUE]
 *                                FACE: i- i+ i (both) j- ... all; KIND: fixed periodic mirror
 *                                constant VALUE
 *   end
 */
#include <stdlib.h>
#include <string.h>

#include "prog.h"

#define MAX_TOKS 1024

void kgt_prog_free(kgt_prog *p)
{
    if (!p) return;
    for (int i = 0; i < p->nnodes; i++) free(p->nodes[i]);
    free(p->nodes);
    free(p);
}

kgt_prog *kgt_prog_begin(const char *name, int line, int col, kgt_perr *e)
{
    kgt_prog *p;
    const char *s = name;
    for (; *s; s++)
        if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && *s != '_' &&
            !(s != name && *s >= '0' && *s <= '9'))
            break;
    if (*s || !*name) {
        kgt_perr_set(e, line, col, "invalid program name '%s' (a C identifier)", name);
        return NULL;
    }
    if (strlen(name) > KGT_PROG_MAX_NAME) {
        kgt_perr_set(e, line, col, "program name is longer than %d characters", KGT_PROG_MAX_NAME);
        return NULL;
    }
    if (!(p = calloc(1, sizeof *p))) {
        kgt_perr_set(e, line, col, "out of memory");
        return NULL;
    }
    strcpy(p->name, name);
    p->line = line;
    p->col = col;
    return p;
}

typedef struct st {
    kgt_prog *p;
    kgt_ptok *t;
    int nt, line;
    kgt_perr *e;
} st;

static int st_err(st *s, int tk, const char *fmt, const char *a)
{
    return kgt_perr_set(s->e, s->line, s->t[tk].col, fmt, a);
}

/* A message without an argument, at token tk. */
static int st_msg(st *s, int tk, const char *msg)
{
    return kgt_perr_set(s->e, s->line, s->t[tk].col, "%s", msg);
}

static int is(const st *s, int tk, const char *text)
{
    return s->t[tk].kind != PT_END && strcmp(s->t[tk].s, text) == 0;
}

static int end_of_line(st *s, int tk)
{
    if (s->t[tk].kind == PT_END) return 0;
    return st_err(s, tk, "unexpected '%s'", s->t[tk].s);
}

/* A new name: an identifier no declaration, index, `t` or function of the program holds. */
static int new_name(st *s, int tk)
{
    static const char *const reserved[] = {"t", "abs", "sqrt", "min", "max", "prev"};
    const kgt_prog *p = s->p;
    const char *n = s->t[tk].s;
    if (s->t[tk].kind != PT_NAME) return st_err(s, tk, "expected a name, got '%s'", n);
    for (int d = 0; d < p->ndims; d++)
        if (n[0] == kgt_prog_dim_names[d] && !n[1])
            return kgt_perr_set(s->e, s->line, s->t[tk].col,
                                "'%s' is reserved: the cell's index along dimension %d", n, d);
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcmp(n, reserved[i]) == 0)
            return st_err(s, tk, i ? "'%s' is reserved: a function" : "'%s' is reserved: the step",
                          n);
    if (kgt_prog_find_field(p, n) >= 0) return st_err(s, tk, "duplicate name '%s'", n);
    for (int i = 0; i < p->npar; i++)
        if (strcmp(p->par[i].name, n) == 0) return st_err(s, tk, "duplicate name '%s'", n);
    for (int i = 0; i < p->nlet; i++)
        if (strcmp(p->let[i].name, n) == 0) return st_err(s, tk, "duplicate name '%s'", n);
    return 0;
}

static int need_dims(st *s)
{
    if (!s->p->ndims) return st_err(s, 0, "'%s' before 'dims'", s->t[0].s);
    return 0;
}

static int kw_dims(st *s)
{
    const kgt_ptok *v = &s->t[1];
    if (s->p->ndims) return st_err(s, 0, "duplicate '%s'", "dims");
    if (s->p->nf || s->p->npar) return st_err(s, 0, "'%s' must come first", "dims");
    if (v->kind != PT_NUM || (v->num != 1 && v->num != 2 && v->num != 3))
        return st_err(s, 1, "dims must be 1, 2 or 3, got '%s'", v->kind ? v->s : "nothing");
    s->p->ndims = (int)v->num;
    return end_of_line(s, 2);
}

static int kw_field(st *s)
{
    kgt_prog *p = s->p;
    kgt_pfield *f;
    int coef = s->t[0].s[0] == 'c';
    if (need_dims(s) || new_name(s, 1)) return -1;
    if (p->nf == KGT_PROG_MAX_FIELDS)
        return kgt_perr_set(s->e, s->line, s->t[1].col, "more than %d fields", KGT_PROG_MAX_FIELDS);
    f = &p->f[p->nf];
    memset(f, 0, sizeof *f);
    strcpy(f->name, s->t[1].s);
    f->line = s->line;
    f->col = s->t[1].col;
    f->coef = coef;
    if (!coef && is(s, 2, "prev")) {
        f->keeps = 1;
        if (end_of_line(s, 3)) return -1;
    } else if (end_of_line(s, 2)) {
        return -1;
    }
    p->nf++;
    return 0;
}

static int kw_param(st *s)
{
    kgt_prog *p = s->p;
    int tk = 3, neg = 0;
    if (need_dims(s) || new_name(s, 1)) return -1;
    if (!is(s, 2, "=")) return st_msg(s, 2, "expected '=' after the parameter name");
    if (is(s, 3, "-") || is(s, 3, "+")) neg = s->t[tk++].s[0] == '-';
    if (s->t[tk].kind != PT_NUM)
        return st_err(s, tk, "a parameter's default must be a number, got '%s'",
                      s->t[tk].kind ? s->t[tk].s : "nothing");
    if (p->npar == KGT_PROG_MAX_PARAMS)
        return kgt_perr_set(s->e, s->line, s->t[1].col, "more than %d parameters",
                            KGT_PROG_MAX_PARAMS);
    strcpy(p->par[p->npar].name, s->t[1].s);
    p->par[p->npar].value = neg ? -s->t[tk].num : s->t[tk].num;
    if (s->t[tk + 1].kind != PT_END)
        return st_msg(s, tk + 1, "a parameter's default is a number, not an expression");
    p->npar++;
    return 0;
}

/* `= EXPR` to the end of the line, from token 2. */
static kgt_pnode *rhs(st *s)
{
    int pos = 3;
    kgt_pnode *n;
    if (!is(s, 2, "=")) {
        st_err(s, 2, "expected '=' after '%s'", s->t[1].s);
        return NULL;
    }
    if (!(n = kgt_prog_expr(s->p, s->t, &pos, s->line, s->e))) return NULL;
    if (end_of_line(s, pos)) return NULL;
    return n;
}

static int kw_let(st *s)
{
    kgt_prog *p = s->p;
    kgt_pnode *n;
    if (need_dims(s) || new_name(s, 1)) return -1;
    if (p->nlet == KGT_PROG_MAX_LETS)
        return kgt_perr_set(s->e, s->line, s->t[1].col, "more than %d lets", KGT_PROG_MAX_LETS);
    if (!(n = rhs(s))) return -1;
    strcpy(p->let[p->nlet].name, s->t[1].s);
    p->let[p->nlet++].e = n;
    return 0;
}

static int kw_update(st *s)
{
    kgt_prog *p = s->p;
    kgt_pnode *n;
    kgt_pfield *f;
    int k;
    if (need_dims(s)) return -1;
    if (s->t[1].kind != PT_NAME) return st_err(s, 1, "expected a field name, got '%s'", s->t[1].s);
    if ((k = kgt_prog_find_field(p, s->t[1].s)) < 0)
        return st_err(s, 1, "unknown field '%s'", s->t[1].s);
    f = &p->f[k];
    if (f->coef)
        return st_err(s, 1, "'%s' is a coefficient field: it is read-only and has no update",
                      f->name);
    if (f->uline)
        return kgt_perr_set(s->e, s->line, s->t[1].col,
                            "duplicate update of '%s' (first at line %d)", f->name, f->uline);
    if (!(n = rhs(s))) return -1;
    if (n->type != KP_T_NUM)
        return st_err(s, 3, "the update of '%s' is a condition, not a number (use c ? 1 : 0)",
                      f->name);
    f->update = n;
    f->uline = s->line;
    return 0;
}

/* FACE: a dimension name, then '-', '+' or nothing (both sides); or `all`. Sets mask bits
   2 d + side. Returns the next token. */
static int parse_face(st *s, int tk, int *mask)
{
    const kgt_ptok *k = &s->t[tk];
    int d = 0;
    if (k->kind == PT_NAME && strcmp(k->s, "all") == 0) {
        *mask = (1 << 2 * s->p->ndims) - 1;
        return tk + 1;
    }
    while (d < KGT_MAX_DIMS &&
           !(k->kind == PT_NAME && !k->s[1] && k->s[0] == kgt_prog_dim_names[d]))
        d++;
    if (d >= s->p->ndims) {
        /* The face as written: its name and the sign right after it. */
        const kgt_ptok *sg = &s->t[tk + 1];
        int sign = k->kind && sg->kind == PT_OP && sg->col == k->col + k->len &&
                   (sg->s[0] == '-' || sg->s[0] == '+');
        if (d == KGT_MAX_DIMS)
            return kgt_perr_set(s->e, s->line, k->col,
                                "bad face '%s%s' (i-, i+, i for both sides, j.., k.., or all)",
                                k->kind ? k->s : "", sign ? sg->s : "");
        return kgt_perr_set(s->e, s->line, k->col, "face '%s%s' but the program has %d dims", k->s,
                            sign ? sg->s : "", s->p->ndims);
    }
    if (is(s, tk + 1, "-") || is(s, tk + 1, "+")) {
        *mask = 1 << (2 * d + (s->t[tk + 1].s[0] == '+'));
        return tk + 2;
    }
    *mask = 3 << 2 * d;
    return tk + 1;
}

static int kw_boundary(st *s)
{
    static const char *const kinds[] = {"fixed", "periodic", "mirror", "constant"};
    kgt_prog *p = s->p;
    kgt_bface bf = {0, 0.0, 0, 0};
    int f = -1, mask = 0, tk, neg = 0;
    if (need_dims(s)) return -1;
    if (!is(s, 1, "*") && (f = kgt_prog_find_field(p, s->t[1].s)) < 0)
        return st_err(s, 1, "unknown field '%s'", s->t[1].kind ? s->t[1].s : "");
    bf.line = s->line;
    bf.col = s->t[2].col;
    if ((tk = parse_face(s, 2, &mask)) < 0) return -1;
    while (bf.kind < 4 && !is(s, tk, kinds[bf.kind])) bf.kind++;
    if (bf.kind == 4)
        return st_err(s, tk, "unknown boundary kind '%s' (fixed, periodic, mirror, constant)",
                      s->t[tk].kind ? s->t[tk].s : "");
    tk++;
    if (bf.kind == KGT_B_CONST) {
        if (is(s, tk, "-") || is(s, tk, "+")) neg = s->t[tk++].s[0] == '-';
        if (s->t[tk].kind != PT_NUM) return st_msg(s, tk, "'constant' needs a value");
        bf.value = neg ? -s->t[tk].num : s->t[tk].num;
        tk++;
    }
    if (end_of_line(s, tk)) return -1;
    for (int g = 0; g < p->nf; g++)
        if (f < 0 || g == f)
            for (int b = 0; b < 2 * p->ndims; b++)
                if (mask >> b & 1) p->f[g].bc[b / 2][b % 2] = bf;
    return 0;
}

static int kw_end(st *s)
{
    kgt_prog *p = s->p;
    if (end_of_line(s, 1)) return -1;
    if (!p->ndims)
        return kgt_perr_set(s->e, s->line, s->t[0].col, "program '%s' has no 'dims'", p->name);
    if (!p->nf)
        return kgt_perr_set(s->e, s->line, s->t[0].col, "program '%s' has no field", p->name);
    for (int f = 0; f < p->nf; f++)
        if (!p->f[f].coef && !p->f[f].update)
            return kgt_perr_set(s->e, s->line, s->t[0].col, "field '%s' has no update",
                                p->f[f].name);
    return kgt_prog_analyse(p, s->line, s->e);
}

typedef struct keyword {
    const char *name;
    int (*fn)(st *s);
} keyword;

static const keyword keywords[] = {
    {"dims", kw_dims}, {"field", kw_field},   {"coef", kw_field},        {"param", kw_param},
    {"let", kw_let},   {"update", kw_update}, {"boundary", kw_boundary},
};

int kgt_prog_line(kgt_prog *p, const char *text, int line, kgt_perr *e)
{
    kgt_ptok *t;
    st s;
    int n;
    if (!(t = malloc(MAX_TOKS * sizeof *t))) return kgt_perr_set(e, line, 1, "out of memory");
    s.p = p;
    s.t = t;
    s.line = line;
    s.e = e;
    if ((n = kgt_prog_lex(text, line, t, MAX_TOKS, e)) < 0) {
        free(t);
        return -1;
    }
    s.nt = n;
    n = 0;
    if (t[0].kind == PT_END) {
        n = 0; /* blank or comment */
    } else if (t[0].kind == PT_NAME && strcmp(t[0].s, "end") == 0) {
        n = kw_end(&s) ? -1 : 1;
        if (n == 1) p->closed = 1;
    } else {
        size_t k = 0;
        while (k < sizeof keywords / sizeof keywords[0] &&
               (t[0].kind != PT_NAME || strcmp(keywords[k].name, t[0].s) != 0))
            k++;
        if (k == sizeof keywords / sizeof keywords[0])
            n = t[0].kind == PT_NAME && strcmp(t[0].s, "program") == 0
                    ? st_err(&s, 0, "'program' inside program '%s' (missing 'end')", p->name)
                    : st_err(&s, 0, "unknown statement '%s' in a program", t[0].s);
        else
            n = keywords[k].fn(&s) ? -1 : 0;
    }
    free(t);
    return n;
}

kgt_prog *kgt_prog_parse_string(const char *text, kgt_perr *e)
{
    kgt_prog *p = NULL;
    char *buf = malloc(strlen(text) + 1);
    int line = 0, rc = 0;
    if (!buf) {
        kgt_perr_set(e, 1, 1, "out of memory");
        return NULL;
    }
    for (const char *s = text; rc >= 0 && *s;) {
        size_t n = strcspn(s, "\n");
        kgt_ptok t[8];
        memcpy(buf, s, n);
        buf[n] = '\0';
        s += n + (s[n] == '\n');
        line++;
        if (p && !p->closed) {
            rc = kgt_prog_line(p, buf, line, e);
            continue;
        }
        if ((rc = kgt_prog_lex(buf, line, t, 8, e)) < 0) break;
        if (rc == 1) continue; /* blank or comment */
        if (p)
            rc = kgt_perr_set(e, line, t[0].col, "text after the end of program '%s'", p->name);
        else if (t[0].kind != PT_NAME || strcmp(t[0].s, "program") != 0)
            rc = kgt_perr_set(e, line, t[0].col, "expected 'program NAME', got '%s'", t[0].s);
        else if (t[1].kind != PT_NAME)
            rc = kgt_perr_set(e, line, t[1].col, "'program' needs a name");
        else if (rc != 3)
            rc = kgt_perr_set(e, line, t[2].col, "unexpected '%s'", t[2].s);
        else if (!(p = kgt_prog_begin(t[1].s, line, t[1].col, e)))
            rc = -1;
    }
    free(buf);
    if (rc >= 0 && !p) rc = kgt_perr_set(e, 1, 1, "no program in the text");
    if (rc >= 0 && !p->closed)
        rc = kgt_perr_set(e, p->line, p->col, "program '%s' is missing 'end'", p->name);
    if (rc < 0) {
        kgt_prog_free(p);
        return NULL;
    }
    return p;
}
