/*
 * The description file parser's own header (not installed, not for the emitters): the parser's
 * state and the functions its files share (parse.c: the file and its keywords; parse_lex.c:
 * lines, tokens, numbers; parse_points.c: points and patterns).
 */
#ifndef KGT_PARSER_H
#define KGT_PARSER_H

#include <stdio.h>

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
    struct kgt_prog *prog; /* the open program block, or NULL (parse_prog.c) */
} parser;

int kgt_perr_at(const parser *p, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#define perr(p, col, ...) kgt_perr_at((p), (p)->line, (col), __VA_ARGS__)

int kgt_grow(void **ptr, int *cap, int need, size_t elem);
/* Reads one line of any length; returns 0 at end of file, -2 for a NUL byte in it. */
int kgt_read_line(parser *p);
int kgt_tokenize(parser *p);
int kgt_parse_int(const parser *p, const tok *t, int *v);
/* A finite number; 'what' names it in messages ("weight", "divisor"). */
int kgt_parse_real(const parser *p, const tok *t, const char *what, double *v);
int kgt_need_args(const parser *p, int n, const char *kw);
int kgt_need_dims(const parser *p);

/* Keywords of parse_points.c, and the lines of an open pattern. */
int kgt_kw_point(parser *p);
int kgt_kw_pattern(parser *p);
int kgt_pattern_row(parser *p);
int kgt_end_pattern(parser *p);

/* Program blocks (parse_prog.c): `program NAME`, the lines up to its `end`, the check at the end
   of the file (returns rc, or the error of a block left open), and kgt_file_free's part. */
int kgt_kw_program(parser *p);
int kgt_prog_feed(parser *p);
int kgt_prog_finish(parser *p, int rc);
void kgt_file_free_progs(kgt_file *f);

#endif
