// The NUTS controller's buffers after common.glsl's 0–7 (packages/ppl-vulkan/src/controller-program.ts
// includes this before common.glsl, whose checkpoint tables live in buffer 8): 8 vector state
// [C·NV·D] (the kept vectors, then the checkpoint tables by level), 9 real state [C·NRS], 10 int
// state [C·NIS] (phase, k, nLeap, depth, leaf, forward, divergent), 11 done counter (chains that
// finished the block), 12 the batched gradient's input positions [C·D], 13 its log densities [C],
// 14 its gradients [C·D].
layout(std430, set = 0, binding = 8) buffer VectorState { NREAL v[]; } bvs;
layout(std430, set = 0, binding = 9) buffer RealState { NREAL v[]; } brs;
layout(std430, set = 0, binding = 10) buffer IntState { int v[]; } bis;
layout(std430, set = 0, binding = 11) buffer Done { uint v[]; } bdone;
layout(std430, set = 0, binding = 12) writeonly buffer GradientQ { NREAL v[]; } bgq;
layout(std430, set = 0, binding = 13) readonly buffer GradientLp { NREAL v[]; } bglp;
layout(std430, set = 0, binding = 14) readonly buffer GradientG { NREAL v[]; } bgg;
