/*
 * What the one-step streaming kernel's tile emitter (emit_step.c) takes from step_frame.c,
 * below it. Private to kgt.
 */
#ifndef KGT_STEP_H
#define KGT_STEP_H

#include "kgt_rt.h"

/* Everything the emitters below share. */
typedef struct step {
    const kgt_stencil *s;
    const kgt_step_info *in;
    int dbl, nt, w, tot, k, p; /* threads, tile row width, tile cells, loads per thread, P */
    int slots;                 /* shared-memory planes: 2, or pipe */
    int rim;                   /* x rim on the left */
} step;

/* The signature of every step kernel (kgt_rt.h) with its opening brace: in->name, then sfx. */
void kgt_step_signature(kgt_buf *b, const kgt_step_info *in, int dbl, const char *sfx);
/* The kernel's signature and head: its tile, thread and plane indices. */
void kgt_step_head(kgt_buf *b, const step *st, const char *sfx);
/* The element-by-element copies of a plane's tile into shared memory. */
void kgt_step_loader(kgt_buf *b, const step *st);
/* a mod p in [0, p). */
int kgt_step_mod(int a, int p);
void kgt_step_split(kgt_buf *b, const step *st, char q, int a, int nc);

#endif
