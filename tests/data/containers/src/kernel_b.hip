// Translation unit B: a second kernel, for the two-object executable and the
// shared library (see kernel_a.hip for why the runtime is declared here).
#define __global__ __attribute__((global))
typedef struct { unsigned x, y, z; } dim3;
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
extern "C" unsigned __hipPushCallConfiguration(dim3, dim3, unsigned long, hipStream_t);
extern "C" unsigned __hipPopCallConfiguration(dim3 *, dim3 *, unsigned long *, hipStream_t *);

__global__ void add(const int *a, const int *b, int *c, int n) {
  int i = __builtin_amdgcn_workitem_id_x();
  for (; i < n; i += 64) c[i] = a[i] + b[i];
}

extern "C" void launch_add(const int *a, const int *b, int *c, int n) {
  add<<<dim3{1, 1, 1}, dim3{64, 1, 1}, 0, 0>>>(a, b, c, n);
}
