#version 450
// kernel for matmul float[1000,1024] (node 59836151b90eda4e5a288b0d): wide row pass over X [1000,10] and 1024 columns, a thread a column, 63 chunks of 16 rows: η = X·B, 1 row sum, 1 product with Xᵀ
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly restrict buffer Buf0 { float v[]; } b0;
layout(std430, set = 0, binding = 1) readonly restrict buffer Buf1 { float v[]; } b1;
layout(std430, set = 0, binding = 2) readonly restrict buffer Buf2 { float v[]; } b2;
layout(std430, set = 0, binding = 3) writeonly restrict buffer Buf3 { float v[]; } b3; // scratch: 63 partial products per output
layout(std430, set = 0, binding = 4) writeonly restrict buffer Buf4 { float v[]; } b4; // scratch: 63 partial products per output
// (math prelude: f32)
void main() {
  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  if (gid >= 1008) return;
  int cg = gid % 16; int part = gid / 16;
  int c = cg * 64 + int(gl_LocalInvocationIndex); int cc = min(c, 1023);
  float t0 = b0.v[(cc)*10];
  float t1 = t0;
  float bk0 = t1;
  float t2 = b0.v[((cc)*10+1)];
  float t3 = t2;
  float bk1 = t3;
  float t4 = b0.v[((cc)*10+2)];
  float t5 = t4;
  float bk2 = t5;
  float t6 = b0.v[((cc)*10+3)];
  float t7 = t6;
  float bk3 = t7;
  float t8 = b0.v[((cc)*10+4)];
  float t9 = t8;
  float bk4 = t9;
  float t10 = b0.v[((cc)*10+5)];
  float t11 = t10;
  float bk5 = t11;
  float t12 = b0.v[((cc)*10+6)];
  float t13 = t12;
  float bk6 = t13;
  float t14 = b0.v[((cc)*10+7)];
  float t15 = t14;
  float bk7 = t15;
  float t16 = b0.v[((cc)*10+8)];
  float t17 = t16;
  float bk8 = t17;
  float t18 = b0.v[((cc)*10+9)];
  float t19 = t18;
  float bk9 = t19;
  float g0_0 = 0.00000000; float g0_1 = 0.00000000; float g0_2 = 0.00000000; float g0_3 = 0.00000000; float g0_4 = 0.00000000; float g0_5 = 0.00000000; float g0_6 = 0.00000000; float g0_7 = 0.00000000; float g0_8 = 0.00000000; float g0_9 = 0.00000000;
  float red0 = 0.00000000;
  int rowEnd = min(1000, part * 16 + 16);
  for (int n = part * 16; n < rowEnd; n++) {
    float t20 = b1.v[(n)*10];
    float t21 = b1.v[((n)*10+1)];
    float t22 = b1.v[((n)*10+2)];
    float t23 = b1.v[((n)*10+3)];
    float t24 = b1.v[((n)*10+4)];
    float t25 = b1.v[((n)*10+5)];
    float t26 = b1.v[((n)*10+6)];
    float t27 = b1.v[((n)*10+7)];
    float t28 = b1.v[((n)*10+8)];
    float t29 = b1.v[((n)*10+9)];
    float e = t20 * bk0 + t21 * bk1 + t22 * bk2 + t23 * bk3 + t24 * bk4 + t25 * bk5 + t26 * bk6 + t27 * bk7 + t28 * bk8 + t29 * bk9;
    float t30 = b2.v[n];
    float t31 = e;
    float t32 = t31;
    float t33 = (t30*t32);
    bool t34 = (t32>0.00000000);
    float t35 = abs(t32);
    float t36 = (-t35);
    float t37 = ppl_exp(t36);
    float t38 = ppl_log1p(t37);
    float t39 = (t32+t38);
    float t40 = (t34 ? t39 : t38);
    float t41 = (t33-t40);
    red0 += t41;
    bool t42 = (t32>=0.00000000);
    float t43 = (1.00000000+t37);
    float t44 = (1.00000000/t43);
    float t45 = (t37/t43);
    float t46 = (t42 ? t44 : t45);
    float t47 = ((-1.00000000)*t46);
    float t48 = (t47+t30);
    float t49 = t48;
    g0_0 += t20 * t49;
    g0_1 += t21 * t49;
    g0_2 += t22 * t49;
    g0_3 += t23 * t49;
    g0_4 += t24 * t49;
    g0_5 += t25 * t49;
    g0_6 += t26 * t49;
    g0_7 += t27 * t49;
    g0_8 += t28 * t49;
    g0_9 += t29 * t49;
  }
  if (c < 1024) {
    b3.v[part * 1024 + c] = red0;
    b4.v[part * 10240 + 0 + c] = g0_0;
    b4.v[part * 10240 + 1024 + c] = g0_1;
    b4.v[part * 10240 + 2048 + c] = g0_2;
    b4.v[part * 10240 + 3072 + c] = g0_3;
    b4.v[part * 10240 + 4096 + c] = g0_4;
    b4.v[part * 10240 + 5120 + c] = g0_5;
    b4.v[part * 10240 + 6144 + c] = g0_6;
    b4.v[part * 10240 + 7168 + c] = g0_7;
    b4.v[part * 10240 + 8192 + c] = g0_8;
    b4.v[part * 10240 + 9216 + c] = g0_9;
  }
}
