// ===== program =====
// 4 kernel(s) for 11 nodes; outputs: n7, n10
const b7 = OUT[0], b7o = OUTOFF[0]; // output 0: n7 reduce_max f64[3]
const b10 = OUT[1], b10o = OUTOFF[1]; // output 1: n10 tuple_get f64[3]
const b0 = IN[0], b0o = INOFF[0]; // n0 param 'x' f64[4,3]
const b1 = T[0]; // n1 reduce_logsumexp f64[4]
const b4 = T[1]; // n4 exp f64[4,3]
const k0 = K[0]; // n8 const f64[3] (filled)
const s2 = T[2]; // carry 0 of scan n9
const s3 = T[3]; // next carry 0 of scan n9

// kernel 0: loop over [4]; fuses n1 reduce_logsumexp (stored)
{
  {
    const i0 = 0;
    // n1 reduce_logsumexp over axes [1] of [4,3]
    let max1 = -Infinity;
    {
      {
        const i1 = 0;
        const x1 = b0[b0o + i0 * 3 + i1];
        if (x1 > max1 || x1 !== x1) max1 = x1;
      }
      {
        const i1 = 1;
        const x1 = b0[b0o + i0 * 3 + i1];
        if (x1 > max1 || x1 !== x1) max1 = x1;
      }
      {
        const i1 = 2;
        const x1 = b0[b0o + i0 * 3 + i1];
        if (x1 > max1 || x1 !== x1) max1 = x1;
      }
    }
    let acc1 = 0;
    if (max1 > -Infinity && max1 < Infinity) {
      {
        const i1 = 0;
        acc1 += Math.exp(b0[b0o + i0 * 3 + i1] - max1);
      }
      {
        const i1 = 1;
        acc1 += Math.exp(b0[b0o + i0 * 3 + i1] - max1);
      }
      {
        const i1 = 2;
        acc1 += Math.exp(b0[b0o + i0 * 3 + i1] - max1);
      }
    }
    const v1 = max1 > -Infinity && max1 < Infinity ? max1 + Math.log(acc1) : max1;
    b1[i0] = v1;
  }
  {
    const i0 = 1;
    // n1 reduce_logsumexp over axes [1] of [4,3]
    let max1 = -Infinity;
    {
      {
        const i1 = 0;
        const x1 = b0[b0o + i0 * 3 + i1];
        if (x1 > max1 || x1 !== x1) max1 = x1;
      }
      {
        const i1 = 1;
        const x1 = b0[b0o + i0 * 3 + i1];
        if (x1 > max1 || x1 !== x1) max1 = x1;
      }
      {
        const i1 = 2;
        const x1 = b0[b0o + i0 * 3 + i1];
        if (x1 > max1 || x1 !== x1) max1 = x1;
      }
    }
    let acc1 = 0;
    if (max1 > -Infinity && max1 < Infinity) {
      {
        const i1 = 0;
        acc1 += Math.exp(b0[b0o + i0 * 3 + i1] - max1);
      }
      {
        const i1 = 1;
        acc1 += Math.exp(b0[b0o + i0 * 3 + i1] - max1);
      }
      {
        const i1 = 2;
        acc1 += Math.exp(b0[b0o + i0 * 3 + i1] - max1);
      }
    }
    const v1 = max1 > -Infinity && max1 < Infinity ? max1 + Math.log(acc1) : max1;
    b1[i0] = v1;
  }
  {
    const i0 = 2;
    // n1 reduce_logsumexp over axes [1] of [4,3]
    let max1 = -Infinity;
    {
      {
        const i1 = 0;
        const x1 = b0[b0o + i0 * 3 + i1];
        if (x1 > max1 || x1 !== x1) max1 = x1;
      }
      {
        const i1 = 1;
        const x1 = b0[b0o + i0 * 3 + i1];
        if (x1 > max1 || x1 !== x1) max1 = x1;
      }
      {
        const i1 = 2;
        const x1 = b0[b0o + i0 * 3 + i1];
        if (x1 > max1 || x1 !== x1) max1 = x1;
      }
    }
    let acc1 = 0;
    if (max1 > -Infinity && max1 < Infinity) {
      {
        const i1 = 0;
        acc1 += Math.exp(b0[b0o + i0 * 3 + i1] - max1);
      }
      {
        const i1 = 1;
        acc1 += Math.exp(b0[b0o + i0 * 3 + i1] - max1);
      }
      {
        const i1 = 2;
        acc1 += Math.exp(b0[b0o + i0 * 3 + i1] - max1);
      }
    }
    const v1 = max1 > -Infinity && max1 < Infinity ? max1 + Math.log(acc1) : max1;
    b1[i0] = v1;
  }
  {
    const i0 = 3;
    // n1 reduce_logsumexp over axes [1] of [4,3]
    let max1 = -Infinity;
    {
      {
        const i1 = 0;
        const x1 = b0[b0o + i0 * 3 + i1];
        if (x1 > max1 || x1 !== x1) max1 = x1;
      }
      {
        const i1 = 1;
        const x1 = b0[b0o + i0 * 3 + i1];
        if (x1 > max1 || x1 !== x1) max1 = x1;
      }
      {
        const i1 = 2;
        const x1 = b0[b0o + i0 * 3 + i1];
        if (x1 > max1 || x1 !== x1) max1 = x1;
      }
    }
    let acc1 = 0;
    if (max1 > -Infinity && max1 < Infinity) {
      {
        const i1 = 0;
        acc1 += Math.exp(b0[b0o + i0 * 3 + i1] - max1);
      }
      {
        const i1 = 1;
        acc1 += Math.exp(b0[b0o + i0 * 3 + i1] - max1);
      }
      {
        const i1 = 2;
        acc1 += Math.exp(b0[b0o + i0 * 3 + i1] - max1);
      }
    }
    const v1 = max1 > -Infinity && max1 < Infinity ? max1 + Math.log(acc1) : max1;
    b1[i0] = v1;
  }
}

// kernel 1: loop over [4,3]; fuses n3 sub, n4 exp (stored)
{
  for (let i0 = 0; i0 < 4; i0++) {
    {
      const i1 = 0;
      const v3 = b0[b0o + i0 * 3 + i1] - b1[i0];
      const v4 = Math.exp(v3);
      b4[i0 * 3 + i1] = v4;
    }
    {
      const i1 = 1;
      const v3 = b0[b0o + i0 * 3 + i1] - b1[i0];
      const v4 = Math.exp(v3);
      b4[i0 * 3 + i1] = v4;
    }
    {
      const i1 = 2;
      const v3 = b0[b0o + i0 * 3 + i1] - b1[i0];
      const v4 = Math.exp(v3);
      b4[i0 * 3 + i1] = v4;
    }
  }
}

// kernel 2: reduce_max n7 over axes [0], row-major over [4,3]; fuses n6 mul
{
  for (let f7 = 0; f7 < 3; f7++) b7[b7o + f7] = (-Infinity);
  for (let i0 = 0; i0 < 4; i0++) {
    {
      const i1 = 0;
      const v6 = b4[i0 * 3 + i1] * 2;
      {
        const x = v6, m = b7[b7o + i1];
        if (x > m || x !== x) b7[b7o + i1] = x;
      }
    }
    {
      const i1 = 1;
      const v6 = b4[i0 * 3 + i1] * 2;
      {
        const x = v6, m = b7[b7o + i1];
        if (x > m || x !== x) b7[b7o + i1] = x;
      }
    }
    {
      const i1 = 2;
      const v6 = b4[i0 * 3 + i1] * 2;
      {
        const x = v6, m = b7[b7o + i1];
        if (x > m || x !== x) b7[b7o + i1] = x;
      }
    }
  }
}

// kernel 3: n9 scan f64[] = scan(n8, n4)
{
  const S9 = C[0], S9in = S9.IN, S9inOff = S9.INOFF, S9out = S9.OUT, S9outOff = S9.OUTOFF;
  let c9_0 = s2, c9_0n = s3;
  for (let f = 0; f < 3; f++) c9_0[f] = k0[f];
  S9in[1] = b4;
  for (let s = 0; s < 4; s++) {
    const t = s;
    S9in[0] = c9_0; S9inOff[0] = 0; S9out[0] = c9_0n; S9outOff[0] = 0;
    S9inOff[1] = t * 3;
    S9.run(S9in, S9inOff, S9out, S9outOff, S9.T, S9.C);
    { const w = c9_0; c9_0 = c9_0n; c9_0n = w; }
  }
  for (let f = 0; f < 3; f++) b10[b10o + f] = c9_0[f];
}

// ===== program / scan body C[0] =====
// 1 kernel(s) for 5 nodes; outputs: n4
const b4 = OUT[0], b4o = OUTOFF[0]; // output 0: n4 add f64[3]
const b0 = IN[0], b0o = INOFF[0]; // n0 arg f64[3]
const b3 = IN[1], b3o = INOFF[1]; // n3 arg f64[3]

// kernel 0: loop over [3]; fuses n2 mul, n4 add (stored)
{
  {
    const i0 = 0;
    const v2 = b0[b0o + i0] * 0.5;
    const v4 = v2 + b3[b3o + i0];
    b4[b4o + i0] = v4;
  }
  {
    const i0 = 1;
    const v2 = b0[b0o + i0] * 0.5;
    const v4 = v2 + b3[b3o + i0];
    b4[b4o + i0] = v4;
  }
  {
    const i0 = 2;
    const v2 = b0[b0o + i0] * 0.5;
    const v4 = v2 + b3[b3o + i0];
    b4[b4o + i0] = v4;
  }
}