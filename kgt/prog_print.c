/*
 * Programs, printers: one expression tree as the text of a target. The arithmetic contract of
 * backends/backend.h, extended to expressions: every operation is written as its own bracketed
 * term or call, so the evaluation order is exactly the tree's (as written, left to right), and
 * nothing can contract a product into a fused multiply-add:
 *   C, OpenCL C  infix operators in brackets, the files saying FP_CONTRACT OFF (prog_emit.c);
 *   CUDA/HIP     kgt_add/kgt_sub/kgt_mul (emit_expr.c's helpers, immune to -fmad), and
 *                kgt_pdiv/kgt_psqrt, correctly rounded whatever the flags (__fdiv_rn & co.).
 * Literals are converted from double to the element type (hex floats: exact text). min and max
 * are selects, b < a ? b : a and a < b ? b : a, whose result every target agrees on, NaN and
 * signed zeros included (fmin does not promise which zero it returns).
 */
#include <string.h>

#include "prog.h"

static const char *sfx(int dbl)
{
    return dbl ? "d" : "f";
}

void kgt_prog_reg_name(kgt_buf *b, const kgt_prog *p, int f, int prev, const int *off)
{
    kgt_printf(b, "r%s_%s", prev ? "p" : "", p->f[f].name);
    for (int d = 0; d < p->ndims; d++)
        kgt_printf(b, off[d] < 0 ? "_m%d" : "_%d", off[d] < 0 ? -off[d] : off[d]);
}

static void print(kgt_buf *b, const kgt_prog *p, const kgt_pnode *n, int target, int dbl,
                  const kgt_pregs *rg);

static void print_read(kgt_buf *b, const kgt_prog *p, const kgt_pnode *n, const kgt_pregs *rg)
{
    const char *name = p->f[n->ref].name;
    if (rg && rg->read) {
        rg->read(b, p, n, rg->ctx);
        return;
    }
    if (rg && rg->shared) { /* the fused kernel's tile: a macro per field and level */
        kgt_printf(b, "KS%s_%s(", n->prev ? "P" : "", name);
        for (int d = 0; d < p->ndims; d++) kgt_printf(b, "%s%d", d ? ", " : "", n->off[d]);
        kgt_printf(b, ")");
        return;
    }
    if (rg) { /* the register holding the read of the cell row rg->row along rg->walk, rg->col
                   along the last dimension */
        int off[KGT_MAX_DIMS];
        for (int d = 0; d < p->ndims; d++)
            off[d] = n->off[d] + (d == rg->walk ? rg->row : 0) + (d == p->ndims - 1 ? rg->col : 0);
        kgt_prog_reg_name(b, p, n->ref, n->prev, off);
        return;
    }
    kgt_printf(b, "%sf_%s[c_%s", n->prev ? "p" : "", name, name);
    for (int d = 0; d < p->ndims; d++) {
        int o = n->off[d], a = o < 0 ? -o : o;
        if (!o) continue;
        if (d == p->ndims - 1)
            kgt_printf(b, " %c %d", o < 0 ? '-' : '+', a);
        else if (a == 1)
            kgt_printf(b, " %c s_%s_%d", o < 0 ? '-' : '+', name, d);
        else
            kgt_printf(b, " %c %d * s_%s_%d", o < 0 ? '-' : '+', a, name, d);
    }
    kgt_printf(b, "]");
}

/* A call helper(a[, b]) or the bracketed infix (a op b). */
static void print_bin(kgt_buf *b, const kgt_prog *p, const kgt_pnode *n, int target, int dbl,
                      const char *op, const char *call, const kgt_pregs *rg)
{
    if (call)
        kgt_printf(b, "%s(", call);
    else
        kgt_printf(b, "(");
    print(b, p, n->a[0], target, dbl, rg);
    kgt_printf(b, call ? ", " : " %s ", op);
    print(b, p, n->a[1], target, dbl, rg);
    kgt_printf(b, ")");
}

void kgt_prog_print(kgt_buf *b, const kgt_prog *p, const kgt_pnode *n, int target, int dbl)
{
    print(b, p, n, target, dbl, NULL);
}

void kgt_prog_print_regs(kgt_buf *b, const kgt_prog *p, const kgt_pnode *n, int target, int dbl,
                         const kgt_pregs *rg)
{
    print(b, p, n, target, dbl, rg);
}

static void print(kgt_buf *b, const kgt_prog *p, const kgt_pnode *n, int target, int dbl,
                  const kgt_pregs *rg)
{
    const char *t = dbl ? "double" : "float";
    char call[24];
    int cuda = target == KGT_PT_CUDA;
    switch (n->kind) {
    case KP_NUM:
        kgt_emit_literal(b, n->num, dbl);
        return;
    case KP_PARAM:
        kgt_printf(b, "p_%s", p->par[n->ref].name);
        return;
    case KP_READ:
        print_read(b, p, n, rg);
        return;
    case KP_INDEX:
        kgt_printf(b, "((%s)g%d)", t, n->ref);
        return;
    case KP_TIME:
        kgt_printf(b, "((%s)t)", t);
        return;
    case KP_LET:
        kgt_printf(b, "l_%s", p->let[n->ref].name);
        return;
    case KP_NEG:
    case KP_NOT:
        kgt_printf(b, "(%s", n->kind == KP_NEG ? "-" : "!");
        print(b, p, n->a[0], target, dbl, rg);
        kgt_printf(b, ")");
        return;
    case KP_ABS:
    case KP_SQRT:
        if (n->kind == KP_SQRT && cuda)
            kgt_printf(b, "kgt_psqrt_%s(", sfx(dbl));
        else if (target == KGT_PT_OPENCL)
            kgt_printf(b, "%s(", n->kind == KP_ABS ? "fabs" : "sqrt");
        else
            kgt_printf(b, "%s%s(", n->kind == KP_ABS ? "fabs" : "sqrt", dbl ? "" : "f");
        print(b, p, n->a[0], target, dbl, rg);
        kgt_printf(b, ")");
        return;
    case KP_ADD:
    case KP_SUB:
    case KP_MUL: {
        static const char *const names[] = {"add", "sub", "mul"}, *const ops[] = {"+", "-", "*"};
        snprintf(call, sizeof call, "kgt_%s", names[n->kind - KP_ADD]);
        print_bin(b, p, n, target, dbl, ops[n->kind - KP_ADD], cuda ? call : NULL, rg);
        return;
    }
    case KP_DIV:
        snprintf(call, sizeof call, "kgt_pdiv_%s", sfx(dbl));
        print_bin(b, p, n, target, dbl, "/", cuda ? call : NULL, rg);
        return;
    case KP_MIN:
    case KP_MAX:
        snprintf(call, sizeof call, "kgt_p%s_%s", n->kind == KP_MIN ? "min" : "max", sfx(dbl));
        print_bin(b, p, n, target, dbl, NULL, call, rg);
        return;
    case KP_SEL:
        kgt_printf(b, "(");
        print(b, p, n->a[0], target, dbl, rg);
        kgt_printf(b, " ? ");
        print(b, p, n->a[1], target, dbl, rg);
        kgt_printf(b, " : ");
        print(b, p, n->a[2], target, dbl, rg);
        kgt_printf(b, ")");
        return;
    default: /* comparisons, && and || */
        print_bin(b, p, n, target, dbl, kgt_prog_op_name(n->kind), NULL, rg);
        return;
    }
}

static void mark(const kgt_prog *p, const kgt_pnode *n, char *used)
{
    if (n->kind == KP_LET) {
        if (!used[n->ref]) mark(p, p->let[n->ref].e, used);
        used[n->ref] = 1;
        return;
    }
    for (int i = 0; i < 3; i++)
        if (n->a[i]) mark(p, n->a[i], used);
}

void kgt_prog_lets_used(const kgt_prog *p, const kgt_pnode *e, char *used)
{
    memset(used, 0, (size_t)(p->nlet ? p->nlet : 1));
    mark(p, e, used);
}
