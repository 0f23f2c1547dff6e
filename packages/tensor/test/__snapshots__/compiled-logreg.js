// ===== program =====
// 3 kernel(s) for 52 nodes; outputs: n31, n51
const b31 = OUT[0], b31o = OUTOFF[0]; // output 0: n31 add f64[]
const b51 = OUT[1], b51o = OUTOFF[1]; // output 1: n51 sub f64[3]
const b0 = IN[0], b0o = INOFF[0]; // n0 data 'y' f64[6]
const b2 = IN[1], b2o = INOFF[1]; // n2 data 'X' f64[6,3]
const b5 = IN[2], b5o = INOFF[2]; // n5 param 'beta' f64[3]
const b38 = T[0]; // n38 reduce_sum f64[]
const b43 = T[1]; // n43 reduce_sum f64[]
const b48 = T[2]; // n48 reduce_sum f64[]
const b50 = T[3]; // n50 concat f64[3]

// kernel 0: loop over []; fuses n26 reduce_sum, n9 mul, n10 add, n15 mul, n16 add, n21 mul, n22 add, n23 mul, n24 softplus, n25 sub, n35 sigmoid, n36 sub, n37 mul, n42 mul, n47 mul, n29 reduce_sum, n28 square, n30 mul, n31 add (stored), n38 reduce_sum (stored), n43 reduce_sum (stored), n48 reduce_sum (stored)
{
  // n26 reduce_sum, n38 reduce_sum, n43 reduce_sum, n48 reduce_sum over axes [0] of [6]
  let acc26 = 0;
  let acc38 = 0;
  let acc43 = 0;
  let acc48 = 0;
  {
    const h0 = b5[b5o];
    const h1 = b5[b5o + 1];
    const h2 = b5[b5o + 2];
    for (let i0 = 0; i0 < 6; i0++) {
      const v9 = b2[b2o + i0 * 3] * h0;
      const v10 = 0 + v9;
      const v15 = b2[b2o + 1 + i0 * 3] * h1;
      const v16 = v10 + v15;
      const v21 = b2[b2o + 2 + i0 * 3] * h2;
      const v22 = v16 + v21;
      const v23 = b0[b0o + i0] * v22;
      const e24 = Math.exp(-Math.abs(v22));
      const v24 = (v22 > 0 ? v22 + Math.log1p(e24) : Math.log1p(e24));
      const v25 = v23 - v24;
      const v35 = (v22 >= 0 ? 1 / (1 + e24) : e24 / (1 + e24));
      const v36 = b0[b0o + i0] - v35;
      const v37 = b2[b2o + i0 * 3] * v36;
      const v42 = b2[b2o + 1 + i0 * 3] * v36;
      const v47 = b2[b2o + 2 + i0 * 3] * v36;
      acc26 += v25;
      acc38 += v37;
      acc43 += v42;
      acc48 += v47;
    }
  }
  const v26 = acc26;
  const v38 = acc38;
  const v43 = acc43;
  const v48 = acc48;
  b38[0] = v38;
  b43[0] = v43;
  b48[0] = v48;
  // n29 reduce_sum over axes [0] of [3]
  let acc29 = 0;
  {
    {
      const i1 = 0;
      const v28 = b5[b5o + i1] * b5[b5o + i1];
      acc29 += v28;
    }
    {
      const i1 = 1;
      const v28 = b5[b5o + i1] * b5[b5o + i1];
      acc29 += v28;
    }
    {
      const i1 = 2;
      const v28 = b5[b5o + i1] * b5[b5o + i1];
      acc29 += v28;
    }
  }
  const v29 = acc29;
  const v30 = (-0.5) * v29;
  const v31 = v26 + v30;
  b31[b31o] = v31;
}

// kernel 1: n50 concat f64[3] = concat(n39, n44, n49)
{
  // n39 goes to [0, 1) along axis 0
  for (let p = 0; p < 1; p++) {
    const src = p * 1, dst = p * 3;
    for (let r = 0; r < 1; r++) b50[dst + r] = b38[src + r];
  }
  // n44 goes to [1, 2) along axis 0
  for (let p = 0; p < 1; p++) {
    const src = p * 1, dst = p * 3 + 1;
    for (let r = 0; r < 1; r++) b50[dst + r] = b43[src + r];
  }
  // n49 goes to [2, 3) along axis 0
  for (let p = 0; p < 1; p++) {
    const src = p * 1, dst = p * 3 + 2;
    for (let r = 0; r < 1; r++) b50[dst + r] = b48[src + r];
  }
}

// kernel 2: loop over [3]; fuses n51 sub (stored)
{
  {
    const i0 = 0;
    const v51 = b50[i0] - b5[b5o + i0];
    b51[b51o + i0] = v51;
  }
  {
    const i0 = 1;
    const v51 = b50[i0] - b5[b5o + i0];
    b51[b51o + i0] = v51;
  }
  {
    const i0 = 2;
    const v51 = b50[i0] - b5[b5o + i0];
    b51[b51o + i0] = v51;
  }
}