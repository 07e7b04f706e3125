/*
 * The description file's `program NAME` ... `end` blocks: parse.c hands over the block's lines
 * as they are (an expression needs no blanks, so the stencil tokens do not fit it), and the
 * program parser (prog_parse.c) reports its mistakes here with the file's name.
 */
#include <stdlib.h>
#include <string.h>

#include "parser.h"
#include "prog.h"

static int report(const parser *p, const kgt_perr *e)
{
    return kgt_perr_at(p, e->line, e->col, "%s", e->msg);
}

/* `program NAME`: a name no stencil or program of the file has (the symbols would clash). */
int kgt_kw_program(parser *p)
{
    const tok *t = &p->t[1];
    kgt_perr e;
    kgt_file *f = p->file;
    if (kgt_need_args(p, 1, "program")) return -1;
    for (int i = 0; i < f->nst; i++)
        if (strcmp(f->st[i].stem, t->s) == 0)
            return perr(p, t->col, "program name '%s' clashes with stencil '%s' (line %d)", t->s,
                        f->st[i].name, f->st[i].line);
    for (int i = 0; i < f->nprog; i++)
        if (strcmp(f->prog[i]->name, t->s) == 0)
            return perr(p, t->col, "duplicate program name '%s' (first defined at line %d)", t->s,
                        f->prog[i]->line);
    if (!(p->prog = kgt_prog_begin(t->s, p->line, t->col, &e))) return report(p, &e);
    return 0;
}

/* A line of the open program; at its `end` the program joins the file. */
int kgt_prog_feed(parser *p)
{
    kgt_file *f = p->file;
    kgt_perr e;
    int rc = kgt_prog_line(p->prog, p->buf, p->line, &e);
    if (rc < 0) return report(p, &e);
    if (rc == 0) return 0;
    if (kgt_grow((void **)&f->prog, &f->pcap, f->nprog + 1, sizeof *f->prog))
        return perr(p, 1, "out of memory");
    f->prog[f->nprog++] = p->prog;
    p->prog = NULL;
    return 0;
}

/* At the end of the file: a block still open; and the open program freed on any error. */
int kgt_prog_finish(parser *p, int rc)
{
    if (!rc && p->prog)
        rc = kgt_perr_at(p, p->prog->line, p->prog->col, "program '%s' is missing 'end'",
                         p->prog->name);
    kgt_prog_free(p->prog);
    p->prog = NULL;
    return rc;
}

void kgt_file_free_progs(kgt_file *f)
{
    for (int i = 0; i < f->nprog; i++) kgt_prog_free(f->prog[i]);
    free(f->prog);
    f->prog = NULL;
    f->nprog = f->pcap = 0;
}
