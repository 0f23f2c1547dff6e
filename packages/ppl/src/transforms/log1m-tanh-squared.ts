import { abs, mul, softplus, sub, type Node } from "@ppl/tensor";

/** log(1 − tanh(u)²) = 2(log 2 − |u| − softplus(−2|u|)), exact where 1 − tanh(u)² would round to 0. */
export function log1mTanhSquared(u: Node): Node {
  return mul(2, sub(sub(Math.LN2, abs(u)), softplus(mul(-2, abs(u)))));
}
