/** Fakes of the notebook tools' tests. */
import type * as nbformat from '@jupyterlab/nbformat';
import { ToolFailure } from '../../notebook/tools/tool-failure';

/** A notebook in memory, with the part of `LiveNotebook` the tools use. */
export class FakeNotebook {
  constructor(
    readonly path: string,
    readonly cells: { id: string; cell_type: string; source: string }[]
  ) {}
  panel = { context: { model: { dirty: false } } };
  get cellCount(): number {
    return this.cells.length;
  }
  cellData(index: number) {
    const cell = this.cells[index];
    return cell.cell_type === 'code'
      ? { ...cell, execution_count: null, outputs: [] as nbformat.IOutput[] }
      : { ...cell };
  }
  indexOf(cellId: string): number {
    const index = this.cells.findIndex(cell => cell.id === cellId);
    if (index < 0) {
      throw new ToolFailure({
        status: 'error',
        code: 'not_found',
        error: `no cell ${cellId}`
      });
    }
    return index;
  }
  activeCell() {
    return { index: 0, selectedText: '' };
  }
  mimeTypeOf(cellType: string): string {
    return cellType === 'code' ? 'text/x-ipython' : 'text/x-ipythongfm';
  }
  kernel() {
    return null;
  }
  assertWritable(): void {
    return;
  }
  insert(index: number, cell: nbformat.ICell): string {
    const id = `new-${this.cells.length}`;
    this.cells.splice(index, 0, {
      id,
      cell_type: cell.cell_type,
      source: String(cell.source)
    });
    return id;
  }
  setSource(index: number, source: string): void {
    this.cells[index].source = source;
  }
  provenanceOf(): undefined {
    return undefined;
  }
  cellJson(index: number) {
    return { ...this.cells[index], metadata: {} };
  }
  delete(index: number): void {
    this.cells.splice(index, 1);
  }
}
