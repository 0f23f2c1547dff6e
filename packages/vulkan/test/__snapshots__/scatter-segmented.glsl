#version 450
// kernel for scatter_add float[2,5,3] (node a0d039407ae739a7e3ccba72)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { int v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { int v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3;
// (prelude)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1) return;
  int u = gid * 64 + int(gl_LocalInvocationIndex);
  if (u >= 30) return;
  float acc0 = 0.00000000;
  int t5 = b0.v[((u)/3)%5];
  int lo1 = t5;
  int t6 = b0.v[(((u)/3)%5+1)];
  int hi2 = t6;
  for (int s3 = lo1; s3 < hi2; s3++) {
    int t7 = b1.v[s3];
    int p4 = t7;
    float t8 = b2.v[(((u)/15)*36+(p4)*3+(u)%3)];
    acc0 += t8;
  }
  b3.v[u] = acc0;
}
