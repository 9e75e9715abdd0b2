/**
 * The conformance corpus (fixtures/chunk-wire) and the recorded real streams
 * (fixtures/recorded) through the reducer, directly and through the SSE
 * reader in every read pattern and encoding of the corpus README.
 */
import {
  SSE_ENCODINGS,
  expectTurn,
  loadCorpus,
  readPatterns,
  reduceFrames,
  reduceSse,
  sseEvents,
  summarize,
  toBytes
} from '../support/wire-harness';

describe.each(['fixtures/chunk-wire', 'fixtures/recorded'])('%s', folder => {
  describe.each(loadCorpus(folder).map(file => [file.name, file] as const))(
    '%s',
    (_name, file) => {
      it('reduces to its expected turn from JSON text', () => {
        expectTurn(reduceFrames(file.lines).state, file.expected);
      });

      it('reduces to its expected turn from parsed objects', () => {
        const objects = file.lines.map(line => JSON.parse(line));
        expectTurn(reduceFrames(objects).state, file.expected);
      });

      describe.each(SSE_ENCODINGS.map(encoding => [encoding.name, encoding]))(
        'over SSE, %s',
        (_label, encoding) => {
          const events = sseEvents(file.lines, encoding);

          it.each(readPatterns(events).map(p => [p.name, p.reads] as const))(
            '%s',
            async (_pattern, reads) => {
              expectTurn((await reduceSse(reads)).state, file.expected);
            }
          );

          it('split into two reads at every byte boundary', async () => {
            const whole = toBytes(events.join(''));
            const summaryOf = async (reads: Uint8Array[]) =>
              JSON.stringify(
                summarize((await reduceSse(reads)).state, file.expected)
              );
            const reference = await summaryOf([whole]);
            for (let cut = 1; cut < whole.length; cut++) {
              const reads = [whole.subarray(0, cut), whole.subarray(cut)];
              const summary = await summaryOf(reads);
              if (summary !== reference) {
                // Fail with the full comparison and the byte that broke it.
                expect({ cut, summary }).toEqual({ cut, summary: reference });
              }
            }
            expectTurn((await reduceSse([whole])).state, file.expected);
          });
        }
      );
    }
  );
});
