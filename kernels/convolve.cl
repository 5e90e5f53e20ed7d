/* convolve.cl: placeholder, replaced by the clconvolve element's kernels. */
__kernel void placeholder (__global uchar * data)
{
}
