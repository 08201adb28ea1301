/* FPGen's meschach subjects on 32 doubles in [-100, 100]: -DSUBJECT_<NAME> selects one.
 * Vectors and matrices are built on the stack around the inputs (meschach's own
 * allocation would go through malloc, which the interpreter does not model); the
 * static work vectors LUfactor and QRfactor allocate come from the bump allocator
 * below, which the benchmark script substitutes for malloc/calloc/realloc/free in
 * every file with -Dmalloc=fpscout_bench_malloc (and so on). */
#include <stddef.h>
#include <string.h>
#include "fpscout.h"
#include "matrix.h"
#include "matrix2.h"

/* Defined in vecop.c, declared in no header. */
VEC *v_conv(VEC *x1, VEC *x2, VEC *out);

static unsigned char arena[1 << 16];
static size_t arena_used;

/* Each block starts with its size, so that realloc can copy it. */
void *malloc(size_t n) {
  size_t total = ((n + 15) & ~(size_t)15) + 16;
  if (arena_used + total > sizeof arena)
    return NULL;
  unsigned char *block = arena + arena_used;
  arena_used += total;
  *(size_t *)block = n;
  return block + 16;
}

void *calloc(size_t count, size_t size) {
  unsigned char *p = malloc(count * size);
  if (p)
    for (size_t i = 0; i < count * size; i++)
      p[i] = 0;
  return p;
}

void *realloc(void *old, size_t n) {
  unsigned char *p = malloc(n);
  if (p && old) {
    size_t had = *(size_t *)((unsigned char *)old - 16);
    for (size_t i = 0; i < had && i < n; i++)
      p[i] = ((unsigned char *)old)[i];
  }
  return p;
}

void free(void *p) { (void)p; }

/* meschach's allocation bookkeeping (meminfo.c, memstat.c) as no-ops: it only counts
 * and registers allocations, and its tables would link the sparse and complex parts of
 * the library too. No floating-point code reads it. */
int mem_info_is_on(void) { return 0; }
void mem_bytes_list(int type, int old_size, int new_size, int list) {
  (void)type, (void)old_size, (void)new_size, (void)list;
}
void mem_numvar_list(int type, int num, int list) { (void)type, (void)num, (void)list; }
int mem_stat_reg_list(void **var, int type, int list) {
  (void)var, (void)type, (void)list;
  return 0;
}

/* Filled in place: the interpreter does not model structs passed by value. */
static void vec(VEC *v, Real *ve, int dim) {
  v->dim = v->max_dim = dim;
  v->ve = ve;
}

static void mat(MAT *a, Real **rows, Real *base, int m, int n) {
  for (int i = 0; i < m; i++)
    rows[i] = base + i * n;
  a->m = a->max_m = m;
  a->n = a->max_n = n;
  a->max_size = m * n;
  a->me = rows;
  a->base = base;
}

int main(void) {
  Real x[32];
  fpscout_array(x, 32, "x", -100, 100);
#if defined(SUBJECT_SUM)
  VEC v;
  vec(&v, x, 32);
  fpscout_result(v_sum(&v));
#elif defined(SUBJECT_NORM1)
  VEC v;
  vec(&v, x, 32);
  fpscout_result(_v_norm1(&v, VNULL));
#elif defined(SUBJECT_NORM2)
  VEC v;
  vec(&v, x, 32);
  fpscout_result(_v_norm2(&v, VNULL));
#elif defined(SUBJECT_DOT)
  VEC a, b;
  vec(&a, x, 16);
  vec(&b, x + 16, 16);
  fpscout_result(_in_prod(&a, &b, 0));
#elif defined(SUBJECT_CONV)
  Real out_ve[31];
  VEC a, b, out;
  vec(&a, x, 16);
  vec(&b, x + 16, 16);
  vec(&out, out_ve, 31);
  v_conv(&a, &b, &out);
  fpscout_result_array(out_ve, 31);
#elif defined(SUBJECT_MV)
  Real *rows[3], y_ve[3];
  MAT a;
  VEC b, y;
  mat(&a, rows, x, 3, 8);
  vec(&b, x + 24, 8);
  vec(&y, y_ve, 3);
  mv_mlt(&a, &b, &y);
  fpscout_result_array(y_ve, 3);
#elif defined(SUBJECT_MM)
  Real *ra[4], *rb[4], *rc[4], c_base[16];
  MAT a, b, c;
  mat(&a, ra, x, 4, 4);
  mat(&b, rb, x + 16, 4, 4);
  mat(&c, rc, c_base, 4, 4);
  m_mlt(&a, &b, &c);
  fpscout_result_array(c_base, 16);
#elif defined(SUBJECT_LU)
  Real *rows[5];
  u_int pe[5];
  MAT a;
  PERM pivot = {5, 5, pe};
  mat(&a, rows, x, 5, 5);
  LUfactor(&a, &pivot);
  fpscout_result_array(x, 25);
#elif defined(SUBJECT_QR)
  Real *rows[8], diag_ve[4];
  MAT a;
  VEC diag;
  mat(&a, rows, x, 8, 4);
  vec(&diag, diag_ve, 4);
  QRfactor(&a, &diag);
  fpscout_result_array(x, 32);
  fpscout_result_array(diag_ve, 4);
#else
#error "define one SUBJECT_<NAME>"
#endif
  return 0;
}
