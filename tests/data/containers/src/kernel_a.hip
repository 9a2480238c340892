// Translation unit A: one kernel and its launcher, compiled without HIP
// headers (-nogpulib -nogpuinc), so the runtime entry points a kernel launch
// needs are declared here.
#define __global__ __attribute__((global))
typedef struct { unsigned x, y, z; } dim3;
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
extern "C" unsigned __hipPushCallConfiguration(dim3, dim3, unsigned long, hipStream_t);
extern "C" unsigned __hipPopCallConfiguration(dim3 *, dim3 *, unsigned long *, hipStream_t *);

__global__ void scale(float *x, float s, int n) {
  int i = __builtin_amdgcn_workitem_id_x();
  if (i < n) x[i] *= s;
}

extern "C" void launch_scale(float *x, float s, int n) {
  scale<<<dim3{1, 1, 1}, dim3{64, 1, 1}, 0, 0>>>(x, s, n);
}
