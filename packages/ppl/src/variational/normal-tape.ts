/**
 * A random source's normals recorded as they are read, so that computations run side by side can
 * each read the stretch of the stream a run one after the other would have given them: ADVI's
 * step-size trials in lockstep, trial t reading from where trial t − 1 would have stopped. The
 * recorded stream is the source's own sequence of normals, so a reader at offset i gives the
 * normals a single reader would have got from its i-th on.
 */
import type { Rng } from "../random/rng.ts";

/** An Rng over a tape, which says how many normals it has read. */
export interface TapeReader extends Rng {
  /** Normals read so far. */
  readonly read: number;
}

/** The normals of `source`, recorded on first read, readable from any offset. */
export class NormalTape {
  private readonly values: number[] = [];

  constructor(private readonly source: Rng) {}

  /** A reader of the tape's normals from the `from`-th on (recording further ones from the source as needed). */
  reader(from: number): TapeReader {
    let at = from;
    const at0 = from;
    return {
      normal: () => this.at(at++),
      uniform: () => onlyNormals(),
      get read() {
        return at - at0;
      },
    };
  }

  /** A reader from the `from`-th normal on that replays what the tape holds, then reads the source itself (recording nothing more). */
  rest(from: number): Rng {
    let at = from;
    return {
      normal: () => (at < this.values.length ? this.values[at++]! : this.source.normal()),
      uniform: () => onlyNormals(),
    };
  }

  private at(i: number): number {
    while (this.values.length <= i) this.values.push(this.source.normal());
    return this.values[i]!;
  }
}

function onlyNormals(): never {
  throw new Error("NormalTape records normals only: a uniform cannot be replayed in the source's order");
}
