/*
   Test matrices: a suite of named, deterministic generators standing in for the SuiteSparse
   classes used by the papers (see PetscGILUTestMatrixCreate() for the list).

   Every generator describes one block row at a time (its block columns, ascending, and its
   bs x bs blocks); the driver below counts, preallocates and inserts the rows each rank owns.
   A row depends only on its global index, so the assembled matrix is the same, bitwise, on any
   number of ranks, and nothing is communicated during assembly. Random numbers come from an
   integer hash (SplitMix64) of a fixed seed and an index; no libm function is called and
   multiply-add contraction is switched off in this file, so the values do not depend on the
   machine's libm or on the compiler fusing operations.
*/
#if defined(__clang__)
  #pragma clang fp contract(off)
#elif defined(__GNUC__)
  #pragma GCC optimize("fp-contract=off")
#endif
#include <petscgilutest.h>
#include <petscgilu/private/compat.h>
#include <stdint.h>

/* ------------------------------------------------------------------------------------ random numbers */
static uint64_t SplitMix64(uint64_t *state)
{
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* a random 64-bit value attached to (seed, index): the same whoever asks for it */
static uint64_t Hash64(uint64_t seed, uint64_t index)
{
  uint64_t s = seed * 0xD1B54A32D192ED03ULL + index * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;

  (void)SplitMix64(&s);
  return SplitMix64(&s);
}

/* uniform in [0,1), 53 random bits, exact */
static double Uniform01(uint64_t r)
{
  return (double)(r >> 11) * 0x1.0p-53;
}

/* 2^(q/4) for an integer q, exact for q multiple of 4, otherwise the correctly rounded constant times a power of two */
static double Pow2Quarter(PetscInt q)
{
  static const double frac[4] = {1.0, 1.189207115002721066717, 1.414213562373095048802, 1.681792830507429086062};
  PetscInt            e       = q >= 0 ? q / 4 : -((-q + 3) / 4);
  PetscInt            r       = q - 4 * e;
  double              v       = frac[r];

  for (; e > 0; e--) v *= 2.0;
  for (; e < 0; e++) v *= 0.5;
  return v;
}

/* ------------------------------------------------------------------------------------ generator context */
typedef struct _TestMat *TestMat;
struct _TestMat {
  PetscInt  bs;      /* block size */
  PetscInt  N;       /* number of block rows */
  PetscInt  maxcols; /* most block columns in a row */
  PetscInt  m[3];    /* grid points per direction (grid generators), N = m[0]*m[1]*m[2] */
  PetscReal param;   /* generator parameter (epsilon, dt, Peclet number ...) */
  PetscReal lambda, mu;
  PetscReal scale; /* fem: 1/h^3, so that the mass part is O(1) */
  /* 1D assembled FEM matrices, band of half-width w, entry (i, i+d) at [i*(2w+1) + d + w] per axis */
  PetscInt   w, n1[3], off1[3];
  PetscReal *M1[3], *K1[3], *C1[3];
  PetscBool *S1[3]; /* structural nonzero (the two nodes share an element) */
  /* permutations (new = perm[old], old = iperm[new]) */
  PetscInt *perm, *iperm;
  /* graph in CSR (neighbours ascending) with edge weights */
  PetscInt  *gi, *gj;
  PetscReal *gw;
  PetscErrorCode (*row)(TestMat, PetscInt, PetscInt *, PetscInt[], PetscScalar[]);
};

#define TESTMAT_SEED_RHS     0x5EEDB0B5ULL
#define TESTMAT_SEED_JUMP    0x5EE10ULL
#define TESTMAT_SEED_CIRCUIT 0xC12C017ULL
#define TESTMAT_SEED_PERM    0x9E12A7EULL
#define TESTMAT_SEED_BSR     0xB5123ULL

static inline void GridIndex(TestMat t, PetscInt r, PetscInt *i, PetscInt *j, PetscInt *k)
{
  *i = r % t->m[0];
  *j = (r / t->m[0]) % t->m[1];
  *k = r / (t->m[0] * t->m[1]);
}

// clang-format off: the offsets on one line
static const PetscInt Star7[7][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
// clang-format on

/* ------------------------------------------------------------------------------------ convdiff3d */
/* 7-point upwind convection-diffusion, cell Peclet number up to param, Dirichlet boundary */
static void Velocity(TestMat t, PetscInt i, PetscInt j, PetscInt k, PetscReal v[3])
{
  PetscReal x = (PetscReal)(i + 1) / (PetscReal)(t->m[0] + 1), y = (PetscReal)(j + 1) / (PetscReal)(t->m[1] + 1), z = (PetscReal)(k + 1) / (PetscReal)(t->m[2] + 1);

  v[0] = t->param * (1.0 - 2.0 * y); /* a horizontal vortex ... */
  v[1] = t->param * (2.0 * x - 1.0);
  v[2] = t->param * 0.5 * (1.0 - 2.0 * z) * (2.0 * x - 1.0); /* ... with a vertical shear */
}

static PetscErrorCode Row_ConvDiff(TestMat t, PetscInt r, PetscInt *nc, PetscInt cols[], PetscScalar vals[])
{
  PetscInt  i, j, k, n = 0, c[3];
  PetscReal v[3], diag = 6.0;

  PetscFunctionBegin;
  GridIndex(t, r, &i, &j, &k);
  c[0] = i, c[1] = j, c[2] = k;
  Velocity(t, i, j, k, v);
  for (PetscInt d = 0; d < 3; d++) diag += PetscAbsReal(v[d]);
  for (PetscInt s = 0; s < 7; s++) {
    PetscInt  a = s < 3 ? 2 - s : s - 4, side = s < 3 ? -1 : 1;
    PetscReal val;

    if (s == 3) {
      cols[n] = r, vals[n++] = diag;
      continue;
    }
    if (c[a] + side < 0 || c[a] + side >= t->m[a]) continue;
    /* upwind: the neighbour upstream gets -1 - |v|, the downstream one -1 */
    val     = -1.0 - ((side < 0) ? PetscMax(v[a], 0.0) : PetscMax(-v[a], 0.0));
    cols[n] = r + Star7[s][0] + t->m[0] * (Star7[s][1] + t->m[1] * Star7[s][2]), vals[n++] = val;
  }
  *nc = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ aniso3d */
static PetscErrorCode Row_Aniso(TestMat t, PetscInt r, PetscInt *nc, PetscInt cols[], PetscScalar vals[])
{
  PetscInt  i, j, k, n = 0, c[3];
  PetscReal coef[3] = {1.0, 1.0, t->param};

  PetscFunctionBegin;
  GridIndex(t, r, &i, &j, &k);
  c[0] = i, c[1] = j, c[2] = k;
  for (PetscInt s = 0; s < 7; s++) {
    PetscInt a = s < 3 ? 2 - s : s - 4, side = s < 3 ? -1 : 1;

    if (s == 3) {
      cols[n] = r, vals[n++] = 2.0 * (coef[0] + coef[1] + coef[2]);
      continue;
    }
    if (c[a] + side < 0 || c[a] + side >= t->m[a]) continue;
    cols[n] = r + Star7[s][0] + t->m[0] * (Star7[s][1] + t->m[1] * Star7[s][2]), vals[n++] = -coef[a];
  }
  *nc = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ jump3d */
/* log2 of the permeability in quarter steps: a layer mean plus an approximately normal cell variation, all integer */
static PetscInt JumpLogPerm(TestMat t, PetscInt i, PetscInt j, PetscInt k)
{
  uint64_t layer = Hash64(TESTMAT_SEED_JUMP, (uint64_t)k), cell;
  PetscInt mean, q, s = 0;

  /* one layer in three is a high-permeability channel layer (mean 2^6), the others are tight (mean 2^-4 .. 2^0) */
  if (layer % 3 == 0) mean = 24;
  else mean = -16 + (PetscInt)((layer >> 8) % 17);
  /* Irwin-Hall: the sum of 12 uniform 16-bit integers, centred, has standard deviation 65536 */
  cell = Hash64(TESTMAT_SEED_JUMP + 1, (uint64_t)(i + t->m[0] * (j + t->m[1] * (uint64_t)k)));
  for (PetscInt l = 0; l < 4; l++) s += (PetscInt)((cell >> (16 * l)) & 0xFFFF);
  cell = Hash64(TESTMAT_SEED_JUMP + 2, (uint64_t)(i + t->m[0] * (j + t->m[1] * (uint64_t)k)));
  for (PetscInt l = 0; l < 4; l++) s += (PetscInt)((cell >> (16 * l)) & 0xFFFF);
  cell = Hash64(TESTMAT_SEED_JUMP + 3, (uint64_t)(i + t->m[0] * (j + t->m[1] * (uint64_t)k)));
  for (PetscInt l = 0; l < 4; l++) s += (PetscInt)((cell >> (16 * l)) & 0xFFFF);
  s -= 6 * 65536;
  /* standard deviation of 1.5 in log2 = 6 quarter steps, rounded to the nearest quarter step */
  q = mean + (6 * s + (s >= 0 ? 32768 : -32768)) / 65536;
  return PetscMax(-40, PetscMin(40, q));
}

static PetscErrorCode Row_Jump(TestMat t, PetscInt r, PetscInt *nc, PetscInt cols[], PetscScalar vals[])
{
  PetscInt  i, j, k, n = 0, c[3], d = -1;
  PetscReal K, diag = 0.0;

  PetscFunctionBegin;
  GridIndex(t, r, &i, &j, &k);
  c[0] = i, c[1] = j, c[2] = k;
  K = Pow2Quarter(JumpLogPerm(t, i, j, k));
  for (PetscInt s = 0; s < 7; s++) {
    PetscInt  a = s < 3 ? 2 - s : s - 4, side = s < 3 ? -1 : 1;
    PetscReal Kn, T, scale = (a == 2) ? 0.125 : 1.0; /* vertical permeability is 1/8 of the horizontal one */

    if (s == 3) {
      d       = n;
      cols[n] = r, vals[n++] = 0.0;
      continue;
    }
    if (c[a] + side < 0 || c[a] + side >= t->m[a]) {
      /* Dirichlet (fixed pressure) on the two x faces, no flow through the others */
      if (a == 0) diag += 2.0 * K;
      continue;
    }
    Kn = Pow2Quarter(JumpLogPerm(t, i + Star7[s][0], j + Star7[s][1], k + Star7[s][2]));
    T  = scale * (2.0 * K * Kn / (K + Kn)); /* harmonic average: the transmissibility of the face */
    diag += T;
    cols[n] = r + Star7[s][0] + t->m[0] * (Star7[s][1] + t->m[1] * Star7[s][2]), vals[n++] = -T;
  }
  vals[d] = diag;
  *nc     = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ tensor-product FEM */
/* 1D Lagrange P1 or P2 element matrices on [0,h] (mass, stiffness, and C(a,b) = int phi_a' phi_b), exact */
static void Element1D(PetscInt p, PetscReal h, PetscReal Me[], PetscReal Ke[], PetscReal Ce[])
{
  if (p == 1) {
    const PetscReal M[4] = {2, 1, 1, 2}, K[4] = {1, -1, -1, 1}, C[4] = {-1, -1, 1, 1};
    for (PetscInt a = 0; a < 4; a++) Me[a] = h * M[a] / 6.0, Ke[a] = K[a] / h, Ce[a] = C[a] / 2.0;
  } else {
    const PetscReal M[9] = {4, 2, -1, 2, 16, 2, -1, 2, 4}, K[9] = {7, -8, 1, -8, 16, -8, 1, -8, 7}, C[9] = {-3, -4, 1, 4, 0, -4, -1, 4, 3};
    for (PetscInt a = 0; a < 9; a++) Me[a] = h * M[a] / 30.0, Ke[a] = K[a] / (3.0 * h), Ce[a] = C[a] / 6.0;
  }
}

/* assemble the 1D matrices of axis a: cells of width h, degree p, the first `clamp` nodes removed (Dirichlet) */
static PetscErrorCode Assemble1D(TestMat t, PetscInt a, PetscInt p, PetscInt cells, PetscReal h, PetscInt clamp)
{
  PetscInt  w = t->w, W = 2 * w + 1, nall = cells * p + 1, n = nall - clamp;
  PetscReal Me[9], Ke[9], Ce[9];

  PetscFunctionBegin;
  t->n1[a] = n;
  t->m[a]  = n;
  PetscCall(PetscCalloc4(n * W, &t->M1[a], n * W, &t->K1[a], n * W, &t->C1[a], n * W, &t->S1[a]));
  Element1D(p, h, Me, Ke, Ce);
  for (PetscInt e = 0; e < cells; e++)
    for (PetscInt x = 0; x <= p; x++)
      for (PetscInt y = 0; y <= p; y++) {
        PetscInt ri = e * p + x - clamp, rj = e * p + y - clamp, o;

        if (ri < 0 || rj < 0) continue;
        o = ri * W + (rj - ri) + w;
        t->M1[a][o] += Me[x * (p + 1) + y];
        t->K1[a][o] += Ke[x * (p + 1) + y];
        t->C1[a][o] += Ce[x * (p + 1) + y];
        t->S1[a][o] = PETSC_TRUE;
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* parabolic FEM: (mass + dt * stiffness) / h^3 = (M(x)M(y)M(z) + dt (K M M + M K M + M M K)) / h^3 */
static PetscErrorCode Row_FEM(TestMat t, PetscInt r, PetscInt *nc, PetscInt cols[], PetscScalar vals[])
{
  PetscInt i, j, k, n = 0, w = t->w, W = 2 * w + 1;

  PetscFunctionBegin;
  GridIndex(t, r, &i, &j, &k);
  for (PetscInt dk = -w; dk <= w; dk++) {
    PetscInt oz = k * W + dk + w;

    if (k + dk < 0 || k + dk >= t->m[2] || !t->S1[2][oz]) continue;
    for (PetscInt dj = -w; dj <= w; dj++) {
      PetscInt oy = j * W + dj + w;

      if (j + dj < 0 || j + dj >= t->m[1] || !t->S1[1][oy]) continue;
      for (PetscInt di = -w; di <= w; di++) {
        PetscInt  ox = i * W + di + w;
        PetscReal Mx, My, Mz, Kx, Ky, Kz;

        if (i + di < 0 || i + di >= t->m[0] || !t->S1[0][ox]) continue;
        Mx = t->M1[0][ox], My = t->M1[1][oy], Mz = t->M1[2][oz];
        Kx = t->K1[0][ox], Ky = t->K1[1][oy], Kz = t->K1[2][oz];
        cols[n]   = r + di + t->m[0] * (dj + t->m[1] * dk);
        vals[n++] = t->scale * (Mx * My * Mz + t->param * (Kx * My * Mz + Mx * Ky * Mz + Mx * My * Kz));
      }
    }
  }
  *nc = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ elasticity3d */
/* entry (I,J) of int d_p phi_I d_q phi_J (p, q in 0..2; p or q = 3: no derivative) from the 1D factors */
static PetscReal Elas1D(TestMat t, PetscInt d, PetscInt o, PetscInt oT, PetscInt p, PetscInt q)
{
  if (d == p && d == q) return t->K1[d][o];
  if (d == p) return t->C1[d][o];  /* derivative on I: C(I,J) */
  if (d == q) return t->C1[d][oT]; /* derivative on J: C(J,I) */
  return t->M1[d][o];
}

/* Q1 linear elasticity: A[a][b] = lambda T(a,b) + mu (delta_ab sum_p T(p,p) + T(b,a)), T(p,q) = int d_p phi_I d_q phi_J */
static PetscErrorCode Row_Elasticity(TestMat t, PetscInt r, PetscInt *nc, PetscInt cols[], PetscScalar vals[])
{
  PetscInt i, j, k, n = 0, c[3];

  PetscFunctionBegin;
  GridIndex(t, r, &i, &j, &k);
  c[0] = i, c[1] = j, c[2] = k;
  for (PetscInt dk = -1; dk <= 1; dk++)
    for (PetscInt dj = -1; dj <= 1; dj++)
      for (PetscInt di = -1; di <= 1; di++) {
        PetscInt  dd[3] = {di, dj, dk}, o[3], oT[3];
        PetscReal T[3][3], tr;
        PetscBool skip = PETSC_FALSE;

        for (PetscInt d = 0; d < 3; d++) {
          if (c[d] + dd[d] < 0 || c[d] + dd[d] >= t->m[d]) skip = PETSC_TRUE;
          else {
            o[d]  = c[d] * 3 + dd[d] + 1;
            oT[d] = (c[d] + dd[d]) * 3 - dd[d] + 1;
            if (!t->S1[d][o[d]]) skip = PETSC_TRUE;
          }
        }
        if (skip) continue;
        for (PetscInt p = 0; p < 3; p++)
          for (PetscInt q = 0; q < 3; q++) T[p][q] = Elas1D(t, 0, o[0], oT[0], p, q) * Elas1D(t, 1, o[1], oT[1], p, q) * Elas1D(t, 2, o[2], oT[2], p, q);
        tr      = T[0][0] + T[1][1] + T[2][2];
        cols[n] = r + di + t->m[0] * (dj + t->m[1] * dk);
        for (PetscInt a = 0; a < 3; a++)
          for (PetscInt b = 0; b < 3; b++) vals[9 * n + 3 * a + b] = t->lambda * T[a][b] + t->mu * ((a == b ? tr : 0.0) + T[b][a]);
        n++;
      }
  *nc = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ graphs */
static int CompareColVal(const void *a, const void *b)
{
  PetscInt x = *(const PetscInt *)a, y = *(const PetscInt *)b;

  return x < y ? -1 : (x > y ? 1 : 0);
}

/* circuit: preferential attachment; the graph is built identically on every rank */
static PetscErrorCode CircuitSetUp(TestMat t)
{
  PetscInt   N = t->N, ne = 0, *ei, *ej, *ends, nends = 0, *cnt;
  PetscReal *ew;
  uint64_t   st = TESTMAT_SEED_CIRCUIT;

  PetscFunctionBegin;
  PetscCall(PetscMalloc4(3 * N, &ei, 3 * N, &ej, 3 * N, &ew, 6 * N, &ends));
  for (PetscInt v = 1; v < N; v++) {
    PetscInt tg[3], nt = 0;

    /* a wire to the previous node (keeps the graph connected), then up to two to nodes picked with probability ~ degree */
    tg[nt++] = v - 1;
    for (PetscInt l = 0; l < 2 && nends > 0; l++) {
      PetscInt  u   = ends[SplitMix64(&st) % (uint64_t)nends];
      PetscBool dup = PETSC_FALSE;

      for (PetscInt z = 0; z < nt; z++) dup = (PetscBool)(dup || tg[z] == u);
      if (!dup) tg[nt++] = u;
    }
    for (PetscInt z = 0; z < nt; z++) {
      ei[ne] = v, ej[ne] = tg[z];
      ew[ne] = Pow2Quarter(4 * ((PetscInt)(SplitMix64(&st) % 9) - 4)); /* conductance 2^-4 .. 2^4 */
      ne++;
      ends[nends++] = v, ends[nends++] = tg[z];
    }
  }
  PetscCall(PetscCalloc1(N + 1, &cnt));
  for (PetscInt e = 0; e < ne; e++) cnt[ei[e] + 1]++, cnt[ej[e] + 1]++;
  for (PetscInt v = 0; v < N; v++) cnt[v + 1] += cnt[v];
  PetscCall(PetscMalloc3(N + 1, &t->gi, cnt[N], &t->gj, cnt[N], &t->gw));
  PetscCall(PetscArraycpy(t->gi, cnt, N + 1));
  for (PetscInt e = 0; e < ne; e++) {
    t->gj[cnt[ei[e]]] = ej[e], t->gw[cnt[ei[e]]++] = ew[e];
    t->gj[cnt[ej[e]]] = ei[e], t->gw[cnt[ej[e]]++] = ew[e];
  }
  t->maxcols = 1;
  for (PetscInt v = 0; v < N; v++) t->maxcols = PetscMax(t->maxcols, t->gi[v + 1] - t->gi[v] + 1);
  PetscCall(PetscFree(cnt));
  PetscCall(PetscFree4(ei, ej, ew, ends));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt    col;
  PetscScalar val;
} ColVal;

static PetscErrorCode SortRow(PetscInt n, PetscInt cols[], PetscScalar vals[], ColVal *buf)
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l < n; l++) buf[l].col = cols[l], buf[l].val = vals[l];
  qsort(buf, (size_t)n, sizeof(ColVal), CompareColVal);
  for (PetscInt l = 0; l < n; l++) cols[l] = buf[l].col, vals[l] = buf[l].val;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* weighted graph Laplacian, diagonal (1 + 2^-6) times the weighted degree */
static PetscErrorCode Row_Circuit(TestMat t, PetscInt r, PetscInt *nc, PetscInt cols[], PetscScalar vals[])
{
  PetscInt  n   = 0;
  PetscReal deg = 0.0;
  ColVal    buf[64], *b = buf;

  PetscFunctionBegin;
  for (PetscInt l = t->gi[r]; l < t->gi[r + 1]; l++) {
    cols[n] = t->gj[l], vals[n++] = -t->gw[l];
    deg += t->gw[l];
  }
  cols[n] = r, vals[n++] = deg + deg * 0.015625;
  if (n > 64) PetscCall(PetscMalloc1(n, &b));
  PetscCall(SortRow(n, cols, vals, b));
  if (n > 64) PetscCall(PetscFree(b));
  *nc = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a random permutation of 0..N-1 (Fisher-Yates on SplitMix64) and its inverse */
static PetscErrorCode PermutationSetUp(TestMat t)
{
  uint64_t st = TESTMAT_SEED_PERM;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(t->N, &t->perm, t->N, &t->iperm));
  for (PetscInt l = 0; l < t->N; l++) t->iperm[l] = l;
  for (PetscInt l = t->N - 1; l > 0; l--) {
    PetscInt s = (PetscInt)(SplitMix64(&st) % (uint64_t)(l + 1)), tmp = t->iperm[l];

    t->iperm[l] = t->iperm[s], t->iperm[s] = tmp;
  }
  for (PetscInt l = 0; l < t->N; l++) t->perm[t->iperm[l]] = l;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the 7-point (diagonal 6) or 27-point (diagonal 26) Laplacian, Dirichlet boundary, rows and columns permuted */
static PetscErrorCode Row_Permuted(TestMat t, PetscInt r, PetscInt *nc, PetscInt cols[], PetscScalar vals[])
{
  PetscInt i, j, k, n = 0, g = t->iperm[r], c[3];
  ColVal   buf[27];

  PetscFunctionBegin;
  GridIndex(t, g, &i, &j, &k);
  c[0] = i, c[1] = j, c[2] = k;
  for (PetscInt dk = -1; dk <= 1; dk++)
    for (PetscInt dj = -1; dj <= 1; dj++)
      for (PetscInt di = -1; di <= 1; di++) {
        PetscInt dd[3] = {di, dj, dk}, nz = (di != 0) + (dj != 0) + (dk != 0);

        if (t->param == 7 && nz > 1) continue;
        if (c[0] + dd[0] < 0 || c[0] + dd[0] >= t->m[0] || c[1] + dd[1] < 0 || c[1] + dd[1] >= t->m[1] || c[2] + dd[2] < 0 || c[2] + dd[2] >= t->m[2]) continue;
        cols[n]   = t->perm[g + di + t->m[0] * (dj + t->m[1] * dk)];
        vals[n++] = nz ? -1.0 : t->param - 1.0;
      }
  PetscCall(SortRow(n, cols, vals, buf));
  *nc = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ bsr3 */
/* a symmetric, strictly diagonally dominant (so SPD) 3x3 coupling for edge id e */
static void EdgeBlock(uint64_t e, PetscReal D[9])
{
  uint64_t h = Hash64(TESTMAT_SEED_BSR, e);

  for (PetscInt a = 0; a < 3; a++) D[4 * a] = 2.0 + Uniform01(Hash64(h, (uint64_t)a));
  D[1] = D[3] = Uniform01(Hash64(h, 3)) - 0.5;
  D[2] = D[6] = Uniform01(Hash64(h, 4)) - 0.5;
  D[5] = D[7] = Uniform01(Hash64(h, 5)) - 0.5;
}

/* block 7-point Laplacian: off-diagonal block -D_e per edge, diagonal block the sum of the D_e (boundary edges too) */
static PetscErrorCode Row_BSR3(TestMat t, PetscInt r, PetscInt *nc, PetscInt cols[], PetscScalar vals[])
{
  PetscInt  i, j, k, n = 0, c[3], d = -1;
  PetscReal D[9], diag[9] = {0};

  PetscFunctionBegin;
  GridIndex(t, r, &i, &j, &k);
  c[0] = i, c[1] = j, c[2] = k;
  for (PetscInt s = 0; s < 7; s++) {
    PetscInt a = s < 3 ? 2 - s : s - 4, side = s < 3 ? -1 : 1, nb;
    uint64_t e;

    if (s == 3) {
      d = n++;
      continue;
    }
    nb = r + Star7[s][0] + t->m[0] * (Star7[s][1] + t->m[1] * Star7[s][2]);
    /* edge id from its lower end point; the boundary edges below the grid get ids past 3N */
    if (c[a] + side < 0) e = 3 * (uint64_t)t->N + 3 * (uint64_t)r + (uint64_t)a;
    else e = 3 * (uint64_t)(side < 0 ? nb : r) + (uint64_t)a;
    EdgeBlock(e, D);
    for (PetscInt l = 0; l < 9; l++) diag[l] += D[l];
    if (c[a] + side < 0 || c[a] + side >= t->m[a]) continue;
    cols[n] = nb;
    for (PetscInt l = 0; l < 9; l++) vals[9 * n + l] = -D[l];
    n++;
  }
  cols[d] = r;
  for (PetscInt l = 0; l < 9; l++) vals[9 * d + l] = diag[l];
  *nc = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------ the suite */
typedef struct {
  const char *name;
  PetscBool   spd;
  PetscInt    bs;
  PetscBool   grid; /* its (block) rows are the points of a size^3 grid numbered x fastest, as a DMDA's */
  const char *description;
} TestMatInfo;

static const TestMatInfo TestMats[] = {
  {"convdiff3d",   PETSC_FALSE, 1, PETSC_TRUE,  "3D convection-diffusion, 7-point upwind (like atmosmodd)"                      },
  {"aniso3d",      PETSC_TRUE,  1, PETSC_TRUE,  "3D anisotropic diffusion 1:1:1e-3, 7-point"                                    },
  {"jump3d",       PETSC_TRUE,  1, PETSC_TRUE,  "3D layered log-normal permeability, 7-point finite volumes (like spe10)"       },
  {"fem_q1",       PETSC_TRUE,  1, PETSC_TRUE,  "parabolic FEM mass + dt stiffness, Q1 hexahedra (like parabolic_fem, thermal2)"},
  {"fem_q2",       PETSC_TRUE,  1, PETSC_FALSE, "parabolic FEM mass + dt stiffness, Q2 hexahedra"                               },
  {"elasticity3d", PETSC_TRUE,  3, PETSC_FALSE, "3D linear elasticity, Q1 hexahedra, clamped face (like apache2, af_shell)"     },
  {"circuit",      PETSC_TRUE,  1, PETSC_FALSE, "power-law graph Laplacian, preferential attachment, shifted (like G3_circuit)" },
  {"perm7",        PETSC_TRUE,  1, PETSC_FALSE, "3D 7-point Laplacian, random symmetric permutation"                            },
  {"perm27",       PETSC_TRUE,  1, PETSC_FALSE, "3D 27-point Laplacian, random symmetric permutation"                           },
  {"bsr3",         PETSC_TRUE,  3, PETSC_TRUE,  "3D 7-point block Laplacian with 3x3 SPD couplings, MATBAIJ (FGDD laplacian1/2)"},
};
static const char *const TestMatNames[] = {"convdiff3d", "aniso3d", "jump3d", "fem_q1", "fem_q2", "elasticity3d", "circuit", "perm7", "perm27", "bsr3"};
#define NTESTMATS ((PetscInt)(sizeof(TestMats) / sizeof(TestMats[0])))

static PetscErrorCode TestMatFind(const char name[], PetscInt *idx)
{
  PetscBool match;

  PetscFunctionBegin;
  for (PetscInt l = 0; l < NTESTMATS; l++) {
    PetscCall(PetscStrcmp(name, TestMats[l].name, &match));
    if (match) {
      *idx = l;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  *idx = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUTestMatrixList - The names of the test matrices that `PetscGILUTestMatrixCreate()` builds

  Not Collective

  Output Parameters:
+ n     - the number of names
- names - the names (owned by the library, do not free)

  Level: intermediate

.seealso: `PetscGILUTestMatrixCreate()`, `PetscGILUTestMatrixGetInfo()`
@*/
PetscErrorCode PetscGILUTestMatrixList(PetscInt *n, const char *const **names)
{
  PetscFunctionBegin;
  if (n) *n = NTESTMATS;
  if (names) *names = TestMatNames;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUTestMatrixGetInfo - What a test matrix is, without building it

  Not Collective

  Input Parameter:
. name - a name from `PetscGILUTestMatrixList()`

  Output Parameters (each may be `NULL`):
+ spd         - whether the matrix is symmetric positive definite
. bs          - its block size
- description - one line saying what it is and which SuiteSparse matrices it stands for

  Level: intermediate

.seealso: `PetscGILUTestMatrixCreate()`, `PetscGILUTestMatrixList()`
@*/
PetscErrorCode PetscGILUTestMatrixGetInfo(const char name[], PetscBool *spd, PetscInt *bs, const char **description)
{
  PetscInt idx;

  PetscFunctionBegin;
  PetscCall(TestMatFind(name, &idx));
  PetscCheck(idx >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown test matrix %s: see PetscGILUTestMatrixList() for the names", name);
  if (spd) *spd = TestMats[idx].spd;
  if (bs) *bs = TestMats[idx].bs;
  if (description) *description = TestMats[idx].description;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUTestMatrixGetGrid - Whether a named test matrix of a given size is numbered as a structured grid

  Not Collective

  Input Parameters:
+ name - the matrix
- size - its size (as for `PetscGILUTestMatrixCreate()`)

  Output Parameters:
+ isgrid - whether its (block) rows are the points of a grid numbered x fastest, as a `DMDA` with its block size as
           the degrees of freedom numbers them on one process (convdiff3d, aniso3d, jump3d, fem_q1, bsr3)
- m      - the grid's points per direction (size^3), or zeros

  Level: intermediate

.seealso: `PetscGILUTestMatrixCreate()`, `PetscGILUTestMatrixGetInfo()`
@*/
PetscErrorCode PetscGILUTestMatrixGetGrid(const char name[], PetscInt size, PetscBool *isgrid, PetscInt m[3])
{
  PetscInt idx;

  PetscFunctionBegin;
  PetscCall(TestMatFind(name, &idx));
  PetscCheck(idx >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown test matrix %s: see PetscGILUTestMatrixList() for the names", name);
  *isgrid = TestMats[idx].grid;
  for (PetscInt d = 0; d < 3; d++) m[d] = *isgrid ? size : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestMatSetUp(TestMat t, PetscInt idx, PetscInt s)
{
  const char *name = TestMats[idx].name;

  PetscFunctionBegin;
  t->bs   = TestMats[idx].bs;
  t->m[0] = t->m[1] = t->m[2] = s;
  t->maxcols                  = 7;
  switch (idx) {
  case 0:
    t->param = 2.0; /* largest cell Peclet number */
    t->row   = Row_ConvDiff;
    break;
  case 1:
    t->param = 1.e-3;
    t->row   = Row_Aniso;
    break;
  case 2:
    t->row = Row_Jump;
    break;
  case 3:
  case 4: {
    PetscInt p = idx == 3 ? 1 : 2, cells = idx == 3 ? s - 1 : s / 2;

    PetscCheck(cells >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Test matrix %s needs size >= 2", name);
    t->w     = p;
    t->param = 0.01; /* dt */
    t->scale = (PetscReal)cells * (PetscReal)cells * (PetscReal)cells;
    for (PetscInt a = 0; a < 3; a++) PetscCall(Assemble1D(t, a, p, cells, 1.0 / (PetscReal)cells, 0));
    t->maxcols = (2 * p + 1) * (2 * p + 1) * (2 * p + 1);
    t->row     = Row_FEM;
  } break;
  case 5: {
    PetscReal E = 1.0, nu = 0.3;

    PetscCheck(s >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Test matrix %s needs size >= 2", name);
    t->w      = 1;
    t->lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
    t->mu     = E / (2.0 * (1.0 + nu));
    /* unit cubes; x: s cells, the nodes of the face x = 0 clamped; y, z: s - 1 cells */
    PetscCall(Assemble1D(t, 0, 1, s, 1.0, 1));
    PetscCall(Assemble1D(t, 1, 1, s - 1, 1.0, 0));
    PetscCall(Assemble1D(t, 2, 1, s - 1, 1.0, 0));
    t->maxcols = 27;
    t->row     = Row_Elasticity;
  } break;
  case 6:
    t->N = s * s * s;
    PetscCall(CircuitSetUp(t));
    t->row = Row_Circuit;
    break;
  case 7:
  case 8:
    t->param   = idx == 7 ? 7 : 27;
    t->maxcols = idx == 7 ? 7 : 27;
    t->N       = s * s * s;
    PetscCall(PermutationSetUp(t));
    t->row = Row_Permuted;
    break;
  case 9:
    t->row = Row_BSR3;
    break;
  }
  t->N = t->m[0] * t->m[1] * t->m[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestMatDestroy(TestMat t)
{
  PetscFunctionBegin;
  for (PetscInt a = 0; a < 3; a++) PetscCall(PetscFree4(t->M1[a], t->K1[a], t->C1[a], t->S1[a]));
  PetscCall(PetscFree2(t->perm, t->iperm));
  PetscCall(PetscFree3(t->gi, t->gj, t->gw));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscGILUTestMatrixCreate - Builds one of petscgilu's named test matrices and a right-hand side

  Collective

  Input Parameters:
+ comm - the communicator of the matrix
. name - the matrix, see the list below (`PetscGILUTestMatrixList()` gives the names)
- size - the scale, 2 .. 1290: about size^3 grid points, nodes or graph vertices, size^3 * bs rows

  Output Parameters:
+ A - the matrix: `MATAIJ` (block size 3 for elasticity3d), `MATBAIJ` with block size 3 for bsr3; its rows are split
      evenly (in blocks) over the ranks of `comm`
- b - a right-hand side, or `NULL` if not wanted: entries uniform in [-1, 1), a fixed hash of the global row

  Notes:
  The matrices stand in for the SuiteSparse classes used in the papers behind petscgilu (which cannot be
  downloaded here). Grid points are numbered lexicographically, x fastest; all grids are size^3 unless said.
+ convdiff3d   - nonsymmetric, bs 1. -Laplace(u) + v.grad(u), 7-point, first-order upwind convection, zero Dirichlet
                 boundary, scaled by h^2: diagonal 6 + |v_x| + |v_y| + |v_z|, neighbours -1 (downstream) or -1 - |v_a|
                 (upstream). v is a vortex in x-y with a vertical shear, in cell-Peclet units, at most 2 (so the
                 matrix has the same character at every size). Stands for atmosmodd/atmosmodl (ATS-ILU paper).
. aniso3d      - SPD, bs 1. -u_xx - u_yy - 1e-3 u_zz, 7-point, Dirichlet: diagonal 4.002, neighbours -1, -1, -1e-3.
. jump3d       - SPD, bs 1. Two-point-flux finite volumes of -div(K grad p) on unit cells, K log-normal and layered
                 in z like the SPE10 model: each z-layer is a high-permeability channel layer (one in three, mean
                 2^6) or a tight one (mean 2^-4 .. 2^0), each cell adds a normal variation of standard deviation
                 1.5 in log2 K, quantized to quarter powers of 2 and clipped to 2^-10 .. 2^10 (6 orders of
                 magnitude); vertical K is K/8; face transmissibilities are harmonic means; fixed pressure on the
                 two x faces, no flow through the others. Stands for spe10 (FGDD paper) and other reservoir matrices.
. fem_q1       - SPD, bs 1. (M + dt K) / h^3 (dt = 0.01) of continuous Q1 elements on a uniform hexahedral mesh of the unit
                 cube with size - 1 cells per edge (size^3 nodes), natural boundary. Assembled exactly as Kronecker
                 sums of the 1D P1 mass and stiffness matrices (exact for tensor-product elements on a tensor
                 mesh), not with DMPlex (tests/ex8 -check_dmplex compares them with DMPlex's assembly).
                 Stands for parabolic_fem, thermal1/2 (SPCG and FGDD papers).
. fem_q2       - SPD, bs 1. The same with Q2 elements, size / 2 cells per edge ((2 (size / 2) + 1)^3 nodes,
                 up to 125 nonzeros per row).
. elasticity3d - SPD, bs 3. Q1 linear elasticity (E = 1, nu = 0.3) on unit cubes, size cells in x and size - 1 in
                 y and z, the face x = 0 clamped (its nodes removed), size^3 nodes; 3x3 blocks of 27 neighbours.
                 Stands for the structural matrices (apache2, af_shell, Serena).
. circuit      - SPD, bs 1. size^3 vertices; vertex v is wired to v - 1 and to two earlier vertices picked with
                 probability proportional to their degree (preferential attachment: power-law degrees, 7
                 nonzeros per row on average, 123 hubs over 100 and the largest 536 at size 100); conductances
                 2^-4 .. 2^4 (random, exact); the weighted graph
                 Laplacian with its diagonal multiplied by 1 + 2^-6. Stands for G3_circuit, ecology2, circuit matrices.
. perm7        - SPD, bs 1. The 7-point Laplacian (6, -1), Dirichlet, under a random symmetric permutation
                 (Fisher-Yates): no grid ordering left, many more wavefronts.
. perm27       - SPD, bs 1. The same with the 27-point Laplacian (26, -1).
- bsr3         - SPD, bs 3, `MATBAIJ`. 7-point block Laplacian: the coupling of two neighbours is -D_e, with D_e a
                 random symmetric, strictly diagonally dominant 3x3 block (diagonal 2 .. 3, off-diagonal -0.5 .. 0.5),
                 the diagonal block the sum of the D_e of the 6 edges, boundary edges included. Stands for the
                 FGDD paper's laplacian1/laplacian2 3x3 BSR matrices.

  Everything is deterministic: a row depends only on its global index, random numbers are integer hashes of
  fixed seeds, no libm function is used and multiply-add contraction is off in the generator's source, so the
  matrix and b are the same bitwise on any number of ranks and, for IEEE double, on any machine.
  Suggested sizes: tests 8 .. 16 (a few thousand rows), bench 100 for bs 1 (1e6 rows) and 70 for bs 3; see
  bench/gen-matrices, which writes them in PETSc binary format, and tests/ex8.c, which builds, loads and solves them.
  The matrices that are SPD have `MAT_SYMMETRIC` and (except `MATMPIBAIJ`, which refuses it in PETSc 3.18) `MAT_SPD` set.

  Level: intermediate

.seealso: `PetscGILUTestMatrixList()`, `PetscGILUTestMatrixGetInfo()`
@*/
PetscErrorCode PetscGILUTestMatrixCreate(MPI_Comm comm, const char name[], PetscInt size, Mat *A, Vec *b)
{
  struct _TestMat t;
  PetscInt        idx, bs, nloc = PETSC_DECIDE, rstart, rend, *dnnz, *onnz, *cols, nc;
  PetscScalar    *vals, *rowv;

  PetscFunctionBegin;
  PetscCheck(name && A, comm, PETSC_ERR_ARG_NULL, "Give a matrix name and a Mat pointer");
  PetscCall(TestMatFind(name, &idx));
  PetscCheck(idx >= 0, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown test matrix %s: see PetscGILUTestMatrixList() for the names", name);
  PetscCheck(size >= 2 && size <= 1290, comm, PETSC_ERR_ARG_OUTOFRANGE, "Test matrix size %" PetscInt_FMT " out of range: give 2 .. 1290 (about size^3 grid points)", size);
  PetscCall(PetscMemzero(&t, sizeof(t)));
  PetscCall(TestMatSetUp(&t, idx, size));
  bs = t.bs;
  PetscCheck((PetscInt64)t.N * bs < PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "Test matrix %s of size %" PetscInt_FMT " needs 64-bit indices", name, size);
  PetscCall(PetscSplitOwnership(comm, &nloc, &t.N));
  PetscCallMPI(MPI_Scan(&nloc, &rend, 1, MPIU_INT, MPI_SUM, comm));
  rstart = rend - nloc;

  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, nloc * bs, nloc * bs, t.N * bs, t.N * bs));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, idx == 9 ? MATBAIJ : MATAIJ));
  PetscCall(PetscMalloc5(nloc, &dnnz, nloc, &onnz, t.maxcols, &cols, t.maxcols * bs * bs, &vals, t.maxcols * bs * bs, &rowv));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscCall(t.row(&t, r, &nc, cols, vals));
    dnnz[r - rstart] = onnz[r - rstart] = 0;
    for (PetscInt l = 0; l < nc; l++) {
      if (cols[l] >= rstart && cols[l] < rend) dnnz[r - rstart]++;
      else onnz[r - rstart]++;
    }
  }
  PetscCall(MatXAIJSetPreallocation(*A, bs, dnnz, onnz, NULL, NULL));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscCall(t.row(&t, r, &nc, cols, vals));
    if (bs == 1) PetscCall(MatSetValues(*A, 1, &r, nc, cols, vals, INSERT_VALUES));
    else {
      /* blocks (bs x bs, row-major, one per column) to the row-oriented bs x (nc bs) array */
      for (PetscInt l = 0; l < nc; l++)
        for (PetscInt a = 0; a < bs; a++)
          for (PetscInt c = 0; c < bs; c++) rowv[a * nc * bs + l * bs + c] = vals[l * bs * bs + a * bs + c];
      PetscCall(MatSetValuesBlocked(*A, 1, &r, nc, cols, rowv, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  if (TestMats[idx].spd) {
    PetscBool mpibaij;

    PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
    /* PETSc 3.18's MPIBAIJ refuses MAT_SPD */
    PetscCall(PetscObjectTypeCompare((PetscObject)*A, MATMPIBAIJ, &mpibaij));
    if (!mpibaij) PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  }
  PetscCall(PetscFree5(dnnz, onnz, cols, vals, rowv));
  PetscCall(TestMatDestroy(&t));

  if (b) {
    PetscScalar *x;

    PetscCall(MatCreateVecs(*A, NULL, b));
    PetscCall(VecGetArray(*b, &x));
    for (PetscInt l = 0; l < nloc * bs; l++) x[l] = 2.0 * Uniform01(Hash64(TESTMAT_SEED_RHS, (uint64_t)(rstart * bs + l))) - 1.0;
    PetscCall(VecRestoreArray(*b, &x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* || y - ref ||_inf / || ref ||_inf */
PetscErrorCode PetscGILUTestVecRelDiff(Vec ref, Vec y, PetscReal *d)
{
  Vec       w;
  PetscReal nr, n;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(ref, &w));
  PetscCall(VecWAXPY(w, -1.0, ref, y));
  PetscCall(VecNorm(w, NORM_INFINITY, &n));
  PetscCall(VecNorm(ref, NORM_INFINITY, &nr));
  *d = PetscIsInfOrNanReal(n) || PetscIsInfOrNanReal(nr) ? PETSC_INFINITY : n / nr; /* a NaN would pass every "d > tol" */
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscReal PetscGILUTestArrayRelDiff(PetscInt n, const PetscScalar y[], const PetscScalar ref[])
{
  PetscReal d = 0, r = 0;

  for (PetscInt t = 0; t < n; t++) {
    /* a NaN or an infinity (an entry never written, arrays poisoned with NaN) differs: PetscMax() would drop a NaN */
    if (PetscIsInfOrNanScalar(y[t]) || PetscIsInfOrNanScalar(ref[t])) return PETSC_INFINITY;
    d = PetscMax(d, PetscAbsScalar(y[t] - ref[t]));
    r = PetscMax(r, PetscAbsScalar(ref[t]));
  }
  return r > 0 ? d / r : d;
}
