#version 450
// structured-glsl: Shader-flavoured module (structured control flow: OpSelectionMerge /
// OpLoopMerge) whose two boolean spec constants act as feature predicates.
//   constant_id 0  P0  ~ has.mai-insts   (table entry "has.mai-insts 0")
//   constant_id 1  P1  ~ is.gfx1100      (table entry "is.gfx1100 1")
// The table itself cannot be written in GLSL: input.spvasm adds it by hand.
layout(local_size_x = 64) in;

layout(constant_id = 0) const bool P0 = false;
layout(constant_id = 1) const bool P1 = false;

layout(std430, set = 0, binding = 0) readonly buffer In1 { float v1[]; };
layout(std430, set = 0, binding = 0) readonly buffer In4 { vec4 v4[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float result[]; };
layout(push_constant) uniform Params { float scale; uint n; } pc;

void main() {
  uint gid = gl_GlobalInvocationID.x;
  float acc = 0.0;
  if (P0) {                             // "mai" path: vec4 loads
    vec4 a = vec4(0.0);
    uint base = gid * (pc.n / 4u);
    for (uint i = 0u; i < pc.n / 4u; ++i)
      a += v4[base + i];
    acc = (a.x + a.y) + (a.z + a.w);
  } else if (P1) {                      // "gfx1100" path: scalar loop, scaled
    uint base = gid * pc.n;
    for (uint i = 0u; i < pc.n; ++i)
      acc += v1[base + i] * pc.scale;
  } else {                              // fallback: scalar loop
    uint base = gid * pc.n;
    for (uint i = 0u; i < pc.n; ++i)
      acc += v1[base + i];
  }
  result[gid] = acc;
}
