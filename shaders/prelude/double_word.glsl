// Error-free transformations (Dekker 1971, Knuth TAOCP 4.2.2) for double-word arithmetic, used by
// pow and mod. Generic over REAL. Every temporary is `precise`: the compiler must neither fuse
// a*b+c into an fma nor reassociate, or the error terms come out as zero.

// a = hi + lo exactly, each half with at most half the significand bits (Veltkamp splitting).
void ppl_split(REAL a, out REAL hi, out REAL lo) {
  precise REAL c = PPL_SPLITTER * a;
  precise REAL h = c - (c - a);
  precise REAL l = a - h;
  hi = h;
  lo = l;
}

// a * b = p + e exactly (Dekker's product); needs |a|, |b| far from overflow.
void ppl_two_prod(REAL a, REAL b, out REAL p, out REAL e) {
  REAL ah, al, bh, bl;
  ppl_split(a, ah, al);
  ppl_split(b, bh, bl);
  precise REAL pp = a * b;
  precise REAL ee = ((ah * bh - pp) + ah * bl + al * bh) + al * bl;
  p = pp;
  e = ee;
}

// a + b = s + e exactly (Knuth's two-sum, no ordering requirement).
void ppl_two_sum(REAL a, REAL b, out REAL s, out REAL e) {
  precise REAL ss = a + b;
  precise REAL bb = ss - a;
  precise REAL ee = (a - (ss - bb)) + (b - bb);
  s = ss;
  e = ee;
}

// a + b = s + e exactly when |a| >= |b| or a == 0 (Dekker's fast two-sum).
void ppl_fast_two_sum(REAL a, REAL b, out REAL s, out REAL e) {
  precise REAL ss = a + b;
  precise REAL ee = b - (ss - a);
  s = ss;
  e = ee;
}
