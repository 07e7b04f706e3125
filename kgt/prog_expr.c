/*
 * Programs, expressions: recursive descent from tokens to a typed tree. Precedence, loosest
 * first: `c ? a : b` (right to left), `||`, `&&`, one comparison (they do not chain), `+ -`,
 * `* /`, unary `- !`, then numbers, names, reads u[o...] and u@prev[o...], calls and brackets.
 * Binary operators group left to right, and that grouping is the evaluation order every target
 * keeps (prog_print.c). Every node is typed here: a number or a condition, never mixed.
 */
#include <stdlib.h>
#include <string.h>

#include "prog.h"

/* Names the expression parser and the statement parser (prog_parse.c, above it) both look up. */
const char kgt_prog_dim_names[KGT_MAX_DIMS] = {'i', 'j', 'k'};

int kgt_prog_find_field(const kgt_prog *p, const char *name)
{
    for (int f = 0; f < p->nf; f++)
        if (strcmp(p->f[f].name, name) == 0) return f;
    return -1;
}

typedef struct ex {
    kgt_prog *p;
    const kgt_ptok *t;
    int pos, line;
    kgt_perr *e;
} ex;

const char *kgt_prog_op_name(int kind)
{
    static const char *const names[] = {
        [KP_NEG] = "-", [KP_NOT] = "!",  [KP_ABS] = "abs", [KP_SQRT] = "sqrt", [KP_ADD] = "+",
        [KP_SUB] = "-", [KP_MUL] = "*",  [KP_DIV] = "/",   [KP_MIN] = "min",   [KP_MAX] = "max",
        [KP_LT] = "<",  [KP_LE] = "<=",  [KP_GT] = ">",    [KP_GE] = ">=",     [KP_EQ] = "==",
        [KP_NE] = "!=", [KP_AND] = "&&", [KP_OR] = "||",   [KP_SEL] = "?:"};
    return kind >= KP_NEG && kind <= KP_SEL ? names[kind] : "?";
}

static const kgt_ptok *cur(const ex *x)
{
    return &x->t[x->pos];
}

static int is_op(const ex *x, const char *op)
{
    return cur(x)->kind == PT_OP && strcmp(cur(x)->s, op) == 0;
}

static int err_here(ex *x, const char *what)
{
    const kgt_ptok *k = cur(x);
    if (k->kind == PT_END) return kgt_perr_set(x->e, x->line, k->col, "expected %s", what);
    return kgt_perr_set(x->e, x->line, k->col, "expected %s, got '%s'", what, k->s);
}

static kgt_pnode *node(ex *x, int kind, int type, const kgt_ptok *at)
{
    kgt_prog *p = x->p;
    kgt_pnode *n;
    if (p->nnodes == p->ncap) {
        int cap = p->ncap ? 2 * p->ncap : 64;
        kgt_pnode **q = realloc(p->nodes, (size_t)cap * sizeof *q);
        if (q) p->nodes = q, p->ncap = cap;
    }
    if (p->nnodes == p->ncap || !(n = calloc(1, sizeof *n))) {
        kgt_perr_set(x->e, x->line, at->col, "out of memory");
        return NULL;
    }
    p->nodes[p->nnodes++] = n;
    n->kind = kind;
    n->type = type;
    n->line = x->line;
    n->col = at->col;
    return n;
}

static const char *type_word(int type)
{
    return type == KP_T_BOOL ? "a condition" : "a number";
}

/* Operand a of the operator at `at` must have type want. */
static int need(ex *x, const kgt_pnode *a, int want, const kgt_ptok *at, const char *op)
{
    if (a->type == want) return 0;
    return kgt_perr_set(x->e, x->line, at->col, "'%s' needs %s, not %s%s", op,
                        want == KP_T_BOOL ? "conditions" : "numbers", type_word(a->type),
                        want == KP_T_BOOL ? "" : " (c ? 1 : 0 is a condition's value)");
}

static kgt_pnode *parse_sel(ex *x);

static kgt_pnode *make(ex *x, int kind, const kgt_ptok *at, kgt_pnode *a, kgt_pnode *b, int in,
                       int outt)
{
    const char *op = kgt_prog_op_name(kind);
    kgt_pnode *n;
    if (!a || (b == NULL && kind >= KP_ADD)) return NULL;
    if (need(x, a, in, at, op) || (b && need(x, b, in, at, op))) return NULL;
    if (!(n = node(x, kind, outt, at))) return NULL;
    n->a[0] = a;
    n->a[1] = b;
    return n;
}

/* Offsets [o0, o1, ...]: one signed integer per dimension, each within the reach limit. */
static int parse_offsets(ex *x, kgt_pnode *n, const char *name)
{
    x->pos++; /* '[' */
    for (int d = 0; d < x->p->ndims; d++) {
        const kgt_ptok *k;
        int neg = 0;
        if (d && !is_op(x, ",")) return err_here(x, "','");
        if (d) x->pos++;
        if (is_op(x, "-") || is_op(x, "+")) neg = cur(x)->s[0] == '-', x->pos++;
        k = cur(x);
        if (k->kind != PT_NUM || strspn(k->s, "0123456789") != (size_t)k->len)
            return err_here(x, "an integer offset");
        if (k->num > KGT_MAX_RADIUS)
            return kgt_perr_set(x->e, x->line, k->col,
                                "offset %s%s of '%s' is beyond the maximum reach %d",
                                neg ? "-" : "", k->s, name, KGT_MAX_RADIUS);
        n->off[d] = neg ? -(int)k->num : (int)k->num;
        x->pos++;
    }
    if (is_op(x, ","))
        return kgt_perr_set(x->e, x->line, cur(x)->col,
                            "'%s' needs %d offset%s (the program has %d dims)", name, x->p->ndims,
                            x->p->ndims > 1 ? "s" : "", x->p->ndims);
    if (!is_op(x, "]")) return err_here(x, "']'");
    x->pos++;
    return 0;
}

static kgt_pnode *parse_read(ex *x, int f, const kgt_ptok *at)
{
    kgt_pnode *n = node(x, KP_READ, KP_T_NUM, at);
    const kgt_pfield *fd = &x->p->f[f];
    if (!n) return NULL;
    n->ref = f;
    if (is_op(x, "@")) {
        x->pos++;
        if (cur(x)->kind != PT_NAME || strcmp(cur(x)->s, "prev") != 0) {
            err_here(x, "'prev' after '@'");
            return NULL;
        }
        if (!fd->keeps) {
            kgt_perr_set(x->e, x->line, at->col,
                         "'%s' keeps no previous level (declare it 'field %s prev')", fd->name,
                         fd->name);
            return NULL;
        }
        n->prev = 1;
        x->pos++;
    }
    if (is_op(x, "[") && parse_offsets(x, n, fd->name)) return NULL;
    return n;
}

static const char *const unsupported[] = {"exp",  "log",  "pow",  "sin",   "cos",  "tan",
                                          "tanh", "atan", "cbrt", "floor", "ceil", "fmod"};

static kgt_pnode *parse_call(ex *x, const kgt_ptok *at)
{
    static const char *const fn[] = {"abs", "sqrt", "min", "max"};
    static const int kinds[] = {KP_ABS, KP_SQRT, KP_MIN, KP_MAX};
    kgt_pnode *a, *b = NULL;
    int k = 0;
    while (strcmp(fn[k], at->s) != 0) k++;
    if (!is_op(x, "(")) {
        err_here(x, "'(' after a function name");
        return NULL;
    }
    x->pos++;
    if (!(a = parse_sel(x))) return NULL;
    if (k >= 2) {
        if (!is_op(x, ",")) {
            err_here(x, "','");
            return NULL;
        }
        x->pos++;
        if (!(b = parse_sel(x))) return NULL;
    }
    if (!is_op(x, ")")) {
        err_here(x, k >= 2 ? "')'" : "')' (abs and sqrt take one argument)");
        return NULL;
    }
    x->pos++;
    return make(x, kinds[k], at, a, b, KP_T_NUM, KP_T_NUM);
}

static kgt_pnode *parse_name(ex *x)
{
    const kgt_ptok *at = cur(x);
    kgt_prog *p = x->p;
    kgt_pnode *n;
    int f;
    x->pos++;
    for (int i = p->nlet - 1; i >= 0; i--)
        if (strcmp(p->let[i].name, at->s) == 0) {
            if (!(n = node(x, KP_LET, p->let[i].e->type, at))) return NULL;
            n->ref = i;
            return n;
        }
    for (int i = 0; i < p->npar; i++)
        if (strcmp(p->par[i].name, at->s) == 0) {
            if (!(n = node(x, KP_PARAM, KP_T_NUM, at))) return NULL;
            n->ref = i;
            return n;
        }
    if ((f = kgt_prog_find_field(p, at->s)) >= 0) return parse_read(x, f, at);
    for (int d = 0; d < p->ndims; d++)
        if (at->s[0] == kgt_prog_dim_names[d] && !at->s[1]) {
            if (!(n = node(x, KP_INDEX, KP_T_NUM, at))) return NULL;
            n->ref = d;
            p->uses_index = 1;
            return n;
        }
    if (strcmp(at->s, "t") == 0) {
        p->uses_time = 1;
        return node(x, KP_TIME, KP_T_NUM, at);
    }
    if (!strcmp(at->s, "abs") || !strcmp(at->s, "sqrt") || !strcmp(at->s, "min") ||
        !strcmp(at->s, "max"))
        return parse_call(x, at);
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        if (strcmp(at->s, unsupported[i]) == 0) {
            kgt_perr_set(x->e, x->line, at->col,
                         "'%s' is not available: its results differ between vendors' libraries",
                         at->s);
            return NULL;
        }
    kgt_perr_set(x->e, x->line, at->col, "unknown name '%s'", at->s);
    return NULL;
}

static kgt_pnode *parse_primary(ex *x)
{
    const kgt_ptok *at = cur(x);
    kgt_pnode *n;
    if (at->kind == PT_NUM) {
        if (!(n = node(x, KP_NUM, KP_T_NUM, at))) return NULL;
        n->num = at->num;
        x->pos++;
        return n;
    }
    if (at->kind == PT_NAME) return parse_name(x);
    if (is_op(x, "(")) {
        x->pos++;
        if (!(n = parse_sel(x))) return NULL;
        if (!is_op(x, ")")) {
            err_here(x, "')'");
            return NULL;
        }
        x->pos++;
        return n;
    }
    err_here(x, "a number, a name or '('");
    return NULL;
}

static kgt_pnode *parse_unary(ex *x)
{
    const kgt_ptok *at = cur(x);
    if (is_op(x, "-") || is_op(x, "!")) {
        int neg = at->s[0] == '-';
        x->pos++;
        return make(x, neg ? KP_NEG : KP_NOT, at, parse_unary(x), NULL, neg ? KP_T_NUM : KP_T_BOOL,
                    neg ? KP_T_NUM : KP_T_BOOL);
    }
    return parse_primary(x);
}

typedef struct level {
    const char *op[2];
    int kind[2], in, out;
} level;

/* One left-associative level: next (op next)*. */
static kgt_pnode *parse_level(ex *x, const level *lv, kgt_pnode *(*next)(ex *))
{
    kgt_pnode *a = next(x);
    while (a) {
        int k = is_op(x, lv->op[0]) ? 0 : lv->op[1] && is_op(x, lv->op[1]) ? 1 : -1;
        const kgt_ptok *at = cur(x);
        if (k < 0) break;
        x->pos++;
        a = make(x, lv->kind[k], at, a, next(x), lv->in, lv->out);
    }
    return a;
}

static kgt_pnode *parse_mul(ex *x)
{
    static const level lv = {{"*", "/"}, {KP_MUL, KP_DIV}, KP_T_NUM, KP_T_NUM};
    return parse_level(x, &lv, parse_unary);
}

static kgt_pnode *parse_add(ex *x)
{
    static const level lv = {{"+", "-"}, {KP_ADD, KP_SUB}, KP_T_NUM, KP_T_NUM};
    return parse_level(x, &lv, parse_mul);
}

static kgt_pnode *parse_cmp(ex *x)
{
    static const char *const ops[] = {"<", "<=", ">", ">=", "==", "!="};
    kgt_pnode *a = parse_add(x), *n;
    for (int k = 0; a && k < 6; k++)
        if (is_op(x, ops[k])) {
            const kgt_ptok *at = cur(x);
            x->pos++;
            if (!(n = make(x, KP_LT + k, at, a, parse_add(x), KP_T_NUM, KP_T_BOOL))) return NULL;
            for (int j = 0; j < 6; j++)
                if (is_op(x, ops[j])) {
                    kgt_perr_set(x->e, x->line, cur(x)->col,
                                 "comparisons do not chain: write (a < b) && (b < c)");
                    return NULL;
                }
            return n;
        }
    return a;
}

static kgt_pnode *parse_and(ex *x)
{
    static const level lv = {{"&&", NULL}, {KP_AND, 0}, KP_T_BOOL, KP_T_BOOL};
    return parse_level(x, &lv, parse_cmp);
}

static kgt_pnode *parse_or(ex *x)
{
    static const level lv = {{"||", NULL}, {KP_OR, 0}, KP_T_BOOL, KP_T_BOOL};
    return parse_level(x, &lv, parse_and);
}

static kgt_pnode *parse_sel(ex *x)
{
    kgt_pnode *c = parse_or(x), *a, *b, *n;
    const kgt_ptok *at = cur(x);
    if (!c || !is_op(x, "?")) return c;
    x->pos++;
    if (need(x, c, KP_T_BOOL, at, "?")) return NULL;
    if (!(a = parse_sel(x))) return NULL;
    if (!is_op(x, ":")) {
        err_here(x, "':' of '?'");
        return NULL;
    }
    x->pos++;
    if (!(b = parse_sel(x))) return NULL;
    if (a->type != b->type) {
        kgt_perr_set(x->e, x->line, at->col, "the branches of '?' are %s and %s",
                     type_word(a->type), type_word(b->type));
        return NULL;
    }
    if (!(n = node(x, KP_SEL, a->type, at))) return NULL;
    n->a[0] = c;
    n->a[1] = a;
    n->a[2] = b;
    return n;
}

kgt_pnode *kgt_prog_expr(kgt_prog *p, const kgt_ptok *t, int *pos, int line, kgt_perr *e)
{
    ex x;
    kgt_pnode *n;
    x.p = p;
    x.t = t;
    x.pos = *pos;
    x.line = line;
    x.e = e;
    n = parse_sel(&x);
    *pos = x.pos;
    return n;
}
