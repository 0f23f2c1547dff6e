#version 450
// 2 independent kernels in one dispatch, each on its own workgroups:
//   part 0: reduce_sum [1024] (node 49a3567490b222fbc75b8aaa)
//   part 1: matmul [200,1024] (node c29d74273963bf6d5cd553a8): tiled matmul 32x32x4, 1 k-slices
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3;
shared float ppl_As[160];
shared float ppl_Bs[132];
int ppl_imod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
// (shaders/prelude, float: left out of the golden)
// part 0: reduce_sum [1024] (node 49a3567490b222fbc75b8aaa)
void ppl_part0(int gid, uint ppl_lid) {
  if (gid >= 16) return;
  int u = gid * 64 + int(ppl_lid);
  if (u >= 1024) return;
  float acc0 = 0.00000000;
  for (int k1 = 0; k1 < 3; k1++) {
    float t2 = b0.v[((u)*4+(1+k1))];
    float t3 = t2;
    float t4 = (t3/2.50000000);
    float t5 = (t4*t4);
    float t6 = (0.500000000*t5);
    float t7 = (t6+0.916290760);
    float t8 = (-t7);
    float t9 = (t8-0.918938518);
    acc0 = acc0 + t9;
  }
  b1.v[u] = acc0;
}
// part 1: matmul [200,1024] (node c29d74273963bf6d5cd553a8): tiled matmul 32x32x4, 1 k-slices
void ppl_part1(int gid, uint ppl_lid) {
  if (gid >= 224) return;
  int tileId = gid / 1; int p = gid - tileId * 1;
  int tc = tileId % 32; int tr = (tileId / 32) % 7; int bt = tileId / 224;
  int i0 = tr * 32; int j0 = tc * 32;
  int kBegin = p * 4; int kEnd = min(3, kBegin + 4);
  int t = int(ppl_lid);
  int col = t % 32; int row0 = t / 32;
  float acc[4];
  for (int j = 0; j < 4; j++) acc[j] = 0.00000000;
  for (int k0 = kBegin; k0 < kEnd; k0 += 4) {
    for (int q = 0; q < 1; q++) {
      int e = int(ppl_lid) + 256 * q;
      int r = e / 4; int c = e % 4;
      float val = 0.00000000;
      if (e < 128 && i0 + r < 200 && k0 + c < kEnd) {
        float t0 = b2.v[(((i0 + r))*3+(k0 + c))];
        val = t0;
      }
      if (e < 128) ppl_As[r * 5 + c] = val;
    }
    for (int q = 0; q < 1; q++) {
      int e = int(ppl_lid) + 256 * q;
      int r = e % 4; int c = e / 4;
      float val = 0.00000000;
      if (e < 128 && k0 + r < kEnd && j0 + c < 1024) {
        float t1 = b0.v[(((j0 + c))*4+(1+(k0 + r)))];
        float t2 = t1;
        float t3 = t2;
        val = t3;
      }
      if (e < 128) ppl_Bs[r * 33 + c] = val;
    }
    memoryBarrierShared(); barrier();
    for (int kk = 0; kk < 4; kk++) {
      float b = ppl_Bs[kk * 33 + col];
      for (int j = 0; j < 4; j++) acc[j] += ppl_As[(row0 + j * 8) * 5 + kk] * b;
    }
    memoryBarrierShared(); barrier();
  }
  for (int j = 0; j < 4; j++) {
    int i = i0 + row0 + j * 8; int jj = j0 + col;
    if (i < 200 && jj < 1024) { b3.v[(bt * 204800 + i * 1024 + jj)] = acc[j]; }
  }
}
void main() {
  int g = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (g < 4) { ppl_part0(g * 4 + int(gl_LocalInvocationIndex / 64u), gl_LocalInvocationIndex % 64u); return; }
  g -= 4;
  if (g < 224) { ppl_part1(g, gl_LocalInvocationIndex); return; }
}

// ----
#version 450
// 3 independent kernels in one dispatch, each on its own workgroups:
//   part 0: reduce_sum [1024] (node 278afb076c2a4bf460e79778)
//   part 1: transpose [200,1024] (node 17c6b9add313d97492a5dc31)
//   part 2: reduce_sum [1024] (node 36ec56faf387ab2d8e5010c4)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3;
layout(std430, set = 0, binding = 4) writeonly restrict buffer Buf4 { float v[]; } b4;
layout(std430, set = 0, binding = 5) writeonly restrict buffer Buf5 { float v[]; } b5;
int ppl_imod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
// (shaders/prelude, float: left out of the golden)
// part 0: reduce_sum [1024] (node 278afb076c2a4bf460e79778)
void ppl_part0(int gid, uint ppl_lid) {
  if (gid >= 16) return;
  int u = gid * 64 + int(ppl_lid);
  if (u >= 1024) return;
  float acc0 = 0.00000000;
  for (int k1 = 0; k1 < 200; k1++) {
    float t2 = b0.v[k1];
    bool t3 = (t2>=0.00000000);
    bool t4 = (t2<=1.00000000);
    bool t5 = (t3&&t4);
    float t6 = (2.00000000*t2);
    float t7 = (t6-1.00000000);
    float t8 = b1.v[(u)*4];
    float t9 = t8;
    float t10 = b2.v[((k1)*1024+u)];
    float t11 = t10;
    float t12 = (t9+t11);
    float t13 = (t7*t12);
    float t14 = ppl_log_sigmoid(t13);
    float t15 = (t5 ? t14 : uintBitsToFloat(0xff800000u));
    acc0 = acc0 + t15;
  }
  b3.v[u] = acc0;
}
// part 1: transpose [200,1024] (node 17c6b9add313d97492a5dc31)
void ppl_part1(int gid, uint ppl_lid) {
  if (gid >= 3200) return;
  int u = gid * 64 + int(ppl_lid);
  if (u >= 204800) return;
  float t0 = b0.v[(u)/1024];
  bool t1 = (t0>=0.00000000);
  bool t2 = (t0<=1.00000000);
  bool t3 = (t1&&t2);
  float t4 = (t3 ? 1.00000000 : 0.00000000);
  float t5 = (2.00000000*t0);
  float t6 = (t5-1.00000000);
  float t7 = b1.v[((u)%1024)*4];
  float t8 = t7;
  float t9 = b2.v[(((u)/1024)*1024+(u)%1024)];
  float t10 = t9;
  float t11 = (t8+t10);
  float t12 = (t6*t11);
  float t13 = (-t12);
  float t14 = ppl_sigmoid(t13);
  float t15 = (t4*t14);
  float t16 = (t15*t6);
  b4.v[u] = t16;
}
// part 2: reduce_sum [1024] (node 36ec56faf387ab2d8e5010c4)
void ppl_part2(int gid, uint ppl_lid) {
  if (gid >= 16) return;
  int u = gid * 64 + int(ppl_lid);
  if (u >= 1024) return;
  float acc0 = 0.00000000;
  for (int k1 = 0; k1 < 200; k1++) {
    float t2 = b0.v[k1];
    bool t3 = (t2>=0.00000000);
    bool t4 = (t2<=1.00000000);
    bool t5 = (t3&&t4);
    float t6 = (t5 ? 1.00000000 : 0.00000000);
    float t7 = (2.00000000*t2);
    float t8 = (t7-1.00000000);
    float t9 = b1.v[(u)*4];
    float t10 = t9;
    float t11 = b2.v[((k1)*1024+u)];
    float t12 = t11;
    float t13 = (t10+t12);
    float t14 = (t8*t13);
    float t15 = (-t14);
    float t16 = ppl_sigmoid(t15);
    float t17 = (t6*t16);
    float t18 = (t17*t8);
    acc0 = acc0 + t18;
  }
  b5.v[u] = acc0;
}
void main() {
  int g = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (g < 16) { ppl_part0(g, gl_LocalInvocationIndex); return; }
  g -= 16;
  if (g < 3200) { ppl_part1(g, gl_LocalInvocationIndex); return; }
  g -= 3200;
  if (g < 16) { ppl_part2(g, gl_LocalInvocationIndex); return; }
}

// ----
#version 450
// 2 independent kernels in one dispatch, each on its own workgroups:
//   part 0: add [1024] (node 7019cebcc7e7cd64898e9fb7)
//   part 1: matmul [3,1024] (node 17f1d6e6f890cca7915448c9): tiled matmul 4x32x16, 4 k-slices, the last merges them
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3;
layout(std430, set = 0, binding = 4) readonly restrict buffer Buf4 { float v[]; } b4;
layout(std430, set = 0, binding = 5) readonly restrict buffer Buf5 { float v[]; } b5;
layout(std430, set = 0, binding = 6) coherent restrict buffer Buf6 { float v[]; } b6; // scratch: 4 partial products per output
layout(std430, set = 0, binding = 7) coherent restrict buffer Buf7 { int v[]; } b7; // scratch: k-slices of each matmul tile done
layout(std430, set = 0, binding = 8) writeonly restrict buffer Buf8 { float v[]; } b8;
shared float ppl_As[68];
shared float ppl_Bs[528];
shared int ppl_done;
int ppl_imod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
// (shaders/prelude, float: left out of the golden)
// part 0: add [1024] (node 7019cebcc7e7cd64898e9fb7)
void ppl_part0(int gid, uint ppl_lid) {
  if (gid >= 16) return;
  int u = gid * 64 + int(ppl_lid);
  if (u >= 1024) return;
  float t0 = b0.v[(u)*4];
  float t1 = t0;
  float t2 = t1;
  float t3 = (t2/2.50000000);
  float t4 = (t3*t3);
  float t5 = (0.500000000*t4);
  float t6 = (t5+0.916290760);
  float t7 = (-t6);
  float t8 = (t7-0.918938518);
  float t9 = b1.v[u];
  float t10 = (t8+t9);
  float t11 = b2.v[u];
  b3.v[u] = (t10+t11);
}
// part 1: matmul [3,1024] (node 17f1d6e6f890cca7915448c9): tiled matmul 4x32x16, 4 k-slices, the last merges them
void ppl_part1(int gid, uint ppl_lid) {
  if (gid >= 128) return;
  int tileId = gid / 4; int p = gid - tileId * 4;
  int tc = tileId % 32; int tr = (tileId / 32) % 1; int bt = tileId / 32;
  int i0 = tr * 4; int j0 = tc * 32;
  int kBegin = p * 64; int kEnd = min(200, kBegin + 64);
  int t = int(ppl_lid);
  int col = t % 32; int row0 = t / 32;
  float acc[1];
  for (int j = 0; j < 1; j++) acc[j] = 0.00000000;
  for (int k0 = kBegin; k0 < kEnd; k0 += 16) {
    for (int q = 0; q < 1; q++) {
      int e = int(ppl_lid) + 128 * q;
      int r = e % 4; int c = e / 4;
      float val = 0.00000000;
      if (e < 64 && i0 + r < 3 && k0 + c < kEnd) {
        float t0 = b4.v[(((k0 + c))*3+(i0 + r))];
        float t1 = t0;
        val = t1;
      }
      if (e < 64) ppl_As[r * 17 + c] = val;
    }
    for (int q = 0; q < 4; q++) {
      int e = int(ppl_lid) + 128 * q;
      int r = e % 16; int c = e / 16;
      float val = 0.00000000;
      if (e < 512 && k0 + r < kEnd && j0 + c < 1024) {
        float t2 = b5.v[(((k0 + r))*1024+(j0 + c))];
        val = t2;
      }
      if (e < 512) ppl_Bs[r * 33 + c] = val;
    }
    memoryBarrierShared(); barrier();
    for (int kk = 0; kk < 16; kk++) {
      float b = ppl_Bs[kk * 33 + col];
      for (int j = 0; j < 1; j++) acc[j] += ppl_As[(row0 + j * 4) * 17 + kk] * b;
    }
    memoryBarrierShared(); barrier();
  }
  for (int j = 0; j < 1; j++) {
    int i = i0 + row0 + j * 4; int jj = j0 + col;
    if (i < 3 && jj < 1024) { b6.v[p * 3072 + (bt * 3072 + i * 1024 + jj)] = acc[j]; }
  }
  memoryBarrierBuffer(); memoryBarrierShared(); barrier();
  if (ppl_lid == 0) ppl_done = atomicAdd(b7.v[tileId], 1);
  memoryBarrierShared(); barrier();
  if (ppl_done != 3) return;
  memoryBarrierBuffer();
  for (int j = 0; j < 1; j++) {
    int i = i0 + row0 + j * 4; int jj = j0 + col;
    if (i < 3 && jj < 1024) { float sum = 0.00000000; for (int q = 0; q < 4; q++) sum += b6.v[q * 3072 + (bt * 3072 + i * 1024 + jj)]; b8.v[(bt * 3072 + i * 1024 + jj)] = sum; }
  }
  if (ppl_lid == 0) b7.v[tileId] = 0;
}
void main() {
  int g = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (g < 8) { ppl_part0(g * 2 + int(gl_LocalInvocationIndex / 64u), gl_LocalInvocationIndex % 64u); return; }
  g -= 8;
  if (g < 128) { ppl_part1(g, gl_LocalInvocationIndex); return; }
}

// ----
#version 450
// kernel for add float[1024,4] (node 81a0d6e1a5f04689f8387987)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3;
int ppl_imod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
// (shaders/prelude, float: left out of the golden)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 64) return;
  int u = gid * 64 + int(gl_LocalInvocationIndex);
  if (u >= 4096) return;
  float t0 = b0.v[((clamp(((u)%4-1), 0, 2))*1024+(u)/4)];
  float t1 = t0;
  float t2 = b1.v[(((u)/4)*4+(1+clamp(((u)%4-1), 0, 2)))];
  float t3 = t2;
  float t4 = (t3/2.50000000);
  float t5 = (t4*2.00000000);
  float t6 = ((-0.500000000)*t5);
  float t7 = (t6/2.50000000);
  float t8 = (t1+t7);
  float t9 = ((((u)%4-1) >= 0 && ((u)%4-1) < 3) ? t8 : 0.00000000);
  float t10 = b2.v[(u)/4];
  float t11 = b1.v[((u)/4)*4];
  float t12 = t11;
  float t13 = t12;
  float t14 = (t13/2.50000000);
  float t15 = (t14*2.00000000);
  float t16 = ((-0.500000000)*t15);
  float t17 = (t16/2.50000000);
  float t18 = (t10+t17);
  float t19 = t18;
  float t20 = (((u)%4 >= 0 && (u)%4 < 1) ? t19 : 0.00000000);
  b3.v[u] = (t9+t20);
}
