/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* launch-probe: what one kernel launch costs on an OpenCL device, timed three
 * ways, so that kernel-only figures can be read against it.
 *
 *   waited   each launch waited for: profiling event END - START (what
 *            clbench --kernel-time sums, one kernel at a time)
 *   stream   N launches enqueued back to back, waited for once: per launch
 *            END - START, and the span from the first START to the last END
 *            divided by N (the device's time per launch when its queue is
 *            never empty, as in a chain of elements)
 *   wall     the same N launches on a queue without profiling, host clock
 *            around enqueue ... clFinish, divided by N
 *
 * Kernels: an empty one (one work-group of 32), and one that reads a buffer
 * with one 16-byte load per work-item (work-groups of 256) at 1080p and 4K
 * RGBA and GRAY8 sizes; and clEnqueueCopyBuffer of the same sizes. Last, a
 * round trip: one blocking 4 KiB clEnqueueReadBuffer, host clock (wall
 * column): handing a command to the driver and waking up when it is done,
 * what every frame pays once at least where its wait is slept.
 *
 *   launch-probe [--device gpu|cpu] [-n N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

static const char *source =
    "__kernel void empty (void) { }\n"
    "__kernel void read16 (__global const uint4 *src, uint n, __global uint *sink)\n"
    "{\n"
    "  size_t i = get_global_id (0);\n"
    "  if (i >= n) return;\n"
    "  uint4 v = src[i];\n"
    "  /* never true for the zeroed buffer: keeps the load */\n"
    "  if (v.x + v.y + v.z + v.w == 0xdeadbeefu) sink[0] = (uint) i;\n"
    "}\n";

#define CHECK(call) do { cl_int e_ = (call); if (e_ != CL_SUCCESS) { \
      fprintf (stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #call, e_); \
      exit (1); } } while (0)

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return v[n / 2];
}

static double
now_us (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static double
event_us (cl_event e, cl_profiling_info from, cl_profiling_info to)
{
  cl_ulong a, b;
  CHECK (clGetEventProfilingInfo (e, from, sizeof a, &a, NULL));
  CHECK (clGetEventProfilingInfo (e, to, sizeof b, &b, NULL));
  return (double) (b - a) / 1e3;
}

typedef struct
{
  cl_command_queue prof, plain;
  cl_kernel kernel;             /* NULL: a buffer copy */
  cl_mem src, dst;
  size_t bytes, global, local;
} Launch;

static void
enqueue (const Launch * l, cl_command_queue q, cl_event * ev)
{
  if (l->kernel)
    CHECK (clEnqueueNDRangeKernel (q, l->kernel, 1, NULL, &l->global, &l->local,
            0, NULL, ev));
  else
    CHECK (clEnqueueCopyBuffer (q, l->src, l->dst, 0, 0, l->bytes, 0, NULL,
            ev));
}

static void
probe (const char *name, const Launch * l, int n)
{
  double *waited = calloc (n, sizeof (double));
  double *each = calloc (n, sizeof (double));
  double *step = calloc (n, sizeof (double));
  cl_event *ev = calloc (n, sizeof (cl_event));
  double span, t0, wall;
  cl_ulong first, last;
  int i;

  for (i = 0; i < 3; i++) {     /* first launches compile and page in */
    enqueue (l, l->prof, NULL);
    enqueue (l, l->plain, NULL);
  }
  CHECK (clFinish (l->prof));
  CHECK (clFinish (l->plain));

  for (i = 0; i < n; i++) {
    cl_event e;
    enqueue (l, l->prof, &e);
    CHECK (clWaitForEvents (1, &e));
    waited[i] = event_us (e, CL_PROFILING_COMMAND_START,
        CL_PROFILING_COMMAND_END);
    clReleaseEvent (e);
  }

  for (i = 0; i < n; i++)
    enqueue (l, l->prof, &ev[i]);
  CHECK (clFinish (l->prof));
  for (i = 0; i < n; i++) {
    each[i] = event_us (ev[i], CL_PROFILING_COMMAND_START,
        CL_PROFILING_COMMAND_END);
    if (i > 0) {
      cl_ulong a, b;
      CHECK (clGetEventProfilingInfo (ev[i - 1], CL_PROFILING_COMMAND_START,
              sizeof a, &a, NULL));
      CHECK (clGetEventProfilingInfo (ev[i], CL_PROFILING_COMMAND_START,
              sizeof b, &b, NULL));
      step[i - 1] = (double) (b - a) / 1e3;
    }
  }
  CHECK (clGetEventProfilingInfo (ev[0], CL_PROFILING_COMMAND_START,
          sizeof first, &first, NULL));
  CHECK (clGetEventProfilingInfo (ev[n - 1], CL_PROFILING_COMMAND_END,
          sizeof last, &last, NULL));
  span = (double) (last - first) / 1e3 / n;
  for (i = 0; i < n; i++)
    clReleaseEvent (ev[i]);

  t0 = now_us ();
  for (i = 0; i < n; i++)
    enqueue (l, l->plain, NULL);
  CHECK (clFinish (l->plain));
  wall = (now_us () - t0) / n;

  printf ("%-26s %10zu %9.2f %9.2f %9.2f %9.2f %9.2f\n", name, l->bytes,
      median (waited, n), median (each, n), median (step, n - 1), span, wall);
  free (waited);
  free (each);
  free (step);
  free (ev);
}

/* one blocking 4 KiB read at a time, host clock, median of @n */
static void
round_trip (cl_context ctx, cl_command_queue q, int n)
{
  static char host[4096];
  double *t = calloc (n, sizeof (double));
  cl_int err;
  cl_mem buf = clCreateBuffer (ctx, CL_MEM_READ_WRITE, sizeof host, NULL,
      &err);
  int i;

  CHECK (err);
  for (i = -3; i < n; i++) {    /* the first ones page in */
    double t0 = now_us ();

    CHECK (clEnqueueReadBuffer (q, buf, CL_TRUE, 0, sizeof host, host, 0,
            NULL, NULL));
    if (i >= 0)
      t[i] = now_us () - t0;
  }
  printf ("%-26s %10zu %9s %9s %9s %9s %9.2f\n", "round trip (read)",
      sizeof host, "-", "-", "-", "-", median (t, n));
  clReleaseMemObject (buf);
  free (t);
}

int
main (int argc, char **argv)
{
  cl_device_type type = CL_DEVICE_TYPE_GPU;
  cl_platform_id platforms[8];
  cl_uint n_platforms = 0, p;
  cl_device_id device = NULL;
  cl_context ctx;
  cl_program prog;
  cl_int err;
  Launch l = { 0 };
  char dev_name[256] = "", version[256] = "";
  static const struct
  {
    const char *name;
    size_t bytes;
  } sizes[] = {
    {"1080p GRAY8", 1920 * 1080}, {"1080p RGBA", 1920 * 1080 * 4},
    {"4K GRAY8", 3840 * 2160}, {"4K RGBA", 3840 * 2160 * 4},
  };
  int n = 200, i;

  for (i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--device") && i + 1 < argc)
      type = !strcmp (argv[++i], "cpu") ? CL_DEVICE_TYPE_CPU :
          CL_DEVICE_TYPE_GPU;
    else if (!strcmp (argv[i], "-n") && i + 1 < argc)
      n = atoi (argv[++i]) > 2 ? atoi (argv[i]) : 3;
    else {
      fprintf (stderr, "usage: %s [--device gpu|cpu] [-n N]\n", argv[0]);
      return 2;
    }
  }

  if (clGetPlatformIDs (8, platforms, &n_platforms) != CL_SUCCESS)
    n_platforms = 0;
  for (p = 0; p < n_platforms && !device; p++)
    if (clGetDeviceIDs (platforms[p], type, 1, &device, NULL) != CL_SUCCESS)
      device = NULL;
  if (!device) {
    fprintf (stderr, "no OpenCL device of that type\n");
    return 77;
  }
  clGetDeviceInfo (device, CL_DEVICE_NAME, sizeof dev_name, dev_name, NULL);
  clGetDeviceInfo (device, CL_DRIVER_VERSION, sizeof version, version, NULL);
  printf ("# device: %s, driver %s; %d launches per mode, medians in us\n",
      dev_name, version, n);

  ctx = clCreateContext (NULL, 1, &device, NULL, NULL, &err);
  CHECK (err);
  prog = clCreateProgramWithSource (ctx, 1, &source, NULL, &err);
  CHECK (err);
  CHECK (clBuildProgram (prog, 1, &device, "", NULL, NULL));

  l.prof = clCreateCommandQueue (ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
  CHECK (err);
  l.plain = clCreateCommandQueue (ctx, device, 0, &err);
  CHECK (err);

  printf ("%-26s %10s %9s %9s %9s %9s %9s\n", "# case", "bytes", "waited",
      "stream", "step", "span/N", "wall/N");

  l.kernel = clCreateKernel (prog, "empty", &err);
  CHECK (err);
  l.global = l.local = 32;
  probe ("empty 1x32", &l, n);
  l.global = 1056 * 256;
  l.local = 256;
  probe ("empty 1056x256", &l, n);
  clReleaseKernel (l.kernel);

  for (i = 0; i < (int) (sizeof sizes / sizeof sizes[0]); i++) {
    char name[64];
    cl_uint chunks = (cl_uint) (sizes[i].bytes / 16);
    cl_mem sink;
    const cl_uint zero = 0;

    l.bytes = sizes[i].bytes;
    l.src = clCreateBuffer (ctx, CL_MEM_READ_WRITE, l.bytes, NULL, &err);
    CHECK (err);
    l.dst = clCreateBuffer (ctx, CL_MEM_READ_WRITE, l.bytes, NULL, &err);
    CHECK (err);
    sink = clCreateBuffer (ctx, CL_MEM_READ_WRITE, 4, NULL, &err);
    CHECK (err);
    CHECK (clEnqueueFillBuffer (l.prof, l.src, &zero, 4, 0, l.bytes, 0, NULL,
            NULL));
    CHECK (clFinish (l.prof));

    l.kernel = clCreateKernel (prog, "read16", &err);
    CHECK (err);
    CHECK (clSetKernelArg (l.kernel, 0, sizeof l.src, &l.src));
    CHECK (clSetKernelArg (l.kernel, 1, sizeof chunks, &chunks));
    CHECK (clSetKernelArg (l.kernel, 2, sizeof sink, &sink));
    l.local = 256;
    l.global = (chunks + 255) / 256 * 256;
    snprintf (name, sizeof name, "read16 %s", sizes[i].name);
    probe (name, &l, n);
    clReleaseKernel (l.kernel);

    l.kernel = NULL;
    snprintf (name, sizeof name, "copy %s", sizes[i].name);
    probe (name, &l, n);

    clReleaseMemObject (sink);
    clReleaseMemObject (l.src);
    clReleaseMemObject (l.dst);
  }

  round_trip (ctx, l.plain, n);

  clReleaseCommandQueue (l.prof);
  clReleaseCommandQueue (l.plain);
  clReleaseProgram (prog);
  clReleaseContext (ctx);
  return 0;
}
