#version 450
// kernel for data int[12] (node 1a110fde035fe2b312aeec9a): segment sort pass 1 of 1: count each block's digits
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { int v[]; } b0;
layout(std430, set = 0, binding = 1) writeonly restrict buffer Buf1 { int v[]; } b1; // scratch: segment sort: 8 digit counts for each of 1 blocks of 256 entries
// (prelude)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int blk = gid * 64 + int(gl_LocalInvocationIndex);
  if (blk >= 1) return;
  int cnt[8];
  for (int d = 0; d < 8; d++) cnt[d] = 0;
  for (int i = blk * 256; i < min(12, (blk + 1) * 256); i++) {
    int p = i;
    int t0 = b0.v[p];
    int key1 = (t0 >= 0 && t0 < 5) ? t0 : 5;
    int d = key1 & 7;
    cnt[d] += 1;
  }
  for (int d = 0; d < 8; d++) b1.v[d * 1 + blk] = cnt[d];
}
// ----
#version 450
// kernel for data int[12] (node 1a110fde035fe2b312aeec9a): segment sort pass 1 of 1: exclusive scan of the digit counts
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) restrict buffer Buf0 { int v[]; } b0; // scratch: segment sort: 8 digit counts for each of 1 blocks of 256 entries
shared int ppl_scan[256];
// (prelude)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int t = int(gl_LocalInvocationIndex);
  int lo = t * 1, hi = min(8, lo + 1);
  int run = 0;
  for (int i = lo; i < hi; i++) run += b0.v[i];
  ppl_scan[t] = run;
  memoryBarrierShared(); barrier();
  if (t == 0) { int s = 0; for (int i = 0; i < 256; i++) { int v = ppl_scan[i]; ppl_scan[i] = s; s += v; } }
  memoryBarrierShared(); barrier();
  run = ppl_scan[t];
  for (int i = lo; i < hi; i++) { int v = b0.v[i]; b0.v[i] = run; run += v; }
}
// ----
#version 450
// kernel for data int[12] (node 1a110fde035fe2b312aeec9a): segment sort pass 1 of 1: place each block's positions at their starts, in order
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { int v[]; } b0; // scratch: segment sort: 8 digit counts for each of 1 blocks of 256 entries
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { int v[]; } b1;
layout(std430, set = 0, binding = 2) writeonly restrict buffer Buf2 { int v[]; } b2; // scratch: segment sort: positions after even passes
// (prelude)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int blk = gid * 64 + int(gl_LocalInvocationIndex);
  if (blk >= 1) return;
  int cnt[8];
  for (int d = 0; d < 8; d++) cnt[d] = b0.v[d * 1 + blk];
  for (int i = blk * 256; i < min(12, (blk + 1) * 256); i++) {
    int p = i;
    int t0 = b1.v[p];
    int key1 = (t0 >= 0 && t0 < 5) ? t0 : 5;
    int d = key1 & 7;
    b2.v[cnt[d]] = p; cnt[d] += 1;
  }
}
// ----
#version 450
// kernel for data int[12] (node 1a110fde035fe2b312aeec9a): segment offsets of 5 targets (binary search over the sorted entries)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { int v[]; } b0; // scratch: segment sort: positions after even passes
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { int v[]; } b1;
layout(std430, set = 0, binding = 2) writeonly restrict buffer Buf2 { int v[]; } b2; // scratch: segment offsets of 5 targets
// (prelude)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int j = gid * 64 + int(gl_LocalInvocationIndex);
  if (j > 5) return;
  int lo = 0, hi = 12;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    int p = b0.v[mid];
    int t0 = b1.v[p];
    int key1 = (t0 >= 0 && t0 < 5) ? t0 : 5;
    if (key1 < j) lo = mid + 1; else hi = mid;
  }
  b2.v[j] = lo;
}
// ----
#version 450
// kernel for scatter_add float[2,5,3] (node 39c1dd790cca6b4b4a8d4992)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { int v[]; } b0; // scratch: segment offsets of 5 targets
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { int v[]; } b1; // scratch: segment sort: positions after even passes
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3;
// (prelude)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int u = gid * 64 + int(gl_LocalInvocationIndex);
  if (u >= 30) return;
  float acc0 = 0.00000000;
  int lo1 = b0.v[((u)/3)%5];
  int hi2 = b0.v[(((u)/3)%5+1)];
  for (int s3 = lo1; s3 < hi2; s3++) {
    int p4 = b1.v[s3];
    float t5 = b2.v[(((u)/15)*36+(p4)*3+(u)%3)];
    acc0 += t5;
  }
  b3.v[u] = acc0;
}
