// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC'11), bit-exact with Random123 and with packages/ppl/src/random/philox.ts.
// Type-free (32-bit unsigned integers only); included once, before both REAL instantiations.

// Encrypts counter (c.x, c.y, c.z, c.w) under key (k.x, k.y): ten rounds, the key bumped by the
// Weyl constants between rounds (not before the first).
uvec4 ppl_philox4x32(uvec4 c, uvec2 k) {
  for (int round = 0; round < 10; round++) {
    if (round > 0) k += uvec2(0x9E3779B9u, 0xBB67AE85u);
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, c.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
    c = uvec4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
  }
  return c;
}

// The keyed stream of packages/ppl/src/random/streams.ts:
//   key = (seed mod 2^32, seed / 2^32), counter = (chain, iteration, purpose | sub << 8, block).
uvec4 ppl_philox_stream(uvec2 seedKey, uint chain, uint iteration, uint purpose, uint sub, uint block) {
  return ppl_philox4x32(uvec4(chain, iteration, purpose | (sub << 8), block), seedKey);
}
