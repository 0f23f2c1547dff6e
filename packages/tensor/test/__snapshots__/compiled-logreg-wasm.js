// ===== program =====
// 5 kernel(s) for 22 nodes; outputs: n14, n21
const b14 = OUT[0], b14o = OUTOFF[0]; // output 0: n14 add f64[]
const b21 = OUT[1], b21o = OUTOFF[1]; // output 1: n21 sub f64[47]
const b0 = IN[0], b0o = INOFF[0]; // n0 data 'y' f64[700]
const b1 = IN[1], b1o = INOFF[1]; // n1 data 'X' f64[700,47]
const b2 = IN[2], b2o = INOFF[2]; // n2 param 'beta' f64[47]
const b4 = T[0]; // n4 matmul f64[700,1]
const b17 = T[1]; // n17 sub f64[700]
const b19 = T[2]; // n19 matmul f64[47,1]

// kernel 0: n4 matmul f64[700,1] = matmul(n1, n3)
{
  // loop order i, j, l (dot products); WebAssembly dot when the kernels have X
  const ao4 = b1o, bo4 = b2o, oo4 = 0;
  if (W === undefined || !W.dot(b1, ao4, b2, bo4, b4, oo4, 700, 47)) {
    for (let i = 0; i < 700; i++) {
      const ai = ao4 + i * 47;
      const bj = bo4;
      let s = 0;
      for (let l = 0; l < 47; l++) s += b1[ai + l] * b2[bj + l];
      b4[oo4 + i] = s;
    }
  }
}

// kernel 1: loop over []; fuses n9 reduce_sum, n6 mul, n7 softplus, n8 sub, n12 reduce_sum, n11 square, n13 mul, n14 add (stored)
{
  // n9 reduce_sum over axes [0] of [700]
  let acc9 = 0;
  {
    for (let i0 = 0; i0 < 700; i0++) {
      const v6 = b0[b0o + i0] * b4[i0];
      const a7 = b4[i0];
      const e7 = Math.exp(-Math.abs(a7));
      const v7 = (a7 > 0 ? a7 + Math.log1p(e7) : Math.log1p(e7));
      const v8 = v6 - v7;
      acc9 += v8;
    }
  }
  const v9 = acc9;
  // n12 reduce_sum over axes [0] of [47]
  let acc12 = 0;
  {
    for (let i1 = 0; i1 < 47; i1++) {
      const v11 = b2[b2o + i1] * b2[b2o + i1];
      acc12 += v11;
    }
  }
  const v12 = acc12;
  const v13 = (-0.5) * v12;
  const v14 = v9 + v13;
  b14[b14o] = v14;
}

// kernel 2: loop over [700]; fuses n16 sigmoid, n17 sub (stored)
{
  for (let i0 = 0; i0 < 700; i0++) {
    const a16 = b4[i0];
    const e16 = Math.exp(-Math.abs(a16));
    const v16 = (a16 >= 0 ? 1 / (1 + e16) : e16 / (1 + e16));
    const v17 = b0[b0o + i0] - v16;
    b17[i0] = v17;
  }
}

// kernel 3: n19 matmul f64[47,1] = matmul(n15, n18)
{
  // loop order l, i, j (A is stored transposed); WebAssembly dotTransposed when the kernels have X
  const ao19 = b1o, bo19 = 0, oo19 = 0;
  if (W === undefined || !W.dotTransposed(b1, ao19, b17, bo19, b19, oo19, 47, 700)) {
    for (let f = 0; f < 47; f++) b19[oo19 + f] = 0;
    for (let l = 0; l < 700; l++) {
      const al = ao19 + l * 47, bl = bo19 + l;
      const bv = b17[bl];
      for (let i = 0; i < 47; i++) b19[oo19 + i] += b1[al + i] * bv;
    }
  }
}

// kernel 4: loop over [47]; fuses n21 sub (stored)
{
  for (let i0 = 0; i0 < 47; i0++) {
    const v21 = b19[i0] - b2[b2o + i0];
    b21[b21o + i0] = v21;
  }
}