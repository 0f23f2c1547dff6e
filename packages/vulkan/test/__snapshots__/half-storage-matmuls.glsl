#version 450
#extension GL_EXT_shader_16bit_storage : require
// kernel for matmul float[20000,1] (node 0a8fa1697273424eca9fd9d4): skinny matmul, 256 rows x 1 slots per workgroup, 1 k-slices
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float16_t v[]; } b1;
layout(std430, set = 0, binding = 2) writeonly restrict buffer Buf2 { float v[]; } b2;
shared float ppl_Bs[8];
shared float ppl_As[2304];
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 79) return;
  int tileId = gid / 1; int p = gid - tileId * 1;
  int bt = tileId / 79; int i0 = (tileId - bt * 79) * 256;
  int t = int(gl_LocalInvocationIndex); int slot = t / 256; int i = i0 + t - slot * 256;
  int kBegin = p * 16; int kEnd = min(16, kBegin + 16);
  float acc_0 = 0.00000000;
  for (int k0 = kBegin; k0 < kEnd; k0 += 8) {
    int rows = min(8, kEnd - k0);
    memoryBarrierShared(); barrier();
    for (int e = int(gl_LocalInvocationIndex); e < rows * 1; e += 256) {
      int rr = e / 1; int c = e - rr * 1;
      float t0 = b0.v[(k0 + rr)];
      ppl_Bs[e] = t0;
    }
    int ra0 = (0 + int(gl_LocalInvocationIndex)) / 8; int la0 = (0 + int(gl_LocalInvocationIndex)) - ra0 * 8;
    float t1 = float(b1.v[((min(i0 + ra0, 19999))*16+min(k0 + la0, 15))]);
    int ra1 = (256 + int(gl_LocalInvocationIndex)) / 8; int la1 = (256 + int(gl_LocalInvocationIndex)) - ra1 * 8;
    float t2 = float(b1.v[((min(i0 + ra1, 19999))*16+min(k0 + la1, 15))]);
    int ra2 = (512 + int(gl_LocalInvocationIndex)) / 8; int la2 = (512 + int(gl_LocalInvocationIndex)) - ra2 * 8;
    float t3 = float(b1.v[((min(i0 + ra2, 19999))*16+min(k0 + la2, 15))]);
    int ra3 = (768 + int(gl_LocalInvocationIndex)) / 8; int la3 = (768 + int(gl_LocalInvocationIndex)) - ra3 * 8;
    float t4 = float(b1.v[((min(i0 + ra3, 19999))*16+min(k0 + la3, 15))]);
    int ra4 = (1024 + int(gl_LocalInvocationIndex)) / 8; int la4 = (1024 + int(gl_LocalInvocationIndex)) - ra4 * 8;
    float t5 = float(b1.v[((min(i0 + ra4, 19999))*16+min(k0 + la4, 15))]);
    int ra5 = (1280 + int(gl_LocalInvocationIndex)) / 8; int la5 = (1280 + int(gl_LocalInvocationIndex)) - ra5 * 8;
    float t6 = float(b1.v[((min(i0 + ra5, 19999))*16+min(k0 + la5, 15))]);
    int ra6 = (1536 + int(gl_LocalInvocationIndex)) / 8; int la6 = (1536 + int(gl_LocalInvocationIndex)) - ra6 * 8;
    float t7 = float(b1.v[((min(i0 + ra6, 19999))*16+min(k0 + la6, 15))]);
    int ra7 = (1792 + int(gl_LocalInvocationIndex)) / 8; int la7 = (1792 + int(gl_LocalInvocationIndex)) - ra7 * 8;
    float t8 = float(b1.v[((min(i0 + ra7, 19999))*16+min(k0 + la7, 15))]);
    ppl_As[ra0 * 9 + la0] = t1;
    ppl_As[ra1 * 9 + la1] = t2;
    ppl_As[ra2 * 9 + la2] = t3;
    ppl_As[ra3 * 9 + la3] = t4;
    ppl_As[ra4 * 9 + la4] = t5;
    ppl_As[ra5 * 9 + la5] = t6;
    ppl_As[ra6 * 9 + la6] = t7;
    ppl_As[ra7 * 9 + la7] = t8;
    memoryBarrierShared(); barrier();
    if (slot == 0 && i < 20000) {
      for (int l = 0; l < rows; l++) {
        acc_0 += ppl_As[t * 9 + l] * ppl_Bs[l * 1 + 0];
      }
    }
  }
  if (slot == 0 && i < 20000) { b2.v[bt * 20000 + i * 1 + 0] = acc_0; }
}

// ----
#version 450
#extension GL_EXT_shader_16bit_storage : require
// kernel for matmul float[16,1] (node a62221092961fa56ad2090b2): skinny matmul, 16 rows x 16 slots per workgroup, 40 k-slices
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float16_t v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) writeonly restrict buffer Buf2 { float v[]; } b2; // scratch: 40 partial products per output
shared float ppl_red[256];
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 40) return;
  int tileId = gid / 40; int p = gid - tileId * 40;
  int bt = tileId / 1; int i0 = (tileId - bt * 1) * 16;
  int t = int(gl_LocalInvocationIndex); int slot = t / 16; int i = i0 + t - slot * 16;
  int kBegin = p * 500; int kEnd = min(20000, kBegin + 500);
  float acc_0 = 0.00000000;
  if (i < 16) {
    for (int l = kBegin + slot; l < kEnd; l += 16) {
      float t0 = float(b0.v[((l)*16+i)]);
      float t1 = t0;
      float t2 = b1.v[l];
      acc_0 += t1 * t2;
    }
  }
  ppl_red[0 + t] = acc_0;
  memoryBarrierShared(); barrier();
  if (slot == 0) {
    for (int s = 1; s < 16; s++) {
      acc_0 += ppl_red[0 + s * 16 + t];
    }
  }
  if (slot == 0 && i < 16) { b2.v[p * 16 + bt * 16 + i * 1 + 0] = acc_0; }
}

// ----
#version 450
// kernel for matmul float[16,1] (node a62221092961fa56ad2090b2): sum of 40 k-slices, 4 threads an output
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0; // scratch: 40 partial products per output
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
shared float ppl_lanes[256];
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int t = int(gl_LocalInvocationIndex); int j = t / 64; int o = t - j * 64; int u = gid * 64 + o;
  float acc = 0.00000000;
  if (u < 16) { for (int p = j; p < 40; p += 4) acc += b0.v[p * 16 + u]; }
  ppl_lanes[t] = acc;
  memoryBarrierShared(); barrier();
  for (int w = 2; w > 0; w >>= 1) { if (j < w) ppl_lanes[t] += ppl_lanes[t + w * 64]; memoryBarrierShared(); barrier(); }
  if (j == 0 && u < 16) { b1.v[u] = ppl_lanes[t]; }
}

// ----
#version 450
#extension GL_EXT_shader_16bit_storage : require
// kernel for matmul float[20000,32] (node 62739e098ed23499e3c7aadc): tiled matmul 32x32x16, 1 k-slices
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float16_t v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) writeonly restrict buffer Buf2 { float v[]; } b2;
shared float ppl_As[544];
shared float ppl_Bs[528];
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 625) return;
  int tileId = gid / 1; int p = gid - tileId * 1;
  int tc = tileId % 1; int tr = (tileId / 1) % 625; int bt = tileId / 625;
  int i0 = tr * 32; int j0 = tc * 32;
  int kBegin = p * 16; int kEnd = min(16, kBegin + 16);
  int t = int(gl_LocalInvocationIndex);
  int col = t % 32; int row0 = t / 32;
  float acc[4];
  for (int j = 0; j < 4; j++) acc[j] = 0.00000000;
  for (int k0 = kBegin; k0 < kEnd; k0 += 16) {
    for (int q = 0; q < 2; q++) {
      int e = int(gl_LocalInvocationIndex) + 256 * q;
      int r = e / 16; int c = e % 16;
      float val = 0.00000000;
      if (e < 512 && i0 + r < 20000 && k0 + c < kEnd) {
        float t0 = float(b0.v[(((i0 + r))*16+(k0 + c))]);
        val = t0;
      }
      if (e < 512) ppl_As[r * 17 + c] = val;
    }
    for (int q = 0; q < 2; q++) {
      int e = int(gl_LocalInvocationIndex) + 256 * q;
      int r = e / 32; int c = e % 32;
      float val = 0.00000000;
      if (e < 512 && k0 + r < kEnd && j0 + c < 32) {
        float t1 = b1.v[(((k0 + r))*32+(j0 + c))];
        val = t1;
      }
      if (e < 512) ppl_Bs[r * 33 + c] = val;
    }
    memoryBarrierShared(); barrier();
    for (int kk = 0; kk < 16; kk++) {
      float b = ppl_Bs[kk * 33 + col];
      for (int j = 0; j < 4; j++) acc[j] += ppl_As[(row0 + j * 8) * 17 + kk] * b;
    }
    memoryBarrierShared(); barrier();
  }
  for (int j = 0; j < 4; j++) {
    int i = i0 + row0 + j * 8; int jj = j0 + col;
    if (i < 20000 && jj < 32) { b2.v[(bt * 640000 + i * 32 + jj)] = acc[j]; }
  }
}
