/*
 * Per-rank configuration: which backend, device and share weight this rank takes.
 *
 * Precedence, most specific first: the call's options, then this rank's environment
 * (STENCIL_BACKEND, STENCIL_DEVICE, STENCIL_WEIGHT), then the first matching line of the
 * configuration file (options.config or STENCIL_CONFIG), then the defaults (auto, -1, 1).
 *
 * File format, one rule per line, '#' starts a comment, fields are key=value in any order:
 *     node=PATTERN  local=N|*  rank=N|*  backend=NAME  device=N  weight=W|auto
 * node is a shell pattern over MPI_Get_processor_name(); local is the node-local rank, rank the
 * rank in the communicator; a missing key matches anything / leaves the default. The first line
 * whose node, local and rank all match applies.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skel.h"

typedef struct rule {
    char node[MPI_MAX_PROCESSOR_NAME];
    long local, rank; /* -1 = any */
    sk_rankcfg cfg;
} rule;

static int parse_long(const char *v, long *out)
{
    char *end;
    if (strcmp(v, "*") == 0) {
        *out = -1;
        return 0;
    }
    errno = 0;
    *out = strtol(v, &end, 10);
    return errno || end == v || *end || *out < 0 ? -1 : 0;
}

static int parse_weight(const char *v, sk_rankcfg *c)
{
    char *end;
    if (strcmp(v, "auto") == 0) {
        c->weight_auto = 1;
        return 0;
    }
    c->weight = strtod(v, &end);
    return end == v || *end || !(c->weight > 0) || c->weight > 1e300 ? -1 : 0;
}

/* One key=value field into the rule; -1 when the key or value is not understood. */
static int parse_field(rule *ru, char *f)
{
    char *v = strchr(f, '=');
    if (!v) return -1;
    *v++ = '\0';
    if (strcmp(f, "node") == 0)
        return snprintf(ru->node, sizeof ru->node, "%s", v) >= (int)sizeof ru->node ? -1 : 0;
    if (strcmp(f, "local") == 0) return parse_long(v, &ru->local);
    if (strcmp(f, "rank") == 0) return parse_long(v, &ru->rank);
    if (strcmp(f, "backend") == 0)
        return snprintf(ru->cfg.backend, sizeof ru->cfg.backend, "%s", v) >=
                       (int)sizeof ru->cfg.backend
                   ? -1
                   : 0;
    if (strcmp(f, "device") == 0) {
        long d;
        int rc = parse_long(v, &d);
        ru->cfg.device = (int)d;
        return rc;
    }
    if (strcmp(f, "weight") == 0) return parse_weight(v, &ru->cfg);
    return -1;
}

/*
 * Parses one line; 1 = a rule, 0 = blank or comment, -1 = malformed (col says where). The rule
 * starts from the defaults `def`, so a key the line leaves out keeps its default.
 */
static int parse_line(char *line, const sk_rankcfg *def, rule *ru, int *col)
{
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    memset(ru, 0, sizeof *ru);
    strcpy(ru->node, "*");
    ru->local = ru->rank = -1;
    ru->cfg = *def;
    int n = 0;
    for (char *f = strtok(line, " \t\r\n"); f; f = strtok(NULL, " \t\r\n"), n++) {
        *col = (int)(f - line) + 1;
        if (parse_field(ru, f)) return -1;
    }
    return n > 0;
}

static int matches(const rule *ru, const char *node, int local, int rank)
{
    return fnmatch(ru->node, node, 0) == 0 && (ru->local < 0 || ru->local == local) &&
           (ru->rank < 0 || ru->rank == rank);
}

/* Applies the first matching rule of the file to cfg; 0, or STENCIL_EIO / STENCIL_EFORMAT. */
static int config_file(const char *path, const char *node, int local, int rank, sk_rankcfg *cfg,
                       char *msg, size_t len)
{
    /* O_NONBLOCK: a FIFO would block the open; a directory would read as an empty file. */
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return err_set(msg, len, STENCIL_EIO, "cannot open configuration %s: %s", path,
                       strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return err_set(msg, len, STENCIL_EIO, "configuration %s is not a regular file", path);
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return err_set(msg, len, STENCIL_ENOMEM, "cannot read configuration %s", path);
    }
    char *line = NULL; /* any length: getline grows it */
    size_t cap = 0;
    int lineno = 0, rc = 0, col = 0;
    rule ru;
    const sk_rankcfg def = *cfg;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        int got = parse_line(line, &def, &ru, &col);
        if (got < 0) {
            rc = err_set(msg, len, STENCIL_EFORMAT, "%s:%d:%d: malformed field", path, lineno, col);
            break;
        }
        if (got && matches(&ru, node, local, rank)) {
            *cfg = ru.cfg;
            break;
        }
    }
    if (!rc && ferror(f))
        rc = err_set(msg, len, STENCIL_EIO, "%s:%d: read error", path, lineno + 1);
    free(line);
    fclose(f);
    return rc;
}

static int config_env(const sk_env *e, sk_rankcfg *cfg, char *msg, size_t len)
{
    const char *b = e->backend, *d = e->device, *w = e->weight;
    long dev;
    if (b && b[0]) snprintf(cfg->backend, sizeof cfg->backend, "%s", b);
    if (d && d[0]) {
        if (parse_long(d, &dev))
            return err_set(msg, len, STENCIL_EINVAL, "STENCIL_DEVICE=%s is not an index", d);
        cfg->device = (int)dev;
    }
    if (w && w[0] && parse_weight(w, cfg))
        return err_set(msg, len, STENCIL_EINVAL, "STENCIL_WEIGHT=%s is not positive or auto", w);
    return 0;
}

int sk_config_resolve(sk_run *r, int local_rank)
{
    sk_rankcfg *c = &r->cfg;
    char node[MPI_MAX_PROCESSOR_NAME];
    int n = 0;
    memset(c, 0, sizeof *c);
    strcpy(c->backend, "auto");
    c->device = -1;
    c->weight = 1.0;
    const char *path = r->opt.config ? r->opt.config : r->env.config;
    MPI_Get_processor_name(node, &n);
    int rc = path && path[0]
                 ? config_file(path, node, local_rank, r->rank, c, r->msg, sizeof r->msg)
                 : 0;
    if (!rc) rc = config_env(&r->env, c, r->msg, sizeof r->msg);
    if (rc) return rc;
    if (r->opt.backend) snprintf(c->backend, sizeof c->backend, "%s", r->opt.backend);
    if (r->opt.device >= 0) c->device = r->opt.device;
    if (r->opt.weights_auto) c->weight_auto = 1;
    if (!r->opt.trace) r->opt.trace = r->env.trace; /* "" in the options: off */
    const char *peer = r->env.peer;                 /* when the options leave it automatic */
    if (r->opt.peer < 0 && peer && (peer[0] == '0' || peer[0] == '1')) r->opt.peer = peer[0] - '0';
    const char *fuse = r->env.steps; /* likewise: a number, else ignored */
    char *end = NULL;
    long t = fuse ? strtol(fuse, &end, 10) : 0;
    if (r->opt.steps == 0 && fuse && end != fuse && !*end && t >= INT_MIN && t <= INT_MAX)
        r->opt.steps = (int)t;
    return 0;
}
