// ===== program =====
// 5 kernel(s) for 22 nodes; outputs: n14, n21
const b14 = OUT[0], b14o = OUTOFF[0]; // output 0: n14 add f64[]
const b21 = OUT[1], b21o = OUTOFF[1]; // output 1: n21 sub f64[3]
const b0 = IN[0], b0o = INOFF[0]; // n0 data 'y' f64[6]
const b1 = IN[1], b1o = INOFF[1]; // n1 data 'X' f64[6,3]
const b2 = IN[2], b2o = INOFF[2]; // n2 param 'beta' f64[3]
const b4 = T[0]; // n4 matmul f64[6,1]
const b17 = T[1]; // n17 sub f64[6]
const b19 = T[2]; // n19 matmul f64[3,1]

// kernel 0: n4 matmul f64[6,1] = matmul(n1, n3)
{
  // loop order i, l unrolled (dot products with a short vector)
  const ao4 = b1o, bo4 = b2o, oo4 = 0;
  const bv0 = b2[bo4], bv1 = b2[bo4 + 1], bv2 = b2[bo4 + 2];
  for (let i = 0; i < 6; i++) {
    const ai = ao4 + i * 3;
    b4[oo4 + i] = 0 + b1[ai] * bv0 + b1[ai + 1] * bv1 + b1[ai + 2] * bv2;
  }
}

// kernel 1: loop over []; fuses n9 reduce_sum, n6 mul, n7 softplus, n8 sub, n12 reduce_sum, n11 square, n13 mul, n14 add (stored)
{
  // n9 reduce_sum over axes [0] of [6]
  let acc9 = 0;
  {
    for (let i0 = 0; i0 < 6; i0++) {
      const v6 = b0[b0o + i0] * b4[i0];
      const a7 = b4[i0];
      const e7 = Math.exp(-Math.abs(a7));
      const v7 = (a7 > 0 ? a7 + Math.log1p(e7) : Math.log1p(e7));
      const v8 = v6 - v7;
      acc9 += v8;
    }
  }
  const v9 = acc9;
  // n12 reduce_sum over axes [0] of [3]
  let acc12 = 0;
  {
    {
      const i1 = 0;
      const v11 = b2[b2o + i1] * b2[b2o + i1];
      acc12 += v11;
    }
    {
      const i1 = 1;
      const v11 = b2[b2o + i1] * b2[b2o + i1];
      acc12 += v11;
    }
    {
      const i1 = 2;
      const v11 = b2[b2o + i1] * b2[b2o + i1];
      acc12 += v11;
    }
  }
  const v12 = acc12;
  const v13 = (-0.5) * v12;
  const v14 = v9 + v13;
  b14[b14o] = v14;
}

// kernel 2: loop over [6]; fuses n16 sigmoid, n17 sub (stored)
{
  for (let i0 = 0; i0 < 6; i0++) {
    const a16 = b4[i0];
    const e16 = Math.exp(-Math.abs(a16));
    const v16 = (a16 >= 0 ? 1 / (1 + e16) : e16 / (1 + e16));
    const v17 = b0[b0o + i0] - v16;
    b17[i0] = v17;
  }
}

// kernel 3: n19 matmul f64[3,1] = matmul(n15, n18)
{
  // loop order l, i, j (A is stored transposed)
  const ao19 = b1o, bo19 = 0, oo19 = 0;
  for (let f = 0; f < 3; f++) b19[oo19 + f] = 0;
  for (let l = 0; l < 6; l++) {
    const al = ao19 + l * 3, bl = bo19 + l;
    const bv = b17[bl];
    for (let i = 0; i < 3; i++) b19[oo19 + i] += b1[al + i] * bv;
  }
}

// kernel 4: loop over [3]; fuses n21 sub (stored)
{
  {
    const i0 = 0;
    const v21 = b19[i0] - b2[b2o + i0];
    b21[b21o + i0] = v21;
  }
  {
    const i0 = 1;
    const v21 = b19[i0] - b2[b2o + i0];
    b21[b21o + i0] = v21;
  }
  {
    const i0 = 2;
    const v21 = b19[i0] - b2[b2o + i0];
    b21[b21o + i0] = v21;
  }
}