#ifndef KGT_SHFL
#if defined(__HIPCC__)
#define KGT_WARP warpSize
#define KGT_SHFL(v, src) __shfl((v), (src))
#else
#define KGT_WARP 32
#define KGT_SHFL(v, src) __shfl_sync(0xffffffffu, (v), (src))
#endif
#endif
#ifndef KGT_VBOUNDS
#if defined(__HIPCC__)
#define KGT_VBOUNDS(n) __launch_bounds__(n)
#else
#define KGT_VBOUNDS(n) __launch_bounds__(n, 4)
#endif
#endif
/* vector rows: 256 threads of one float4 each, walking 4 rows */
extern "C" __global__ void KGT_VBOUNDS(256) lib_vf(const kgt_prog_args_f a, long u0, long u1, long u2)
{
    const long t = a.t;
    (void)t;
    const int lane = (int)(threadIdx.x % KGT_WARP);
    const int x = (int)u1 + ((int)blockIdx.x * 256 + (int)threadIdx.x) * 4;
    const int zs = (int)u0 + (int)blockIdx.y * 4;
    const int zl = zs + 4 < (int)u2 ? zs + 4 : (int)u2;
    const int s0 = (int)a.stride[0][0];
    const float p_Du = a.par[0]; (void)p_Du;
    const float p_Dv = a.par[1]; (void)p_Dv;
    const float p_F = a.par[2]; (void)p_F;
    const float p_kk = a.par[3]; (void)p_kk;
    const float p_dt = a.par[4]; (void)p_dt;
    const float *const f_u = a.in[0]; (void)f_u;
    const int s_u_0 = (int)a.stride[0][0]; (void)s_u_0;
    const float *const f_v = a.in[1]; (void)f_v;
    const int s_v_0 = (int)a.stride[0][0]; (void)s_v_0;
    int xe = 0;
    const bool e_0 = a.lo[0][0] >= a.hi[0][0] || a.lo[0][1] >= a.hi[0][1];
    if (!e_0 && (int)a.hi[0][1] > xe) xe = (int)a.hi[0][1];
    const bool ok_0 = x >= (int)a.lo[0][1] && x + 4 <= (int)a.hi[0][1];
    float *__restrict__ const o_u = a.out[0];
    const bool e_1 = a.lo[1][0] >= a.hi[1][0] || a.lo[1][1] >= a.hi[1][1];
    if (!e_1 && (int)a.hi[1][1] > xe) xe = (int)a.hi[1][1];
    const bool ok_1 = x >= (int)a.lo[1][1] && x + 4 <= (int)a.hi[1][1];
    float *__restrict__ const o_v = a.out[1];
    if (zs >= zl || x - lane * 4 >= xe) return;
    const int xc = x < s0 - 4 ? x : s0 - 4;
    const int ox7 = xc + -1 < 0 ? 0 : xc + -1 > s0 - 1 ? s0 - 1 : xc + -1;
    const int ox12 = xc + 4 < 0 ? 0 : xc + 4 > s0 - 1 ? s0 - 1 : xc + 4;
    float r_u_m1_0;
    float r_u_m1_1;
    float r_u_m1_2;
    float r_u_m1_3;
    float r_u_0_m1;
    float r_u_0_0;
    float r_u_0_1;
    float r_u_0_2;
    float r_u_0_3;
    float r_u_0_4;
    float r_u_1_m1;
    float r_u_1_0;
    float r_u_1_1;
    float r_u_1_2;
    float r_u_1_3;
    float r_u_1_4;
    float r_v_m1_0;
    float r_v_m1_1;
    float r_v_m1_2;
    float r_v_m1_3;
    float r_v_0_m1;
    float r_v_0_0;
    float r_v_0_1;
    float r_v_0_2;
    float r_v_0_3;
    float r_v_0_4;
    float r_v_1_m1;
    float r_v_1_0;
    float r_v_1_1;
    float r_v_1_2;
    float r_v_1_3;
    float r_v_1_4;
    {
        const int rr = (zs + -1) * s0;
        const float4 V = *(const float4 *)(f_u + rr + xc);
        r_u_m1_0 = V.x;
        r_u_m1_1 = V.y;
        r_u_m1_2 = V.z;
        r_u_m1_3 = V.w;
    }
    {
        const int rr = (zs + 0) * s0;
        const float4 V = *(const float4 *)(f_u + rr + xc);
        r_u_0_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_u_0_m1 = f_u[rr + ox7];
        r_u_0_0 = V.x;
        r_u_0_1 = V.y;
        r_u_0_2 = V.z;
        r_u_0_3 = V.w;
        r_u_0_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_u_0_4 = f_u[rr + ox12];
    }
    {
        const int rr = (zs + 1) * s0;
        const float4 V = *(const float4 *)(f_u + rr + xc);
        r_u_1_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_u_1_m1 = f_u[rr + ox7];
        r_u_1_0 = V.x;
        r_u_1_1 = V.y;
        r_u_1_2 = V.z;
        r_u_1_3 = V.w;
        r_u_1_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_u_1_4 = f_u[rr + ox12];
    }
    {
        const int rr = (zs + -1) * s0;
        const float4 V = *(const float4 *)(f_v + rr + xc);
        r_v_m1_0 = V.x;
        r_v_m1_1 = V.y;
        r_v_m1_2 = V.z;
        r_v_m1_3 = V.w;
    }
    {
        const int rr = (zs + 0) * s0;
        const float4 V = *(const float4 *)(f_v + rr + xc);
        r_v_0_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_v_0_m1 = f_v[rr + ox7];
        r_v_0_0 = V.x;
        r_v_0_1 = V.y;
        r_v_0_2 = V.z;
        r_v_0_3 = V.w;
        r_v_0_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_v_0_4 = f_v[rr + ox12];
    }
    {
        const int rr = (zs + 1) * s0;
        const float4 V = *(const float4 *)(f_v + rr + xc);
        r_v_1_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_v_1_m1 = f_v[rr + ox7];
        r_v_1_0 = V.x;
        r_v_1_1 = V.y;
        r_v_1_2 = V.z;
        r_v_1_3 = V.w;
        r_v_1_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_v_1_4 = f_v[rr + ox12];
    }
#pragma unroll 1
    for (int i = zs; i < zl; i++) {
        float4 N_0 = {};
        float E_0_7 = 0;
        float E_0_12 = 0;
        float4 N_2 = {};
        float E_2_7 = 0;
        float E_2_12 = 0;
        if (i + 1 < zl) {
            {
                const int rr = (i + 1 + 1) * s0;
                N_0 = *(const float4 *)(f_u + rr + xc);
                if (lane < 1) E_0_7 = f_u[rr + ox7];
                if (lane >= KGT_WARP - 1) E_0_12 = f_u[rr + ox12];
            }
            {
                const int rr = (i + 1 + 1) * s0;
                N_2 = *(const float4 *)(f_v + rr + xc);
                if (lane < 1) E_2_7 = f_v[rr + ox7];
                if (lane >= KGT_WARP - 1) E_2_12 = f_v[rr + ox12];
            }
        }
        float o0_0;
        float o0_1;
        float o0_2;
        float o0_3;
        float o1_0;
        float o1_1;
        float o1_2;
        float o1_3;
        { /* cell 0 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 0;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_0, r_v_0_0), r_v_0_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_0, r_u_1_0), r_u_0_m1), r_u_0_1), kgt_mul(0x1p+2f, r_u_0_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_0, r_v_1_0), r_v_0_m1), r_v_0_1), kgt_mul(0x1p+2f, r_v_0_0));
            (void)l_lv;
            o0_0 = kgt_add(r_u_0_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_0)))));
            o1_0 = kgt_add(r_v_0_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_0))));
        }
        { /* cell 1 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_1, r_v_0_1), r_v_0_1);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_1, r_u_1_1), r_u_0_0), r_u_0_2), kgt_mul(0x1p+2f, r_u_0_1));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_1, r_v_1_1), r_v_0_0), r_v_0_2), kgt_mul(0x1p+2f, r_v_0_1));
            (void)l_lv;
            o0_1 = kgt_add(r_u_0_1, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_1)))));
            o1_1 = kgt_add(r_v_0_1, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_1))));
        }
        { /* cell 2 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 2;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_2, r_v_0_2), r_v_0_2);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_2, r_u_1_2), r_u_0_1), r_u_0_3), kgt_mul(0x1p+2f, r_u_0_2));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_2, r_v_1_2), r_v_0_1), r_v_0_3), kgt_mul(0x1p+2f, r_v_0_2));
            (void)l_lv;
            o0_2 = kgt_add(r_u_0_2, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_2)))));
            o1_2 = kgt_add(r_v_0_2, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_2))));
        }
        { /* cell 3 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 3;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_3, r_v_0_3), r_v_0_3);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_3, r_u_1_3), r_u_0_2), r_u_0_4), kgt_mul(0x1p+2f, r_u_0_3));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_3, r_v_1_3), r_v_0_2), r_v_0_4), kgt_mul(0x1p+2f, r_v_0_3));
            (void)l_lv;
            o0_3 = kgt_add(r_u_0_3, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_3)))));
            o1_3 = kgt_add(r_v_0_3, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_3))));
        }
        if (!e_0 && i >= (int)a.lo[0][0] && i < (int)a.hi[0][0]) {
            float *const op = o_u + i * s0 + x;
            if (ok_0)
                *(float4 *)op = make_float4(o0_0, o0_1, o0_2, o0_3);
            else {
                if (x + 0 >= (int)a.lo[0][1] && x + 0 < (int)a.hi[0][1]) op[0] = o0_0;
                if (x + 1 >= (int)a.lo[0][1] && x + 1 < (int)a.hi[0][1]) op[1] = o0_1;
                if (x + 2 >= (int)a.lo[0][1] && x + 2 < (int)a.hi[0][1]) op[2] = o0_2;
                if (x + 3 >= (int)a.lo[0][1] && x + 3 < (int)a.hi[0][1]) op[3] = o0_3;
            }
        }
        if (!e_1 && i >= (int)a.lo[1][0] && i < (int)a.hi[1][0]) {
            float *const op = o_v + i * s0 + x;
            if (ok_1)
                *(float4 *)op = make_float4(o1_0, o1_1, o1_2, o1_3);
            else {
                if (x + 0 >= (int)a.lo[1][1] && x + 0 < (int)a.hi[1][1]) op[0] = o1_0;
                if (x + 1 >= (int)a.lo[1][1] && x + 1 < (int)a.hi[1][1]) op[1] = o1_1;
                if (x + 2 >= (int)a.lo[1][1] && x + 2 < (int)a.hi[1][1]) op[2] = o1_2;
                if (x + 3 >= (int)a.lo[1][1] && x + 3 < (int)a.hi[1][1]) op[3] = o1_3;
            }
        }
        r_u_m1_0 = r_u_0_0;
        r_u_m1_1 = r_u_0_1;
        r_u_m1_2 = r_u_0_2;
        r_u_m1_3 = r_u_0_3;
        r_u_0_m1 = r_u_1_m1;
        r_u_0_0 = r_u_1_0;
        r_u_0_1 = r_u_1_1;
        r_u_0_2 = r_u_1_2;
        r_u_0_3 = r_u_1_3;
        r_u_0_4 = r_u_1_4;
        r_v_m1_0 = r_v_0_0;
        r_v_m1_1 = r_v_0_1;
        r_v_m1_2 = r_v_0_2;
        r_v_m1_3 = r_v_0_3;
        r_v_0_m1 = r_v_1_m1;
        r_v_0_0 = r_v_1_0;
        r_v_0_1 = r_v_1_1;
        r_v_0_2 = r_v_1_2;
        r_v_0_3 = r_v_1_3;
        r_v_0_4 = r_v_1_4;
        if (i + 1 < zl) {
            {
                const float4 V = N_0;
                r_u_1_m1 = KGT_SHFL(V.w, lane - 1);
                if (lane < 1) r_u_1_m1 = E_0_7;
                r_u_1_0 = V.x;
                r_u_1_1 = V.y;
                r_u_1_2 = V.z;
                r_u_1_3 = V.w;
                r_u_1_4 = KGT_SHFL(V.x, lane + 1);
                if (lane >= KGT_WARP - 1) r_u_1_4 = E_0_12;
            }
            {
                const float4 V = N_2;
                r_v_1_m1 = KGT_SHFL(V.w, lane - 1);
                if (lane < 1) r_v_1_m1 = E_2_7;
                r_v_1_0 = V.x;
                r_v_1_1 = V.y;
                r_v_1_2 = V.z;
                r_v_1_3 = V.w;
                r_v_1_4 = KGT_SHFL(V.x, lane + 1);
                if (lane >= KGT_WARP - 1) r_v_1_4 = E_2_12;
            }
        }
    }
}

/* vector rows: 256 threads of one float4 each, walking 4 rows */
extern "C" __global__ void KGT_VBOUNDS(256) one_vf(const kgt_prog_args_f a, long u0, long u1, long u2)
{
    const long t = a.t;
    (void)t;
    const int lane = (int)(threadIdx.x % KGT_WARP);
    const int x = (int)u1 + ((int)blockIdx.x * 256 + (int)threadIdx.x) * 4;
    const int zs = (int)u0 + (int)blockIdx.y * 4;
    const int zl = zs + 4 < (int)u2 ? zs + 4 : (int)u2;
    const int s0 = (int)a.stride[0][0];
    const float p_Du = a.par[0]; (void)p_Du;
    const float p_Dv = a.par[1]; (void)p_Dv;
    const float p_F = a.par[2]; (void)p_F;
    const float p_kk = a.par[3]; (void)p_kk;
    const float p_dt = a.par[4]; (void)p_dt;
    const float *const f_u = a.in[0]; (void)f_u;
    const int s_u_0 = (int)a.stride[0][0]; (void)s_u_0;
    const float *const f_v = a.in[1]; (void)f_v;
    const int s_v_0 = (int)a.stride[0][0]; (void)s_v_0;
    int xe = 0;
    const bool e_0 = a.lo[0][0] >= a.hi[0][0] || a.lo[0][1] >= a.hi[0][1];
    if (!e_0 && (int)a.hi[0][1] > xe) xe = (int)a.hi[0][1];
    const bool ok_0 = x >= (int)a.lo[0][1] && x + 4 <= (int)a.hi[0][1];
    float *__restrict__ const o_u = a.out[0];
    const bool e_1 = a.lo[1][0] >= a.hi[1][0] || a.lo[1][1] >= a.hi[1][1];
    if (!e_1 && (int)a.hi[1][1] > xe) xe = (int)a.hi[1][1];
    const bool ok_1 = x >= (int)a.lo[1][1] && x + 4 <= (int)a.hi[1][1];
    float *__restrict__ const o_v = a.out[1];
    if (zs >= zl || x - lane * 4 >= xe) return;
    const int xc = x < s0 - 4 ? x : s0 - 4;
    const int ox7 = xc + -1 < 0 ? 0 : xc + -1 > s0 - 1 ? s0 - 1 : xc + -1;
    const int ox12 = xc + 4 < 0 ? 0 : xc + 4 > s0 - 1 ? s0 - 1 : xc + 4;
    float r_u_m1_0;
    float r_u_m1_1;
    float r_u_m1_2;
    float r_u_m1_3;
    float r_u_0_m1;
    float r_u_0_0;
    float r_u_0_1;
    float r_u_0_2;
    float r_u_0_3;
    float r_u_0_4;
    float r_u_1_m1;
    float r_u_1_0;
    float r_u_1_1;
    float r_u_1_2;
    float r_u_1_3;
    float r_u_1_4;
    float r_v_m1_0;
    float r_v_m1_1;
    float r_v_m1_2;
    float r_v_m1_3;
    float r_v_0_m1;
    float r_v_0_0;
    float r_v_0_1;
    float r_v_0_2;
    float r_v_0_3;
    float r_v_0_4;
    float r_v_1_m1;
    float r_v_1_0;
    float r_v_1_1;
    float r_v_1_2;
    float r_v_1_3;
    float r_v_1_4;
    {
        const int rr = (zs + -1) * s0;
        const float4 V = *(const float4 *)(f_u + rr + xc);
        r_u_m1_0 = V.x;
        r_u_m1_1 = V.y;
        r_u_m1_2 = V.z;
        r_u_m1_3 = V.w;
    }
    {
        const int rr = (zs + 0) * s0;
        const float4 V = *(const float4 *)(f_u + rr + xc);
        r_u_0_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_u_0_m1 = f_u[rr + ox7];
        r_u_0_0 = V.x;
        r_u_0_1 = V.y;
        r_u_0_2 = V.z;
        r_u_0_3 = V.w;
        r_u_0_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_u_0_4 = f_u[rr + ox12];
    }
    {
        const int rr = (zs + 1) * s0;
        const float4 V = *(const float4 *)(f_u + rr + xc);
        r_u_1_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_u_1_m1 = f_u[rr + ox7];
        r_u_1_0 = V.x;
        r_u_1_1 = V.y;
        r_u_1_2 = V.z;
        r_u_1_3 = V.w;
        r_u_1_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_u_1_4 = f_u[rr + ox12];
    }
    {
        const int rr = (zs + -1) * s0;
        const float4 V = *(const float4 *)(f_v + rr + xc);
        r_v_m1_0 = V.x;
        r_v_m1_1 = V.y;
        r_v_m1_2 = V.z;
        r_v_m1_3 = V.w;
    }
    {
        const int rr = (zs + 0) * s0;
        const float4 V = *(const float4 *)(f_v + rr + xc);
        r_v_0_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_v_0_m1 = f_v[rr + ox7];
        r_v_0_0 = V.x;
        r_v_0_1 = V.y;
        r_v_0_2 = V.z;
        r_v_0_3 = V.w;
        r_v_0_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_v_0_4 = f_v[rr + ox12];
    }
    {
        const int rr = (zs + 1) * s0;
        const float4 V = *(const float4 *)(f_v + rr + xc);
        r_v_1_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_v_1_m1 = f_v[rr + ox7];
        r_v_1_0 = V.x;
        r_v_1_1 = V.y;
        r_v_1_2 = V.z;
        r_v_1_3 = V.w;
        r_v_1_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_v_1_4 = f_v[rr + ox12];
    }
#pragma unroll 1
    for (int i = zs; i < zl; i++) {
        float4 N_0 = {};
        float E_0_7 = 0;
        float E_0_12 = 0;
        float4 N_2 = {};
        float E_2_7 = 0;
        float E_2_12 = 0;
        if (i + 1 < zl) {
            {
                const int rr = (i + 1 + 1) * s0;
                N_0 = *(const float4 *)(f_u + rr + xc);
                if (lane < 1) E_0_7 = f_u[rr + ox7];
                if (lane >= KGT_WARP - 1) E_0_12 = f_u[rr + ox12];
            }
            {
                const int rr = (i + 1 + 1) * s0;
                N_2 = *(const float4 *)(f_v + rr + xc);
                if (lane < 1) E_2_7 = f_v[rr + ox7];
                if (lane >= KGT_WARP - 1) E_2_12 = f_v[rr + ox12];
            }
        }
        float o0_0;
        float o0_1;
        float o0_2;
        float o0_3;
        float o1_0;
        float o1_1;
        float o1_2;
        float o1_3;
        { /* cell 0 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 0;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_0, r_v_0_0), r_v_0_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_0, r_u_1_0), r_u_0_m1), r_u_0_1), kgt_mul(0x1p+2f, r_u_0_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_0, r_v_1_0), r_v_0_m1), r_v_0_1), kgt_mul(0x1p+2f, r_v_0_0));
            (void)l_lv;
            o0_0 = kgt_add(r_u_0_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_0)))));
            o1_0 = kgt_add(r_v_0_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_0))));
        }
        { /* cell 1 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_1, r_v_0_1), r_v_0_1);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_1, r_u_1_1), r_u_0_0), r_u_0_2), kgt_mul(0x1p+2f, r_u_0_1));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_1, r_v_1_1), r_v_0_0), r_v_0_2), kgt_mul(0x1p+2f, r_v_0_1));
            (void)l_lv;
            o0_1 = kgt_add(r_u_0_1, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_1)))));
            o1_1 = kgt_add(r_v_0_1, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_1))));
        }
        { /* cell 2 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 2;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_2, r_v_0_2), r_v_0_2);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_2, r_u_1_2), r_u_0_1), r_u_0_3), kgt_mul(0x1p+2f, r_u_0_2));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_2, r_v_1_2), r_v_0_1), r_v_0_3), kgt_mul(0x1p+2f, r_v_0_2));
            (void)l_lv;
            o0_2 = kgt_add(r_u_0_2, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_2)))));
            o1_2 = kgt_add(r_v_0_2, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_2))));
        }
        { /* cell 3 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 3;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_3, r_v_0_3), r_v_0_3);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_3, r_u_1_3), r_u_0_2), r_u_0_4), kgt_mul(0x1p+2f, r_u_0_3));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_3, r_v_1_3), r_v_0_2), r_v_0_4), kgt_mul(0x1p+2f, r_v_0_3));
            (void)l_lv;
            o0_3 = kgt_add(r_u_0_3, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_3)))));
            o1_3 = kgt_add(r_v_0_3, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_3))));
        }
        if (!e_0 && i >= (int)a.lo[0][0] && i < (int)a.hi[0][0]) {
            float *const op = o_u + i * s0 + x;
            float *const oq = o_v + i * s0 + x;
            if (ok_0) {
                *(float4 *)op = make_float4(o0_0, o0_1, o0_2, o0_3);
                *(float4 *)oq = make_float4(o1_0, o1_1, o1_2, o1_3);
            } else {
                if (x + 0 >= (int)a.lo[0][1] && x + 0 < (int)a.hi[0][1]) op[0] = o0_0, oq[0] = o1_0;
                if (x + 1 >= (int)a.lo[0][1] && x + 1 < (int)a.hi[0][1]) op[1] = o0_1, oq[1] = o1_1;
                if (x + 2 >= (int)a.lo[0][1] && x + 2 < (int)a.hi[0][1]) op[2] = o0_2, oq[2] = o1_2;
                if (x + 3 >= (int)a.lo[0][1] && x + 3 < (int)a.hi[0][1]) op[3] = o0_3, oq[3] = o1_3;
            }
        }
        r_u_m1_0 = r_u_0_0;
        r_u_m1_1 = r_u_0_1;
        r_u_m1_2 = r_u_0_2;
        r_u_m1_3 = r_u_0_3;
        r_u_0_m1 = r_u_1_m1;
        r_u_0_0 = r_u_1_0;
        r_u_0_1 = r_u_1_1;
        r_u_0_2 = r_u_1_2;
        r_u_0_3 = r_u_1_3;
        r_u_0_4 = r_u_1_4;
        r_v_m1_0 = r_v_0_0;
        r_v_m1_1 = r_v_0_1;
        r_v_m1_2 = r_v_0_2;
        r_v_m1_3 = r_v_0_3;
        r_v_0_m1 = r_v_1_m1;
        r_v_0_0 = r_v_1_0;
        r_v_0_1 = r_v_1_1;
        r_v_0_2 = r_v_1_2;
        r_v_0_3 = r_v_1_3;
        r_v_0_4 = r_v_1_4;
        if (i + 1 < zl) {
            {
                const float4 V = N_0;
                r_u_1_m1 = KGT_SHFL(V.w, lane - 1);
                if (lane < 1) r_u_1_m1 = E_0_7;
                r_u_1_0 = V.x;
                r_u_1_1 = V.y;
                r_u_1_2 = V.z;
                r_u_1_3 = V.w;
                r_u_1_4 = KGT_SHFL(V.x, lane + 1);
                if (lane >= KGT_WARP - 1) r_u_1_4 = E_0_12;
            }
            {
                const float4 V = N_2;
                r_v_1_m1 = KGT_SHFL(V.w, lane - 1);
                if (lane < 1) r_v_1_m1 = E_2_7;
                r_v_1_0 = V.x;
                r_v_1_1 = V.y;
                r_v_1_2 = V.z;
                r_v_1_3 = V.w;
                r_v_1_4 = KGT_SHFL(V.x, lane + 1);
                if (lane >= KGT_WARP - 1) r_v_1_4 = E_2_12;
            }
        }
    }
}

/* vector rows: 256 threads of one float4 each, walking 4 rows */
extern "C" __global__ void __launch_bounds__(256) lb_vf(const kgt_prog_args_f a, long u0, long u1, long u2)
{
    const long t = a.t;
    (void)t;
    const int lane = (int)(threadIdx.x % KGT_WARP);
    const int x = (int)u1 + ((int)blockIdx.x * 256 + (int)threadIdx.x) * 4;
    const int zs = (int)u0 + (int)blockIdx.y * 4;
    const int zl = zs + 4 < (int)u2 ? zs + 4 : (int)u2;
    const int s0 = (int)a.stride[0][0];
    const float p_Du = a.par[0]; (void)p_Du;
    const float p_Dv = a.par[1]; (void)p_Dv;
    const float p_F = a.par[2]; (void)p_F;
    const float p_kk = a.par[3]; (void)p_kk;
    const float p_dt = a.par[4]; (void)p_dt;
    const float *const f_u = a.in[0]; (void)f_u;
    const int s_u_0 = (int)a.stride[0][0]; (void)s_u_0;
    const float *const f_v = a.in[1]; (void)f_v;
    const int s_v_0 = (int)a.stride[0][0]; (void)s_v_0;
    int xe = 0;
    const bool e_0 = a.lo[0][0] >= a.hi[0][0] || a.lo[0][1] >= a.hi[0][1];
    if (!e_0 && (int)a.hi[0][1] > xe) xe = (int)a.hi[0][1];
    const bool ok_0 = x >= (int)a.lo[0][1] && x + 4 <= (int)a.hi[0][1];
    float *__restrict__ const o_u = a.out[0];
    const bool e_1 = a.lo[1][0] >= a.hi[1][0] || a.lo[1][1] >= a.hi[1][1];
    if (!e_1 && (int)a.hi[1][1] > xe) xe = (int)a.hi[1][1];
    const bool ok_1 = x >= (int)a.lo[1][1] && x + 4 <= (int)a.hi[1][1];
    float *__restrict__ const o_v = a.out[1];
    if (zs >= zl || x - lane * 4 >= xe) return;
    const int xc = x < s0 - 4 ? x : s0 - 4;
    const int ox7 = xc + -1 < 0 ? 0 : xc + -1 > s0 - 1 ? s0 - 1 : xc + -1;
    const int ox12 = xc + 4 < 0 ? 0 : xc + 4 > s0 - 1 ? s0 - 1 : xc + 4;
    float r_u_m1_0;
    float r_u_m1_1;
    float r_u_m1_2;
    float r_u_m1_3;
    float r_u_0_m1;
    float r_u_0_0;
    float r_u_0_1;
    float r_u_0_2;
    float r_u_0_3;
    float r_u_0_4;
    float r_u_1_m1;
    float r_u_1_0;
    float r_u_1_1;
    float r_u_1_2;
    float r_u_1_3;
    float r_u_1_4;
    float r_v_m1_0;
    float r_v_m1_1;
    float r_v_m1_2;
    float r_v_m1_3;
    float r_v_0_m1;
    float r_v_0_0;
    float r_v_0_1;
    float r_v_0_2;
    float r_v_0_3;
    float r_v_0_4;
    float r_v_1_m1;
    float r_v_1_0;
    float r_v_1_1;
    float r_v_1_2;
    float r_v_1_3;
    float r_v_1_4;
    {
        const int rr = (zs + -1) * s0;
        const float4 V = *(const float4 *)(f_u + rr + xc);
        r_u_m1_0 = V.x;
        r_u_m1_1 = V.y;
        r_u_m1_2 = V.z;
        r_u_m1_3 = V.w;
    }
    {
        const int rr = (zs + 0) * s0;
        const float4 V = *(const float4 *)(f_u + rr + xc);
        r_u_0_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_u_0_m1 = f_u[rr + ox7];
        r_u_0_0 = V.x;
        r_u_0_1 = V.y;
        r_u_0_2 = V.z;
        r_u_0_3 = V.w;
        r_u_0_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_u_0_4 = f_u[rr + ox12];
    }
    {
        const int rr = (zs + 1) * s0;
        const float4 V = *(const float4 *)(f_u + rr + xc);
        r_u_1_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_u_1_m1 = f_u[rr + ox7];
        r_u_1_0 = V.x;
        r_u_1_1 = V.y;
        r_u_1_2 = V.z;
        r_u_1_3 = V.w;
        r_u_1_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_u_1_4 = f_u[rr + ox12];
    }
    {
        const int rr = (zs + -1) * s0;
        const float4 V = *(const float4 *)(f_v + rr + xc);
        r_v_m1_0 = V.x;
        r_v_m1_1 = V.y;
        r_v_m1_2 = V.z;
        r_v_m1_3 = V.w;
    }
    {
        const int rr = (zs + 0) * s0;
        const float4 V = *(const float4 *)(f_v + rr + xc);
        r_v_0_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_v_0_m1 = f_v[rr + ox7];
        r_v_0_0 = V.x;
        r_v_0_1 = V.y;
        r_v_0_2 = V.z;
        r_v_0_3 = V.w;
        r_v_0_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_v_0_4 = f_v[rr + ox12];
    }
    {
        const int rr = (zs + 1) * s0;
        const float4 V = *(const float4 *)(f_v + rr + xc);
        r_v_1_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_v_1_m1 = f_v[rr + ox7];
        r_v_1_0 = V.x;
        r_v_1_1 = V.y;
        r_v_1_2 = V.z;
        r_v_1_3 = V.w;
        r_v_1_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_v_1_4 = f_v[rr + ox12];
    }
#pragma unroll 1
    for (int i = zs; i < zl; i++) {
        float4 N_0 = {};
        float E_0_7 = 0;
        float E_0_12 = 0;
        float4 N_2 = {};
        float E_2_7 = 0;
        float E_2_12 = 0;
        if (i + 1 < zl) {
            {
                const int rr = (i + 1 + 1) * s0;
                N_0 = *(const float4 *)(f_u + rr + xc);
                if (lane < 1) E_0_7 = f_u[rr + ox7];
                if (lane >= KGT_WARP - 1) E_0_12 = f_u[rr + ox12];
            }
            {
                const int rr = (i + 1 + 1) * s0;
                N_2 = *(const float4 *)(f_v + rr + xc);
                if (lane < 1) E_2_7 = f_v[rr + ox7];
                if (lane >= KGT_WARP - 1) E_2_12 = f_v[rr + ox12];
            }
        }
        float o0_0;
        float o0_1;
        float o0_2;
        float o0_3;
        float o1_0;
        float o1_1;
        float o1_2;
        float o1_3;
        { /* cell 0 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 0;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_0, r_v_0_0), r_v_0_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_0, r_u_1_0), r_u_0_m1), r_u_0_1), kgt_mul(0x1p+2f, r_u_0_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_0, r_v_1_0), r_v_0_m1), r_v_0_1), kgt_mul(0x1p+2f, r_v_0_0));
            (void)l_lv;
            o0_0 = kgt_add(r_u_0_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_0)))));
            o1_0 = kgt_add(r_v_0_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_0))));
        }
        { /* cell 1 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_1, r_v_0_1), r_v_0_1);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_1, r_u_1_1), r_u_0_0), r_u_0_2), kgt_mul(0x1p+2f, r_u_0_1));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_1, r_v_1_1), r_v_0_0), r_v_0_2), kgt_mul(0x1p+2f, r_v_0_1));
            (void)l_lv;
            o0_1 = kgt_add(r_u_0_1, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_1)))));
            o1_1 = kgt_add(r_v_0_1, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_1))));
        }
        { /* cell 2 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 2;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_2, r_v_0_2), r_v_0_2);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_2, r_u_1_2), r_u_0_1), r_u_0_3), kgt_mul(0x1p+2f, r_u_0_2));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_2, r_v_1_2), r_v_0_1), r_v_0_3), kgt_mul(0x1p+2f, r_v_0_2));
            (void)l_lv;
            o0_2 = kgt_add(r_u_0_2, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_2)))));
            o1_2 = kgt_add(r_v_0_2, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_2))));
        }
        { /* cell 3 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 3;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_3, r_v_0_3), r_v_0_3);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_3, r_u_1_3), r_u_0_2), r_u_0_4), kgt_mul(0x1p+2f, r_u_0_3));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_3, r_v_1_3), r_v_0_2), r_v_0_4), kgt_mul(0x1p+2f, r_v_0_3));
            (void)l_lv;
            o0_3 = kgt_add(r_u_0_3, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_3)))));
            o1_3 = kgt_add(r_v_0_3, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_3))));
        }
        if (!e_0 && i >= (int)a.lo[0][0] && i < (int)a.hi[0][0]) {
            float *const op = o_u + i * s0 + x;
            if (ok_0)
                *(float4 *)op = make_float4(o0_0, o0_1, o0_2, o0_3);
            else {
                if (x + 0 >= (int)a.lo[0][1] && x + 0 < (int)a.hi[0][1]) op[0] = o0_0;
                if (x + 1 >= (int)a.lo[0][1] && x + 1 < (int)a.hi[0][1]) op[1] = o0_1;
                if (x + 2 >= (int)a.lo[0][1] && x + 2 < (int)a.hi[0][1]) op[2] = o0_2;
                if (x + 3 >= (int)a.lo[0][1] && x + 3 < (int)a.hi[0][1]) op[3] = o0_3;
            }
        }
        if (!e_1 && i >= (int)a.lo[1][0] && i < (int)a.hi[1][0]) {
            float *const op = o_v + i * s0 + x;
            if (ok_1)
                *(float4 *)op = make_float4(o1_0, o1_1, o1_2, o1_3);
            else {
                if (x + 0 >= (int)a.lo[1][1] && x + 0 < (int)a.hi[1][1]) op[0] = o1_0;
                if (x + 1 >= (int)a.lo[1][1] && x + 1 < (int)a.hi[1][1]) op[1] = o1_1;
                if (x + 2 >= (int)a.lo[1][1] && x + 2 < (int)a.hi[1][1]) op[2] = o1_2;
                if (x + 3 >= (int)a.lo[1][1] && x + 3 < (int)a.hi[1][1]) op[3] = o1_3;
            }
        }
        r_u_m1_0 = r_u_0_0;
        r_u_m1_1 = r_u_0_1;
        r_u_m1_2 = r_u_0_2;
        r_u_m1_3 = r_u_0_3;
        r_u_0_m1 = r_u_1_m1;
        r_u_0_0 = r_u_1_0;
        r_u_0_1 = r_u_1_1;
        r_u_0_2 = r_u_1_2;
        r_u_0_3 = r_u_1_3;
        r_u_0_4 = r_u_1_4;
        r_v_m1_0 = r_v_0_0;
        r_v_m1_1 = r_v_0_1;
        r_v_m1_2 = r_v_0_2;
        r_v_m1_3 = r_v_0_3;
        r_v_0_m1 = r_v_1_m1;
        r_v_0_0 = r_v_1_0;
        r_v_0_1 = r_v_1_1;
        r_v_0_2 = r_v_1_2;
        r_v_0_3 = r_v_1_3;
        r_v_0_4 = r_v_1_4;
        if (i + 1 < zl) {
            {
                const float4 V = N_0;
                r_u_1_m1 = KGT_SHFL(V.w, lane - 1);
                if (lane < 1) r_u_1_m1 = E_0_7;
                r_u_1_0 = V.x;
                r_u_1_1 = V.y;
                r_u_1_2 = V.z;
                r_u_1_3 = V.w;
                r_u_1_4 = KGT_SHFL(V.x, lane + 1);
                if (lane >= KGT_WARP - 1) r_u_1_4 = E_0_12;
            }
            {
                const float4 V = N_2;
                r_v_1_m1 = KGT_SHFL(V.w, lane - 1);
                if (lane < 1) r_v_1_m1 = E_2_7;
                r_v_1_0 = V.x;
                r_v_1_1 = V.y;
                r_v_1_2 = V.z;
                r_v_1_3 = V.w;
                r_v_1_4 = KGT_SHFL(V.x, lane + 1);
                if (lane >= KGT_WARP - 1) r_v_1_4 = E_2_12;
            }
        }
    }
}

/* vector rows: 256 threads of one float4 each, walking 4 rows */
extern "C" __global__ void __launch_bounds__(256) onelb_vf(const kgt_prog_args_f a, long u0, long u1, long u2)
{
    const long t = a.t;
    (void)t;
    const int lane = (int)(threadIdx.x % KGT_WARP);
    const int x = (int)u1 + ((int)blockIdx.x * 256 + (int)threadIdx.x) * 4;
    const int zs = (int)u0 + (int)blockIdx.y * 4;
    const int zl = zs + 4 < (int)u2 ? zs + 4 : (int)u2;
    const int s0 = (int)a.stride[0][0];
    const float p_Du = a.par[0]; (void)p_Du;
    const float p_Dv = a.par[1]; (void)p_Dv;
    const float p_F = a.par[2]; (void)p_F;
    const float p_kk = a.par[3]; (void)p_kk;
    const float p_dt = a.par[4]; (void)p_dt;
    const float *const f_u = a.in[0]; (void)f_u;
    const int s_u_0 = (int)a.stride[0][0]; (void)s_u_0;
    const float *const f_v = a.in[1]; (void)f_v;
    const int s_v_0 = (int)a.stride[0][0]; (void)s_v_0;
    int xe = 0;
    const bool e_0 = a.lo[0][0] >= a.hi[0][0] || a.lo[0][1] >= a.hi[0][1];
    if (!e_0 && (int)a.hi[0][1] > xe) xe = (int)a.hi[0][1];
    const bool ok_0 = x >= (int)a.lo[0][1] && x + 4 <= (int)a.hi[0][1];
    float *__restrict__ const o_u = a.out[0];
    const bool e_1 = a.lo[1][0] >= a.hi[1][0] || a.lo[1][1] >= a.hi[1][1];
    if (!e_1 && (int)a.hi[1][1] > xe) xe = (int)a.hi[1][1];
    const bool ok_1 = x >= (int)a.lo[1][1] && x + 4 <= (int)a.hi[1][1];
    float *__restrict__ const o_v = a.out[1];
    if (zs >= zl || x - lane * 4 >= xe) return;
    const int xc = x < s0 - 4 ? x : s0 - 4;
    const int ox7 = xc + -1 < 0 ? 0 : xc + -1 > s0 - 1 ? s0 - 1 : xc + -1;
    const int ox12 = xc + 4 < 0 ? 0 : xc + 4 > s0 - 1 ? s0 - 1 : xc + 4;
    float r_u_m1_0;
    float r_u_m1_1;
    float r_u_m1_2;
    float r_u_m1_3;
    float r_u_0_m1;
    float r_u_0_0;
    float r_u_0_1;
    float r_u_0_2;
    float r_u_0_3;
    float r_u_0_4;
    float r_u_1_m1;
    float r_u_1_0;
    float r_u_1_1;
    float r_u_1_2;
    float r_u_1_3;
    float r_u_1_4;
    float r_v_m1_0;
    float r_v_m1_1;
    float r_v_m1_2;
    float r_v_m1_3;
    float r_v_0_m1;
    float r_v_0_0;
    float r_v_0_1;
    float r_v_0_2;
    float r_v_0_3;
    float r_v_0_4;
    float r_v_1_m1;
    float r_v_1_0;
    float r_v_1_1;
    float r_v_1_2;
    float r_v_1_3;
    float r_v_1_4;
    {
        const int rr = (zs + -1) * s0;
        const float4 V = *(const float4 *)(f_u + rr + xc);
        r_u_m1_0 = V.x;
        r_u_m1_1 = V.y;
        r_u_m1_2 = V.z;
        r_u_m1_3 = V.w;
    }
    {
        const int rr = (zs + 0) * s0;
        const float4 V = *(const float4 *)(f_u + rr + xc);
        r_u_0_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_u_0_m1 = f_u[rr + ox7];
        r_u_0_0 = V.x;
        r_u_0_1 = V.y;
        r_u_0_2 = V.z;
        r_u_0_3 = V.w;
        r_u_0_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_u_0_4 = f_u[rr + ox12];
    }
    {
        const int rr = (zs + 1) * s0;
        const float4 V = *(const float4 *)(f_u + rr + xc);
        r_u_1_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_u_1_m1 = f_u[rr + ox7];
        r_u_1_0 = V.x;
        r_u_1_1 = V.y;
        r_u_1_2 = V.z;
        r_u_1_3 = V.w;
        r_u_1_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_u_1_4 = f_u[rr + ox12];
    }
    {
        const int rr = (zs + -1) * s0;
        const float4 V = *(const float4 *)(f_v + rr + xc);
        r_v_m1_0 = V.x;
        r_v_m1_1 = V.y;
        r_v_m1_2 = V.z;
        r_v_m1_3 = V.w;
    }
    {
        const int rr = (zs + 0) * s0;
        const float4 V = *(const float4 *)(f_v + rr + xc);
        r_v_0_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_v_0_m1 = f_v[rr + ox7];
        r_v_0_0 = V.x;
        r_v_0_1 = V.y;
        r_v_0_2 = V.z;
        r_v_0_3 = V.w;
        r_v_0_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_v_0_4 = f_v[rr + ox12];
    }
    {
        const int rr = (zs + 1) * s0;
        const float4 V = *(const float4 *)(f_v + rr + xc);
        r_v_1_m1 = KGT_SHFL(V.w, lane - 1);
        if (lane < 1) r_v_1_m1 = f_v[rr + ox7];
        r_v_1_0 = V.x;
        r_v_1_1 = V.y;
        r_v_1_2 = V.z;
        r_v_1_3 = V.w;
        r_v_1_4 = KGT_SHFL(V.x, lane + 1);
        if (lane >= KGT_WARP - 1) r_v_1_4 = f_v[rr + ox12];
    }
#pragma unroll 1
    for (int i = zs; i < zl; i++) {
        float4 N_0 = {};
        float E_0_7 = 0;
        float E_0_12 = 0;
        float4 N_2 = {};
        float E_2_7 = 0;
        float E_2_12 = 0;
        if (i + 1 < zl) {
            {
                const int rr = (i + 1 + 1) * s0;
                N_0 = *(const float4 *)(f_u + rr + xc);
                if (lane < 1) E_0_7 = f_u[rr + ox7];
                if (lane >= KGT_WARP - 1) E_0_12 = f_u[rr + ox12];
            }
            {
                const int rr = (i + 1 + 1) * s0;
                N_2 = *(const float4 *)(f_v + rr + xc);
                if (lane < 1) E_2_7 = f_v[rr + ox7];
                if (lane >= KGT_WARP - 1) E_2_12 = f_v[rr + ox12];
            }
        }
        float o0_0;
        float o0_1;
        float o0_2;
        float o0_3;
        float o1_0;
        float o1_1;
        float o1_2;
        float o1_3;
        { /* cell 0 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 0;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_0, r_v_0_0), r_v_0_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_0, r_u_1_0), r_u_0_m1), r_u_0_1), kgt_mul(0x1p+2f, r_u_0_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_0, r_v_1_0), r_v_0_m1), r_v_0_1), kgt_mul(0x1p+2f, r_v_0_0));
            (void)l_lv;
            o0_0 = kgt_add(r_u_0_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_0)))));
            o1_0 = kgt_add(r_v_0_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_0))));
        }
        { /* cell 1 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_1, r_v_0_1), r_v_0_1);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_1, r_u_1_1), r_u_0_0), r_u_0_2), kgt_mul(0x1p+2f, r_u_0_1));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_1, r_v_1_1), r_v_0_0), r_v_0_2), kgt_mul(0x1p+2f, r_v_0_1));
            (void)l_lv;
            o0_1 = kgt_add(r_u_0_1, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_1)))));
            o1_1 = kgt_add(r_v_0_1, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_1))));
        }
        { /* cell 2 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 2;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_2, r_v_0_2), r_v_0_2);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_2, r_u_1_2), r_u_0_1), r_u_0_3), kgt_mul(0x1p+2f, r_u_0_2));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_2, r_v_1_2), r_v_0_1), r_v_0_3), kgt_mul(0x1p+2f, r_v_0_2));
            (void)l_lv;
            o0_2 = kgt_add(r_u_0_2, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_2)))));
            o1_2 = kgt_add(r_v_0_2, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_2))));
        }
        { /* cell 3 */
            const int x0 = i;
            (void)x0;
            const int x1 = x + 3;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_3, r_v_0_3), r_v_0_3);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_3, r_u_1_3), r_u_0_2), r_u_0_4), kgt_mul(0x1p+2f, r_u_0_3));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_3, r_v_1_3), r_v_0_2), r_v_0_4), kgt_mul(0x1p+2f, r_v_0_3));
            (void)l_lv;
            o0_3 = kgt_add(r_u_0_3, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_3)))));
            o1_3 = kgt_add(r_v_0_3, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_3))));
        }
        if (!e_0 && i >= (int)a.lo[0][0] && i < (int)a.hi[0][0]) {
            float *const op = o_u + i * s0 + x;
            float *const oq = o_v + i * s0 + x;
            if (ok_0) {
                *(float4 *)op = make_float4(o0_0, o0_1, o0_2, o0_3);
                *(float4 *)oq = make_float4(o1_0, o1_1, o1_2, o1_3);
            } else {
                if (x + 0 >= (int)a.lo[0][1] && x + 0 < (int)a.hi[0][1]) op[0] = o0_0, oq[0] = o1_0;
                if (x + 1 >= (int)a.lo[0][1] && x + 1 < (int)a.hi[0][1]) op[1] = o0_1, oq[1] = o1_1;
                if (x + 2 >= (int)a.lo[0][1] && x + 2 < (int)a.hi[0][1]) op[2] = o0_2, oq[2] = o1_2;
                if (x + 3 >= (int)a.lo[0][1] && x + 3 < (int)a.hi[0][1]) op[3] = o0_3, oq[3] = o1_3;
            }
        }
        r_u_m1_0 = r_u_0_0;
        r_u_m1_1 = r_u_0_1;
        r_u_m1_2 = r_u_0_2;
        r_u_m1_3 = r_u_0_3;
        r_u_0_m1 = r_u_1_m1;
        r_u_0_0 = r_u_1_0;
        r_u_0_1 = r_u_1_1;
        r_u_0_2 = r_u_1_2;
        r_u_0_3 = r_u_1_3;
        r_u_0_4 = r_u_1_4;
        r_v_m1_0 = r_v_0_0;
        r_v_m1_1 = r_v_0_1;
        r_v_m1_2 = r_v_0_2;
        r_v_m1_3 = r_v_0_3;
        r_v_0_m1 = r_v_1_m1;
        r_v_0_0 = r_v_1_0;
        r_v_0_1 = r_v_1_1;
        r_v_0_2 = r_v_1_2;
        r_v_0_3 = r_v_1_3;
        r_v_0_4 = r_v_1_4;
        if (i + 1 < zl) {
            {
                const float4 V = N_0;
                r_u_1_m1 = KGT_SHFL(V.w, lane - 1);
                if (lane < 1) r_u_1_m1 = E_0_7;
                r_u_1_0 = V.x;
                r_u_1_1 = V.y;
                r_u_1_2 = V.z;
                r_u_1_3 = V.w;
                r_u_1_4 = KGT_SHFL(V.x, lane + 1);
                if (lane >= KGT_WARP - 1) r_u_1_4 = E_0_12;
            }
            {
                const float4 V = N_2;
                r_v_1_m1 = KGT_SHFL(V.w, lane - 1);
                if (lane < 1) r_v_1_m1 = E_2_7;
                r_v_1_0 = V.x;
                r_v_1_1 = V.y;
                r_v_1_2 = V.z;
                r_v_1_3 = V.w;
                r_v_1_4 = KGT_SHFL(V.x, lane + 1);
                if (lane >= KGT_WARP - 1) r_v_1_4 = E_2_12;
            }
        }
    }
}

