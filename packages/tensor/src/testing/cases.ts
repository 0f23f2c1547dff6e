import type { ConformanceCase } from "./case.ts";
import { cdfCases } from "./cases/cdf.ts";
import { compositeCases } from "./cases/composite.ts";
import { binaryCases, compareCases, otherElementwiseCases, unaryCases } from "./cases/elementwise.ts";
import { fusionCases } from "./cases/fusion.ts";
import { indexingCases } from "./cases/indexing.ts";
import { linalgCases } from "./cases/linalg.ts";
import { lpdfSumCases } from "./cases/lpdf-sum.ts";
import { generalLinalgCases } from "./cases/linalg-general.ts";
import { matrixHelperCases } from "./cases/matrix-helpers.ts";
import { movementCases } from "./cases/movement.ts";
import { reduceCases } from "./cases/reduce.ts";
import { scanCases } from "./cases/scan.ts";
import { sortCases } from "./cases/sort.ts";

/** Every conformance case: one or more per op of the IR, plus fusion stress cases. */
export function conformanceCases(): ConformanceCase[] {
  return [
    ...unaryCases(),
    ...binaryCases(),
    ...compareCases(),
    ...otherElementwiseCases(),
    ...reduceCases(),
    ...movementCases(),
    ...indexingCases(),
    ...linalgCases(),
    ...generalLinalgCases(),
    ...scanCases(),
    ...fusionCases(),
    ...cdfCases(),
    ...compositeCases(),
    ...sortCases(),
    ...matrixHelperCases(),
    ...lpdfSumCases(),
  ];
}
