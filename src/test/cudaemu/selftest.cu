/*
   Self-tests of the CUDA emulation (and, compiled by nvcc, of the same kernels on a GPU).

   Each test launches small kernels through GILU_LAUNCH, copies the results back and compares them with what
   the CUDA execution model guarantees. The broken kernels (missing barrier, deadlocks, divergent warp
   operations, waiting on a block by blockIdx, a signal without its fence, barriers at different call sites) check
   that the emulation exposes the bug; on a GPU they are not run (ok is set).
   Entry point: PetscGILUCUDASelfTest_cudaemu() (emulation), PetscGILUCUDASelfTest() (nvcc); see petscgilutest.h.
   Part of the test library: the emulated kernels run on libpetscgilu's emulation runtime (cudaemu.h).
*/
#include <petscgilu/private/gilucuda.h>
#include <petscgilutest.h>

#define NT 256

/* ------------------------------------------------------------------------------------------ block reduction */
/* out[blockIdx.x] = sum of x over the block's NT entries; a 2D block (32 x 8) numbered x fastest */
__global__ static void ReduceBarrier(const double *x, double *out)
{
  GILU_SHARED(double, s, NT);
  int t = (int)(threadIdx.x + blockDim.x * threadIdx.y), stride;

  s[t] = x[blockIdx.x * NT + t];
  __syncthreads();
  for (stride = NT / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

/* the same without the barriers: wrong on any machine that does not run the threads in lock step */
__global__ static void ReduceNoBarrier(const double *x, double *out)
{
  GILU_SHARED(double, s, NT);
  int t = (int)(threadIdx.x + blockDim.x * threadIdx.y), stride;

  s[t] = x[blockIdx.x * NT + t];
  for (stride = NT / 2; stride > 0; stride /= 2)
    if (t < stride) s[t] += s[t + stride];
  if (t == 0) out[blockIdx.x] = s[0];
}

static PetscErrorCode TestReduce(PetscBool barrier, PetscBool *ok)
{
  const int nb = 3;
  double    hx[3 * NT], hout[3], *x, *out;
  int       i, b;

  PetscFunctionBegin;
  for (i = 0; i < nb * NT; i++) hx[i] = (double)(i % 17) + 1.0;
  GILU_CUDA_CHECK(cudaMalloc(&x, sizeof(hx)));
  GILU_CUDA_CHECK(cudaMalloc(&out, sizeof(hout)));
  GILU_CUDA_CHECK(cudaMemcpy(x, hx, sizeof(hx), cudaMemcpyHostToDevice));
  if (barrier) PetscCall(GILU_LAUNCH(ReduceBarrier, nb, dim3(32, NT / 32), 0, 0, x, out));
  else { /* threads in reverse order would happen to add in the right order: the missing barrier shows in order */
#if defined(GILU_CUDAEMU)
    PetscCall(PetscOptionsSetValue(NULL, "-gilu_cudaemu_thread_order", "inorder"));
#endif
    PetscCall(GILU_LAUNCH(ReduceNoBarrier, nb, dim3(32, NT / 32), 0, 0, x, out));
#if defined(GILU_CUDAEMU)
    PetscCall(PetscOptionsClearValue(NULL, "-gilu_cudaemu_thread_order"));
#endif
  }
  GILU_CUDA_CHECK(cudaMemcpy(hout, out, sizeof(hout), cudaMemcpyDeviceToHost));
  *ok = PETSC_TRUE;
  for (b = 0; b < nb; b++) {
    double sum = 0;

    for (i = 0; i < NT; i++) sum += hx[b * NT + i];
    if (barrier && hout[b] != sum) *ok = PETSC_FALSE;
    if (!barrier && b == 0 && hout[b] == sum) *ok = PETSC_FALSE; /* the missing barrier must show */
  }
  GILU_CUDA_CHECK(cudaFree(x));
  GILU_CUDA_CHECK(cudaFree(out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ warp shuffles */
#define NSHFL 8
/* out[NSHFL * t + k]: the results of shuffle variant k in thread t (2 warps) */
__global__ static void WarpShuffles(double *out)
{
  int    lane = gilu_lane_id(), t = (int)threadIdx.x, v = lane * lane + 1, off, r;
  double w = 0.5 * lane + 100.0 * gilu_warp_id(), sum;

  out[NSHFL * t + 0] = gilu_shfl(v, (lane + 5) % 32); /* rotate */
  out[NSHFL * t + 1] = gilu_shfl(w, 3);               /* broadcast */
  out[NSHFL * t + 2] = gilu_shfl(v, 2, 8);            /* broadcast within groups of 8 */
  out[NSHFL * t + 3] = gilu_shfl_down(v, 3);          /* down; the last 3 lanes keep their value */
  out[NSHFL * t + 4] = gilu_shfl_up(w, 1, 16);        /* up within halves */
  for (sum = w, off = 16; off > 0; off /= 2) sum += gilu_shfl_xor(sum, off);
  out[NSHFL * t + 5] = sum; /* butterfly: every lane has the warp's sum */
  for (r = v, off = 16; off > 0; off /= 2) r += gilu_shfl_down(r, off);
  out[NSHFL * t + 6] = lane == 0 ? r : -1.0; /* tree: lane 0 has the sum */
  out[NSHFL * t + 7] = (double)gilu_shfl((long long)lane << 33, 31 - lane) / 8589934592.0;
}

static PetscErrorCode TestShuffles(PetscBool *ok)
{
  double h[64 * NSHFL], *d;
  int    t;

  PetscFunctionBegin;
  GILU_CUDA_CHECK(cudaMalloc(&d, sizeof(h)));
  PetscCall(GILU_LAUNCH(WarpShuffles, 1, 64, 0, 0, d));
  GILU_CUDA_CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  GILU_CUDA_CHECK(cudaFree(d));
  *ok = PETSC_TRUE;
  for (t = 0; t < 64; t++) {
    int    lane = t % 32, warp = t / 32, src, l, isum = 0;
    double w0 = 100.0 * warp, exp[NSHFL], wsum = 0;

    for (l = 0; l < 32; l++) {
      wsum += 0.5 * l + w0;
      isum += l * l + 1;
    }
    src    = (lane + 5) % 32;
    exp[0] = src * src + 1;
    exp[1] = 0.5 * 3 + w0;
    src    = (lane / 8) * 8 + 2;
    exp[2] = src * src + 1;
    src    = lane + 3 < 32 ? lane + 3 : lane;
    exp[3] = src * src + 1;
    src    = lane % 16 < 1 ? lane : lane - 1;
    exp[4] = 0.5 * src + w0;
    exp[5] = wsum;
    exp[6] = lane == 0 ? isum : -1.0;
    exp[7] = 31 - lane;
    for (l = 0; l < NSHFL; l++)
      if (h[NSHFL * t + l] != exp[l]) *ok = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ votes */
__global__ static void WarpVotes(unsigned int *out)
{
  int lane = gilu_lane_id(), t = (int)threadIdx.x;

  out[5 * t + 0] = gilu_ballot(lane % 3 == 0);
  out[5 * t + 1] = (unsigned int)gilu_any(lane == 17);
  out[5 * t + 2] = (unsigned int)gilu_all(lane < 31);
  /* mutation-survivor: checks that a __syncwarp between votes completes (each vote synchronizes the warp itself) */
  gilu_syncwarp();
  out[5 * t + 3] = (unsigned int)gilu_all(lane >= 0);
  out[5 * t + 4] = gilu_ballot(t >= 40);
}

static PetscErrorCode TestVotes(PetscBool *ok)
{
  unsigned int h[5 * 64], *d, m3 = 0;
  int          t, l;

  PetscFunctionBegin;
  for (l = 0; l < 32; l += 3) m3 |= 1u << l;
  GILU_CUDA_CHECK(cudaMalloc(&d, sizeof(h)));
  PetscCall(GILU_LAUNCH(WarpVotes, 1, 64, 0, 0, d));
  GILU_CUDA_CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  GILU_CUDA_CHECK(cudaFree(d));
  *ok = PETSC_TRUE;
  for (t = 0; t < 64; t++) {
    unsigned int exp4 = t < 32 ? 0u : 0xffffff00u;

    if (h[5 * t] != m3 || h[5 * t + 1] != 1 || h[5 * t + 2] != 0 || h[5 * t + 3] != 1 || h[5 * t + 4] != exp4) *ok = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ waiting on flags */
/* inside one block, thread t waits for thread t + 1: the chain runs against the threads' order */
__global__ static void SpinIntraBlock(int *flag, int *val)
{
  int t = (int)threadIdx.x, n = (int)blockDim.x;

  if (t < n - 1) {
    gilu_wait_until_ge((volatile int *)&flag[t + 1], 1);
    val[t] = ((volatile int *)val)[t + 1] + t;
  } else val[t] = t;
  __threadfence();
  gilu_signal_set(&flag[t], 1);
}

static PetscErrorCode TestSpinIntraBlock(PetscBool *ok)
{
  int h[NT], *flag, *val, t, exp = 0;

  PetscFunctionBegin;
  GILU_CUDA_CHECK(cudaMalloc(&flag, sizeof(h)));
  GILU_CUDA_CHECK(cudaMalloc(&val, sizeof(h)));
  GILU_CUDA_CHECK(cudaMemset(flag, 0, sizeof(h)));
  PetscCall(GILU_LAUNCH(SpinIntraBlock, 1, NT, 0, 0, flag, val));
  GILU_CUDA_CHECK(cudaMemcpy(h, val, sizeof(h), cudaMemcpyDeviceToHost));
  GILU_CUDA_CHECK(cudaFree(flag));
  GILU_CUDA_CHECK(cudaFree(val));
  *ok = PETSC_TRUE;
  for (t = NT - 1; t >= 0; t--) {
    exp += t;
    if (h[t] != exp) *ok = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the block with ticket u waits for the block with ticket u - 1, then adds 1 to its data: a chain through all blocks
   that cannot deadlock in any dispatch order (a ticket is taken by a block that runs) */
__global__ static void InterBlockChain(int *ticket, int *flag, int *data)
{
  GILU_SHARED(int, go, 1);
  int u = gilu_block_ticket(ticket), t = (int)threadIdx.x;

  if (t == 0) {
    if (u > 0) gilu_wait_until_ge(&flag[u - 1], 1);
    go[0] = u > 0;
  }
  __syncthreads();
  data[u * blockDim.x + t] = (go[0] ? ((volatile int *)data)[(u - 1) * blockDim.x + t] : t) + 1;
  __threadfence();
  __syncthreads();
  if (t == 0) gilu_signal_set(&flag[u], 1);
}

static PetscErrorCode TestInterBlock(int nb, PetscBool *ok)
{
  const int nt = 64;
  int      *h, *flag, *data, b, t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nb * nt, &h));
  GILU_CUDA_CHECK(cudaMalloc(&flag, (nb + 1) * sizeof(int)));
  GILU_CUDA_CHECK(cudaMalloc(&data, nb * nt * sizeof(int)));
  GILU_CUDA_CHECK(cudaMemset(flag, 0, (nb + 1) * sizeof(int)));
  PetscCall(GILU_LAUNCH(InterBlockChain, nb, nt, 0, 0, flag + nb, flag, data));
  GILU_CUDA_CHECK(cudaMemcpy(h, data, nb * nt * sizeof(int), cudaMemcpyDeviceToHost));
  GILU_CUDA_CHECK(cudaFree(flag));
  GILU_CUDA_CHECK(cudaFree(data));
  *ok = PETSC_TRUE;
  for (b = 0; b < nb; b++)
    for (t = 0; t < nt; t++)
      if (h[b * nt + t] != t + 1 + b) *ok = PETSC_FALSE;
  PetscCall(PetscFree(h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ MMA */
/* warp w of the block multiplies A_w (8x4, row-major at a + 32w), B_w (4x8, row-major at b + 32w) and adds C_w
   (8x8, row-major at c + 64w): D_w = A_w B_w + C_w, loaded and stored with the fragment layout */
__global__ static void MmaF64(const double *a, const double *b, const double *c, double *d)
{
  int    lane = gilu_lane_id(), w = gilu_warp_id(), row = lane >> 2, col = 2 * (lane & 3);
  double fa, fb, fc[2], fd[2];

  fa    = a[32 * w + 4 * row + (lane & 3)]; /* A[lane/4][lane%4] */
  fb    = b[32 * w + 8 * (lane & 3) + row]; /* B[lane%4][lane/4] */
  fc[0] = c[64 * w + 8 * row + col];
  fc[1] = c[64 * w + 8 * row + col + 1];
  gilu_mma_m8n8k4_f64(fd, fa, fb, fc);
  d[64 * w + 8 * row + col]     = fd[0];
  d[64 * w + 8 * row + col + 1] = fd[1];
}

static PetscErrorCode TestMma(PetscBool *ok)
{
  const int nw = 2;
  double    ha[64], hb[64], hc[128], hd[128], *a, *b, *c, *d;
  int       w, i, j, k;

  PetscFunctionBegin;
  /* small integers in warp 0 (exact), fractions in warp 1 */
  for (i = 0; i < 32; i++) {
    ha[i]      = (double)((i * 7) % 11) - 5.0;
    hb[i]      = (double)((i * 5) % 13) - 6.0;
    ha[32 + i] = 1.0 / (i + 3.0);
    hb[32 + i] = 1.0 / (2.0 * i + 1.0) - 0.25;
  }
  for (i = 0; i < 64; i++) {
    hc[i]      = (double)(i % 9) - 4.0;
    hc[64 + i] = 0.125 * i - 1.0 / 3.0;
  }
  GILU_CUDA_CHECK(cudaMalloc(&a, sizeof(ha)));
  GILU_CUDA_CHECK(cudaMalloc(&b, sizeof(hb)));
  GILU_CUDA_CHECK(cudaMalloc(&c, sizeof(hc)));
  GILU_CUDA_CHECK(cudaMalloc(&d, sizeof(hd)));
  GILU_CUDA_CHECK(cudaMemcpy(a, ha, sizeof(ha), cudaMemcpyHostToDevice));
  GILU_CUDA_CHECK(cudaMemcpy(b, hb, sizeof(hb), cudaMemcpyHostToDevice));
  GILU_CUDA_CHECK(cudaMemcpy(c, hc, sizeof(hc), cudaMemcpyHostToDevice));
  PetscCall(GILU_LAUNCH(MmaF64, 1, 32 * nw, 0, 0, a, b, c, d));
  GILU_CUDA_CHECK(cudaMemcpy(hd, d, sizeof(hd), cudaMemcpyDeviceToHost));
  GILU_CUDA_CHECK(cudaFree(a));
  GILU_CUDA_CHECK(cudaFree(b));
  GILU_CUDA_CHECK(cudaFree(c));
  GILU_CUDA_CHECK(cudaFree(d));
  *ok = PETSC_TRUE;
  for (w = 0; w < nw; w++) {
    for (i = 0; i < 8; i++) {
      for (j = 0; j < 8; j++) {
        double s = hc[64 * w + 8 * i + j], got = hd[64 * w + 8 * i + j];

        for (k = 0; k < 4; k++) s += ha[32 * w + 4 * i + k] * hb[32 * w + 8 * k + j];
        if (w == 0 ? got != s : PetscAbsReal(got - s) > 1e-14 * (1.0 + PetscAbsReal(s))) *ok = PETSC_FALSE;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ shared memory */
/* dynamic shared memory of 2 * blockDim.x doubles beside a static array: reversed twice through both */
__global__ static void DynamicShared(const double *x, double *out)
{
  GILU_DYNAMIC_SHARED(double, s);
  GILU_SHARED(int, tag, NT);
  int t = (int)threadIdx.x, n = (int)blockDim.x;

  s[t]     = x[t];
  s[n + t] = 2.0 * x[t];
  tag[t]   = -t;
  __syncthreads();
  out[t] = s[n - 1 - t] + s[2 * n - 1 - t] + tag[n - 1 - t];
}

static PetscErrorCode TestDynamicShared(PetscBool *ok)
{
  const int n = 200;
  double    hx[200], hout[200], *x, *out;
  int       t;

  PetscFunctionBegin;
  for (t = 0; t < n; t++) hx[t] = 0.5 * t + 1.0;
  GILU_CUDA_CHECK(cudaMalloc(&x, sizeof(hx)));
  GILU_CUDA_CHECK(cudaMalloc(&out, sizeof(hout)));
  GILU_CUDA_CHECK(cudaMemcpy(x, hx, sizeof(hx), cudaMemcpyHostToDevice));
  PetscCall(GILU_LAUNCH(DynamicShared, 1, n, 2 * n * sizeof(double), 0, x, out));
  GILU_CUDA_CHECK(cudaMemcpy(hout, out, sizeof(hout), cudaMemcpyDeviceToHost));
  GILU_CUDA_CHECK(cudaFree(x));
  GILU_CUDA_CHECK(cudaFree(out));
  *ok = PETSC_TRUE;
  for (t = 0; t < n; t++)
    if (hout[t] != 3.0 * hx[n - 1 - t] - (n - 1 - t)) *ok = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a static shared array declared in a device function is one per block however often it is called; the first barrier
   keeps the next call's reset and adds from the slower threads' read of this call's sum */
static __device__ int Accumulate(int v)
{
  GILU_SHARED(int, acc, 1);

  if (threadIdx.x == 0 && v == 0) acc[0] = 0;
  __syncthreads();
  atomicAdd(&acc[0], v);
  __syncthreads();
  return acc[0];
}

__global__ static void StaticShared(int *out)
{
  GILU_SHARED(int, a, 32);
  GILU_SHARED(double, b, 32);
  int t = (int)threadIdx.x, r = 0, k;

  a[t] = t;
  b[t] = -1.0 * t;
  for (k = 0; k < 4; k++) r += Accumulate(k == 0 ? 0 : 1); /* 0 + 32 + 64 + 96; the barriers in Accumulate order a[] */
  out[t] = a[31 - t] + (int)b[t] + r;                      /* = 31 - 2t + 6 * 32 */
}

static PetscErrorCode TestStaticShared(PetscBool *ok)
{
  int h[32], *d, t;

  PetscFunctionBegin;
  GILU_CUDA_CHECK(cudaMalloc(&d, sizeof(h)));
  PetscCall(GILU_LAUNCH(StaticShared, 1, 32, 0, 0, d));
  GILU_CUDA_CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  GILU_CUDA_CHECK(cudaFree(d));
  *ok = PETSC_TRUE;
  for (t = 0; t < 32; t++)
    if (h[t] != 31 - 2 * t + 6 * 32) *ok = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ atomics */
__global__ static void Atomics(int *ci, double *cd, int *cmax, int *cas)
{
  int g = (int)(blockIdx.x * blockDim.x + threadIdx.x);

  atomicAdd(ci, 1);
  atomicAdd(cd, 0.5);
  atomicMax(cmax, (g * 37) % 1000);
  if (atomicCAS(cas, 0, g + 1) == 0) atomicAdd(ci, 1000000); /* exactly one thread wins */
}

static PetscErrorCode TestAtomics(PetscBool *ok)
{
  const int nb = 4, nt = 128;
  int       hi[3], *ci, *cmax, *cas, g, m = 0;
  double    hd, *cd;

  PetscFunctionBegin;
  GILU_CUDA_CHECK(cudaMalloc(&ci, sizeof(int)));
  GILU_CUDA_CHECK(cudaMalloc(&cmax, sizeof(int)));
  GILU_CUDA_CHECK(cudaMalloc(&cas, sizeof(int)));
  GILU_CUDA_CHECK(cudaMalloc(&cd, sizeof(double)));
  GILU_CUDA_CHECK(cudaMemset(ci, 0, sizeof(int)));
  GILU_CUDA_CHECK(cudaMemset(cmax, 0, sizeof(int)));
  GILU_CUDA_CHECK(cudaMemset(cas, 0, sizeof(int)));
  GILU_CUDA_CHECK(cudaMemset(cd, 0, sizeof(double)));
  PetscCall(GILU_LAUNCH(Atomics, nb, nt, 0, 0, ci, cd, cmax, cas));
  GILU_CUDA_CHECK(cudaMemcpy(&hi[0], ci, sizeof(int), cudaMemcpyDeviceToHost));
  GILU_CUDA_CHECK(cudaMemcpy(&hi[1], cmax, sizeof(int), cudaMemcpyDeviceToHost));
  GILU_CUDA_CHECK(cudaMemcpy(&hi[2], cas, sizeof(int), cudaMemcpyDeviceToHost));
  GILU_CUDA_CHECK(cudaMemcpy(&hd, cd, sizeof(double), cudaMemcpyDeviceToHost));
  GILU_CUDA_CHECK(cudaFree(ci));
  GILU_CUDA_CHECK(cudaFree(cmax));
  GILU_CUDA_CHECK(cudaFree(cas));
  GILU_CUDA_CHECK(cudaFree(cd));
  for (g = 0; g < nb * nt; g++) m = PetscMax(m, (g * 37) % 1000);
  *ok = (PetscBool)(hi[0] == nb * nt + 1000000 && hd == 0.5 * nb * nt && hi[1] == m && hi[2] >= 1 && hi[2] <= nb * nt);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 64 KiB of dynamic shared memory: refused without cudaFuncSetAttribute's opt-in, as on every GPU; an opt-in beyond
   the device's limit is refused too */
__global__ static void LargeShared(int *out)
{
  GILU_DYNAMIC_SHARED(int, s);
  const int n = 16384, t = (int)threadIdx.x;

  for (int i = t; i < n; i += blockDim.x) s[i] = i;
  __syncthreads();
  if (t == 0) {
    int sum = 0;

    for (int i = 0; i < n; i += 1024) sum += s[n - 1 - i];
    out[0] = sum;
  }
}

static PetscErrorCode TestSharedOptin(PetscBool *ok)
{
  const size_t   bytes = 16384 * sizeof(int);
  int           *d, h = 0, limit = 0, exp = 0, i;
  PetscErrorCode ierr;
  cudaError_t    cerr;

  PetscFunctionBegin;
  for (i = 0; i < 16384; i += 1024) exp += 16383 - i;
  GILU_CUDA_CHECK(cudaMalloc(&d, sizeof(int)));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = GILU_LAUNCH(LargeShared, 1, 256, bytes, 0, d);
  PetscCall(PetscPopErrorHandler());
  *ok = (PetscBool)(ierr != PETSC_SUCCESS); /* without the opt-in */
  GILU_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  cerr = cudaFuncSetAttribute(LargeShared, cudaFuncAttributeMaxDynamicSharedMemorySize, limit + 1024);
  if (cerr == cudaSuccess) *ok = PETSC_FALSE;
  (void)cudaGetLastError();
  GILU_CUDA_CHECK(cudaFuncSetAttribute(LargeShared, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  PetscCall(GILU_LAUNCH(LargeShared, 1, 256, bytes, 0, d));
  GILU_CUDA_CHECK(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
  GILU_CUDA_CHECK(cudaFree(d));
  if (h != exp) *ok = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ broken kernels */
#if defined(GILU_CUDAEMU)
/* launched only by the emulation's self-tests below (errors it must report; on a GPU they would hang or be undefined) */
/* block 1, thread 3 waits for a flag that nobody sets */
__global__ static void DeadlockFlag(int *flag)
{
  if (blockIdx.x == 1 && threadIdx.x == 3) gilu_wait_until_ge(&flag[0], 1);
}

/* warp 0 waits at the barrier; the other threads wait for a flag that warp 0 sets after the barrier */
__global__ static void DeadlockBarrier(int *flag)
{
  if (threadIdx.x < 32) {
    __syncthreads();
    if (threadIdx.x == 0) atomicExch(flag, 1);
  } else gilu_wait_until_ge(flag, 1);
}

/* block b waits for block b - 1 by blockIdx: right when the blocks are dispatched in order (the self-test runs it so
   first), deadlocks when a later block is resident and block b - 1 is not, which the CUDA model allows (shown with
   reverse dispatch and 2 resident blocks) */
__global__ static void BlockIdxChain(int *flag)
{
  int b = (int)blockIdx.x;

  if (threadIdx.x == 0) {
    if (b > 0) gilu_wait_until_ge(&flag[b - 1], 1);
    flag[32 + b] = b;
    __threadfence();
    gilu_signal_set(&flag[b], 1);
  }
}

/* block 0 publishes data with a flag but no fence: a block waiting for the flag may see it before the data */
__global__ static void SignalNoFence(int *d)
{
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    d[1] = 42;
    gilu_signal_set(&d[0], 1);
  }
}

/* the two halves of a block meet at different barriers */
__global__ static void BarrierSites(int *d)
{
  if (threadIdx.x < 32) {
    d[threadIdx.x] = 1;
    __syncthreads();
  } else {
    d[threadIdx.x] = 2;
    __syncthreads();
  }
}

/* half a warp shuffles while the other half votes */
__global__ static void DivergentWarp(int *out)
{
  int lane = gilu_lane_id();

  if (lane < 16) out[lane] = gilu_shfl(lane, 0);
  else out[lane] = (int)gilu_ballot(1);
}

/* the launch must fail (without printing) with a message that contains every string in want[] */
static PetscErrorCode ExpectLaunchError(int which, const char *const want[], PetscBool *ok)
{
  int           *d;
  PetscErrorCode ierr;
  const char    *msg;
  int            i;

  PetscFunctionBegin;
  GILU_CUDA_CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  GILU_CUDA_CHECK(cudaMemset(d, 0, 64 * sizeof(int)));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  if (which == 0) ierr = GILU_LAUNCH(DeadlockFlag, 2, 64, 0, 0, d);
  else if (which == 1) ierr = GILU_LAUNCH(DeadlockBarrier, 1, 64, 0, 0, d);
  else if (which == 2) ierr = GILU_LAUNCH(DivergentWarp, 1, 32, 0, 0, d);
  else if (which == 3) {
    int h[16];

    PetscCall(PetscOptionsSetValue(NULL, "-gilu_cudaemu_block_order", "inorder"));
    PetscCall(PetscOptionsSetValue(NULL, "-gilu_cudaemu_resident", "8"));
    ierr = GILU_LAUNCH(BlockIdxChain, 8, 32, 0, 0, d);
    GILU_CUDA_CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    if (ierr == PETSC_SUCCESS && h[7] == 1) { /* in order the chain completes: the kernel is right but for its order */
      GILU_CUDA_CHECK(cudaMemset(d, 0, 64 * sizeof(int)));
      PetscCall(PetscOptionsSetValue(NULL, "-gilu_cudaemu_block_order", "reverse"));
      PetscCall(PetscOptionsSetValue(NULL, "-gilu_cudaemu_resident", "2"));
      ierr = GILU_LAUNCH(BlockIdxChain, 8, 32, 0, 0, d);
    } else ierr = PETSC_SUCCESS; /* reported as a self-test failure: the broken kernel did not fail */
    PetscCall(PetscOptionsClearValue(NULL, "-gilu_cudaemu_block_order"));
    PetscCall(PetscOptionsClearValue(NULL, "-gilu_cudaemu_resident"));
  } else if (which == 4) ierr = GILU_LAUNCH(SignalNoFence, 2, 32, 0, 0, d);
  else ierr = GILU_LAUNCH(BarrierSites, 1, 64, 0, 0, d);
  PetscCall(PetscPopErrorHandler());
  GILU_CUDA_CHECK(cudaFree(d));
  msg = GILUEmuLastError();
  *ok = (PetscBool)(ierr != PETSC_SUCCESS);
  for (i = 0; want[i]; i++)
    if (!strstr(msg, want[i])) *ok = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* ------------------------------------------------------------------------------------------ counters */
/* (the emulation's counters: the kernels run only there) */
#if defined(GILU_CUDAEMU)
/* lane l of each warp loads x[stride l] (stride 0: all lanes one value) and stores y[thread] */
__global__ static void SectorLoads(const double *x, double *y, int stride)
{
  gilu_st(y + threadIdx.x, gilu_ld(x + stride * gilu_lane_id()));
}

/* a kernel template in an unnamed namespace, whose instantiations the emulation names "NameProbe<3, true>": the template
   arguments (clang 14's __PRETTY_FUNCTION__ had none) without the namespace */
namespace
{
template <int N, bool B>
__global__ void NameProbe(int *x)
{
  if (threadIdx.x == 0) gilu_st(x + blockIdx.x, N + (int)B);
}
} // namespace

/* a chain through the blocks by ticket, as InterBlockChain: thread 0 waits once for the previous block, the block's
   threads load its values in parallel, store, fence, barrier, signal: 3 round trips per block (poll, load, fence);
   twice: each thread polls the flag itself before each of two loads, 5 per block */
__global__ static void ClockChain(int *ticket, int *flag, int *data, int twice)
{
  int u = gilu_block_ticket(ticket), t = (int)threadIdx.x, prev = 0;

  if (u > 0 && (t == 0 || twice)) gilu_wait_until_ge(&flag[u - 1], 1);
  __syncthreads();
  if (u > 0) prev = gilu_ld_cg(data + (u - 1) * (int)blockDim.x + t);
  if (u > 0 && twice) {
    gilu_wait_until_ge(&flag[u - 1], 1);
    prev += gilu_ld_cg(data + (u - 1) * (int)blockDim.x + t);
  }
  gilu_st(data + u * (int)blockDim.x + t, prev + 1);
  __threadfence();
  __syncthreads();
  if (t == 0) gilu_signal_set(&flag[u], 1);
}

static PetscInt64 Sum(const PetscInt64 v[])
{
  PetscInt64 s = 0;

  for (int c = 0; c < GILU_EMU_MEM_NCLASS; c++) s += v[c];
  return s;
}

/* 2 warps of 32 lanes, 8-byte values (cudaMalloc aligns to 256 bytes): a coalesced request touches 8 sectors, a request
   with stride 32 (256 bytes) 32 sectors for the same 8 sectors of data, a broadcast 1 */
static PetscErrorCode TestSectors(PetscBool *ok)
{
  const int       strides[3] = {1, 32, 0}, want[3] = {16, 64, 2}, minimum[3] = {16, 16, 2};
  double         *x, *y;
  PetscBool       was;
  GILUEmuCounters c;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  GILU_CUDA_CHECK(cudaMalloc(&x, 32 * 32 * sizeof(double)));
  GILU_CUDA_CHECK(cudaMalloc(&y, 64 * sizeof(double)));
  GILU_CUDA_CHECK(cudaMemset(x, 0, 32 * 32 * sizeof(double)));
  PetscCall(GILUEmuCountersGetActive(&was));
  PetscCall(GILUEmuCountersSetActive(PETSC_TRUE));
  for (int k = 0; k < 3; k++) {
    PetscCall(GILUEmuCountersReset());
    PetscCall(GILU_LAUNCH(SectorLoads, 1, 64, 0, 0, x, y, strides[k]));
    PetscCall(GILUEmuCountersGet("SectorLoads", &c));
    if (c.runtime[GILU_EMU_RT_LAUNCH] != 1 || Sum(c.requests[0]) != 2 || Sum(c.sectors[0]) != want[k] || Sum(c.minimum[0]) != minimum[k]) *ok = PETSC_FALSE;
    if (Sum(c.requests[1]) != 2 || Sum(c.sectors[1]) != 16 || Sum(c.minimum[1]) != 16) *ok = PETSC_FALSE;
  }
  PetscCall(GILUEmuCountersGet("NoSuchKernel", &c));
  if (c.runtime[GILU_EMU_RT_LAUNCH] != 0 || Sum(c.requests[0]) != 0) *ok = PETSC_FALSE;
  PetscCall(GILUEmuCountersSetActive(was));
  GILU_CUDA_CHECK(cudaFree(x));
  GILU_CUDA_CHECK(cudaFree(y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the emulation's cudaMalloc() poisons what it returns (every byte 0xff), so that a kernel that reads what nothing wrote
   gets NaN or -1 in every run: both words of a fresh allocation come back so, as do those of a second one after a free */
static PetscErrorCode TestPoison(PetscBool *ok)
{
  double *x, hx[40];
  int    *k, hk[40];

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  for (int twice = 0; twice < 2; twice++) {
    GILU_CUDA_CHECK(cudaMalloc(&x, 40 * sizeof(double)));
    GILU_CUDA_CHECK(cudaMalloc(&k, 40 * sizeof(int)));
    GILU_CUDA_CHECK(cudaMemcpy(hx, x, 40 * sizeof(double), cudaMemcpyDeviceToHost));
    GILU_CUDA_CHECK(cudaMemcpy(hk, k, 40 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 40; i++)
      if (!PetscIsNanReal(hx[i]) || hk[i] != -1) *ok = PETSC_FALSE;
    GILU_CUDA_CHECK(cudaMemset(x, 0, 40 * sizeof(double))); /* what the next allocation may reuse */
    GILU_CUDA_CHECK(cudaMemset(k, 0, 40 * sizeof(int)));
    GILU_CUDA_CHECK(cudaFree(x));
    GILU_CUDA_CHECK(cudaFree(k));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the names the counters and the launch log give instantiations: each its own, a prefix counts both */
static PetscErrorCode TestNames(PetscBool *ok)
{
  int            *x;
  PetscBool       was;
  GILUEmuCounters c[3];

  PetscFunctionBegin;
  GILU_CUDA_CHECK(cudaMalloc(&x, 2 * sizeof(int)));
  PetscCall(GILUEmuCountersGetActive(&was));
  PetscCall(GILUEmuCountersSetActive(PETSC_TRUE));
  PetscCall(GILUEmuCountersReset());
  #define NAME_PROBE_TRUE  NameProbe<3, true> /* (one macro argument: GILU_LAUNCH's first is split at the comma) */
  #define NAME_PROBE_FALSE NameProbe<3, false>
  PetscCall(GILU_LAUNCH(NAME_PROBE_TRUE, 2, 32, 0, 0, x));
  PetscCall(GILU_LAUNCH(NAME_PROBE_FALSE, 1, 32, 0, 0, x));
  #undef NAME_PROBE_TRUE
  #undef NAME_PROBE_FALSE
  PetscCall(GILUEmuCountersGet("NameProbe<3, true>", &c[0]));
  PetscCall(GILUEmuCountersGet("NameProbe<3, false>", &c[1]));
  PetscCall(GILUEmuCountersGet("NameProbe<3", &c[2]));
  *ok = (PetscBool)(c[0].runtime[GILU_EMU_RT_LAUNCH] == 1 && c[1].runtime[GILU_EMU_RT_LAUNCH] == 1 && c[2].runtime[GILU_EMU_RT_LAUNCH] == 2);
  PetscCall(GILUEmuCountersSetActive(was));
  GILU_CUDA_CHECK(cudaFree(x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the chain of nb blocks: block 0 publishes at 1 (its store's fence), block u at 1 + 3u (poll, load, fence), 1 + 5u
   with a poll per thread before each of two loads; the longest thread ends at the last block's publication. The
   runtime calls are counted too. Exact under every schedule (the clocks follow the dependences, not the order). */
static PetscErrorCode TestClock(PetscBool *ok)
{
  const int       nb = 6, nt = 64;
  int            *flag, *data, h[6 * 64];
  PetscBool       was;
  GILUEmuCounters c;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  PetscCall(GILUEmuCountersGetActive(&was));
  PetscCall(GILUEmuCountersSetActive(PETSC_TRUE));
  PetscCall(GILUEmuCountersReset());
  GILU_CUDA_CHECK(cudaMalloc(&flag, (nb + 1) * sizeof(int)));
  GILU_CUDA_CHECK(cudaMalloc(&data, nb * nt * sizeof(int)));
  for (int twice = 0; twice < 2; twice++) {
    GILU_CUDA_CHECK(cudaMemset(flag, 0, (nb + 1) * sizeof(int)));
    gilu_launch_levels(nb);
    PetscCall(GILU_LAUNCH(ClockChain, nb, nt, 0, 0, flag + nb, flag, data, twice));
    PetscCall(GILUEmuCountersGet("ClockChain", &c));
    if (c.critical != 1 + (twice ? 5 : 3) * (nb - 1)) *ok = PETSC_FALSE;
    if (c.levels != (twice + 1) * nb || c.levelled_trips != (twice ? 2 + 8 * (nb - 1) : 1 + 3 * (nb - 1))) *ok = PETSC_FALSE;
    /* the values too: block u stores u + 1 (twice: 2^(u+1) - 1); a block that read before its predecessor published
       (no barrier after the wait, or none before the signal) stores less */
    GILU_CUDA_CHECK(cudaMemcpy(h, data, nb * nt * sizeof(int), cudaMemcpyDeviceToHost));
    for (int u = 0, v = 1; u < nb; u++, v = twice ? 2 * v + 1 : v + 1)
      for (int t = 0; t < nt; t++)
        if (h[u * nt + t] != v) *ok = PETSC_FALSE;
  }
  GILU_CUDA_CHECK(cudaDeviceSynchronize());
  GILU_CUDA_CHECK(cudaFree(flag));
  GILU_CUDA_CHECK(cudaFree(data));
  PetscCall(GILUEmuCountersGet(NULL, &c));
  if (c.runtime[GILU_EMU_RT_LAUNCH] != 2 || c.runtime[GILU_EMU_RT_ALLOC] != 2 || c.runtime[GILU_EMU_RT_FREE] != 2 || c.runtime[GILU_EMU_RT_MEMSET] != 2 || c.runtime[GILU_EMU_RT_SYNC] != 1 || c.runtime[GILU_EMU_RT_COPY_TO_HOST] != 2)
    *ok = PETSC_FALSE;
  PetscCall(GILUEmuCountersSetActive(was));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode TestBroken(int which, PetscBool *ok)
{
  PetscFunctionBegin;
  *ok = PETSC_TRUE; /* on a GPU these kernels hang or are undefined: not run */
#if defined(GILU_CUDAEMU)
  {
    const char *const  flag[]    = {"DeadlockFlag", "deadlocks", "block (1,0,0) thread (3,0,0)", "gilu_wait_until_ge", NULL};
    const char *const  barrier[] = {"DeadlockBarrier", "deadlocks", "block (0,0,0)", "__syncthreads", NULL};
    const char *const  diverge[] = {"DivergentWarp", "divergent warp operations", NULL};
    const char *const  order[]   = {"BlockIdxChain", "deadlocks", "blocks dispatched reverse", NULL};
    const char *const  fence[]   = {"SignalNoFence", "block (0,0,0) thread (0,0,0)", "without a __threadfence()", NULL};
    const char *const  sites[]   = {"BarrierSites", "__syncthreads at", "same call site", NULL};
    const char *const *want[]    = {flag, barrier, diverge, order, fence, sites};

    PetscCall(ExpectLaunchError(which, want[which], ok));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GILU_CUDA_NAME(PetscGILUCUDASelfTest)(const char name[], PetscBool *ok)
{
  PetscBool match;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
#define GILU_SELFTEST(str, call) \
  PetscCall(PetscStrcmp(name, str, &match)); \
  if (match) { \
    PetscCall(call); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
  GILU_SELFTEST("reduce_barrier", TestReduce(PETSC_TRUE, ok));
#if defined(GILU_CUDAEMU)
  GILU_SELFTEST("reduce_nobarrier", TestReduce(PETSC_FALSE, ok));
#else
  GILU_SELFTEST("reduce_nobarrier", TestBroken(-1, ok));
#endif
  GILU_SELFTEST("warp_shfl", TestShuffles(ok));
  GILU_SELFTEST("warp_vote", TestVotes(ok));
  GILU_SELFTEST("spin_intrablock", TestSpinIntraBlock(ok));
  GILU_SELFTEST("interblock_chain", TestInterBlock(40, ok));
  GILU_SELFTEST("mma", TestMma(ok));
  GILU_SELFTEST("dynamic_shared", TestDynamicShared(ok));
  GILU_SELFTEST("static_shared", TestStaticShared(ok));
  GILU_SELFTEST("shared_optin", TestSharedOptin(ok));
  GILU_SELFTEST("atomics", TestAtomics(ok));
  GILU_SELFTEST("deadlock_flag", TestBroken(0, ok));
  GILU_SELFTEST("deadlock_barrier", TestBroken(1, ok));
  GILU_SELFTEST("divergent_warp", TestBroken(2, ok));
  GILU_SELFTEST("blockidx_order", TestBroken(3, ok));
  GILU_SELFTEST("signal_nofence", TestBroken(4, ok));
  GILU_SELFTEST("barrier_sites", TestBroken(5, ok));
#if defined(GILU_CUDAEMU)
  GILU_SELFTEST("counters_sectors", TestSectors(ok));
  GILU_SELFTEST("counters_clock", TestClock(ok));
  GILU_SELFTEST("poisoned_alloc", TestPoison(ok));
  GILU_SELFTEST("kernel_names", TestNames(ok));
#else
  GILU_SELFTEST("counters_sectors", TestBroken(-1, ok)); /* the emulation's counters: nothing to test on a GPU */
  GILU_SELFTEST("counters_clock", TestBroken(-1, ok));
  GILU_SELFTEST("poisoned_alloc", TestBroken(-1, ok)); /* a GPU's memory holds whatever was there */
  GILU_SELFTEST("kernel_names", TestBroken(-1, ok));
#endif
#undef GILU_SELFTEST
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown CUDA self-test %s", name);
}
