/*
  STREAM copy and triad for petscgilu's benchmark (bench/run.py): the memory bandwidth that bounds a
  triangular solve.

    build/bench/stream [-n N] [-mb MB] [-repeat R]

  Three arrays of N doubles (default: each 80 MB, or 4/3 of the last-level cache if that is larger, so
  that the three together are at least 4 times the cache). Each kernel runs R times (default 20) and
  the best time counts, as in McCalpin's STREAM. Bytes are counted the STREAM way: copy c = a moves
  2 x 8 N bytes, triad a = b + s c moves 3 x 8 N bytes (write-allocate traffic is not counted).
  The thread count is OpenMP's (OMP_NUM_THREADS). The arrays are first touched in parallel with the
  same static schedule as the kernels, so each thread's pages are local to it.

  Output, one machine-readable line (the last line):
    STREAM threads=2 n=10000000 array_mb=80.0 repeats=20 copy_GBs=12.34 triad_GBs=13.45 check=ok
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#ifdef _OPENMP
  #include <omp.h>
#endif

static double now(void)
{
#ifdef _OPENMP
  return omp_get_wtime();
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
#endif
}

/* size in bytes of the largest cache the kernel reports for cpu0 (0 when unknown) */
static long last_level_cache_bytes(void)
{
  long best = 0;
  for (int i = 0; i < 8; i++) {
    char  path[128], buf[64];
    FILE *f;
    long  v;
    char  unit = 0;

    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    if (!(f = fopen(path, "r"))) continue;
    if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%ld%c", &v, &unit) >= 1) {
      if (unit == 'K') v *= 1024L;
      else if (unit == 'M') v *= 1024L * 1024L;
      if (v > best) best = v;
    }
    fclose(f);
  }
  return best;
}

int main(int argc, char **argv)
{
  long    n = 0, repeats = 20;
  double  mb = 0, scalar = 3.0, tcopy = 1e30, ttriad = 1e30;
  double *a, *b, *c;
  int     nthreads = 1;

  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atol(argv[++i]);
    else if (!strcmp(argv[i], "-mb") && i + 1 < argc) mb = atof(argv[++i]);
    else if (!strcmp(argv[i], "-repeat") && i + 1 < argc) repeats = atol(argv[++i]);
    else {
      fprintf(stderr, "usage: %s [-n N | -mb MB per array] [-repeat R]\n", argv[0]);
      return 1;
    }
  }
  if (!n) {
    long llc = last_level_cache_bytes();
    if (mb <= 0) mb = 80.0;
    if (llc * 4.0 / 3.0 > mb * 1e6) mb = llc * 4.0 / 3.0 / 1e6;
    n = (long)(mb * 1e6 / sizeof(double));
  }
  if (repeats < 2) repeats = 2;
  a = (double *)malloc(n * sizeof(double));
  b = (double *)malloc(n * sizeof(double));
  c = (double *)malloc(n * sizeof(double));
  if (!a || !b || !c) {
    fprintf(stderr, "stream: cannot allocate 3 x %ld doubles\n", n);
    return 1;
  }
#ifdef _OPENMP
  nthreads = omp_get_max_threads();
#endif

#pragma omp parallel for schedule(static)
  for (long j = 0; j < n; j++) {
    a[j] = 1.0;
    b[j] = 2.0;
    c[j] = 0.0;
  }

  for (long r = 0; r < repeats; r++) {
    double t = now();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++) c[j] = a[j];
    t = now() - t;
    if (r > 0 && t < tcopy) tcopy = t; /* the first pass warms up */

    t = now();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++) a[j] = b[j] + scalar * c[j];
    t = now() - t;
    if (r > 0 && t < ttriad) ttriad = t;
  }

  /* a = 2 + 3 c and c = the previous a, starting from a = 1: check a few entries */
  {
    double expect_a = 1.0, expect_c = 0.0;
    int    ok = 1;
    for (long r = 0; r < repeats; r++) {
      expect_c = expect_a;
      expect_a = 2.0 + scalar * expect_c;
    }
    for (long j = 0; j < n; j += n / 7 + 1)
      if (fabs(a[j] - expect_a) > 1e-8 * fabs(expect_a) || fabs(c[j] - expect_c) > 1e-8 * fabs(expect_c)) ok = 0;
    printf("STREAM threads=%d n=%ld array_mb=%.1f repeats=%ld copy_GBs=%.3f triad_GBs=%.3f check=%s\n", nthreads, n, n * 8.0 / 1e6, repeats, 2.0 * 8.0 * n / tcopy / 1e9, 3.0 * 8.0 * n / ttriad / 1e9, ok ? "ok" : "FAILED");
    free(a);
    free(b);
    free(c);
    return ok ? 0 : 2;
  }
}
