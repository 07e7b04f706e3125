/*
 * Pack / unpack of a box between a local array and a contiguous buffer. The box arrives
 * normalised by the backend: c0 elements of unit stride, c1 rows of pitch p1, c2 slices of pitch
 * p2, starting at element start. Built with -Delem_t=uint or ulong (the element's size), so no
 * floating-point support is needed to move bits. One work-item per element, 1D launch.
 */
__kernel void sb_pack(__global const elem_t *restrict arr, __global elem_t *restrict buf,
                      long start, long c0, long c1, long n, long p1, long p2)
{
    const long t = (long)get_global_id(0);
    if (t >= n)
        return;
    const long x = t % c0, y = (t / c0) % c1, z = t / (c0 * c1);
    buf[t] = arr[start + z * p2 + y * p1 + x];
}

__kernel void sb_unpack(__global elem_t *restrict arr, __global const elem_t *restrict buf,
                        long start, long c0, long c1, long n, long p1, long p2)
{
    const long t = (long)get_global_id(0);
    if (t >= n)
        return;
    const long x = t % c0, y = (t / c0) % c1, z = t / (c0 * c1);
    arr[start + z * p2 + y * p1 + x] = buf[t];
}
