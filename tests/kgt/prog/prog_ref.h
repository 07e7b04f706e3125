/*
 * Serial references for the programs of examples.stencil, written by hand from the programs'
 * text (not from kgt): one step each, on dense row-major arrays of the whole grid, boundaries
 * handled here. Included twice by test_kgt_prog.c, with REAL float then double and SFX the
 * symbol suffix. Every constant is written (REAL)x and every expression in the programs' order,
 * so the results must equal the generated kernels' bitwise (the file is compiled with
 * -ffp-contract=off, like all of the project).
 */
#define CAT2(a, b) a##_##b
#define CAT(a, b)  CAT2(a, b)
#define F(name)    CAT(name, SFX)

static long F(wrap)(long x, long n)
{
    return (x % n + n) % n;
}

static long F(mirror)(long x, long n)
{
    return x < 0 ? -1 - x : x >= n ? 2 * n - 1 - x : x;
}

static REAL F(rmin)(REAL a, REAL b)
{
    return b < a ? b : a;
}

static REAL F(rmax)(REAL a, REAL b)
{
    return a < b ? b : a;
}

static REAL F(rsqrt)(REAL x)
{
    return sizeof(REAL) == sizeof(float) ? (REAL)sqrtf((float)x) : (REAL)sqrt((double)x);
}

/* par: Du Dv F kk dt; periodic. */
static void F(ref_grayscott)(const long *n, const double *par, const REAL *u, const REAL *v,
                             REAL *uo, REAL *vo)
{
    const REAL Du = (REAL)par[0], Dv = (REAL)par[1], Fe = (REAL)par[2], kk = (REAL)par[3],
               dt = (REAL)par[4];
    for (long i = 0; i < n[0]; i++)
        for (long j = 0; j < n[1]; j++) {
            const long im = F(wrap)(i - 1, n[0]) * n[1], ip = F(wrap)(i + 1, n[0]) * n[1];
            const long jm = F(wrap)(j - 1, n[1]), jp = F(wrap)(j + 1, n[1]), c = i * n[1] + j;
            const REAL U = u[c], V = v[c];
            const REAL uvv = U * V * V;
            const REAL lu =
                u[im + j] + u[ip + j] + u[i * n[1] + jm] + u[i * n[1] + jp] - (REAL)4 * U;
            const REAL lv =
                v[im + j] + v[ip + j] + v[i * n[1] + jm] + v[i * n[1] + jp] - (REAL)4 * V;
            uo[c] = U + dt * (Du * lu - uvv + Fe * ((REAL)1 - U));
            vo[c] = V + dt * (Dv * lv + uvv - (Fe + kk) * V);
        }
}

static void F(ref_life)(const long *n, const REAL *c, REAL *co)
{
    for (long i = 0; i < n[0]; i++)
        for (long j = 0; j < n[1]; j++) {
            REAL cnt = 0;
            int first = 1;
            for (int a = -1; a <= 1; a++)
                for (int b = -1; b <= 1; b++) {
                    REAL x;
                    if (!a && !b) continue;
                    x = c[F(wrap)(i + a, n[0]) * n[1] + F(wrap)(j + b, n[1])];
                    cnt = first ? x : cnt + x;
                    first = 0;
                }
            co[i * n[1] + j] = cnt == (REAL)3 || (c[i * n[1] + j] == (REAL)1 && cnt == (REAL)2)
                                   ? (REAL)1
                                   : (REAL)0;
        }
}

/* par: amp si sj w nn; u mirrored, c2 read at the cell only. */
static void F(ref_wave)(const long *n, long t, const double *par, const REAL *u, const REAL *up,
                        const REAL *c2, REAL *uo)
{
    const REAL amp = (REAL)par[0], si = (REAL)par[1], sj = (REAL)par[2], w = (REAL)par[3],
               nn = (REAL)par[4], T = (REAL)t;
    for (long i = 0; i < n[0]; i++)
        for (long j = 0; j < n[1]; j++) {
            const long c = i * n[1] + j;
            const REAL I = (REAL)i, J = (REAL)j;
            const REAL lap = u[F(mirror)(i - 1, n[0]) * n[1] + j] +
                             u[F(mirror)(i + 1, n[0]) * n[1] + j] +
                             u[i * n[1] + F(mirror)(j - 1, n[1])] +
                             u[i * n[1] + F(mirror)(j + 1, n[1])] - (REAL)4 * u[c];
            const REAL src =
                I == si && J == sj && T < (REAL)10 ? amp * T * ((REAL)10 - T) : (REAL)0;
            const REAL edge = F(rmin)(F(rmin)(I, J), F(rmin)(nn - (REAL)1 - I, nn - (REAL)1 - J));
            const REAL damp = edge < w ? (REAL)1 - (REAL)0.1 * (w - edge) / w : (REAL)1;
            uo[c] = damp * ((REAL)2 * u[c] - up[c] + c2[c] * lap) + src;
        }
}

/* par: dt; T and kap mirrored. */
static void F(ref_heat3)(const long *n, const double *par, const REAL *T, const REAL *kap, REAL *To)
{
    const REAL dt = (REAL)par[0];
    for (long i = 0; i < n[0]; i++)
        for (long j = 0; j < n[1]; j++)
            for (long k = 0; k < n[2]; k++) {
                const long c = (i * n[1] + j) * n[2] + k;
                long nb[6];
                REAL fl[6];
                nb[0] = (F(mirror)(i - 1, n[0]) * n[1] + j) * n[2] + k;
                nb[1] = (F(mirror)(i + 1, n[0]) * n[1] + j) * n[2] + k;
                nb[2] = (i * n[1] + F(mirror)(j - 1, n[1])) * n[2] + k;
                nb[3] = (i * n[1] + F(mirror)(j + 1, n[1])) * n[2] + k;
                nb[4] = (i * n[1] + j) * n[2] + F(mirror)(k - 1, n[2]);
                nb[5] = (i * n[1] + j) * n[2] + F(mirror)(k + 1, n[2]);
                for (int q = 0; q < 6; q++) fl[q] = (kap[nb[q]] + kap[c]) * (T[nb[q]] - T[c]);
                To[c] = T[c] + dt * (REAL)0.5 * (fl[0] + fl[1] + fl[2] + fl[3] + fl[4] + fl[5]);
            }
}

/* par: s; i- constant -0.5, i+ fixed (a keeps its last row: its update reads b[1,0]), j
   periodic. */
static void F(ref_features)(const long *n, long t, const double *par, const REAL *a, const REAL *b,
                            const REAL *bp, const REAL *m, REAL *ao, REAL *bo)
{
    const REAL s = (REAL)par[0], K = (REAL)-0.5;
    for (long i = 0; i < n[0]; i++)
        for (long j = 0; j < n[1]; j++) {
            const long c = i * n[1] + j, jm = F(wrap)(j - 1, n[1]), jp = F(wrap)(j + 1, n[1]);
            const REAL A = a[c], B = b[c];
            if (i == n[0] - 1) {
                ao[c] = A;
            } else {
                const int big = fabs((double)A) >= 0.5 || !(B <= (REAL)0.25);
                const REAL aim = i == 0 ? K : a[c - n[1]];
                ao[c] = big ? F(rsqrt)((REAL)fabs((double)(A * B)) + (REAL)1) / ((REAL)2 + m[c])
                            : -a[i * n[1] + jp] + F(rmax)(b[c + n[1]], aim) * s;
            }
            {
                const REAL bmm = i == 0 ? K : b[(i - 1) * n[1] + jm];
                bo[c] = bp[i * n[1] + jm] != A ? (A - bp[c]) / (REAL)3 + (REAL)t * (REAL)0.001
                                               : bmm - (REAL)i + (REAL)j;
            }
        }
}

#undef F
#undef CAT
#undef CAT2
