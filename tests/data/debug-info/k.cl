bool __attribute__((overloadable)) __spirv_SpecConstant(int, bool);
__global const char ids[16] __asm__("llvm.amdgcn.feature.predicate.ids") = "has.mai-insts 0";
float __attribute__((overloadable)) fast_path(float);
float __attribute__((overloadable)) slow_path(float);
__kernel void k(__global float *out, float a) {
  if (__spirv_SpecConstant(0, false))
    out[0] = fast_path(a);
  else
    out[0] = slow_path(a);
}
