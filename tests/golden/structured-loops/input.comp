#version 450
// Predicates as GLSL boolean spec constants deciding loop entries and exits,
// so the structured loop constructs themselves are folded.
layout(local_size_x = 1) in;
layout(constant_id = 0) const bool P0 = false; // has.mai-insts
layout(constant_id = 1) const bool P1 = false; // is.gfx1100
layout(std430, binding = 0) buffer B { float data[]; };

void main() {
  uint n = uint(data[0]);
  float acc = 0.0;
  for (uint i = 0u; P0 && i < n; ++i) {
    acc += data[i + 1u];
  }
  while (P1) {
    acc *= 2.0;
    if (acc > 100.0) break;
  }
  do {
    acc += 1.0;
  } while (P0 && acc < 10.0);
  data[0] = acc;
}
